// SpaceToDepth: moves spatial blocks into channels ([N, C, H, W] -> [N, C*b^2, H/b, W/b]);
// the inverse of DepthToSpace in DCR mode.
#pragma once

#include "core/op.h"
#include "ops/image/depth_to_space.h"  // kMaxBlocksize

namespace kiln::ops {

class SpaceToDepth : public Op {
 public:
  explicit SpaceToDepth(int64_t blocksize) : blocksize_(blocksize) {}
  std::string name() const override { return "SpaceToDepth"; }
  Attributes attributes() const override { return {{"blocksize", std::to_string(blocksize_)}}; }
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs&) const override { return {}; }

 private:
  int64_t blocksize_;
};

}  // namespace kiln::ops
