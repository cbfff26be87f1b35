#include "ops/recurrent/rnn.h"

#include <algorithm>

namespace kiln::ops {

std::vector<Activation> Rnn::default_activations() const {
  return Activation::from_onnx({"Tanh"}, {}, {});
}

void Rnn::step(const RnnStep& s) const {
  const int64_t H = s.hidden;
  for (int64_t k = 0; k < H; k++) {
    const double* row = s.r + k * H;
    double sum = s.xw[k] + s.rb[k];
    for (int64_t j = 0; j < H; j++) sum += row[j] * s.h[j];
    s.scratch[k] = act(s.acts[0], sum);
  }
  std::copy_n(s.scratch, H, s.h);
}

}  // namespace kiln::ops
