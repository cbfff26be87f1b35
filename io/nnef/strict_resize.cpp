// Resize by integer factors (upsampling) in standard NNEF, axis by axis:
// - nearest, when the ONNX mapping is floor(i / f): asymmetric + floor (or simple), or
//   half_pixel / half_pixel_symmetric / pytorch_half_pixel with either round mode (for an integer
//   factor (i + 0.5) / f - 0.5 is never a tie, and rounds to floor(i / f)): each element
//   repeated f times, as unsqueeze + tile + reshape;
// - linear with half_pixel / half_pixel_symmetric / pytorch_half_pixel: output phase r of each
//   input element q reads q + d_r, d_r = (r + 0.5) / f - 0.5 in (-0.5, 0.5), so it is
//   (1 - |d_r|) x[q] + |d_r| x[q +- 1] with the edge element repeated past the ends (the clamp
//   of the ONNX coordinates): pad(border = 'replicate'), two slices and a weighted sum per
//   phase, the phases interleaved by unsqueeze + concat + reshape. Separable, so bilinear and
//   trilinear are the axes in turn.
// Other modes (cubic, align_corners, downsampling, non-integer factors, antialias) are refused.
#include <cmath>

#include "io/nnef/serializer_util.h"
#include "io/nnef/strict_lowering.h"

namespace kiln::nnef::ser {

namespace {

bool lower_resize(Ctx& c, const Node& n) {
  OpAttrs a(n);
  if (n.op->name() != "Resize" || a.has("antialias") || a.has("exclude_outside")) return false;
  std::string mode = a.str("mode"), coord = a.str("coordinate_transformation_mode");
  std::string nearest = a.str("nearest_mode", "round_prefer_floor");
  bool half =
      coord == "half_pixel" || coord == "half_pixel_symmetric" || coord == "pytorch_half_pixel";
  bool ok_nearest = mode == "nearest" &&
                    ((coord == "asymmetric" && (nearest == "floor" || nearest == "simple")) ||
                     (half && (nearest == "round_prefer_floor" || nearest == "round_prefer_ceil")));
  if (!ok_nearest && !(mode == "linear" && half)) return false;
  const Fact& x = c.fact(in(n, 0));
  const Fact& y = n.outputs[0];
  if (x.rank() != y.rank() || x.dt != DatumType::F32) return false;
  std::vector<int64_t> in_dims, factors;
  for (size_t i = 0; i < x.rank(); i++) {
    auto d = x.shape[i].as_int(), o = y.shape[i].as_int();
    if (!d || !o || *d < 1 || *o % *d != 0) return false;
    in_dims.push_back(*d);
    factors.push_back(*o / *d);
  }
  // Given scales must be those factors (the mapping uses the scale, not out / in).
  if (has_input(n, 2) && c.fact(in(n, 2)).rank() == 1 && c.fact(in(n, 2)).shape[0] != Dim(0)) {
    const Fact& s = c.fact(in(n, 2));
    if (!s.value || s.value->numel() != static_cast<int64_t>(x.rank())) return false;
    for (size_t i = 0; i < x.rank(); i++)
      if (s.value->value_as_double(static_cast<int64_t>(i)) != static_cast<double>(factors[i]))
        return false;
  }
  std::string v = c.tensor(in(n, 0));
  std::vector<int64_t> dims = in_dims;
  for (size_t axis = 0; axis < dims.size(); axis++) {
    int64_t f = factors[axis];
    if (f == 1) continue;
    std::vector<int64_t> out_dims = dims;
    out_dims[axis] *= f;
    if (ok_nearest) {
      std::string u =
          node_temp(c, n, "unsq", fmt::format("unsqueeze({}, axes = [{}])", v, axis + 1));
      std::vector<int64_t> repeats(dims.size() + 1, 1);
      repeats[axis + 1] = f;
      std::string t =
          node_temp(c, n, "rep", fmt::format("tile({}, repeats = {})", u, nnef_ints(repeats)));
      v = node_temp(c, n, "up", fmt::format("reshape({}, shape = {})", t, nnef_ints(out_dims)));
    } else {
      std::vector<int64_t> before(dims.size(), 0), after(dims.size(), 0);
      before[axis] = after[axis] = 1;
      std::string p = node_temp(
          c, n, "edge",
          fmt::format("pad({}, padding = {}, border = 'replicate')", v, pairs(before, after)));
      auto shifted = [&](int64_t offset) {  // x[q + offset] for q in [0, d)
        return node_temp(
            c, n, "shift",
            fmt::format("slice({}, axes = [{}], begin = [{}], end = [{}], stride = [1])", p, axis,
                        1 + offset, 1 + offset + dims[axis]));
      };
      std::string centre = shifted(0), prev, next;
      std::string phases;
      for (int64_t r = 0; r < f; r++) {
        double d = (static_cast<double>(r) + 0.5) / static_cast<double>(f) - 0.5;
        std::string& other = d < 0 ? prev : next;
        if (other.empty()) other = shifted(d < 0 ? -1 : 1);
        double w = std::fabs(d);
        std::string phase = node_temp(c, n, "phase",
                                      fmt::format("add(mul({}, {}), mul({}, {}))", centre,
                                                  nnef_real(1.0 - w), other, nnef_real(w)));
        phases +=
            (r ? ", " : "") +
            node_temp(c, n, "phase", fmt::format("unsqueeze({}, axes = [{}])", phase, axis + 1));
      }
      std::string joined =
          node_temp(c, n, "phases", fmt::format("concat([{}], axis = {})", phases, axis + 1));
      v = node_temp(c, n, "up",
                    fmt::format("reshape({}, shape = {})", joined, nnef_ints(out_dims)));
    }
    dims = out_dims;
  }
  c.assign(n, 0, fmt::format("copy({})", v));
  return true;
}

}  // namespace

void register_resize_lowerings(std::map<std::string, Lowering>& l) {
  l["Resize"] = {lower_resize, true};
}

}  // namespace kiln::nnef::ser
