#include "ops/recurrent/recurrent.h"

#include <fmt/format.h>

#include <algorithm>
#include <type_traits>

#include "base/error.h"

namespace kiln::ops {

namespace {

std::vector<double> to_doubles(const Tensor& t) {
  std::vector<double> out(static_cast<size_t>(t.numel()));
  dispatch_numeric(t.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* p = t.data<T>();
    for (size_t i = 0; i < out.size(); i++) {
      if constexpr (std::is_same_v<T, double>)
        out[i] = p[i];
      else
        out[i] = static_cast<double>(static_cast<float>(p[i]));
    }
  });
  return out;
}

template <typename T>
T from_double(double v) {
  if constexpr (std::is_same_v<T, double>)
    return v;
  else
    return T(static_cast<float>(v));
}

void write_doubles(Tensor& t, const std::vector<double>& v) {
  dispatch_numeric(t.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* p = t.data<T>();
    for (size_t i = 0; i < v.size(); i++) p[i] = from_double<T>(v[i]);
  });
}

const char* direction_name(RnnDirection d) {
  switch (d) {
    case RnnDirection::Forward:
      return "forward";
    case RnnDirection::Reverse:
      return "reverse";
    case RnnDirection::Bidirectional:
      return "bidirectional";
  }
  return "?";
}

void expect_dim(const Dim& actual, const Dim& expected, const std::string& op,
                const std::string& what) {
  if (actual.is_int() && expected.is_int())
    KILN_ENSURE(actual == expected, "{}: {} should be {}, got {}", op, what, expected.to_string(),
                actual.to_string());
}

}  // namespace

RnnDirection parse_rnn_direction(const std::string& text) {
  if (text == "forward") return RnnDirection::Forward;
  if (text == "reverse") return RnnDirection::Reverse;
  if (text == "bidirectional") return RnnDirection::Bidirectional;
  fail("unknown recurrent direction '{}'", text);
}

RecurrentOp::RecurrentOp(RecurrentConfig config) : config_(std::move(config)) {
  KILN_ENSURE(config_.layout == 0 || config_.layout == 1, "recurrent op: layout must be 0 or 1");
  if (config_.hidden_size)
    KILN_ENSURE(*config_.hidden_size > 0, "recurrent op: hidden_size must be positive");
}

std::vector<Activation> RecurrentOp::activations() const {
  auto defaults = default_activations();
  size_t per = defaults.size();
  size_t nd = num_directions();
  std::vector<Activation> acts = config_.activations.empty() ? defaults : config_.activations;
  if (acts.size() == per && nd == 2) acts.insert(acts.end(), acts.begin(), acts.end());
  KILN_ENSURE(acts.size() == per * nd, "{}: expected {} activations, got {}", name(), per * nd,
              acts.size());
  return acts;
}

Attributes RecurrentOp::attributes() const {
  Attributes a{{"direction", direction_name(config_.direction)}};
  if (config_.hidden_size) a.push_back({"hidden_size", std::to_string(*config_.hidden_size)});
  if (!config_.activations.empty()) {
    std::string s;
    for (const auto& act : config_.activations) s += (s.empty() ? "" : ",") + act.to_string();
    a.push_back({"activations", s});
  }
  if (config_.clip) a.push_back({"clip", fmt::format("{}", *config_.clip)});
  if (config_.layout) a.push_back({"layout", "1"});
  extra_attributes(a);
  return a;
}

