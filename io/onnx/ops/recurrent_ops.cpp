// ONNX translators for the recurrent op family.
#include "io/onnx/ops/register_all.h"

namespace kiln::onnx_io {

void register_recurrent_ops(OpRegistry& registry) { (void)registry; }

}  // namespace kiln::onnx_io
