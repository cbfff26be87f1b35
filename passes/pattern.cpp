#include "passes/pattern.h"

#include <cmath>
#include <limits>

#include "ops/elementwise/clip.h"
#include "ops/elementwise/vectorized.h"

namespace kiln::passes {

std::optional<double> const_scalar(const Graph& g, Outlet o) {
  if (!o.present()) return std::nullopt;
  const Fact& f = g.fact(o);
  if (!f.value || f.value->numel() != 1 || !is_float(f.dt)) return std::nullopt;
  return f.value->value_as_double(0);
}

bool is_const_near(const Graph& g, Outlet o, double value) {
  auto v = const_scalar(g, o);
  return v && std::abs(*v - value) <= 1e-4 * std::max(1.0, std::abs(value));
}

std::optional<Outlet> binary_with_const(const Graph& g, int id, ops::BinaryKind kind,
                                        double value) {
  const Node& n = g.node(id);
  auto* b = op_as<ops::Binary>(n);
  if (!b || b->kind() != kind || n.inputs.size() != 2) return std::nullopt;
  bool commutes = kind == ops::BinaryKind::Add || kind == ops::BinaryKind::Mul;
  if (is_const_near(g, n.inputs[1], value)) return n.inputs[0];
  if (commutes && is_const_near(g, n.inputs[0], value)) return n.inputs[1];
  return std::nullopt;
}

std::optional<Outlet> binary_with(const Graph& g, int id, ops::BinaryKind kind, Outlet x) {
  const Node& n = g.node(id);
  auto* b = op_as<ops::Binary>(n);
  if (!b || b->kind() != kind || n.inputs.size() != 2) return std::nullopt;
  if (n.inputs[0] == x) return n.inputs[1];
  if (n.inputs[1] == x) return n.inputs[0];
  return std::nullopt;
}

bool is_unary(const Graph& g, int id, ops::UnaryKind kind) {
  auto* u = op_as<ops::Unary>(g.node(id));
  return u && u->kind() == kind;
}

std::optional<std::pair<double, double>> clip_bounds(const Graph& g, int id) {
  const Node& n = g.node(id);
  auto* c = op_as<ops::Clip>(n);
  if (!c || n.inputs.empty()) return std::nullopt;
  double inf = std::numeric_limits<double>::infinity();
  std::pair<double, double> r{c->min().value_or(-inf), c->max().value_or(inf)};
  for (size_t k = 1; k < n.inputs.size() && k < 3; k++) {
    if (!n.inputs[k].present()) continue;
    auto v = const_scalar(g, n.inputs[k]);
    if (!v) return std::nullopt;
    (k == 1 ? r.first : r.second) = *v;
  }
  return r;
}

std::optional<Outlet> reduced_over_last_axis(const Graph& g, Outlet o, ops::ReduceKind kind) {
  if (!o.present()) return std::nullopt;
  const Node& n = g.node(o.node);
  auto* r = op_as<ops::Reduce>(n);
  if (!r || r->kind() != kind || n.inputs.empty() || !n.inputs[0].present()) return std::nullopt;
  const Fact& in = g.fact(n.inputs[0]);
  const Fact& out = n.outputs[0];
  if (in.rank() == 0 || in.rank() != out.rank()) return std::nullopt;
  for (size_t d = 0; d + 1 < in.rank(); d++)
    if (in.shape[d] != out.shape[d]) return std::nullopt;
  if (out.shape.back() != Dim(1) || in.shape.back() == Dim(1)) return std::nullopt;
  return n.inputs[0];
}

const ops::Binary* binary_of(const Node& n) {
  if (auto* b = op_as<ops::Binary>(n)) return b;
  if (auto* v = op_as<ops::BinaryF32>(n)) return v->reference().get();
  return nullptr;
}

const ops::Unary* unary_of(const Node& n) {
  if (auto* u = op_as<ops::Unary>(n)) return u;
  if (auto* v = op_as<ops::UnaryF32>(n)) return v->reference().get();
  return nullptr;
}

}  // namespace kiln::passes
