// Static post-training quantization of a float ONNX model to ONNX Runtime's QDQ format
// (`kiln quantize`, docs/quantization.md): int8 symmetric weights (per output channel or per
// tensor), int32 biases (scale = input scale * weight scale, zero point 0), uint8 asymmetric
// activations from MinMax calibration. Q/DQ pairs go on the activation input and the output of
// every Conv / MatMul / Gemm with a constant weight (after a Relu / Clip that is the output's
// only consumer, as ORT folds it); all other ops stay float.
//
// Three steps: plan_quantization (which nodes, which activation tensors), calibrate (runs the
// float model in kiln with those tensors exposed as outputs, min/max over the input sets),
// apply_quantization (rewrites the ModelProto).
#pragma once

#include <onnx/onnx_pb.h>

#include <map>
#include <string>
#include <vector>

#include "core/tensor.h"

namespace kiln::onnx_io {

struct QuantizeOptions {
  std::vector<std::string> exclude;      // node names left float
  bool per_tensor = false;               // one weight scale per tensor instead of per channel
  std::vector<std::string> input_facts;  // -i specs for the calibration runs
};

struct QuantizeTarget {
  int node = -1;        // index in graph.node
  std::string input;    // the quantized activation input
  std::string output;   // the quantized output tensor (the node's, or its Relu / Clip's)
  int weight_axis = 0;  // output-channel axis of the weight
  int activation = -1;  // the Relu / Clip folded into the output quantization, or -1
};

struct QuantizePlan {
  std::vector<QuantizeTarget> targets;
  std::vector<std::string> tensors;   // activation tensors to calibrate, in graph order
  std::vector<std::string> skipped;   // "node 'x' (MatMul): why" for quantizable types left float
  std::vector<std::string> excluded;  // --exclude names found
  int conv = 0, matmul = 0, gemm = 0;
};

struct Range {
  float min = 0, max = 0;
  bool seen = false;
};

// Which nodes are quantized. Throws on an --exclude name that is no node of the graph, or on a
// model with nothing to quantize.
QuantizePlan plan_quantization(const onnx::ModelProto& model, const QuantizeOptions& options);

// Runs the float model on each input set (one tensor per model input, in order) and records
// the min / max of every tensor in `tensors`. `base_dir`: where external data lives.
std::map<std::string, Range> calibrate(const onnx::ModelProto& model, const std::string& base_dir,
                                       const std::vector<std::string>& tensors,
                                       const std::vector<std::vector<Tensor>>& input_sets,
                                       const QuantizeOptions& options);

// Rewrites `model` into QDQ form (opset raised to 13 when lower: per-axis DequantizeLinear).
void apply_quantization(onnx::ModelProto& model, const std::string& base_dir,
                        const QuantizePlan& plan, const std::map<std::string, Range>& ranges,
                        const QuantizeOptions& options);

// The quantization step of each graph output that is a DequantizeLinear of one scale (the unit
// of docs/quantization.md's tolerance rule).
std::vector<std::pair<std::string, float>> output_steps(const onnx::ModelProto& model,
                                                        const std::string& base_dir);

// uint8 asymmetric parameters of a range (widened to include 0): scale, zero point.
std::pair<float, uint8_t> activation_params(const Range& r);

}  // namespace kiln::onnx_io
