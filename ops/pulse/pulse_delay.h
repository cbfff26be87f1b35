// PulseDelay: the delay line of a streaming model (tract_pulse_delay). Along the stream axis it
// keeps the last `delay + overlap` frames it saw in its session state (a ring of frames,
// initially `init`): each call outputs `overlap` frames of the past followed by the pulse,
// shifted back by `delay` frames. A window op (conv, pool) after it sees every frame it needs
// exactly once per output, and two paths of different delays are re-aligned by it.
#pragma once

#include "core/op.h"

namespace kiln::ops {

class PulseDelay : public Op {
 public:
  PulseDelay(size_t axis, int64_t delay, int64_t overlap, double init = 0)
      : axis_(axis), delay_(delay), overlap_(overlap), init_(init) {}
  std::string name() const override { return "PulseDelay"; }
  Attributes attributes() const override;
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs&) const override { return {}; }
  bool same_as(const Op& other) const override {
    return same_fields(*this, other, [](const PulseDelay& o) {
      return std::tie(o.axis_, o.delay_, o.overlap_, o.init_);
    });
  }
  std::unique_ptr<OpState> make_state(const FactRefs& inputs) const override;
  size_t axis() const { return axis_; }
  int64_t delay() const { return delay_; }
  int64_t overlap() const { return overlap_; }
  double init() const { return init_; }
  // Bytes of state for an input of this fact (the buffered frames).
  Dim state_bytes(const Fact& input) const;

 private:
  size_t axis_;
  int64_t delay_;
  int64_t overlap_;
  double init_;
};

}  // namespace kiln::ops
