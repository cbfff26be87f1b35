// Small pattern-matching helpers for the fusion passes: recognise element-wise nodes with a
// constant scalar operand, walk to the single user of an outlet.
#pragma once

#include <optional>

#include "core/graph.h"
#include "ops/elementwise/binary.h"
#include "ops/elementwise/unary.h"
#include "ops/reduce/reduce.h"
#include "passes/graph_util.h"

namespace kiln::passes {

// The scalar value of a constant with one element, when `o` is one.
std::optional<double> const_scalar(const Graph& g, Outlet o);
// True when `o` is a one-element constant within 1e-4 (relative) of `value`.
bool is_const_near(const Graph& g, Outlet o, double value);

// When node `id` is Binary `kind` with one operand a constant close to `value`: the other
// operand (for Sub/Div only the first operand is taken as the variable one).
std::optional<Outlet> binary_with_const(const Graph& g, int id, ops::BinaryKind kind, double value);
// When node `id` is Binary `kind` with `x` as one operand: the other operand.
std::optional<Outlet> binary_with(const Graph& g, int id, ops::BinaryKind kind, Outlet x);
bool is_unary(const Graph& g, int id, ops::UnaryKind kind);
// The element-wise op a node computes, seen through codegen's vectorized forms (BinaryF32,
// UnaryF32 keep their reference op), or nullptr.
const ops::Binary* binary_of(const Node& n);
const ops::Unary* unary_of(const Node& n);
// When node `id` is a Clip with constant (or attribute) bounds: {min, max} (±inf when absent).
std::optional<std::pair<double, double>> clip_bounds(const Graph& g, int id);
// When `o` is a reduction of this kind over the last axis only, dims kept: its input.
std::optional<Outlet> reduced_over_last_axis(const Graph& g, Outlet o, ops::ReduceKind kind);

}  // namespace kiln::passes
