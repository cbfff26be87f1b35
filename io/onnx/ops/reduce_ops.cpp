// ONNX translators for the reduce op family: reductions, arg-reductions, softmax and losses,
// cumulative sums, top-k, einsum, det, unique.
#include "io/onnx/ops/reduce/reduce_translators.h"
#include "io/onnx/ops/register_all.h"

namespace kiln::onnx_io {

void register_reduce_ops(OpRegistry& registry) {
  register_reduction_translators(registry);
  register_softmax_loss_translators(registry);
  register_misc_reduce_translators(registry);
}

}  // namespace kiln::onnx_io
