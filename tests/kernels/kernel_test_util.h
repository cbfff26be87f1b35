// Helpers shared by the kernel tests: random vectors, the epilogue a test mask selects, and float
// buffers flush against inaccessible pages (a kernel reading or writing one float outside them
// crashes the test).
#pragma once

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

#include "kernels/mmm/mmm.h"

namespace kiln::test {

inline constexpr double kEps = 1.1920929e-7;  // float32 epsilon

inline std::vector<float> random_vector(std::mt19937& rng, size_t n, float lo = -1, float hi = 1) {
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<float> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

// How a test sets up the epilogue of an m x n product; bit i of `mask` enables feature i (the
// residual has row stride n + 3).
struct EpilogueData {
  std::vector<float> row_scale, col_scale, row_bias, col_bias, residual;
  kernels::Epilogue ep;
};

inline EpilogueData make_epilogue(std::mt19937& rng, int mask, int64_t m, int64_t n) {
  EpilogueData d;
  if (mask & 1) d.row_scale = random_vector(rng, m, 0.5f, 2);
  if (mask & 2) d.col_scale = random_vector(rng, n, 0.5f, 2);
  if (mask & 4) d.row_bias = random_vector(rng, m);
  if (mask & 8) d.col_bias = random_vector(rng, n);
  if (mask & 16) d.residual = random_vector(rng, m * (n + 3));
  d.ep.row_scale = d.row_scale.empty() ? nullptr : d.row_scale.data();
  d.ep.col_scale = d.col_scale.empty() ? nullptr : d.col_scale.data();
  d.ep.row_bias = d.row_bias.empty() ? nullptr : d.row_bias.data();
  d.ep.col_bias = d.col_bias.empty() ? nullptr : d.col_bias.data();
  d.ep.residual = d.residual.empty() ? nullptr : d.residual.data();
  d.ep.residual_ld = n + 3;
  d.ep.accumulate = (mask & 32) != 0;
  if (mask & 64) {
    d.ep.leaky = true;
    d.ep.leaky_alpha = 0.1f;
  }
  if (mask & 128) d.ep.min = 0;             // Relu
  if (mask & 256) d.ep.max = 0.75f;         // with Relu: Clip(0, 0.75)
  if (mask & 512) d.ep.min = -0.25f;        // Clip(-0.25, ...)
  d.ep.residual_last = (mask & 1024) != 0;  // the residual after leaky / clamp
  return d;
}

// Compares out (m x n, row stride ldc, two guard columns and rows) against epilogue(dot) where
// dot(i, j) returns {sum, sum of magnitudes} in double; `before` is out before the call. The
// tolerance, 16 eps * sum |a * b| (+ eps-level slack for the epilogue), is far above float32
// rounding of a k-term dot product (k <= 4096) and far below one missing or wrong term.
template <class Dot>
inline void expect_matches(int64_t m, int64_t n, const EpilogueData& e,
                           const std::vector<float>& out, const std::vector<float>& before,
                           int64_t ldc, Dot dot) {
  int bad = 0;
  for (int64_t i = 0; i < m; i++) {
    for (int64_t j = 0; j < n; j++) {
      auto [acc, mag] = dot(i, j);
      double scale = 1;
      if (e.ep.row_scale) scale *= e.row_scale[i];
      if (e.ep.col_scale) scale *= e.col_scale[j];
      double v = acc * scale;
      if (e.ep.row_bias) v += e.row_bias[i];
      if (e.ep.col_bias) v += e.col_bias[j];
      const bool last = e.ep.residual_last;
      if (e.ep.residual && !last) v += e.residual[i * e.ep.residual_ld + j];
      if (e.ep.accumulate) v += before[i * ldc + j];
      if (e.ep.leaky && v < 0) v *= e.ep.leaky_alpha;
      v = std::min<double>(std::max<double>(v, e.ep.min), e.ep.max);
      if (e.ep.residual && last) v += e.residual[i * e.ep.residual_ld + j];
      double tol = 16 * kEps * mag * scale + 8 * kEps * (1 + std::fabs(v));
      double got = out[i * ldc + j];
      if (!(std::fabs(got - v) <= tol) && bad++ < 5) {
        ADD_FAILURE() << "C[" << i << "," << j << "] = " << got << ", expected " << v << " (tol "
                      << tol << ")";
      }
    }
    for (int64_t j = n; j < ldc; j++) ASSERT_EQ(out[i * ldc + j], before[i * ldc + j]);
  }
  for (int64_t i = m * ldc; i < (m + 2) * ldc; i++) ASSERT_EQ(out[i], before[i]);
  EXPECT_EQ(bad, 0);
}

// `count` floats with no accessible byte right before or right after them (at_end: the floats end
// at a guard page; otherwise they start right after one).
class GuardedFloats {
 public:
  explicit GuardedFloats(size_t count, bool at_end = true) {
    page_ = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    const size_t bytes = std::max<size_t>(count * sizeof(float), 1);
    const size_t body = (bytes + page_ - 1) / page_ * page_;
    size_ = body + 2 * page_;
    base_ = static_cast<char*>(
        mmap(nullptr, size_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    EXPECT_NE(base_, MAP_FAILED);
    mprotect(base_, page_, PROT_NONE);
    mprotect(base_ + page_ + body, page_, PROT_NONE);
    data_ = reinterpret_cast<float*>(at_end ? base_ + page_ + body - count * sizeof(float)
                                            : base_ + page_);
  }
  ~GuardedFloats() { munmap(base_, size_); }
  GuardedFloats(const GuardedFloats&) = delete;
  GuardedFloats& operator=(const GuardedFloats&) = delete;
  float* data() { return data_; }

 private:
  size_t page_ = 0, size_ = 0;
  char* base_ = nullptr;
  float* data_ = nullptr;
};

}  // namespace kiln::test
