#include "tests/fuzz/harness_util.h"

#include <spdlog/spdlog.h>

#include <random>
#include <vector>

#include "core/random_tensor.h"
#include "core/run_limits.h"
#include "core/threading.h"
#include "passes/pipeline.h"
#include "tests/fuzz/harnesses.h"

namespace kiln::fuzz {

void init_limits() {
  static bool done = false;
  if (done) return;
  done = true;
  set_memory_budget(kMemoryBudget);
  set_num_threads(1);
  spdlog::set_level(spdlog::level::off);
}

void init_limits_for_input() {
  init_limits();
  set_run_timeout(kRunSeconds);
}

void exercise_graph(std::shared_ptr<Graph> graph) {
  passes::run_to_stage(*graph, passes::Stage::Optimize);
  PlanPtr plan = passes::plan(graph);
  std::vector<Tensor> inputs;
  int64_t elements = 0;
  std::mt19937_64 rng(1);
  for (const Outlet& in : graph->inputs()) {
    const Fact& f = graph->fact(in);
    if (!f.rank_known || is_object(f.dt)) return;
    Shape shape;
    for (const Dim& d : f.shape) {
      auto v = d.as_int();
      if (!v) return;  // symbolic: the CLI would ask for -i
      shape.push_back(*v);
    }
    elements += shape_numel(shape);
    if (elements > kMaxRunElements) return;
    inputs.push_back(f.value ? *f.value : random_tensor(f.dt, shape, rng));
  }
  State state(plan);
  state.run(inputs);
}

}  // namespace kiln::fuzz
