// kernels/copy/strided_copy against a naive gather (one element at a time through an index
// odometer) on random shapes, permutations and slices: extents 0 and 1, odd sizes, negative
// and zero strides, element sizes 1, 2, 4, 8 and odd ones (3, 12). Copies are exact.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <numeric>
#include <random>

#include "base/threading.h"
#include "kernels/copy/strided_copy.h"

namespace kiln {
namespace {

std::vector<unsigned char> naive(const unsigned char* src, size_t elem,
                                 const std::vector<int64_t>& shape,
                                 const std::vector<int64_t>& strides) {
  int64_t total = 1;
  for (int64_t d : shape) total *= d;
  std::vector<unsigned char> out(static_cast<size_t>(total) * elem);
  std::vector<int64_t> idx(shape.size(), 0);
  for (int64_t i = 0; i < total; i++) {
    int64_t off = 0;
    for (size_t a = 0; a < shape.size(); a++) off += idx[a] * strides[a];
    std::memcpy(out.data() + i * elem, src + off * static_cast<int64_t>(elem), elem);
    for (size_t a = shape.size(); a-- > 0;) {
      if (++idx[a] < shape[a]) break;
      idx[a] = 0;
    }
  }
  return out;
}

// A random permutation of a random tensor: strides of the source permuted.
TEST(KernelsStridedCopy, TransposesMatchNaiveGather) {
  std::mt19937 rng(21);
  std::uniform_int_distribution<int> byte(0, 255);
  for (size_t elem : {1u, 2u, 3u, 4u, 8u, 12u}) {
    for (int trial = 0; trial < 60; trial++) {
      const size_t rank = 1 + static_cast<size_t>(trial % 5);
      std::vector<int64_t> in_shape(rank);
      for (auto& d : in_shape)
        d = std::uniform_int_distribution<int64_t>(1, trial < 50 ? 9 : 40)(rng);
      if (trial == 7) in_shape[0] = 0;
      std::vector<int64_t> in_strides(rank, 1);
      for (size_t a = rank - 1; a-- > 0;) in_strides[a] = in_strides[a + 1] * in_shape[a + 1];
      std::vector<size_t> perm(rank);
      std::iota(perm.begin(), perm.end(), 0);
      std::shuffle(perm.begin(), perm.end(), rng);
      std::vector<int64_t> shape, strides;
      for (size_t a : perm) {
        shape.push_back(in_shape[a]);
        strides.push_back(in_strides[a]);
      }
      int64_t total = 1;
      for (int64_t d : in_shape) total *= d;
      std::vector<unsigned char> src(static_cast<size_t>(total) * elem + 1);
      for (auto& b : src) b = static_cast<unsigned char>(byte(rng));
      auto want = naive(src.data(), elem, shape, strides);
      std::vector<unsigned char> got(want.size() + 1, 0xAB);
      kernels::strided_copy(src.data(), got.data(), elem, shape, strides);
      ASSERT_TRUE(std::equal(want.begin(), want.end(), got.begin()))
          << "elem " << elem << " trial " << trial;
      ASSERT_EQ(got.back(), 0xAB) << "wrote past the end";
    }
  }
}

// Transposes large enough to split across threads (ConvNeXt's NCHW <-> NHWC permutes, a batch of
// transposed matrices with odd sides), 4-byte elements (the 4 x 4 vector blocks) and 1-byte ones,
// at 1 and 2 threads.
TEST(KernelsStridedCopy, LargeTransposesAtAnyThreadCount) {
  struct Case {
    std::vector<int64_t> in_shape;
    std::vector<size_t> perm;
  };
  const Case cases[] = {{{1, 96, 56, 56}, {0, 2, 3, 1}},
                        {{1, 56, 56, 96}, {0, 3, 1, 2}},
                        {{3, 301, 77}, {0, 2, 1}},
                        {{2, 5, 130, 67}, {1, 3, 0, 2}}};
  std::mt19937 rng(5);
  for (size_t elem : {4u, 1u}) {
    for (const Case& c : cases) {
      std::vector<int64_t> in_strides(c.in_shape.size(), 1);
      for (size_t a = c.in_shape.size() - 1; a-- > 0;)
        in_strides[a] = in_strides[a + 1] * c.in_shape[a + 1];
      std::vector<int64_t> shape, strides;
      for (size_t a : c.perm) {
        shape.push_back(c.in_shape[a]);
        strides.push_back(in_strides[a]);
      }
      int64_t total = 1;
      for (int64_t d : c.in_shape) total *= d;
      std::vector<unsigned char> src(static_cast<size_t>(total) * elem);
      for (auto& b : src) b = static_cast<unsigned char>(rng());
      const auto want = naive(src.data(), elem, shape, strides);
      for (int threads : {1, 2}) {
        set_num_threads(threads);
        std::vector<unsigned char> got(want.size() + 1, 0xAB);
        kernels::strided_copy(src.data(), got.data(), elem, shape, strides);
        EXPECT_TRUE(std::equal(want.begin(), want.end(), got.begin()))
            << "elem " << elem << " threads " << threads << " shape " << shape[0];
        EXPECT_EQ(got.back(), 0xAB) << "wrote past the end";
      }
      set_num_threads(0);
    }
  }
}

// Slices: start offsets and steps (negative ones included) on each axis, and a broadcast axis
// (stride 0).
TEST(KernelsStridedCopy, SlicesAndBroadcastsMatchNaiveGather) {
  std::mt19937 rng(22);
  for (size_t elem : {1u, 4u, 8u, 3u}) {
    for (int trial = 0; trial < 80; trial++) {
      const size_t rank = 1 + static_cast<size_t>(trial % 4);
      std::vector<int64_t> in_shape(rank);
      for (auto& d : in_shape) d = std::uniform_int_distribution<int64_t>(1, 12)(rng);
      std::vector<int64_t> in_strides(rank, 1);
      for (size_t a = rank - 1; a-- > 0;) in_strides[a] = in_strides[a + 1] * in_shape[a + 1];
      std::vector<int64_t> shape(rank), strides(rank);
      int64_t base = 0;
      for (size_t a = 0; a < rank; a++) {
        int64_t step = std::uniform_int_distribution<int64_t>(-3, 3)(rng);
        if (step == 0 && trial % 3 != 0) step = 1;
        const int64_t dim = in_shape[a];
        if (step == 0) {  // broadcast
          shape[a] = std::uniform_int_distribution<int64_t>(1, 5)(rng);
          base += std::uniform_int_distribution<int64_t>(0, dim - 1)(rng) * in_strides[a];
        } else if (step > 0) {
          const int64_t start = std::uniform_int_distribution<int64_t>(0, dim - 1)(rng);
          shape[a] = (dim - start + step - 1) / step;
          base += start * in_strides[a];
        } else {
          const int64_t start = std::uniform_int_distribution<int64_t>(0, dim - 1)(rng);
          shape[a] = start / -step + 1;
          base += start * in_strides[a];
        }
        strides[a] = in_strides[a] * step;
      }
      int64_t total = 1;
      for (int64_t d : in_shape) total *= d;
      std::vector<unsigned char> src(static_cast<size_t>(total) * elem);
      for (size_t i = 0; i < src.size(); i++) src[i] = static_cast<unsigned char>(i * 7 + trial);
      const unsigned char* from = src.data() + base * static_cast<int64_t>(elem);
      auto want = naive(from, elem, shape, strides);
      std::vector<unsigned char> got(want.size());
      kernels::strided_copy(from, got.data(), elem, shape, strides);
      ASSERT_EQ(got, want) << "elem " << elem << " trial " << trial;
    }
  }
}

TEST(KernelsStridedCopy, ScalarAndEmpty) {
  const float x = 3.5f;
  float y = 0;
  kernels::strided_copy(&x, &y, sizeof(float), {}, {});
  EXPECT_EQ(y, 3.5f);
  kernels::strided_copy(&x, &y, sizeof(float), {1, 1}, {7, 9});
  EXPECT_EQ(y, 3.5f);
  y = 1;
  kernels::strided_copy(&x, &y, sizeof(float), {4, 0}, {1, 1});
  EXPECT_EQ(y, 1);
}

}  // namespace
}  // namespace kiln
