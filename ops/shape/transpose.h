// Transpose: permutes the axes (default: reverses them).
#pragma once

#include <optional>

#include "core/op.h"

namespace kiln::ops {

class Transpose : public Op {
 public:
  explicit Transpose(std::optional<std::vector<int64_t>> perm = std::nullopt)
      : perm_(std::move(perm)) {}
  // The permutation for an input of this rank (the default one reverses the axes).
  std::vector<size_t> perm(size_t rank) const { return perm_for(rank); }
  std::string name() const override { return "Transpose"; }
  bool same_as(const Op& other) const override {
    return same_fields(*this, other, [](const Transpose& o) { return std::tie(o.perm_); });
  }
  Attributes attributes() const override;
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs&) const override { return {}; }

 private:
  std::vector<size_t> perm_for(size_t rank) const;
  std::optional<std::vector<int64_t>> perm_;
};

}  // namespace kiln::ops
