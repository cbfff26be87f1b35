// LSTM and GRU of known sequence length, unrolled into standard NNEF: the input projection of
// every step as one matmul, split per step, then each step's recurrent matmul and gate
// arithmetic, exactly as ops/recurrent/lstm.cpp and gru.cpp compute them (clip on the gates'
// pre-activations, peepholes, coupled input-forget gate, linear_before_reset). Weights must be
// constants; sequence_lens (other than absent) and symbolic lengths or batches are refused.
#include <cstring>

#include "io/nnef/serializer_util.h"
#include "io/nnef/strict_lowering.h"
#include "ops/recurrent/gru.h"
#include "ops/recurrent/lstm.h"

namespace kiln::nnef::ser {

namespace {

struct Unroll {
  Unroll(Ctx& ctx, const Node& node, const ops::RecurrentConfig& config)
      : c(ctx), n(node), cfg(config) {}
  Ctx& c;
  const Node& n;
  const ops::RecurrentConfig& cfg;
  int64_t seq = 0, batch = 0, input = 0, hidden = 0, dirs = 1, gates = 0;
  std::vector<ops::Activation> acts;  // per direction block

  std::string temp(const std::string& suffix, const std::string& expr) {
    return node_temp(c, n, suffix, expr);
  }
  // Columns [c0, c1) of row block `d` of a constant [dirs, rows, cols] tensor, transposed:
  // [cols, rows] (so x . W^T is matmul(x, variable)).
  std::string weights_t(size_t input, int64_t d, int64_t row0, int64_t rows, const char* what) {
    const Tensor& w = *c.fact(in(n, input)).value;
    int64_t cols = w.dim(2), all_rows = w.dim(1);
    Tensor t(DatumType::F32, {cols, rows});
    const float* src = w.data<float>() + d * all_rows * cols;
    float* dst = t.data<float>();
    for (int64_t r = 0; r < rows; r++)
      for (int64_t k = 0; k < cols; k++) dst[k * rows + r] = src[(row0 + r) * cols + k];
    return c.variable(t, fmt::format("{}_{}{}", c.planned_name({n.id, 0}), what, d));
  }
  // Values [v0, v0 + len) of row `d` of a constant [dirs, K] tensor (plus the same range
  // `offset` further when `offset` > 0), as a [1, len] variable; zeros when absent.
  std::string row_param(size_t input, int64_t d, int64_t v0, int64_t len, int64_t offset,
                        const char* what) {
    Tensor t(DatumType::F32, {1, len});
    float* dst = t.data<float>();
    std::memset(dst, 0, sizeof(float) * static_cast<size_t>(len));
    if (has_input(n, input)) {
      const Tensor& b = *c.fact(in(n, input)).value;
      const float* src = b.data<float>() + d * b.dim(1);
      for (int64_t k = 0; k < len; k++)
        dst[k] = src[v0 + k] + (offset > 0 ? src[offset + v0 + k] : 0.0f);
    }
    return c.variable(t, fmt::format("{}_{}{}", c.planned_name({n.id, 0}), what, d));
  }
  // Initial state `input` of direction d as [batch, hidden] (zeros when absent).
  std::string initial(size_t input, int64_t d, const char* what) {
    if (!has_input(n, input)) {
      Tensor zeros(DatumType::F32, {batch, hidden});
      std::memset(zeros.data<float>(), 0, zeros.nbytes());
      return c.variable(zeros, fmt::format("{}_{}{}", c.planned_name({n.id, 0}), what, d));
    }
    std::string s = c.tensor(in(n, input));
    if (cfg.layout) s = temp(what, fmt::format("transpose({}, axes = [1, 0, 2])", s));
    return temp(what, fmt::format("reshape(slice({}, axes = [0], begin = [{}], end = [{}], "
                                  "stride = [1]), shape = [{}, {}])",
                                  s, d, d + 1, batch, hidden));
  }
  // An activation (on a clipped pre-activation when `clip`), as NNEF.
  std::string act(const ops::Activation& a, const std::string& x, bool clip) {
    std::string v = x;
    if (clip && cfg.clip)
      v = fmt::format("clamp({}, {}, {})", x, nnef_real(-*cfg.clip), nnef_real(*cfg.clip));
    using K = ops::Activation::Kind;
    switch (a.kind) {
      case K::Sigmoid:
        return fmt::format("sigmoid({})", v);
      case K::Tanh:
        return fmt::format("tanh({})", v);
      case K::Relu:
        return fmt::format("relu({})", v);
      case K::HardSigmoid:
        return fmt::format("clamp(add(mul({}, {}), {}), 0.0, 1.0)", v, nnef_real(a.alpha),
                           nnef_real(a.beta));
      case K::LeakyRelu:
        return fmt::format("leaky_relu({}, alpha = {})", v, nnef_real(a.alpha));
      case K::ScaledTanh:
        return fmt::format("mul(tanh(mul({}, {})), {})", v, nnef_real(a.beta), nnef_real(a.alpha));
      case K::Affine:
        return fmt::format("add(mul({}, {}), {})", v, nnef_real(a.alpha), nnef_real(a.beta));
      case K::Softsign:
        return fmt::format("div({0}, add(abs({0}), 1.0))", v);
      case K::Softplus:
        return fmt::format("softplus({})", v);
      default:
        return {};
    }
  }
  // Per step [batch, gates*hidden] inputs X_t . W^T + bias, in time order.
  std::vector<std::string> projections(int64_t d, const std::string& bias) {
    std::string x = c.tensor(in(n, 0));
    if (cfg.layout) x = temp("x", fmt::format("transpose({}, axes = [1, 0, 2])", x));
    std::string rows =
        temp("x", fmt::format("reshape({}, shape = [{}, {}])", x, seq * batch, input));
    std::string xw = temp("xw", fmt::format("add(matmul({}, {}), {})", rows,
                                            weights_t(1, d, 0, gates * hidden, "w"), bias));
    if (seq == 1) return {xw};
    std::vector<std::string> steps;
    std::string lhs;
    for (int64_t t = 0; t < seq; t++) {
      steps.push_back(c.fresh(c.planned_name({n.id, 0}) + "_xw" + std::to_string(d)));
      lhs += (t ? ", " : "") + steps.back();
    }
    std::string ratios;
    for (int64_t t = 0; t < seq; t++) ratios += t ? ", 1" : "1";
    c.lines().push_back(fmt::format("[{}] = split({}, axis = 0, ratios = [{}]);", lhs, xw, ratios));
    return steps;
  }
  std::vector<std::string> split(const std::string& v, int parts, const char* base) {
    std::vector<std::string> out;
    std::string lhs, ratios;
    for (int k = 0; k < parts; k++) {
      out.push_back(c.fresh(c.planned_name({n.id, 0}) + "_" + base));
      lhs += (k ? ", " : "") + out.back();
      ratios += k ? ", 1" : "1";
    }
    c.lines().push_back(fmt::format("[{}] = split({}, axis = 1, ratios = [{}]);", lhs, v, ratios));
    return out;
  }
  // The outputs from each direction's per-step hidden states (time order) and final states.
  void outputs(const std::vector<std::vector<std::string>>& hs,
               const std::vector<std::vector<std::string>>& finals) {
    std::vector<std::string> ys;
    for (const auto& h : hs) {
      std::string list;
      for (size_t t = 0; t < h.size(); t++) list += (t ? ", " : "") + h[t];
      std::string cat =
          h.size() == 1 ? h[0] : temp("y", fmt::format("concat([{}], axis = 0)", list));
      ys.push_back(
          temp("y", fmt::format("reshape({}, shape = [{}, 1, {}, {}])", cat, seq, batch, hidden)));
    }
    auto join = [&](const std::vector<std::string>& v, int axis, const char* base) {
      if (v.size() == 1) return v[0];
      return temp(base, fmt::format("concat([{}, {}], axis = {})", v[0], v[1], axis));
    };
    for (size_t slot = 0; slot < n.outputs.size(); slot++) {
      std::string v;
      if (slot == 0) {
        v = join(ys, 1, "y");
        if (cfg.layout) v = fmt::format("transpose({}, axes = [2, 0, 1, 3])", v);
      } else {
        std::vector<std::string> states;
        for (const auto& f : finals)
          states.push_back(temp("state", fmt::format("reshape({}, shape = [1, {}, {}])",
                                                     f[slot - 1], batch, hidden)));
        v = join(states, 0, "state");
        if (cfg.layout) v = fmt::format("transpose({}, axes = [1, 0, 2])", v);
      }
      c.assign(n, slot, v.find('(') == std::string::npos ? fmt::format("copy({})", v) : v);
    }
  }
};

// Checks what every unroll needs and fills the sizes; false when the node is out of reach.
bool prepare(Unroll& u, size_t acts_per_dir, const std::vector<ops::Activation>& defaults) {
  const Fact& x = u.c.fact(in(u.n, 0));
  if (x.dt != DatumType::F32) return false;
  for (size_t i : {size_t(1), size_t(2), size_t(3), size_t(7)})
    if (has_input(u.n, i) &&
        (!u.c.fact(in(u.n, i)).value || u.c.fact(in(u.n, i)).dt != DatumType::F32))
      return false;
  if (has_input(u.n, 4)) return false;  // sequence_lens
  auto seq = x.shape[u.cfg.layout ? 1 : 0].as_int(), batch = x.shape[u.cfg.layout ? 0 : 1].as_int();
  auto input = x.shape[2].as_int();
  if (!seq || !batch || !input || *seq < 1 || *seq > 4096) return false;
  u.seq = *seq;
  u.batch = *batch;
  u.input = *input;
  u.hidden = u.c.fact(in(u.n, 2)).value->dim(2);
  u.dirs = u.cfg.direction == ops::RnnDirection::Bidirectional ? 2 : 1;
  u.acts = u.cfg.activations.empty() ? defaults : u.cfg.activations;
  if (u.acts.size() == acts_per_dir && u.dirs == 2)
    u.acts.insert(u.acts.end(), u.acts.begin(), u.acts.end());
  if (u.acts.size() != acts_per_dir * size_t(u.dirs)) return false;
  for (const auto& a : u.acts)
    if (u.act(a, "x", false).empty()) return false;
  return true;
}

bool lower_lstm(Ctx& c, const Node& n) {
  const auto& op = op_as<ops::Lstm>(n);
  using K = ops::Activation::Kind;
  Unroll u(c, n, op.config());
  u.gates = 4;
  if (!prepare(u, 3, {{K::Sigmoid}, {K::Tanh}, {K::Tanh}})) return false;
  bool input_forget = OpAttrs(n).integer("input_forget", 0) != 0;
  const int64_t H = u.hidden;
  std::vector<std::vector<std::string>> hs, finals;
  for (int64_t d = 0; d < u.dirs; d++) {
    const ops::Activation *f = &u.acts[size_t(d) * 3], *g = f + 1, *h = f + 2;
    auto xw = u.projections(d, u.row_param(3, d, 0, 4 * H, 4 * H, "b"));
    std::string rt = u.weights_t(2, d, 0, 4 * H, "r");
    std::string pi, po, pf;
    if (has_input(n, 7)) {
      pi = u.row_param(7, d, 0, H, 0, "pi");
      po = u.row_param(7, d, H, H, 0, "po");
      pf = u.row_param(7, d, 2 * H, H, 0, "pf");
    }
    std::string hprev = u.initial(5, d, "h"), cprev = u.initial(6, d, "c");
    std::vector<std::string> hd(static_cast<size_t>(u.seq));
    bool reverse = u.cfg.direction == ops::RnnDirection::Reverse || d == 1;
    for (int64_t k = 0; k < u.seq; k++) {
      int64_t t = reverse ? u.seq - 1 - k : k;
      std::string gsum =
          u.temp("g", fmt::format("add({}, matmul({}, {}))", xw[size_t(t)], hprev, rt));
      auto gs = u.split(gsum, 4, "gate");  // i, o, f, c
      std::string gi = gs[0], go = gs[1], gf = gs[2], gc = gs[3];
      if (!pi.empty()) {
        gi = u.temp("gi", fmt::format("add({}, mul({}, {}))", gi, pi, cprev));
        gf = u.temp("gf", fmt::format("add({}, mul({}, {}))", gf, pf, cprev));
      }
      std::string i = u.temp("i", u.act(*f, gi, true));
      std::string fg = input_forget ? u.temp("f", fmt::format("sub(1.0, {})", i))
                                    : u.temp("f", u.act(*f, gf, true));
      std::string cand = u.temp("cand", u.act(*g, gc, true));
      std::string cnew =
          u.temp("c", fmt::format("add(mul({}, {}), mul({}, {}))", fg, cprev, i, cand));
      if (!po.empty()) go = u.temp("go", fmt::format("add({}, mul({}, {}))", go, po, cnew));
      std::string o = u.temp("o", u.act(*f, go, true));
      std::string hnew = u.temp("h", fmt::format("mul({}, {})", o, u.act(*h, cnew, false)));
      hd[size_t(t)] = hnew;
      hprev = hnew;
      cprev = cnew;
    }
    hs.push_back(hd);
    finals.push_back({hprev, cprev});
  }
  u.outputs(hs, finals);
  return true;
}

bool lower_gru(Ctx& c, const Node& n) {
  const auto& op = op_as<ops::Gru>(n);
  using K = ops::Activation::Kind;
  Unroll u(c, n, op.config());
  u.gates = 3;
  if (!prepare(u, 2, {{K::Sigmoid}, {K::Tanh}})) return false;
  bool linear_before_reset = OpAttrs(n).integer("linear_before_reset", 0) != 0;
  const int64_t H = u.hidden;
  std::vector<std::vector<std::string>> hs, finals;
  for (int64_t d = 0; d < u.dirs; d++) {
    const ops::Activation *f = &u.acts[size_t(d) * 2], *g = f + 1;
    // Z and R take both biases in the projection; the candidate's recurrent bias goes where
    // the reset applies.
    Tensor bias(DatumType::F32, {1, 3 * H});
    std::memset(bias.data<float>(), 0, bias.nbytes());
    Tensor rbh(DatumType::F32, {1, H});
    std::memset(rbh.data<float>(), 0, rbh.nbytes());
    if (has_input(n, 3)) {
      const Tensor& b = *c.fact(in(n, 3)).value;
      const float* src = b.data<float>() + d * b.dim(1);
      for (int64_t k = 0; k < 3 * H; k++)
        bias.data<float>()[k] = src[k] + (k < 2 * H ? src[3 * H + k] : 0.0f);
      for (int64_t k = 0; k < H; k++) rbh.data<float>()[k] = src[5 * H + k];
    }
    std::string name = c.planned_name({n.id, 0});
    auto xw = u.projections(d, c.variable(bias, fmt::format("{}_b{}", name, d)));
    std::string rzr = u.weights_t(2, d, 0, 2 * H, "rzr"), rh = u.weights_t(2, d, 2 * H, H, "rh");
    std::string rb = c.variable(rbh, fmt::format("{}_rbh{}", name, d));
    std::string hprev = u.initial(5, d, "h");
    std::vector<std::string> hd(static_cast<size_t>(u.seq));
    bool reverse = u.cfg.direction == ops::RnnDirection::Reverse || d == 1;
    for (int64_t k = 0; k < u.seq; k++) {
      int64_t t = reverse ? u.seq - 1 - k : k;
      auto gx = u.split(xw[size_t(t)], 3, "x");  // z, r, h
      auto gh = u.split(u.temp("hzr", fmt::format("matmul({}, {})", hprev, rzr)), 2, "hzr");
      std::string z = u.temp("z", u.act(*f, fmt::format("add({}, {})", gx[0], gh[0]), true));
      std::string r = u.temp("r", u.act(*f, fmt::format("add({}, {})", gx[1], gh[1]), true));
      std::string rec = linear_before_reset
                            ? fmt::format("mul({}, add(matmul({}, {}), {}))", r, hprev, rh, rb)
                            : fmt::format("add(matmul(mul({}, {}), {}), {})", r, hprev, rh, rb);
      std::string cand =
          u.temp("cand", u.act(*g, fmt::format("add({}, {})", gx[2], u.temp("rec", rec)), true));
      std::string hnew =
          u.temp("h", fmt::format("add(mul(sub(1.0, {0}), {1}), mul({0}, {2}))", z, cand, hprev));
      hd[size_t(t)] = hnew;
      hprev = hnew;
    }
    hs.push_back(hd);
    finals.push_back({hprev});
  }
  u.outputs(hs, finals);
  return true;
}

}  // namespace

void register_recurrent_lowerings(std::map<std::string, Lowering>& l) {
  l["LSTM"] = {lower_lstm, false};
  l["GRU"] = {lower_gru, true};
}

}  // namespace kiln::nnef::ser
