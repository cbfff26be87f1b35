#include "ops/control/loop.h"

#include <fmt/format.h>

#include "base/error.h"
#include "core/graph_cost.h"
#include "core/run_limits.h"
#include "core/sequence.h"

namespace kiln::ops {

namespace {

// Whether any node of the graph (or nested graph) is non-deterministic.
bool graph_is_deterministic(const Graph& g) {
  for (const auto& n : g.nodes())
    if (n.op && !n.op->is_deterministic()) return false;
  return true;
}

// Whether the body reads its iteration number (input 0) anywhere.
bool body_reads_iteration(const Graph& body) {
  const Outlet it = body.inputs()[0];
  for (const auto& n : body.nodes())
    for (const Outlet& in : n.inputs)
      if (in == it) return true;
  for (const Outlet& o : body.outputs())
    if (o == it) return true;
  return false;
}

}  // namespace

Loop::Loop(GraphPtr body, size_t num_carried)
    : body_(body), num_carried_(num_carried), num_scans_(0), runner_(body) {
  KILN_ENSURE(body_->inputs().size() >= 2 + num_carried_,
              "Loop: body has {} inputs, needs at least {} (iteration, cond, {} carried)",
              body_->inputs().size(), 2 + num_carried_, num_carried_);
  KILN_ENSURE(body_->outputs().size() >= 1 + num_carried_,
              "Loop: body has {} outputs, needs at least {} (cond, {} carried)",
              body_->outputs().size(), 1 + num_carried_, num_carried_);
  num_scans_ = body_->outputs().size() - 1 - num_carried_;
}

bool Loop::carried_is_optional(size_t i) const {
  return body_->fact(body_->inputs()[2 + i]).dt == DatumType::Optional;
}

Fact Loop::as_carried(size_t i, const Fact& produced) const {
  if (carried_is_optional(i) && produced.dt != DatumType::Optional) return optional_fact(produced);
  return produced;
}

Tensor Loop::as_carried(size_t i, const Tensor& produced) const {
  if (carried_is_optional(i) && !is_optional(produced))
    return make_optional(produced.dtype(), produced);
  return produced;
}

Attributes Loop::attributes() const {
  return {{"carried", std::to_string(num_carried_)}, {"scans", std::to_string(num_scans_)}};
}

bool Loop::is_deterministic() const {
  return graph_is_deterministic(*body_);
}

std::vector<Fact> Loop::body_input_facts(const FactRefs& inputs) const {
  const size_t num_captures = runner_.num_inputs() - 2 - num_carried_;
  expect_inputs(name(), inputs.size(), 2 + num_carried_ + num_captures,
                static_cast<long>(2 + num_carried_ + num_captures));
  if (inputs[0])
    KILN_ENSURE(inputs[0]->volume() == Dim(1) || !inputs[0]->volume().is_int(),
                "Loop: M must be a scalar");
  std::vector<Fact> facts{Fact(DatumType::I64, std::vector<Dim>{}),
                          Fact(DatumType::Bool, std::vector<Dim>{})};
  for (size_t i = 0; i < num_carried_; i++)
    facts.push_back(without_value(required(inputs, 2 + i, name())));
  for (size_t i = 0; i < num_captures; i++)
    facts.push_back(required(inputs, 2 + num_carried_ + i, name()));
  return facts;
}

Cost Loop::cost(const FactRefs& inputs) const {
  Cost body = graph_cost(*runner_.analysed_graph(body_input_facts(inputs)));
  std::optional<std::vector<int64_t>> m;
  if (inputs[0]) m = inputs[0]->known_i64_values();
  Dim trips = m && !m->empty() ? Dim(std::max<int64_t>(0, m->at(0))) : Dim::symbol("trips");
  return scale_cost(body, trips);
}

std::vector<Fact> Loop::output_facts(const FactRefs& inputs) const {
  std::vector<Fact> facts = body_input_facts(inputs);
  std::vector<Fact> body_out;
  // Carried values may change shape from one iteration to the next: generalize until stable.
  for (int attempt = 0;; attempt++) {
    body_out = runner_.analyse(facts);
    bool stable = true;
    for (size_t i = 0; i < num_carried_; i++) {
      Fact merged =
          merge_facts(facts[2 + i], as_carried(i, body_out[1 + i]),
                      fmt::format("Loop: carried value {} changes between iterations", i));
      if (!merged.same_type_and_shape(facts[2 + i])) {
        facts[2 + i] = merged;
        stable = false;
      }
    }
    if (stable) break;
    KILN_ENSURE(attempt < 3, "Loop: carried value shapes do not settle");
  }
  std::vector<Fact> out;
  for (size_t i = 0; i < num_carried_; i++) {
    // A body that turns an optional carried value into a plain one: the final value is plain.
    const Fact& produced = body_out[1 + i];
    if (facts[2 + i].dt == DatumType::Optional && produced.dt != DatumType::Optional)
      out.push_back(without_value(produced));
    else
      out.push_back(facts[2 + i]);
  }
  Dim count = Dim::fresh();
  if (inputs[0]) {
    auto m = inputs[0]->known_i64_values();
    const Fact& body_cond = body_out[0];
    bool always_true = !inputs[1] || (inputs[1]->value && inputs[1]->value->value_as_double(0));
    always_true = always_true && body_cond.value && body_cond.value->value_as_double(0) != 0;
    if (m && always_true) count = Dim(std::max<int64_t>(0, m->at(0)));
  }
  for (size_t k = 0; k < num_scans_; k++) {
    Fact f = without_value(body_out[1 + num_carried_ + k]);
    f.shape.insert(f.shape.begin(), count);
    out.push_back(std::move(f));
  }
  return out;
}

std::unique_ptr<OpState> Loop::make_state(const FactRefs&) const {
  return std::make_unique<BodyStates>(1);
}

void Loop::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  SubgraphRunner::Runs& runs = ctx.op_state<BodyStates>(*this).at(0);
  const BodyTiming timing = ctx.body_timing(0);
  const size_t num_captures = runner_.num_inputs() - 2 - num_carried_;
  KILN_ENSURE(inputs.size() == 2 + num_carried_ + num_captures, "Loop: expects {} inputs, got {}",
              2 + num_carried_ + num_captures, inputs.size());
  int64_t max_trips = -1;
  if (inputs[0]) {
    KILN_ENSURE(inputs[0]->numel() == 1, "Loop: M must have one element");
    max_trips = inputs[0]->value_as_i64(0);
  }
  bool cond = true;
  if (inputs[1]) {
    KILN_ENSURE(inputs[1]->numel() == 1, "Loop: cond must have one element");
    cond = inputs[1]->value_as_double(0) != 0;
  }
  std::vector<Tensor> args(runner_.num_inputs());
  std::vector<Tensor> carried(num_carried_);
  for (size_t i = 0; i < num_carried_; i++) {
    carried[i] = required(inputs, 2 + i, name());
    args[2 + i] = as_carried(i, carried[i]);
  }
  for (size_t i = 0; i < num_captures; i++)
    args[2 + num_carried_ + i] = required(inputs, 2 + num_carried_ + i, name());
  std::vector<std::vector<Tensor>> scans(num_scans_);
  // A deterministic body that ignores the iteration number and leaves every carried value as it
  // was will do the same at every later iteration: a fixed point. Without scan outputs a
  // counted loop can stop there with the same result, and a loop whose condition stays true
  // would never end (a TF while loop whose counter adds 0): that is an error, not a hang.
  const bool detect_fixed_point = !body_reads_iteration(*body_) && graph_is_deterministic(*body_);
  int64_t i = 0;
  for (; (max_trips < 0 || i < max_trips) && cond; i++) {
    check_deadline("Loop");  // --timeout (core/run_limits.h)
    args[0] = Tensor::scalar<int64_t>(i);
    args[1] = Tensor::scalar<bool>(cond);
    auto outs = runner_.run(runs, args, timing);
    KILN_ENSURE(outs[0].numel() == 1, "Loop: body condition must have one element");
    cond = outs[0].value_as_double(0) != 0;
    bool unchanged = detect_fixed_point && cond;
    for (size_t c = 0; c < num_carried_; c++) {
      unchanged = unchanged && outs[1 + c].equals(carried[c]);
      carried[c] = outs[1 + c];
      args[2 + c] = as_carried(c, outs[1 + c]);
    }
    for (size_t k = 0; k < num_scans_; k++) scans[k].push_back(outs[1 + num_carried_ + k].clone());
    if (unchanged && max_trips < 0)
      fail(
          "Loop: iteration {} left every carried value unchanged and the condition true: the "
          "loop would never end",
          i);
    if (unchanged && num_scans_ == 0) break;  // every remaining iteration gives this state
  }
  for (size_t c = 0; c < num_carried_ && c < ctx.num_outputs(); c++) ctx.set_output(c, carried[c]);
  std::vector<Fact> empty_facts;
  for (size_t k = 0; k < num_scans_ && num_carried_ + k < ctx.num_outputs(); k++) {
    Shape shape;
    DatumType dt = DatumType::F32;
    if (!scans[k].empty()) {
      shape = scans[k][0].shape();
      dt = scans[k][0].dtype();
    } else {
      // No iteration ran: the per-iteration shape comes from analysing the body.
      if (empty_facts.empty()) {
        std::vector<Fact> facts;
        for (size_t a = 0; a < args.size(); a++)
          facts.push_back(a < 2 ? Fact(a == 0 ? DatumType::I64 : DatumType::Bool, Shape{})
                                : fact_of_value(args[a]));
        empty_facts = runner_.analyse(facts);
      }
      const Fact& f = empty_facts[1 + num_carried_ + k];
      dt = f.dt;
      for (const auto& d : f.shape) shape.push_back(d.as_int().value_or(0));
    }
    shape.insert(shape.begin(), static_cast<int64_t>(scans[k].size()));
    Tensor& out = ctx.output(num_carried_ + k, dt, shape);
    for (size_t j = 0; j < scans[k].size(); j++)
      put_along(out, 0, static_cast<int64_t>(j), scans[k][j]);
  }
}

}  // namespace kiln::ops
