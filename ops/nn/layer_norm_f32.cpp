#include "ops/nn/layer_norm_f32.h"

#include <array>

#include "base/error.h"
#include "base/threading.h"
#include "core/broadcast.h"
#include "kernels/norm/norm.h"

namespace kiln::ops {

namespace {

std::vector<float> expand(const Tensor& p, const Shape& normalized) {
  std::vector<float> v(static_cast<size_t>(shape_numel(normalized)));
  const float* pd = p.data<float>();
  for_each_broadcast<1>(normalized, {broadcast_strides(p.shape(), normalized)},
                        [&](int64_t i, const std::array<int64_t, 1>& off) {
                          v[static_cast<size_t>(i)] = pd[off[0]];
                        });
  return v;
}

}  // namespace

LayerNormF32::LayerNormF32(std::shared_ptr<const LayerNorm> reference, size_t axis,
                           const Shape& normalized, const Tensor& scale, const Tensor* bias)
    : reference_(std::move(reference)), axis_(axis), epsilon_(reference_->epsilon()) {
  KILN_ENSURE(scale.dtype() == DatumType::F32 && (!bias || bias->dtype() == DatumType::F32),
              "LayerNormF32: scale and bias must be f32");
  gamma_ = expand(scale, normalized);
  if (bias) beta_ = expand(*bias, normalized);
}

void LayerNormF32::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& x = required(inputs, 0, name());
  const int64_t n = static_cast<int64_t>(gamma_.size());
  int64_t normalized = 1;  // values per row: the product of the dims from axis_ on
  for (size_t i = std::min(axis_, x.rank()); i < x.rank(); i++) normalized *= x.dim(i);
  KILN_ENSURE(x.dtype() == DatumType::F32 && x.rank() >= axis_ && normalized == n,
              "{}: input must be f32 with {} values from axis {}, got {} [{}]", name(), n, axis_,
              name_of(x.dtype()), shape_to_string(x.shape()));
  Tensor& y = ctx.output(0, DatumType::F32, x.shape());
  Shape& stat_shape = ctx.temp_shape(0);  // reused: no allocation per run
  stat_shape.assign(x.shape().begin(), x.shape().end());
  for (size_t i = axis_; i < stat_shape.size(); i++) stat_shape[i] = 1;
  float* mean =
      ctx.num_outputs() > 1 ? ctx.output(1, DatumType::F32, stat_shape).data<float>() : nullptr;
  float* inv =
      ctx.num_outputs() > 2 ? ctx.output(2, DatumType::F32, stat_shape).data<float>() : nullptr;
  if (x.numel() == 0 || n == 0) return;
  const int64_t rows = x.numel() / n;
  const float* xd = x.data<float>();
  float* yd = y.data<float>();
  const float* beta = beta_.empty() ? nullptr : beta_.data();
  const auto& k = kernels::norm_kernels();
  parallel_for_work(rows, n, [&](int64_t begin, int64_t end) {
    k.layer_norm(xd + begin * n, gamma_.data(), beta, epsilon_, yd + begin * n,
                 mean ? mean + begin : nullptr, inv ? inv + begin : nullptr, end - begin, n);
  });
}

}  // namespace kiln::ops
