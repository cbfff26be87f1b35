#include "io/onnx/value_proto.h"

#include <fmt/format.h>

#include "base/error.h"
#include "core/map_value.h"
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
    case SP::MAP:
      for (const auto& m : proto.map_values()) items.push_back(map_from_proto(m, base_dir));
      elem_dt = DatumType::Map;
      break;
    default:
      fail("sequence '{}': items of ONNX type {} (sparse tensors) are not supported", proto.name(),
           proto.elem_type());
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
    case OP::MAP:
      if (!proto.has_map_value()) return make_optional(DatumType::Map, Tensor());
      return make_optional(DatumType::Map, map_from_proto(proto.map_value(), base_dir));
    default:
      fail("optional '{}': values of ONNX type {} (sparse tensors) are not supported", proto.name(),
           proto.elem_type());
  }
}

}  // namespace

Tensor sequence_from_proto(const onnx::SequenceProto& proto, const std::string& base_dir) {
  return sequence_from_proto_at(proto, base_dir, 0);
}

Tensor optional_from_proto(const onnx::OptionalProto& proto, const std::string& base_dir) {
  return optional_from_proto_at(proto, base_dir, 0);
}

Tensor map_from_proto(const onnx::MapProto& proto, const std::string& base_dir) {
  try {
    using TP = onnx::TensorProto;
    Tensor keys;
    if (proto.key_type() == TP::INT64) {
      KILN_ENSURE(proto.string_keys_size() == 0, "int64 keys with string keys given");
      keys = Tensor(DatumType::I64, Shape{proto.keys_size()});
      for (int i = 0; i < proto.keys_size(); i++) keys.data<int64_t>()[i] = proto.keys(i);
    } else if (proto.key_type() == TP::STRING) {
      KILN_ENSURE(proto.keys_size() == 0, "string keys with int64 keys given");
      keys = Tensor(DatumType::String, Shape{proto.string_keys_size()});
      for (int i = 0; i < proto.string_keys_size(); i++)
        keys.data<std::string>()[i] = proto.string_keys(i);
    } else {
      fail("keys of ONNX type {} are not supported (int64, string)", proto.key_type());
    }
    const auto& vals = proto.values();
    KILN_ENSURE(vals.elem_type() == onnx::SequenceProto::TENSOR ||
                    vals.elem_type() == onnx::SequenceProto::UNDEFINED,
                "values of sequence type {} are not supported (tensors)", vals.elem_type());
    std::vector<Tensor> parts;
    int64_t total = 0;
    for (const auto& t : vals.tensor_values()) {
      parts.push_back(tensor_from_proto(t, base_dir));
      total += parts.back().numel();
      KILN_ENSURE(parts.back().dtype() == parts[0].dtype(), "values of types {} and {}",
                  name_of(parts[0].dtype()), name_of(parts.back().dtype()));
    }
    KILN_ENSURE(total == keys.numel(), "{} keys for {} values", keys.numel(), total);
    DatumType value_dt = parts.empty() ? DatumType::F32 : parts[0].dtype();
    Tensor values(value_dt, Shape{total});
    int64_t at = 0;
    for (const auto& p : parts) {
      dispatch_any(value_dt, [&](auto tag) {
        using T = typename decltype(tag)::type;
        for (int64_t i = 0; i < p.numel(); i++) values.data<T>()[at + i] = p.data<T>()[i];
      });
      at += p.numel();
    }
    return make_map(std::move(keys), std::move(values));
  } catch (Error& e) {
    e.with_context(fmt::format("reading map '{}'", proto.name()));
    throw;
  }
}

onnx::MapProto map_to_proto(const Tensor& map, const std::string& name) {
  const auto& m = map_of(map, "writing a MapProto");
  onnx::MapProto proto;
  proto.set_name(name);
  if (m.key_dt == DatumType::String) {
    proto.set_key_type(onnx::TensorProto::STRING);
    for (int64_t i = 0; i < m.size(); i++) proto.add_string_keys(m.keys.data<std::string>()[i]);
  } else {
    proto.set_key_type(onnx::TensorProto::INT64);
    for (int64_t i = 0; i < m.size(); i++) proto.add_keys(m.keys.data<int64_t>()[i]);
  }
  auto* values = proto.mutable_values();
  values->set_elem_type(onnx::SequenceProto::TENSOR);
  for (int64_t i = 0; i < m.size(); i++)
    *values->add_tensor_values() =
        tensor_to_proto(m.values.slice_outer(i, i + 1).reshaped(Shape{}));
  return proto;
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
  } else if (seq.elem_dt == DatumType::Map) {
    proto.set_elem_type(onnx::SequenceProto::MAP);
    for (const auto& item : seq.items) *proto.add_map_values() = map_to_proto(item);
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
  } else if (opt.elem_dt == DatumType::Map) {
    proto.set_elem_type(onnx::OptionalProto::MAP);
    if (opt.has_value()) *proto.mutable_map_value() = map_to_proto(opt.value);
  } else {
    proto.set_elem_type(onnx::OptionalProto::TENSOR);
    if (opt.has_value()) *proto.mutable_tensor_value() = tensor_to_proto(opt.value);
  }
  return proto;
}

}  // namespace kiln::onnx_io
