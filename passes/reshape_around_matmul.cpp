#include "passes/reshape_around_matmul.h"

#include <set>

#include "core/patch.h"
#include "ops/nn/matmul.h"
#include "ops/shape/flatten.h"
#include "ops/shape/reshape.h"
#include "ops/shape/squeeze.h"
#include "passes/graph_util.h"

namespace kiln::passes {

namespace {

bool is_reshape(const Node& n) {
  return (op_as<ops::Reshape>(n) || op_as<ops::Squeeze>(n) || op_as<ops::Unsqueeze>(n) ||
          op_as<ops::Flatten>(n)) &&
         !n.inputs.empty() && n.inputs[0].present() && n.outputs.size() == 1;
}

Outlet shape_const(ModelPatch& patch, const std::string& name, const Shape& shape) {
  std::vector<int64_t> dims(shape.begin(), shape.end());
  return patch.add_const(name, Tensor::from_vector<int64_t>({int64_t(dims.size())}, dims));
}

}  // namespace

size_t ReshapeAroundMatMul::run(Graph& graph) {
  ModelPatch patch(graph);
  Uses uses(graph);
  std::set<int> touched;  // reshapes already moved this run
  size_t count = graph.size();
  for (size_t i = 0; i < count; i++) {
    const Node& mm = graph.node(static_cast<int>(i));
    if (!op_as<ops::MatMul>(mm) || mm.inputs.size() < 2 || !mm.inputs[0].present()) continue;
    const Tensor* w = const_input(graph, mm, 1);
    if (!w || w->rank() != 2) continue;
    Outlet a = mm.inputs[0], out{mm.id, 0};
    const Node& r1 = graph.node(a.node);
    int r2_id = single_consumer(uses, out);
    if (!is_reshape(r1) || r2_id < 0 || !is_reshape(graph.node(r2_id))) continue;
    if (graph.node(r2_id).inputs[0] != out || touched.count(r1.id) || touched.count(r2_id))
      continue;
    Outlet x = r1.inputs[0];
    auto x_shape = graph.fact(x).try_concrete_shape();
    auto a_shape = graph.fact(a).try_concrete_shape();
    auto y_shape = graph.fact({r2_id, 0}).try_concrete_shape();
    if (!x_shape || !a_shape || !y_shape || x_shape->empty() || a_shape->size() < 2 ||
        y_shape->empty())
      continue;
    int64_t k = w->dim(0), n = w->dim(1);
    std::vector<Outlet> inputs = mm.inputs;
    OpPtr op = mm.op;
    std::string mm_name = mm.name, r1_name = r1.name, r2_name = graph.node(r2_id).name;
    int r1_id = r1.id;
    if (x_shape->back() == k && x_shape->size() >= 2) {
      // Reshape(MatMul(Reshape(x))) -> Reshape(MatMul(x)): the first reshape is now done by
      // the second.
      inputs[0] = x;
      int m2 = patch.add_node(mm_name, op, inputs);
      int r = patch.add_node(r2_name, std::make_shared<ops::Reshape>(),
                             {{m2, 0}, shape_const(patch, r2_name + ".shape", *y_shape)});
      patch.shunt({r2_id, 0}, {r, 0});
    } else if (y_shape->back() == n) {
      // Reshape(MatMul(Reshape(x))) -> MatMul(Reshape(Reshape(x))): the rows take the leading
      // dims of the output reshape before the product.
      Shape rows(y_shape->begin(), y_shape->end() - 1);
      rows.push_back(k);
      int r = patch.add_node(r1_name + ".rows", std::make_shared<ops::Reshape>(),
                             {a, shape_const(patch, r1_name + ".rows.shape", rows)});
      inputs[0] = {r, 0};
      patch.shunt({r2_id, 0}, {patch.add_node(r2_name, op, inputs), 0});
    } else {
      continue;
    }
    touched.insert(r1_id);
    touched.insert(r2_id);
  }
  return patch.commit();
}

}  // namespace kiln::passes
