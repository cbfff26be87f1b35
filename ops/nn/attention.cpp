#include "ops/nn/attention.h"

#include <cmath>
#include <limits>

#include "base/error.h"
#include "ops/nn/nn_common.h"

namespace kiln::ops {

namespace {

int64_t exact_div(int64_t a, int64_t b) {
  KILN_ENSURE(b > 0 && a % b == 0, "Attention: {} is not divisible by {} heads", a, b);
  return a / b;
}
Dim exact_div(const Dim& a, int64_t b) {
  KILN_ENSURE(b > 0, "Attention: head count {} must be positive", b);
  if (auto v = a.as_int()) return exact_div(*v, b);
  return a.div(b);
}

// The sizes of one evaluation (D = Dim for facts, int64_t for tensors).
template <typename D>
struct Sizes {
  D batch, q_heads, kv_heads, q_seq, kv_seq, past, head, v_head;
  bool three_d = false;
};

template <typename D>
Sizes<D> sizes_of(const AttentionOptions& o, const std::vector<D>& q, const std::vector<D>& k,
                  const std::vector<D>& v, const std::vector<D>* past_key) {
  KILN_ENSURE(q.size() == k.size() && k.size() == v.size() && (q.size() == 3 || q.size() == 4),
              "Attention: Q, K and V must all be 3-D or all 4-D, got ranks {}, {}, {}", q.size(),
              k.size(), v.size());
  Sizes<D> s;
  s.three_d = q.size() == 3;
  s.batch = q[0];
  if (s.three_d) {
    KILN_ENSURE(o.q_num_heads > 0 && o.kv_num_heads > 0,
                "Attention: 3-D inputs need q_num_heads and kv_num_heads");
    s.q_heads = D(o.q_num_heads);
    s.kv_heads = D(o.kv_num_heads);
    s.q_seq = q[1];
    s.kv_seq = k[1];
    s.head = exact_div(q[2], o.q_num_heads);
    KILN_ENSURE(exact_div(k[2], o.kv_num_heads) == s.head,
                "Attention: K's head size differs from Q's");
    s.v_head = exact_div(v[2], o.kv_num_heads);
  } else {
    s.q_heads = q[1];
    s.kv_heads = k[1];
    s.q_seq = q[2];
    s.kv_seq = k[2];
    s.head = q[3];
    KILN_ENSURE(k[3] == s.head, "Attention: K's head size differs from Q's");
    KILN_ENSURE(v[1] == s.kv_heads && v[2] == s.kv_seq, "Attention: V's shape differs from K's");
    s.v_head = v[3];
  }
  s.past = D(0);
  if (past_key) {
    KILN_ENSURE(past_key->size() == 4, "Attention: past_key must be 4-D");
    s.past = (*past_key)[2];
  }
  return s;
}

template <typename D>
std::vector<D> dims_of(const Tensor& t) {
  return std::vector<D>(t.shape().begin(), t.shape().end());
}

}  // namespace

Attributes Attention::attributes() const {
  Attributes a;
  if (o_.is_causal) a.push_back({"is_causal", "1"});
  if (o_.q_num_heads) a.push_back({"q_num_heads", std::to_string(o_.q_num_heads)});
  if (o_.kv_num_heads) a.push_back({"kv_num_heads", std::to_string(o_.kv_num_heads)});
  if (o_.scale) a.push_back({"scale", fmt::format("{}", *o_.scale)});
  if (o_.softcap != 0) a.push_back({"softcap", fmt::format("{}", o_.softcap)});
  if (o_.qk_output_mode) a.push_back({"qk_matmul_output_mode", std::to_string(o_.qk_output_mode)});
  if (o_.left_window >= 0) a.push_back({"left_window_size", std::to_string(o_.left_window)});
  if (o_.right_window >= 0) a.push_back({"right_window_size", std::to_string(o_.right_window)});
  return a;
}

std::vector<Fact> Attention::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 3, 7);
  const Fact& q = required(inputs, 0, name());
  const Fact& k = required(inputs, 1, name());
  const Fact& v = required(inputs, 2, name());
  KILN_ENSURE(is_float(q.dt) && k.dt == q.dt && is_float(v.dt),
              "Attention: Q, K, V must be float tensors (Q and K of one type), got {}, {}, {}",
              name_of(q.dt), name_of(k.dt), name_of(v.dt));
  const Fact* past_key = inputs.size() > 4 ? inputs[4] : nullptr;
  const Fact* past_value = inputs.size() > 5 ? inputs[5] : nullptr;
  KILN_ENSURE(!past_key == !past_value, "Attention: past_key and past_value go together");
  auto s = sizes_of<Dim>(o_, q.shape, k.shape, v.shape, past_key ? &past_key->shape : nullptr);
  if (auto qh = s.q_heads.as_int(), kh = s.kv_heads.as_int(); qh && kh)
    KILN_ENSURE(*kh > 0 && *qh % *kh == 0,
                "Attention: q_num_heads {} is not a multiple of kv_num_heads {}", *qh, *kh);
  Dim total = s.past + s.kv_seq;
  std::vector<Fact> out;
  if (s.three_d)
    out.emplace_back(q.dt, std::vector<Dim>{s.batch, s.q_seq, s.q_heads * s.v_head});
  else
    out.emplace_back(q.dt, std::vector<Dim>{s.batch, s.q_heads, s.q_seq, s.v_head});
  out.emplace_back(k.dt, std::vector<Dim>{s.batch, s.kv_heads, total, s.head});
  out.emplace_back(v.dt, std::vector<Dim>{s.batch, s.kv_heads, total, s.v_head});
  out.emplace_back(q.dt, std::vector<Dim>{s.batch, s.q_heads, s.q_seq, total});
  return out;
}

