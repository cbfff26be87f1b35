#include "kernels/conv/grouped_conv.h"

#include <algorithm>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "base/error.h"
#include "kernels/conv/grouped_conv_impl.h"

namespace kiln::kernels {

namespace {

// Floats per vector and rows per tile of each ISA's body (kGcW, kGcRows of its translation
// unit); every body has 3 vectors per tile.
struct GcShape {
  int lanes, rows;
};
GcShape gc_shape(Isa isa) {
  switch (isa) {
    case Isa::Avx512:
      return {16, 8};
    case Isa::Avx2:
      return {8, 4};
    default:
      return {kGcW, kGcRows};  // generic (and NEON, which runs the generic body)
  }
}

int64_t round16(int64_t n) {
  return (n + 15) / 16 * 16;
}

// Row-sized fills and copies without a libc call each: the padded rows of small planes are 7-16
// floats (RegNet-X-400MF pads ~60k such rows per run).
inline void zero_short(float* d, int64_t n) {
  static constexpr float kZeros[8] = {};
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) __builtin_memcpy(d + i, kZeros, sizeof(kZeros));
  // The rest (0-7 floats) in fixed-size moves: a loop there becomes a memset call again.
  const int64_t rest = n - i;
  if (rest & 4) __builtin_memcpy(d + i + (rest & 3), kZeros, 4 * sizeof(float));
  if (rest & 2) __builtin_memcpy(d + i + (rest & 1), kZeros, 2 * sizeof(float));
  if (rest & 1) d[i] = 0.0f;
}
inline void copy_short(float* __restrict d, const float* __restrict s, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) __builtin_memcpy(d + i, s + i, 8 * sizeof(float));
  const int64_t rest = n - i;
  const int64_t i4 = i + (rest & 3), i2 = i + (rest & 1);  // the 4, 2 and 1 at the end
  if (rest & 4) __builtin_memcpy(d + i4, s + i4, 4 * sizeof(float));
  if (rest & 2) __builtin_memcpy(d + i2, s + i2, 2 * sizeof(float));
  if (rest & 1) d[i] = s[i];
}

// e[j] = s[2j], o[j] = s[2j + 1] for j < n. SSE2 on x86 (GCC's own vectorization of the loop
// adds overlap checks and a scalar tail loop to every short row).
inline void split_even_odd(const float* __restrict s, int64_t n, float* __restrict e,
                           float* __restrict o) {
  int64_t j = 0;
#if defined(__SSE2__)
  for (; j + 4 <= n; j += 4) {
    const __m128 lo = _mm_loadu_ps(s + 2 * j), hi = _mm_loadu_ps(s + 2 * j + 4);
    _mm_storeu_ps(e + j, _mm_shuffle_ps(lo, hi, _MM_SHUFFLE(2, 0, 2, 0)));
    _mm_storeu_ps(o + j, _mm_shuffle_ps(lo, hi, _MM_SHUFFLE(3, 1, 3, 1)));
  }
#endif
  for (; j < n; j++) {
    e[j] = s[2 * j];
    o[j] = s[2 * j + 1];
  }
}

}  // namespace

void grouped_conv_items_generic(const GroupedConvArgs& a, const GroupedConvLayout& l, int64_t i0,
                                int64_t i1, const float* planes) {
  grouped_conv_body(a, l, i0, i1, planes);
}

bool grouped_conv_supported(const ConvGeometry& g) {
  return g.in[0] == 1 && g.out[0] == 1 && g.kernel[0] == 1 && g.pad[1] >= 0 && g.pad[2] >= 0 &&
         g.kernel_size() <= kGroupedConvMaxTaps && g.out_size() > 0;
}

