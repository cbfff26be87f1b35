// Fused outputs at the graph level: element-wise work right after a producer (a packed matrix
// product, a convolution) that the producer's kernel does as it stores its output, through the one
// epilogue mechanism of kernels/epilogue.h. Ops own the knowledge on both sides:
//   - an element-wise op says which OutputStep it is (OutputStepSource::output_step),
//   - a producer says whether it can take one more step (FusableProducer::with_output_step),
// and one pass (passes/fuse_output) joins them. OutputSteps keeps a producer's steps and lowers
// them, each run, into the kernels::Epilogue its kernel applies: the first steps into the register
// stage where the producer's kernels have them (residual add, LeakyRelu, clamp, in that order, or
// the residual add after them), every later one as a post step.
#pragma once

#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "core/op.h"
#include "kernels/epilogue.h"

namespace kiln::ops {

struct OutputStep {
  enum class Kind : uint8_t { Clamp, Leaky, Unary, Binary };
  Kind kind = Kind::Clamp;
  float min = -std::numeric_limits<float>::infinity();  // Clamp
  float max = std::numeric_limits<float>::infinity();
  float alpha = 0, beta = 0;  // Leaky: alpha; Unary HardSigmoid: alpha, beta
  kernels::UnaryFn unary = kernels::UnaryFn::Sigmoid;
  kernels::BinaryFn binary = kernels::BinaryFn::Add;
  bool operand_first = false;  // Binary: operand op value (else value op operand)
  // Binary: where the operand's value for each output is, as the producer that took the step
  // reads it, and the producer's node input that holds it.
  kernels::PostStep::Operand operand = kernels::PostStep::Operand::Full;
  size_t input = 0;
  // "Relu", "Clip(0,6)", "Add(residual)", "Mul(row)", "HardSwish".
  std::string describe() const;
};

// Implemented by element-wise ops that can run as a step of their producer's output.
class OutputStepSource {
 public:
  virtual ~OutputStepSource() = default;
  // The step this op is when its input `value` (an index into `inputs`) is a producer's f32
  // output and the op's output has that value's type and shape; nullopt when it cannot be one
  // (another type, an operand not known to be constant where one is needed...). A binary step's
  // operand is the op's other input; its `operand` kind and `input` are the producer's to set.
  virtual std::optional<OutputStep> output_step(const FactRefs& inputs, size_t value) const = 0;
};

// Implemented by producers whose kernels store their output through a kernels::Epilogue.
class FusableProducer {
 public:
  virtual ~FusableProducer() = default;
  // A copy of this op that also applies `step` to its output; a binary step's operand (of fact
  // `operand`) becomes node input inputs.size(). `inputs`: the node's input facts now. nullptr
  // when it cannot (an operand broadcast it does not read, too many steps).
  virtual OpPtr with_output_step(const OutputStep& step, const FactRefs& inputs,
                                 const Fact* operand) const = 0;
};

// What a producer's kernels do in the register stage (kernels/epilogue.h stage 1): steps that
// need more go to post steps.
struct RegisterStage {
  bool residual = true;  // a full-tensor Add
  bool leaky = true;
  bool clamp = true;
  bool residual_last = true;  // a full-tensor Add after leaky / clamp (Relu then a skip Add)
};

class OutputSteps {
 public:
  bool empty() const { return steps_.empty(); }
  const std::vector<OutputStep>& steps() const { return steps_; }
  // Appends `step`; false (nothing changed) when the epilogue has no room for it.
  bool add(OutputStep step, RegisterStage stage);
  // The node inputs the steps' operands take (the producer's own inputs come before them).
  size_t operand_inputs() const;
  // Fills `ep` with the steps, for one kernel call whose output starts `full_offset` elements
  // into the node's output (the image of a batched conv): a Full operand is read from there.
  // Rows are the indices of output axis `rows_axis`, columns the axes after it. Operands come
  // from `inputs` (the node's); they are checked against the output's `out_shape`.
  void lower(const TensorRefs& inputs, const Shape& out_shape, size_t rows_axis,
             int64_t full_offset, kernels::Epilogue& ep) const;
  // "Relu,Add(residual)" for attributes; empty when there are none.
  std::string describe() const;

 private:
  // Where each step goes: the register stage (residual, leaky, clamp, or a residual after them)
  // or a post step.
  enum class Slot : uint8_t { Residual, Leaky, Clamp, ResidualLast, Post };
  std::vector<OutputStep> steps_;
  std::vector<Slot> slots_;
};

// The operand kind of a binary step on a producer's output of shape `out`, for an operand of
// shape `operand` (numpy broadcasting): Scalar, Row (one value per index of output axis
// `rows_axis`), Col (one per column: the operand spans the axes after rows_axis), Full (the
// output's shape); nullopt when it broadcasts otherwise. The producer's kernel calls each cover
// one index of the first `calls_axes` axes (a conv's images) and flatten the axes between those
// and rows_axis into rows (so a Row operand needs them to be 1).
std::optional<kernels::PostStep::Operand> classify_operand(const std::vector<Dim>& out,
                                                           const std::vector<Dim>& operand,
                                                           size_t calls_axes, size_t rows_axis);

// The facts without the steps' operand inputs (a producer's own inputs come first).
FactRefs without_operands(const FactRefs& inputs, const OutputSteps& steps);

}  // namespace kiln::ops
