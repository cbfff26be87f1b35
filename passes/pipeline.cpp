#include "passes/pipeline.h"

#include "base/error.h"
#include "passes/batch_norm_to_affine.h"
#include "passes/clamp_chains.h"
#include "passes/codegen.h"
#include "passes/concat_convs.h"
#include "passes/cse.h"
#include "passes/dead_nodes.h"
#include "passes/einsum_to_matmul.h"
#include "passes/fold_affine.h"
#include "passes/fold_constants.h"
#include "passes/fold_scale.h"
#include "passes/fold_transpose_matmul.h"
#include "passes/fuse_gelu.h"
#include "passes/fuse_hard_swish.h"
#include "passes/fuse_layer_norm.h"
#include "passes/fuse_mish.h"
#include "passes/fuse_output.h"
#include "passes/fuse_silu.h"
#include "passes/fuse_softmax.h"
#include "passes/gemm_to_matmul.h"
#include "passes/if_branches.h"
#include "passes/inline_if.h"
#include "passes/loop_bodies.h"
#include "passes/max_pool_values.h"
#include "passes/merge_parallel_matmuls.h"
#include "passes/quant_ops.h"
#include "passes/remove_identity.h"
#include "passes/reshape_around_matmul.h"
#include "passes/reshape_chains.h"
#include "passes/split_sliced_matmul.h"
#include "passes/split_variadic.h"
#include "passes/transpose_chains.h"

namespace kiln::passes {

namespace {
constexpr std::string_view kStageNames[] = {"load", "typed", "declutter", "optimize", "plan"};
}

Stage parse_stage(std::string_view text) {
  for (size_t i = 0; i < std::size(kStageNames); i++)
    if (text == kStageNames[i]) return static_cast<Stage>(i);
  fail("unknown stage '{}' (stages: load, typed, declutter, optimize, plan)", text);
}

std::string stage_name(Stage stage) {
  return std::string(kStageNames[static_cast<size_t>(stage)]);
}

PassManager declutter_passes(std::string_view without) {
  PassManager m("declutter");
  auto add = [&](std::unique_ptr<Pass> pass) {
    if (pass->name() != without) m.add(std::move(pass));
  };
  add(std::make_unique<DeadNodes>());
  // Keeps DequantizeLinear of integer constants: quant-ops (optimize) needs the integers.
  add(std::make_unique<FoldConstants>(true));
  add(std::make_unique<InlineIf>());
  add(std::make_unique<RemoveIdentity>());
  add(std::make_unique<SplitVariadic>());
  add(std::make_unique<EinsumToMatMul>());
  add(std::make_unique<GemmToMatMul>(true));
  add(std::make_unique<BatchNormToAffine>());
  add(std::make_unique<FoldAffine>());
  add(std::make_unique<SplitSlicedMatMul>());
  add(std::make_unique<FoldScale>());
  add(std::make_unique<TransposeChains>());
  add(std::make_unique<ReshapeChains>());
  add(std::make_unique<ReshapeAroundMatMul>());
  add(std::make_unique<FuseGelu>());
  add(std::make_unique<FuseLayerNorm>());
  add(std::make_unique<FuseSoftmax>());
  add(std::make_unique<FuseHardSwish>());
  add(std::make_unique<FuseSilu>());
  add(std::make_unique<FuseMish>());
  add(std::make_unique<ClampChains>());
  add(std::make_unique<CommonSubexpressions>());
  return m;
}

PassManager optimize_passes(bool codegen) {
  PassManager m("optimize");
  if (codegen) {
    // Before constant folding turns the dequantized weights into floats; Gemms on quantized
    // weights that declutter kept and quant-ops declined become MatMuls here.
    m.add(std::make_unique<QuantOps>());
    m.add(std::make_unique<GemmToMatMul>());
  }
  m.add(std::make_unique<FoldConstants>());
  m.add(std::make_unique<DeadNodes>());
  m.add(std::make_unique<MergeParallelMatMuls>());
  if (codegen) {
    // Before codegen: the branches of an If whose condition is known only at run time get
    // this stage too (Silero's sample-rate If when `sr` is not given). Declutter leaves them
    // as loaded, so NNEF archives (written at declutter) keep the branches they came with.
    m.add_final(std::make_unique<IfBranches>(Stage::Optimize));
    // Loop and Scan bodies: optimized per run-time input facts by the sessions (loop_bodies.h).
    m.add_final(std::make_unique<LoopBodies>());
    m.add_final(std::make_unique<Codegen>());
    m.add_final(std::make_unique<FuseOutput>());
    m.add_final(std::make_unique<MaxPoolValuesPass>());
    m.add_final(std::make_unique<FoldTransposeMatMul>());
    m.add_final(std::make_unique<ConcatConvsPass>());
  }
  return m;
}

void to_typed(Graph& graph) {
  try {
    graph.analyse();
  } catch (Error& e) {
    // An If on a symbolic dim (e.g. the frame count) whose branches differ in rank cannot be
    // typed: say how to make its condition known.
    if (e.chain().find("differs between branches") != std::string::npos)
      e.with_context(
          "typing the model (an If whose condition is not known before running has branches of "
          "different ranks: give concrete input shapes, e.g. -i input:1,576)");
    throw;
  }
}

PassReport declutter(Graph& graph) {
  return declutter_passes().run(graph);
}

PassReport optimize(Graph& graph) {
  return optimize_passes().run(graph);
}

PassReport run_to_stage(Graph& graph, Stage stage) {
  PassReport report;
  if (stage == Stage::Load) return report;
  to_typed(graph);
  if (stage >= Stage::Declutter) report.append(declutter(graph));
  if (stage >= Stage::Optimize) report.append(optimize(graph));
  return report;
}

PlanPtr plan(GraphPtr graph) {
  return std::make_shared<Plan>(std::move(graph));
}

void check_constant_inputs(const Graph& graph, const std::vector<Tensor>& inputs) {
  for (size_t i = 0; i < inputs.size() && i < graph.inputs().size(); i++) {
    const Fact& fact = graph.fact(graph.inputs()[i]);
    if (!fact.value || inputs[i].is_null()) continue;
    bool same = inputs[i].dtype() == fact.value->dtype() &&
                inputs[i].shape() == fact.value->shape() && inputs[i].equals(*fact.value);
    KILN_ENSURE(same,
                "input '{}' was declared constant ({}) but the value given is {}; drop the -i "
                "value or feed that value",
                graph.input_name(i), fact.value->to_string(), inputs[i].to_string());
  }
}

}  // namespace kiln::passes
