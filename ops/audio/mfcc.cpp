#include "ops/audio/mfcc.h"

#include <cmath>
#include <numbers>

#include "base/error.h"
#include "ops/elementwise/cast.h"

namespace kiln::ops {

namespace {

double hz_to_mel(double hz) {
  return 1127.0 * std::log1p(hz / 700.0);
}

constexpr double kLogFloor = 1e-12;

}  // namespace

MelFilterbank::MelFilterbank(const MfccConfig& c, int64_t bins, double sample_rate)
    : channels(c.filterbank_channel_count) {
  KILN_ENSURE(bins >= 2, "Mfcc: spectrogram needs at least 2 bins, got {}", bins);
  KILN_ENSURE(sample_rate > 0, "Mfcc: sample rate must be positive, got {}", sample_rate);
  const double mel_low = hz_to_mel(c.lower_frequency_limit);
  const double spacing =
      (hz_to_mel(c.upper_frequency_limit) - mel_low) / static_cast<double>(channels + 1);
  // channels + 1 centers: the last one closes the top triangle.
  std::vector<double> center(static_cast<size_t>(channels + 1));
  for (int64_t i = 0; i <= channels; i++)
    center[static_cast<size_t>(i)] = mel_low + spacing * static_cast<double>(i + 1);
  const double hz_per_bin = 0.5 * sample_rate / static_cast<double>(bins - 1);
  start = static_cast<int64_t>(1.5 + c.lower_frequency_limit / hz_per_bin);
  end = std::min(static_cast<int64_t>(c.upper_frequency_limit / hz_per_bin), bins - 1);
  band.assign(static_cast<size_t>(bins), -2);
  weight.assign(static_cast<size_t>(bins), 0.0);
  int64_t ch = 0;
  for (int64_t i = start; i <= end; i++) {
    const double mel = hz_to_mel(static_cast<double>(i) * hz_per_bin);
    while (ch < channels && center[static_cast<size_t>(ch)] < mel) ch++;
    const int64_t b = ch - 1;  // the triangle whose falling side this bin is on (-1: none)
    band[static_cast<size_t>(i)] = b;
    weight[static_cast<size_t>(i)] =
        b >= 0 ? (center[static_cast<size_t>(b + 1)] - mel) /
                     (center[static_cast<size_t>(b + 1)] - center[static_cast<size_t>(b)])
               : (center[0] - mel) / (center[0] - mel_low);
  }
}

std::vector<double> MelFilterbank::apply(const float* power) const {
  std::vector<double> out(static_cast<size_t>(channels), 0.0);
  for (int64_t i = start; i <= end; i++) {
    const double magnitude = std::sqrt(static_cast<double>(power[i]));
    const double w = magnitude * weight[static_cast<size_t>(i)];
    const int64_t b = band[static_cast<size_t>(i)];
    if (b >= 0) out[static_cast<size_t>(b)] += w;  // falling side of band b
    if (b + 1 < channels) out[static_cast<size_t>(b + 1)] += magnitude - w;  // rising side
  }
  return out;
}

Mfcc::Mfcc(MfccConfig config) : config_(config) {
  KILN_ENSURE(config_.filterbank_channel_count >= 1,
              "Mfcc: filterbank_channel_count must be positive, got {}",
              config_.filterbank_channel_count);
  KILN_ENSURE(config_.dct_coefficient_count >= 1 &&
                  config_.dct_coefficient_count <= config_.filterbank_channel_count,
              "Mfcc: dct_coefficient_count must be in [1, filterbank_channel_count={}], got {}",
              config_.filterbank_channel_count, config_.dct_coefficient_count);
  KILN_ENSURE(config_.lower_frequency_limit >= 0 &&
                  config_.upper_frequency_limit > config_.lower_frequency_limit,
              "Mfcc: need 0 <= lower_frequency_limit ({}) < upper_frequency_limit ({})",
              config_.lower_frequency_limit, config_.upper_frequency_limit);
}

Attributes Mfcc::attributes() const {
  return {{"upper_frequency_limit", float_to_string(config_.upper_frequency_limit, false)},
          {"lower_frequency_limit", float_to_string(config_.lower_frequency_limit, false)},
          {"filterbank_channel_count", std::to_string(config_.filterbank_channel_count)},
          {"dct_coefficient_count", std::to_string(config_.dct_coefficient_count)}};
}

std::vector<Fact> Mfcc::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 2, 2);
  const Fact& spec = required(inputs, 0, name());
  const Fact& rate = required(inputs, 1, name());
  KILN_ENSURE(spec.dt == DatumType::F32 && spec.rank() == 3,
              "Mfcc: spectrogram must be f32 [channels, frames, bins], got {}", spec.to_string());
  KILN_ENSURE(is_integer(rate.dt) && rate.volume() == Dim(1),
              "Mfcc: sample rate must be one integer, got {}", rate.to_string());
  return {Fact(DatumType::F32,
               std::vector<Dim>{spec.shape[0], spec.shape[1], Dim(config_.dct_coefficient_count)})};
}

Cost Mfcc::cost(const FactRefs& inputs) const {
  Cost c;
  const Fact& spec = required(inputs, 0, name());
  const Dim frames = spec.shape[0] * spec.shape[1];
  c.fma = frames *
          (spec.shape[2] + Dim(config_.filterbank_channel_count * config_.dct_coefficient_count));
  c.other = frames * (spec.shape[2] + Dim(config_.filterbank_channel_count));  // sqrt, log
  return c;
}

void Mfcc::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& spec = required(inputs, 0, name());
  const Tensor& rate = required(inputs, 1, name());
  KILN_ENSURE(spec.dtype() == DatumType::F32 && spec.rank() == 3,
              "Mfcc: spectrogram must be f32 [channels, frames, bins]");
  KILN_ENSURE(rate.numel() == 1 && is_integer(rate.dtype()),
              "Mfcc: sample rate must be one integer");
  const int64_t rows = spec.dim(0) * spec.dim(1), bins = spec.dim(2);
  MelFilterbank bank(config_, bins, static_cast<double>(rate.value_as_i64(0)));
  const int64_t n = config_.filterbank_channel_count, k = config_.dct_coefficient_count;
  // DCT-II with the sqrt(2 / n) scale, no special first row.
  std::vector<double> cosines(static_cast<size_t>(n * k));
  const double norm = std::sqrt(2.0 / static_cast<double>(n));
  for (int64_t i = 0; i < k; i++)
    for (int64_t j = 0; j < n; j++)
      cosines[static_cast<size_t>(i * n + j)] =
          norm * std::cos(std::numbers::pi / static_cast<double>(n) * static_cast<double>(i) *
                          (static_cast<double>(j) + 0.5));
  Tensor& out = ctx.output(0, DatumType::F32, {spec.dim(0), spec.dim(1), k});
  const float* x = spec.data<float>();
  float* y = out.data<float>();
  for (int64_t r = 0; r < rows; r++) {
    std::vector<double> energies = bank.apply(x + r * bins);
    for (auto& e : energies) e = std::log(std::max(e, kLogFloor));
    for (int64_t i = 0; i < k; i++) {
      double acc = 0;
      for (int64_t j = 0; j < n; j++)
        acc += energies[static_cast<size_t>(j)] * cosines[static_cast<size_t>(i * n + j)];
      y[r * k + i] = static_cast<float>(acc);
    }
  }
}

}  // namespace kiln::ops
