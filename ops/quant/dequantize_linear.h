// DequantizeLinear: y = (x - zero_point) * scale for 8-, 16-, 32-, 4- and 2-bit integers, and
// y = float(x) * scale for float8 / float4 inputs. Per tensor, per axis or blocked (opset 21)
// scales; the output has the scale's type unless output_dtype (opset 23) says otherwise.
#pragma once

#include <optional>

#include "core/op.h"

namespace kiln::ops {

class DequantizeLinear : public Op {
 public:
  explicit DequantizeLinear(int64_t axis = 1, int64_t block_size = 0,
                            std::optional<DatumType> output_dt = std::nullopt)
      : axis_(axis), block_size_(block_size), output_dt_(output_dt) {}
  std::string name() const override { return "DequantizeLinear"; }
  int64_t axis() const { return axis_; }
  int64_t block_size() const { return block_size_; }
  const std::optional<DatumType>& output_dt() const { return output_dt_; }
  Attributes attributes() const override;
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs& inputs) const override;

 private:
  int64_t axis_;
  int64_t block_size_;
  std::optional<DatumType> output_dt_;
};

}  // namespace kiln::ops