Cost Attention::cost(const FactRefs& inputs) const {
  const Fact& q = required(inputs, 0, name());
  const Fact& k = required(inputs, 1, name());
  const Fact& v = required(inputs, 2, name());
  const Fact* past_key = inputs.size() > 4 ? inputs[4] : nullptr;
  auto s = sizes_of<Dim>(o_, q.shape, k.shape, v.shape, past_key ? &past_key->shape : nullptr);
  Dim scores = s.batch * s.q_heads * s.q_seq * (s.past + s.kv_seq);
  Cost c;
  c.fma = scores * (s.head + s.v_head);
  c.fma_type = q.dt;
  c.other = scores;
  return c;
}

namespace {

// One evaluation in the compute type A (float, or double for f64 inputs).
template <typename T, typename A>
struct Run {
  const AttentionOptions& o;
  const Sizes<int64_t>& s;
  const Tensor *q, *k, *v, *mask, *past_k, *past_v, *nonpad;
  EvalContext& ctx;

  // Element (b, h, t, d) of a 4-D or 3-D [b, t, h * size] tensor.
  static A at(const T* data, bool three_d, int64_t heads, int64_t seq, int64_t size, int64_t b,
              int64_t h, int64_t t, int64_t d) {
    int64_t i =
        three_d ? ((b * seq + t) * heads + h) * size + d : ((b * heads + h) * seq + t) * size + d;
    return nn::to_acc<A>(data[i]);
  }

  // The keys (or values) of (b, h) for positions 0..total: the past first, then the new ones.
  A kv(const Tensor* past, const Tensor* now, int64_t size, int64_t b, int64_t h, int64_t t,
       int64_t d) const {
    if (t < s.past) return at(past->data<T>(), false, s.kv_heads, s.past, size, b, h, t, d);
    return at(now->data<T>(), s.three_d, s.kv_heads, s.kv_seq, size, b, h, t - s.past, d);
  }

  // The additive mask value at (b, h, i, j) (0 when there is no mask); -inf when masked.
  A mask_value(int64_t b, int64_t h, int64_t i, int64_t j) const {
    if (!mask) return A(0);
    const Shape& ms = mask->shape();
    const size_t r = ms.size();
    const int64_t idx[4] = {b, h, i, j};
    if (ms[r - 1] <= j) return -std::numeric_limits<A>::infinity();  // a short mask pads with -inf
    int64_t flat = 0;
    for (size_t d = 0; d < r; d++) {
      int64_t full = idx[4 - r + d];
      flat = flat * ms[d] + (ms[d] == 1 ? 0 : full);
    }
    if (mask->dtype() == DatumType::Bool)
      return mask->data<bool>()[flat] ? A(0) : -std::numeric_limits<A>::infinity();
    return static_cast<A>(mask->value_as_double(flat));
  }

