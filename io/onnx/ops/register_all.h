// One registration function per op family; io/onnx/registry.cpp (default_registry) calls them
// all.
#pragma once

#include "io/onnx/translator.h"

namespace kiln::onnx_io {

void register_elementwise_ops(OpRegistry& registry);
void register_nn_ops(OpRegistry& registry);
void register_shape_ops(OpRegistry& registry);
void register_reduce_ops(OpRegistry& registry);
void register_recurrent_ops(OpRegistry& registry);
void register_control_flow_ops(OpRegistry& registry);
void register_misc_ops(OpRegistry& registry);
void register_image_ops(OpRegistry& registry);
void register_signal_ops(OpRegistry& registry);
void register_text_ops(OpRegistry& registry);
void register_training_ops(OpRegistry& registry);
void register_sequence_ops(OpRegistry& registry);
void register_gradient_ops(OpRegistry& registry);
void register_norm_ops(OpRegistry& registry);
void register_attention_ops(OpRegistry& registry);
void register_geometry_ops(OpRegistry& registry);
void register_random_ops(OpRegistry& registry);
void register_ml_ops(OpRegistry& registry);
void register_ml_tree_ops(OpRegistry& registry);
// Last: the newer versions the translators registered above implement.
void register_newer_versions(OpRegistry& registry);

}  // namespace kiln::onnx_io
