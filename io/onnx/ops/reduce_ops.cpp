// ONNX translators for the reduce op family.
#include "io/onnx/ops/register_all.h"

namespace kiln::onnx_io {

void register_reduce_ops(OpRegistry& registry) { (void)registry; }

}  // namespace kiln::onnx_io
