#include "ops/shape/slice.h"

#include <algorithm>
#include <array>
#include <limits>

#include "core/broadcast.h"
#include "kernels/copy/strided_copy.h"
#include "ops/shape/common.h"

namespace kiln::ops {

SliceAxis resolve_slice(int64_t dim, int64_t start, int64_t end, int64_t step) {
  KILN_ENSURE(step != 0, "Slice: step cannot be 0");
  if (start < 0) start += dim;
  if (end < 0) end += dim;
  SliceAxis a;
  a.step = step;
  if (step > 0) {
    start = std::clamp<int64_t>(start, 0, dim);
    end = std::clamp<int64_t>(end, 0, dim);
    a.len = end > start ? (end - start + step - 1) / step : 0;
  } else {
    start = std::clamp<int64_t>(start, 0, dim - 1);
    end = std::clamp<int64_t>(end, -1, dim - 1);
    a.len = start > end ? (start - end + (-step) - 1) / (-step) : 0;
  }
  a.start = start;
  return a;
}

namespace {

constexpr int64_t kHuge = std::numeric_limits<int64_t>::max() / 2;

// Symbolic extent of a slice of a symbolic dim, assuming in-range indices (the usual case:
// x[1:], x[:-1], x[-3:]).
Dim symbolic_slice(const Dim& dim, int64_t start, int64_t end, int64_t step) {
  if (step < 0) return Dim::fresh();
  Dim s = start >= 0 ? Dim(std::min(start, kHuge)) : dim + Dim(start);
  Dim e = end >= kHuge ? dim : end >= 0 ? Dim(end) : dim + Dim(end);
  Dim len = e - s;
  if (auto v = len.as_int()) return Dim(std::max<int64_t>(0, (*v + step - 1) / step));
  return len.div_ceil(step);
}

}  // namespace

Attributes Slice::attributes() const {
  Attributes a;
  if (starts_) a.emplace_back("starts", ints_to_string(*starts_));
  if (ends_) a.emplace_back("ends", ints_to_string(*ends_));
  if (axes_) a.emplace_back("axes", ints_to_string(*axes_));
  return a;
}

std::optional<Slice::Params> Slice::params(
    const std::vector<std::optional<std::vector<int64_t>>>& in, size_t rank) const {
  Params p;
  if (starts_ || ends_) {
    KILN_ENSURE(starts_ && ends_, "Slice: starts and ends are both required");
    p.starts = *starts_;
    p.ends = *ends_;
    if (axes_) p.axes = *axes_;
  } else {
    KILN_ENSURE(in.size() >= 2, "Slice: starts and ends inputs are required");
    if (!in[0] || !in[1]) return std::nullopt;
    p.starts = *in[0];
    p.ends = *in[1];
    if (in.size() > 2 && in[2]) p.axes = *in[2];
    if (in.size() > 3 && in[3]) p.steps = *in[3];
  }
  KILN_ENSURE(p.starts.size() == p.ends.size(), "Slice: {} starts but {} ends", p.starts.size(),
              p.ends.size());
  if (p.axes.empty())
    for (size_t i = 0; i < p.starts.size(); i++) p.axes.push_back(static_cast<int64_t>(i));
  if (p.steps.empty()) p.steps.assign(p.starts.size(), 1);
  KILN_ENSURE(p.axes.size() == p.starts.size() && p.steps.size() == p.starts.size(),
              "Slice: starts, ends, axes and steps must have the same length");
  std::vector<bool> seen(rank, false);
  for (auto& a : p.axes) {
    size_t n = normalize_axis(a, rank, "Slice");
    KILN_ENSURE(!seen[n], "Slice: axis {} repeated", a);
    seen[n] = true;
    a = static_cast<int64_t>(n);
  }
  for (int64_t s : p.steps) KILN_ENSURE(s != 0, "Slice: step cannot be 0");
  return p;
}

std::vector<Fact> Slice::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 1, 5);
  const Fact& data = required(inputs, 0, name());
  std::vector<std::optional<std::vector<int64_t>>> known;
  bool missing_known = false;
  for (size_t i = 1; i < inputs.size(); i++) {
    if (!inputs[i]) {
      known.emplace_back();
      continue;
    }
    known.push_back(inputs[i]->known_i64_values());
    missing_known = missing_known || !known.back();
  }
  Fact out(data.dt, data.shape);
  std::optional<Params> p;
  if (!missing_known || starts_) p = params(known, data.rank());
  if (!p) {
    // Unknown bounds: the sliced axes (all when unknown too) get fresh dims.
    std::vector<bool> sliced(data.rank(), true);
    if (known.size() > 2 && known[2]) {
      sliced.assign(data.rank(), false);
      for (int64_t a : *known[2]) sliced[normalize_axis(a, data.rank(), name())] = true;
    }
    for (size_t i = 0; i < data.rank(); i++)
      if (sliced[i]) out.shape[i] = Dim::fresh();
    return {out};
  }
  for (size_t i = 0; i < p->axes.size(); i++) {
    size_t a = static_cast<size_t>(p->axes[i]);
    const Dim& d = data.shape[a];
    if (auto n = d.as_int()) {
      out.shape[a] = resolve_slice(*n, p->starts[i], p->ends[i], p->steps[i]).len;
    } else {
      out.shape[a] = symbolic_slice(d, p->starts[i], p->ends[i], p->steps[i]);
    }
  }
  if (data.dims_value && data.rank() == 1 && data.shape[0].is_int()) {
    const auto& dv = *data.dims_value;
    if (p->axes.empty()) return {fact_from_dims_value(data.dt, out.shape, dv)};
    SliceAxis s =
        resolve_slice(static_cast<int64_t>(dv.size()), p->starts[0], p->ends[0], p->steps[0]);
    std::vector<Dim> sliced;
    for (int64_t k = 0; k < s.len; k++)
      sliced.push_back(dv[static_cast<size_t>(s.start + k * s.step)]);
    return {fact_from_dims_value(data.dt, out.shape, sliced)};
  }
  return {out};
}

