// ONNX translators for the elementwise op family.
#include "io/onnx/ops/register_all.h"

namespace kiln::onnx_io {

void register_elementwise_ops(OpRegistry& registry) { (void)registry; }

}  // namespace kiln::onnx_io
