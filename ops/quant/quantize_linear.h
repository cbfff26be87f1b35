// QuantizeLinear: y = saturate(round_half_even(x / scale) + zero_point) into an 8-, 16-, 4- or
// 2-bit integer, or y = cast(x / scale + zero_point) into float8 / float4 (rounded to nearest
// even, saturating unless told not to). Per tensor, per axis or blocked (opset 21) scales; the
// output type comes from the zero point, else output_dtype, else u8. The division is done in
// float, its result rounded to the scale's type (or `precision`, opset 23) when that is
// narrower.
#pragma once

#include <optional>

#include "core/op.h"

namespace kiln::ops {

struct QuantizeOptions {
  int64_t block_size = 0;
  bool saturate = true;                // float8 outputs only
  std::optional<DatumType> precision;  // of x / scale (default: the scale's type)
};

class QuantizeLinear : public Op {
 public:
  // `output_dt` is the output type when no zero point is given (u8 unless opset 21's
  // output_dtype says otherwise).
  explicit QuantizeLinear(int64_t axis = 1, DatumType output_dt = DatumType::U8,
                          QuantizeOptions options = {})
      : axis_(axis), output_dt_(output_dt), o_(options) {}
  std::string name() const override { return "QuantizeLinear"; }
  int64_t axis() const { return axis_; }
  DatumType output_dt() const { return output_dt_; }
  const QuantizeOptions& options() const { return o_; }
  Attributes attributes() const override;
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs& inputs) const override;

 private:
  int64_t axis_;
  DatumType output_dt_;
  QuantizeOptions o_;
};

}  // namespace kiln::ops
