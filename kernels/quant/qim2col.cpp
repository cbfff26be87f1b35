#include "kernels/quant/qim2col.h"

#include <algorithm>
#include <cstring>

#include "kernels/quant/qsplit.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace kiln::kernels {

namespace {

// The padded copy's layout: HP rows (the padded rows any output reads) of `stride` phases of
// WQ bytes each (ceil(WP / stride) values, then slack for the 16-byte copies).
struct Im2colLayout {
  int64_t hp, wp, wq, row;  // row: bytes per padded row (stride_w * wq)
};

Im2colLayout layout(const QDepthwisePlane& g) {
  Im2colLayout l;
  l.hp = (g.oh - 1) * g.stride_h + (g.kh - 1) * g.dil_h + 1;
  l.wp = (g.ow - 1) * g.stride_w + (g.kw - 1) * g.dil_w + 1;
  l.wq = (l.wp + g.stride_w - 1) / g.stride_w + 16;
  l.row = g.stride_w * l.wq;
  return l;
}

// n bytes, 16 at a time: reads and writes up to 15 bytes past n. GCC recognizes the loop as a
// copy and calls memmove for it, once per output row and tap (1.1M calls in two runs of an int8
// RegNet, 4% of its instructions in the calls alone); the empty asm makes each 16 bytes opaque,
// so the loop stays a loop.
inline void copy16(uint8_t* __restrict dst, const uint8_t* __restrict src, int64_t n) {
#if defined(__SSE2__)
  for (int64_t j = 0; j < n; j += 16) {
    __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + j));
    asm("" : "+x"(v));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + j), v);
  }
#else
  for (int64_t j = 0; j < n; j += 16) std::memcpy(dst + j, src + j, 16);
#endif
}

// n bytes of v, 16 at a time (opaque stores, as copy16): writes up to 15 bytes past n.
inline void fill16(uint8_t* dst, uint8_t v, int64_t n) {
#if defined(__SSE2__)
  __m128i b = _mm_set1_epi8(static_cast<char>(v));
  for (int64_t j = 0; j < n; j += 16) {
    asm("" : "+x"(b));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + j), b);
  }
#else
  std::memset(dst, v, static_cast<size_t>((n + 15) / 16 * 16));
#endif
}

// even[j] = src[2j], odd[j] = src[2j + 1] for j < n; src readable to 2n + 31.
void split2(const uint8_t* __restrict src, uint8_t* __restrict even, uint8_t* __restrict odd,
            int64_t n) {
  int64_t j = 0;
#if defined(__SSE2__)
  for (; j < n; j += 16) q8_split2_16(src + 2 * j, even + j, odd + j);
#else
  for (; j < n; j++) {
    even[j] = src[2 * j];
    odd[j] = src[2 * j + 1];
  }
#endif
}

}  // namespace

size_t q8_im2col_scratch_bytes(const QDepthwisePlane& g) {
  const Im2colLayout l = layout(g);
  // The padded channel, then one padded row (the column split's source) with slack.
  return static_cast<size_t>(l.hp * l.row + l.row + 64);
}

void q8_im2col(const QDepthwisePlane& g, int64_t channels, const uint8_t* x, uint8_t pad,
               uint8_t* cols, void* scratch) {
  const Im2colLayout l = layout(g);
  const int64_t s = g.stride_w, plane = g.oh * g.ow;
  uint8_t* buf = static_cast<uint8_t*>(scratch);
  uint8_t* line = buf + l.hp * l.row;  // s > 1: one padded row before its split
  // Padded columns [c_lo, c_hi) hold the input row's values x[c - pad_left].
  const int64_t c_lo = std::clamp<int64_t>(g.pad_left, 0, l.wp);
  const int64_t c_hi = std::clamp<int64_t>(g.pad_left + g.w, c_lo, l.wp);
  const uint8_t* x_end = x + channels * g.h * g.w;
  for (int64_t ci = 0; ci < channels; ci++) {
    const uint8_t* xc = x + ci * g.h * g.w;
    for (int64_t r = 0; r < l.hp; r++) {
      uint8_t* dst = buf + r * l.row;
      const int64_t iy = r - g.pad_top;
      if (iy < 0 || iy >= g.h) {
        std::memset(dst, pad, static_cast<size_t>(l.row));
        continue;
      }
      uint8_t* row = s == 1 ? dst : line;
      const int64_t len = s == 1 ? l.row : s * l.wq;
      // The leading padding, the values and the trailing padding in 16-byte steps instead of
      // three libc calls per row, each part running up to 15 bytes into the next one (written
      // after it) or into the row's slack. The values' last step reads past the input row, so
      // the group's last bytes are copied exactly.
      const uint8_t* src = xc + iy * g.w + (c_lo - g.pad_left);
      const int64_t n = c_hi - c_lo;
      fill16(row, pad, c_lo);
      if (src + (n + 15) / 16 * 16 <= x_end)
        copy16(row + c_lo, src, n);
      else
        std::memcpy(row + c_lo, src, static_cast<size_t>(n));
      fill16(row + c_hi, pad, len - c_hi);
      if (s == 2) {
        split2(line, dst, dst + l.wq, l.wq - 16);
      } else if (s > 2) {
        for (int64_t q = 0; q < s; q++)
          for (int64_t j = 0; j < l.wq - 16; j++) dst[q * l.wq + j] = line[j * s + q];
      }
    }
    for (int64_t ky = 0; ky < g.kh; ky++)
      for (int64_t kx = 0; kx < g.kw; kx++) {
        uint8_t* out = cols + ((ci * g.kh + ky) * g.kw + kx) * plane;
        const int64_t c0 = kx * g.dil_w;
        const uint8_t* src = buf + ky * g.dil_h * l.row + (c0 % s) * l.wq + c0 / s;
        for (int64_t oy = 0; oy < g.oh; oy++)
          copy16(out + oy * g.ow, src + oy * g.stride_h * l.row, g.ow);
      }
  }
}

}  // namespace kiln::kernels
