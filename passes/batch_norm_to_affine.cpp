#include "passes/batch_norm_to_affine.h"

#include <cmath>

#include "core/patch.h"
#include "ops/elementwise/binary.h"
#include "ops/nn/batch_norm.h"
#include "ops/nn/conv.h"
#include "passes/graph_util.h"

namespace kiln::passes {

size_t BatchNormToAffine::run(Graph& graph) {
  ModelPatch patch(graph);
  size_t count = graph.size();
  for (size_t i = 0; i < count; i++) {
    const Node& n = graph.node(static_cast<int>(i));
    auto* bn = op_as<ops::BatchNorm>(n);
    if (!bn || bn->training() || n.inputs.size() != 5) continue;
    const Fact& x = graph.fact(n.inputs[0]);
    const Tensor* scale = const_input(graph, n, 1);
    const Tensor* bias = const_input(graph, n, 2);
    const Tensor* mean = const_input(graph, n, 3);
    const Tensor* var = const_input(graph, n, 4);
    if (!scale || !bias || !mean || !var || x.rank() < 2 || !is_float(x.dt)) continue;
    // A 16-bit float x * s + b left as Mul / Add rounds s, b and the product to 16 bits where
    // BatchNormalization computes in float (4 ulps off on float16 values around 2): only after a
    // Conv, which fold-affine then folds them into (as exporters fold BatchNormalization).
    const bool after_conv = op_as<ops::Conv>(graph.node(n.inputs[0].node)) != nullptr;
    if (x.dt != DatumType::F32 && x.dt != DatumType::F64 && !after_conv) continue;
    auto sc = to_doubles(*scale), bi = to_doubles(*bias), me = to_doubles(*mean),
         va = to_doubles(*var);
    size_t c = sc.size();
    if (bi.size() != c || me.size() != c || va.size() != c) continue;
    std::vector<double> s(c), b(c);
    for (size_t k = 0; k < c; k++) {
      s[k] = sc[k] / std::sqrt(va[k] + static_cast<double>(bn->epsilon()));
      b[k] = bi[k] - me[k] * s[k];
    }
    Shape shape(x.rank() - 1, 1);
    shape[0] = static_cast<int64_t>(c);
    std::string name = n.name;
    int id = n.id;
    Outlet input = n.inputs[0];
    DatumType dt = x.dt;
    Outlet sk = patch.add_const(name + ".scale", from_doubles(dt, shape, s));
    Outlet bk = patch.add_const(name + ".bias", from_doubles(dt, shape, b));
    int mul = patch.add_node(name + ".mul", std::make_shared<ops::Binary>(ops::BinaryKind::Mul),
                             {input, sk});
    int add = patch.add_node(name + ".add", std::make_shared<ops::Binary>(ops::BinaryKind::Add),
                             {{mul, 0}, bk});
    patch.shunt({id, 0}, {add, 0});
  }
  return patch.commit();
}

}  // namespace kiln::passes
