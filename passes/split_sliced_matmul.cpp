#include "passes/split_sliced_matmul.h"

#include <cstring>
#include <optional>

#include "core/patch.h"
#include "ops/nn/matmul.h"
#include "ops/shape/slice.h"
#include "passes/graph_util.h"

namespace kiln::passes {

namespace {

// The columns [start, start + len) a Slice node takes from the last axis of its input (rank
// `rank`, `n` columns), when it slices that axis only, with constant bounds and step 1.
std::optional<std::pair<int64_t, int64_t>> last_axis_slice(const Graph& g, const Node& s,
                                                           size_t rank, int64_t n) {
  if (!op_as<ops::Slice>(s) || !s.op->attributes().empty() || s.inputs.size() < 3)
    return std::nullopt;
  auto ints = [&](size_t i) -> std::optional<std::vector<int64_t>> {
    if (i >= s.inputs.size() || !s.inputs[i].present()) return std::nullopt;
    const Tensor* t = const_input(g, s, i);
    if (!t || !is_integer(t->dtype()) || t->numel() != 1) return std::vector<int64_t>{};
    return t->to_i64_vector();
  };
  auto starts = ints(1), ends = ints(2), axes = ints(3), steps = ints(4);
  if (!starts || !ends || starts->size() != 1 || ends->size() != 1) return std::nullopt;
  int64_t axis = axes ? (axes->size() == 1 ? (*axes)[0] : -100) : 0;
  if (axis < 0) axis += static_cast<int64_t>(rank);
  if (axis != static_cast<int64_t>(rank) - 1) return std::nullopt;
  if (steps && (steps->size() != 1 || (*steps)[0] != 1)) return std::nullopt;
  ops::SliceAxis r = ops::resolve_slice(n, (*starts)[0], (*ends)[0], 1);
  if (r.len <= 0) return std::nullopt;
  return std::make_pair(r.start, r.len);
}

// Columns [start, start + len) of a row-major [rows, n] tensor.
Tensor columns(const Tensor& t, int64_t rows, int64_t n, int64_t start, int64_t len) {
  Tensor c = t.clone();
  Tensor out(t.dtype(), rows == 0 ? Shape{len} : Shape{rows, len});
  size_t es = size_of(t.dtype());
  const auto* src = static_cast<const char*>(c.raw_data());
  auto* dst = static_cast<char*>(out.raw_data());
  for (int64_t r = 0; r < std::max<int64_t>(rows, 1); r++)
    std::memcpy(dst + static_cast<size_t>(r * len) * es,
                src + static_cast<size_t>(r * n + start) * es, static_cast<size_t>(len) * es);
  return out;
}

}  // namespace

size_t SplitSlicedMatMul::run(Graph& graph) {
  ModelPatch patch(graph);
  Uses uses(graph);
  size_t count = graph.size();
  for (size_t i = 0; i < count; i++) {
    const Node& mm = graph.node(static_cast<int>(i));
    if (!op_as<ops::MatMul>(mm) || mm.inputs.size() < 2 || !mm.inputs[0].present()) continue;
    const Tensor* w = const_input(graph, mm, 1);
    bool has_bias = mm.inputs.size() > 2 && mm.inputs[2].present();
    const Tensor* b = has_bias ? const_input(graph, mm, 2) : nullptr;
    if (!w || w->rank() != 2 || w->dtype() == DatumType::String || (has_bias && !b)) continue;
    Outlet out{mm.id, 0};
    if (uses.is_model_output(out) || uses.count(out) < 1) continue;
    size_t rank = graph.fact(out).rank();
    int64_t k = w->dim(0), n = w->dim(1);
    std::vector<int> slices = uses.consumers(out);
    std::vector<std::pair<int64_t, int64_t>> ranges;
    for (int s : slices) {
      const Node& sn = graph.node(s);
      auto r = sn.inputs[0] == out ? last_axis_slice(graph, sn, rank, n) : std::nullopt;
      if (!r) break;
      ranges.push_back(*r);
    }
    if (ranges.size() != slices.size()) continue;
    Outlet x = mm.inputs[0];
    OpPtr op = mm.op;
    Tensor wv = *w;
    std::optional<Tensor> bv;
    if (b) bv = *b;
    for (size_t j = 0; j < slices.size(); j++) {
      auto [start, len] = ranges[j];
      std::string name = graph.node(slices[j]).name;
      std::vector<Outlet> inputs = {
          x, patch.add_const(name + ".weight", columns(wv, k, n, start, len))};
      if (bv) inputs.push_back(patch.add_const(name + ".bias", columns(*bv, 0, n, start, len)));
      patch.shunt({slices[j], 0}, {patch.add_node(name, op, inputs), 0});
    }
  }
  return patch.commit();
}

}  // namespace kiln::passes
