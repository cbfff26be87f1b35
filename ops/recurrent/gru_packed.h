// GruPacked: an f32 GRU with constant weights specialised at optimize time (Gru::codegen), the
// LstmPacked recipe with three gates: the input projection of all time steps is one packed
// matrix product (W packed once, the biases that can be fused as its column bias), and each
// recurrent step is one fused kernel (kernels/recurrent/gru_step.h) over blocks of hidden units
// (two passes when linear_before_reset = 0). One thread runs the steps: a GRU step is 3 H^2
// multiply-adds, ~50 k for H = 128, too small to pay a barrier per step on small CPUs.
// Default activations, no clip, no sequence_lens: otherwise codegen keeps the reference.
#pragma once

#include <memory>
#include <vector>

#include "kernels/mmm/mmm.h"
#include "kernels/recurrent/gru_step.h"
#include "ops/recurrent/gru.h"

namespace kiln::ops {

class GruPacked : public Op {
 public:
  // w [nd, 3h, i], r [nd, 3h, h], bias [nd, 6h] or null.
  GruPacked(std::shared_ptr<const Gru> reference, const Tensor& w, const Tensor& r,
            const Tensor* bias);
  std::string name() const override { return "GruPacked"; }
  Attributes attributes() const override { return reference_->attributes(); }
  std::vector<Fact> output_facts(const FactRefs& inputs) const override {
    return reference_->output_facts(inputs);
  }
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs& inputs) const override { return reference_->cost(inputs); }

 private:
  // One direction's weights in the blocked layout of kernels/recurrent/gru_step.h.
  struct Direction {
    std::shared_ptr<const kernels::PackedMatrix> w;  // B side: [i, 3 * padded hidden] panels
    std::vector<float> bias;                         // the input projection's column bias
    std::vector<float> rbh;                          // Rb_h, blocked (linear_before_reset = 1)
    Tensor r;                                        // blocked R panels (aligned)
  };
  std::shared_ptr<const Gru> reference_;
  const kernels::MicroKernel* kernel_;
  const kernels::GruKernels* step_;
  bool linear_before_reset_;
  int64_t hidden_, input_, blocks_;
  std::vector<Direction> dirs_;
};

}  // namespace kiln::ops
