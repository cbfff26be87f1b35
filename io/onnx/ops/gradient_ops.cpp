// ONNX Gradient (ai.onnx.preview.training): the gradients of `y` with respect to the node's
// inputs `xs`, built at load time by reverse-mode differentiation of the graph between them
// (seed: ones, i.e. the gradient of sum(y)). Differentiates Add, Sub, Mul, Div (with numpy
// broadcasting: gradients are summed back to each operand's shape), Neg and Identity; any
// other op on a path from xs to y is reported.
#include <fmt/format.h>

#include <map>
#include <set>

#include "base/error.h"
#include "io/onnx/ops/register_all.h"
#include "ops/core/identity.h"
#include "ops/elementwise/binary.h"
#include "ops/elementwise/unary.h"
#include "ops/training/fill_like.h"
#include "ops/training/sum_to_shape.h"

namespace kiln::onnx_io {

namespace {

using ops::Binary;
using ops::BinaryKind;

class GradientBuilder {
 public:
  explicit GradientBuilder(NodeContext& ctx) : ctx_(ctx) {}

  // The gradient outlets of y with respect to each of xs (zeros when y does not depend on it).
  std::vector<Outlet> build(const std::vector<Outlet>& xs, const std::set<Outlet>& stops,
                            Outlet y) {
    const Graph& g = ctx_.graph();
    // Nodes between xs and y: reached backward from y, not crossing xs or the constants zs.
    std::set<Outlet> sources(xs.begin(), xs.end());
    std::set<int> needed;
    std::vector<int> stack{y.node};
    while (!stack.empty()) {
      int id = stack.back();
      stack.pop_back();
      if (!needed.insert(id).second) continue;
      for (const auto& in : g.node(id).inputs)
        if (in.present() && !sources.count(in) && !stops.count(in)) stack.push_back(in.node);
    }
    grads_[y] = add("seed", std::make_shared<ops::FillLike>(1.0), {y});
    // Node ids follow a topological order: walk them backward.
    for (auto it = needed.rbegin(); it != needed.rend(); ++it) {
      const Node& n = g.node(*it);
      if (n.inputs.empty()) continue;  // model inputs and constants end the paths
      for (size_t slot = 0; slot < n.outputs.size(); slot++) {
        Outlet out{n.id, static_cast<int>(slot)};
        auto gi = grads_.find(out);
        if (gi == grads_.end() || sources.count(out)) continue;
        backward(n, gi->second);
      }
    }
    std::vector<Outlet> result;
    for (const Outlet& x : xs) {
      auto it = grads_.find(x);
      result.push_back(it != grads_.end() ? it->second
                                          : add("zero", std::make_shared<ops::FillLike>(0.0), {x}));
    }
    return result;
  }

 private:
  Outlet add(const std::string& what, OpPtr op, std::vector<Outlet> inputs) {
    return ctx_.add_node(fmt::format("grad{}.{}", counter_++, what), std::move(op),
                         std::move(inputs));
  }
  Outlet binary(BinaryKind kind, Outlet a, Outlet b) {
    return add("op", std::make_shared<Binary>(kind), {a, b});
  }
  // Adds `grad` (a gradient shaped like the op's output) into the gradient of `operand`.
  void accumulate(Outlet operand, Outlet grad) {
    grad = add("unbroadcast", std::make_shared<ops::SumToShape>(), {grad, operand});
    auto it = grads_.find(operand);
    grads_[operand] = it == grads_.end() ? grad : binary(BinaryKind::Add, it->second, grad);
  }

  void backward(const Node& n, Outlet g) {
    std::string what = fmt::format("node '{}' ({})", n.name, n.op->name());
    if (dynamic_cast<const ops::Identity*>(n.op.get())) {
      accumulate(n.inputs.at(0), g);
      return;
    }
    if (auto* u = dynamic_cast<const ops::Unary*>(n.op.get())) {
      KILN_ENSURE(u->kind() == ops::UnaryKind::Neg, "Gradient: cannot differentiate {}", what);
      accumulate(n.inputs.at(0),
                 add("neg", std::make_shared<ops::Unary>(ops::UnaryKind::Neg), {g}));
      return;
    }
    auto* b = dynamic_cast<const Binary*>(n.op.get());
    KILN_ENSURE(b && n.inputs.size() == 2, "Gradient: cannot differentiate {}", what);
    Outlet x = n.inputs[0], y = n.inputs[1];
    switch (b->kind()) {
      case BinaryKind::Add:
        accumulate(x, g);
        accumulate(y, g);
        return;
      case BinaryKind::Sub:
        accumulate(x, g);
        accumulate(y, add("neg", std::make_shared<ops::Unary>(ops::UnaryKind::Neg), {g}));
        return;
      case BinaryKind::Mul:
        accumulate(x, binary(BinaryKind::Mul, g, y));
        accumulate(y, binary(BinaryKind::Mul, g, x));
        return;
      case BinaryKind::Div: {
        // d(x/y)/dx = 1/y, d(x/y)/dy = -x/y^2 = -(x/y)/y.
        Outlet quotient{n.id, 0};
        accumulate(x, binary(BinaryKind::Div, g, y));
        Outlet t = binary(BinaryKind::Div, binary(BinaryKind::Mul, g, quotient), y);
        accumulate(y, add("neg", std::make_shared<ops::Unary>(ops::UnaryKind::Neg), {t}));
        return;
      }
      default:
        fail("Gradient: cannot differentiate {}", what);
    }
  }

  NodeContext& ctx_;
  std::map<Outlet, Outlet> grads_;
  int counter_ = 0;
};

}  // namespace

void register_gradient_ops(OpRegistry& registry) {
  registry.add(
      "Gradient",
      [](NodeContext& ctx) {
        auto xs_names = ctx.attr_strings("xs");
        auto zs_names = ctx.attr_strings("zs", std::vector<std::string>{});
        std::string y_name = ctx.attr_string("y");
        KILN_ENSURE(ctx.num_outputs() == xs_names.size(),
                    "Gradient: {} outputs for {} tensors in xs", ctx.num_outputs(),
                    xs_names.size());
        std::vector<Outlet> xs;
        for (const auto& name : xs_names) xs.push_back(ctx.resolve(name));
        std::set<Outlet> stops;
        for (const auto& name : zs_names) stops.insert(ctx.resolve(name));
        auto grads = GradientBuilder(ctx).build(xs, stops, ctx.resolve(y_name));
        for (size_t i = 0; i < grads.size(); i++) ctx.set_output(i, grads[i]);
      },
      "ai.onnx.preview.training");
}

}  // namespace kiln::onnx_io
