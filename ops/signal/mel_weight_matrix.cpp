#include "ops/signal/mel_weight_matrix.h"

#include <cmath>
#include <vector>

#include "base/error.h"

namespace kiln::ops {

std::vector<Fact> MelWeightMatrix::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 5, 5);
  for (size_t i = 0; i < 5; i++) required(inputs, i, name());
  auto bins = inputs[0]->known_i64_values();
  auto dft = inputs[1]->known_i64_values();
  Dim rows = dft && dft->size() == 1 ? Dim((*dft)[0] / 2 + 1) : Dim::fresh();
  Dim cols = bins && bins->size() == 1 ? Dim((*bins)[0]) : Dim::fresh();
  return {Fact(output_type_, {rows, cols})};
}

void MelWeightMatrix::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  int64_t num_mel_bins = inputs[0]->value_as_i64(0);
  int64_t dft_length = inputs[1]->value_as_i64(0);
  int64_t sample_rate = inputs[2]->value_as_i64(0);
  double lower = inputs[3]->value_as_double(0);
  double upper = inputs[4]->value_as_double(0);
  KILN_ENSURE(num_mel_bins > 0 && num_mel_bins < (1 << 20), "MelWeightMatrix: bad num_mel_bins {}",
              num_mel_bins);
  KILN_ENSURE(dft_length > 0 && dft_length < (1 << 24), "MelWeightMatrix: bad dft_length {}",
              dft_length);
  KILN_ENSURE(sample_rate > 0, "MelWeightMatrix: bad sample_rate {}", sample_rate);
  KILN_ENSURE(lower >= 0 && upper > lower,
              "MelWeightMatrix: need 0 <= lower_edge_hertz < upper_edge_hertz");
  int64_t rows = dft_length / 2 + 1;
  // Band edges as the ONNX reference (onnx/reference/ops/op_mel_weight_matrix.py, the generator
  // of the backend tests) computes them: num_mel_bins + 2 points starting at the lower edge, a
  // mel step of (high - low) / (num_mel_bins + 2) -- so the last point stays below the upper
  // edge --, the edge mels and the step in float32 (the reference's np.float32 inputs), the
  // points mapped back to Hz in double and floored to spectrogram bins.
  auto hz_to_mel = [](float hz) { return 2595.0f * std::log10(1.0f + hz / 700.0f); };
  float low_mel = hz_to_mel(static_cast<float>(lower));
  float high_mel = hz_to_mel(static_cast<float>(upper));
  float step = (high_mel - low_mel) / static_cast<float>(num_mel_bins + 2);
  std::vector<int64_t> edges(static_cast<size_t>(num_mel_bins + 2));
  for (int64_t i = 0; i < num_mel_bins + 2; i++) {
    double mel = static_cast<double>(i) * static_cast<double>(step) + static_cast<double>(low_mel);
    double hz = 700.0 * (std::pow(10.0, mel / 2595.0) - 1.0);
    edges[i] = static_cast<int64_t>(
        std::floor(static_cast<double>(dft_length + 1) * hz / static_cast<double>(sample_rate)));
  }
  std::vector<double> w(static_cast<size_t>(rows * num_mel_bins), 0.0);
  auto at = [&](int64_t r, int64_t c) -> double& {
    KILN_ENSURE(r >= 0 && r < rows,
                "MelWeightMatrix: band edge {} outside the {} spectrogram bins "
                "(upper_edge_hertz above sample_rate/2?)",
                r, rows);
    return w[static_cast<size_t>(r * num_mel_bins + c)];
  };
  for (int64_t m = 0; m < num_mel_bins; m++) {
    int64_t left = edges[m], center = edges[m + 1], right = edges[m + 2];
    if (center == left) {
      at(center, m) = 1.0;
    } else {
      for (int64_t j = left; j <= center; j++)
        at(j, m) = static_cast<double>(j - left) / static_cast<double>(center - left);
    }
    for (int64_t j = center; j < right; j++)
      at(j, m) = static_cast<double>(right - j) / static_cast<double>(right - center);
  }
  Tensor& out = ctx.output(0, output_type_, {rows, num_mel_bins});
  dispatch_numeric(output_type_, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* dst = out.data<T>();
    for (size_t i = 0; i < w.size(); i++) {
      if constexpr (std::is_same_v<T, f16> || std::is_same_v<T, bf16>)
        dst[i] = T(static_cast<float>(w[i]));
      else
        dst[i] = static_cast<T>(w[i]);
    }
  });
}

}  // namespace kiln::ops
