// 16 (or 8) byte pairs split into their even and odd bytes with SSE2 (the column phases of a
// stride-2 row): the step the int8 im2col (qim2col.cpp) and the int8 depthwise phase planes
// (qdepthwise_impl.h, its AVX2 tail) share.
#pragma once

#include <cstdint>

#if defined(__SSE2__)
#include <emmintrin.h>

namespace kiln::kernels {

// even[j] = src[2j], odd[j] = src[2j + 1] for j < 16 (src: 32 bytes).
inline void q8_split2_16(const uint8_t* __restrict src, uint8_t* __restrict even,
                         uint8_t* __restrict odd) {
  const __m128i lo = _mm_set1_epi16(0x00ff);
  const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src));
  const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + 16));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(even),
                   _mm_packus_epi16(_mm_and_si128(a, lo), _mm_and_si128(b, lo)));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(odd),
                   _mm_packus_epi16(_mm_srli_epi16(a, 8), _mm_srli_epi16(b, 8)));
}

// even[j] = src[2j], odd[j] = src[2j + 1] for j < 8 (src: 16 bytes).
inline void q8_split2_8(const uint8_t* __restrict src, uint8_t* __restrict even,
                        uint8_t* __restrict odd) {
  const __m128i lo = _mm_set1_epi16(0x00ff);
  const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src));
  _mm_storel_epi64(reinterpret_cast<__m128i*>(even), _mm_packus_epi16(_mm_and_si128(a, lo), lo));
  _mm_storel_epi64(reinterpret_cast<__m128i*>(odd), _mm_packus_epi16(_mm_srli_epi16(a, 8), lo));
}

}  // namespace kiln::kernels
#endif
