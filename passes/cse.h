// cse (common-subexpression elimination): two nodes computing the same thing on the same inputs
// become one; equal constants become one. The op decides what "the same" is (Op::same_as: by
// default only the same object; element-wise, shape and indexing ops, MatMul... compare their
// fields), so ops with state or fields that do not describe them are never merged by mistake.
#pragma once

#include "core/pass.h"

namespace kiln::passes {

class CommonSubexpressions : public Pass {
 public:
  std::string name() const override { return "cse"; }
  size_t run(Graph& graph) override;
};

}  // namespace kiln::passes
