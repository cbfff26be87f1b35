#include "ops/recurrent/gru_packed.h"

#include <algorithm>

#include "base/error.h"

namespace kiln::ops {

GruPacked::GruPacked(std::shared_ptr<const Gru> reference, const Tensor& w, const Tensor& r,
                     const Tensor* bias)
    : reference_(std::move(reference)) {
  KILN_ENSURE(
      w.dtype() == DatumType::F32 && r.dtype() == DatumType::F32 && w.rank() == 3 && r.rank() == 3,
      "GruPacked: W and R must be f32 of rank 3");
  kernel_ = &kernels::default_micro_kernel();
  step_ = &kernels::gru_kernels();
  linear_before_reset_ = reference_->linear_before_reset();
  const int64_t nd = w.dim(0);
  hidden_ = r.dim(2);
  input_ = w.dim(2);
  const int64_t H = hidden_, gh = 3 * H, block = step_->block;
  blocks_ = kernels::lstm_blocks(H, block);
  const int64_t gp = 3 * blocks_ * block;  // gate columns, blocked and padded
  KILN_ENSURE(w.dim(1) == gh && r.dim(0) == nd && r.dim(1) == gh,
              "GruPacked: W [{}] and R [{}] do not describe a GRU", shape_to_string(w.shape()),
              shape_to_string(r.shape()));
  std::vector<float> w_blocked(static_cast<size_t>(gp * input_));
  for (int64_t d = 0; d < nd; d++) {
    Direction dir;
    const float* wd = w.data<float>() + d * gh * input_;
    const float* b = bias ? bias->data<float>() + d * 2 * gh : nullptr;
    dir.bias.assign(static_cast<size_t>(gp), 0.0f);
    dir.rbh.assign(static_cast<size_t>(blocks_ * block), 0.0f);
    for (int64_t col = 0; col < gp; col++) {
      const int64_t row = kernels::gru_gate_row(col, H, block);
      float* dst = w_blocked.data() + col * input_;
      if (row < 0) {
        std::fill_n(dst, input_, 0.0f);
        continue;
      }
      std::copy_n(wd + row * input_, input_, dst);
      if (!b) continue;
      // Rb_h stays inside r * (h R_h + Rb_h) when the reset applies after the product.
      const bool candidate = row >= 2 * H;
      if (candidate && linear_before_reset_) {
        dir.bias[col] = b[row];
        dir.rbh[static_cast<size_t>(col / (3 * block) * block + col % block)] = b[gh + row];
      } else {
        dir.bias[col] = b[row] + b[gh + row];
      }
    }
    // Column j of W^T (blocked gate column j) at w_blocked[j * input + kk].
    dir.w = std::make_shared<kernels::PackedMatrix>(w_blocked.data(), gp, input_, input_, 1,
                                                    kernel_->nr);
    dir.r = Tensor(DatumType::F32, {std::max<int64_t>(blocks_ * H * 3 * block, 1)});
    kernels::pack_gru_r(r.data<float>() + d * gh * H, H, block, dir.r.data<float>());
    dirs_.push_back(std::move(dir));
  }
}

void GruPacked::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& x = required(inputs, 0, name());
  const bool batch_first = reference_->config().layout == 1;
  KILN_ENSURE(x.dtype() == DatumType::F32 && x.rank() == 3 && x.dim(2) == input_,
              "GruPacked: X must be f32 [.., .., {}], got [{}]", input_,
              shape_to_string(x.shape()));
  const int64_t nd = static_cast<int64_t>(dirs_.size());
  const int64_t H = hidden_, block = step_->block, HP = blocks_ * block, GP = 3 * HP;
  const int64_t S = batch_first ? x.dim(1) : x.dim(0);
  const int64_t B = batch_first ? x.dim(0) : x.dim(1);
  // Reusable shapes: no allocation per run.
  Shape& state_shape = ctx.temp_shape(0);
  if (batch_first)
    state_shape = {B, nd, H};
  else
    state_shape = {nd, B, H};
  auto state_index = [&](int64_t d, int64_t b) {
    return batch_first ? (b * nd + d) * H : (d * B + b) * H;
  };
  const Tensor* initial = inputs.size() > 5 ? inputs[5] : nullptr;
  if (initial) {
    KILN_ENSURE(initial->dtype() == DatumType::F32 && initial->shape() == state_shape,
                "GRU: initial_h should be [{}], got [{}]", shape_to_string(state_shape),
                shape_to_string(initial->shape()));
  }
  Shape& y_shape = ctx.temp_shape(1);
  if (batch_first)
    y_shape = {B, S, nd, H};
  else
    y_shape = {S, nd, B, H};
  Tensor* y = ctx.num_outputs() > 0 ? &ctx.output(0, DatumType::F32, y_shape) : nullptr;
  Tensor* yh = ctx.num_outputs() > 1 ? &ctx.output(1, DatumType::F32, state_shape) : nullptr;

