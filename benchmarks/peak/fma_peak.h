// A loop of independent FMAs that runs at the core's peak FMA rate: the yardstick the matrix
// multiply's efficiency is measured against (benchmarks/, docs/performance.md).
#pragma once

#include <cstdint>

#include "kernels/mmm/mmm.h"

namespace kiln::kernels {

// Runs `iterations` rounds of 12 independent vector FMAs of `isa`'s width; returns a value that
// depends on all of them (so the work is not optimised away). FLOPs per call: fma_peak_flops().
float fma_peak(Isa isa, int64_t iterations);
// 2 * lanes * 12 * iterations.
double fma_peak_flops(Isa isa, int64_t iterations);

float fma_peak_avx2(int64_t iterations);
float fma_peak_avx512(int64_t iterations);
#if defined(__aarch64__) || defined(__arm__)
float fma_peak_neon(int64_t iterations);
#endif

}  // namespace kiln::kernels
