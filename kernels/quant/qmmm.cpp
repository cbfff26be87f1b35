#include "kernels/quant/qmmm.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "base/error.h"
#include "base/threading.h"
#include "kernels/mmm/tile_args.h"
#include "kernels/quant/qdepthwise_channels_impl.h"
#include "kernels/quant/qdepthwise_impl.h"
#include "kernels/quant/qtile_impl.h"
#include "kernels/quant/qtiles.h"

namespace kiln::kernels {

namespace {

size_t out_size(OutputType t) {
  return t == OutputType::F32 || t == OutputType::I32 ? 4 : 1;
}

int64_t groups(const QMicroKernel& kern, int64_t k) {
  const int g = qk_group(kern.format);
  return (k + g - 1) / g;
}

int32_t value_at(const QOperand& o, int64_t lane, int64_t kk) {
  const int64_t at = lane * o.stride_lane + kk * o.stride_k;
  return o.is_signed ? static_cast<const int8_t*>(o.data)[at]
                     : static_cast<const uint8_t*>(o.data)[at];
}

int32_t zp_at(const QOperand& o, int64_t lane) {
  if (!o.zp) return 0;
  return o.zp_per_lane ? o.zp[lane] : o.zp[0];
}

#if defined(__SSE2__)
// Wide16 B rows kk, kk + 1 of w lanes (w a multiple of 16) as i16 pairs minus the zero point:
// out[2l] = r0[l] - z, out[2l + 1] = r1[l] - z (SSE2, the x86-64 baseline).
void pack_wide16_pairs(const uint8_t* r0, const uint8_t* r1, bool is_signed, int32_t z, int64_t w,
                       int16_t* out) {
  const __m128i zero = _mm_setzero_si128(), zv = _mm_set1_epi16(static_cast<int16_t>(z));
  auto widen = [&](__m128i v, bool hi) {
    const __m128i x = hi ? _mm_unpackhi_epi8(v, is_signed ? v : zero)
                         : _mm_unpacklo_epi8(v, is_signed ? v : zero);
    return _mm_sub_epi16(is_signed ? _mm_srai_epi16(x, 8) : x, zv);
  };
  for (int64_t l = 0; l < w; l += 16) {
    const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(r0 + l));
    const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(r1 + l));
    const __m128i a0 = widen(a, false), a1 = widen(a, true);
    const __m128i b0 = widen(b, false), b1 = widen(b, true);
    __m128i* o = reinterpret_cast<__m128i*>(out + l * 2);
    _mm_storeu_si128(o, _mm_unpacklo_epi16(a0, b0));
    _mm_storeu_si128(o + 1, _mm_unpackhi_epi16(a0, b0));
    _mm_storeu_si128(o + 2, _mm_unpacklo_epi16(a1, b1));
    _mm_storeu_si128(o + 3, _mm_unpackhi_epi16(a1, b1));
  }
}

// Dot4 B rows kk..kk + 3 (ld apart) of w lanes (w a multiple of 16), bytes interleaved in fours
// and xor-ed with `flip`: out[4l + t] = r0[t * ld + l] ^ flip.
void pack_dot4_quads(const uint8_t* r0, int64_t ld, uint8_t flip, int64_t w, uint8_t* out) {
  const __m128i f = _mm_set1_epi8(static_cast<char>(flip));
  for (int64_t l = 0; l < w; l += 16) {
    auto row = [&](int t) {
      return _mm_xor_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(r0 + t * ld + l)), f);
    };
    const __m128i a = row(0), b = row(1), c = row(2), d = row(3);
    const __m128i ab0 = _mm_unpacklo_epi8(a, b), ab1 = _mm_unpackhi_epi8(a, b);
    const __m128i cd0 = _mm_unpacklo_epi8(c, d), cd1 = _mm_unpackhi_epi8(c, d);
    __m128i* o = reinterpret_cast<__m128i*>(out + l * 4);
    _mm_storeu_si128(o, _mm_unpacklo_epi16(ab0, cd0));
    _mm_storeu_si128(o + 1, _mm_unpackhi_epi16(ab0, cd0));
    _mm_storeu_si128(o + 2, _mm_unpacklo_epi16(ab1, cd1));
    _mm_storeu_si128(o + 3, _mm_unpackhi_epi16(ab1, cd1));
  }
}
#endif

// The xor a Dot4 zero-point-side operand is packed with: 0x80 when its signedness is not the one
// the kernel reads (u8 for VPDPBUSD, s8 for SDOT), else 0.
uint8_t dot_flip(const QMicroKernel& kernel, bool is_signed) {
  return is_signed != kernel.dot_signed ? 0x80 : 0;
}