  // The projections of every row, h twice per (direction, batch item) (a step reads one and
  // writes the other), and z, rh for the two-pass form, each HP.
  float* xw = ctx.scratch<float>(static_cast<size_t>(std::max<int64_t>(nd * S * B * GP, 1)));
  float* hs = ctx.scratch<float>(static_cast<size_t>(nd * 2 * B * HP));
  float* zs = ctx.scratch<float>(static_cast<size_t>(2 * HP));
  float* rh = zs + HP;
  auto h_at = [&](int64_t d, int64_t k, int64_t b) { return hs + ((d * 2 + k % 2) * B + b) * HP; };
  for (int64_t d = 0; d < nd; d++) {
    for (int64_t b = 0; b < B; b++) {
      float* h = h_at(d, 0, b);
      std::fill_n(h, HP, 0.0f);  // padding units start (and stay) at 0
      if (initial) std::copy_n(initial->data<float>() + state_index(d, b), H, h);
    }
  }
  const int threads = S * B * GP * input_ >= (int64_t{1} << 25) ? 0 : 1;
  const kernels::MmmPlan plan =
      kernels::plan_mmm(*kernel_, S * B, GP, input_, false, true, threads);
  float* scratch = ctx.scratch<float>(plan.scratch_floats);
  for (int64_t d = 0; d < nd; d++) {
    if (S * B == 0) break;
    const Direction& dir = dirs_[static_cast<size_t>(d)];
    kernels::Epilogue ep;
    ep.col_bias = dir.bias.data();
    kernels::StridedSource a(x.data<float>(), S * B, input_, input_, 1, kernel_->mr);
    kernels::mmm(plan, a, *dir.w, ep, xw + d * S * B * GP, GP, scratch);
  }
  const RnnDirection direction = reference_->config().direction;
  for (int64_t k = 0; k < S; k++) {
    for (int64_t d = 0; d < nd; d++) {
      const Direction& dir = dirs_[static_cast<size_t>(d)];
      const float* r = dir.r.data<float>();
      const bool reverse = direction == RnnDirection::Reverse || d == 1;
      const int64_t step = reverse ? S - 1 - k : k;
      for (int64_t b = 0; b < B; b++) {
        const int64_t row = batch_first ? b * S + step : step * B + b;
        const float* xrow = xw + (d * S * B + row) * GP;
        const float* h = h_at(d, k, b);
        float* h_new = h_at(d, k + 1, b);
        if (linear_before_reset_) {
          step_->step_after(r, xrow, dir.rbh.data(), h, H, h_new, 0, blocks_);
        } else {
          step_->reset_gates(r, xrow, h, H, zs, rh, 0, blocks_);
          step_->candidate(r, xrow, rh, zs, h, H, h_new, 0, blocks_);
        }
        if (y) {
          const int64_t at =
              batch_first ? ((b * S + step) * nd + d) * H : ((step * nd + d) * B + b) * H;
          std::copy_n(h_new, H, y->data<float>() + at);
        }
      }
    }
  }
  if (yh) {
    for (int64_t d = 0; d < nd; d++) {
      for (int64_t b = 0; b < B; b++)
        std::copy_n(h_at(d, S, b), H, yh->data<float>() + state_index(d, b));
    }
  }
}

}  // namespace kiln::ops