GroupedConvLayout grouped_conv_layout(int64_t group, int64_t channels_per_group,
                                      int64_t outputs_per_group, const ConvGeometry& g, Isa isa) {
  KILN_ENSURE(grouped_conv_supported(g), "grouped_conv: unsupported geometry");
  const GcShape shape = gc_shape(isa);
  GroupedConvLayout l;
  l.sy = g.stride[1];
  l.sx = g.stride[2];
  const int64_t reach_y = (g.kernel[1] - 1) * g.dilation[1] / l.sy;
  const int64_t reach_x = (g.kernel[2] - 1) * g.dilation[2] / l.sx;
  // Output column ox reads plane columns up to ox + reach_x, so rows of ow + reach_x suffice.
  // Each output row is cut into vectors, so the row's width sets no vector count; rows a whole
  // number of vectors long keep the vectors' loads aligned alike (14x14 stride 2: rows of 16 ran
  // ~10% faster than rows of 15): taken when they make the planes at most 25% larger (7x7
  // stride 1 keeps rows of 9, not 16: the padding copy is a fifth of the grouped conv's time).
  const int64_t tight = g.out[2] + reach_x;
  const int64_t aligned = (tight + shape.lanes - 1) / shape.lanes * shape.lanes;
  l.pw = (aligned - tight) * 4 <= tight ? aligned : tight;
  l.ph = g.out[1] + reach_y + 1;
  l.lanes = shape.lanes;
  l.row_vectors = (g.out[2] + l.lanes - 1) / l.lanes;
  l.vectors = g.out[1] * l.row_vectors;
  // Tiles of up to 3 vectors, as even as the vectors allow: 4 vectors go as 2 + 2 (16
  // accumulators each on AVX-512) rather than 3 + 1 (the 1-vector tile's 8 accumulators barely
  // cover the FMA latency).
  l.tiles = (l.vectors + 2) / 3;
  // A partial vector reads whole vectors: the last one of a row up to row_vectors * lanes - ow
  // floats past the row's outputs, plus the taps' reach, which can pass a small plane's end
  // (into the next plane's finite values, and after the last plane, this slack).
  l.plane = l.ph * l.pw;
  l.channel_stride = l.sy * l.sx * l.plane;
  l.group_floats =
      round16(channels_per_group * l.channel_stride + (l.row_vectors + 1) * l.lanes + reach_x);
  l.rows = shape.rows;
  l.row_blocks = (outputs_per_group + l.rows - 1) / l.rows;
  l.items = group * l.tiles * l.row_blocks;
  return l;
}

std::vector<float> grouped_conv_weights(const float* w, int64_t out_channels, int64_t group,
                                        int64_t in_per_group, int64_t kernel_size) {
  const int64_t mg = out_channels / group, k = in_per_group * kernel_size;
  std::vector<float> out(static_cast<size_t>(out_channels * k));
  for (int64_t grp = 0; grp < group; grp++) {
    for (int64_t o = 0; o < mg; o++) {
      const float* src = w + (grp * mg + o) * k;
      float* dst = out.data() + grp * k * mg + o;
      for (int64_t kk = 0; kk < k; kk++) dst[kk * mg] = src[kk];
    }
  }
  return out;
}

