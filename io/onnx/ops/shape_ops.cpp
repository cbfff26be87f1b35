// ONNX translators for the shape op family.
#include "io/onnx/ops/register_all.h"

namespace kiln::onnx_io {

void register_shape_ops(OpRegistry& registry) { (void)registry; }

}  // namespace kiln::onnx_io