  void run() {
    const int64_t total = s.past + s.kv_seq;
    const int64_t group = s.q_heads / s.kv_heads;
    const A scale = o.scale ? A(*o.scale) : A(1) / std::sqrt(static_cast<A>(s.head));
    // 16-bit types: the scores and the probabilities are rounded to T after each step, as
    // ONNX Runtime computes them (exact agreement on float16; float and double unrounded).
    constexpr bool narrow = nn::is_half_v<T>;
    auto in_t = [](A v) { return narrow ? nn::to_acc<A>(nn::from_acc<T>(v)) : v; };
    const A neg_inf = -std::numeric_limits<A>::infinity();
    Shape& y_shape = ctx.temp_shape(0);
    if (s.three_d)
      y_shape.assign({s.batch, s.q_seq, s.q_heads * s.v_head});
    else
      y_shape.assign({s.batch, s.q_heads, s.q_seq, s.v_head});
    Tensor& y = ctx.output(0, q->dtype(), y_shape);
    T* yd = y.data<T>();
    T* qk_out = nullptr;
    if (ctx.num_outputs() > 3) {
      Shape& qk_shape = ctx.temp_shape(1);
      qk_shape.assign({s.batch, s.q_heads, s.q_seq, total});
      qk_out = ctx.output(3, q->dtype(), qk_shape).template data<T>();
    }
    write_present();
    A* row = ctx.scratch<A>(static_cast<size_t>(total));
    A* acc = ctx.scratch<A>(static_cast<size_t>(s.v_head));
    const T* qd = q->data<T>();
    for (int64_t b = 0; b < s.batch; b++) {
      int64_t valid = total;  // keys past nonpad_kv_seqlen are padding
      int64_t offset = s.past;
      if (nonpad) {
        valid = std::min(total, nonpad->value_as_i64(b));
        if (!past_k) offset = valid - s.q_seq;
      }
      for (int64_t h = 0; h < s.q_heads; h++) {
        const int64_t kvh = h / group;
        for (int64_t i = 0; i < s.q_seq; i++) {
          const int64_t p = offset + i;  // the query's absolute position
          A best = neg_inf;
          for (int64_t j = 0; j < total; j++) {
            A dot = 0;
            for (int64_t d = 0; d < s.head; d++)
              dot += at(qd, s.three_d, s.q_heads, s.q_seq, s.head, b, h, i, d) *
                     kv(past_k, k, s.head, b, kvh, j, d);
            A score = in_t(dot * scale);
            const int64_t qk_index = ((b * s.q_heads + h) * s.q_seq + i) * total + j;
            if (qk_out && o.qk_output_mode == 0) qk_out[qk_index] = nn::from_acc<T>(score);
            if (o.softcap > 0) score = in_t(A(o.softcap) * std::tanh(score / A(o.softcap)));
            if (qk_out && o.qk_output_mode == 1) qk_out[qk_index] = nn::from_acc<T>(score);
            bool allowed = j < valid;
            if (o.is_causal && j > p) allowed = false;
            if (o.left_window >= 0 && j < p - o.left_window) allowed = false;
            if (o.right_window >= 0 && j > p + o.right_window) allowed = false;
            score = allowed ? in_t(score + mask_value(b, h, i, j)) : neg_inf;
            if (qk_out && o.qk_output_mode == 2) qk_out[qk_index] = nn::from_acc<T>(score);
            row[j] = score;
            best = std::max(best, score);
          }
          // Softmax; a row with every key masked gives zeros (not NaN).
          A sum = 0;
          for (int64_t j = 0; j < total; j++) {
            row[j] = best == neg_inf ? A(0) : std::exp(row[j] - best);
            sum += row[j];
          }
          for (int64_t j = 0; j < total; j++) {
            row[j] = sum > 0 ? in_t(row[j] / sum) : A(0);
            if (qk_out && o.qk_output_mode == 3)
              qk_out[((b * s.q_heads + h) * s.q_seq + i) * total + j] = nn::from_acc<T>(row[j]);
          }
          for (int64_t d = 0; d < s.v_head; d++) acc[d] = 0;
          for (int64_t j = 0; j < total; j++) {
            if (row[j] == A(0)) continue;
            for (int64_t d = 0; d < s.v_head; d++)
              acc[d] += row[j] * kv(past_v, v, s.v_head, b, kvh, j, d);
          }
          for (int64_t d = 0; d < s.v_head; d++) {
            int64_t at_y = s.three_d ? ((b * s.q_seq + i) * s.q_heads + h) * s.v_head + d
                                     : ((b * s.q_heads + h) * s.q_seq + i) * s.v_head + d;
            yd[at_y] = nn::from_acc<T>(acc[d]);
          }
        }
      }
    }
  }

