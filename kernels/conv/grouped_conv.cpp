#include "kernels/conv/grouped_conv.h"

#include <algorithm>
#include <cstring>

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

}  // namespace

void grouped_conv_items_generic(const GroupedConvArgs& a, const GroupedConvLayout& l, int64_t i0,
                                int64_t i1, float* tile) {
  grouped_conv_body(a, l, i0, i1, tile);
}

bool grouped_conv_supported(const ConvGeometry& g) {
  return g.in[0] == 1 && g.out[0] == 1 && g.kernel[0] == 1 && g.pad[1] >= 0 && g.pad[2] >= 0 &&
         g.kernel_size() <= kGroupedConvMaxTaps && g.out_size() > 0;
}

GroupedConvLayout grouped_conv_layout(int64_t group, int64_t channels_per_group,
                                      int64_t outputs_per_group, const ConvGeometry& g, Isa isa) {
  KILN_ENSURE(grouped_conv_supported(g), "grouped_conv: unsupported geometry");
  (void)channels_per_group;
  const GcShape shape = gc_shape(isa);
  GroupedConvLayout l;
  l.sy = g.stride[1];
  l.sx = g.stride[2];
  const int64_t reach_y = (g.kernel[1] - 1) * g.dilation[1] / l.sy;
  const int64_t reach_x = (g.kernel[2] - 1) * g.dilation[2] / l.sx;
  // Output column ox reads plane columns up to ox + reach_x, so rows of ow + reach_x suffice;
  // the pw - ow columns past each output row are computed and dropped, and the positions past
  // the last output row's last column are not computed at all (7x7 stride 1: rows of 9, 61
  // positions, 4 vectors of 16; with rows of 10 and whole rows it took 5).
  // Rows a whole number of vectors long keep every tile's loads aligned alike (14x14 stride 2:
  // rows of 16 ran ~10% faster than rows of 15, the same 14 vectors): taken when they cost no
  // more vectors.
  auto vectors_for = [&](int64_t pw) {
    return ((g.out[1] - 1) * pw + g.out[2] + shape.lanes - 1) / shape.lanes;
  };
  const int64_t tight = g.out[2] + reach_x;
  const int64_t aligned = (tight + shape.lanes - 1) / shape.lanes * shape.lanes;
  l.pw = vectors_for(aligned) <= vectors_for(tight) ? aligned : tight;
  l.ph = g.out[1] + reach_y + 1;
  l.nq = (g.out[1] - 1) * l.pw + g.out[2];
  l.lanes = shape.lanes;
  // Tiles of up to 3 vectors, as even as the vectors allow: 4 vectors go as 2 + 2 (16
  // accumulators each on AVX-512) rather than 3 + 1 (the 1-vector tile's 8 accumulators barely
  // cover the FMA latency).
  const int64_t vectors = (l.nq + l.lanes - 1) / l.lanes;
  const int64_t min_tiles = (vectors + 2) / 3;
  l.tile_q = (vectors + min_tiles - 1) / min_tiles * l.lanes;
  l.tiles = (l.nq + l.tile_q - 1) / l.tile_q;
  // A tile's whole vectors read up to tile_q floats past a plane's ph * pw: the next plane's
  // (finite values, in lanes that are dropped), and after the last plane, slack.
  l.plane = l.ph * l.pw;
  l.channel_stride = l.sy * l.sx * l.plane;
  l.planes_floats = round16(group * channels_per_group * l.channel_stride + l.tile_q);
  l.rows = shape.rows;
  l.row_blocks = (outputs_per_group + l.rows - 1) / l.rows;
  l.items = group * l.tiles * l.row_blocks;
  l.tile_floats = l.rows * l.tile_q;
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

void grouped_conv_pad(const GroupedConvArgs& a, const GroupedConvLayout& l, int64_t c0,
                      int64_t c1) {
  const ConvGeometry& g = a.geo;
  const int64_t ih = g.in[1], iw = g.in[2];
  const size_t row_bytes = static_cast<size_t>(l.pw) * sizeof(float);
  for (int64_t c = c0; c < c1; c++) {
    const float* xc = a.x + c * ih * iw;
    // Every float of the channel's planes written once: input rows with their zero borders,
    // rows outside the input zeros.
    for (int64_t fy = 0; fy < l.sy; fy++) {
      for (int64_t fx = 0; fx < l.sx; fx++) {
        float* plane = a.planes + c * l.channel_stride + (fy * l.sx + fx) * l.plane;
        // Padded column px = x + pad of phase fx: x0 is the first input column of the phase,
        // col0 its column in the plane.
        const int64_t x0 = ((fx - g.pad[2]) % l.sx + l.sx) % l.sx;
        const int64_t col0 = std::min((x0 + g.pad[2]) / l.sx, l.pw);
        const int64_t count =
            x0 >= iw ? 0 : std::clamp((iw - x0 + l.sx - 1) / l.sx, int64_t{0}, l.pw - col0);
        for (int64_t r = 0; r < l.ph; r++) {
          float* d = plane + r * l.pw;
          const int64_t y = r * l.sy + fy - g.pad[1];
          if (y < 0 || y >= ih || count == 0) {
            std::memset(d, 0, row_bytes);
            continue;
          }
          const float* src = xc + y * iw + x0;
          std::memset(d, 0, static_cast<size_t>(col0) * sizeof(float));
          if (l.sx == 1) {
            std::memcpy(d + col0, src, static_cast<size_t>(count) * sizeof(float));
          } else if (l.sx == 2) {
            float* __restrict dd = d + col0;
            for (int64_t j = 0; j < count; j++) dd[j] = src[2 * j];  // vectorized: even lanes
          } else {
            for (int64_t j = 0; j < count; j++) d[col0 + j] = src[j * l.sx];
          }
          std::memset(d + col0 + count, 0,
                      static_cast<size_t>(l.pw - col0 - count) * sizeof(float));
        }
      }
    }
  }
  // The slack after the last plane, read by the last tiles' whole vectors (their lanes past the
  // outputs; earlier planes' reads past their end land in the next plane).
  if (c1 == a.group * a.in_per_group) {
    std::memset(a.planes + c1 * l.channel_stride, 0,
                static_cast<size_t>(l.planes_floats - c1 * l.channel_stride) * sizeof(float));
  }
}

void grouped_conv_items(const GroupedConvArgs& a, const GroupedConvLayout& l, int64_t i0,
                        int64_t i1, float* tile, Isa isa) {
  switch (isa) {
#if defined(__x86_64__)
    case Isa::Avx512:
      grouped_conv_items_avx512(a, l, i0, i1, tile);
      return;
    case Isa::Avx2:
      grouped_conv_items_avx2(a, l, i0, i1, tile);
      return;
#endif
    default:
      grouped_conv_items_generic(a, l, i0, i1, tile);
      return;
  }
}

}  // namespace kiln::kernels
