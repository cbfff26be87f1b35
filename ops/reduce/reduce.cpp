#include "ops/reduce/reduce.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "base/error.h"
#include "base/saturate.h"
#include "core/broadcast.h"

namespace kiln::ops {

std::string reduce_kind_name(ReduceKind kind) {
  switch (kind) {
    case ReduceKind::Sum:
      return "ReduceSum";
    case ReduceKind::Mean:
      return "ReduceMean";
    case ReduceKind::Max:
      return "ReduceMax";
    case ReduceKind::Min:
      return "ReduceMin";
    case ReduceKind::Prod:
      return "ReduceProd";
    case ReduceKind::L1:
      return "ReduceL1";
    case ReduceKind::L2:
      return "ReduceL2";
    case ReduceKind::LogSum:
      return "ReduceLogSum";
    case ReduceKind::LogSumExp:
      return "ReduceLogSumExp";
    case ReduceKind::SumSquare:
      return "ReduceSumSquare";
  }
  return "Reduce";
}

Attributes Reduce::attributes() const {
  Attributes attrs;
  if (axes_) {
    std::string text;
    for (size_t i = 0; i < axes_->size(); i++) text += (i ? "," : "") + std::to_string((*axes_)[i]);
    attrs.emplace_back("axes", text);
  }
  attrs.emplace_back("keepdims", keepdims_ ? "1" : "0");
  if (noop_) attrs.emplace_back("noop_with_empty_axes", "1");
  return attrs;
}

std::optional<std::vector<size_t>> Reduce::resolve_axes(
    const std::optional<std::vector<int64_t>>& axes, size_t rank) const {
  std::vector<size_t> out;
  if (!axes || axes->empty()) {
    // Axes given as an (absent or empty) input honour noop_with_empty_axes.
    if (noop_ && !axes_) return std::nullopt;
    for (size_t i = 0; i < rank; i++) out.push_back(i);
    return out;
  }
  for (int64_t a : *axes) out.push_back(normalize_axis(a, rank, name()));
  std::sort(out.begin(), out.end());
  KILN_ENSURE(std::adjacent_find(out.begin(), out.end()) == out.end(), "{}: repeated axis", name());
  return out;
}

std::vector<Fact> Reduce::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 1, axes_ ? 1 : 2);
  const Fact& data = required(inputs, 0, name());
  // ReduceMax / ReduceMin take bools since opset 20 (any / all).
  bool bool_ok =
      data.dt == DatumType::Bool && (kind_ == ReduceKind::Max || kind_ == ReduceKind::Min);
  KILN_ENSURE(is_numeric(data.dt) || bool_ok, "{}: unsupported input type {}", name(),
              name_of(data.dt));
  std::optional<std::vector<int64_t>> axes = axes_;
  if (!axes_ && inputs.size() > 1 && inputs[1]) {
    const Fact& a = *inputs[1];
    KILN_ENSURE(a.dt == DatumType::I64 || a.dt == DatumType::I32, "{}: axes must be int64, got {}",
                name(), name_of(a.dt));
    KILN_ENSURE(a.rank() == 1, "{}: axes must be 1-D, got rank {}", name(), a.rank());
    axes = a.known_i64_values();
    if (!axes && a.shape[0] == Dim(0)) axes = std::vector<int64_t>{};
    if (!axes) {
      // Which axes go away is only known at run time: keep the rank, the dims are unknown.
      // Without keepdims, the rank is still known when the number of axes is.
      std::optional<int64_t> count = a.shape[0].as_int();
      KILN_ENSURE(keepdims_ || count,
                  "{}: axes are not constant and their number is unknown with keepdims=0, so "
                  "the output rank cannot be inferred",
                  name());
      std::vector<Dim> shape;
      if (keepdims_) {
        for (const Dim& d : data.shape) shape.push_back(d == Dim(1) ? Dim(1) : Dim::fresh());
      } else {
        KILN_ENSURE(*count <= static_cast<int64_t>(data.rank()),
                    "{}: {} axes for an input of rank {}", name(), *count, data.rank());
        for (size_t i = 0; i < data.rank() - static_cast<size_t>(*count); i++)
          shape.push_back(Dim::fresh());
      }
      return {Fact(data.dt, std::move(shape))};
    }
  }
  auto resolved = resolve_axes(axes, data.rank());
  if (!resolved) return {Fact(data.dt, data.shape)};
  std::vector<Dim> shape;
  for (size_t i = 0; i < data.rank(); i++) {
    bool reduced = std::find(resolved->begin(), resolved->end(), i) != resolved->end();
    if (!reduced)
      shape.push_back(data.shape[i]);
    else if (keepdims_)
      shape.emplace_back(1);
  }
  return {Fact(data.dt, std::move(shape))};
}

