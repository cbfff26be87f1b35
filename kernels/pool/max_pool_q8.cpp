#include "kernels/pool/max_pool_q8.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <type_traits>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace kiln::kernels {

namespace {

// The windows of one output row over the column maxima cm (in_w values, kQ8RowPad readable
// bytes after them).
template <class T>
void row_max(const T* __restrict cm, T* __restrict out, const MaxPool2dGeometry& g) {
  const T lowest = std::numeric_limits<T>::lowest();
  const int64_t sw = g.stride_w, kw = g.kernel_w, pw = g.pad_w;
  // Outputs [lo, hi) have their whole window inside the row.
  const int64_t lo = std::min<int64_t>((pw + sw - 1) / sw, g.out_w);
  const int64_t hi =
      std::clamp<int64_t>(g.in_w - kw + pw >= 0 ? (g.in_w - kw + pw) / sw + 1 : 0, lo, g.out_w);
  auto edge = [&](int64_t ox) {
    const int64_t x0 = std::max<int64_t>(ox * sw - pw, 0);
    const int64_t x1 = std::min<int64_t>(ox * sw - pw + kw, g.in_w);
    T best = lowest;
    for (int64_t i = x0; i < x1; i++) best = std::max(best, cm[i]);
    out[ox] = best;
  };
  for (int64_t ox = 0; ox < lo; ox++) edge(ox);
  int64_t ox = lo;
  if (kw == 3 && sw == 1) {
    for (; ox < hi; ox++) {
      const T* c = cm + ox - pw;
      out[ox] = std::max(std::max(c[0], c[1]), c[2]);
    }
  } else if (kw == 3 && sw == 2) {
#if defined(__SSE2__)
    if constexpr (std::is_same_v<T, uint8_t>) {
      // 16 outputs: the even and odd bytes of their windows' 32 (+ 2) bytes, by mask and pack.
      const __m128i m = _mm_set1_epi16(0xff);
      auto step = [&](int64_t o) {
        const uint8_t* c = cm + 2 * o - pw;
        auto ld = [](const uint8_t* q) {
          return _mm_loadu_si128(reinterpret_cast<const __m128i*>(q));
        };
        const __m128i a = ld(c), b = ld(c + 16), a2 = ld(c + 2), b2 = ld(c + 18);
        const __m128i even = _mm_packus_epi16(_mm_and_si128(a, m), _mm_and_si128(b, m));
        const __m128i odd = _mm_packus_epi16(_mm_srli_epi16(a, 8), _mm_srli_epi16(b, 8));
        const __m128i next = _mm_packus_epi16(_mm_and_si128(a2, m), _mm_and_si128(b2, m));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(out + o),
                         _mm_max_epu8(_mm_max_epu8(even, odd), next));
      };
      for (; ox + 16 <= hi; ox += 16) step(ox);
      // The last outputs: one more step ending at hi, overlapping outputs already written (with
      // the same values); hi - 16 >= lo keeps its windows inside the row.
      if (ox < hi && hi - lo >= 16) {
        step(hi - 16);
        ox = hi;
      }
    }
#endif
    for (; ox < hi; ox++) {
      const T* c = cm + 2 * ox - pw;
      out[ox] = std::max(std::max(c[0], c[1]), c[2]);
    }
  } else {
    for (; ox < hi; ox++) {
      const T* c = cm + ox * sw - pw;
      T best = c[0];
      for (int64_t i = 1; i < kw; i++) best = std::max(best, c[i]);
      out[ox] = best;
    }
  }
  for (ox = hi; ox < g.out_w; ox++) edge(ox);
}

// cm[i] = the maximum of rows[r * w + i] over the window's n >= 1 rows, i < w.
template <class T>
void col_max(const T* __restrict rows, int64_t n, int64_t w, T* __restrict cm) {
#if defined(__SSE2__)
  if constexpr (std::is_same_v<T, uint8_t>) {
    if (w >= 16) {
      // 16 columns of every row at a time, the last step overlapping the one before.
      for (int64_t i = 0;; i += 16) {
        const int64_t at = std::min(i, w - 16);
        __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(rows + at));
        for (int64_t r = 1; r < n; r++)
          v = _mm_max_epu8(v, _mm_loadu_si128(reinterpret_cast<const __m128i*>(rows + r * w + at)));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(cm + at), v);
        if (at == w - 16) return;
      }
    }
  }
#endif
  std::memcpy(cm, rows, static_cast<size_t>(w) * sizeof(T));
  for (int64_t r = 1; r < n; r++) {
    const T* q = rows + r * w;
    for (int64_t i = 0; i < w; i++) cm[i] = std::max(cm[i], q[i]);
  }
}

template <class T>
void max_pool_2d_q8(const T* __restrict x, T* __restrict y, int64_t planes,
                    const MaxPool2dGeometry& g, T* __restrict row) {
  const int64_t in_plane = g.in_h * g.in_w, out_plane = g.out_h * g.out_w;
  const T lowest = std::numeric_limits<T>::lowest();
  // The bytes a vector may read past the row (never used): defined values.
  std::memset(row + g.in_w, 0, kQ8RowPad);
  for (int64_t p = 0; p < planes; p++) {
    const T* xp = x + p * in_plane;
    T* yp = y + p * out_plane;
    for (int64_t oy = 0; oy < g.out_h; oy++) {
      T* out = yp + oy * g.out_w;
      const int64_t y0 = std::max<int64_t>(oy * g.stride_h - g.pad_h, 0);
      const int64_t y1 = std::min<int64_t>(oy * g.stride_h - g.pad_h + g.kernel_h, g.in_h);
      if (y1 <= y0) {
        std::fill(out, out + g.out_w, lowest);
        continue;
      }
      col_max(xp + y0 * g.in_w, y1 - y0, g.in_w, row);
      row_max(row, out, g);
    }
  }
}

}  // namespace

void max_pool_2d_u8(const uint8_t* x, uint8_t* y, int64_t planes, const MaxPool2dGeometry& g,
                    uint8_t* row) {
  max_pool_2d_q8(x, y, planes, g, row);
}

void max_pool_2d_i8(const int8_t* x, int8_t* y, int64_t planes, const MaxPool2dGeometry& g,
                    int8_t* row) {
  max_pool_2d_q8(x, y, planes, g, row);
}

}  // namespace kiln::kernels
