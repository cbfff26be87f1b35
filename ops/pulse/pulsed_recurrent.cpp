#include "ops/pulse/pulsed_recurrent.h"

#include <algorithm>
#include <cstring>

#include "base/error.h"

namespace kiln::ops {

namespace {

struct RecurrentState : OpState {
  int64_t frames = 0;              // stream frames seen so far
  Tensor h, c;                     // carried state (null until the first valid frame ran)
  std::unique_ptr<OpState> inner;  // the wrapped op's own state
  Tensor y_tail;                   // warm-up pulses: the valid frames' outputs
};

constexpr size_t kInitialH = 5;
constexpr size_t kInitialC = 6;

void keep(Tensor& dst, const Tensor& src) {
  if (dst.is_null() || dst.shape() != src.shape() || dst.dtype() != src.dtype())
    dst = Tensor(src.dtype(), src.shape());
  std::memcpy(dst.raw_data(), src.raw_data(), src.nbytes());
}

}  // namespace

Attributes PulsedRecurrent::attributes() const {
  Attributes a = inner_->attributes();
  a.insert(a.begin(), {"inner", inner_->name()});
  a.push_back({"warmup", std::to_string(warmup_)});
  return a;
}

std::unique_ptr<OpState> PulsedRecurrent::make_state(const FactRefs& inputs) const {
  auto st = std::make_unique<RecurrentState>();
  st->inner = inner_->make_state(inputs);
  return st;
}

OpPtr PulsedRecurrent::codegen(const FactRefs& inputs) const {
  OpPtr kernel = inner_->codegen(inputs);
  if (!kernel) return nullptr;
  return std::make_shared<PulsedRecurrent>(kernel, state_outputs_, warmup_);
}

Dim PulsedRecurrent::state_bytes(const FactRefs& inputs) const {
  auto facts = inner_->output_facts(inputs);
  Dim total = 0;
  for (size_t s = 1; s <= state_outputs_ && s < facts.size(); s++)
    total += facts[s].volume() * Dim(static_cast<int64_t>(size_of(facts[s].dt)));
  return total;
}

void PulsedRecurrent::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& x = required(inputs, 0, "PulsedRecurrent");
  auto& st = ctx.op_state<RecurrentState>(*this);
  const int64_t p = x.dim(0);
  const int64_t skip = std::clamp<int64_t>(warmup_ - st.frames, 0, p);
  st.frames += p;
  TensorRefs& refs = ctx.temp_refs(0);
  refs.assign(inputs.begin(), inputs.end());
  if (refs.size() < kInitialH + state_outputs_) refs.resize(kInitialH + state_outputs_, nullptr);
  if (!st.h.is_null()) {
    refs[kInitialH] = &st.h;
    if (state_outputs_ > 1) refs[kInitialC] = &st.c;
  }
  Tensor sliced;
  if (skip == p) {
    // Only warm-up frames: the state does not move, the outputs are zeros (the op runs on one
    // frame only to shape its outputs).
    Tensor tail = x.slice_outer(0, 1);
    refs[0] = &tail;
    ctx.eval_inner(*inner_, refs, st.inner.get());
    Tensor& y0 = ctx.current_output(0);
    Shape ys = y0.shape();
    ys[0] = p;
    Tensor& y = ctx.output(0, y0.dtype(), ys);
    std::memset(y.raw_data(), 0, y.nbytes());
    for (size_t s = 1; s < ctx.num_outputs(); s++) {
      Tensor& o = ctx.current_output(s);
      if (!o.is_null()) std::memset(o.raw_data(), 0, o.nbytes());
    }
    return;
  }
  if (skip > 0) {
    sliced = x.slice_outer(skip, p);
    refs[0] = &sliced;
  }
  ctx.eval_inner(*inner_, refs, st.inner.get());
  if (ctx.num_outputs() > 1) keep(st.h, ctx.current_output(1));
  if (state_outputs_ > 1 && ctx.num_outputs() > 2) keep(st.c, ctx.current_output(2));
  if (skip > 0) {
    keep(st.y_tail, ctx.current_output(0));
    Shape ys = st.y_tail.shape();
    ys[0] = p;
    Tensor& y = ctx.output(0, st.y_tail.dtype(), ys);
    size_t frame = st.y_tail.nbytes() / static_cast<size_t>(p - skip);
    std::memset(y.raw_data(), 0, static_cast<size_t>(skip) * frame);
    std::memcpy(static_cast<char*>(y.raw_data()) + static_cast<size_t>(skip) * frame,
                st.y_tail.raw_data(), st.y_tail.nbytes());
  }
}

}  // namespace kiln::ops