  // present_key / present_value: the past followed by the new keys / values, 4-D.
  void write_present() {
    const int64_t total = s.past + s.kv_seq;
    for (int slot = 1; slot <= 2 && slot < static_cast<int>(ctx.num_outputs()); slot++) {
      const Tensor* now = slot == 1 ? k : v;
      const Tensor* past = slot == 1 ? past_k : past_v;
      const int64_t size = slot == 1 ? s.head : s.v_head;
      Shape& shape = ctx.temp_shape(1 + slot);
      shape.assign({s.batch, s.kv_heads, total, size});
      Tensor& out = ctx.output(static_cast<size_t>(slot), now->dtype(), shape);
      T* od = out.data<T>();
      for (int64_t b = 0; b < s.batch; b++)
        for (int64_t h = 0; h < s.kv_heads; h++)
          for (int64_t t = 0; t < total; t++)
            for (int64_t d = 0; d < size; d++)
              od[((b * s.kv_heads + h) * total + t) * size + d] =
                  nn::from_acc<T>(kv(past, now, size, b, h, t, d));
    }
  }
};

}  // namespace

void Attention::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& q = required(inputs, 0, name());
  const Tensor& k = required(inputs, 1, name());
  const Tensor& v = required(inputs, 2, name());
  auto opt = [&](size_t i) { return inputs.size() > i ? inputs[i] : nullptr; };
  const Tensor *mask = opt(3), *past_k = opt(4), *past_v = opt(5), *nonpad = opt(6);
  KILN_ENSURE(!past_k == !past_v, "Attention: past_key and past_value go together");
  KILN_ENSURE(q.dtype() == k.dtype() && v.dtype() == q.dtype(),
              "Attention: Q, K and V of different types ({}, {}, {}) are not supported",
              name_of(q.dtype()), name_of(k.dtype()), name_of(v.dtype()));
  Shape past_shape = past_k ? past_k->shape() : Shape{};
  auto s = sizes_of<int64_t>(o_, q.shape(), k.shape(), v.shape(), past_k ? &past_shape : nullptr);
  KILN_ENSURE(s.kv_heads > 0 && s.q_heads % s.kv_heads == 0,
              "Attention: q_num_heads {} is not a multiple of kv_num_heads {}", s.q_heads,
              s.kv_heads);
  if (past_k) {
    KILN_ENSURE(past_k->shape() == Shape({s.batch, s.kv_heads, s.past, s.head}) &&
                    past_v->shape() == Shape({s.batch, s.kv_heads, s.past, s.v_head}) &&
                    past_k->dtype() == q.dtype() && past_v->dtype() == q.dtype(),
                "Attention: past_key / past_value of shapes [{}] / [{}] do not match the inputs",
                shape_to_string(past_k->shape()), shape_to_string(past_v->shape()));
  }
  if (mask) {
    const Shape& ms = mask->shape();
    KILN_ENSURE(ms.size() >= 2 && ms.size() <= 4, "Attention: mask of rank {}", ms.size());
    const int64_t full[4] = {s.batch, s.q_heads, s.q_seq, s.past + s.kv_seq};
    for (size_t d = 0; d + 1 < ms.size(); d++) {
      int64_t want = full[4 - ms.size() + d];
      KILN_ENSURE(ms[d] == 1 || ms[d] == want,
                  "Attention: mask [{}] does not broadcast to [{}, {}, {}, {}]",
                  shape_to_string(ms), full[0], full[1], full[2], full[3]);
    }
    KILN_ENSURE(mask->dtype() == DatumType::Bool || is_numeric(mask->dtype()),
                "Attention: mask of type {}", name_of(mask->dtype()));
  }
  if (nonpad)
    KILN_ENSURE(nonpad->numel() == s.batch && is_integer(nonpad->dtype()),
                "Attention: nonpad_kv_seqlen must hold {} integers", s.batch);
  auto go = [&](auto tag, auto acc_tag) {
    using T = typename decltype(tag)::type;
    using A = typename decltype(acc_tag)::type;
    Run<T, A>{o_, s, &q, &k, &v, mask, past_k, past_v, nonpad, ctx}.run();
  };
  switch (q.dtype()) {
    case DatumType::F32:
      return go(TypeTag<float>{}, TypeTag<float>{});
    case DatumType::F64:
      return go(TypeTag<double>{}, TypeTag<double>{});
    case DatumType::F16:
      return go(TypeTag<f16>{}, TypeTag<float>{});
    case DatumType::BF16:
      return go(TypeTag<bf16>{}, TypeTag<float>{});
    default:
      fail("Attention: unsupported type {}", name_of(q.dtype()));
  }
}

}  // namespace kiln::ops
