#include "ops/image/resize.h"

#include "ops/image/resize_f32.h"

#include <fmt/format.h>
#include <algorithm>
#include <cmath>

namespace kiln::ops {

namespace {

constexpr const char* kModes[] = {"nearest", "linear", "cubic"};
constexpr const char* kCoords[] = {
    "half_pixel", "half_pixel_symmetric", "pytorch_half_pixel", "align_corners",
    "asymmetric", "tf_half_pixel_for_nn", "tf_crop_and_resize"};
constexpr const char* kNearest[] = {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil",
                                    "simple"};
constexpr const char* kAspect[] = {"stretch", "not_larger", "not_smaller"};

template <typename E, size_t N>
E parse_enum(const std::string& s, const char* const (&names)[N], const char* what) {
  for (size_t i = 0; i < N; i++)
    if (s == names[i]) return static_cast<E>(i);
  fail("Resize: unknown {} '{}'", what, s);
}

double cubic_kernel(double t, double a) {
  t = std::abs(t);
  if (t <= 1) return ((a + 2) * t - (a + 3)) * t * t + 1;
  if (t < 2) return ((a * t - 5 * a) * t + 8 * a) * t - 4 * a;
  return 0;
}

}  // namespace

Resize::Mode Resize::parse_mode(const std::string& s) {
  if (s == "bilinear" || s == "trilinear") return Mode::Linear;  // older Upsample spellings
  return parse_enum<Mode>(s, kModes, "mode");
}
Resize::Coord Resize::parse_coord(const std::string& s) {
  return parse_enum<Coord>(s, kCoords, "coordinate_transformation_mode");
}
Resize::Nearest Resize::parse_nearest(const std::string& s) {
  return parse_enum<Nearest>(s, kNearest, "nearest_mode");
}
Resize::AspectPolicy Resize::parse_aspect(const std::string& s) {
  return parse_enum<AspectPolicy>(s, kAspect, "keep_aspect_ratio_policy");
}

Attributes Resize::attributes() const {
  Attributes a = {{"mode", kModes[static_cast<int>(o_.mode)]},
                  {"coordinate_transformation_mode", kCoords[static_cast<int>(o_.coord)]}};
  if (o_.mode == Mode::Nearest)
    a.push_back({"nearest_mode", kNearest[static_cast<int>(o_.nearest)]});
  if (o_.mode == Mode::Cubic) a.push_back({"cubic_coeff_a", fmt::format("{}", o_.cubic_coeff_a)});
  if (o_.exclude_outside) a.push_back({"exclude_outside", "1"});
  if (o_.coord == Coord::TfCropAndResize)
    a.push_back({"extrapolation_value", fmt::format("{}", o_.extrapolation_value)});
  if (o_.antialias) a.push_back({"antialias", "1"});
  if (!o_.axes.empty()) a.push_back({"axes", fmt::format("{}", fmt::join(o_.axes, ","))});
  if (o_.aspect != AspectPolicy::Stretch)
    a.push_back({"keep_aspect_ratio_policy", kAspect[static_cast<int>(o_.aspect)]});
  if (o_.integer_resized_length &&
      (o_.coord == Coord::AlignCorners || o_.coord == Coord::TfCropAndResize))
    a.push_back({"resized_length", "output"});
  return a;
}

std::vector<size_t> Resize::resolved_axes(size_t rank) const {
  std::vector<size_t> axes;
  if (o_.axes.empty()) {
    for (size_t i = 0; i < rank; i++) axes.push_back(i);
    return axes;
  }
  for (int64_t a : o_.axes) {
    size_t ax = normalize_axis(a, rank, name_);
    KILN_ENSURE(std::find(axes.begin(), axes.end(), ax) == axes.end(), "{}: axis {} repeated",
                name_, a);
    axes.push_back(ax);
  }
  return axes;
}

Resize::AxisPlan Resize::plan(const Shape& in, const std::vector<double>* scales,
                              const std::vector<int64_t>* sizes) const {
  std::vector<size_t> axes = resolved_axes(in.size());
  AxisPlan p;
  p.scales.assign(in.size(), 1.0);
  p.out = in;
  if (scales) {
    KILN_ENSURE(scales->size() == axes.size(), "{}: expected {} scales, got {}", name_, axes.size(),
                scales->size());
    for (size_t i = 0; i < axes.size(); i++) {
      double s = (*scales)[i];
      KILN_ENSURE(s > 0, "{}: scales must be positive, got {}", name_, s);
      p.scales[axes[i]] = s;
      // Multiplied in float, so that e.g. 10 * 0.7f gives 7 and not 6.
      p.out[axes[i]] =
          static_cast<int64_t>(std::floor(static_cast<float>(in[axes[i]]) * static_cast<float>(s)));
    }
    return p;
  }
  KILN_ENSURE(sizes, "{}: one of scales or sizes is required", name_);
  KILN_ENSURE(sizes->size() == axes.size(), "{}: expected {} sizes, got {}", name_, axes.size(),
              sizes->size());
  for (size_t i = 0; i < axes.size(); i++) {
    KILN_ENSURE((*sizes)[i] >= 0, "{}: sizes must be non-negative, got {}", name_, (*sizes)[i]);
    KILN_ENSURE(in[axes[i]] > 0 || (*sizes)[i] == 0, "{}: cannot resize an empty axis {} to {}",
                name_, axes[i], (*sizes)[i]);
  }
  if (o_.aspect == AspectPolicy::Stretch) {
    for (size_t i = 0; i < axes.size(); i++) {
      p.out[axes[i]] = (*sizes)[i];
      if (in[axes[i]] > 0)
        p.scales[axes[i]] = static_cast<double>((*sizes)[i]) / static_cast<double>(in[axes[i]]);
    }
    return p;
  }
  double s = o_.aspect == AspectPolicy::NotLarger ? INFINITY : 0.0;
  for (size_t i = 0; i < axes.size(); i++) {
    if (in[axes[i]] == 0) continue;
    double r = static_cast<double>((*sizes)[i]) / static_cast<double>(in[axes[i]]);
    s = o_.aspect == AspectPolicy::NotLarger ? std::min(s, r) : std::max(s, r);
  }
  if (!std::isfinite(s) || s <= 0) s = 1.0;
  for (size_t ax : axes) {
    p.scales[ax] = s;
    p.out[ax] = static_cast<int64_t>(std::floor(s * static_cast<double>(in[ax]) + 0.5));
  }
  return p;
}

std::vector<Fact> Resize::output_facts(const FactRefs& inputs) const {
  expect_inputs(name_, inputs.size(), 1, 4);
  const Fact& x = required(inputs, 0, name_);
  KILN_ENSURE(is_numeric(x.dt), "{}: unsupported input type {}", name_, name_of(x.dt));
  std::vector<size_t> axes = resolved_axes(x.rank());
  const Fact* scales = inputs.size() > 2 ? inputs[2] : nullptr;
  const Fact* sizes = inputs.size() > 3 ? inputs[3] : nullptr;
  auto is_empty = [](const Fact* f) {
    return !f || (f->rank() == 1 && f->shape[0].is_int() && f->shape[0].to_int() == 0);
  };
  if (!is_empty(scales)) {
    KILN_ENSURE(is_float(scales->dt), "{}: scales must be float, got {}", name_,
                name_of(scales->dt));
    KILN_ENSURE(scales->rank() == 1, "{}: scales must be 1-D", name_);
  }
  if (!is_empty(sizes)) {
    KILN_ENSURE(sizes->dt == DatumType::I64, "{}: sizes must be i64, got {}", name_,
                name_of(sizes->dt));
    KILN_ENSURE(sizes->rank() == 1, "{}: sizes must be 1-D", name_);
  }
  KILN_ENSURE(!is_empty(scales) || !is_empty(sizes), "{}: one of scales or sizes is required",
              name_);
  KILN_ENSURE(is_empty(scales) || is_empty(sizes), "{}: only one of scales and sizes may be given",
              name_);
  std::vector<Dim> out = x.shape;
  auto in_shape = x.try_concrete_shape();
  if (!is_empty(scales)) {
    if (scales->value) {
      std::vector<double> sv;
      for (int64_t i = 0; i < scales->value->numel(); i++)
        sv.push_back(scales->value->value_as_double(i));
      KILN_ENSURE(sv.size() == axes.size(), "{}: expected {} scales, got {}", name_, axes.size(),
                  sv.size());
      for (size_t i = 0; i < axes.size(); i++) {
        double s = sv[i];
        KILN_ENSURE(s > 0, "{}: scales must be positive, got {}", name_, s);
        const Dim& d = x.shape[axes[i]];
        if (d.is_int()) {
          out[axes[i]] = static_cast<int64_t>(
              std::floor(static_cast<float>(d.to_int()) * static_cast<float>(s)));
        } else if (s >= 1 && s == std::floor(s)) {
          out[axes[i]] = d * Dim(static_cast<int64_t>(s));
        } else {
          out[axes[i]] = Dim::fresh();
        }
      }
    } else {
      for (size_t ax : axes) out[ax] = Dim::fresh();
    }
  } else if (auto known = sizes->known_i64_values(); known && in_shape) {
    return {Fact(x.dt, plan(*in_shape, nullptr, &*known).out)};
  } else if (o_.aspect == AspectPolicy::Stretch && sizes->dims_value &&
             sizes->dims_value->size() == axes.size()) {
    for (size_t i = 0; i < axes.size(); i++) out[axes[i]] = (*sizes->dims_value)[i];
  } else {
    for (size_t ax : axes) out[ax] = Dim::fresh();
  }
  return {Fact(x.dt, out)};
}

std::vector<Resize::Taps> Resize::axis_taps(size_t ax, const Shape& in, const AxisPlan& p,
                                            double roi_start, double roi_end) const {
  const int64_t len_in = in[ax], len_out = p.out[ax];
  const double s = p.scales[ax];
  const double resized = s * static_cast<double>(len_in);
  const double length_resized = o_.integer_resized_length ? static_cast<double>(len_out) : resized;
  std::vector<Taps> taps(static_cast<size_t>(len_out));
  for (int64_t o = 0; o < len_out; o++) {
    const double od = static_cast<double>(o);
    double xo = 0;
    switch (o_.coord) {
      case Coord::HalfPixel:
        xo = (od + 0.5) / s - 0.5;
        break;
      case Coord::HalfPixelSymmetric: {
        double adjustment = static_cast<double>(len_out) / resized;
        double center = static_cast<double>(len_in) / 2;
        xo = center * (1 - adjustment) + (od + 0.5) / s - 0.5;
        break;
      }
      case Coord::PytorchHalfPixel:
        xo = len_out > 1 ? (od + 0.5) / s - 0.5 : 0;
        break;
      case Coord::AlignCorners:
        xo = length_resized == 1 ? 0 : od * static_cast<double>(len_in - 1) / (length_resized - 1);
        break;
      case Coord::Asymmetric:
        xo = od / s;
        break;
      case Coord::TfHalfPixelForNn:
        xo = (od + 0.5) / s;
        break;
      case Coord::TfCropAndResize: {
        double span = (roi_end - roi_start) * static_cast<double>(len_in - 1);
        xo = length_resized == 1 ? span / 2 : od * span / (length_resized - 1);
        xo += roi_start * static_cast<double>(len_in - 1);
        break;
      }
    }
    Taps& t = taps[static_cast<size_t>(o)];
    if (o_.coord == Coord::TfCropAndResize && (xo < 0 || xo > static_cast<double>(len_in - 1)))
      continue;  // extrapolated
    const double fl = std::floor(xo);
    if (o_.mode == Mode::Nearest) {
      double r = xo - fl;
      double pick = fl;
      if (r > 0) {
        switch (o_.nearest) {
          case Nearest::RoundPreferFloor:
            pick = r <= 0.5 ? fl : fl + 1;
            break;
          case Nearest::RoundPreferCeil:
            pick = r < 0.5 ? fl : fl + 1;
            break;
          case Nearest::Floor:
            pick = fl;
            break;
          case Nearest::Ceil:
            pick = fl + 1;
            break;
          case Nearest::Simple:
            pick = s < 1 ? fl + 1 : fl;
            break;
        }
      }
      int64_t idx = std::clamp<int64_t>(static_cast<int64_t>(pick), 0, len_in - 1);
      t.push_back({idx, 1.0});
      continue;
    }
    const double support = o_.mode == Mode::Linear ? 1.0 : 2.0;
    const double s_eff = o_.antialias ? std::min(s, 1.0) : 1.0;
    const int64_t half = static_cast<int64_t>(std::ceil(support / s_eff));
    const int64_t base = static_cast<int64_t>(fl);
    double sum = 0;
    for (int64_t idx = base - half + 1; idx <= base + half; idx++) {
      double arg = (static_cast<double>(idx) - xo) * s_eff;
      double w = o_.mode == Mode::Linear ? std::max(0.0, 1 - std::abs(arg))
                                         : cubic_kernel(arg, o_.cubic_coeff_a);
      if (o_.exclude_outside && (idx < 0 || idx >= len_in)) w = 0;
      sum += w;
      t.push_back({std::clamp<int64_t>(idx, 0, len_in - 1), w});
    }
    if (o_.antialias || o_.exclude_outside) {
      if (sum != 0)
        for (auto& [i, w] : t) w /= sum;
    }
  }
  return taps;
}

void Resize::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& x = required(inputs, 0, name_);
  const Tensor* roi = inputs.size() > 1 ? inputs[1] : nullptr;
  const Tensor* scales = inputs.size() > 2 ? inputs[2] : nullptr;
  const Tensor* sizes = inputs.size() > 3 ? inputs[3] : nullptr;
  if (scales && scales->numel() == 0) scales = nullptr;
  if (sizes && sizes->numel() == 0) sizes = nullptr;
  KILN_ENSURE(!(scales && sizes), "{}: only one of scales and sizes may be given", name_);
  std::vector<double> sv;
  std::vector<int64_t> zv;
  if (scales)
    for (int64_t i = 0; i < scales->numel(); i++) sv.push_back(scales->value_as_double(i));
  if (sizes) zv = sizes->to_i64_vector();
  const Shape& in = x.shape();
  const size_t rank = in.size();
  AxisPlan p = plan(in, scales ? &sv : nullptr, sizes ? &zv : nullptr);

