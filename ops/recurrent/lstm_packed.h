// LstmPacked: an f32 LSTM with constant weights specialised at optimize time (Lstm::codegen): the
// input projection of all time steps is one packed matrix product (W packed once, both biases
// fused as its column bias), and each recurrent step is one fused kernel (kernels/recurrent/
// lstm_step.h: the product with R and the cell, peepholes included) over the hidden units, whose
// weights and gates are laid out in blocks of the vector width. Long sequences of large steps are
// run by a team of threads (run_team), each owning a range of blocks and publishing its part of
// h through a barrier per step; results do not depend on the thread count. Default activations,
// no clip, no input_forget, no sequence_lens: otherwise codegen keeps the reference.
#pragma once

#include <memory>
#include <vector>

#include "kernels/mmm/mmm.h"
#include "kernels/recurrent/lstm_step.h"
#include "ops/recurrent/lstm.h"

namespace kiln::ops {

class LstmPacked : public Op {
 public:
  // w [nd, 4h, i], r [nd, 4h, h], bias [nd, 8h] or null, peepholes [nd, 3h] or null.
  LstmPacked(std::shared_ptr<const Lstm> reference, const Tensor& w, const Tensor& r,
             const Tensor* bias, const Tensor* peepholes);
  std::string name() const override { return "LstmPacked"; }
  Attributes attributes() const override { return reference_->attributes(); }
  std::vector<Fact> output_facts(const FactRefs& inputs) const override {
    return reference_->output_facts(inputs);
  }
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs& inputs) const override { return reference_->cost(inputs); }
  // When a sequence is split between a team of threads: the least work per member and step, and
  // for the whole sequence (multiply-adds); `by_time`: between the team and one thread, the one
  // measured faster lately (see TeamChoice), otherwise the team whenever the work allows one.
  struct TeamPolicy {
    int64_t member_step_fma = 16384;          // ~1 us: a barrier per step is worth it
    int64_t sequence_fma = int64_t{1} << 20;  // the team's wake-up is worth it
    bool by_time = true;
  };
  // A copy with another policy (tests lower the thresholds to split small LSTMs).
  std::shared_ptr<LstmPacked> with_team_policy(TeamPolicy policy) const;
  std::unique_ptr<OpState> make_state(const FactRefs& inputs) const override;

 private:
  // One direction's weights in the blocked layout of kernels/recurrent/lstm_step.h.
  struct Direction {
    std::shared_ptr<const kernels::PackedMatrix> w;  // B side: [i, 4 * padded hidden] panels
    std::vector<float> bias;                         // Wb + Rb, 4 * padded hidden, blocked
    Tensor r;                                        // blocked R panels (aligned)
    std::vector<float> peepholes;                    // blocked [blocks][3][block], or empty
  };
  // Team members for a step of `step_fma` multiply-adds repeated `steps` times.
  int team_threads(int64_t steps, int64_t step_fma) const;
  std::shared_ptr<const Lstm> reference_;
  const kernels::MicroKernel* kernel_;
  const kernels::LstmKernels* step_;
  int64_t hidden_, input_, blocks_;
  std::vector<Direction> dirs_;
  TeamPolicy policy_;
};

// The session's choice between the team and one thread for an LstmPacked node: whichever has
// lately been faster per step (ns per step, each new measurement averaged with the last; after
// warm-up runs of each, the slower one is retried every kExploreEvery runs). When other processes
// hold the cores, waiting for descheduled members costs more than the split saves. Results do not
// depend on the choice.
class TeamChoice : public OpState {
 public:
  static constexpr uint32_t kExploreEvery = 16;
  // Whether this run uses the team; `record`: whether its time is to be recorded.
  bool use_team(bool& record);
  void record_time(bool team, int64_t ns_per_step);

 private:
  int64_t team_ns_ = 0, solo_ns_ = 0;
  uint32_t runs_ = 0;
};

}  // namespace kiln::ops
