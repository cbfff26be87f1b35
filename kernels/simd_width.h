// The f32 vector width (floats per vector) of the ISA the including file is compiled for: the
// kernels written once in GCC/Clang vector extensions (vec_math, depthwise, Winograd) size their
// vectors with it. Anonymous namespace: each per-ISA translation unit gets its own value.
#pragma once

namespace kiln::kernels {
namespace {

#if defined(__AVX512F__)
constexpr int kSimdFloats = 16;
#elif defined(__AVX__)
constexpr int kSimdFloats = 8;
#else
constexpr int kSimdFloats = 4;
#endif

}  // namespace
}  // namespace kiln::kernels
