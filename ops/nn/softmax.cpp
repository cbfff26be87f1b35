#include "ops/nn/softmax.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "base/error.h"
#include "ops/nn/softmax_f32.h"

namespace kiln::ops {

std::string Softmax::name() const {
  switch (kind_) {
    case SoftmaxKind::Softmax:
      return "Softmax";
    case SoftmaxKind::LogSoftmax:
      return "LogSoftmax";
    case SoftmaxKind::Hardmax:
      return "Hardmax";
  }
  return "Softmax";
}

Attributes Softmax::attributes() const {
  Attributes attrs{{"axis", std::to_string(axis_)}};
  if (coerce_2d_) attrs.emplace_back("coerce_2d", "1");
  return attrs;
}

std::vector<Fact> Softmax::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 1, 1);
  const Fact& x = required(inputs, 0, name());
  KILN_ENSURE(is_float(x.dt), "{}: input must be a float tensor, got {}", name(), name_of(x.dt));
  if (coerce_2d_) {
    // The legacy form also accepts axis == rank (a row of one... empty product) per the spec.
    int64_t r = static_cast<int64_t>(x.rank());
    KILN_ENSURE(axis_ >= -r && axis_ <= r, "{}: axis {} out of range for rank {}", name(), axis_,
                r);
  } else {
    normalize_axis(axis_, x.rank(), name());
  }
  return {Fact(x.dt, x.shape)};
}

std::vector<double> tensor_to_doubles(const Tensor& t) {
  std::vector<double> out(static_cast<size_t>(t.numel()));
  dispatch_numeric(t.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* p = t.data<T>();
    for (size_t i = 0; i < out.size(); i++) out[i] = static_cast<double>(p[i]);
  });
  return out;
}

void softmax_rows(const double* x, double* y, int64_t outer, int64_t n, int64_t inner, bool log) {
  for (int64_t o = 0; o < outer; o++) {
    for (int64_t i = 0; i < inner; i++) {
      const double* p = x + o * n * inner + i;
      double* q = y + o * n * inner + i;
      double m = -std::numeric_limits<double>::infinity();
      for (int64_t k = 0; k < n; k++) m = std::max(m, p[k * inner]);
      double sum = 0;
      for (int64_t k = 0; k < n; k++) sum += std::exp(p[k * inner] - m);
      double lse = std::log(sum);
      for (int64_t k = 0; k < n; k++)
        q[k * inner] = log ? p[k * inner] - m - lse : std::exp(p[k * inner] - m) / sum;
    }
  }
}

void Softmax::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& x = required(inputs, 0, name());
  size_t rank = x.rank();
  Tensor& out = ctx.output(0, x.dtype(), x.shape());
  // Nothing to compute (and the products of huge declared dims around an empty one need not fit).
  if (out.numel() == 0) return;
  int64_t outer = 1, n = 1, inner = 1;
  if (coerce_2d_) {
    size_t axis = axis_ < 0 ? static_cast<size_t>(axis_ + static_cast<int64_t>(rank))
                            : static_cast<size_t>(axis_);
    for (size_t i = 0; i < rank; i++) (i < axis ? outer : n) *= x.dim(i);
  } else {
    size_t axis = normalize_axis(axis_, rank, name());
    n = x.dim(axis);
    for (size_t i = 0; i < axis; i++) outer *= x.dim(i);
    for (size_t i = axis + 1; i < rank; i++) inner *= x.dim(i);
  }
  int64_t total = x.numel();
  // Scratch, not vectors: no allocation per run.
  double* in = ctx.scratch<double>(static_cast<size_t>(total));
  double* res = ctx.scratch<double>(static_cast<size_t>(total));
  dispatch_numeric(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* xs = x.data<T>();
    for (int64_t i = 0; i < total; i++) {
      if constexpr (std::is_same_v<T, f16> || std::is_same_v<T, bf16>)
        in[i] = static_cast<float>(xs[i]);
      else
        in[i] = static_cast<double>(xs[i]);
    }
  });
  if (kind_ == SoftmaxKind::Hardmax) {
    for (int64_t o = 0; o < outer; o++) {
      for (int64_t i = 0; i < inner; i++) {
        int64_t base = o * n * inner + i, best = 0;
        for (int64_t k = 0; k < n; k++) {
          if (in[base + k * inner] > in[base + best * inner]) best = k;
          res[base + k * inner] = 0;
        }
        if (n > 0) res[base + best * inner] = 1;
      }
    }
  } else {
    softmax_rows(in, res, outer, n, inner, kind_ == SoftmaxKind::LogSoftmax);
  }
  dispatch_numeric(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* y = out.data<T>();
    for (int64_t i = 0; i < total; i++) {
      if constexpr (std::is_same_v<T, f16> || std::is_same_v<T, bf16>)
        y[i] = T(static_cast<float>(res[i]));
      else
        y[i] = static_cast<T>(res[i]);
    }
  });
}

Cost Softmax::cost(const FactRefs& inputs) const {
  const Fact& x = required(inputs, 0, name());
  Cost c;
  if (kind_ != SoftmaxKind::Hardmax) c.other = x.volume();
  return c;
}

OpPtr Softmax::codegen(const FactRefs& inputs) const {
  if (inputs.size() != 1 || !inputs[0] || inputs[0]->dt != DatumType::F32) return nullptr;
  if (kind_ == SoftmaxKind::Hardmax) return nullptr;
  const int64_t rank = static_cast<int64_t>(inputs[0]->rank());
  if (rank == 0) return nullptr;
  size_t row_axis;
  if (coerce_2d_) {
    if (axis_ < -rank || axis_ > rank) return nullptr;
    row_axis = static_cast<size_t>(axis_ < 0 ? axis_ + rank : axis_);
  } else {
    // The last axis: contiguous rows; another axis: vectors along the dims after it.
    const size_t axis = normalize_axis(axis_, inputs[0]->rank(), name());
    if (axis != static_cast<size_t>(rank - 1))
      return std::make_shared<SoftmaxF32>(std::make_shared<Softmax>(*this), axis,
                                          kind_ == SoftmaxKind::LogSoftmax, true);
    row_axis = static_cast<size_t>(rank - 1);
  }
  return std::make_shared<SoftmaxF32>(std::make_shared<Softmax>(*this), row_axis,
                                      kind_ == SoftmaxKind::LogSoftmax);
}

}  // namespace kiln::ops
