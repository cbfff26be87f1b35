// Helpers shared by the NNEF primitives (io/nnef/*primitives.cpp).
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/error.h"
#include "io/nnef/builder.h"
#include "ops/shape/reshape.h"
#include "ops/shape/squeeze.h"

namespace kiln::nnef::prim {

using V = std::vector<Value>;

inline V one(Outlet o) {
  return {Value::tensor(o)};
}

inline Tensor i64_tensor(const std::vector<int64_t>& xs) {
  return Tensor::from_vector<int64_t>({int64_t(xs.size())}, xs);
}

inline DatumType nnef_type(const std::string& type_arg, DatumType dflt) {
  if (type_arg == "scalar") return DatumType::F32;
  if (type_arg == "integer") return DatumType::I64;
  if (type_arg == "logical") return DatumType::Bool;
  return dflt;
}

inline DatumType named_type(const std::string& name, const std::string& op) {
  auto dt = parse_datum_type(name);
  KILN_ENSURE(dt.has_value(), "{}: unknown datum type '{}'", op, name);
  return *dt;
}

inline std::vector<Dim> shape_of(Builder& b, Outlet o) {
  return b.fact(o).shape;
}

// NNEF broadcasting pads the lower-rank operand with trailing singleton dims.
inline std::pair<Outlet, Outlet> align_ranks(Builder& b, Outlet x, Outlet y) {
  size_t rx = b.fact(x).rank(), ry = b.fact(y).rank();
  auto pad = [&](Outlet o, size_t from, size_t to) {
    std::vector<int64_t> axes;
    for (size_t i = from; i < to; i++) axes.push_back(int64_t(i));
    return b.add(std::make_shared<ops::Unsqueeze>(axes), {o});
  };
  if (rx && ry && rx < ry) x = pad(x, rx, ry);
  if (rx && ry && ry < rx) y = pad(y, ry, rx);
  return {x, y};
}

// Both operands as tensors of one type (literals take the tensor operand's type).
inline std::pair<Outlet, Outlet> operands(Builder& b, const Args& a, const char* xn,
                                          const char* yn) {
  const Value& x = a.get(xn);
  const Value& y = a.get(yn);
  std::optional<DatumType> like;
  if (x.kind == Value::Kind::Tensor) like = b.fact(x.outlet).dt;
  if (!like && y.kind == Value::Kind::Tensor) like = b.fact(y.outlet).dt;
  Outlet xo = b.to_tensor(x, like), yo = b.to_tensor(y, like);
  return align_ranks(b, xo, yo);
}

inline Outlet as_vector(Builder& b, Outlet o) {
  const Fact& f = b.fact(o);
  if (f.rank() == 1) return o;
  if (f.value) {
    // The reshaped constant takes over the original's name (the original, now unused, is
    // renamed), so that writing the graph again names the variable as before.
    Node& orig = b.graph().node(o.node);
    std::string name = orig.name;
    orig.name = b.unique_name(name + "_nnef_shaped");
    return b.graph().add_const(name, f.value->reshaped({f.value->numel()}));
  }
  return b.add(std::make_shared<ops::Reshape>(), {o, b.constant(i64_tensor({-1}))});
}

// Each family adds its primitives by NNEF name.
void register_nn_primitives(std::map<std::string, Primitive>& p);
void register_shape_primitives(std::map<std::string, Primitive>& p);
void register_control_primitives(std::map<std::string, Primitive>& p);
void register_audio_primitives(std::map<std::string, Primitive>& p);
void register_recurrent_primitives(std::map<std::string, Primitive>& p);
void register_pulse_primitives(std::map<std::string, Primitive>& p);
void register_quant_primitives(std::map<std::string, Primitive>& p);

}  // namespace kiln::nnef::prim
