// ONNX translators for the nn op family.
#include "io/onnx/ops/register_all.h"

namespace kiln::onnx_io {

void register_nn_ops(OpRegistry& registry) { (void)registry; }

}  // namespace kiln::onnx_io
