// Resize (and Upsample): n-linear / n-cubic / nearest interpolation over any axes, with the
// ONNX coordinate transformation modes, nearest rounding modes, exclude_outside,
// tf_crop_and_resize extrapolation, antialias, axes and keep_aspect_ratio_policy.
// Inputs are always (X, roi, scales, sizes); absent ones are nullptr.
#pragma once

#include <string>
#include <vector>

#include "core/op.h"

namespace kiln::ops {

class Resize : public Op {
 public:
  enum class Mode { Nearest, Linear, Cubic };
  enum class Coord {
    HalfPixel,
    HalfPixelSymmetric,
    PytorchHalfPixel,
    AlignCorners,
    Asymmetric,
    TfHalfPixelForNn,
    TfCropAndResize,
  };
  // Simple: Upsample / Resize-10 behaviour (floor when upsampling, ceil when downsampling).
  enum class Nearest { RoundPreferFloor, RoundPreferCeil, Floor, Ceil, Simple };
  enum class AspectPolicy { Stretch, NotLarger, NotSmaller };

  struct Options {
    Mode mode = Mode::Nearest;
    Coord coord = Coord::HalfPixel;
    Nearest nearest = Nearest::RoundPreferFloor;
    double cubic_coeff_a = -0.75;
    bool exclude_outside = false;
    double extrapolation_value = 0.0;
    bool antialias = false;
    std::vector<int64_t> axes;  // empty: all axes
    AspectPolicy aspect = AspectPolicy::Stretch;
    // align_corners and tf_crop_and_resize divide by length_resized - 1: the output length (an
    // integer) from Resize-18 on, as ONNX Runtime computes it; before, scale * input length, as
    // ONNX 1.12's reference and backend test data do (they differ when that is fractional).
    bool integer_resized_length = false;
  };
  // Parsers for the ONNX attribute strings; throw on unknown values.
  static Mode parse_mode(const std::string& s);
  static Coord parse_coord(const std::string& s);
  static Nearest parse_nearest(const std::string& s);
  static AspectPolicy parse_aspect(const std::string& s);

  explicit Resize(Options options, std::string op_name = "Resize")
      : o_(std::move(options)), name_(std::move(op_name)) {}
  std::string name() const override { return name_; }
  Attributes attributes() const override;
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs& inputs) const override;

  // Per-axis scale and output length from the scales or sizes values (concrete input shape).
  struct AxisPlan {
    std::vector<double> scales;
    Shape out;
  };
  AxisPlan plan(const Shape& in, const std::vector<double>* scales,
                const std::vector<int64_t>* sizes) const;
  // One output position along one axis: weighted input indices, or none to extrapolate.
  using Taps = std::vector<std::pair<int64_t, double>>;
  // The taps of every output position of axis `ax` of input shape `in` (roi: that axis' start
  // and end, used by tf_crop_and_resize only).
  std::vector<Taps> axis_taps(size_t ax, const Shape& in, const AxisPlan& p, double roi_start,
                              double roi_end) const;
  // f32, nearest or linear (no antialias), not tf_crop_and_resize, constant scales or sizes,
  // resizing only the last two axes: a ResizeF32 (ops/image/resize_f32.h).
  OpPtr codegen(const FactRefs& inputs) const override;
  bool is_reference_impl() const override { return true; }
  const Options& options() const { return o_; }

 private:
  std::vector<size_t> resolved_axes(size_t rank) const;
  Options o_;
  std::string name_;
};

}  // namespace kiln::ops
