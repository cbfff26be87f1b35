#include "ops/image/grid_sample.h"

#include <algorithm>
#include <cmath>

namespace kiln::ops {

namespace {

const char* kModeNames[] = {"nearest", "linear", "cubic"};
const char* kPaddingNames[] = {"zeros", "border", "reflection"};

// Reflects a coordinate into [twice_low/2, twice_high/2] as many times as needed.
double reflect(double v, double twice_low, double twice_high) {
  if (twice_low == twice_high) return 0;
  double lo = twice_low / 2, span = (twice_high - twice_low) / 2;
  v = std::abs(v - lo);
  double extra = std::fmod(v, span);
  int64_t flips = static_cast<int64_t>(std::floor(v / span));
  return flips % 2 == 0 ? extra + lo : span - extra + lo;
}

double cubic_weight(double t) {
  constexpr double a = -0.75;
  t = std::abs(t);
  if (t <= 1) return ((a + 2) * t - (a + 3)) * t * t + 1;
  if (t < 2) return ((a * t - 5 * a) * t + 8 * a) * t - 4 * a;
  return 0;
}

}  // namespace

GridSample::Mode GridSample::parse_mode(const std::string& s) {
  if (s == "nearest") return Mode::Nearest;
  if (s == "bilinear" || s == "linear") return Mode::Linear;
  if (s == "bicubic" || s == "cubic") return Mode::Cubic;
  fail("GridSample: unknown mode '{}'", s);
}

GridSample::Padding GridSample::parse_padding(const std::string& s) {
  for (int i = 0; i < 3; i++)
    if (s == kPaddingNames[i]) return static_cast<Padding>(i);
  fail("GridSample: unknown padding_mode '{}'", s);
}

Attributes GridSample::attributes() const {
  return {{"mode", kModeNames[static_cast<int>(mode_)]},
          {"padding_mode", kPaddingNames[static_cast<int>(padding_)]},
          {"align_corners", align_corners_ ? "1" : "0"}};
}

std::vector<Fact> GridSample::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 2, 2);
  const Fact& x = required(inputs, 0, name());
  const Fact& grid = required(inputs, 1, name());
  KILN_ENSURE(is_float(x.dt), "GridSample: X must be float, got {}", name_of(x.dt));
  KILN_ENSURE(is_float(grid.dt), "GridSample: grid must be float, got {}", name_of(grid.dt));
  KILN_ENSURE(x.rank() == 4, "GridSample: only 2-D sampling (rank-4 X) is supported, got rank {}",
              x.rank());
  KILN_ENSURE(grid.rank() == 4, "GridSample: grid must have rank 4, got {}", grid.rank());
  KILN_ENSURE(!grid.shape[3].is_int() || grid.shape[3].to_int() == 2,
              "GridSample: grid last dim must be 2, got {}", grid.shape[3].to_string());
  KILN_ENSURE(!x.shape[0].is_int() || !grid.shape[0].is_int() || x.shape[0] == grid.shape[0],
              "GridSample: batch of X ({}) and grid ({}) differ", x.shape[0].to_string(),
              grid.shape[0].to_string());
  return {Fact(x.dt, std::vector<Dim>{x.shape[0], x.shape[1], grid.shape[1], grid.shape[2]})};
}

