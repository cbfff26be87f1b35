// MaxUnpool: scatters the values of X into a zero tensor at the flat output indices I given
// by MaxPool; the output shape is the explicit output_shape input or is inferred from
// kernel_shape, strides and pads.
#pragma once

#include <vector>

#include "core/op.h"

namespace kiln::ops {

class MaxUnpool : public Op {
 public:
  MaxUnpool(std::vector<int64_t> kernel_shape, std::vector<int64_t> strides,
            std::vector<int64_t> pads)
      : kernel_(std::move(kernel_shape)), strides_(std::move(strides)), pads_(std::move(pads)) {}
  std::string name() const override { return "MaxUnpool"; }
  Attributes attributes() const override;
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs&) const override { return {}; }

 private:
  std::vector<Dim> inferred_shape(const std::vector<Dim>& x) const;
  std::vector<int64_t> kernel_, strides_, pads_;
};

}  // namespace kiln::ops
