#include "ops/signal/stft.h"

#include <algorithm>
#include <vector>

#include "base/error.h"
#include "ops/signal/dft.h"

namespace kiln::ops {

namespace {
std::optional<int64_t> scalar_value(const Fact* f) {
  if (!f) return std::nullopt;
  auto v = f->known_i64_values();
  if (!v || v->size() != 1) return std::nullopt;
  return (*v)[0];
}
}  // namespace

std::vector<Fact> Stft::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 2, 4);
  const Fact& x = required(inputs, 0, name());
  KILN_ENSURE(is_float(x.dt) && x.rank() == 3, "STFT: signal must be float [batch, length, 1|2]");
  const Fact* window = inputs.size() > 2 ? inputs[2] : nullptr;
  const Fact* frame_length_fact = inputs.size() > 3 ? inputs[3] : nullptr;
  KILN_ENSURE(window || frame_length_fact, "STFT: needs a window or a frame_length");
  KILN_ENSURE(!window || window->rank() == 1, "STFT: window must be 1-D, got rank {}",
              window ? window->rank() : 0);
  Dim frame_length = window ? window->shape.at(0) : Dim::fresh();
  if (auto v = scalar_value(frame_length_fact)) frame_length = Dim(*v);
  Dim frames = Dim::fresh();
  required(inputs, 1, name());
  auto step = scalar_value(inputs[1]);
  if (step && *step > 0) frames = (x.shape[1] - frame_length).div(*step) + Dim(1);
  Dim bins = onesided_ ? frame_length.div(2) + Dim(1) : frame_length;
  return {Fact(x.dt, {x.shape[0], frames, bins, Dim(2)})};
}

void Stft::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& x = required(inputs, 0, name());
  int64_t step = required(inputs, 1, name()).value_as_i64(0);
  const Tensor* window = inputs.size() > 2 ? inputs[2] : nullptr;
  KILN_ENSURE(!window || window->rank() == 1, "STFT: window must be 1-D, got rank {}",
              window ? window->rank() : 0);
  int64_t frame_length = window ? window->dim(0) : 0;
  if (inputs.size() > 3 && inputs[3]) frame_length = inputs[3]->value_as_i64(0);
  KILN_ENSURE(step > 0, "STFT: frame_step must be positive, got {}", step);
  KILN_ENSURE(frame_length > 0 && frame_length <= x.dim(1),
              "STFT: frame_length {} must be in [1, signal length {}]", frame_length, x.dim(1));
  KILN_ENSURE(!window || window->dim(0) == frame_length,
              "STFT: window length {} != frame_length {}", window ? window->dim(0) : 0,
              frame_length);
  int64_t batch = x.dim(0), length = x.dim(1), channels = x.dim(2);
  int64_t frames = (length - frame_length) / step + 1;
  int64_t bins = onesided_ ? frame_length / 2 + 1 : frame_length;
  Tensor& out = ctx.output(0, x.dtype(), {batch, frames, bins, 2});
  Tensor xd = x.cast_to(DatumType::F64);
  Tensor wd = window ? window->cast_to(DatumType::F64) : Tensor();
  std::vector<double> re(static_cast<size_t>(frame_length)), im(static_cast<size_t>(frame_length));
  std::vector<double> ore(static_cast<size_t>(bins)), oim(static_cast<size_t>(bins));
  Tensor od(DatumType::F64, {batch, frames, bins, 2});
  const double* src = xd.data<double>();
  double* dst = od.data<double>();
  for (int64_t b = 0; b < batch; b++)
    for (int64_t f = 0; f < frames; f++) {
      for (int64_t n = 0; n < frame_length; n++) {
        const double* s = src + (b * length + f * step + n) * channels;
        double w = window ? wd.data<double>()[n] : 1.0;
        re[n] = s[0] * w;
        im[n] = channels == 2 ? s[1] * w : 0.0;
      }
      dft_1d(re.data(), im.data(), frame_length, 1, frame_length, false, ore.data(), oim.data(),
             bins, 1);
      for (int64_t k = 0; k < bins; k++) {
        dst[((b * frames + f) * bins + k) * 2] = ore[k];
        dst[((b * frames + f) * bins + k) * 2 + 1] = oim[k];
      }
    }
  Tensor cast = od.cast_to(x.dtype());
  std::copy_n(static_cast<const char*>(cast.raw_data()), cast.nbytes(),
              static_cast<char*>(out.raw_data()));
}

Cost Stft::cost(const FactRefs& inputs) const {
  Cost c;
  auto out = output_facts(inputs);
  const Fact* window = inputs.size() > 2 ? inputs[2] : nullptr;
  Dim frame_length = window ? window->shape.at(0) : out[0].shape[2];
  c.fma = out[0].shape[0] * out[0].shape[1] * out[0].shape[2] * frame_length * Dim(4);
  return c;
}

}  // namespace kiln::ops
