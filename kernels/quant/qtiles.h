// The int8 micro-kernels of this build (defined in each ISA's file, listed by qmmm.cpp).
#pragma once

#include "kernels/quant/qmmm.h"

namespace kiln::kernels {

extern const QMicroKernel kQGenericWide;  // qtile_generic.cpp
#if defined(__x86_64__) && defined(KILN_HAVE_X86_TILES)
extern const QMicroKernel kQAvx2Wide;             // x86_64/qtile_avx2.cpp
extern const QMicroKernel kQAvx512Wide;           // x86_64/qtile_avx512.cpp
extern const QMicroKernel kQAvx512VnniSignedA;    // x86_64/qtile_avx512vnni.cpp (A s8, B u8)
extern const QMicroKernel kQAvx512VnniUnsignedA;  // (A u8, B s8)
#endif
#if defined(KILN_HAVE_NEON_TILES)
extern const QMicroKernel kQNeonWide;  // arm/qtile_neon.cpp
#if defined(__aarch64__)
extern const QMicroKernel kQNeonDotSignedA;    // arm/qtile_neondot.cpp (SDOT; B the zp side)
extern const QMicroKernel kQNeonDotUnsignedA;  // (A the zero-point side)
#endif
#endif

}  // namespace kiln::kernels
