// Cast (to a fixed type) and CastLike (to the type of input 1): element-wise conversion
// between all numeric types, bool and strings.
#pragma once

#include <optional>

#include "core/op.h"

namespace kiln::ops {

class Cast : public Op {
 public:
  // `to` empty: CastLike, the target type is input 1's.
  explicit Cast(std::optional<DatumType> to) : to_(to) {}
  std::optional<DatumType> to() const { return to_; }

  std::string name() const override { return to_ ? "Cast" : "CastLike"; }
  bool same_as(const Op& other) const override {
    return same_fields(*this, other, [](const Cast& o) { return std::tie(o.to_); });
  }
  Attributes attributes() const override;
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs&) const override { return {}; }

 private:
  std::optional<DatumType> to_;
};

// Text of a number as numpy prints it (shortest round-trip digits: "0.1", "1.0", "1e-05").
std::string float_to_string(double value, bool single_precision);

}  // namespace kiln::ops
