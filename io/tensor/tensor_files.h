// Tensor files: ONNX TensorProto `.pb`, numpy `.npy` and `.npz`, and the ONNX backend-test
// bundle layout (a folder of input_N.pb / output_N.pb).
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/fact.h"
#include "core/tensor.h"

namespace kiln::io {

struct NamedTensor {
  std::string name;
  Tensor tensor;
};

// A serialized TensorProto; the name is the proto's name (may be empty).
NamedTensor read_tensor_pb(const std::string& path);
// A serialized value as `declared` says (nullptr: a tensor): TensorProto, SequenceProto for
// sequences, OptionalProto for optionals; then conform_to(declared) (io/tensor/conform.h).
NamedTensor read_value_pb(const std::string& path, const Fact* declared);
// Writes a TensorProto, or a SequenceProto / OptionalProto for those values.
void write_tensor_pb(const std::string& path, const Tensor& tensor, const std::string& name = "");

// numpy .npy (format 1.0-3.0; little-endian bool/int/uint/float16/32/64, C order).
Tensor read_npy(const std::string& path);
Tensor parse_npy(const std::string& bytes, const std::string& what);
void write_npy(const std::string& path, const Tensor& tensor);
std::string serialize_npy(const Tensor& tensor);

// numpy .npz (a zip of .npy files, stored or deflated): entries in archive order, names
// without the .npy suffix.
std::vector<NamedTensor> read_npz(const std::string& path);
// Same, from the bytes of a .npz; `what` names it in errors.
std::vector<NamedTensor> parse_npz(std::string_view bytes, const std::string& what);
void write_npz(const std::string& path, const std::vector<NamedTensor>& tensors);

// The files `prefix_0.pb`, `prefix_1.pb`, ... of a folder, in order ("input" or "output"),
// file i read as declared[i] says when given (read_value_pb).
std::vector<NamedTensor> read_bundle(const std::string& dir, const std::string& prefix,
                                     const std::vector<Fact>& declared = {});

// Reads .pb or .npy by extension (a .pb as `declared` says when given).
NamedTensor read_tensor_file(const std::string& path, const Fact* declared = nullptr);

}  // namespace kiln::io