namespace {

template <typename T>
using AccOf =
    std::conditional_t<std::is_floating_point_v<T> || std::is_same_v<T, f16> ||
                           std::is_same_v<T, bf16>,
                       double, std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>>;

template <typename T>
T reduced_from_double(double v) {
  if constexpr (std::is_same_v<T, f16> || std::is_same_v<T, bf16>) {
    return T(static_cast<float>(v));
  } else if constexpr (std::is_integral_v<T>) {
    return saturate_int<T>(v);  // the empty max / min (-inf / +inf): the type's lowest / highest
  } else {
    return static_cast<T>(v);
  }
}

// Integer sums and products wrap like two's complement (as ONNX Runtime's integer reductions),
// computed on uint64_t: a signed overflow was undefined behaviour (fuzz finding 28).
template <typename Acc>
Acc wrap_add(Acc a, Acc b) {
  if constexpr (std::is_integral_v<Acc>) {
    return static_cast<Acc>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
  } else {
    return a + b;
  }
}
template <typename Acc>
Acc wrap_mul(Acc a, Acc b) {
  if constexpr (std::is_integral_v<Acc>) {
    return static_cast<Acc>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
  } else {
    return a * b;
  }
}

template <typename T>
void reduce_typed(EvalContext& ctx, ReduceKind kind, const Tensor& in, const Shape& out_strides,
                  Tensor& out) {
  using Acc = AccOf<T>;
  constexpr bool kFloat = std::is_same_v<Acc, double>;
  const T* x = in.data<T>();
  T* y = out.data<T>();
  int64_t n_out = out.numel();
  int64_t count = n_out > 0 ? in.numel() / n_out : 0;
  // Scratch and fixed strides: no allocation per run up to kSmallRank dims.
  Acc* acc = ctx.scratch<Acc>(static_cast<size_t>(n_out));
  Acc init = 0;
  if (kind == ReduceKind::Prod) init = 1;
  if (kind == ReduceKind::Max || kind == ReduceKind::LogSumExp)
    init = kFloat ? -std::numeric_limits<Acc>::infinity()
                  : static_cast<Acc>(std::numeric_limits<T>::lowest());
  if (kind == ReduceKind::Min)
    init = kFloat ? std::numeric_limits<Acc>::infinity()
                  : static_cast<Acc>(std::numeric_limits<T>::max());
  std::fill(acc, acc + n_out, init);
  std::array<std::array<int64_t, kSmallRank>, 1> small{};
  std::array<std::vector<int64_t>, 1> large;
  if (in.rank() <= kSmallRank)
    std::copy(out_strides.begin(), out_strides.end(), small[0].begin());
  else
    large[0] = out_strides;
  auto each = [&](auto&& g) {
    if (in.rank() <= kSmallRank)
      for_each_broadcast<1>(in.shape(), small, g);
    else
      for_each_broadcast<1>(in.shape(), large, g);
  };
  auto visit = [&](auto&& f) {
    each([&](int64_t i, const std::array<int64_t, 1>& o) { f(acc[o[0]], static_cast<Acc>(x[i])); });
  };
  switch (kind) {
    case ReduceKind::Sum:
    case ReduceKind::Mean:
    case ReduceKind::LogSum:
      visit([](Acc& a, Acc v) { a = wrap_add(a, v); });
      break;
    case ReduceKind::Prod:
      visit([](Acc& a, Acc v) { a = wrap_mul(a, v); });
      break;
    case ReduceKind::Max:  // NaN propagates, as in numpy.
      visit([](Acc& a, Acc v) { a = v > a || v != v ? v : a; });
      break;
    case ReduceKind::Min:
      visit([](Acc& a, Acc v) { a = v < a || v != v ? v : a; });
      break;
    case ReduceKind::L1:
      visit([](Acc& a, Acc v) {
        if constexpr (std::is_signed_v<Acc>)
          a = wrap_add(a, v < 0 ? wrap_mul(v, Acc(-1)) : v);
        else
          a = wrap_add(a, v);
      });
      break;
    case ReduceKind::L2:
    case ReduceKind::SumSquare:
      visit([](Acc& a, Acc v) { a = wrap_add(a, wrap_mul(v, v)); });
      break;
    case ReduceKind::LogSumExp: {
      // Max first, so exp never overflows.
      visit([](Acc& a, Acc v) { a = v > a ? v : a; });
      double* sum = ctx.scratch<double>(static_cast<size_t>(n_out));
      std::fill(sum, sum + n_out, 0.0);
      each([&](int64_t i, const std::array<int64_t, 1>& o) {
        double m = static_cast<double>(acc[o[0]]);
        if (std::isfinite(m)) sum[o[0]] += std::exp(static_cast<double>(x[i]) - m);
      });
      for (int64_t j = 0; j < n_out; j++) {
        double m = static_cast<double>(acc[j]);
        double r = std::isfinite(m) ? m + std::log(sum[j]) : m;
        y[j] = reduced_from_double<T>(r);
      }
      return;
    }
  }
  for (int64_t j = 0; j < n_out; j++) {
    double r = static_cast<double>(acc[j]);
    switch (kind) {
      case ReduceKind::Mean:
        if constexpr (kFloat)
          r = r / static_cast<double>(count);
        else
          r = count ? static_cast<double>(acc[j] / static_cast<Acc>(count)) : 0.0;
        break;
      case ReduceKind::L2:
        r = std::sqrt(r);
        break;
      case ReduceKind::LogSum:
        r = std::log(r);
        break;
      default:
        if constexpr (!kFloat) {
          // Integer results stay exact.
          y[j] = static_cast<T>(acc[j]);
          continue;
        }
        break;
    }
    y[j] = reduced_from_double<T>(r);
  }
}

// f32 Sum / Mean / SumSquare / L2 / Max / Min over one run of consecutive axes -- [outer, red,
// inner] -- in tight loops: rows of `red` contiguous values when inner == 1 (a global average
// pool written as ReduceMean over H, W; statistics over the last axis), columns summed across
// `red` rows of `inner` values otherwise (a mean over the channels). Sums in double as the
// general loop does (only the order differs: far below the f32 result's rounding); Max / Min in
// f32 (exact in any order). False, nothing written, when a Max / Min meets a NaN (the general
// loop then decides which NaN) or for other kinds. `acc`: `inner` doubles of scratch (the
// column sums).
bool reduce_f32_runs(ReduceKind kind, const float* x, int64_t outer, int64_t red, int64_t inner,
                     float* y, double* acc) {
  const bool sums = kind == ReduceKind::Sum || kind == ReduceKind::Mean ||
                    kind == ReduceKind::SumSquare || kind == ReduceKind::L2;
  const bool extreme = kind == ReduceKind::Max || kind == ReduceKind::Min;
  if ((!sums && !extreme) || red <= 0) return false;
  const bool square = kind == ReduceKind::SumSquare || kind == ReduceKind::L2;
  auto finish = [&](double s) {
    if (kind == ReduceKind::Mean) s /= static_cast<double>(red);
    if (kind == ReduceKind::L2) s = std::sqrt(s);
    return static_cast<float>(s);
  };
  if (inner == 1) {
    for (int64_t o = 0; o < outer; o++) {
      const float* r = x + o * red;
      if (sums) {
        double a[4] = {0, 0, 0, 0};
        int64_t i = 0;
        for (; i + 4 <= red; i += 4)
          for (int t = 0; t < 4; t++) {
            const double v = r[i + t];
            a[t] += square ? v * v : v;
          }
        for (; i < red; i++) a[0] += square ? double(r[i]) * r[i] : double(r[i]);
        y[o] = finish((a[0] + a[1]) + (a[2] + a[3]));
      } else {
        float m = r[0];
        bool nan = false;
        for (int64_t i = 0; i < red; i++) {
          const float v = r[i];
          nan |= v != v;
          m = kind == ReduceKind::Max ? (v > m ? v : m) : (v < m ? v : m);
        }
        if (nan) return false;
        y[o] = m;
      }
    }
    return true;
  }
  for (int64_t o = 0; o < outer; o++) {
    const float* block = x + o * red * inner;
    float* yo = y + o * inner;
    if (sums) {
      std::fill(acc, acc + inner, 0.0);
      for (int64_t r = 0; r < red; r++) {
        const float* row = block + r * inner;
        for (int64_t i = 0; i < inner; i++) {
          const double v = row[i];
          acc[i] += square ? v * v : v;
        }
      }
      for (int64_t i = 0; i < inner; i++) yo[i] = finish(acc[i]);
    } else {
      bool nan = false;
      for (int64_t i = 0; i < inner; i++) yo[i] = block[i];
      for (int64_t r = 0; r < red; r++) {
        const float* row = block + r * inner;
        for (int64_t i = 0; i < inner; i++) {
          const float v = row[i];
          nan |= v != v;
          yo[i] = kind == ReduceKind::Max ? (v > yo[i] ? v : yo[i]) : (v < yo[i] ? v : yo[i]);
        }
      }
      if (nan) return false;
    }
  }
  return true;
}

}  // namespace

