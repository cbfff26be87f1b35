// QuantizeLinear: y = saturate(round_half_even(x / scale) + zero_point), per tensor or per axis.
#pragma once

#include <optional>

#include "core/op.h"

namespace kiln::ops {

class QuantizeLinear : public Op {
 public:
  // `output_dt` is the output type when no zero point is given (u8 unless opset 21's
  // output_dtype says otherwise).
  explicit QuantizeLinear(int64_t axis = 1, DatumType output_dt = DatumType::U8)
      : axis_(axis), output_dt_(output_dt) {}
  std::string name() const override { return "QuantizeLinear"; }
  int64_t axis() const { return axis_; }
  DatumType output_dt() const { return output_dt_; }
  Attributes attributes() const override;
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs& inputs) const override;

 private:
  int64_t axis_;
  DatumType output_dt_;
};

}  // namespace kiln::ops
