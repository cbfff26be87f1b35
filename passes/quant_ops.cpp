#include "passes/quant_ops.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>

#include "core/patch.h"
#include "ops/elementwise/binary.h"
#include "ops/elementwise/unary.h"
#include "ops/nn/conv.h"
#include "ops/nn/gemm.h"
#include "ops/nn/matmul.h"
#include "ops/nn/pool.h"
#include "ops/quant/dequantize_linear.h"
#include "ops/quant/qadd.h"
#include "ops/quant/qconv_packed.h"
#include "ops/quant/qlinear_conv.h"
#include "ops/quant/qlinear_matmul.h"
#include "ops/quant/qmatmul_packed.h"
#include "ops/quant/qrequant.h"
#include "ops/quant/quant_util.h"
#include "ops/quant/quantize_linear.h"
#include "ops/shape/concat.h"
#include "passes/graph_util.h"
#include "passes/pattern.h"

namespace kiln::passes {

namespace {

using kernels::OutputType;

const Tensor* cval(const Graph& g, Outlet o) {
  return o.present() ? g.fact(o).value.get() : nullptr;
}

bool is_q8(DatumType dt) {
  return dt == DatumType::U8 || dt == DatumType::I8;
}

std::vector<float> floats(const Tensor& t) {
  return ops::quant::to_f32(t, "quant-ops");
}
std::vector<int32_t> ints(const Tensor& t) {
  return ops::quant::to_i32(t, "quant-ops");
}

std::vector<uint8_t> bytes_of(const Tensor& t) {
  const auto* p = static_cast<const uint8_t*>(t.raw_data());
  return std::vector<uint8_t>(p, p + shape_numel(t.shape()));
}

// A quantized tensor's parameters: value(s) of scale and zero point.
struct QParams {
  std::vector<float> scale;
  std::vector<int32_t> zp;
  bool is_signed = false;
};

// DequantizeLinear(x, scale, zp) with constant parameters: x, the parameters, the axis.
struct Dq {
  Outlet x;
  QParams q;
  int64_t axis = 1;
};
std::optional<Dq> dequant_of(const Graph& g, Outlet o) {
  if (!o.present()) return std::nullopt;
  const Node& n = g.node(o.node);
  const auto* dq = op_as<ops::DequantizeLinear>(n);
  if (!dq || n.inputs.size() < 2) return std::nullopt;
  const Tensor* s = cval(g, n.inputs[1]);
  const Tensor* z = n.inputs.size() > 2 ? cval(g, n.inputs[2]) : nullptr;
  if (!s || (n.inputs.size() > 2 && n.inputs[2].present() && !z)) return std::nullopt;
  const Fact& xf = g.fact(n.inputs[0]);
  Dq d;
  d.x = n.inputs[0];
  d.q.scale = floats(*s);
  d.q.zp = z ? ints(*z) : std::vector<int32_t>(1, 0);
  d.q.is_signed = xf.dt == DatumType::I8;
  d.axis = dq->axis();
  if (d.axis < 0) d.axis += static_cast<int64_t>(xf.rank());
  return d;
}

// QuantizeLinear(y, scale, zp) with one constant scale and zero point, u8 / i8 output.
std::optional<QParams> quant_params(const Graph& g, const Node& n) {
  if (!op_as<ops::QuantizeLinear>(n) || n.inputs.size() < 2) return std::nullopt;
  const Tensor* s = cval(g, n.inputs[1]);
  const Tensor* z = n.inputs.size() > 2 ? cval(g, n.inputs[2]) : nullptr;
  if (!s || !z || shape_numel(s->shape()) != 1 || shape_numel(z->shape()) != 1) return std::nullopt;
  if (!is_q8(z->dtype())) return std::nullopt;
  QParams q;
  q.scale = floats(*s);
  q.zp = ints(*z);
  q.is_signed = z->dtype() == DatumType::I8;
  return q;
}

// Output parameters of a packed op that quantizes with `y` (or dequantizes when y is null).
struct OutParams {
  OutputType output = OutputType::F32;
  int32_t zp = 0;
  float y_scale = 1.0f;
};

// Multipliers x_scale * w_scale[c] / y_scale for `count` channels.
std::vector<float> multipliers(float xs, const std::vector<float>& ws, float ys, int64_t count) {
  std::vector<float> m(static_cast<size_t>(count));
  for (int64_t c = 0; c < count; c++)
    m[static_cast<size_t>(c)] =
        static_cast<float>(static_cast<double>(xs) * ws[ws.size() == 1 ? 0 : c] / ys);
  return m;
}

// Whether every multiplier is finite: a zero, infinite or NaN scale (a hostile or broken model)
// leaves the pattern to the reference ops, whose double arithmetic defines what it gives; the
// kernels' requantizing stores assume finite products (they clamp from above only).
bool all_finite(const std::vector<float>& m) {
  return std::all_of(m.begin(), m.end(), [](float v) { return std::isfinite(v); });
}

// i32 bias from a float or dequantized bias: round(b / (xs * ws[c])).
std::optional<std::vector<int32_t>> int_bias(const Graph& g, Outlet b, float xs,
                                             const std::vector<float>& ws, int64_t count) {
  std::vector<int32_t> out(static_cast<size_t>(count), 0);
  if (!b.present()) return out;
  std::vector<double> vals;
  if (auto d = dequant_of(g, b)) {
    const Tensor* raw = cval(g, d->x);
    if (!raw) return std::nullopt;
    std::vector<int32_t> r = ints(*raw);
    if (static_cast<int64_t>(r.size()) != count) return std::nullopt;
    for (int64_t c = 0; c < count; c++) {
      const size_t i = static_cast<size_t>(c);
      const float s = d->q.scale[d->q.scale.size() == 1 ? 0 : i];
      const int32_t z = d->q.zp[d->q.zp.size() == 1 ? 0 : i];
      vals.push_back(static_cast<double>(r[i] - z) * s);
    }
  } else if (const Tensor* t = cval(g, b)) {
    if (!is_float(t->dtype()) || shape_numel(t->shape()) != count) return std::nullopt;
    for (float v : floats(*t)) vals.push_back(v);
  } else {
    return std::nullopt;
  }
  for (int64_t c = 0; c < count; c++) {
    const double s = static_cast<double>(xs) * ws[ws.size() == 1 ? 0 : c];
    const double q = std::nearbyint(vals[static_cast<size_t>(c)] / s);
    if (!(std::abs(q) < 2147483647.0)) return std::nullopt;
    out[static_cast<size_t>(c)] = static_cast<int32_t>(q);
  }
  return out;
}

ops::quant::ConvGeometry geometry_of(const ops::Conv& c) {
  const ops::WindowGeometry& w = c.geometry();
  ops::quant::ConvGeometry g;
  switch (w.auto_pad) {
    case ops::AutoPad::NotSet:
      g.auto_pad = "NOTSET";
      break;
    case ops::AutoPad::Valid:
      g.auto_pad = "VALID";
      break;
    case ops::AutoPad::SameUpper:
      g.auto_pad = "SAME_UPPER";
      break;
    case ops::AutoPad::SameLower:
      g.auto_pad = "SAME_LOWER";
      break;
  }
  g.kernel_shape = w.kernel;
  g.strides = w.strides;
  g.dilations = w.dilations;
  g.pads = w.pads;
  g.group = c.group();
  return g;
}

// Per-channel parameters must be along the weights' output-channel axis.
bool channel_params_ok(const QParams& w, int64_t axis, int64_t want_axis, int64_t channels) {
  const bool per = w.scale.size() != 1 || w.zp.size() != 1;
  if (!per) return true;
  return axis == want_axis &&
         (w.scale.size() == 1 || static_cast<int64_t>(w.scale.size()) == channels) &&
         (w.zp.size() == 1 || static_cast<int64_t>(w.zp.size()) == channels);
}

// A conv of x (u8/s8) with parameters xq, constant weights w (xq, wq), bias, into `out`.
OpPtr make_conv(const ops::quant::ConvGeometry& geo, const Fact& xf, const QParams& xq,
                const Tensor& w, const QParams& wq, std::vector<int32_t> bias,
                const OutParams& out) {
  if (w.rank() != 3 && w.rank() != 4) return nullptr;
  if (xf.rank() != w.rank() || xq.scale.size() != 1 || xq.zp.size() != 1) return nullptr;
  if (!is_q8(w.dtype())) return nullptr;
  const int64_t m = w.dim(0);
  ops::QConvParams p;
  p.geometry = geo;
  p.w_shape = w.shape();
  p.x_signed = xq.is_signed;
  p.x_zp = xq.zp[0];
  p.w_signed = w.dtype() == DatumType::I8;
  p.w = bytes_of(w);
  p.w_zp = wq.zp;
  p.bias = std::move(bias);
  p.output = out.output;
  p.y_zp = out.zp;
  if (out.output != OutputType::I32) {
    p.mult = multipliers(xq.scale[0], wq.scale, out.y_scale, m);
    if (!all_finite(p.mult)) return nullptr;
  }
  return std::make_shared<ops::QConvPacked>(std::move(p));
}

// x [.., M, K] times constant w [K, N] (or [N, K] transposed).
OpPtr make_matmul(const Fact& xf, const QParams& xq, const Tensor& w, bool transposed,
                  const QParams& wq, std::vector<int32_t> bias, const OutParams& out) {
  if (w.rank() != 2 || xf.rank() < 2 || xq.scale.size() != 1 || xq.zp.size() != 1) return nullptr;
  if (!is_q8(w.dtype())) return nullptr;
  ops::QMatMulParams p;
  p.k = transposed ? w.dim(1) : w.dim(0);
  p.n = transposed ? w.dim(0) : w.dim(1);
  p.w_transposed = transposed;
  p.x_signed = xq.is_signed;
  p.x_zp = xq.zp[0];
  p.w_signed = w.dtype() == DatumType::I8;
  p.w = bytes_of(w);
  p.w_zp = wq.zp;
  p.bias = std::move(bias);
  p.output = out.output;
  p.y_zp = out.zp;
  if (out.output != OutputType::I32) {
    p.mult = multipliers(xq.scale[0], wq.scale, out.y_scale, p.n);
    if (!all_finite(p.mult)) return nullptr;
  }
  return std::make_shared<ops::QMatMulPacked>(std::move(p));
}

// Q(DQ(a) + DQ(b)) with `add` the Add and `yq` the Q's parameters: QAdd's parameters and its
// 8-bit inputs a, b, when both are per tensor, of one shape, and not constants.
struct QAddMatch {
  ops::QAddParams params;
  Outlet a, b;
};
std::optional<QAddMatch> qadd_match(const Graph& graph, const Node& add, const QParams& yq) {
  const auto* bin = op_as<ops::Binary>(add);
  if (!bin || bin->kind() != ops::BinaryKind::Add || add.inputs.size() != 2 ||
      add.outputs.size() != 1)
    return std::nullopt;
  auto da = dequant_of(graph, add.inputs[0]);
  auto db = dequant_of(graph, add.inputs[1]);
  if (!da || !db || da->q.scale.size() != 1 || da->q.zp.size() != 1 || db->q.scale.size() != 1 ||
      db->q.zp.size() != 1)
    return std::nullopt;
  const Fact& fa = graph.fact(da->x);
  const Fact& fb = graph.fact(db->x);
  if (!is_q8(fa.dt) || !is_q8(fb.dt) || fa.value || fb.value || fa.shape != fb.shape ||
      graph.fact({add.id, 0}).dt != DatumType::F32)
    return std::nullopt;
  QAddMatch m;
  m.params.a_scale = da->q.scale[0];
  m.params.b_scale = db->q.scale[0];
  m.params.y_scale = yq.scale[0];
  m.params.a_zp = da->q.zp[0];
  m.params.b_zp = db->q.zp[0];
  m.params.y_zp = yq.zp[0];
  m.params.a_signed = fa.dt == DatumType::I8;
  m.params.b_signed = fb.dt == DatumType::I8;
  m.params.y_signed = yq.is_signed;
  m.a = da->x;
  m.b = db->x;
  return m;
}

QParams const_params(const Graph& g, Outlet s, Outlet z, bool* ok) {
  QParams q;
  const Tensor* st = cval(g, s);
  const Tensor* zt = cval(g, z);
  if (!st || (z.present() && !zt)) {
    *ok = false;
    return q;
  }
  q.scale = floats(*st);
  q.zp = zt ? ints(*zt) : std::vector<int32_t>(1, 0);
  q.is_signed = zt && zt->dtype() == DatumType::I8;
  return q;
}

}  // namespace

size_t QuantOps::run(Graph& graph) {
  ModelPatch patch(graph);
  const Uses uses(graph);
  const size_t count = graph.size();
  for (size_t i = 0; i < count; i++) {
    const Node& n = graph.node(static_cast<int>(i));
    const std::string name = n.name;
    const int nid = n.id;  // add_node grows the graph: n and p do not survive it
    // QOperator format.
    if (const auto* qc = op_as<ops::QLinearConv>(n)) {
      if (n.inputs.size() < 8) continue;
      bool ok = true;
      QParams xq = const_params(graph, n.inputs[1], n.inputs[2], &ok);
      QParams wq = const_params(graph, n.inputs[4], n.inputs[5], &ok);
      QParams yq = const_params(graph, n.inputs[6], n.inputs[7], &ok);
      const Tensor* w = cval(graph, n.inputs[3]);
      if (!ok || !w || yq.scale.size() != 1 || yq.zp.size() != 1) continue;
      xq.is_signed = graph.fact(n.inputs[0]).dt == DatumType::I8;
      if (!channel_params_ok(wq, 0, 0, w->dim(0))) continue;
      std::vector<int32_t> bias(static_cast<size_t>(w->dim(0)), 0);
      if (n.inputs.size() > 8 && n.inputs[8].present()) {
        const Tensor* b = cval(graph, n.inputs[8]);
        if (!b || shape_numel(b->shape()) != w->dim(0)) continue;
        bias = ints(*b);
      }
      OutParams out{yq.is_signed ? OutputType::I8 : OutputType::U8, yq.zp[0], yq.scale[0]};
      OpPtr op = make_conv(qc->geometry(), graph.fact(n.inputs[0]), xq, *w, wq, bias, out);
      if (!op) continue;
      int f = patch.add_node(name, op, {n.inputs[0]});
      patch.shunt({nid, 0}, {f, 0});
      continue;
    }
    if (op_as<ops::QLinearMatMul>(n)) {
      if (n.inputs.size() < 8) continue;
      bool ok = true;
      QParams xq = const_params(graph, n.inputs[1], n.inputs[2], &ok);
      QParams wq = const_params(graph, n.inputs[4], n.inputs[5], &ok);
      QParams yq = const_params(graph, n.inputs[6], n.inputs[7], &ok);
      const Tensor* w = cval(graph, n.inputs[3]);
      if (!ok || !w || w->rank() != 2 || yq.scale.size() != 1 || yq.zp.size() != 1) continue;
      xq.is_signed = graph.fact(n.inputs[0]).dt == DatumType::I8;
      if (!channel_params_ok(wq, 1, 1, w->dim(1))) continue;
      std::vector<int32_t> bias(static_cast<size_t>(w->dim(1)), 0);
      OutParams out{yq.is_signed ? OutputType::I8 : OutputType::U8, yq.zp[0], yq.scale[0]};
      OpPtr op = make_matmul(graph.fact(n.inputs[0]), xq, *w, false, wq, bias, out);
      if (!op) continue;
      int f = patch.add_node(name, op, {n.inputs[0]});
      patch.shunt({nid, 0}, {f, 0});
      continue;
    }
    // QDQ format: Q(op(DQ(x), DQ(w), bias)), op output used by Q only.
    auto yq = quant_params(graph, n);
    if (!yq || !n.inputs[0].present()) continue;
    const int pid = single_consumer(uses, n.inputs[0]);
    if (pid != n.id) continue;
    const Node& p = graph.node(n.inputs[0].node);
    if (const auto* pool = op_as<ops::Pool>(p); pool && pool->kind() == ops::PoolKind::Max &&
                                                p.inputs.size() == 1 && p.inputs[0].present() &&
                                                yq->scale[0] > 0 && n.inputs.size() == 3 &&
                                                !(p.outputs.size() > 1 && uses.used({p.id, 1})) &&
                                                graph.fact({p.id, 0}).dt == DatumType::F32) {
      // Q(MaxPool(y)) = MaxPool(Q(y)): quantizing (divide by a positive scale, round, add the
      // zero point, saturate) is monotonic, so it commutes with max exactly; the pool then runs
      // on bytes. Q(DQ(x)) with the same parameters is x (|x - z| <= 255: the float round trip
      // is exact); a Q(Concat(DQ...)) left behind becomes an 8-bit Concat in the next round.
      auto d = dequant_of(graph, p.inputs[0]);
      Outlet q8;
      if (d && d->q.scale.size() == 1 && d->q.zp.size() == 1 && d->q.scale[0] == yq->scale[0] &&
          d->q.zp[0] == yq->zp[0] && d->q.is_signed == yq->is_signed &&
          is_q8(graph.fact(d->x).dt) && !graph.fact(d->x).value) {
        q8 = d->x;
      }
      const std::string pname = p.name;
      const OpPtr pool_op = p.op, q_op = n.op;
      const std::vector<Outlet> q_inputs{p.inputs[0], n.inputs[1], n.inputs[2]};
      if (!q8.present()) q8 = {patch.add_node(pname + ".quantize", q_op, q_inputs), 0};
      int f = patch.add_node(pname, pool_op, {q8});
      patch.shunt({nid, 0}, {f, 0});
      continue;
    }
    if (const auto* u = op_as<ops::Unary>(p);
        u && u->kind() == ops::UnaryKind::Relu && p.inputs.size() == 1 && p.inputs[0].present() &&
        p.outputs.size() == 1 && yq->scale[0] > 0 && single_consumer(uses, p.inputs[0]) == p.id) {
      // Q(Relu(DQ(a) + DQ(b))): a ResNet-style block's residual Add and Relu. Q is monotonic and
      // Q(0) is the zero point, so Q(Relu(v)) = max(Q(v), zero point): a QAdd whose output is
      // clamped below at the zero point, bitwise the chain.
      const Node& add = graph.node(p.inputs[0].node);
      if (auto m = qadd_match(graph, add, *yq)) {
        m->params.relu = true;
        int f = patch.add_node(std::string(p.name), std::make_shared<ops::QAdd>(m->params),
                               {m->a, m->b});
        patch.shunt({nid, 0}, {f, 0});
      }
      continue;
    }
    if (p.outputs.size() != 1 || p.inputs.size() < 2) continue;
    if (op_as<ops::Concat>(p)) {
      // Q(Concat(DQ(x_0), DQ(x_1), ...)), all per tensor: a Concat of the 8-bit tensors, each
      // requantized to the output's parameters by a table where they differ (bitwise the chain).
      std::vector<Outlet> xs;
      std::vector<std::optional<Dq>> dqs;
      bool ok = true;
      for (const Outlet& in : p.inputs) {
        auto d = dequant_of(graph, in);
        if (!d || d->q.scale.size() != 1 || d->q.zp.size() != 1 || !is_q8(graph.fact(d->x).dt) ||
            graph.fact(d->x).value) {
          ok = false;
          break;
        }
        dqs.push_back(d);
      }
      if (!ok || dqs.empty() || graph.fact({p.id, 0}).dt != DatumType::F32) continue;
      // add_node grows the graph: nothing below may hold a reference to its nodes.
      const std::string pname = p.name;
      const OpPtr concat = p.op;
      for (const auto& d : dqs) {
        if (d->q.scale[0] == yq->scale[0] && d->q.zp[0] == yq->zp[0] &&
            d->q.is_signed == yq->is_signed) {
          xs.push_back(d->x);
          continue;
        }
        auto rq = std::make_shared<ops::QRequant>(d->q.scale[0], d->q.zp[0], d->q.is_signed,
                                                  yq->scale[0], yq->zp[0], yq->is_signed);
        const std::string rname = graph.node(d->x.node).name + ".requant." + pname;
        const int r = patch.add_node(rname, rq, {d->x});
        xs.push_back({r, 0});
      }
      int f = patch.add_node(pname, concat, xs);
      patch.shunt({nid, 0}, {f, 0});
      continue;
    }
    if (auto m = qadd_match(graph, p, *yq)) {
      // Q(DQ(a) + DQ(b)), both per tensor, one shape: QAdd on the 8-bit tensors.
      int f =
          patch.add_node(std::string(p.name), std::make_shared<ops::QAdd>(m->params), {m->a, m->b});
      patch.shunt({nid, 0}, {f, 0});
      continue;
    }
    auto dx = dequant_of(graph, p.inputs[0]);
    auto dw = dequant_of(graph, p.inputs[1]);
    if (!dx || !dw || cval(graph, dx->x) || !is_q8(graph.fact(dx->x).dt)) continue;
    const Tensor* w = cval(graph, dw->x);
    if (!w || dx->q.scale.size() != 1 || dx->q.zp.size() != 1) continue;
    const OutParams out{yq->is_signed ? OutputType::I8 : OutputType::U8, yq->zp[0], yq->scale[0]};
    OpPtr op;
    if (const auto* conv = op_as<ops::Conv>(p)) {
      if (!channel_params_ok(dw->q, dw->axis, 0, w->dim(0))) continue;
      auto bias = int_bias(graph, p.inputs.size() > 2 ? p.inputs[2] : Outlet{}, dx->q.scale[0],
                           dw->q.scale, w->dim(0));
      if (!bias) continue;
      op = make_conv(geometry_of(*conv), graph.fact(dx->x), dx->q, *w, dw->q, *bias, out);
    } else if (op_as<ops::MatMul>(p)) {
      if (w->rank() != 2 || !channel_params_ok(dw->q, dw->axis, 1, w->dim(1))) continue;
      std::vector<int32_t> bias(static_cast<size_t>(w->dim(1)), 0);
      op = make_matmul(graph.fact(dx->x), dx->q, *w, false, dw->q, bias, out);
    } else if (const auto* gemm = op_as<ops::Gemm>(p)) {
      if (gemm->alpha() != 1.0f || gemm->trans_a() || w->rank() != 2) continue;
      const bool tb = gemm->trans_b();
      const int64_t nn = tb ? w->dim(0) : w->dim(1);
      if (!channel_params_ok(dw->q, dw->axis, tb ? 0 : 1, nn)) continue;
      Outlet b = p.inputs.size() > 2 ? p.inputs[2] : Outlet{};
      if (b.present() && gemm->beta() != 1.0f) continue;
      auto bias = int_bias(graph, b, dx->q.scale[0], dw->q.scale, nn);
      if (!bias) continue;
      op = make_matmul(graph.fact(dx->x), dx->q, *w, tb, dw->q, *bias, out);
    }
    if (!op) continue;
    int f = patch.add_node(std::string(p.name), op, {dx->x});
    patch.shunt({nid, 0}, {f, 0});
  }
  return patch.commit();
}

}  // namespace kiln::passes