void Reduce::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& data = required(inputs, 0, name());
  const size_t rank = data.rank();
  // The axes as resolve_axes resolves them, in reusable shapes: no allocation per run.
  Shape& axes = ctx.temp_shape(1);
  bool given = false;
  if (axes_) {
    axes.assign(axes_->begin(), axes_->end());
    given = true;
  } else if (inputs.size() > 1 && inputs[1]) {
    for (int64_t i = 0; i < inputs[1]->numel(); i++) axes.push_back(inputs[1]->value_as_i64(i));
    given = true;
  }
  if (!given || axes.empty()) {
    // Axes given as an (absent or empty) input honour noop_with_empty_axes: no axis is
    // reduced, each element is its own group -- the input itself, or its |x|, x^2, log x for
    // the reductions that transform what they sum (as ONNX's reference and ONNX Runtime do).
    const bool transforms = kind_ == ReduceKind::L1 || kind_ == ReduceKind::L2 ||
                            kind_ == ReduceKind::LogSum || kind_ == ReduceKind::SumSquare;
    if (noop_ && !axes_ && !transforms) {
      ctx.set_output_view(0, data, data.shape());
      return;
    }
    axes.clear();
    if (!(noop_ && !axes_))
      for (size_t i = 0; i < rank; i++) axes.push_back(static_cast<int64_t>(i));
  } else {
    for (int64_t& a : axes) a = static_cast<int64_t>(normalize_axis(a, rank, name()));
    std::sort(axes.begin(), axes.end());
    KILN_ENSURE(std::adjacent_find(axes.begin(), axes.end()) == axes.end(), "{}: repeated axis",
                name());
  }
  Shape& kept = ctx.temp_shape(2);
  kept.assign(data.shape().begin(), data.shape().end());
  for (int64_t a : axes) kept[static_cast<size_t>(a)] = 1;
  Shape& strides = ctx.temp_shape(3);
  strides.assign(rank, 0);
  int64_t stride = 1;
  for (size_t d = rank; d-- > 0;) {
    strides[d] = stride;
    // An empty input may declare dims whose kept product overflows (fuzz finding 28).
    KILN_ENSURE(!__builtin_mul_overflow(stride, kept[d], &stride), "{}: output of {} is too large",
                name(), shape_to_string(kept));
  }
  for (int64_t a : axes) strides[static_cast<size_t>(a)] = 0;
  Shape& out_shape = ctx.temp_shape(0);
  for (size_t i = 0; i < rank; i++)
    if (keepdims_ || std::find(axes.begin(), axes.end(), static_cast<int64_t>(i)) == axes.end())
      out_shape.push_back(kept[i]);
  Tensor& out = ctx.output(0, data.dtype(), out_shape);
  if (data.dtype() == DatumType::Bool) {  // Max / Min on bools: on their bytes, 0 or 1
    KILN_ENSURE(kind_ == ReduceKind::Max || kind_ == ReduceKind::Min,
                "{}: unsupported input type bool", name());
    Tensor in_bytes, out_bytes;
    in_bytes.assign_view(data, 0, DatumType::U8, data.shape());
    out_bytes.assign_view(out, 0, DatumType::U8, out.shape());
    reduce_typed<uint8_t>(ctx, kind_, in_bytes, strides, out_bytes);
    return;
  }
  // One run of consecutive reduced axes of an f32 input: the tight loops.
  if (data.dtype() == DatumType::F32 && !axes.empty() && out.numel() > 0 &&
      axes.back() - axes.front() + 1 == static_cast<int64_t>(axes.size())) {
    int64_t outer = 1, red = 1, inner = 1;
    for (size_t d = 0; d < rank; d++) {
      const auto a = static_cast<int64_t>(d);
      (a < axes.front() ? outer : a > axes.back() ? inner : red) *= data.dim(d);
    }
    if (reduce_f32_runs(kind_, data.data<float>(), outer, red, inner, out.data<float>(),
                        ctx.scratch<double>(static_cast<size_t>(inner))))
      return;
  }
  dispatch_numeric(data.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    reduce_typed<T>(ctx, kind_, data, strides, out);
  });
}

Cost Reduce::cost(const FactRefs& inputs) const {
  const Fact& data = required(inputs, 0, name());
  Cost c;
  auto outs = output_facts(inputs);
  switch (kind_) {
    case ReduceKind::LogSumExp:
      c.other = data.volume() + outs[0].volume();
      break;
    case ReduceKind::Mean:
    case ReduceKind::L2:
    case ReduceKind::LogSum:
      c.other = outs[0].volume();
      break;
    default:
      break;
  }
  return c;
}

}  // namespace kiln::ops