bool dot_disabled() {
  const char* v = std::getenv("KILN_INT8_DOT");
  return v && std::string(v) == "0";
}

}  // namespace

std::vector<const QMicroKernel*> supported_q_kernels() {
  std::vector<const QMicroKernel*> out{&kQGenericWide};
#if defined(__x86_64__) && defined(KILN_HAVE_X86_TILES)
  if (isa_supported(Isa::Avx2)) out.push_back(&kQAvx2Wide);
  if (isa_supported(Isa::Avx512)) {
    out.push_back(&kQAvx512Wide);
    if (cpu_has(CpuFeature::Avx512Vnni)) {
      out.push_back(&kQAvx512VnniSignedA);
      out.push_back(&kQAvx512VnniUnsignedA);
    }
  }
#endif
#if defined(KILN_HAVE_NEON_TILES)
  if (isa_supported(Isa::Neon)) out.push_back(&kQNeonWide);
#if defined(__aarch64__)
  if (isa_supported(Isa::Neon) && cpu_has(CpuFeature::NeonDotProd)) {
    out.push_back(&kQNeonDotSignedA);
    out.push_back(&kQNeonDotUnsignedA);
  }
#endif
#endif
  return out;
}

const QMicroKernel& default_q_kernel(bool dot_ok, bool a_unsigned) {
  const Isa isa = active_isa();
  (void)dot_ok;
  (void)a_unsigned;
#if defined(__x86_64__) && defined(KILN_HAVE_X86_TILES)
  if (isa == Isa::Avx512) {
    static const bool vnni = cpu_has(CpuFeature::Avx512Vnni) && !dot_disabled();
    if (dot_ok && vnni) return a_unsigned ? kQAvx512VnniUnsignedA : kQAvx512VnniSignedA;
    return kQAvx512Wide;
  }
  if (isa == Isa::Avx2) return kQAvx2Wide;
#endif
#if defined(KILN_HAVE_NEON_TILES)
  if (isa == Isa::Neon) {
#if defined(__aarch64__)
    static const bool sdot = cpu_has(CpuFeature::NeonDotProd) && !dot_disabled();
    if (dot_ok && sdot) return a_unsigned ? kQNeonDotUnsignedA : kQNeonDotSignedA;
#endif
    return kQNeonWide;
  }
#endif
  (void)dot_disabled;
  return kQGenericWide;
}

size_t qpacked_bytes(const QMicroKernel& kernel, bool a_side, int64_t lanes, int64_t k) {
  const int64_t w = a_side ? kernel.mr : kernel.nr;
  const int64_t panels = (lanes + w - 1) / w;
  return static_cast<size_t>(panels * std::max<int64_t>(groups(kernel, k), 1) * w * 4);
}

bool qkernel_accepts(const QMicroKernel& kernel, bool a_signed_zp_zero, bool b_signed_zp_zero) {
  if (kernel.format == QFormat::Wide16) return true;
  return kernel.a_unsigned ? b_signed_zp_zero : a_signed_zp_zero;
}

int32_t qdot_zero_point(const QMicroKernel& kernel, bool is_signed, int32_t z) {
  if (kernel.format == QFormat::Wide16) return 0;
  if (is_signed == kernel.dot_signed) return z;  // read as it is
  return is_signed ? z + 128 : z - 128;          // flipped to u8 (VPDPBUSD) / to s8 (SDOT)
}

void qadd_dot_correction(const QMicroKernel& kernel, const QOperand& s, int64_t lanes, int64_t k,
                         int32_t z, int32_t* offsets) {
  if (kernel.format == QFormat::Wide16 || z == 0) return;
  for (int64_t l = 0; l < lanes; l++) {
    int64_t sum = 0;
    for (int64_t kk = 0; kk < k; kk++) sum += value_at(s, l, kk);
    offsets[l] -= static_cast<int32_t>(z * sum);
  }
}

namespace {
void qpack_rest(const QMicroKernel& kernel, bool a_side, const QOperand& src, int64_t lanes,
                int64_t k, void* dst, int64_t done_panels, int64_t done_groups);
}  // namespace

