// Op: the interface every operator implements. An op knows its attributes, computes its output
// facts from its input facts (shape inference, symbolic), evaluates on tensors, and reports
// its cost. Absent optional inputs are passed as nullptr.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <tuple>
#include <type_traits>
#include <typeinfo>
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

// Temporary memory for kernels (packing buffers, per-row scratch), reused from call to call so
// an op needs no std::vector per evaluation. Blocks are 64-byte aligned; an allocation lives
// until reset(). Not thread-safe: take scratch on the evaluating thread, before parallel_for.
class ScratchArena {
 public:
  ScratchArena() = default;
  ~ScratchArena();
  ScratchArena(const ScratchArena&) = delete;
  ScratchArena& operator=(const ScratchArena&) = delete;
  // `bytes` of aligned memory, contents unspecified. Allocates only when the blocks it has are
  // too small (the first evaluations); reset() then merges them into one block of the
  // high-water size, so steady-state calls allocate nothing.
  void* allocate(size_t bytes);
  // Forgets every allocation (called after each node).
  void reset();
  // Bytes of the blocks held.
  size_t capacity() const;
  // Reusable shape buffer k (k < kShapes), emptied: ops build output shapes in it without
  // allocating, as its capacity survives from call to call.
  static constexpr size_t kShapes = 8;
  Shape& shape(size_t k);
  // Reusable input-pointer list k (k < kShapes), emptied: for ops that evaluate other ops.
  TensorRefs& refs(size_t k);

 private:
  struct Block {
    void* data;
    size_t bytes;
  };
  std::vector<Block> blocks_;  // the last one is the one being filled
  size_t used_ = 0;            // bytes used in the last block
  size_t high_water_ = 0;      // bytes used in all blocks since the last reset
  std::vector<Shape> shapes_;
  std::vector<TensorRefs> refs_;
};

// Run-time data an op keeps from one evaluation to the next within one session: recurrent state
// carried across calls, delay lines, kernel plans cached per concrete shape, adaptive choices. An
// optimized model is immutable and shared by sessions: anything that changes while it runs lives
// here. Op::make_state creates one per node of a State; eval reaches it through
// EvalContext::op_state.
class OpState {
 public:
  virtual ~OpState() = default;
};

// Where State wants one output slot written: a region of its arena (see core/memory_plan.h).
struct OutputPlacement {
  const Tensor* arena = nullptr;  // nullptr: not planned, the slot keeps its own buffer
  size_t offset = 0;              // bytes
  size_t capacity = 0;            // bytes
};

// How an op produced an output slot in its last evaluation (State plans memory with it).
enum class OutputKind : uint8_t { None, Written, HandedOver };

// Profiling inside nested graphs (If branches, Loop / Scan bodies): while a State runs with a
// BodyTimer, the control-flow ops run their bodies timed too and report each body node's time,
// with the body's path: "<node id>.<body index>" of the node that ran it (nested bodies joined by
// "/", e.g. "12.0/3.1").
class BodyTimer {
 public:
  virtual ~BodyTimer() = default;
  // Node `node` of `body` (the graph the body's State ran) took `elapsed`.
  virtual void node(const std::string& path, const Graph& body, int node,
                    std::chrono::nanoseconds elapsed) = 0;
};

// What a control-flow op hands to SubgraphRunner::run: where body nodes report (nullptr: not
// profiling) and the body's path.
struct BodyTiming {
  BodyTimer* timer = nullptr;
  std::string path;
};

// Where an op writes its outputs. Buffers are owned by the caller and reused across runs, so
// an op that asks for the same type and shape again gets the same memory, without allocation.
class EvalContext {
 public:
  explicit EvalContext(std::vector<Tensor>& outputs) : outputs_(outputs) {}
  // As State uses it: per slot, where to place the output and a record of how it was made;
  // `scratch` serves scratch() (both arrays have one entry per output slot, or are nullptr).
  // `state`: the node's OpState (nullptr: made on demand by op_state, for one evaluation).
  EvalContext(std::vector<Tensor>& outputs, const OutputPlacement* placements, OutputKind* kinds,
              ScratchArena* scratch, OpState* state = nullptr)
      : outputs_(outputs),
        placements_(placements),
        kinds_(kinds),
        scratch_(scratch),
        state_(state) {}
  ~EvalContext();
  EvalContext(const EvalContext&) = delete;
  EvalContext& operator=(const EvalContext&) = delete;