void grouped_conv_pad(const GroupedConvArgs& a, const GroupedConvLayout& l, int64_t grp,
                      float* planes) {
  const ConvGeometry& g = a.geo;
  const int64_t c0 = grp * a.in_per_group, c1 = c0 + a.in_per_group;
  const int64_t ih = g.in[1], iw = g.in[2];
  // Phase fx of a row: padded column px = x + pad, x0 is the first input column of the phase,
  // col0 its column in the plane, count the input columns it takes.
  struct Phase {
    int64_t x0, col0, count;
  };
  auto phase = [&](int64_t fx) {
    Phase p;
    p.x0 = ((fx - g.pad[2]) % l.sx + l.sx) % l.sx;
    p.col0 = std::min((p.x0 + g.pad[2]) / l.sx, l.pw);
    p.count = p.x0 >= iw ? 0 : std::clamp((iw - p.x0 + l.sx - 1) / l.sx, int64_t{0}, l.pw - p.col0);
    return p;
  };
  auto plane_row = [&](int64_t c, int64_t fy, int64_t fx, int64_t r) {
    return planes + (c - c0) * l.channel_stride + (fy * l.sx + fx) * l.plane + r * l.pw;
  };
  // The input row of plane row r of phase row fy (outside the input: none).
  auto input_row = [&](int64_t c, int64_t fy, int64_t r) -> const float* {
    const int64_t y = r * l.sy + fy - g.pad[1];
    return y < 0 || y >= ih ? nullptr : a.x + (c * ih + y) * iw;
  };
  // Short rows (7x7 to 28x28 planes): the group's planes zeroed by one memset, then only the
  // input columns copied; the zero borders and rows cost a branchy call per row each (a stride-2
  // 400-channel 14x14 -> 7x7 conv pads 7200 rows: half its time went to the padding). Longer
  // rows: every float written once, input rows with their zero borders, rows outside the input
  // zeros.
  const bool zeroed = l.pw <= 64;
  if (zeroed) {
    std::memset(planes, 0, static_cast<size_t>((c1 - c0) * l.channel_stride) * sizeof(float));
  }
  auto zero = [zeroed](float* d, int64_t n) {
    if (!zeroed) zero_short(d, n);
  };
  if (l.sx == 2) {
    // Both column phases from one read of each input row: the phase starting at x0 = 0 takes the
    // even columns, the other the odd ones.
    const Phase p0 = phase(0), p1 = phase(1);
    const int64_t fe = p0.x0 == 0 ? 0 : 1;
    const Phase& pe = fe == 0 ? p0 : p1;
    const Phase& po = fe == 0 ? p1 : p0;
    const int64_t both = std::min(pe.count, po.count);
    // The loop's invariants in locals (through the lambdas' captures, the per-row address
    // arithmetic reloaded them every row: most of the padding's time on 7x7 to 28x28 outputs).
    const int64_t pw = l.pw, ph = l.ph, sy = l.sy, plane = l.plane, cs = l.channel_stride;
    const int64_t ne = pe.count, no = po.count;
    const int64_t at_e = fe * plane, at_o = (1 - fe) * plane;
    for (int64_t c = c0; c < c1; c++) {
      const float* xc = a.x + c * ih * iw;
      for (int64_t fy = 0; fy < sy; fy++) {
        // Plane row r holds input row y = r * sy + off: rows [r_lo, r_hi) are inside.
        const int64_t off = fy - g.pad[1];
        const int64_t r_lo = off >= 0 ? 0 : (sy - 1 - off) / sy;
        const int64_t r_hi = ih - off <= 0 ? 0 : std::min(ph, (ih - off + sy - 1) / sy);
        float* rows = planes + (c - c0) * cs + fy * 2 * plane;
        for (int64_t r = 0; r < ph; r++) {
          float* __restrict de = rows + r * pw + at_e;
          float* __restrict dodd = rows + r * pw + at_o;
          if (r < r_lo || r >= r_hi) {
            zero(de, pw);
            zero(dodd, pw);
            continue;
          }
          const float* __restrict src = xc + (r * sy + off) * iw;
          float* __restrict e = de + pe.col0;
          float* __restrict o = dodd + po.col0;
          zero(de, pe.col0);
          zero(dodd, po.col0);
          split_even_odd(src, both, e, o);
          for (int64_t j = both; j < ne; j++) e[j] = src[2 * j];
          for (int64_t j = both; j < no; j++) o[j] = src[2 * j + 1];
          zero(e + ne, pw - pe.col0 - ne);
          zero(o + no, pw - po.col0 - no);
        }
      }
    }
  } else {
    for (int64_t fx = 0; fx < l.sx; fx++) {
      const Phase p = phase(fx);
      for (int64_t c = c0; c < c1; c++) {
        for (int64_t fy = 0; fy < l.sy; fy++) {
          for (int64_t r = 0; r < l.ph; r++) {
            float* d = plane_row(c, fy, fx, r);
            const float* row = input_row(c, fy, r);
            if (row == nullptr || p.count == 0) {
              zero(d, l.pw);
              continue;
            }
            const float* src = row + p.x0;
            zero(d, p.col0);
            if (l.sx == 1) {
              copy_short(d + p.col0, src, p.count);
            } else {
              for (int64_t j = 0; j < p.count; j++) d[p.col0 + j] = src[j * l.sx];
            }
            zero(d + p.col0 + p.count, l.pw - p.col0 - p.count);
          }
        }
      }
    }
  }
  // The slack after the last plane, read by the last tiles' whole vectors (their lanes past the
  // outputs; earlier planes' reads past their end land in the next plane).
  const int64_t used = (c1 - c0) * l.channel_stride;
  std::memset(planes + used, 0, static_cast<size_t>(l.group_floats - used) * sizeof(float));
}

void grouped_conv_run(const GroupedConvArgs& a, const GroupedConvLayout& l, int64_t i0, int64_t i1,
                      float* slot, int64_t& padded, Isa isa) {
  const int64_t per_group = l.items / a.group;
  for (int64_t i = i0; i < i1;) {
    const int64_t grp = i / per_group, end = std::min(i1, (grp + 1) * per_group);
    if (padded != grp) grouped_conv_pad(a, l, grp, slot);
    padded = grp;
    switch (isa) {
#if defined(__x86_64__)
      case Isa::Avx512:
        grouped_conv_items_avx512(a, l, i, end, slot);
        break;
      case Isa::Avx2:
        grouped_conv_items_avx2(a, l, i, end, slot);
        break;
#endif
      default:
        grouped_conv_items_generic(a, l, i, end, slot);
        break;
    }
    i = end;
  }
}

}  // namespace kiln::kernels
