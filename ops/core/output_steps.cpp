#include "ops/core/output_steps.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "base/error.h"

namespace kiln::ops {

using Operand = kernels::PostStep::Operand;

namespace {

const char* operand_name(Operand o) {
  switch (o) {
    case Operand::Scalar:
      return "scalar";
    case Operand::Row:
      return "row";
    case Operand::Col:
      return "col";
    case Operand::Full:
      return "full";
  }
  return "?";
}

int level(int slot) {
  return slot;  // Residual 0 < Leaky 1 < Clamp 2 < ResidualLast 3: the register stage's order
}

}  // namespace

std::string OutputStep::describe() const {
  switch (kind) {
    case Kind::Clamp:
      if (min == 0 && std::isinf(max)) return "Relu";
      return fmt::format("Clip({},{})", min, max);
    case Kind::Leaky:
      return fmt::format("LeakyRelu({})", alpha);
    case Kind::Unary:
      if (unary == kernels::UnaryFn::HardSigmoid)
        return fmt::format("HardSigmoid({},{})", alpha, beta);
      return kernels::unary_fn_name(unary);
    case Kind::Binary:
      return fmt::format("{}({}{})", kernels::binary_fn_name(binary), operand_name(operand),
                         operand_first ? ",first" : "");
  }
  return "?";
}

bool OutputSteps::add(OutputStep step, RegisterStage stage) {
  // The register slot the step could take, if any.
  int candidate = -1;
  const bool residual_add = step.kind == OutputStep::Kind::Binary &&
                            step.binary == kernels::BinaryFn::Add && step.operand == Operand::Full;
  // The kernels have one residual operand: first (before leaky / clamp) while none of those is
  // taken, else last.
  const bool after_activation =
      std::find(slots_.begin(), slots_.end(), Slot::Leaky) != slots_.end() ||
      std::find(slots_.begin(), slots_.end(), Slot::Clamp) != slots_.end();
  const bool residual_taken =
      std::find(slots_.begin(), slots_.end(), Slot::Residual) != slots_.end();
  if (residual_add && stage.residual && !after_activation) {
    candidate = static_cast<int>(Slot::Residual);
  } else if (residual_add && stage.residual_last && !residual_taken) {
    candidate = static_cast<int>(Slot::ResidualLast);
  } else if (step.kind == OutputStep::Kind::Leaky && stage.leaky) {
    candidate = static_cast<int>(Slot::Leaky);
  } else if (step.kind == OutputStep::Kind::Clamp && stage.clamp) {
    candidate = static_cast<int>(Slot::Clamp);
  }
  int last = -1, posts = 0;
  for (Slot s : slots_) {
    if (s == Slot::Post)
      posts++;
    else
      last = std::max(last, level(static_cast<int>(s)));
  }
  Slot slot = Slot::Post;
  // In the register stage only while no post step comes before it and in the stage's order.
  if (candidate >= 0 && posts == 0 && level(candidate) > last) slot = static_cast<Slot>(candidate);
  if (slot == Slot::Post && posts >= kernels::Epilogue::kMaxPostSteps) return false;
  steps_.push_back(step);
  slots_.push_back(slot);
  return true;
}

size_t OutputSteps::operand_inputs() const {
  size_t n = 0;
  for (const auto& s : steps_) n += s.kind == OutputStep::Kind::Binary ? 1 : 0;
  return n;
}

void OutputSteps::lower(const TensorRefs& inputs, const Shape& out_shape, size_t rows_axis,
                        int64_t full_offset, kernels::Epilogue& ep) const {
  int64_t cols = 1;
  for (size_t d = rows_axis + 1; d < out_shape.size(); d++) cols *= out_shape[d];
  const int64_t rows = rows_axis < out_shape.size() ? out_shape[rows_axis] : 1;
  for (size_t k = 0; k < steps_.size(); k++) {
    const OutputStep& s = steps_[k];
    const float* operand = nullptr;
    if (s.kind == OutputStep::Kind::Binary) {
      KILN_ENSURE(s.input < inputs.size() && inputs[s.input],
                  "fused {}: operand input {} is missing", s.describe(), s.input);
      const Tensor& t = *inputs[s.input];
      const int64_t expected = s.operand == Operand::Full  ? shape_numel(out_shape)
                               : s.operand == Operand::Row ? rows
                               : s.operand == Operand::Col ? cols
                                                           : 1;
      KILN_ENSURE(t.dtype() == DatumType::F32 && t.numel() == expected &&
                      (s.operand != Operand::Full || t.shape() == out_shape),
                  "fused {}: operand {} [{}] does not fit the output [{}]", s.describe(),
                  name_of(t.dtype()), shape_to_string(t.shape()), shape_to_string(out_shape));
      operand = t.data<float>() + (s.operand == Operand::Full ? full_offset : 0);
    }
    switch (slots_[k]) {
      case Slot::Residual:
      case Slot::ResidualLast:
        ep.residual = operand;
        ep.residual_ld = cols;
        ep.residual_last = slots_[k] == Slot::ResidualLast;
        continue;
      case Slot::Leaky:
        ep.leaky = true;
        ep.leaky_alpha = s.alpha;
        continue;
      case Slot::Clamp:
        ep.min = std::max(ep.min, s.min);
        ep.max = std::min(ep.max, s.max);
        continue;
      case Slot::Post:
        break;
    }
    KILN_ENSURE(ep.post_count < kernels::Epilogue::kMaxPostSteps, "fused output: too many steps");
    kernels::PostStep& p = ep.post[ep.post_count++];
    p = kernels::PostStep{};
    switch (s.kind) {
      case OutputStep::Kind::Clamp:
        p.unary = kernels::UnaryFn::Clamp;
        p.alpha = s.min;
        p.beta = s.max;
        break;
      case OutputStep::Kind::Leaky:
        p.unary = kernels::UnaryFn::LeakyRelu;
        p.alpha = s.alpha;
        break;
      case OutputStep::Kind::Unary:
        p.unary = s.unary;
        p.alpha = s.alpha;
        p.beta = s.beta;
        break;
      case OutputStep::Kind::Binary:
        p.kind = kernels::PostStep::Kind::Binary;
        p.binary = s.binary;
        p.operand_kind = s.operand;
        p.operand = operand;
        p.ld = cols;
        p.operand_first = s.operand_first;
        break;
    }
  }
}

std::string OutputSteps::describe() const {
  std::string out;
  for (const auto& s : steps_) out += (out.empty() ? "" : ",") + s.describe();
  return out;
}

std::optional<Operand> classify_operand(const std::vector<Dim>& out,
                                        const std::vector<Dim>& operand, size_t calls_axes,
                                        size_t rows_axis) {
  if (operand.size() > out.size() || rows_axis >= out.size()) return std::nullopt;
  // The operand's dims aligned to the output's (numpy broadcasting: missing leading dims are 1).
  std::vector<Dim> op(out.size() - operand.size(), Dim(1));
  op.insert(op.end(), operand.begin(), operand.end());
  bool scalar = true, full = true, row = true, col = true;
  for (size_t d = 0; d < out.size(); d++) {
    const bool one = op[d] == Dim(1), same = op[d] == out[d];
    scalar = scalar && one;
    full = full && same;
    // Row: one value per index of rows_axis, the same for every call; the axes between the
    // calls' and the rows' must then be 1 in the output (rows are not flattened across them).
    if (d == rows_axis) {
      row = row && same;
    } else {
      row = row && one;
      if (d >= calls_axes && d < rows_axis) row = row && out[d] == Dim(1);
    }
    col = col && (d <= rows_axis ? one : same);
  }
  if (scalar) return Operand::Scalar;
  if (full) return Operand::Full;
  if (row) return Operand::Row;
  if (col) return Operand::Col;
  return std::nullopt;
}

FactRefs without_operands(const FactRefs& inputs, const OutputSteps& steps) {
  const size_t n = steps.operand_inputs();
  KILN_ENSURE(inputs.size() >= n, "fused output: {} inputs, its steps take {}", inputs.size(), n);
  return FactRefs(inputs.begin(), inputs.end() - static_cast<long>(n));
}

}  // namespace kiln::ops
