// Op: the interface every operator implements. An op knows its attributes, computes its output
// facts from its input facts (shape inference, symbolic), evaluates on tensors, and reports
// its cost. Absent optional inputs are passed as nullptr.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/dim.h"
#include "core/fact.h"
#include "core/tensor.h"

namespace kiln {

class Graph;
class Op;
using OpPtr = std::shared_ptr<const Op>;

using FactRefs = std::vector<const Fact*>;
using TensorRefs = std::vector<const Tensor*>;
using Attributes = std::vector<std::pair<std::string, std::string>>;

// Arithmetic an op performs for one evaluation. Dims may be symbolic (FMA = 1536*S).
struct Cost {
  Dim fma = 0;  // multiply-adds
  DatumType fma_type = DatumType::F32;
  Dim other = 0;         // other costly arithmetic: exp, div, sqrt, compare...
  Dim params_bytes = 0;  // bytes of constant weights the op reads
  bool known = true;     // false: the op has no cost model (reported, never silent)
};

// Where an op writes its outputs. Buffers are owned by the caller and reused across runs, so
// an op that asks for the same type and shape again gets the same memory, without allocation.
class EvalContext {
 public:
  explicit EvalContext(std::vector<Tensor>& outputs) : outputs_(outputs) {}
  // A contiguous output tensor of that type and shape; contents unspecified.
  Tensor& output(size_t slot, DatumType dt, const Shape& shape);
  // Hands over an existing tensor as output (a view of an input, a constant...).
  void set_output(size_t slot, Tensor tensor);
  size_t num_outputs() const { return outputs_.size(); }

 private:
  std::vector<Tensor>& outputs_;
};

class Op {
 public:
  virtual ~Op() = default;
  // The op's type name, as printed ("Conv", "Add", "Reshape").
  virtual std::string name() const = 0;
  // Attributes worth printing, as name/value text.
  virtual Attributes attributes() const { return {}; }
  // Output facts from input facts; throws kiln::Error when inputs are invalid.
  virtual std::vector<Fact> output_facts(const FactRefs& inputs) const = 0;
  // Computes the outputs into ctx from the inputs.
  virtual void eval(EvalContext& ctx, const TensorRefs& inputs) const = 0;
  // Arithmetic cost for inputs of these facts. Default: unknown.
  virtual Cost cost(const FactRefs& inputs) const;
  // False for ops whose output is not a function of their inputs (random generators): they are
  // never constant-folded.
  virtual bool is_deterministic() const { return true; }
  // Nested graphs (If branches, Loop/Scan bodies), for printing and analysis.
  virtual std::vector<std::shared_ptr<const Graph>> subgraphs() const { return {}; }
  // Optimize-stage hook: a replacement op specialised for these (fully analysed) input facts
  // and this CPU -- weights packed once, kernel chosen once -- or nullptr to keep this op.
  // The replacement must compute the same outputs with the same output facts.
  virtual OpPtr codegen(const FactRefs& inputs) const { return nullptr; }

  // Typing by cases (Graph::analyse tries each case on the rest of the graph). When these
  // input facts leave the outputs undecided between alternatives -- an If whose condition is
  // known only at run time and whose branches' facts disagree -- the output facts of each
  // alternative; empty when there is nothing to choose.
  virtual std::vector<std::vector<Fact>> output_fact_cases(const FactRefs& inputs) const {
    return {};
  }
  // This op committed to case `index` of output_fact_cases: its output facts are that case's,
  // and its eval refuses (kiln::Error) inputs that fall in another case. Null: no cases.
  virtual OpPtr assume_case(size_t index) const { return nullptr; }
  // The case's name for messages ("then branch").
  virtual std::string case_name(size_t index) const { return "case " + std::to_string(index); }
};

// Helpers for implementing ops.
// Checks the number of inputs is within [min, max] (max < 0: unbounded).
void expect_inputs(const std::string& op, size_t count, size_t min, long max);
// A required (non-null) input.
const Fact& required(const FactRefs& inputs, size_t index, const std::string& op);
const Tensor& required(const TensorRefs& inputs, size_t index, const std::string& op);
// Integer lists as printed in attributes: "[1,2,3]".
std::string ints_to_string(const std::vector<int64_t>& values);
// Normalizes a possibly negative axis for a tensor of this rank; throws when out of range.
size_t normalize_axis(int64_t axis, size_t rank, const std::string& op);

}  // namespace kiln
