#include "ops/shape/shape_of.h"

#include <algorithm>

#include "ops/shape/common.h"

namespace kiln::ops {

Attributes ShapeOf::attributes() const {
  Attributes a;
  if (start_ != 0) a.emplace_back("start", std::to_string(start_));
  if (end_) a.emplace_back("end", std::to_string(*end_));
  return a;
}

std::pair<size_t, size_t> ShapeOf::range(size_t rank) const {
  int64_t r = static_cast<int64_t>(rank);
  auto clampi = [&](int64_t v) { return std::clamp<int64_t>(v < 0 ? v + r : v, 0, r); };
  int64_t s = clampi(start_);
  int64_t e = end_ ? clampi(*end_) : r;
  return {static_cast<size_t>(s), static_cast<size_t>(std::max(s, e))};
}

std::vector<Fact> ShapeOf::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 1, 1);
  const Fact& in = required(inputs, 0, name());
  auto [s, e] = range(in.rank());
  std::vector<Dim> dims(in.shape.begin() + static_cast<long>(s),
                        in.shape.begin() + static_cast<long>(e));
  int64_t n = static_cast<int64_t>(dims.size());
  return {fact_from_dims_value(DatumType::I64, {Dim(n)}, std::move(dims))};
}

void ShapeOf::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& in = required(inputs, 0, name());
  auto [s, e] = range(in.rank());
  Tensor& out = ctx.output(0, DatumType::I64, {static_cast<int64_t>(e - s)});
  int64_t* dst = out.data<int64_t>();
  for (size_t i = s; i < e; i++) dst[i - s] = in.dim(i);
}

std::vector<Fact> Size::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 1, 1);
  const Fact& in = required(inputs, 0, name());
  Dim n = in.volume();
  if (auto v = n.as_int()) {
    Fact f = Fact::constant(Tensor::scalar<int64_t>(*v));
    return {f};
  }
  return {fact_from_dims_value(DatumType::I64, {}, {n})};
}

void Size::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& in = required(inputs, 0, name());
  ctx.output(0, DatumType::I64, {}).data<int64_t>()[0] = in.numel();
}

}  // namespace kiln::ops