void qpack(const QMicroKernel& kernel, bool a_side, const QOperand& src, int64_t lanes, int64_t k,
           void* dst) {
  const int64_t w = a_side ? kernel.mr : kernel.nr;
  const int64_t kg = std::max<int64_t>(groups(kernel, k), 1);
  // The common per-run case (activations as B: lanes contiguous, one zero point): whole panels
  // and whole k groups in tight loops, the rest below.
  if (src.stride_lane == 1 && !src.zp_per_lane && k > 0 && lanes >= w) {
    const int gsize = qk_group(kernel.format);
    const int64_t full_panels = lanes / w, full_groups = k / gsize;
    const uint8_t* s8 = static_cast<const uint8_t*>(src.data);
    const int64_t ld = src.stride_k;
    if (kernel.format == QFormat::Wide16) {
      const int32_t z = zp_at(src, 0);
      int16_t* d = static_cast<int16_t*>(dst);
      for (int64_t p = 0; p < full_panels; p++) {
        for (int64_t g = 0; g < full_groups; g++) {
          int16_t* row = d + ((p * kg + g) * w) * 2;
          const uint8_t* r0 = s8 + (g * 2) * ld + p * w;
          const uint8_t* r1 = r0 + ld;
#if defined(__SSE2__)
          if (w % 16 == 0) {
            pack_wide16_pairs(r0, r1, src.is_signed, z, w, row);
            continue;
          }
#endif
          if (src.is_signed) {
            for (int64_t l = 0; l < w; l++) {
              row[l * 2] = static_cast<int16_t>(static_cast<int8_t>(r0[l]) - z);
              row[l * 2 + 1] = static_cast<int16_t>(static_cast<int8_t>(r1[l]) - z);
            }
          } else {
            for (int64_t l = 0; l < w; l++) {
              row[l * 2] = static_cast<int16_t>(r0[l] - z);
              row[l * 2 + 1] = static_cast<int16_t>(r1[l] - z);
            }
          }
        }
      }
      // The partial last panel and an odd last k row, with the same pointers (the general
      // qpack_rest reads element by element through value_at: 7% of kws_tdnn int8's run went
      // there, its 100 positions leaving a 4-lane panel of 384 k).
      auto v = [&](const uint8_t* r, int64_t l) {
        return static_cast<int16_t>((src.is_signed ? static_cast<int8_t>(r[l]) : r[l]) - z);
      };
      const int64_t rem = lanes - full_panels * w;
      if (rem > 0) {
        for (int64_t g = 0; g < full_groups; g++) {
          int16_t* row = d + ((full_panels * kg + g) * w) * 2;
          const uint8_t* r0 = s8 + (g * 2) * ld + full_panels * w;
          const uint8_t* r1 = r0 + ld;
          int64_t l = 0;
          for (; l < rem; l++) {
            row[l * 2] = v(r0, l);
            row[l * 2 + 1] = v(r1, l);
          }
          for (; l < w; l++) row[l * 2] = row[l * 2 + 1] = 0;
        }
      }
      if (k % 2 == 1) {
        const uint8_t* r0 = s8 + (k - 1) * ld;
        for (int64_t p = 0; p * w < lanes; p++) {
          int16_t* row = d + ((p * kg + full_groups) * w) * 2;
          for (int64_t l = 0; l < w; l++) {
            row[l * 2] = p * w + l < lanes ? v(r0, p * w + l) : int16_t{0};
            row[l * 2 + 1] = 0;
          }
        }
      }
      return;
    } else if (a_side == kernel.a_unsigned) {  // (the signed side of Dot4: the general path)
      const uint8_t flip = dot_flip(kernel, src.is_signed);
      uint8_t* d = static_cast<uint8_t*>(dst);
      for (int64_t p = 0; p < full_panels; p++) {
        for (int64_t g = 0; g < full_groups; g++) {
          uint8_t* row = d + ((p * kg + g) * w) * 4;
          const uint8_t* r0 = s8 + (g * 4) * ld + p * w;
#if defined(__SSE2__)
          if (w % 16 == 0) {
            pack_dot4_quads(r0, ld, flip, w, row);
            continue;
          }
#endif
          for (int64_t l = 0; l < w; l++) {
            row[l * 4] = r0[l] ^ flip;
            row[l * 4 + 1] = r0[ld + l] ^ flip;
            row[l * 4 + 2] = r0[2 * ld + l] ^ flip;
            row[l * 4 + 3] = r0[3 * ld + l] ^ flip;
          }
        }
      }
    }
    if (kernel.format == QFormat::Wide16 || a_side == kernel.a_unsigned) {
      // The remaining lanes and k groups.
      qpack_rest(kernel, a_side, src, lanes, k, dst, full_panels, full_groups);
      return;
    }
  }
  // Lanes that are contiguous rows (activations as A): whole panels and groups, row by row.
  const bool unsigned_side = kernel.format == QFormat::Wide16 || a_side == kernel.a_unsigned;
  if (src.stride_k == 1 && !src.zp_per_lane && k > 0 && lanes >= w && unsigned_side) {
    const int gsize = qk_group(kernel.format);
    const int64_t full_panels = lanes / w, full_groups = k / gsize;
    const uint8_t* s8 = static_cast<const uint8_t*>(src.data);
    const int32_t z = zp_at(src, 0);
    const uint8_t flip = dot_flip(kernel, src.is_signed);
    for (int64_t p = 0; p < full_panels; p++) {
      for (int64_t l = 0; l < w; l++) {
        const uint8_t* row = s8 + (p * w + l) * src.stride_lane;
        if (kernel.format == QFormat::Wide16) {
          int16_t* d = static_cast<int16_t*>(dst) + (p * kg * w + l) * 2;
          for (int64_t g = 0; g < full_groups; g++) {
            for (int t = 0; t < 2; t++) {
              const int32_t v =
                  src.is_signed ? static_cast<int8_t>(row[g * 2 + t]) : row[g * 2 + t];
              d[g * w * 2 + t] = static_cast<int16_t>(v - z);
            }
          }
        } else {
          uint8_t* d = static_cast<uint8_t*>(dst) + (p * kg * w + l) * 4;
          for (int64_t g = 0; g < full_groups; g++)
            for (int t = 0; t < 4; t++) d[g * w * 4 + t] = row[g * 4 + t] ^ flip;
        }
      }
    }
    qpack_rest(kernel, a_side, src, lanes, k, dst, full_panels, full_groups);
    return;
  }
  qpack_rest(kernel, a_side, src, lanes, k, dst, 0, 0);
}

