// ResizeF32 (Resize::codegen) against the reference Resize, which interpolates in double: every
// coordinate transformation mode except tf_crop_and_resize, every nearest rounding mode, linear,
// scales and sizes, up- and downsampling, 1-D (rank 3) and 2-D (rank 4) inputs, odd sizes.
// Nearest: bit for bit (a copy of the chosen input). Linear: the same two taps and weights in
// float, rows then columns as the reference: within 2e-6 relative to the inputs' magnitude (two
// blends of three roundings each on values <= 4). 1 and 2 threads give the same bits.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "base/threading.h"
#include "ops/image/resize.h"
#include "ops/image/resize_f32.h"
#include "tests/ops/image/image_test_util.h"

namespace kiln {
namespace {

using image_test::run;
using Options = ops::Resize::Options;
using R = ops::Resize;

Tensor random_tensor(std::mt19937& rng, const Shape& shape) {
  std::uniform_real_distribution<float> d(-4, 4);
  std::vector<float> v(static_cast<size_t>(shape_numel(shape)));
  for (auto& x : v) x = d(rng);
  return Tensor::from_vector<float>(shape, v);
}

// Runs the reference and the codegen'd op on x with constant scales (or sizes) and compares.
void check(const Options& o, const Tensor& x, const std::vector<float>& scales,
           const std::vector<int64_t>& sizes) {
  SCOPED_TRACE(::testing::Message()
               << "shape " << shape_to_string(x.shape()) << " mode " << int(o.mode) << " coord "
               << int(o.coord) << " nearest " << int(o.nearest));
  R ref(o);
  Tensor st =
      scales.empty() ? Tensor() : Tensor::from_vector<float>({int64_t(scales.size())}, scales);
  Tensor zt =
      sizes.empty() ? Tensor() : Tensor::from_vector<int64_t>({int64_t(sizes.size())}, sizes);
  Fact xf(DatumType::F32, x.shape());
  Fact sf = scales.empty() ? Fact(DatumType::F32, Shape{0}) : Fact::constant(st);
  Fact zf = Fact::constant(zt);
  std::vector<const Fact*> facts = {&xf, nullptr, &sf};
  if (!sizes.empty()) facts = {&xf, nullptr, nullptr, &zf};
  OpPtr fast = ref.codegen(facts);
  ASSERT_NE(fast, nullptr);
  EXPECT_EQ(fast->name(), "ResizeF32");
  std::vector<Tensor> in = {x, Tensor(), st};
  if (!sizes.empty()) in = {x, Tensor(), Tensor(), zt};
  auto want = run(ref, in);
  const int saved = num_threads();
  set_num_threads(1);
  auto got = run(*fast, in);
  set_num_threads(2);
  auto got2 = run(*fast, in);
  set_num_threads(saved);
  ASSERT_EQ(got[0].shape(), want[0].shape());
  if (want[0].numel() == 0) return;  // e.g. a height of 1 halved
  ASSERT_EQ(std::memcmp(got[0].data<float>(), got2[0].data<float>(),
                        static_cast<size_t>(got[0].numel()) * sizeof(float)),
            0)
      << "thread counts differ";
  for (int64_t i = 0; i < want[0].numel(); i++) {
    const float w = want[0].data<float>()[i], g = got[0].data<float>()[i];
    if (o.mode == R::Mode::Nearest) {
      ASSERT_EQ(g, w) << "at " << i;
    } else {
      ASSERT_NEAR(g, w, 8e-6) << "at " << i;
    }
  }
}

TEST(OpsResizeF32, MatchesReferenceInEveryMode) {
  std::mt19937 rng(5);
  const std::vector<Shape> shapes = {{1, 3, 7, 5}, {2, 2, 4, 4}, {1, 1, 1, 9}, {2, 5, 11}};
  for (const Shape& shape : shapes) {
    const Tensor x = random_tensor(rng, shape);
    const size_t rank = shape.size();
    for (R::Mode mode : {R::Mode::Nearest, R::Mode::Linear}) {
      for (R::Coord coord :
           {R::Coord::HalfPixel, R::Coord::HalfPixelSymmetric, R::Coord::PytorchHalfPixel,
            R::Coord::AlignCorners, R::Coord::Asymmetric, R::Coord::TfHalfPixelForNn}) {
        std::vector<R::Nearest> roundings = {R::Nearest::RoundPreferFloor};
        if (mode == R::Mode::Nearest) {
          roundings = {R::Nearest::RoundPreferFloor, R::Nearest::RoundPreferCeil, R::Nearest::Floor,
                       R::Nearest::Ceil, R::Nearest::Simple};
        }
        for (R::Nearest rounding : roundings) {
          Options o;
          o.mode = mode;
          o.coord = coord;
          o.nearest = rounding;
          std::vector<float> up(rank, 1.0f), down(rank, 1.0f), odd(rank, 1.0f);
          up[rank - 1] = 2;
          up[rank - 2] = rank == 4 ? 2.0f : 1.0f;
          down[rank - 1] = 0.6f;
          odd[rank - 1] = 1.7f;
          if (rank == 4) odd[rank - 2] = 0.5f;
          check(o, x, up, {});
          check(o, x, down, {});
          check(o, x, odd, {});
          Shape target = shape;
          target[rank - 1] = shape[rank - 1] * 3 + 1;
          if (rank == 4) target[rank - 2] = shape[rank - 2] + 2;
          check(o, x, {}, std::vector<int64_t>(target.begin(), target.end()));
        }
      }
    }
  }
}

// A tap of weight 0 is skipped, as in the reference: an infinite neighbour of an exact sample
// point (a 2x linear upsampling with align_corners samples the inputs themselves) does not turn
// it into NaN.
TEST(OpsResizeF32, LinearSkipsZeroWeightTaps) {
  Options o;
  o.mode = R::Mode::Linear;
  o.coord = R::Coord::AlignCorners;
  const float inf = std::numeric_limits<float>::infinity();
  Tensor x = Tensor::from_vector<float>({1, 1, 1, 3}, {1, inf, 2});
  Tensor s = Tensor::from_vector<float>({4}, {1, 1, 1, 2});
  Fact xf(DatumType::F32, x.shape()), sf = Fact::constant(s);
  OpPtr fast = R(o).codegen({&xf, nullptr, &sf});
  ASSERT_NE(fast, nullptr);
  auto want = run(R(o), {x, Tensor(), s});
  auto got = run(*fast, {x, Tensor(), s});
  ASSERT_EQ(got[0].numel(), 6);
  EXPECT_EQ(want[0].data<float>()[0], 1.0f);
  for (int64_t i = 0; i < 6; i++) {
    const float w = want[0].data<float>()[i], g = got[0].data<float>()[i];
    EXPECT_TRUE((std::isnan(w) && std::isnan(g)) || w == g) << i << ": " << w << " vs " << g;
  }
}

TEST(OpsResizeF32, KeepsReferenceForOtherForms) {
  Fact x4(DatumType::F32, Shape{1, 3, 4, 4});
  Fact s4 = Fact::constant(Tensor::from_vector<float>({4}, {1, 1, 2, 2}));
  Fact outer = Fact::constant(Tensor::from_vector<float>({4}, {1, 2, 2, 2}));
  Fact dynamic(DatumType::F32, Shape{4});
  Options cubic;
  cubic.mode = R::Mode::Cubic;
  EXPECT_EQ(R(cubic).codegen({&x4, nullptr, &s4}), nullptr);
  Options crop;
  crop.coord = R::Coord::TfCropAndResize;
  EXPECT_EQ(R(crop).codegen({&x4, nullptr, &s4}), nullptr);
  Options aa;
  aa.mode = R::Mode::Linear;
  aa.antialias = true;
  EXPECT_EQ(R(aa).codegen({&x4, nullptr, &s4}), nullptr);
  EXPECT_EQ(R(Options{}).codegen({&x4, nullptr, &outer}), nullptr);    // resizes channels
  EXPECT_EQ(R(Options{}).codegen({&x4, nullptr, &dynamic}), nullptr);  // scales not constant
  Fact i8(DatumType::I8, Shape{1, 3, 4, 4});
  EXPECT_EQ(R(Options{}).codegen({&i8, nullptr, &s4}), nullptr);
  EXPECT_NE(R(Options{}).codegen({&x4, nullptr, &s4}), nullptr);
  EXPECT_TRUE(R(Options{}).is_reference_impl());
}

}  // namespace
}  // namespace kiln
