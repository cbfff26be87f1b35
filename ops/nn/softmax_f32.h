// SoftmaxF32: f32 Softmax / LogSoftmax over contiguous rows (the last axis, or the opset < 13
// "coerce_2d" form), or over another axis (`strided`: vectors along the dims after it), put in
// place by Softmax::codegen; vectorized by kernels/norm (errors stated there). Rows (column
// blocks) are split across threads when the tensor is large.
#pragma once

#include <memory>

#include "core/op.h"
#include "ops/nn/softmax.h"

namespace kiln::ops {

class SoftmaxF32 : public Op {
 public:
  // `row_axis`: the normalized rows are the dims from this axis on (contiguous); `strided`: the
  // normalized axis is row_axis alone, with dims after it.
  SoftmaxF32(std::shared_ptr<const Softmax> reference, size_t row_axis, bool log,
             bool strided = false)
      : reference_(std::move(reference)), row_axis_(row_axis), log_(log), strided_(strided) {}
  std::string name() const override { return reference_->name() + "F32"; }
  Attributes attributes() const override { return reference_->attributes(); }
  std::vector<Fact> output_facts(const FactRefs& inputs) const override {
    return reference_->output_facts(inputs);
  }
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs& inputs) const override { return reference_->cost(inputs); }

 private:
  std::shared_ptr<const Softmax> reference_;
  size_t row_axis_;
  bool log_;
  bool strided_;
};

}  // namespace kiln::ops
