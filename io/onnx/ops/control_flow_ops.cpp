// ONNX translators for the control_flow op family.
#include "io/onnx/ops/register_all.h"

namespace kiln::onnx_io {

void register_control_flow_ops(OpRegistry& registry) { (void)registry; }

}  // namespace kiln::onnx_io
