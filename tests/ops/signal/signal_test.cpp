#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "base/error.h"
#include "ops/signal/dft.h"
#include "ops/signal/mel_weight_matrix.h"
#include "ops/signal/stft.h"
#include "ops/signal/window.h"

using namespace kiln;

namespace {
std::vector<Tensor> eval(const Op& op, const std::vector<Tensor>& inputs) {
  TensorRefs refs;
  for (const auto& t : inputs) refs.push_back(t.is_null() ? nullptr : &t);
  std::vector<Tensor> outs(1);
  EvalContext ctx(outs);
  op.eval(ctx, refs);
  return outs;
}
}  // namespace

TEST(Dft, RealSignalOfFourSamples) {
  // x = [1, 2, 3, 4]: X = [10, -2+2i, -2, -2-2i]
  ops::Dft dft(1, false, false);
  auto x = Tensor::from_vector<float>({1, 4, 1}, {1, 2, 3, 4});
  auto y = eval(dft, {x})[0];
  ASSERT_EQ(y.shape(), (Shape{1, 4, 2}));
  std::vector<float> expected = {10, 0, -2, 2, -2, 0, -2, -2};
  for (size_t i = 0; i < expected.size(); i++)
    EXPECT_NEAR(y.values<float>()[i], expected[i], 1e-5) << i;
  ops::Dft onesided(1, false, true);
  Fact xf(DatumType::F32, x.shape());
  EXPECT_EQ(dims_to_string(onesided.output_facts({&xf})[0].shape), "1,3,2");
}

TEST(Dft, InverseUndoesForwardWithPadding) {
  ops::Dft forward(1, false, false), inverse(1, true, false);
  auto x = Tensor::from_vector<float>({1, 3, 1}, {0.5f, -1.0f, 2.0f});
  auto len = Tensor::scalar<int64_t>(5);  // zero-padded to 5 samples
  auto spectrum = eval(forward, {x, len})[0];
  ASSERT_EQ(spectrum.shape(), (Shape{1, 5, 2}));
  auto back = eval(inverse, {spectrum})[0];
  std::vector<float> expected = {0.5f, 0, -1, 0, 2, 0, 0, 0, 0, 0};
  for (size_t i = 0; i < expected.size(); i++)
    EXPECT_NEAR(back.values<float>()[i], expected[i], 1e-5) << i;
}

TEST(Dft, SymbolicLengthAndBadInput) {
  ops::Dft dft(1, false, true);
  Fact x(DatumType::F32, {Dim(1), Dim::symbol("S"), Dim(1)});
  EXPECT_EQ(dims_to_string(dft.output_facts({&x})[0].shape), "1,S/2+1,2");
  Fact bad(DatumType::F32, {Dim(1), Dim(4), Dim(3)});
  EXPECT_THROW(dft.output_facts({&bad}), Error);
}

TEST(Stft, FramesAndWindow) {
  ops::Stft stft(true);
  std::vector<float> signal(10);
  for (int i = 0; i < 10; i++) signal[i] = static_cast<float>(i);
  auto x = Tensor::from_vector<float>({1, 10, 1}, signal);
  auto step = Tensor::scalar<int64_t>(3);
  auto window = Tensor::from_vector<float>({4}, {1, 1, 1, 1});
  auto y = eval(stft, {x, step, window})[0];
  ASSERT_EQ(y.shape(), (Shape{1, 3, 3, 2}));  // frames (10-4)/3+1 = 3, bins 4/2+1 = 3
  // frame 1 = [3,4,5,6]: DC bin = 18, bin 2 = 3-4+5-6 = -2
  EXPECT_NEAR(y.values<float>()[(1 * 3 + 0) * 2], 18.0f, 1e-4);
  EXPECT_NEAR(y.values<float>()[(1 * 3 + 2) * 2], -2.0f, 1e-4);
}

