// Conversion between ONNX TensorProto and kiln Tensor (raw_data, typed fields, external data).
#pragma once

#include <onnx/onnx_pb.h>

#include <optional>
#include <string>

#include "core/datum_type.h"
#include "core/tensor.h"

namespace kiln::onnx_io {

// ONNX TensorProto.DataType -> DatumType; nullopt for types kiln does not hold.
std::optional<DatumType> datum_type_from_onnx(int onnx_type);
int onnx_type_from_datum_type(DatumType dt);

// Reads a TensorProto; `base_dir` resolves external data files (which must stay inside it).
Tensor tensor_from_proto(const onnx::TensorProto& proto, const std::string& base_dir = "");
// Writes a tensor as a TensorProto with raw_data (strings in string_data).
onnx::TensorProto tensor_to_proto(const Tensor& tensor, const std::string& name = "");

}  // namespace kiln::onnx_io
