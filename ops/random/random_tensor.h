// RandomNormal / RandomUniform and their *Like forms: a tensor of draws from a normal (mean,
// scale) or uniform [low, high) distribution, of a fixed shape or of input 0's shape. With a
// seed every evaluation draws the same values (a generator seeded afresh, like kiln's
// Dropout); without one, fresh entropy each time. Never constant-folded.
#pragma once

#include <optional>

#include "core/op.h"

namespace kiln::ops {

enum class Distribution { Normal, Uniform };

struct RandomOptions {
  Distribution distribution = Distribution::Normal;
  double a = 0.0;  // mean or low
  double b = 1.0;  // scale or high
  std::optional<float> seed;
  std::optional<DatumType> dtype;  // default f32, or input 0's type for the Like forms
  std::optional<Shape> shape;      // fixed shape; absent: input 0's (the Like forms)
};

class RandomTensor : public Op {
 public:
  explicit RandomTensor(RandomOptions o) : o_(std::move(o)) {}
  std::string name() const override;
  Attributes attributes() const override;
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs&) const override { return {}; }
  bool is_deterministic() const override { return false; }

 private:
  DatumType output_type(const Fact* like) const;
  RandomOptions o_;
};

// The generator seed of an ONNX float seed attribute (its value, as the reference does), or
// entropy when absent.
uint64_t random_seed(std::optional<float> seed);

}  // namespace kiln::ops