std::vector<Fact> RecurrentOp::output_facts(const FactRefs& inputs) const {
  const std::string op = name();
  expect_inputs(op, inputs.size(), 3, static_cast<long>(max_inputs()));
  const Fact& x = required(inputs, 0, op);
  const Fact& w = required(inputs, 1, op);
  const Fact& r = required(inputs, 2, op);
  KILN_ENSURE(is_float(x.dt), "{}: X must be a float tensor, got {}", op, name_of(x.dt));
  KILN_ENSURE(x.rank() == 3, "{}: X must have rank 3, got [{}]", op, dims_to_string(x.shape));
  KILN_ENSURE(w.rank() == 3, "{}: W must have rank 3, got [{}]", op, dims_to_string(w.shape));
  KILN_ENSURE(r.rank() == 3, "{}: R must have rank 3, got [{}]", op, dims_to_string(r.shape));
  KILN_ENSURE(w.dt == x.dt && r.dt == x.dt, "{}: W and R must have the type of X", op);
  activations();  // validates the count
  Dim nd = static_cast<int64_t>(num_directions());
  Dim hidden = config_.hidden_size ? Dim(*config_.hidden_size) : r.shape[2];
  Dim g = static_cast<int64_t>(gates());
  Dim seq = config_.layout ? x.shape[1] : x.shape[0];
  Dim batch = config_.layout ? x.shape[0] : x.shape[1];
  expect_dim(w.shape[0], nd, op, "W dim 0 (directions)");
  expect_dim(w.shape[1], g * hidden, op, "W dim 1 (gates * hidden)");
  expect_dim(w.shape[2], x.shape[2], op, "W dim 2 (input size)");
  expect_dim(r.shape[0], nd, op, "R dim 0 (directions)");
  expect_dim(r.shape[1], g * hidden, op, "R dim 1 (gates * hidden)");
  expect_dim(r.shape[2], hidden, op, "R dim 2 (hidden size)");
  if (inputs.size() > 3 && inputs[3]) {
    const Fact& b = *inputs[3];
    KILN_ENSURE(b.rank() == 2, "{}: B must have rank 2, got [{}]", op, dims_to_string(b.shape));
    expect_dim(b.shape[1], Dim(2) * g * hidden, op, "B dim 1");
  }
  if (inputs.size() > 4 && inputs[4]) {
    KILN_ENSURE(inputs[4]->rank() == 1 && is_integer(inputs[4]->dt),
                "{}: sequence_lens must be a 1-D integer tensor", op);
  }
  std::vector<Dim> state_shape =
      config_.layout ? std::vector<Dim>{batch, nd, hidden} : std::vector<Dim>{nd, batch, hidden};
  for (size_t i = 5; i < 7 && i < inputs.size(); i++) {
    if (!inputs[i]) continue;
    KILN_ENSURE(inputs[i]->rank() == 3, "{}: initial state must have rank 3, got [{}]", op,
                dims_to_string(inputs[i]->shape));
    for (size_t d = 0; d < 3; d++)
      expect_dim(inputs[i]->shape[d], state_shape[d], op, "initial state");
  }
  if (inputs.size() > 7 && inputs[7]) {
    KILN_ENSURE(inputs[7]->rank() == 2, "{}: P must have rank 2", op);
    expect_dim(inputs[7]->shape[1], Dim(3) * hidden, op, "P dim 1");
  }
  std::vector<Dim> y = config_.layout ? std::vector<Dim>{batch, seq, nd, hidden}
                                      : std::vector<Dim>{seq, nd, batch, hidden};
  std::vector<Fact> out{Fact(x.dt, y)};
  for (size_t i = 0; i < state_outputs(); i++) out.emplace_back(x.dt, state_shape);
  return out;
}

Cost RecurrentOp::cost(const FactRefs& inputs) const {
  Cost c;
  if (inputs.size() < 3 || !inputs[0] || !inputs[2] || inputs[0]->rank() != 3 ||
      inputs[2]->rank() != 3)
    return Op::cost(inputs);
  const Fact& x = *inputs[0];
  const Fact& r = *inputs[2];
  Dim seq = config_.layout ? x.shape[1] : x.shape[0];
  Dim batch = config_.layout ? x.shape[0] : x.shape[1];
  Dim hidden = r.shape[2];
  Dim per_step = batch * Dim(static_cast<int64_t>(num_directions() * gates())) * hidden *
                 (x.shape[2] + hidden);
  c.fma = seq * per_step;
  c.fma_type = x.dt;
  c.other = seq * batch * Dim(static_cast<int64_t>(num_directions() * gates())) * hidden;
  Dim params = inputs[1] ? inputs[1]->volume() : Dim(0);
  params += r.volume();
  if (inputs.size() > 3 && inputs[3]) params += inputs[3]->volume();
  c.params_bytes = params * Dim(static_cast<int64_t>(size_of(x.dt)));
  return c;
}

