// Conversion between ONNX TensorProto and kiln Tensor (raw_data, typed fields, external data).
#pragma once

#include <onnx/onnx_pb.h>

#include <optional>
#include <string>
#include <string_view>

#include "core/datum_type.h"
#include "core/tensor.h"

namespace kiln::onnx_io {

// TensorProto.DataType values past ONNX 1.12 (kiln builds with Debian's 1.12 headers).
inline constexpr int kOnnxFloat8E4M3FN = 17, kOnnxFloat8E4M3FNUZ = 18, kOnnxFloat8E5M2 = 19,
                     kOnnxFloat8E5M2FNUZ = 20, kOnnxUint4 = 21, kOnnxInt4 = 22,
                     kOnnxFloat4E2M1 = 23, kOnnxFloat8E8M0 = 24, kOnnxUint2 = 25, kOnnxInt2 = 26;

// ONNX TensorProto.DataType -> DatumType; nullopt for types kiln does not hold.
std::optional<DatumType> datum_type_from_onnx(int onnx_type);
int onnx_type_from_datum_type(DatumType dt);

// A tensor's bytes as ONNX stores them (raw_data, external data): 4-bit and 2-bit types packed
// two / four per byte, low bits first. `set_stored_bytes` takes exactly `stored_bytes(t)`.
size_t stored_bytes(const Tensor& t);
std::string stored_bytes_of(const Tensor& t);
void set_stored_bytes(Tensor& t, std::string_view bytes);

// Reads a TensorProto; `base_dir` resolves external data files (which must stay inside it).
Tensor tensor_from_proto(const onnx::TensorProto& proto, const std::string& base_dir = "");
// Writes a tensor as a TensorProto with raw_data (strings in string_data).
onnx::TensorProto tensor_to_proto(const Tensor& tensor, const std::string& name = "");

}  // namespace kiln::onnx_io