namespace {
// Slice with starts/ends/axes/steps as inputs, rank <= kSmallRank, in fixed arrays: no
// allocation per run. Returns false (nothing written) for anything else or anything invalid;
// the general path then runs and words the errors.
bool eval_small(EvalContext& ctx, const Tensor& data, const TensorRefs& inputs) {
  const size_t rank = data.rank();
  auto input = [&](size_t i) { return inputs.size() > i ? inputs[i] : nullptr; };
  const Tensor *st = input(1), *en = input(2), *ax = input(3), *sp = input(4);
  if (rank > kSmallRank || !st || !en || st->numel() != en->numel()) return false;
  for (const Tensor* t : {st, en, ax, sp})
    if (t && (!is_integer(t->dtype()) || t->numel() != st->numel())) return false;
  std::array<int64_t, kSmallRank> start{}, step{};
  Shape& out_shape = ctx.temp_shape(0);
  out_shape.assign(data.shape().begin(), data.shape().end());
  for (size_t a = 0; a < rank; a++) step[a] = 1;
  uint32_t seen = 0;
  for (int64_t i = 0; i < st->numel(); i++) {
    int64_t a = ax ? ax->value_as_i64(i) : i;
    if (a < 0) a += static_cast<int64_t>(rank);
    if (a < 0 || a >= static_cast<int64_t>(rank) || (seen & (1u << a))) return false;
    seen |= 1u << a;
    int64_t stp = sp ? sp->value_as_i64(i) : 1;
    if (stp == 0) return false;
    SliceAxis sa = resolve_slice(data.dim(static_cast<size_t>(a)), st->value_as_i64(i),
                                 en->value_as_i64(i), stp);
    start[static_cast<size_t>(a)] = sa.start;
    step[static_cast<size_t>(a)] = sa.step;
    out_shape[static_cast<size_t>(a)] = sa.len;
  }
  Tensor& out = ctx.output(0, data.dtype(), out_shape);
  // Nothing to copy (and the strides of huge declared dims around an empty one need not fit).
  if (out.numel() == 0) return true;
  std::array<std::array<int64_t, kSmallRank>, 1> step_strides{};
  int64_t base = 0, stride = 1;
  for (size_t a = rank; a-- > 0;) {
    if (out_shape[a] > 0) base += start[a] * stride;
    step_strides[0][a] = stride * step[a];
    stride *= data.dim(a);
  }
  if (!is_object(data.dtype())) {
    const size_t elem = size_of(data.dtype());
    kernels::strided_copy(static_cast<const char*>(data.raw_data()) + base * elem, out.raw_data(),
                          elem, out_shape.data(), step_strides[0].data(), rank);
    return true;
  }
  dispatch_any(data.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* src = data.data<T>() + base;
    T* dst = out.data<T>();
    for_each_broadcast<1>(out_shape, step_strides,
                          [&](int64_t i, const std::array<int64_t, 1>& o) { dst[i] = src[o[0]]; });
  });
  return true;
}
}  // namespace

void Slice::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& data = required(inputs, 0, "Slice");
  if (!starts_ && !ends_ && eval_small(ctx, data, inputs)) return;
  std::vector<std::optional<std::vector<int64_t>>> in;
  for (size_t i = 1; i < inputs.size(); i++) {
    if (inputs[i]) {
      in.push_back(index_values(*inputs[i], name()));
    } else {
      in.emplace_back();
    }
  }
  auto p = params(in, data.rank());
  KILN_ENSURE(p.has_value(), "Slice: starts and ends are required");
  Shape out_shape = data.shape();
  auto strides = contiguous_strides(data.shape());
  std::array<std::vector<int64_t>, 1> step_strides{strides};
  int64_t base = 0;
  for (size_t i = 0; i < p->axes.size(); i++) {
    size_t a = static_cast<size_t>(p->axes[i]);
    SliceAxis s = resolve_slice(data.dim(a), p->starts[i], p->ends[i], p->steps[i]);
    out_shape[a] = s.len;
    if (s.len > 0) base += s.start * strides[a];
    step_strides[0][a] = strides[a] * s.step;
  }
  Tensor& out = ctx.output(0, data.dtype(), out_shape);
  if (out.numel() == 0) return;
  if (!is_object(data.dtype())) {
    const size_t elem = size_of(data.dtype());
    kernels::strided_copy(static_cast<const char*>(data.raw_data()) + base * elem, out.raw_data(),
                          elem, out_shape, step_strides[0]);
    return;
  }
  dispatch_any(data.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* src = data.data<T>() + base;
    T* dst = out.data<T>();
    for_each_broadcast<1>(out_shape, step_strides,
                          [&](int64_t i, const std::array<int64_t, 1>& o) { dst[i] = src[o[0]]; });
  });
}

}  // namespace kiln::ops
