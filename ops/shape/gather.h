// Gather, GatherElements, GatherND: reading elements at integer indices (negative indices
// count from the end; out-of-range indices are errors).
#pragma once

#include "core/op.h"

namespace kiln::ops {

class Gather : public Op {
 public:
  explicit Gather(int64_t axis = 0) : axis_(axis) {}
  std::string name() const override { return "Gather"; }
  bool same_as(const Op& other) const override {
    return same_fields(*this, other, [](const Gather& o) { return std::tie(o.axis_); });
  }
  Attributes attributes() const override { return {{"axis", std::to_string(axis_)}}; }
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs&) const override { return {}; }

 private:
  int64_t axis_;
};

class GatherElements : public Op {
 public:
  explicit GatherElements(int64_t axis = 0) : axis_(axis) {}
  std::string name() const override { return "GatherElements"; }
  Attributes attributes() const override { return {{"axis", std::to_string(axis_)}}; }
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs&) const override { return {}; }

 private:
  int64_t axis_;
};

class GatherND : public Op {
 public:
  explicit GatherND(int64_t batch_dims = 0) : batch_dims_(batch_dims) {}
  std::string name() const override { return "GatherND"; }
  Attributes attributes() const override { return {{"batch_dims", std::to_string(batch_dims_)}}; }
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs&) const override { return {}; }

 private:
  int64_t batch_dims_;
};

// An index checked against [-dim, dim) and made non-negative.
int64_t checked_index(int64_t index, int64_t dim, const char* op);

}  // namespace kiln::ops
