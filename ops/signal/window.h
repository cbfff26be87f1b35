// HannWindow, HammingWindow, BlackmanWindow: generalized cosine windows of a given size.
#pragma once

#include "core/op.h"

namespace kiln::ops {

enum class WindowKind { Hann, Hamming, Blackman };

class Window : public Op {
 public:
  Window(WindowKind kind, bool periodic, DatumType output_type)
      : kind_(kind), periodic_(periodic), output_type_(output_type) {}
  std::string name() const override;
  Attributes attributes() const override;
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs& inputs) const override { return {}; }

 private:
  WindowKind kind_;
  bool periodic_;
  DatumType output_type_;
};

}  // namespace kiln::ops
