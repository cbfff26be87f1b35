#include "ops/core/fused_epilogue.h"

#include <fmt/format.h>

#include "core/error.h"

namespace kiln::ops {

FusedEpilogue::FusedEpilogue(OpPtr main, size_t main_inputs, std::vector<EpilogueStep> steps)
    : main_(std::move(main)), main_inputs_(main_inputs), steps_(std::move(steps)) {
  KILN_ENSURE(main_, "FusedEpilogue: no main op");
  for (const auto& s : steps_) {
    KILN_ENSURE(s.op, "FusedEpilogue: empty step");
    KILN_ENSURE(s.position <= s.extras, "FusedEpilogue: step {} position {} out of range",
                s.op->name(), s.position);
  }
}

std::shared_ptr<FusedEpilogue> FusedEpilogue::with_step(EpilogueStep step) const {
  auto steps = steps_;
  steps.push_back(std::move(step));
  return std::make_shared<FusedEpilogue>(main_, main_inputs_, std::move(steps));
}

std::string FusedEpilogue::name() const {
  std::string out = main_->name();
  for (const auto& s : steps_) out += "+" + s.op->name();
  return out;
}

Attributes FusedEpilogue::attributes() const {
  Attributes attrs = main_->attributes();
  std::string epilogue;
  for (const auto& s : steps_) {
    if (!epilogue.empty()) epilogue += ",";
    epilogue += s.op->name();
    std::string args;
    for (const auto& [k, v] : s.op->attributes())
      args += fmt::format("{}{}={}", args.empty() ? "" : " ", k, v);
    if (!args.empty()) epilogue += "(" + args + ")";
  }
  attrs.emplace_back("epilogue", epilogue);
  return attrs;
}

template <typename T>
std::vector<const T*> FusedEpilogue::step_inputs(size_t step, const T* value,
                                                 const std::vector<const T*>& inputs) const {
  size_t first = main_inputs_;
  for (size_t i = 0; i < step; i++) first += steps_[i].extras;
  const EpilogueStep& s = steps_[step];
  KILN_ENSURE(first + s.extras <= inputs.size(), "FusedEpilogue: {} inputs, expected at least {}",
              inputs.size(), first + s.extras);
  std::vector<const T*> out(inputs.begin() + static_cast<long>(first),
                            inputs.begin() + static_cast<long>(first + s.extras));
  out.insert(out.begin() + static_cast<long>(s.position), value);
  return out;
}

std::vector<Fact> FusedEpilogue::output_facts(const FactRefs& inputs) const {
  KILN_ENSURE(inputs.size() >= main_inputs_, "FusedEpilogue: {} inputs, main op takes {}",
              inputs.size(), main_inputs_);
  FactRefs main_in(inputs.begin(), inputs.begin() + static_cast<long>(main_inputs_));
  Fact value = main_->output_facts(main_in).at(0);
  value.value.reset();
  for (size_t i = 0; i < steps_.size(); i++) {
    Fact next = steps_[i].op->output_facts(step_inputs(i, &value, inputs)).at(0);
    KILN_ENSURE(next.same_type_and_shape(value),
                "FusedEpilogue: step {} changes the output from {} to {}", steps_[i].op->name(),
                value.to_string(), next.to_string());
    value = std::move(next);
    value.value.reset();
  }
  return {value};
}

void FusedEpilogue::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  KILN_ENSURE(inputs.size() >= main_inputs_, "FusedEpilogue: {} inputs, main op takes {}",
              inputs.size(), main_inputs_);
  // The main op writes the node's output (its arena slot when the State planned one)...
  TensorRefs& main_in = ctx.temp_refs(6);
  main_in.assign(inputs.begin(), inputs.begin() + static_cast<long>(main_inputs_));
  main_->eval(ctx, main_in);
  // ...then each step runs in place over it, in a context whose only placement is the value's
  // own bytes (a thread's reusable one-slot vector: no allocation per call).
  thread_local std::vector<Tensor> value(1);
  std::swap(value[0], ctx.current_output(0));
  // The steps overwrite the value: a view of an input must be copied first.
  const char* v0 = static_cast<const char*>(value[0].raw_data());
  for (const Tensor* t : inputs) {
    if (!t || t->is_null() || value[0].is_null()) continue;
    const char* t0 = static_cast<const char*>(t->raw_data());
    if (t0 < v0 + value[0].nbytes() && v0 < t0 + t->nbytes()) {
      value[0] = value[0].clone();
      break;
    }
  }
  OutputPlacement self{&value[0], 0, value[0].nbytes()};
  EvalContext step_ctx(value, &self, nullptr, &ctx.scratch_arena());
  try {
    for (size_t i = 0; i < steps_.size(); i++) {
      TensorRefs& step_in = ctx.temp_refs(7);
      size_t first = main_inputs_;
      for (size_t k = 0; k < i; k++) first += steps_[k].extras;
      const EpilogueStep& s = steps_[i];
      KILN_ENSURE(first + s.extras <= inputs.size(),
                  "FusedEpilogue: {} inputs, expected at least {}", inputs.size(),
                  first + s.extras);
      for (size_t k = 0; k < s.extras; k++) {
        if (k == s.position) step_in.push_back(&value[0]);
        step_in.push_back(inputs[first + k]);
      }
      if (s.position == s.extras) step_in.push_back(&value[0]);
      s.op->eval(step_ctx, step_in);
    }
  } catch (...) {
    std::swap(value[0], ctx.current_output(0));
    throw;
  }
  std::swap(value[0], ctx.current_output(0));
}

Cost FusedEpilogue::cost(const FactRefs& inputs) const {
  FactRefs main_in(inputs.begin(), inputs.begin() + static_cast<long>(main_inputs_));
  Cost total = main_->cost(main_in);
  Fact value = main_->output_facts(main_in).at(0);
  for (size_t i = 0; i < steps_.size(); i++) {
    Cost c = steps_[i].op->cost(step_inputs(i, &value, inputs));
    total.fma = total.fma + c.fma;
    total.other = total.other + c.other;
    total.params_bytes = total.params_bytes + c.params_bytes;
    total.known = total.known && c.known;
  }
  return total;
}

OpPtr FusedEpilogue::codegen(const FactRefs& inputs) const {
  FactRefs main_in(inputs.begin(), inputs.begin() + static_cast<long>(main_inputs_));
  OpPtr main = main_->codegen(main_in);
  if (!main) return nullptr;
  return std::make_shared<FusedEpilogue>(std::move(main), main_inputs_, steps_);
}

}  // namespace kiln::ops