namespace {
// Packs the panels / k groups not done by a fast path: all of panels >= done_panels, and the
// groups >= done_groups of the others.
void qpack_rest(const QMicroKernel& kernel, bool a_side, const QOperand& src, int64_t lanes,
                int64_t k, void* dst, int64_t done_panels, int64_t done_groups) {
  const int64_t w = a_side ? kernel.mr : kernel.nr;
  const int64_t panels = (lanes + w - 1) / w, kg = std::max<int64_t>(groups(kernel, k), 1);
  auto skip = [&](int64_t p, int64_t g) { return p < done_panels && g < done_groups; };
  if (kernel.format == QFormat::Wide16) {
    int16_t* d = static_cast<int16_t*>(dst);
    for (int64_t p = 0; p < panels; p++) {
      for (int64_t g = 0; g < kg; g++) {
        if (skip(p, g)) continue;
        int16_t* row = d + ((p * kg + g) * w) * 2;
        for (int64_t l = 0; l < w; l++) {
          const int64_t lane = p * w + l;
          for (int t = 0; t < 2; t++) {
            const int64_t kk = g * 2 + t;
            row[l * 2 + t] = lane < lanes && kk < k
                                 ? static_cast<int16_t>(value_at(src, lane, kk) - zp_at(src, lane))
                                 : int16_t{0};
          }
        }
      }
    }
    return;
  }
  // Dot4.
  const bool read_unsigned = a_side == kernel.a_unsigned;
  if (!read_unsigned) {
    KILN_ENSURE(src.is_signed, "qpack: {} reads this side as s8 (got u8)", kernel.name);
    for (int64_t l = 0; l < (src.zp_per_lane ? lanes : 1); l++)
      KILN_ENSURE(zp_at(src, l) == 0, "qpack: {} needs a zero point of 0 on its s8 side",
                  kernel.name);
  }
  const uint8_t flip = read_unsigned ? dot_flip(kernel, src.is_signed) : 0;
  uint8_t* d = static_cast<uint8_t*>(dst);
  for (int64_t p = 0; p < panels; p++) {
    for (int64_t g = 0; g < kg; g++) {
      if (skip(p, g)) continue;
      uint8_t* row = d + ((p * kg + g) * w) * 4;
      for (int64_t l = 0; l < w; l++) {
        const int64_t lane = p * w + l;
        for (int t = 0; t < 4; t++) {
          const int64_t kk = g * 4 + t;
          row[l * 4 + t] =
              lane < lanes && kk < k
                  ? static_cast<uint8_t>(static_cast<uint8_t>(value_at(src, lane, kk)) ^ flip)
                  : uint8_t{0};
        }
      }
    }
  }
}
}  // namespace

size_t qdepthwise_scratch_bytes(const QDepthwisePlane& g) {
  // The widest vectors of any kernel (AVX-512: 16 lanes) need the longest phase rows.
  return q_dw_scratch_bytes<16>(g);
}

size_t qdepthwise_channels_scratch_bytes(const QDepthwisePlane& g) {
  return q_dwc_scratch_bytes<16>(g);
}

