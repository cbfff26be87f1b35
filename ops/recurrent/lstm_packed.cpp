#include "ops/recurrent/lstm_packed.h"

#include <algorithm>

#include "core/error.h"
#include "kernels/elementwise/vec_math.h"

namespace kiln::ops {

LstmPacked::LstmPacked(std::shared_ptr<const Lstm> reference, const Tensor& w, const Tensor& r,
                       const Tensor* bias, const Tensor* peepholes)
    : reference_(std::move(reference)) {
  KILN_ENSURE(
      w.dtype() == DatumType::F32 && r.dtype() == DatumType::F32 && w.rank() == 3 && r.rank() == 3,
      "LstmPacked: W and R must be f32 of rank 3");
  kernel_ = &kernels::default_micro_kernel();
  const int64_t nd = w.dim(0);
  hidden_ = r.dim(2);
  input_ = w.dim(2);
  const int64_t gh = 4 * hidden_;
  KILN_ENSURE(w.dim(1) == gh && r.dim(0) == nd && r.dim(1) == gh,
              "LstmPacked: W [{}] and R [{}] do not describe an LSTM", shape_to_string(w.shape()),
              shape_to_string(r.shape()));
  for (int64_t d = 0; d < nd; d++) {
    Direction dir;
    const float* wd = w.data<float>() + d * gh * input_;
    // Column j of W^T (gate j) at wd[j * input + kk].
    dir.w = std::make_shared<kernels::PackedMatrix>(wd, gh, input_, input_, 1, kernel_->nr);
    dir.bias.assign(static_cast<size_t>(gh), 0.0f);
    if (bias) {
      const float* b = bias->data<float>() + d * 2 * gh;
      for (int64_t g = 0; g < gh; g++) dir.bias[g] = b[g] + b[gh + g];
    }
    const float* rd = r.data<float>() + d * gh * hidden_;
    dir.r_t.resize(static_cast<size_t>(hidden_ * gh));
    for (int64_t g = 0; g < gh; g++) {
      for (int64_t j = 0; j < hidden_; j++) dir.r_t[j * gh + g] = rd[g * hidden_ + j];
    }
    if (peepholes) {
      const float* p = peepholes->data<float>() + d * 3 * hidden_;
      dir.peepholes.assign(p, p + 3 * hidden_);
    }
    dirs_.push_back(std::move(dir));
  }
}

void LstmPacked::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& x = required(inputs, 0, name());
  const bool batch_first = reference_->config().layout == 1;
  KILN_ENSURE(x.dtype() == DatumType::F32 && x.rank() == 3 && x.dim(2) == input_,
              "LstmPacked: X must be f32 [.., .., {}], got [{}]", input_,
              shape_to_string(x.shape()));
  const int64_t nd = static_cast<int64_t>(dirs_.size());
  const int64_t H = hidden_, GH = 4 * H;
  const int64_t S = batch_first ? x.dim(1) : x.dim(0);
  const int64_t B = batch_first ? x.dim(0) : x.dim(1);
  const Shape state_shape = batch_first ? Shape{B, nd, H} : Shape{nd, B, H};
  auto state_index = [&](int64_t d, int64_t b) {
    return batch_first ? (b * nd + d) * H : (d * B + b) * H;
  };
  auto opt = [&](size_t i) -> const Tensor* { return i < inputs.size() ? inputs[i] : nullptr; };
  for (size_t i : {5u, 6u}) {
    if (const Tensor* t = opt(i)) {
      KILN_ENSURE(t->dtype() == DatumType::F32 && t->shape() == state_shape,
                  "LSTM: initial state should be [{}], got [{}]", shape_to_string(state_shape),
                  shape_to_string(t->shape()));
    }
  }
  const Shape y_shape = batch_first ? Shape{B, S, nd, H} : Shape{S, nd, B, H};
  Tensor* y = ctx.num_outputs() > 0 ? &ctx.output(0, DatumType::F32, y_shape) : nullptr;
  Tensor* yh = ctx.num_outputs() > 1 ? &ctx.output(1, DatumType::F32, state_shape) : nullptr;
  Tensor* yc = ctx.num_outputs() > 2 ? &ctx.output(2, DatumType::F32, state_shape) : nullptr;
  const kernels::VecMath& vm = kernels::vec_math();

  thread_local std::vector<float> xw, gates, h, c;
  xw.resize(static_cast<size_t>(S * B * GH));
  gates.resize(static_cast<size_t>(GH));
  h.resize(static_cast<size_t>(H));
  c.resize(static_cast<size_t>(H));
  for (int64_t d = 0; d < nd; d++) {
    const Direction& dir = dirs_[static_cast<size_t>(d)];
    // Input projection for every (step, batch) row of X in its own order, in one product.
    kernels::Epilogue ep;
    ep.col_bias = dir.bias.data();
    kernels::StridedSource a(x.data<float>(), S * B, input_, input_, 1, kernel_->mr);
    // The recurrent loop below is serial; the projection is split over threads only when it is
    // large (a keyword spotter's 100 steps x 512 gates x 128 inputs, 6.5M FMAs, ~0.1 ms, is not):
    // for small products the worker's wake-up and spinning cost more CPU than the split saves,
    // and on a loaded machine waiting for a descheduled worker stalls the whole step loop.
    const int threads = S * B * GH * input_ >= (int64_t{1} << 25) ? 0 : 1;
    kernels::mmm(*kernel_, S * B, GH, input_, a, *dir.w, ep, xw.data(), GH, threads);
    const bool reverse = reference_->config().direction == RnnDirection::Reverse || d == 1;
    for (int64_t b = 0; b < B; b++) {
      if (const Tensor* t = opt(5)) {
        std::copy_n(t->data<float>() + state_index(d, b), H, h.begin());
      } else {
        std::fill(h.begin(), h.end(), 0.0f);
      }
      if (const Tensor* t = opt(6)) {
        std::copy_n(t->data<float>() + state_index(d, b), H, c.begin());
      } else {
        std::fill(c.begin(), c.end(), 0.0f);
      }
      for (int64_t k = 0; k < S; k++) {
        const int64_t t = reverse ? S - 1 - k : k;
        const int64_t row = batch_first ? b * S + t : t * B + b;
        vm.gemv(h.data(), dir.r_t.data(), xw.data() + row * GH, gates.data(), H, GH);
        vm.lstm_cell(gates.data(), dir.peepholes.empty() ? nullptr : dir.peepholes.data(), c.data(),
                     h.data(), H);
        if (y) {
          int64_t at = batch_first ? ((b * S + t) * nd + d) * H : ((t * nd + d) * B + b) * H;
          std::copy_n(h.begin(), H, y->data<float>() + at);
        }
      }
      if (yh) std::copy_n(h.begin(), H, yh->data<float>() + state_index(d, b));
      if (yc) std::copy_n(c.begin(), H, yc->data<float>() + state_index(d, b));
    }
  }
}

}  // namespace kiln::ops
