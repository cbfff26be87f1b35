// Conversion between ONNX SequenceProto / OptionalProto / MapProto (onnx-data.proto, the files
// of backend-test bundles holding seq(T), optional(T) and map(K, V) values) and kiln sequence /
// optional / map values (core/sequence.h, core/map_value.h).
#pragma once

#include <onnx/onnx-data_pb.h>

#include <string>

#include "core/tensor.h"

namespace kiln::onnx_io {

// Reads a SequenceProto (tensor or nested sequence items). An empty sequence says nothing of
// its items' type: it is f32 unless conformed to a declaration (io/tensor/conform.h).
Tensor sequence_from_proto(const onnx::SequenceProto& proto, const std::string& base_dir = "");
// Reads an OptionalProto (a tensor, a sequence, or nothing).
Tensor optional_from_proto(const onnx::OptionalProto& proto, const std::string& base_dir = "");

// Reads a MapProto: int64 or string keys, values a SequenceProto of tensors (one scalar per key,
// as onnx.numpy_helper.from_dict writes them, or tensors whose elements add up to one per key).
Tensor map_from_proto(const onnx::MapProto& proto, const std::string& base_dir = "");

onnx::SequenceProto sequence_to_proto(const Tensor& sequence, const std::string& name = "");
onnx::OptionalProto optional_to_proto(const Tensor& optional, const std::string& name = "");
// A MapProto with one rank-0 tensor per value (as onnx.numpy_helper.from_dict).
onnx::MapProto map_to_proto(const Tensor& map, const std::string& name = "");

}  // namespace kiln::onnx_io
