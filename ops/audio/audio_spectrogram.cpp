#include "ops/audio/audio_spectrogram.h"

#include <cmath>
#include <numbers>

#include "base/error.h"

namespace kiln::ops {

int64_t next_power_of_two(int64_t n) {
  int64_t p = 1;
  while (p < n) p <<= 1;
  return p;
}

FftTwiddles::FftTwiddles(size_t n) : re(n / 2), im(n / 2) {
  for (size_t k = 0; k < re.size(); k++) {
    const double a = -2.0 * std::numbers::pi * static_cast<double>(k) / static_cast<double>(n);
    re[k] = std::cos(a);
    im[k] = std::sin(a);
  }
}

void fft_radix2(double* re, double* im, size_t n, const FftTwiddles& tw) {
  for (size_t i = 1, j = 0; i < n; i++) {  // bit-reversal permutation
    size_t bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) {
      std::swap(re[i], re[j]);
      std::swap(im[i], im[j]);
    }
  }
  for (size_t len = 2; len <= n; len <<= 1) {
    const size_t half = len / 2, step = n / len;
    for (size_t start = 0; start < n; start += len) {
      double* ar = re + start;
      double* ai = im + start;
      for (size_t k = 0; k < half; k++) {
        const double wr = tw.re[k * step], wi = tw.im[k * step];
        const double vr = ar[k + half] * wr - ai[k + half] * wi;
        const double vi = ar[k + half] * wi + ai[k + half] * wr;
        ar[k + half] = ar[k] - vr;
        ai[k + half] = ai[k] - vi;
        ar[k] += vr;
        ai[k] += vi;
      }
    }
  }
}

namespace {

// The FFT size for these attributes, after checking them.
int64_t checked_fft_size(int64_t window_size, int64_t stride) {
  KILN_ENSURE(window_size >= 2, "AudioSpectrogram: window_size must be at least 2, got {}",
              window_size);
  KILN_ENSURE(stride >= 1, "AudioSpectrogram: stride must be positive, got {}", stride);
  KILN_ENSURE(window_size <= (int64_t{1} << 24), "AudioSpectrogram: window_size {} too large",
              window_size);
  return next_power_of_two(window_size);
}

}  // namespace

AudioSpectrogram::AudioSpectrogram(int64_t window_size, int64_t stride, bool magnitude_squared)
    : window_size_(window_size),
      stride_(stride),
      magnitude_squared_(magnitude_squared),
      fft_size_(checked_fft_size(window_size, stride)),
      half_twiddles_(static_cast<size_t>(fft_size_ / 2)),
      split_twiddles_(static_cast<size_t>(fft_size_)) {
  // Periodic Hann window.
  window_.resize(static_cast<size_t>(window_size_));
  for (int64_t i = 0; i < window_size_; i++)
    window_[static_cast<size_t>(i)] =
        0.5 - 0.5 * std::cos(2.0 * std::numbers::pi * static_cast<double>(i) /
                             static_cast<double>(window_size_));
}

Attributes AudioSpectrogram::attributes() const {
  return {{"window_size", std::to_string(window_size_)},
          {"stride", std::to_string(stride_)},
          {"magnitude_squared", magnitude_squared_ ? "true" : "false"}};
}

std::vector<Fact> AudioSpectrogram::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 1, 1);
  const Fact& in = required(inputs, 0, name());
  KILN_ENSURE(in.dt == DatumType::F32 && in.rank() == 2,
              "AudioSpectrogram: input must be f32 [samples, channels], got {}", in.to_string());
  Dim frames = Dim::fresh();
  if (auto n = in.shape[0].as_int())
    frames = Dim(*n < window_size_ ? 0 : 1 + (*n - window_size_) / stride_);
  return {Fact(DatumType::F32, std::vector<Dim>{in.shape[1], frames, Dim(fft_size_ / 2 + 1)})};
}

Cost AudioSpectrogram::cost(const FactRefs& inputs) const {
  Cost c;
  auto facts = output_facts(inputs);
  // ~ N log2 N complex butterflies per window (4 real FMAs each).
  int64_t log2n = 0;
  while ((int64_t{1} << log2n) < fft_size_) log2n++;
  c.fma = facts[0].shape[0] * facts[0].shape[1] * Dim(2 * fft_size_ * log2n + window_size_);
  return c;
}

void AudioSpectrogram::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& in = required(inputs, 0, name());
  KILN_ENSURE(in.dtype() == DatumType::F32 && in.rank() == 2,
              "AudioSpectrogram: input must be f32 [samples, channels]");
  const int64_t samples = in.dim(0), channels = in.dim(1);
  const int64_t frames = samples < window_size_ ? 0 : 1 + (samples - window_size_) / stride_;
  const int64_t bins = fft_size_ / 2 + 1;
  Tensor& out = ctx.output(0, DatumType::F32, {channels, frames, bins});
  const float* x = in.data<float>();
  float* y = out.data<float>();
  const size_t half = static_cast<size_t>(fft_size_ / 2);
  std::vector<double> zr(half), zi(half);
  for (int64_t c = 0; c < channels; c++) {
    for (int64_t f = 0; f < frames; f++) {
      // Even samples as the real parts, odd samples as the imaginary parts (zero-padded).
      std::fill(zr.begin(), zr.end(), 0.0);
      std::fill(zi.begin(), zi.end(), 0.0);
      for (int64_t i = 0; i < window_size_; i++) {
        const double v = static_cast<double>(x[(f * stride_ + i) * channels + c]) *
                         window_[static_cast<size_t>(i)];
        (i % 2 ? zi : zr)[static_cast<size_t>(i / 2)] = v;
      }
      fft_radix2(zr.data(), zi.data(), half, half_twiddles_);
      float* row = y + (c * frames + f) * bins;
      for (size_t k = 0; k <= half; k++) {
        // Spectra of the even and odd samples from Z[k] and conj(Z[N/2 - k]), then
        // X[k] = even + exp(-2 pi i k / N) * odd.
        const size_t a = k % half, b = (half - k) % half;
        const double er = 0.5 * (zr[a] + zr[b]), ei = 0.5 * (zi[a] - zi[b]);
        const double dr = zr[a] - zr[b], di = zi[a] + zi[b];
        const double orr = 0.5 * di, oi = -0.5 * dr;  // odd = -i/2 * (Z[k] - conj(Z[N/2-k]))
        const double wr = k < half ? split_twiddles_.re[k] : -1.0;  // exp(-i pi) at k = N/2
        const double wi = k < half ? split_twiddles_.im[k] : 0.0;
        const double re = er + wr * orr - wi * oi;
        const double im = ei + wr * oi + wi * orr;
        const double p = re * re + im * im;
        row[k] = static_cast<float>(magnitude_squared_ ? p : std::sqrt(p));
      }
    }
  }
}

}  // namespace kiln::ops
