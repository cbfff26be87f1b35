#include "cli/test_fault.h"

#include <spdlog/spdlog.h>

#include <cstdlib>
#include <string>

#include "base/error.h"
#include "base/isa.h"
#include "cli/value_capture.h"

namespace kiln::cli {

namespace {

// The wrapped op, computing the same facts; every 7th float of its outputs is off by 0.5.
class FaultyOp : public Op {
 public:
  explicit FaultyOp(OpPtr inner) : inner_(std::move(inner)) {}
  std::string name() const override { return inner_->name(); }
  Attributes attributes() const override { return inner_->attributes(); }
  std::vector<Fact> output_facts(const FactRefs& inputs) const override {
    return inner_->output_facts(inputs);
  }
  Cost cost(const FactRefs& inputs) const override { return inner_->cost(inputs); }
  // The wrapped op's per-session state: its eval reaches it through the same context.
  std::unique_ptr<OpState> make_state(const FactRefs& inputs) const override {
    return inner_->make_state(inputs);
  }
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override {
    inner_->eval(ctx, inputs);
    for (size_t s = 0; s < ctx.num_outputs(); s++) {
      const Tensor& out = ctx.current_output(s);
      if (out.is_null() || out.dtype() != DatumType::F32) continue;
      Tensor broken = out.clone();  // the output may view an input: never write through it
      auto values = broken.values_mut<float>();
      for (size_t i = 0; i < values.size(); i += 7) values[i] += 0.5f;
      ctx.set_output(s, std::move(broken));
    }
  }

 private:
  OpPtr inner_;
};

}  // namespace

void apply_test_fault(Graph& graph) {
  const char* env = std::getenv("KILN_TEST_FAULT");
  if (!env || !*env) return;
  std::string spec = env, node = spec, isa;
  if (auto at = spec.rfind('@'); at != std::string::npos) {
    node = spec.substr(0, at);
    isa = spec.substr(at + 1);
  }
  if (!isa.empty() && isa != isa_name(active_isa())) return;
  for (size_t id = 0; id < graph.size(); id++) {
    Node& n = graph.node(static_cast<int>(id));
    if (n.name != node && value_key(n.name, 0) != node) continue;
    spdlog::warn("KILN_TEST_FAULT: node '{}' ({}) computes wrong values on purpose", n.name,
                 n.op->name());
    n.op = std::make_shared<FaultyOp>(n.op);
    return;
  }
  fail("KILN_TEST_FAULT={}: the optimized graph has no node named '{}'", spec, node);
}

}  // namespace kiln::cli
