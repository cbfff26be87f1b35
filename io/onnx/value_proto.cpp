#include "io/onnx/value_proto.h"

#include <fmt/format.h>

#include "base/error.h"
#include "core/sequence.h"
#include "io/onnx/tensor_proto.h"

namespace kiln::onnx_io {

namespace {
constexpr int kMaxNesting = 16;

Tensor sequence_from_proto_at(const onnx::SequenceProto& proto, const std::string& base_dir,
                              int depth);
Tensor optional_from_proto_at(const onnx::OptionalProto& proto, const std::string& base_dir,
                              int depth);

Tensor sequence_from_proto_at(const onnx::SequenceProto& proto, const std::string& base_dir,
                              int depth) {
  KILN_ENSURE(depth < kMaxNesting, "sequence '{}' is nested too deeply", proto.name());
  using SP = onnx::SequenceProto;
  std::vector<Tensor> items;
  DatumType elem_dt = DatumType::F32;
  switch (proto.elem_type()) {
    case SP::UNDEFINED:
    case SP::TENSOR:
      KILN_ENSURE(proto.sequence_values_size() == 0 && proto.optional_values_size() == 0,
                  "sequence '{}' of tensors holds non-tensor items", proto.name());
      for (const auto& t : proto.tensor_values()) items.push_back(tensor_from_proto(t, base_dir));
      if (!items.empty()) elem_dt = items[0].dtype();
      break;
    case SP::SEQUENCE:
      for (const auto& s : proto.sequence_values())
        items.push_back(sequence_from_proto_at(s, base_dir, depth + 1));
      elem_dt = DatumType::Sequence;
      break;
    case SP::OPTIONAL:
      for (const auto& o : proto.optional_values())
        items.push_back(optional_from_proto_at(o, base_dir, depth + 1));
      elem_dt = DatumType::Optional;
      break;
    default:
      fail("sequence '{}': items of ONNX type {} (sparse tensors, maps) are not supported",
           proto.name(), proto.elem_type());
  }
  try {
    return make_sequence(elem_dt, std::move(items));
  } catch (Error& e) {
    e.with_context(fmt::format("reading sequence '{}'", proto.name()));
    throw;
  }
}

Tensor optional_from_proto_at(const onnx::OptionalProto& proto, const std::string& base_dir,
                              int depth) {
  KILN_ENSURE(depth < kMaxNesting, "optional '{}' is nested too deeply", proto.name());
  using OP = onnx::OptionalProto;
  switch (proto.elem_type()) {
    case OP::UNDEFINED:
      return make_optional(DatumType::F32, Tensor());
    case OP::TENSOR: {
      if (!proto.has_tensor_value()) return make_optional(DatumType::F32, Tensor());
      Tensor t = tensor_from_proto(proto.tensor_value(), base_dir);
      return make_optional(t.dtype(), t);
    }
    case OP::SEQUENCE:
      if (!proto.has_sequence_value()) return make_optional(DatumType::Sequence, Tensor());
      return make_optional(DatumType::Sequence,
                           sequence_from_proto_at(proto.sequence_value(), base_dir, depth + 1));
    case OP::OPTIONAL: {
      if (!proto.has_optional_value()) return make_optional(DatumType::Optional, Tensor());
      return make_optional(DatumType::Optional,
                           optional_from_proto_at(proto.optional_value(), base_dir, depth + 1));
    }
    default:
      fail("optional '{}': values of ONNX type {} (sparse tensors, maps) are not supported",
           proto.name(), proto.elem_type());
  }
}

}  // namespace

Tensor sequence_from_proto(const onnx::SequenceProto& proto, const std::string& base_dir) {
  return sequence_from_proto_at(proto, base_dir, 0);
}

Tensor optional_from_proto(const onnx::OptionalProto& proto, const std::string& base_dir) {
  return optional_from_proto_at(proto, base_dir, 0);
}

onnx::SequenceProto sequence_to_proto(const Tensor& sequence, const std::string& name) {
  const auto& seq = sequence_of(sequence, "writing a SequenceProto");
  onnx::SequenceProto proto;
  proto.set_name(name);
  if (seq.elem_dt == DatumType::Sequence) {
    proto.set_elem_type(onnx::SequenceProto::SEQUENCE);
    for (const auto& item : seq.items) *proto.add_sequence_values() = sequence_to_proto(item);
  } else if (seq.elem_dt == DatumType::Optional) {
    proto.set_elem_type(onnx::SequenceProto::OPTIONAL);
    for (const auto& item : seq.items) *proto.add_optional_values() = optional_to_proto(item);
  } else {
    proto.set_elem_type(onnx::SequenceProto::TENSOR);
    for (const auto& item : seq.items) *proto.add_tensor_values() = tensor_to_proto(item);
  }
  return proto;
}

onnx::OptionalProto optional_to_proto(const Tensor& optional, const std::string& name) {
  const auto& opt = optional_of(optional, "writing an OptionalProto");
  onnx::OptionalProto proto;
  proto.set_name(name);
  if (opt.elem_dt == DatumType::Sequence) {
    proto.set_elem_type(onnx::OptionalProto::SEQUENCE);
    if (opt.has_value()) *proto.mutable_sequence_value() = sequence_to_proto(opt.value);
  } else if (opt.elem_dt == DatumType::Optional) {
    proto.set_elem_type(onnx::OptionalProto::OPTIONAL);
    if (opt.has_value()) *proto.mutable_optional_value() = optional_to_proto(opt.value);
  } else {
    proto.set_elem_type(onnx::OptionalProto::TENSOR);
    if (opt.has_value()) *proto.mutable_tensor_value() = tensor_to_proto(opt.value);
  }
  return proto;
}

}  // namespace kiln::onnx_io
