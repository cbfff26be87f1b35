// ConvTranspose: the gradient of Conv with respect to its input (1 to 3 spatial dims), with
// groups, strides, dilations, pads / auto_pad, output_padding and output_shape.
#pragma once

#include "core/op.h"
#include "ops/nn/pool_geometry.h"

namespace kiln::ops {

class ConvTranspose : public Op {
 public:
  ConvTranspose(WindowGeometry geometry, int64_t group, std::vector<int64_t> output_padding,
                std::vector<int64_t> output_shape)
      : geo_(std::move(geometry)),
        group_(group),
        output_padding_(std::move(output_padding)),
        output_shape_(std::move(output_shape)) {}
  std::string name() const override { return "ConvTranspose"; }
  Attributes attributes() const override;
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs& inputs) const override;
  // f32 with constant f32 weights (and bias): a ConvTransposePacked
  // (ops/nn/conv_transpose_packed.h).
  OpPtr codegen(const FactRefs& inputs) const override;
  bool is_reference_impl() const override { return true; }
  int64_t group() const { return group_; }
  // The window of concrete input and weight shapes (the transposed view: `in` the input's
  // spatial dims, `out` the output's) and the output shape.
  Window3 window(const Shape& x, const Shape& wt, Shape& out_shape) const;

 private:
  struct Axis {
    Dim out;
    int64_t pad_begin = 0;
  };
  // Output size and leading padding of each spatial axis.
  std::vector<Axis> axes(const WindowGeometry& g, const std::vector<Dim>& input) const;
  WindowGeometry geo_;
  int64_t group_;
  std::vector<int64_t> output_padding_;
  std::vector<int64_t> output_shape_;
};

}  // namespace kiln::ops
