#include "kernels/copy/pad.h"

#include <algorithm>
#include <cstring>

#include "base/error.h"
#include "kernels/copy/strided_copy.h"

namespace kiln::kernels {

namespace {

struct Geometry {
  size_t rank, elem;
  const int64_t *in, *out, *begin;
  int64_t in_stride[kMaxCopyRank], out_stride[kMaxCopyRank];  // in elements
  const unsigned char* fill;
};

void fill_elems(unsigned char* dst, int64_t n, const Geometry& g) {
  if (n <= 0) return;
  switch (g.elem) {
    case 1:
      std::memset(dst, *g.fill, static_cast<size_t>(n));
      return;
    case 4: {
      uint32_t v;
      std::memcpy(&v, g.fill, 4);
      if (v == 0) {
        std::memset(dst, 0, static_cast<size_t>(n) * 4);
        return;
      }
      for (int64_t i = 0; i < n; i++) std::memcpy(dst + i * 4, &v, 4);
      return;
    }
    default:
      for (int64_t i = 0; i < n; i++) std::memcpy(dst + i * g.elem, g.fill, g.elem);
  }
}

void pad_axis(const unsigned char* src, unsigned char* dst, size_t a, const Geometry& g) {
  const int64_t out = g.out[a], in = g.in[a], b = g.begin[a];
  // Output positions [lo, hi) read input positions [lo - b, hi - b).
  const int64_t lo = std::clamp<int64_t>(b, 0, out), hi = std::clamp<int64_t>(b + in, lo, out);
  const size_t es = g.elem;
  if (a + 1 == g.rank) {
    fill_elems(dst, lo, g);
    if (hi > lo) std::memcpy(dst + lo * es, src + (lo - b) * es, static_cast<size_t>(hi - lo) * es);
    fill_elems(dst + hi * es, out - hi, g);
    return;
  }
  const int64_t os = g.out_stride[a] * static_cast<int64_t>(es);
  const int64_t is = g.in_stride[a] * static_cast<int64_t>(es);
  fill_elems(dst, lo * g.out_stride[a], g);
  for (int64_t o = lo; o < hi; o++) pad_axis(src + (o - b) * is, dst + o * os, a + 1, g);
  fill_elems(dst + hi * os, (out - hi) * g.out_stride[a], g);
}

}  // namespace

void pad_constant(const void* src, void* dst, size_t elem_size, size_t rank, const int64_t* in_dims,
                  const int64_t* out_dims, const int64_t* begin, const void* fill) {
  KILN_ENSURE(rank < kMaxCopyRank, "Pad of rank {} (at most {})", rank, kMaxCopyRank - 1);
  Geometry g{rank,  elem_size, in_dims, out_dims,
             begin, {},        {},      static_cast<const unsigned char*>(fill)};
  int64_t numel = 1;
  for (size_t a = 0; a < rank; a++) numel *= out_dims[a];
  if (numel == 0) return;
  if (rank == 0) {
    std::memcpy(dst, src, elem_size);
    return;
  }
  int64_t si = 1, so = 1;
  for (size_t a = rank; a-- > 0;) {
    g.in_stride[a] = si;
    g.out_stride[a] = so;
    si *= in_dims[a];
    so *= out_dims[a];
  }
  pad_axis(static_cast<const unsigned char*>(src), static_cast<unsigned char*>(dst), 0, g);
}

}  // namespace kiln::kernels
