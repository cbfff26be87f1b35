#include "passes/gemm_to_matmul.h"

#include <optional>

#include "core/patch.h"
#include "ops/elementwise/binary.h"
#include "ops/nn/gemm.h"
#include "ops/nn/matmul.h"
#include "ops/shape/transpose.h"
#include "passes/fold_constants.h"
#include "passes/graph_util.h"

namespace kiln::passes {

namespace {

// Transposes a matrix of doubles [r, c] -> [c, r].
std::vector<double> transposed(const std::vector<double>& v, int64_t r, int64_t c) {
  std::vector<double> out(v.size());
  for (int64_t i = 0; i < r; i++)
    for (int64_t j = 0; j < c; j++)
      out[static_cast<size_t>(j * r + i)] = v[static_cast<size_t>(i * c + j)];
  return out;
}

// op(t) * scale as a constant of type dt.
Tensor prepare(const Tensor& t, bool transpose, double scale) {
  auto v = to_doubles(t);
  Shape shape = t.shape();
  if (transpose) {
    v = transposed(v, shape[0], shape[1]);
    std::swap(shape[0], shape[1]);
  }
  if (scale != 1)
    for (auto& x : v) x *= scale;
  return from_doubles(t.dtype(), shape, v);
}

}  // namespace

size_t GemmToMatMul::run(Graph& graph) {
  ModelPatch patch(graph);
  size_t count = graph.size();
  auto transpose = std::make_shared<ops::Transpose>(std::vector<int64_t>{1, 0});
  auto mul = std::make_shared<ops::Binary>(ops::BinaryKind::Mul);
  auto add = std::make_shared<ops::Binary>(ops::BinaryKind::Add);
  for (size_t i = 0; i < count; i++) {
    const Node& n = graph.node(static_cast<int>(i));
    auto* gemm = op_as<ops::Gemm>(n);
    if (!gemm || n.inputs.size() < 2 || !is_float(graph.fact(n.inputs[0]).dt)) continue;
    // Quantized weights (DequantizeLinear of an int8 constant): kept for quant-ops (optimize
    // stage), which reads the Gemm itself.
    if (keep_quantized_ && is_dequantized_constant(graph, graph.node(n.inputs[1].node))) continue;
    int id = n.id;
    std::string name = n.name;
    Outlet a = n.inputs[0], b = n.inputs[1];
    Outlet c = n.inputs.size() > 2 ? n.inputs[2] : Outlet{};
    DatumType dt = graph.fact(a).dt;
    double alpha = gemm->alpha(), beta = gemm->beta();
    // In a 16-bit float, alpha folded into B and C (times beta) added after the MatMul round
    // to 16 bits where Gemm rounds once (2 ulps off): only a plain product is rewritten.
    if ((dt == DatumType::F16 || dt == DatumType::BF16) &&
        (alpha != 1 || (n.inputs.size() > 2 && n.inputs[2].present() && beta != 0)))
      continue;
    bool ta = gemm->trans_a(), tb = gemm->trans_b();
    const Fact& b_fact = graph.fact(b);  // (before the patch adds nodes)
    std::optional<Dim> cols =
        b_fact.rank() == 2 ? std::optional<Dim>(b_fact.shape[tb ? 0 : 1]) : std::nullopt;
    if (ta) a = {patch.add_node(name + ".a_t", transpose, {a}), 0};
    if (const Tensor* bv = graph.fact(b).value.get()) {
      b = patch.add_const(name + ".weight", prepare(*bv, tb, alpha));
      alpha = 1;
    } else if (tb) {
      b = {patch.add_node(name + ".b_t", transpose, {b}), 0};
    }
    // A constant C that varies only along the columns (a row, or a scalar) becomes MatMul's
    // bias (as one value per column).
    std::vector<Outlet> mm_inputs = {a, b};
    if (c.present() && beta != 0 && alpha == 1 && cols && cols->is_int()) {
      const Tensor* cv = graph.fact(c).value.get();
      auto values = cv ? values_along_axis(*cv, 2, 1) : std::nullopt;
      if (values) {
        int64_t cn = cols->to_int();
        std::vector<double> bias(static_cast<size_t>(cn));
        for (int64_t j = 0; j < cn; j++)
          bias[size_t(j)] = beta * (*values)[values->size() == 1 ? 0 : size_t(j)];
        if (values->size() == 1 || static_cast<int64_t>(values->size()) == cn) {
          mm_inputs.push_back(patch.add_const(name + ".bias", from_doubles(dt, {cn}, bias)));
          c = Outlet{};
        }
      }
    }
    Outlet y = {patch.add_node(name, std::make_shared<ops::MatMul>(), mm_inputs), 0};
    if (alpha != 1) {
      Outlet k = patch.add_const(name + ".alpha", Tensor::scalar<double>(alpha).cast_to(dt));
      y = {patch.add_node(name + ".scale", mul, {y, k}), 0};
    }
    if (c.present() && beta != 0) {
      if (const Tensor* cv = graph.fact(c).value.get()) {
        c = patch.add_const(name + ".bias", prepare(*cv, false, beta));
      } else if (beta != 1) {
        Outlet k = patch.add_const(name + ".beta", Tensor::scalar<double>(beta).cast_to(dt));
        c = {patch.add_node(name + ".beta_c", mul, {c, k}), 0};
      }
      y = {patch.add_node(name + ".add_bias", add, {y, c}), 0};
    }
    patch.shunt({id, 0}, y);
  }
  return patch.commit();
}

}  // namespace kiln::passes