  std::vector<double> roi_start(rank, 0.0), roi_end(rank, 1.0);
  if (o_.coord == Coord::TfCropAndResize) {
    KILN_ENSURE(roi && roi->numel() > 0, "{}: tf_crop_and_resize needs a roi", name_);
    std::vector<size_t> axes = resolved_axes(rank);
    KILN_ENSURE(static_cast<size_t>(roi->numel()) == 2 * axes.size(),
                "{}: roi must have {} values, got {}", name_, 2 * axes.size(), roi->numel());
    for (size_t i = 0; i < axes.size(); i++) {
      roi_start[axes[i]] = roi->value_as_double(static_cast<int64_t>(i));
      roi_end[axes[i]] = roi->value_as_double(static_cast<int64_t>(i + axes.size()));
    }
  }

  // Interpolate axis by axis in double: n-linear and n-cubic filters are separable.
  std::vector<double> cur(static_cast<size_t>(x.numel()));
  for (int64_t i = 0; i < x.numel(); i++) cur[static_cast<size_t>(i)] = x.value_as_double(i);
  Shape shape = in;
  for (size_t ax = 0; ax < rank; ax++) {
    bool identity = p.out[ax] == in[ax] && p.scales[ax] == 1.0 &&
                    o_.coord != Coord::TfCropAndResize && o_.coord != Coord::TfHalfPixelForNn;
    if (identity) continue;
    std::vector<Taps> taps = axis_taps(ax, in, p, roi_start[ax], roi_end[ax]);
    int64_t outer = 1, inner = 1;
    for (size_t d = 0; d < ax; d++) outer *= shape[d];
    for (size_t d = ax + 1; d < rank; d++) inner *= shape[d];
    const int64_t len_in = shape[ax], len_out = p.out[ax];
    std::vector<double> next(static_cast<size_t>(outer * len_out * inner));
    for (int64_t a = 0; a < outer; a++) {
      for (int64_t o = 0; o < len_out; o++) {
        const Taps& t = taps[static_cast<size_t>(o)];
        double* dst = next.data() + (a * len_out + o) * inner;
        if (t.empty()) {
          std::fill(dst, dst + inner, o_.extrapolation_value);
          continue;
        }
        std::fill(dst, dst + inner, 0.0);
        for (const auto& [idx, w] : t) {
          if (w == 0) continue;
          const double* src = cur.data() + (a * len_in + idx) * inner;
          for (int64_t b = 0; b < inner; b++) dst[b] += w * src[b];
        }
      }
    }
    cur.swap(next);
    shape[ax] = len_out;
  }

