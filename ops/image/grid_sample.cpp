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
  KILN_ENSURE(x.rank() >= 3, "GridSample: X must be [N, C, D1, ...], got rank {}", x.rank());
  const size_t r = x.rank() - 2;
  KILN_ENSURE(grid.rank() == r + 2, "GridSample: grid must have rank {} for X of rank {}, got {}",
              r + 2, x.rank(), grid.rank());
  KILN_ENSURE(!grid.shape.back().is_int() || grid.shape.back().to_int() == static_cast<int64_t>(r),
              "GridSample: grid last dim must be {}, got {}", r, grid.shape.back().to_string());
  KILN_ENSURE(!x.shape[0].is_int() || !grid.shape[0].is_int() || x.shape[0] == grid.shape[0],
              "GridSample: batch of X ({}) and grid ({}) differ", x.shape[0].to_string(),
              grid.shape[0].to_string());
  std::vector<Dim> shape{x.shape[0], x.shape[1]};
  for (size_t d = 0; d < r; d++) shape.push_back(grid.shape[1 + d]);
  return {Fact(x.dt, shape)};
}

void GridSample::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& x = required(inputs, 0, name());
  const Tensor& grid = required(inputs, 1, name());
  const size_t r = x.rank() >= 3 ? x.rank() - 2 : 0;
  KILN_ENSURE(r >= 1 && grid.rank() == r + 2 && grid.shape().back() == static_cast<int64_t>(r) &&
                  grid.dim(0) == x.dim(0),
              "GridSample: expected X [N,C,D1..Dr] and grid [N,O1..Or,r], got [{}] and [{}]",
              shape_to_string(x.shape()), shape_to_string(grid.shape()));
  KILN_ENSURE(r <= 3 || mode_ != Mode::Cubic, "GridSample: cubic sampling of {} dims", r);
  const int64_t n = x.dim(0), c = x.dim(1);
  int64_t plane = 1, points = 1;
  for (size_t d = 0; d < r; d++) {
    plane *= x.dim(2 + d);
    points *= grid.dim(1 + d);
  }
  Shape& out_shape = ctx.temp_shape(0);
  out_shape.assign({n, c});
  for (size_t d = 0; d < r; d++) out_shape.push_back(grid.dim(1 + d));
  Tensor& y = ctx.output(0, x.dtype(), out_shape);
  auto size_of_dim = [&](size_t d) { return x.dim(2 + d); };
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
  // Per spatial dim (D1 first): the taps' indices and weights for one output point.
  const int64_t width = mode_ == Mode::Nearest ? 1 : mode_ == Mode::Linear ? 2 : 4;
  int64_t* idx = ctx.scratch<int64_t>(r * static_cast<size_t>(width));
  double* wgt = ctx.scratch<double>(r * static_cast<size_t>(width));
  int64_t taps = 1;
  for (size_t d = 0; d < r; d++) taps *= width;
  dispatch_numeric(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (!std::is_integral_v<T>) {
      const T* px = x.data<T>();
      T* py = y.data<T>();
      for (int64_t b = 0; b < n; b++) {
        for (int64_t p = 0; p < points; p++) {
          for (size_t d = 0; d < r; d++) {
            const int64_t size = size_of_dim(d);
            // grid's last axis holds (x, y, z...): the last spatial dim first.
            double u = unnormalize(grid.value_as_double((b * points + p) * static_cast<int64_t>(r) +
                                                        static_cast<int64_t>(r - 1 - d)),
                                   size);
            int64_t* ix = idx + d * static_cast<size_t>(width);
            double* wx = wgt + d * static_cast<size_t>(width);
            if (mode_ == Mode::Nearest) {
              ix[0] = static_cast<int64_t>(std::nearbyint(pad_coord(u, size)));
              wx[0] = 1;
            } else if (mode_ == Mode::Linear) {
              double s = pad_coord(u, size), f = std::floor(s);
              ix[0] = static_cast<int64_t>(f);
              ix[1] = ix[0] + 1;
              wx[0] = 1 - (s - f);
              wx[1] = s - f;
            } else {  // cubic pads each tap, not the coordinate
              double f = std::floor(u), t = u - f;
              for (int64_t k = 0; k < 4; k++) {
                int64_t at = static_cast<int64_t>(f) + k - 1;
                ix[k] = padding_ == Padding::Zeros
                            ? at
                            : static_cast<int64_t>(pad_coord(static_cast<double>(at), size));
                wx[k] = cubic_weight(static_cast<double>(k - 1) - t);
              }
            }
          }
          for (int64_t ch = 0; ch < c; ch++) {
            const T* src = px + (b * c + ch) * plane;
            double v = 0;
            for (int64_t tap = 0; tap < taps; tap++) {
              double w = 1;
              int64_t offset = 0;
              bool inside = true;
              for (size_t d = 0, rest = static_cast<size_t>(tap); d < r; d++) {
                size_t k = rest % static_cast<size_t>(width);
                rest /= static_cast<size_t>(width);
                int64_t i = idx[d * static_cast<size_t>(width) + k];
                inside = inside && i >= 0 && i < size_of_dim(d);
                w *= wgt[d * static_cast<size_t>(width) + k];
                offset = offset * size_of_dim(d) + i;
              }
              if (inside && w != 0) v += w * static_cast<double>(src[offset]);
            }
            py[(b * c + ch) * points + p] = static_cast<T>(v);
          }
        }
      }
    }
  });
}

Cost GridSample::cost(const FactRefs& inputs) const {
  std::vector<Fact> out = output_facts(inputs);
  Cost cst;
  const int64_t r = static_cast<int64_t>(out[0].rank()) - 2;
  int64_t taps = 1;
  for (int64_t d = 0; d < r; d++)
    taps *= mode_ == Mode::Nearest ? 0 : mode_ == Mode::Linear ? 2 : 4;
  cst.fma = out[0].volume() * Dim(taps);
  return cst;
}

}  // namespace kiln::ops