  // A contiguous output tensor of that type and shape; contents unspecified.
  Tensor& output(size_t slot, DatumType dt, const Shape& shape);
  // Hands over an existing tensor as output (a view of an input, a constant...).
  void set_output(size_t slot, Tensor tensor);
  // Hands over a view of `source` (an input, usually) with another shape of the same element
  // count, reusing the slot's shape buffer: a Reshape that does not allocate.
  void set_output_view(size_t slot, const Tensor& source, const Shape& shape);
  size_t num_outputs() const { return outputs_.size(); }
  // The slot's tensor as it stands (for ops that let another op write it, then work on it).
  Tensor& current_output(size_t slot) {
    check_slot(slot);
    return outputs_[slot];
  }
  // Where State placed the slot (nullptr when not planned or outside a State).
  const OutputPlacement* placement(size_t slot) const {
    return placements_ && placements_[slot].arena ? &placements_[slot] : nullptr;
  }
  // `n` elements of T of temporary memory, valid until this evaluation ends; contents
  // unspecified. Plain-data types only.
  // Reusable shape buffer k (k < 8), emptied, valid until this evaluation ends: an output
  // shape built in it costs no allocation in steady state.
  Shape& temp_shape(size_t k) { return scratch_arena().shape(k); }
  // Reusable input-pointer list k (k < 8), emptied, valid until this evaluation ends.
  TensorRefs& temp_refs(size_t k) { return scratch_arena().refs(k); }
  template <typename T>
  T* scratch(size_t n) {
    static_assert(std::is_trivially_destructible_v<T>, "scratch holds plain data only");
    return static_cast<T*>(scratch_arena().allocate(n * sizeof(T)));
  }
  // The scratch this context serves (to give an inner context, for ops that evaluate others).
  ScratchArena& scratch_arena();
  // The evaluating node's state, of the type `op.make_state` makes: the session's (kept from
  // call to call), or outside a State (constant folding, tests) one made for this evaluation.
  template <typename T>
  T& op_state(const Op& op) {
    return checked_state<T>(any_op_state(op));
  }
  // Evaluates `op`, an op this one wraps, in this context with `inner` as its state (nullptr:
  // made on demand): how wrappers keep their inner ops' states apart from their own.
  void eval_inner(const Op& op, const TensorRefs& inputs, OpState* inner);
  // While profiling inside bodies: the timing of this node's body `body` (no timer otherwise).
  BodyTiming body_timing(size_t body) const;
  // As State sets it: bodies report to `timer`; this node is `node`, its path prefix `prefix`
  // ("" at the top level, "12.0/" inside body 0 of node 12).
  void set_body_timer(BodyTimer* timer, const std::string* prefix, int node) {
    body_timer_ = timer;
    body_prefix_ = prefix;
    body_node_ = node;
  }

 private:
  OpState& any_op_state(const Op& op);
  template <typename T>
  static T& checked_state(OpState& s) {
    T* t = dynamic_cast<T*>(&s);
    if (!t) bad_state_type();
    return *t;
  }
  [[noreturn]] static void bad_state_type();

  void check_slot(size_t slot) const;
  std::vector<Tensor>& outputs_;
  const OutputPlacement* placements_ = nullptr;
  OutputKind* kinds_ = nullptr;
  ScratchArena* scratch_ = nullptr;
  std::unique_ptr<ScratchArena> own_scratch_;  // when no arena was given
  OpState* state_ = nullptr;
  std::unique_ptr<OpState> own_state_;  // when no state was given
  BodyTimer* body_timer_ = nullptr;
  const std::string* body_prefix_ = nullptr;
  int body_node_ = -1;
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
  // The run-time state this op keeps between evaluations in one session (see OpState), for a
  // node whose inputs have these facts (empty when unknown); nullptr: the op keeps none.
  virtual std::unique_ptr<OpState> make_state(const FactRefs& inputs) const { return nullptr; }
  // Whether this op computes what `other` computes from the same inputs (common subexpressions
  // are merged by it). Default: only the same object; ops whose attributes describe them fully
  // compare those.
  virtual bool same_as(const Op& other) const { return this == &other; }
  // Optimize-stage hook: a replacement op specialised for these (fully analysed) input facts
  // and this CPU -- weights packed once, kernel chosen once -- or nullptr to keep this op.
  // The replacement must compute the same outputs with the same output facts.
  virtual OpPtr codegen(const FactRefs& inputs) const { return nullptr; }
  // True when eval is the plain reference implementation: an op that has a kernel form
  // (codegen) for some input facts -- a node still holding it at the optimize stage is one
  // codegen declined (non-f32 data, weights computed at run time...) -- or a compute op with no
  // kernel form at all (Einsum, LRN). Profiles flag such nodes.
  virtual bool is_reference_impl() const { return false; }

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

// Op::same_as for ops whose fields describe them fully: `other` is of the same type and
// `fields(op)` (a std::tie of the fields) compares equal.
template <typename T, typename Fields>
bool same_fields(const T& self, const Op& other, Fields fields) {
  const T* o = dynamic_cast<const T*>(&other);
  return o && typeid(*o) == typeid(self) && fields(self) == fields(*o);
}

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
