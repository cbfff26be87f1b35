// Vector helpers of the depthwise and Winograd kernels (GCC vector extensions, W floats per
// vector): loads and stores of row vectors, stride-2 deinterleave, W x W register transposes, and
// where the output vectors of a row start. Included by kernels/conv/depthwise_rows_impl.h and
// winograd_impl.h (anonymous namespace, compiled once per ISA).
#pragma once

#include <algorithm>
#include <cstdint>

namespace kiln::kernels {
namespace {

template <int W>
struct RowVec {
  typedef float type __attribute__((vector_size(W * 4)));
  typedef int index __attribute__((vector_size(W * 4)));
};

template <int W>
inline typename RowVec<W>::type load_row_vec(const float* p) {
  typename RowVec<W>::type v;
  __builtin_memcpy(&v, p, sizeof(v));
  return v;
}

template <int W>
inline void store_vec(float* p, typename RowVec<W>::type v) {
  __builtin_memcpy(p, &v, sizeof(v));
}

// Stores v's first min(W, n) lanes at dst.
template <int W>
inline void store_row_vec(float* dst, typename RowVec<W>::type v, int64_t n) {
  if (n >= W) {
    store_vec<W>(dst, v);
  } else {
    for (int64_t i = 0; i < n; i++) dst[i] = v[i];
  }
}

// The even and odd lanes of the 2W lanes a:b (a[0], a[2], ..., b[0], b[2], ... and the odd ones).
template <int W>
inline void even_odd(typename RowVec<W>::type a, typename RowVec<W>::type b,
                     typename RowVec<W>::type& even, typename RowVec<W>::type& odd) {
  if constexpr (W == 2) {
    even = __builtin_shufflevector(a, b, 0, 2);
    odd = __builtin_shufflevector(a, b, 1, 3);
  } else if constexpr (W == 4) {
    even = __builtin_shufflevector(a, b, 0, 2, 4, 6);
    odd = __builtin_shufflevector(a, b, 1, 3, 5, 7);
  } else if constexpr (W == 8) {
    even = __builtin_shufflevector(a, b, 0, 2, 4, 6, 8, 10, 12, 14);
    odd = __builtin_shufflevector(a, b, 1, 3, 5, 7, 9, 11, 13, 15);
  } else {
    static_assert(W == 16, "vector width");
    even = __builtin_shufflevector(a, b, 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    odd = __builtin_shufflevector(a, b, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
  }
}

// The even and odd floats of the 2W at s.
template <int W>
inline void deinterleave(const float* s, typename RowVec<W>::type& even,
                         typename RowVec<W>::type& odd) {
  if constexpr (W == 8) {
    // Gather 128-bit halves as lo = s[0..4) s[8..12), hi = s[4..8) s[12..16) (a load and an
    // insert each), then one in-lane shuffle per result: no cross-lane permute.
    typedef float Half __attribute__((vector_size(16)));
    auto half = [](const float* p) {
      Half h;
      __builtin_memcpy(&h, p, sizeof(h));
      return h;
    };
    const auto lo = __builtin_shufflevector(half(s), half(s + 8), 0, 1, 2, 3, 4, 5, 6, 7);
    const auto hi = __builtin_shufflevector(half(s + 4), half(s + 12), 0, 1, 2, 3, 4, 5, 6, 7);
    even = __builtin_shufflevector(lo, hi, 0, 2, 8, 10, 4, 6, 12, 14);
    odd = __builtin_shufflevector(lo, hi, 1, 3, 9, 11, 5, 7, 13, 15);
  } else {
    even_odd<W>(load_row_vec<W>(s), load_row_vec<W>(s + W), even, odd);
  }
}

// In-place transpose of the W x W matrix whose rows are r[0..W).
template <int W>
inline void transpose(typename RowVec<W>::type (&r)[W]) {
  using V = typename RowVec<W>::type;
  if constexpr (W == 8) {
    // unpack lo/hi, 64-bit pair shuffles, 128-bit halves: 24 in-lane or lane-swap shuffles.
    V t[8], u[8];
    for (int i = 0; i < 8; i += 2) {
      t[i] = __builtin_shufflevector(r[i], r[i + 1], 0, 8, 1, 9, 4, 12, 5, 13);
      t[i + 1] = __builtin_shufflevector(r[i], r[i + 1], 2, 10, 3, 11, 6, 14, 7, 15);
    }
    for (int i = 0; i < 8; i += 4) {
      for (int j = 0; j < 2; j++) {
        u[i + 2 * j] = __builtin_shufflevector(t[i + j], t[i + j + 2], 0, 1, 8, 9, 4, 5, 12, 13);
        u[i + 2 * j + 1] =
            __builtin_shufflevector(t[i + j], t[i + j + 2], 2, 3, 10, 11, 6, 7, 14, 15);
      }
    }
    // u[0..3]: columns (0,4), (1,5), (2,6), (3,7) of rows 0-3 (low half / high half); u[4..7]
    // the same for rows 4-7.
    for (int j = 0; j < 4; j++) {
      r[j] = __builtin_shufflevector(u[j], u[j + 4], 0, 1, 2, 3, 8, 9, 10, 11);
      r[j + 4] = __builtin_shufflevector(u[j], u[j + 4], 4, 5, 6, 7, 12, 13, 14, 15);
    }
  } else {
    // log2(W) rounds of zips: out[2i] = zip_lo(in[i], in[i + W/2]), out[2i+1] = zip_hi(...).
    static_assert(W == 4 || W == 16, "vector width");
    // (Constant shuffles: __builtin_shufflevector, which GCC 12 and clang both compile.)
    constexpr int rounds = W == 4 ? 2 : 4;
    for (int round = 0; round < rounds; round++) {
      V t[W];
      for (int i = 0; i < W / 2; i++) {
        if constexpr (W == 4) {
          t[2 * i] = __builtin_shufflevector(r[i], r[i + 2], 0, 4, 1, 5);
          t[2 * i + 1] = __builtin_shufflevector(r[i], r[i + 2], 2, 6, 3, 7);
        } else {
          t[2 * i] = __builtin_shufflevector(r[i], r[i + 8], 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5,
                                             21, 6, 22, 7, 23);
          t[2 * i + 1] = __builtin_shufflevector(r[i], r[i + 8], 8, 24, 9, 25, 10, 26, 11, 27, 12,
                                                 28, 13, 29, 14, 30, 15, 31);
        }
      }
      for (int i = 0; i < W; i++) r[i] = t[i];
    }
  }
}

// r[j] = {s[j], s[ld + j], ..., s[(W - 1) ld + j]} for j < W: W rows of W floats (row stride ld)
// loaded and transposed. On AVX2 the rows' 128-bit halves are loaded straight into the halves of
// the registers (a load and an insert each) and only in-lane shuffles follow: 16 shuffles instead
// of transpose()'s 24.
template <int W>
__attribute__((always_inline)) inline void load_transposed(const float* s, int64_t ld,
                                                           typename RowVec<W>::type (&r)[W]) {
  if constexpr (W == 8) {
    using V = typename RowVec<W>::type;
    typedef float Half __attribute__((vector_size(16)));
    auto half = [](const float* p) {
      Half h;
      __builtin_memcpy(&h, p, sizeof(h));
      return h;
    };
    for (int h = 0; h < 2; h++) {
      // t[i] = row i's floats 4h .. 4h + 4, then row i + 4's.
      V t[4];
      for (int i = 0; i < 4; i++) {
        t[i] = __builtin_shufflevector(half(s + i * ld + 4 * h), half(s + (i + 4) * ld + 4 * h), 0,
                                       1, 2, 3, 4, 5, 6, 7);
      }
      const V u0 = __builtin_shufflevector(t[0], t[1], 0, 8, 1, 9, 4, 12, 5, 13);
      const V u1 = __builtin_shufflevector(t[0], t[1], 2, 10, 3, 11, 6, 14, 7, 15);
      const V u2 = __builtin_shufflevector(t[2], t[3], 0, 8, 1, 9, 4, 12, 5, 13);
      const V u3 = __builtin_shufflevector(t[2], t[3], 2, 10, 3, 11, 6, 14, 7, 15);
      r[4 * h] = __builtin_shufflevector(u0, u2, 0, 1, 8, 9, 4, 5, 12, 13);
      r[4 * h + 1] = __builtin_shufflevector(u0, u2, 2, 3, 10, 11, 6, 7, 14, 15);
      r[4 * h + 2] = __builtin_shufflevector(u1, u3, 0, 1, 8, 9, 4, 5, 12, 13);
      r[4 * h + 3] = __builtin_shufflevector(u1, u3, 2, 3, 10, 11, 6, 7, 14, 15);
    }
  } else {
    for (int c = 0; c < W; c++) r[c] = load_row_vec<W>(s + c * ld);
    transpose<W>(r);
  }
}

// Where the output vectors of one row start: v * W for v < count - 1, the last at ow - W (or 0
// when ow < W: then it is stored partially).
struct RowVectors {
  int64_t w, count, last;
  RowVectors(int64_t ow, int64_t width)
      : w(width), count((ow + width - 1) / width), last(std::max<int64_t>(0, ow - width)) {}
  int64_t at(int64_t v) const { return v == count - 1 ? last : v * w; }
};

}  // namespace
}  // namespace kiln::kernels
