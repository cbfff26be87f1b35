#include "core/session.h"

namespace kiln {

Session::Session(PlanPtr plan, SessionOptions options)
    : pool_(options.threads > 0 ? options.threads : num_threads()), state_(std::move(plan)) {}

std::vector<Tensor> Session::run(const std::vector<Tensor>& inputs) {
  PoolScope scope(&pool_);
  return state_.run(inputs);
}

void Session::run(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) {
  PoolScope scope(&pool_);
  state_.run(inputs, outputs);
}

void Session::run(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs,
                  const std::vector<Tensor>& targets) {
  PoolScope scope(&pool_);
  state_.run(inputs, outputs, targets);
}

std::vector<Tensor> Session::run_timed(const std::vector<Tensor>& inputs, const NodeTimer& timer,
                                       BodyTimer* bodies) {
  PoolScope scope(&pool_);
  return state_.run_timed(inputs, timer, bodies);
}

}  // namespace kiln
