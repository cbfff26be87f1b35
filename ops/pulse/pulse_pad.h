// PulsePad: the padding of a stream (tract_pulse_pulse_pad). A streaming model never sees the
// stream's start or end as a whole, so the pad of a Pad / Conv / pool along the stream axis
// becomes a mask: frames of the pulse whose stream position lies before `begin_input` (the
// frames preceding the stream start, i.e. the input's delay) or at / after `end_input` (the
// stream's full length plus that delay, symbolic in `symbol`: resolved at run time from the
// optional input 1, the stream length (an i64 scalar, < 0 while unknown = never) are replaced by
// `value`. The `before` frames of left
// padding come from the initial contents of the delay line that follows (see PulseDelay::init);
// `after` frames of right padding are masked frames past the end. The pulse count is the
// session's state.
#pragma once

#include "core/op.h"

namespace kiln::ops {

class PulsePad : public Op {
 public:
  PulsePad(size_t axis, int64_t before, int64_t after, int64_t begin_input, Dim end_input,
           std::string symbol, double value);
  std::string name() const override { return "PulsePad"; }
  Attributes attributes() const override;
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs&) const override { return {}; }
  bool same_as(const Op& other) const override {
    return same_fields(*this, other, [](const PulsePad& o) {
      return std::tie(o.axis_, o.before_, o.after_, o.begin_input_, o.end_input_, o.symbol_,
                      o.value_);
    });
  }
  std::unique_ptr<OpState> make_state(const FactRefs& inputs) const override;
  size_t axis() const { return axis_; }
  int64_t before() const { return before_; }
  int64_t after() const { return after_; }
  int64_t begin_input() const { return begin_input_; }
  const Dim& end_input() const { return end_input_; }
  const std::string& symbol() const { return symbol_; }
  double value() const { return value_; }

 private:
  size_t axis_;
  int64_t before_, after_;
  int64_t begin_input_;
  Dim end_input_;
  std::string symbol_;
  double value_;
};

}  // namespace kiln::ops
