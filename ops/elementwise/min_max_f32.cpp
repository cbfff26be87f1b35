#include "ops/elementwise/min_max_f32.h"

#include "base/error.h"
#include "kernels/epilogue.h"
#include "ops/elementwise/vectorized.h"

namespace kiln::ops {

MinMaxF32::MinMaxF32(std::shared_ptr<const Variadic> reference) : reference_(std::move(reference)) {
  KILN_ENSURE(reference_->kind() == VariadicKind::Max || reference_->kind() == VariadicKind::Min,
              "MinMaxF32: a Max or a Min, not {}", reference_->name());
}

void MinMaxF32::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const auto op = static_cast<int>(
      reference_->kind() == VariadicKind::Max ? kernels::BinaryFn::Max : kernels::BinaryFn::Min);
  if (inputs.size() == 2 && inputs[0] && inputs[1] && inputs[0]->dtype() == DatumType::F32 &&
      inputs[1]->dtype() == DatumType::F32 && binary_f32(ctx, op, *inputs[0], *inputs[1]))
    return;
  reference_->eval(ctx, inputs);
}

}  // namespace kiln::ops
