// ResizeF32: Resize / Upsample on f32 in nearest or linear mode (no antialias, not
// tf_crop_and_resize) with constant scales or sizes, resizing only the last two axes (2-D images
// and 1-D signals): the index and weight tables of each axis are built once per input shape
// (session state, from the reference's Resize::axis_taps, so every coordinate transformation and
// rounding mode is the reference's) and kernels/image/resize.h runs them over the pool.
// Anything else at run time (another shape resizing an outer axis) goes to the reference.
#pragma once

#include <memory>
#include <vector>

#include "kernels/image/resize.h"
#include "ops/image/resize.h"

namespace kiln::ops {

class ResizeF32 : public Op {
 public:
  // `scales` or `sizes`: the constant input (the other empty).
  ResizeF32(std::shared_ptr<const Resize> reference, std::vector<double> scales,
            std::vector<int64_t> sizes)
      : reference_(std::move(reference)), scales_(std::move(scales)), sizes_(std::move(sizes)) {}
  std::string name() const override { return "ResizeF32"; }
  Attributes attributes() const override { return reference_->attributes(); }
  std::vector<Fact> output_facts(const FactRefs& inputs) const override {
    return reference_->output_facts(inputs);
  }
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs& inputs) const override { return reference_->cost(inputs); }
  std::unique_ptr<OpState> make_state(const FactRefs& inputs) const override;

  // The tables of one input shape (kept in the session's state for the next run).
  struct Tables : OpState {
    Shape in, out;
    bool fast = false;  // only the last two axes change
    std::vector<int32_t> idx[2][2];
    std::vector<float> w[2][2];
    kernels::ResizeAxis axis[2];  // rows, columns
  };

 private:
  void build(Tables& t, const Shape& in) const;
  std::shared_ptr<const Resize> reference_;
  std::vector<double> scales_;
  std::vector<int64_t> sizes_;
};

}  // namespace kiln::ops
