// The versions past ONNX 1.12's opset 17 that kiln's older translators implement: each line was
// checked against the spec's changelog (what the version changed) and the opset 18-25 suite
// (tests/onnx_opsets). Translators added for these opsets declare their versions where they are
// registered.
#include "io/onnx/ops/register_all.h"

namespace kiln::onnx_io {

void register_newer_versions(OpRegistry& r) {
  // Only the allowed types grew (bfloat16 at 22, the narrow types at 19, 21, 23, 24, 25): kiln's
  // ops take every float type, and its data-movement ops every type.
  for (const char* op : {"Acos",
                         "Acosh",
                         "Asin",
                         "Asinh",
                         "Atan",
                         "Atanh",
                         "Cos",
                         "Cosh",
                         "Sin",
                         "Sinh",
                         "Tan",
                         "Elu",
                         "HardSigmoid",
                         "HardSwish",
                         "Round",
                         "Selu",
                         "Softplus",
                         "Softsign",
                         "ThresholdedRelu",
                         "Conv",
                         "ConvTranspose",
                         "Det",
                         "Dropout",
                         "EyeLike",
                         "GRU",
                         "LSTM",
                         "RNN",
                         "GlobalAveragePool",
                         "GlobalLpPool",
                         "GlobalMaxPool",
                         "InstanceNormalization",
                         "MaxPool",
                         "MaxUnpool",
                         "NegativeLogLikelihoodLoss",
                         "RoiAlign",
                         "AveragePool",
                         "LpPool"})
    r.implements(op, 22);
  for (const char* op :
       {"Cast", "CastLike", "Constant", "ConstantOfShape", "Flatten", "Identity", "If", "Loop",
        "Scan", "Reshape", "Shape", "Size", "Squeeze", "Transpose", "Unsqueeze", "Pad"})
    r.implements(op, 25);
  // Opset 18: axes as an input of the reductions (and noop_with_empty_axes), Pad's axes input,
  // Split's num_outputs, ScatterElements / ScatterND reductions max and min, the optional ops
  // on plain tensors, the Bitwise ops.
  for (const char* op :
       {"ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp", "ReduceMean", "ReduceProd",
        "ReduceSumSquare", "Split", "ScatterElements", "ScatterND", "OptionalGetElement",
        "OptionalHasElement", "BitwiseAnd", "BitwiseNot", "BitwiseOr", "BitwiseXor"})
    r.implements(op, 18);
  // Opset 19: strings in Equal; Resize's half_pixel_symmetric (18: antialias, axes,
  // keep_aspect_ratio_policy).
  r.implements("Equal", 19);
  r.implements("Resize", 19);
  // Opset 20: bool in ReduceMax / ReduceMin, float8 in IsInf / IsNaN, Gelu, DFT's axis input,
  // GridSample's N-D form and renamed modes (22: bfloat16).
  for (const char* op : {"ReduceMax", "ReduceMin", "IsInf", "IsNaN", "Gelu", "DFT"})
    r.implements(op, 20);
  r.implements("GridSample", 22);
  // Opset 21: float8 operands of QLinearMatMul.
  r.implements("QLinearMatMul", 21);
  // Opset 24: bfloat16 in TopK and SplitToSequence.
  r.implements("TopK", 24);
  r.implements("SplitToSequence", 24);
}

}  // namespace kiln::onnx_io
