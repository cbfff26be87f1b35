// A 64-byte aligned array of floats that owns its memory: scratch for the convenience forms of
// kernels that plan and allocate for one call (tests, benchmarks). Ops lend their session's
// scratch instead, so a steady-state run allocates nothing.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <new>

namespace kiln::kernels {

class AlignedFloats {
 public:
  explicit AlignedFloats(size_t count) {
    if (count == 0) return;
    data_ = static_cast<float*>(std::aligned_alloc(64, (count * sizeof(float) + 63) / 64 * 64));
    if (!data_) throw std::bad_alloc();
  }
  ~AlignedFloats() { std::free(data_); }
  AlignedFloats(const AlignedFloats&) = delete;
  AlignedFloats& operator=(const AlignedFloats&) = delete;
  float* data() const { return data_; }

 private:
  float* data_ = nullptr;
};

}  // namespace kiln::kernels
