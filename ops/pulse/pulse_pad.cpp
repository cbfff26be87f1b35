#include "ops/pulse/pulse_pad.h"

#include <algorithm>
#include <cstring>
#include <limits>

#include "base/error.h"
#include "ops/pulse/frames.h"

namespace kiln::ops {

namespace {

struct PadState : OpState {
  int64_t pulses = 0;   // pulses seen so far
  int64_t length = -1;  // the stream length end was computed for
  int64_t end = std::numeric_limits<int64_t>::max();
  SymbolValues symbols;
};

}  // namespace

PulsePad::PulsePad(size_t axis, int64_t before, int64_t after, int64_t begin_input, Dim end_input,
                   std::string symbol, double value)
    : axis_(axis),
      before_(before),
      after_(after),
      begin_input_(begin_input),
      end_input_(std::move(end_input)),
      symbol_(std::move(symbol)),
      value_(value) {}

Attributes PulsePad::attributes() const {
  return {{"axis", std::to_string(axis_)},       {"before", std::to_string(before_)},
          {"after", std::to_string(after_)},     {"begin_input", std::to_string(begin_input_)},
          {"end_input", end_input_.to_string()}, {"value", fmt::format("{}", value_)}};
}

std::vector<Fact> PulsePad::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 1, 2);
  const Fact& x = required(inputs, 0, name());
  if (inputs.size() > 1 && inputs[1])
    KILN_ENSURE(inputs[1]->dt == DatumType::I64 && inputs[1]->rank() == 0,
                "PulsePad: the stream length must be an i64 scalar, got {}",
                inputs[1]->to_string());
  KILN_ENSURE(axis_ < x.rank(), "PulsePad: axis {} out of range for [{}]", axis_,
              dims_to_string(x.shape));
  return {Fact(x.dt, x.shape)};
}

std::unique_ptr<OpState> PulsePad::make_state(const FactRefs&) const {
  return std::make_unique<PadState>();
}

void PulsePad::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& x = required(inputs, 0, "PulsePad");
  auto& st = ctx.op_state<PadState>(*this);
  const int64_t p = x.shape().at(axis_);
  const int64_t first = st.pulses * p;  // stream position of the pulse's first frame
  st.pulses++;
  int64_t length = inputs.size() > 1 && inputs[1] ? inputs[1]->value_as_i64(0) : -1;
  if (length != st.length) {
    st.length = length;
    st.end = std::numeric_limits<int64_t>::max();
    if (length >= 0) {
      st.symbols[symbol_] = length;
      st.end = end_input_.eval(st.symbols);
    }
  }
  const int64_t end = st.end;
  // Frames [0, lo) and [hi, p) of this pulse are outside the stream.
  const int64_t lo = std::clamp<int64_t>(begin_input_ - first, 0, p);
  const int64_t hi = std::clamp<int64_t>(end - first, lo, p);
  if (lo == 0 && hi == p) {
    ctx.set_output_view(0, x, x.shape());  // no frame to mask: the input itself, no allocation
    return;
  }
  Tensor& y = ctx.output(0, x.dtype(), x.shape());
  std::memcpy(y.raw_data(), x.raw_data(), x.nbytes());
  pulse::fill_frames(y, axis_, 0, lo, value_);
  pulse::fill_frames(y, axis_, hi, p, value_);
}

}  // namespace kiln::ops
