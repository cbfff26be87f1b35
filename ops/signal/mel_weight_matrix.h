// MelWeightMatrix: the [dft_length/2+1, num_mel_bins] matrix of triangular mel filters that maps
// a one-sided magnitude spectrum to mel bands.
#pragma once

#include "core/op.h"

namespace kiln::ops {

class MelWeightMatrix : public Op {
 public:
  explicit MelWeightMatrix(DatumType output_type) : output_type_(output_type) {}
  std::string name() const override { return "MelWeightMatrix"; }
  Attributes attributes() const override {
    return {{"output_datatype", std::string(name_of(output_type_))}};
  }
  // inputs: num_mel_bins, dft_length, sample_rate, lower_edge_hertz, upper_edge_hertz
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs&) const override { return {}; }

 private:
  DatumType output_type_;
};

}  // namespace kiln::ops
