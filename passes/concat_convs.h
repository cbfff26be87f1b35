// concat-convs (optimize, after fuse-residual and fuse-clamp): a Concat along axis 1 whose
// every input is the only use of a ConvPacked output becomes one ConcatConvs node
// (ops/nn/concat_convs.h): each conv writes its channel range of the result, the copy is gone.
#pragma once

#include "core/pass.h"

namespace kiln::passes {

class ConcatConvsPass : public Pass {
 public:
  std::string name() const override { return "concat-convs"; }
  size_t run(Graph& graph) override;
};

}  // namespace kiln::passes