// Measured on mobilenet_v2_int8_qdq (AVX2, Zen 3, per-node minima against the per-plane kernel):
// 7x7 and 14x14 planes 1.3-1.4x faster at stride 1 and 2-3x at stride 2, 28x28 1.1-1.3x at
// stride 2 and even at stride 1; the larger planes keep the per-plane kernel, whose vectors are
// long rows there. Strides above 2 (unmeasured; the block holds every pixel between the taps
// read, W channels of it) keep the per-plane kernel too.
bool qdepthwise_prefers_channels(const QDepthwisePlane& g) {
  return g.ow * g.oh <= 1024 && g.stride_h <= 2 && g.stride_w <= 2;
}

QTileArgs qtile_args(const Epilogue& ep, void* c, int64_t ldc, int64_t i0, int64_t j0) {
  QTileArgs t{};
  t.clamp = !(std::isinf(ep.min) && ep.min < 0 && std::isinf(ep.max) && ep.max > 0);
  t.min = ep.min;
  t.max = ep.max;
  t.row_scale = ep.row_scale ? ep.row_scale + i0 : nullptr;
  t.col_scale = ep.col_scale ? ep.col_scale + j0 : nullptr;
  t.row_bias = ep.row_bias ? ep.row_bias + i0 : nullptr;
  t.col_bias = ep.col_bias ? ep.col_bias + j0 : nullptr;
  t.row_offset = ep.row_offset ? ep.row_offset + i0 : nullptr;
  t.col_offset = ep.col_offset ? ep.col_offset + j0 : nullptr;
  t.output = ep.output;
  t.zero_point = ep.out_zero_point;
  t.c = static_cast<char*>(c) + static_cast<size_t>(i0 * ldc + j0) * out_size(ep.output);
  t.ldc = ldc;
  return t;
}

void qstore_one(int32_t acc, const QTileArgs& t, int i, int j) {
  int32_t v[1][1] = {{acc}};
  q_epilogue<QScalarLanes, 1, 1>(v, q_shift(t, i, j));
}

void qmmm(const QMicroKernel& kernel, int64_t m, int64_t n, int64_t k, const void* a_packed,
          const void* b_packed, const Epilogue& ep, void* c, int64_t ldc, int threads) {
  if (m <= 0 || n <= 0) return;
  KILN_ENSURE(ep.post_count == 0 && !ep.residual && !ep.accumulate && !ep.leaky,
              "qmmm: integer products take no post steps, residual, accumulate or leaky");
  const int64_t mr = kernel.mr, nr = kernel.nr;
  const int64_t kg = std::max<int64_t>(groups(kernel, k), 1);
  const int64_t a_panels = (m + mr - 1) / mr, b_panels = (n + nr - 1) / nr;
  const int32_t* a = static_cast<const int32_t*>(a_packed);
  const int32_t* b = static_cast<const int32_t*>(b_packed);
  const int64_t kg_eff = k > 0 ? kg : 0;
  // The tile arguments made once, then moved to each tile (q_shift: a few pointer additions).
  const QTileArgs base = qtile_args(ep, c, ldc, 0, 0);
  auto run = [&](int64_t jb0, int64_t jb1) {
    for (int64_t jb = jb0; jb < jb1; jb++) {
      const int32_t* bp = b + jb * kg * nr;
      const int64_t j0 = jb * nr;
      const int cols = static_cast<int>(std::min(nr, n - j0));
      const QTileArgs col = q_shift(base, 0, j0);
      for (int64_t ia = 0; ia < a_panels; ia++) {
        const int64_t i0 = ia * mr;
        const int rows = static_cast<int>(std::min(mr, m - i0));
        kernel.tile(kg_eff, a + ia * kg * mr, bp, q_shift(col, i0, 0), rows, cols);
      }
    }
  };
  const int t = product_threads(m, n, k, threads);
  if (t <= 1) {
    run(0, b_panels);
    return;
  }
  parallel_for(b_panels, run, t, product_grain(m * nr * std::max<int64_t>(k, 1)));
}

void qmmm_reference(int64_t m, int64_t n, int64_t k, const QOperand& a, const QOperand& b,
                    const Epilogue& ep, void* c, int64_t ldc) {
  for (int64_t i = 0; i < m; i++) {
    for (int64_t j = 0; j < n; j++) {
      int64_t s = 0;
      for (int64_t kk = 0; kk < k; kk++)
        s += static_cast<int64_t>(value_at(a, i, kk) - zp_at(a, i)) *
             (value_at(b, j, kk) - zp_at(b, j));
      qstore_one(static_cast<int32_t>(s), qtile_args(ep, c, ldc, i, j), 0, 0);
    }
  }
}

}  // namespace kiln::kernels