TEST(Window, HannValues) {
  ops::Window periodic(ops::WindowKind::Hann, true, DatumType::F32);
  auto y = eval(periodic, {Tensor::scalar<int64_t>(4)})[0];
  std::vector<float> expected = {0.0f, 0.5f, 1.0f, 0.5f};  // sin^2(pi n / 4)
  for (int i = 0; i < 4; i++) EXPECT_NEAR(y.values<float>()[i], expected[i], 1e-6);
  ops::Window symmetric(ops::WindowKind::Hamming, false, DatumType::F64);
  auto h = eval(symmetric, {Tensor::scalar<int64_t>(3)})[0];
  EXPECT_NEAR(h.values<double>()[0], 25.0 / 46.0 - 21.0 / 46.0, 1e-12);
  EXPECT_NEAR(h.values<double>()[1], 1.0, 1e-12);
}

// The spec's formula divides by size - 1 for a symmetric window: size 1 is 0 / 0, NaN (as ONNX's
// reference and ONNX Runtime). An integer window casts the float window: Blackman's middle value
// (0.42 + 0.5 + 0.08) is 1, not 0.
TEST(Window, SizeOneAndIntegerOutputs) {
  ops::Window symmetric(ops::WindowKind::Hann, false, DatumType::F32);
  auto y = eval(symmetric, {Tensor::scalar<int64_t>(1)})[0];
  ASSERT_EQ(y.numel(), 1);
  EXPECT_TRUE(std::isnan(y.values<float>()[0]));
  ops::Window periodic(ops::WindowKind::Hann, true, DatumType::F32);
  EXPECT_EQ(eval(periodic, {Tensor::scalar<int64_t>(1)})[0].values<float>()[0], 0.0f);
  ops::Window blackman(ops::WindowKind::Blackman, true, DatumType::I64);
  auto b = eval(blackman, {Tensor::scalar<int64_t>(4)})[0];
  auto v = b.values<int64_t>();
  EXPECT_EQ(std::vector<int64_t>(v.begin(), v.end()), (std::vector<int64_t>{0, 0, 1, 0}));
}

TEST(MelWeightMatrix, BandEdgesFollowTheReference) {
  // 2 bands over [0, 4000] Hz: the reference spaces num_mel_bins + 2 points by
  // (high - low) / (num_mel_bins + 2) mel, giving spectrogram bins 0, 0, 2, 4 here.
  ops::MelWeightMatrix mel(DatumType::F32);
  auto w = eval(
      mel, {Tensor::scalar<int64_t>(2), Tensor::scalar<int64_t>(16), Tensor::scalar<int64_t>(8000),
            Tensor::scalar<float>(0.0f), Tensor::scalar<float>(4000.0f)})[0];
  ASSERT_EQ(w.shape(), (Shape{9, 2}));
  std::vector<float> band0, band1;
  for (int r = 0; r < 9; r++) {
    band0.push_back(w.values<float>()[r * 2]);
    band1.push_back(w.values<float>()[r * 2 + 1]);
  }
  EXPECT_EQ(band0, (std::vector<float>{1, 0.5f, 0, 0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(band1, (std::vector<float>{0, 0.5f, 1, 0.5f, 0, 0, 0, 0, 0}));
}

TEST(MelWeightMatrix, TrianglesPeakAtOne) {
  ops::MelWeightMatrix mel(DatumType::F32);
  auto w = eval(
      mel, {Tensor::scalar<int32_t>(4), Tensor::scalar<int32_t>(64), Tensor::scalar<int32_t>(16000),
            Tensor::scalar<float>(100.0f), Tensor::scalar<float>(4000.0f)})[0];
  ASSERT_EQ(w.shape(), (Shape{33, 4}));
  for (int m = 0; m < 4; m++) {
    float peak = 0;
    for (int r = 0; r < 33; r++) peak = std::max(peak, w.values<float>()[r * 4 + m]);
    EXPECT_FLOAT_EQ(peak, 1.0f) << m;
  }
  EXPECT_THROW(eval(mel, {Tensor::scalar<int32_t>(4), Tensor::scalar<int32_t>(64),
                          Tensor::scalar<int32_t>(16000), Tensor::scalar<float>(100.0f),
                          Tensor::scalar<float>(50.0f)}),
               Error);
}
