#include "ops/pulse/pulse_delay.h"

#include <cstring>

#include "base/error.h"
#include "ops/pulse/frames.h"

namespace kiln::ops {

namespace {

struct DelayState : OpState {
  Tensor buffer;  // [outer, delay + overlap, inner]: the last frames seen (initially `init`)
};

}  // namespace

Attributes PulseDelay::attributes() const {
  return {{"axis", std::to_string(axis_)},
          {"delay", std::to_string(delay_)},
          {"overlap", std::to_string(overlap_)},
          {"init", fmt::format("{}", init_)}};
}

std::vector<Fact> PulseDelay::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 1, 1);
  const Fact& x = required(inputs, 0, name());
  KILN_ENSURE(axis_ < x.rank(), "PulseDelay: axis {} out of range for [{}]", axis_,
              dims_to_string(x.shape));
  KILN_ENSURE(delay_ >= 0 && overlap_ >= 0, "PulseDelay: negative delay or overlap");
  Fact out(x.dt, x.shape);
  out.shape[axis_] = x.shape[axis_] + Dim(overlap_);
  return {out};
}

Dim PulseDelay::state_bytes(const Fact& input) const {
  Dim frame = Dim(static_cast<int64_t>(size_of(input.dt)));
  for (size_t i = 0; i < input.rank(); i++)
    if (i != axis_) frame = frame * input.shape[i];
  return frame * Dim(delay_ + overlap_);
}

std::unique_ptr<OpState> PulseDelay::make_state(const FactRefs&) const {
  return std::make_unique<DelayState>();
}

void PulseDelay::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& x = required(inputs, 0, "PulseDelay");
  auto& st = ctx.op_state<DelayState>(*this);
  const int64_t keep = delay_ + overlap_;
  pulse::FrameLayout l = pulse::frame_layout(x.shape(), axis_, x.dtype());
  const int64_t p = l.frames;
  if (st.buffer.is_null() || st.buffer.dtype() != x.dtype() ||
      st.buffer.numel() !=
          l.outer * keep * static_cast<int64_t>(l.frame_bytes / size_of(x.dtype()))) {
    Shape bs = x.shape();
    bs[axis_] = keep;
    st.buffer = Tensor(x.dtype(), bs);
    pulse::fill_value(st.buffer.raw_data(), st.buffer.nbytes(), x.dtype(), init_);
  }
  Shape& ys = ctx.temp_shape(0);
  ys.assign(x.shape().begin(), x.shape().end());
  ys[axis_] = p + overlap_;
  Tensor& y = ctx.output(0, x.dtype(), ys);
  const size_t fb = l.frame_bytes;
  const char* xs = static_cast<const char*>(x.raw_data());
  char* bs = static_cast<char*>(st.buffer.raw_data());
  char* yd = static_cast<char*>(y.raw_data());
  for (int64_t o = 0; o < l.outer; o++) {
    const char* xo = xs + static_cast<size_t>(o * p) * fb;
    char* bo = bs + static_cast<size_t>(o * keep) * fb;
    char* yo = yd + static_cast<size_t>(o * (p + overlap_)) * fb;
    // The stream [buffer (keep frames), x (p frames)]: y takes its first p + overlap frames.
    const int64_t from_buffer = std::min<int64_t>(keep, p + overlap_);
    std::memcpy(yo, bo, static_cast<size_t>(from_buffer) * fb);
    if (p + overlap_ > keep)
      std::memcpy(yo + static_cast<size_t>(keep) * fb, xo,
                  static_cast<size_t>(p + overlap_ - keep) * fb);
    // The buffer keeps the stream's last `keep` frames.
    if (keep == 0) continue;
    if (p >= keep) {
      std::memcpy(bo, xo + static_cast<size_t>(p - keep) * fb, static_cast<size_t>(keep) * fb);
    } else {
      std::memmove(bo, bo + static_cast<size_t>(p) * fb, static_cast<size_t>(keep - p) * fb);
      std::memcpy(bo + static_cast<size_t>(keep - p) * fb, xo, static_cast<size_t>(p) * fb);
    }
  }
}

}  // namespace kiln::ops
