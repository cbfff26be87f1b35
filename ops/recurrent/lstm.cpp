#include "ops/recurrent/lstm.h"

namespace kiln::ops {

std::vector<Activation> Lstm::default_activations() const {
  return Activation::from_onnx({"Sigmoid", "Tanh", "Tanh"}, {}, {});
}

void Lstm::step(const RnnStep& s) const {
  const int64_t H = s.hidden;
  double* g = s.scratch;
  for (int64_t k = 0; k < 4 * H; k++) {
    const double* row = s.r + k * H;
    double sum = s.xw[k] + s.rb[k];
    for (int64_t j = 0; j < H; j++) sum += row[j] * s.h[j];
    g[k] = sum;
  }
  const Activation &f = s.acts[0], &gact = s.acts[1], &hact = s.acts[2];
  for (int64_t j = 0; j < H; j++) {
    const double c_prev = s.c[j];
    double pi = 0, po = 0, pf = 0;
    if (s.p) {
      pi = s.p[j];
      po = s.p[H + j];
      pf = s.p[2 * H + j];
    }
    double i = act(f, g[j] + pi * c_prev);
    double fg = input_forget_ ? 1.0 - i : act(f, g[2 * H + j] + pf * c_prev);
    double cand = act(gact, g[3 * H + j]);
    double c_new = fg * c_prev + i * cand;
    double o = act(f, g[H + j] + po * c_new);
    s.c[j] = c_new;
    s.h[j] = o * hact.apply(c_new);
  }
}

}  // namespace kiln::ops
