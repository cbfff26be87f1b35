// DepthToSpace: moves blocks of channels into spatial blocks ([N, C, H, W] ->
// [N, C/b^2, H*b, W*b]), in DCR (depth-column-row) or CRD (column-row-depth) order.
#pragma once

#include "core/op.h"

namespace kiln::ops {

// Larger block sizes exist in no model; b^2 must not overflow (hostile attributes).
inline constexpr int64_t kMaxBlocksize = int64_t{1} << 16;

class DepthToSpace : public Op {
 public:
  DepthToSpace(int64_t blocksize, bool crd) : blocksize_(blocksize), crd_(crd) {}
  std::string name() const override { return "DepthToSpace"; }
  Attributes attributes() const override {
    return {{"blocksize", std::to_string(blocksize_)}, {"mode", crd_ ? "CRD" : "DCR"}};
  }
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs&) const override { return {}; }

 private:
  int64_t blocksize_;
  bool crd_;
};

}  // namespace kiln::ops