void RecurrentOp::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const std::string op = name();
  const Tensor& xt = required(inputs, 0, op);
  const Tensor& wt = required(inputs, 1, op);
  const Tensor& rt = required(inputs, 2, op);
  auto opt = [&](size_t i) -> const Tensor* { return i < inputs.size() ? inputs[i] : nullptr; };
  KILN_ENSURE(xt.rank() == 3 && wt.rank() == 3 && rt.rank() == 3, "{}: X, W, R must have rank 3",
              op);
  const int64_t nd = static_cast<int64_t>(num_directions());
  const int64_t G = static_cast<int64_t>(gates());
  const int64_t H = rt.dim(2);
  const int64_t S = config_.layout ? xt.dim(1) : xt.dim(0);
  const int64_t B = config_.layout ? xt.dim(0) : xt.dim(1);
  const int64_t I = xt.dim(2);
  const int64_t GH = G * H;
  if (config_.hidden_size)
    KILN_ENSURE(*config_.hidden_size == H, "{}: hidden_size {} but R has hidden size {}", op,
                *config_.hidden_size, H);
  KILN_ENSURE(wt.shape() == (Shape{nd, GH, I}), "{}: W should be [{},{},{}], got [{}]", op, nd, GH,
              I, shape_to_string(wt.shape()));
  KILN_ENSURE(rt.shape() == (Shape{nd, GH, H}), "{}: R should be [{},{},{}], got [{}]", op, nd, GH,
              H, shape_to_string(rt.shape()));
  Shape state_shape = config_.layout ? Shape{B, nd, H} : Shape{nd, B, H};
  auto state_index = [&](int64_t d, int64_t b) {
    return config_.layout ? (b * nd + d) * H : (d * B + b) * H;
  };

  std::vector<double> X = to_doubles(xt), W = to_doubles(wt), R = to_doubles(rt);
  std::vector<double> Bias(static_cast<size_t>(nd * 2 * GH), 0.0);
  if (const Tensor* b = opt(3)) {
    KILN_ENSURE(b->shape() == (Shape{nd, 2 * GH}), "{}: B should be [{},{}], got [{}]", op, nd,
                2 * GH, shape_to_string(b->shape()));
    Bias = to_doubles(*b);
  }
  std::vector<int64_t> lens(static_cast<size_t>(B), S);
  if (const Tensor* sl = opt(4)) {
    KILN_ENSURE(sl->shape() == (Shape{B}), "{}: sequence_lens should be [{}], got [{}]", op, B,
                shape_to_string(sl->shape()));
    lens = sl->to_i64_vector();
    for (int64_t l : lens)
      KILN_ENSURE(l >= 0 && l <= S, "{}: sequence length {} out of range [0, {}]", op, l, S);
  }
  std::vector<double> h0(static_cast<size_t>(nd * B * H), 0.0), c0 = h0;
  if (const Tensor* t = opt(5)) {
    KILN_ENSURE(t->shape() == state_shape, "{}: initial_h should be [{}], got [{}]", op,
                shape_to_string(state_shape), shape_to_string(t->shape()));
    h0 = to_doubles(*t);
  }
  if (const Tensor* t = opt(6)) {
    KILN_ENSURE(t->shape() == state_shape, "{}: initial_c should be [{}], got [{}]", op,
                shape_to_string(state_shape), shape_to_string(t->shape()));
    c0 = to_doubles(*t);
  }
  std::vector<double> P;
  if (const Tensor* t = opt(7)) {
    KILN_ENSURE(t->shape() == (Shape{nd, 3 * H}), "{}: P should be [{},{}], got [{}]", op, nd,
                3 * H, shape_to_string(t->shape()));
    P = to_doubles(*t);
  }
  auto acts = activations();
  const size_t per = acts.size() / static_cast<size_t>(nd);

  std::vector<double> Y(static_cast<size_t>(S * nd * B * H), 0.0);
  std::vector<double> Yh(static_cast<size_t>(nd * B * H)), Yc(Yh.size());
  std::vector<double> xw(static_cast<size_t>(S * B * GH));
  std::vector<double> h(static_cast<size_t>(H)), c(h.size()), scratch(static_cast<size_t>(GH));
  for (int64_t d = 0; d < nd; d++) {
    const double* Wd = W.data() + d * GH * I;
    const double* wb = Bias.data() + d * 2 * GH;
    // Input projection of every step at once, before the recurrence.
    for (int64_t t = 0; t < S; t++) {
      for (int64_t b = 0; b < B; b++) {
        const double* x = X.data() + (config_.layout ? (b * S + t) : (t * B + b)) * I;
        double* out = xw.data() + (t * B + b) * GH;
        for (int64_t g = 0; g < GH; g++) {
          const double* wrow = Wd + g * I;
          double sum = wb[g];
          for (int64_t i = 0; i < I; i++) sum += x[i] * wrow[i];
          out[g] = sum;
        }
      }
    }
    const bool reverse = config_.direction == RnnDirection::Reverse || d == 1;
    for (int64_t b = 0; b < B; b++) {
      std::copy_n(h0.begin() + state_index(d, b), H, h.begin());
      std::copy_n(c0.begin() + state_index(d, b), H, c.begin());
      RnnStep s{nullptr,
                R.data() + d * GH * H,
                wb + GH,
                P.empty() ? nullptr : P.data() + d * 3 * H,
                acts.data() + static_cast<size_t>(d) * per,
                h.data(),
                c.data(),
                scratch.data(),
                H};
      for (int64_t k = 0; k < lens[static_cast<size_t>(b)]; k++) {
        int64_t t = reverse ? lens[static_cast<size_t>(b)] - 1 - k : k;
        s.xw = xw.data() + (t * B + b) * GH;
        step(s);
        int64_t y = config_.layout ? ((b * S + t) * nd + d) * H : ((t * nd + d) * B + b) * H;
        std::copy_n(h.begin(), H, Y.begin() + y);
      }
      std::copy_n(h.begin(), H, Yh.begin() + state_index(d, b));
      std::copy_n(c.begin(), H, Yc.begin() + state_index(d, b));
    }
  }
  Shape y_shape = config_.layout ? Shape{B, S, nd, H} : Shape{S, nd, B, H};
  if (ctx.num_outputs() > 0) write_doubles(ctx.output(0, xt.dtype(), y_shape), Y);
  if (ctx.num_outputs() > 1) write_doubles(ctx.output(1, xt.dtype(), state_shape), Yh);
  if (ctx.num_outputs() > 2 && state_outputs() > 1)
    write_doubles(ctx.output(2, xt.dtype(), state_shape), Yc);
}

}  // namespace kiln::ops
