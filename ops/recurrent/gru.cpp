#include "ops/recurrent/gru.h"

namespace kiln::ops {

std::vector<Activation> Gru::default_activations() const {
  return Activation::from_onnx({"Sigmoid", "Tanh"}, {}, {});
}

void Gru::step(const RnnStep& s) const {
  const int64_t H = s.hidden;
  double* z = s.scratch;
  double* r = s.scratch + H;
  double* cand = s.scratch + 2 * H;
  const Activation &f = s.acts[0], &g = s.acts[1];
  for (int64_t k = 0; k < 2 * H; k++) {
    const double* row = s.r + k * H;
    double sum = s.xw[k] + s.rb[k];
    for (int64_t j = 0; j < H; j++) sum += row[j] * s.h[j];
    s.scratch[k] = act(f, sum);
  }
  for (int64_t k = 0; k < H; k++) {
    const double* row = s.r + (2 * H + k) * H;
    double rec = 0;
    if (linear_before_reset_) {
      for (int64_t j = 0; j < H; j++) rec += row[j] * s.h[j];
      rec = r[k] * (rec + s.rb[2 * H + k]);
    } else {
      for (int64_t j = 0; j < H; j++) rec += row[j] * (r[j] * s.h[j]);
      rec += s.rb[2 * H + k];
    }
    cand[k] = act(g, s.xw[2 * H + k] + rec);
  }
  for (int64_t k = 0; k < H; k++) s.h[k] = (1.0 - z[k]) * cand[k] + z[k] * s.h[k];
}

}  // namespace kiln::ops
