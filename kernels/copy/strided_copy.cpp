#include "kernels/copy/strided_copy.h"

#include <algorithm>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "base/error.h"
#include "base/threading.h"

namespace kiln::kernels {

namespace {

// Axis lists live in fixed arrays: a copy allocates nothing (Transpose and Slice run it in the
// steady state of a session).
struct Axes {
  int64_t v[kMaxCopyRank];
  size_t n = 0;
  void push_back(int64_t x) { v[n++] = x; }
  int64_t& back() { return v[n - 1]; }
  int64_t operator[](size_t i) const { return v[i]; }
  int64_t& operator[](size_t i) { return v[i]; }
  size_t size() const { return n; }
  bool empty() const { return n == 0; }
};

// Dims and source strides after dropping extent-1 axes and merging axes contiguous in the source
// (stride[i] == stride[i + 1] * dim[i + 1]): the same copy with the fewest axes.
void simplify(const int64_t* shape, const int64_t* strides, size_t rank, Axes& dims, Axes& st) {
  for (size_t i = 0; i < rank; i++) {
    if (shape[i] == 1) continue;
    if (!dims.empty() && st.back() == strides[i] * shape[i]) {
      dims.back() *= shape[i];
      st.back() = strides[i];
      continue;
    }
    dims.push_back(shape[i]);
    st.push_back(strides[i]);
  }
}

// Calls fn(src_offset, dst_offset) for every index of dims[0 .. outer_rank) in row-major
// order; `dst_strides` are the contiguous destination strides.
template <typename F>
void for_each_outer(const Axes& dims, const Axes& st, const Axes& dst_strides, size_t outer_rank,
                    F&& fn) {
  int64_t idx[kMaxCopyRank] = {};
  int64_t src = 0, dst = 0;
  for (;;) {
    fn(src, dst);
    size_t a = outer_rank;
    for (;;) {
      if (a == 0) return;
      a--;
      if (++idx[a] < dims[a]) {
        src += st[a];
        dst += dst_strides[a];
        break;
      }
      src -= st[a] * (dims[a] - 1);
      dst -= dst_strides[a] * (dims[a] - 1);
      idx[a] = 0;
    }
  }
}

template <typename T>
void copy_typed(const T* src, T* dst, const Axes& dims, const Axes& st) {
  const size_t rank = dims.size();
  Axes dst_strides;
  dst_strides.n = rank;
  dst_strides[rank - 1] = 1;
  for (size_t i = rank - 1; i-- > 0;) dst_strides[i] = dst_strides[i + 1] * dims[i + 1];
  const int64_t inner = dims[rank - 1], inner_stride = st[rank - 1];
  if (inner_stride == 1) {
    // Rows contiguous in the source.
    for_each_outer(dims, st, dst_strides, rank - 1, [&](int64_t s, int64_t d) {
      std::memcpy(dst + d, src + s, static_cast<size_t>(inner) * sizeof(T));
    });
    return;
  }
  // A transposed pair: axis p is contiguous in the source, the last axis in the destination.
  size_t p = rank;
  for (size_t i = 0; i + 1 < rank; i++)
    if (st[i] == 1) p = i;
  if (p < rank) {
    // Move p to the end of the outer axes' list so the odometer skips it.
    Axes odims, ost, odst;
    for (size_t i = 0; i + 1 < rank; i++) {
      if (i == p) continue;
      odims.push_back(dims[i]);
      ost.push_back(st[i]);
      odst.push_back(dst_strides[i]);
    }
    const int64_t rows = dims[p], dst_row = dst_strides[p];
    constexpr int64_t kTile = 16;
    // Row tiles [t0, t1) of one outer index: 16 x 16 tiles, 4-byte elements in 4 x 4 SSE2
    // transposes (4 loads along the source's contiguous axis, 4 stores along the destination's).
    auto tiles = [&](int64_t s, int64_t d, int64_t t0, int64_t t1) {
      for (int64_t r0 = t0 * kTile; r0 < std::min(rows, t1 * kTile); r0 += kTile) {
        const int64_t r1 = std::min(rows, r0 + kTile);
        for (int64_t c0 = 0; c0 < inner; c0 += kTile) {
          const int64_t c1 = std::min(inner, c0 + kTile);
          int64_t r = r0;
#if defined(__SSE2__)
          if constexpr (sizeof(T) == 4) {
            for (; r + 4 <= r1; r += 4) {
              int64_t c = c0;
              for (; c + 4 <= c1; c += 4) {
                const T* sp = src + s + r + c * inner_stride;
                auto ld = [&](int i) {
                  return _mm_castsi128_ps(
                      _mm_loadu_si128(reinterpret_cast<const __m128i*>(sp + i * inner_stride)));
                };
                __m128 a = ld(0), b = ld(1), e = ld(2), f = ld(3);
                _MM_TRANSPOSE4_PS(a, b, e, f);
                T* dp = dst + d + r * dst_row + c;
                _mm_storeu_si128(reinterpret_cast<__m128i*>(dp), _mm_castps_si128(a));
                _mm_storeu_si128(reinterpret_cast<__m128i*>(dp + dst_row), _mm_castps_si128(b));
                _mm_storeu_si128(reinterpret_cast<__m128i*>(dp + 2 * dst_row), _mm_castps_si128(e));
                _mm_storeu_si128(reinterpret_cast<__m128i*>(dp + 3 * dst_row), _mm_castps_si128(f));
              }
              for (int64_t rr = r; rr < r + 4; rr++)
                for (int64_t cc = c; cc < c1; cc++)
                  dst[d + rr * dst_row + cc] = src[s + rr + cc * inner_stride];
            }
          }
#endif
          for (; r < r1; r++) {
            const T* sp = src + s + r;
            T* dp = dst + d + r * dst_row;
            for (int64_t c = c0; c < c1; c++) dp[c] = sp[c * inner_stride];
          }
        }
      }
    };
    // Large copies split their row tiles across threads (each writes its own rows of dst).
    const int64_t row_tiles = (rows + kTile - 1) / kTile;
    auto tile_copy = [&](int64_t s, int64_t d) {
      parallel_for_work(row_tiles, kTile * inner,
                        [&](int64_t t0, int64_t t1) { tiles(s, d, t0, t1); });
    };
    if (odims.empty()) {
      tile_copy(0, 0);
    } else {
      for_each_outer(odims, ost, odst, odims.size(), tile_copy);
    }
    return;
  }
  for_each_outer(dims, st, dst_strides, rank - 1, [&](int64_t s, int64_t d) {
    const T* sp = src + s;
    T* dp = dst + d;
    for (int64_t c = 0; c < inner; c++) dp[c] = sp[c * inner_stride];
  });
}

}  // namespace

void strided_copy(const void* src, void* dst, size_t elem_size, const int64_t* shape,
                  const int64_t* src_strides, size_t rank) {
  KILN_ENSURE(rank < kMaxCopyRank, "strided copy of rank {} (at most {})", rank, kMaxCopyRank - 1);
  for (size_t i = 0; i < rank; i++)
    if (shape[i] == 0) return;
  Axes dims, st;
  simplify(shape, src_strides, rank, dims, st);
  if (dims.empty()) {  // one element
    std::memcpy(dst, src, elem_size);
    return;
  }
  switch (elem_size) {
    case 1:
      return copy_typed(static_cast<const uint8_t*>(src), static_cast<uint8_t*>(dst), dims, st);
    case 2:
      return copy_typed(static_cast<const uint16_t*>(src), static_cast<uint16_t*>(dst), dims, st);
    case 4:
      return copy_typed(static_cast<const uint32_t*>(src), static_cast<uint32_t*>(dst), dims, st);
    case 8:
      return copy_typed(static_cast<const uint64_t*>(src), static_cast<uint64_t*>(dst), dims, st);
    default:
      break;
  }
  // Other sizes: one byte axis more, contiguous in both.
  dims.push_back(static_cast<int64_t>(elem_size));
  for (size_t i = 0; i + 1 < dims.size(); i++) st[i] *= static_cast<int64_t>(elem_size);
  st.push_back(1);
  copy_typed(static_cast<const uint8_t*>(src), static_cast<uint8_t*>(dst), dims, st);
}

void strided_copy(const void* src, void* dst, size_t elem_size, const std::vector<int64_t>& shape,
                  const std::vector<int64_t>& src_strides) {
  KILN_ENSURE(shape.size() == src_strides.size(), "strided copy: {} dims, {} strides", shape.size(),
              src_strides.size());
  strided_copy(src, dst, elem_size, shape.data(), src_strides.data(), shape.size());
}

}  // namespace kiln::kernels
