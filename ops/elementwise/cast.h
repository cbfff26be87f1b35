// Cast (to a fixed type) and CastLike (to the type of input 1): element-wise conversion
// between all numeric types, bool, strings and the narrow types (float8 with or without
// saturation, float4, int4/uint4, int2/uint2).
#pragma once

#include <optional>

#include "core/op.h"

namespace kiln::ops {

// How values out of a narrow float type's range convert (ONNX Cast-19+, see core/narrow_types.h).
struct CastOptions {
  bool saturate = true;
  int e8m0_round = 0;  // float8e8m0: 0 up, 1 down, 2 nearest
  bool operator==(const CastOptions&) const = default;
};

class Cast : public Op {
 public:
  // `to` empty: CastLike, the target type is input 1's.
  explicit Cast(std::optional<DatumType> to, CastOptions options = {})
      : to_(to), options_(options) {}
  std::optional<DatumType> to() const { return to_; }
  const CastOptions& options() const { return options_; }

  std::string name() const override { return to_ ? "Cast" : "CastLike"; }
  bool same_as(const Op& other) const override {
    return same_fields(*this, other, [](const Cast& o) { return std::tie(o.to_, o.options_); });
  }
  Attributes attributes() const override;
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs&) const override { return {}; }

 private:
  std::optional<DatumType> to_;
  CastOptions options_;
};

// Text of a number as numpy prints it (shortest round-trip digits: "0.1", "1.0", "1e-05").
std::string float_to_string(double value, bool single_precision);

}  // namespace kiln::ops
