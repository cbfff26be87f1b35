// Translators of the reduce family, split by theme; register_reduce_ops calls them all.
#pragma once

#include "io/onnx/translator.h"

namespace kiln::onnx_io {

// Reduce*, ArgMax, ArgMin.
void register_reduction_translators(OpRegistry& registry);
// Softmax, LogSoftmax, Hardmax, NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss.
void register_softmax_loss_translators(OpRegistry& registry);
// CumSum, TopK, Einsum, Det, Unique.
void register_misc_reduce_translators(OpRegistry& registry);

}  // namespace kiln::onnx_io
