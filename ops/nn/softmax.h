// Softmax, LogSoftmax and Hardmax along one axis. The opset < 13 form ("coerce_2d") treats the
// input as a 2-D matrix [prod(dims before axis), prod(dims from axis)] and normalizes rows.
#pragma once

#include "core/op.h"

namespace kiln::ops {

enum class SoftmaxKind { Softmax, LogSoftmax, Hardmax };

class Softmax : public Op {
 public:
  Softmax(SoftmaxKind kind, int64_t axis, bool coerce_2d = false)
      : kind_(kind), axis_(axis), coerce_2d_(coerce_2d) {}
  std::string name() const override;
  bool same_as(const Op& other) const override {
    return same_fields(*this, other,
                       [](const Softmax& o) { return std::tie(o.kind_, o.axis_, o.coerce_2d_); });
  }
  Attributes attributes() const override;
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs& inputs) const override;
  // f32 Softmax / LogSoftmax over the last axis (or coerce_2d rows): ops::SoftmaxF32.
  OpPtr codegen(const FactRefs& inputs) const override;
  bool is_reference_impl() const override { return true; }

 private:
  SoftmaxKind kind_;
  int64_t axis_;
  bool coerce_2d_;
};

// Softmax / log-softmax of rows: `outer` blocks of `n` values with stride `inner`, in double.
// All elements of a numeric tensor as doubles (one type dispatch, not one per element).
std::vector<double> tensor_to_doubles(const Tensor& t);

void softmax_rows(const double* x, double* y, int64_t outer, int64_t n, int64_t inner, bool log);

}  // namespace kiln::ops
