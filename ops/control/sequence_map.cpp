#include "ops/control/sequence_map.h"

#include "base/error.h"
#include "core/graph_cost.h"
#include "core/sequence.h"

namespace kiln::ops {

SequenceMap::SequenceMap(GraphPtr body, size_t num_inputs)
    : body_(body), num_inputs_(num_inputs), runner_(body) {
  KILN_ENSURE(num_inputs_ >= 1, "SequenceMap needs an input sequence");
  KILN_ENSURE(runner_.num_inputs() >= num_inputs_, "SequenceMap: body has {} inputs, the node {}",
              runner_.num_inputs(), num_inputs_);
  KILN_ENSURE(runner_.num_outputs() >= 1, "SequenceMap: body has no outputs");
}

std::vector<Fact> SequenceMap::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), runner_.num_inputs(),
                static_cast<long>(runner_.num_inputs()));
  KILN_ENSURE(required(inputs, 0, name()).dt == DatumType::Sequence,
              "SequenceMap: input 0 must be a sequence, got {}", inputs[0]->to_string());
  std::vector<Fact> out;
  for (auto& f : runner_.analyse(body_facts(inputs))) out.push_back(sequence_fact(std::move(f)));
  return out;
}

std::vector<Fact> SequenceMap::body_facts(const FactRefs& inputs) const {
  std::vector<Fact> facts;
  for (size_t i = 0; i < inputs.size(); i++) {
    const Fact& f = required(inputs, i, name());
    if (i < num_inputs_ && f.dt == DatumType::Sequence)
      facts.push_back(element_fact(f, DatumType::Sequence, "SequenceMap input"));
    else
      facts.push_back(f);
  }
  return facts;
}

Cost SequenceMap::cost(const FactRefs& inputs) const {
  Cost body = graph_cost(*runner_.analysed_graph(body_facts(inputs)));
  Dim items = Dim::symbol("items");
  const Fact& seq = required(inputs, 0, name());
  if (seq.value) items = static_cast<int64_t>(sequence_of(*seq.value, name()).items.size());
  return scale_cost(body, items);
}

std::unique_ptr<OpState> SequenceMap::make_state(const FactRefs&) const {
  return std::make_unique<BodyStates>(1);
}

void SequenceMap::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  SubgraphRunner::Runs& runs = ctx.op_state<BodyStates>(*this).at(0);
  const BodyTiming timing = ctx.body_timing(0);
  const auto& first = sequence_of(required(inputs, 0, name()), name());
  size_t length = first.items.size();
  for (size_t i = 1; i < num_inputs_; i++)
    if (is_sequence(required(inputs, i, name())))
      KILN_ENSURE(sequence_of(*inputs[i], name()).items.size() == length,
                  "SequenceMap: input {} has {} items, input 0 has {}", i,
                  sequence_of(*inputs[i], name()).items.size(), length);
  std::vector<std::vector<Tensor>> collected(runner_.num_outputs());
  std::vector<Tensor> args(inputs.size());
  for (size_t i = 0; i < inputs.size(); i++) args[i] = required(inputs, i, name());
  for (size_t k = 0; k < length; k++) {
    for (size_t i = 0; i < num_inputs_; i++)
      if (is_sequence(*inputs[i])) args[i] = sequence_of(*inputs[i], name()).items[k];
    auto outs = runner_.run(runs, args, timing);
    // Body buffers still referenced here are never overwritten by the next run (reuse needs
    // sole ownership), so the items need no copy.
    for (size_t o = 0; o < outs.size(); o++) collected[o].push_back(std::move(outs[o]));
  }
  std::vector<DatumType> types(runner_.num_outputs(), DatumType::F32);
  if (length > 0) {
    for (size_t o = 0; o < types.size(); o++) types[o] = collected[o][0].dtype();
  } else {
    // No item ran: the item types come from the body's analysis on the items' facts.
    std::vector<Fact> facts;
    for (size_t i = 0; i < inputs.size(); i++)
      facts.push_back(i < num_inputs_ && is_sequence(*inputs[i])
                          ? unknown_shape_fact(sequence_of(*inputs[i], name()).elem_dt)
                          : fact_of_value(*inputs[i]));
    auto body_facts = runner_.analyse(facts);
    for (size_t o = 0; o < types.size(); o++) types[o] = body_facts[o].dt;
  }
  for (size_t o = 0; o < collected.size() && o < ctx.num_outputs(); o++)
    ctx.set_output(o, make_sequence(types[o], std::move(collected[o])));
}

}  // namespace kiln::ops