void GridSample::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& x = required(inputs, 0, name());
  const Tensor& grid = required(inputs, 1, name());
  KILN_ENSURE(x.rank() == 4 && grid.rank() == 4 && grid.dim(3) == 2 && grid.dim(0) == x.dim(0),
              "GridSample: expected X [N,C,H,W] and grid [N,Ho,Wo,2], got [{}] and [{}]",
              shape_to_string(x.shape()), shape_to_string(grid.shape()));
  const int64_t n = x.dim(0), c = x.dim(1), h = x.dim(2), w = x.dim(3);
  const int64_t ho = grid.dim(1), wo = grid.dim(2);
  Tensor& y = ctx.output(0, x.dtype(), {n, c, ho, wo});
  auto unnormalize = [&](double v, int64_t size) {
    return align_corners_ ? (v + 1) / 2 * static_cast<double>(size - 1)
                          : ((v + 1) * static_cast<double>(size) - 1) / 2;
  };
  // The coordinate after border / reflection handling (PyTorch applies it before sampling).
  auto pad_coord = [&](double v, int64_t size) {
    double hi = static_cast<double>(size - 1);
    if (padding_ == Padding::Border) return std::clamp(v, 0.0, hi);
    if (padding_ == Padding::Reflection) {
      v = align_corners_ ? reflect(v, 0, 2 * hi) : reflect(v, -1, 2 * hi + 1);
      return std::clamp(v, 0.0, hi);
    }
    return v;
  };
  dispatch_numeric(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (!std::is_integral_v<T>) {
      const T* px = x.data<T>();
      T* py = y.data<T>();
      for (int64_t b = 0; b < n; b++) {
        for (int64_t i = 0; i < ho; i++) {
          for (int64_t j = 0; j < wo; j++) {
            int64_t g = ((b * ho + i) * wo + j) * 2;
            double gx = unnormalize(grid.value_as_double(g), w);
            double gy = unnormalize(grid.value_as_double(g + 1), h);
            for (int64_t ch = 0; ch < c; ch++) {
              const T* plane = px + (b * c + ch) * h * w;
              auto at = [&](int64_t yy, int64_t xx) -> double {
                if (yy < 0 || yy >= h || xx < 0 || xx >= w) return 0.0;
                return static_cast<double>(plane[yy * w + xx]);
              };
              double v = 0;
              if (mode_ == Mode::Nearest) {
                double sx = pad_coord(gx, w), sy = pad_coord(gy, h);
                v = at(static_cast<int64_t>(std::nearbyint(sy)),
                       static_cast<int64_t>(std::nearbyint(sx)));
              } else if (mode_ == Mode::Linear) {
                double sx = pad_coord(gx, w), sy = pad_coord(gy, h);
                double x0 = std::floor(sx), y0 = std::floor(sy);
                double tx = sx - x0, ty = sy - y0;
                auto ix = static_cast<int64_t>(x0), iy = static_cast<int64_t>(y0);
                v = at(iy, ix) * (1 - tx) * (1 - ty) + at(iy, ix + 1) * tx * (1 - ty) +
                    at(iy + 1, ix) * (1 - tx) * ty + at(iy + 1, ix + 1) * tx * ty;
              } else {
                // Bicubic pads each tap, not the coordinate.
                double x0 = std::floor(gx), y0 = std::floor(gy);
                double tx = gx - x0, ty = gy - y0;
                auto tap = [&](int64_t idx, int64_t size) -> int64_t {
                  if (padding_ == Padding::Zeros) return idx;
                  double p = pad_coord(static_cast<double>(idx), size);
                  return static_cast<int64_t>(p);
                };
                for (int64_t dy = -1; dy <= 2; dy++) {
                  double wy = cubic_weight(static_cast<double>(dy) - ty);
                  int64_t yy = tap(static_cast<int64_t>(y0) + dy, h);
                  for (int64_t dx = -1; dx <= 2; dx++) {
                    double wx = cubic_weight(static_cast<double>(dx) - tx);
                    v += wy * wx * at(yy, tap(static_cast<int64_t>(x0) + dx, w));
                  }
                }
              }
              py[((b * c + ch) * ho + i) * wo + j] = static_cast<T>(v);
            }
          }
        }
      }
    }
  });
}

Cost GridSample::cost(const FactRefs& inputs) const {
  std::vector<Fact> out = output_facts(inputs);
  Cost cst;
  int64_t taps = mode_ == Mode::Nearest ? 0 : mode_ == Mode::Linear ? 4 : 16;
  cst.fma = out[0].volume() * Dim(taps);
  return cst;
}

}  // namespace kiln::ops