  Tensor& y = ctx.output(0, x.dtype(), shape);
  dispatch_numeric(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* py = y.data<T>();
    for (size_t i = 0; i < cur.size(); i++) {
      if constexpr (std::is_integral_v<T>) {
        // Interpolated integers are truncated toward zero, as ONNX's reference (astype) and
        // ONNX Runtime do (linear 17.6 -> 17, -6.7 -> -6), a value an ulp-level rounding
        // error away from an integer being that integer; cubic's overshoot is clamped.
        double r = std::nearbyint(cur[i]);
        if (std::fabs(cur[i] - r) > 1e-9 * std::max(1.0, std::fabs(r))) r = std::trunc(cur[i]);
        r = std::clamp(r, static_cast<double>(std::numeric_limits<T>::lowest()),
                       static_cast<double>(std::numeric_limits<T>::max()));
        py[i] = static_cast<T>(r);
      } else {
        py[i] = static_cast<T>(cur[i]);
      }
    }
  });
}

OpPtr Resize::codegen(const FactRefs& inputs) const {
  const Fact* x = inputs.empty() ? nullptr : inputs[0];
  if (!x || x->dt != DatumType::F32 || x->rank() < 2) return nullptr;
  if (o_.mode == Mode::Cubic || o_.antialias || o_.coord == Coord::TfCropAndResize) return nullptr;
  // Only the last two axes may be resized: the kernel works on planes.
  std::vector<size_t> axes = resolved_axes(x->rank());
  const Fact* scales = inputs.size() > 2 ? inputs[2] : nullptr;
  const Fact* sizes = inputs.size() > 3 ? inputs[3] : nullptr;
  auto given = [](const Fact* f) { return f && !(f->value && f->value->numel() == 0); };
  std::vector<double> sv;
  std::vector<int64_t> zv;
  if (given(scales)) {
    if (!scales->value || static_cast<size_t>(scales->value->numel()) != axes.size())
      return nullptr;
    for (int64_t i = 0; i < scales->value->numel(); i++) {
      sv.push_back(scales->value->value_as_double(i));
      if (axes[static_cast<size_t>(i)] + 2 < x->rank() && sv.back() != 1.0) return nullptr;
    }
  } else if (given(sizes)) {
    if (!sizes->value || static_cast<size_t>(sizes->value->numel()) != axes.size()) return nullptr;
    zv = sizes->value->to_i64_vector();
    for (size_t i = 0; i < zv.size() && i < axes.size(); i++) {
      if (axes[i] + 2 >= x->rank()) continue;
      const Dim& d = x->shape[axes[i]];
      if (!d.is_int() || d.to_int() != zv[i]) return nullptr;
    }
  } else {
    return nullptr;
  }
  return std::make_shared<ResizeF32>(std::make_shared<Resize>(*this), std::move(sv), std::move(zv));
}

Cost Resize::cost(const FactRefs& inputs) const {
  if (o_.mode == Mode::Nearest) return {};
  std::vector<Fact> out = output_facts(inputs);
  Cost c;
  int64_t taps = o_.mode == Mode::Linear ? 2 : 4;
  c.fma = out[0].volume() * Dim(taps * static_cast<int64_t>(resolved_axes(out[0].rank()).size()));
  return c;
}

}  // namespace kiln::ops
