#include "ops/recurrent/lstm_packed.h"

#include <algorithm>
#include <chrono>

#include "base/error.h"
#include "base/threading.h"

namespace kiln::ops {

std::shared_ptr<LstmPacked> LstmPacked::with_team_policy(TeamPolicy policy) const {
  auto copy = std::make_shared<LstmPacked>(*this);
  copy->policy_ = policy;
  return copy;
}

std::unique_ptr<OpState> LstmPacked::make_state(const FactRefs&) const {
  return std::make_unique<TeamChoice>();
}

LstmPacked::LstmPacked(std::shared_ptr<const Lstm> reference, const Tensor& w, const Tensor& r,
                       const Tensor* bias, const Tensor* peepholes)
    : reference_(std::move(reference)) {
  KILN_ENSURE(
      w.dtype() == DatumType::F32 && r.dtype() == DatumType::F32 && w.rank() == 3 && r.rank() == 3,
      "LstmPacked: W and R must be f32 of rank 3");
  kernel_ = &kernels::default_micro_kernel();
  step_ = &kernels::lstm_kernels();
  const int64_t nd = w.dim(0);
  hidden_ = r.dim(2);
  input_ = w.dim(2);
  const int64_t H = hidden_, gh = 4 * H, block = step_->block;
  blocks_ = kernels::lstm_blocks(H, block);
  const int64_t gp = 4 * blocks_ * block;  // gate columns, blocked and padded
  KILN_ENSURE(w.dim(1) == gh && r.dim(0) == nd && r.dim(1) == gh,
              "LstmPacked: W [{}] and R [{}] do not describe an LSTM", shape_to_string(w.shape()),
              shape_to_string(r.shape()));
  std::vector<float> w_blocked(static_cast<size_t>(gp * input_));
  for (int64_t d = 0; d < nd; d++) {
    Direction dir;
    const float* wd = w.data<float>() + d * gh * input_;
    const float* b = bias ? bias->data<float>() + d * 2 * gh : nullptr;
    dir.bias.assign(static_cast<size_t>(gp), 0.0f);
    for (int64_t col = 0; col < gp; col++) {
      const int64_t row = kernels::lstm_gate_row(col, H, block);
      float* dst = w_blocked.data() + col * input_;
      if (row < 0) {
        std::fill_n(dst, input_, 0.0f);
        continue;
      }
      std::copy_n(wd + row * input_, input_, dst);
      if (b) dir.bias[col] = b[row] + b[gh + row];
    }
    // Column j of W^T (blocked gate column j) at w_blocked[j * input + kk].
    dir.w = std::make_shared<kernels::PackedMatrix>(w_blocked.data(), gp, input_, input_, 1,
                                                    kernel_->nr);
    dir.r = Tensor(DatumType::F32, {std::max<int64_t>(blocks_ * H * 4 * block, 1)});
    kernels::pack_lstm_r(r.data<float>() + d * gh * H, H, block, dir.r.data<float>());
    if (peepholes) {
      const float* p = peepholes->data<float>() + d * 3 * H;
      dir.peepholes.assign(static_cast<size_t>(blocks_ * 3 * block), 0.0f);
      for (int64_t k = 0; k < blocks_; k++) {
        for (int64_t q = 0; q < 3; q++) {
          for (int64_t u = 0; u < block && k * block + u < H; u++) {
            dir.peepholes[(k * 3 + q) * block + u] = p[q * H + k * block + u];
          }
        }
      }
    }
    dirs_.push_back(std::move(dir));
  }
}

// A team member costs a barrier per step (a fraction of a microsecond between cores) and, once
// per sequence, a wake-up (tens of microseconds when the worker sleeps): see TeamPolicy.
int LstmPacked::team_threads(int64_t steps, int64_t step_fma) const {
  if (steps * step_fma < policy_.sequence_fma) return 1;
  const int64_t by_work =
      std::max<int64_t>(1, step_fma / std::max<int64_t>(1, policy_.member_step_fma));
  return static_cast<int>(std::min<int64_t>({num_threads(), by_work, (blocks_ + 1) / 2}));
}

bool TeamChoice::use_team(bool& record) {
  const uint32_t run = runs_++;
  record = true;
  // A mode is tried for two runs in a row and only the second is recorded: the first after a
  // switch pays for it (the pool's workers asleep or not started, caches holding the other
  // mode's data). Runs 0-1 try the team, 2-3 one thread; then every kExploreEvery runs, the
  // slower one.
  const uint32_t phase = run % kExploreEvery;
  if (run < 4) {
    record = run % 2 == 1;
    return run < 2;
  }
  const bool team_faster = team_ns_ <= solo_ns_;
  if (phase < 2) {
    record = phase == 1;
    return !team_faster;
  }
  return team_faster;
}

void TeamChoice::record_time(bool team, int64_t ns_per_step) {
  int64_t& avg = team ? team_ns_ : solo_ns_;
  ns_per_step = std::max<int64_t>(ns_per_step, 1);
  avg = avg == 0 ? ns_per_step : (avg + ns_per_step) / 2;
}

void LstmPacked::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& x = required(inputs, 0, name());
  const bool batch_first = reference_->config().layout == 1;
  KILN_ENSURE(x.dtype() == DatumType::F32 && x.rank() == 3 && x.dim(2) == input_,
              "LstmPacked: X must be f32 [.., .., {}], got [{}]", input_,
              shape_to_string(x.shape()));
  const int64_t nd = static_cast<int64_t>(dirs_.size());
  const int64_t H = hidden_, block = step_->block, HP = blocks_ * block, GP = 4 * HP;
  const int64_t S = batch_first ? x.dim(1) : x.dim(0);
  const int64_t B = batch_first ? x.dim(0) : x.dim(1);
  // Reusable shapes: no allocation per run.
  Shape& state_shape = ctx.temp_shape(0);
  if (batch_first)
    state_shape = {B, nd, H};
  else
    state_shape = {nd, B, H};
  auto state_index = [&](int64_t d, int64_t b) {
    return batch_first ? (b * nd + d) * H : (d * B + b) * H;
  };
  auto opt = [&](size_t i) -> const Tensor* { return i < inputs.size() ? inputs[i] : nullptr; };
  for (size_t i : {5u, 6u}) {
    if (const Tensor* t = opt(i)) {
      KILN_ENSURE(t->dtype() == DatumType::F32 && t->shape() == state_shape,
                  "LSTM: initial state should be [{}], got [{}]", shape_to_string(state_shape),
                  shape_to_string(t->shape()));
    }
  }
  Shape& y_shape = ctx.temp_shape(1);
  if (batch_first)
    y_shape = {B, S, nd, H};
  else
    y_shape = {S, nd, B, H};
  Tensor* y = ctx.num_outputs() > 0 ? &ctx.output(0, DatumType::F32, y_shape) : nullptr;
  Tensor* yh = ctx.num_outputs() > 1 ? &ctx.output(1, DatumType::F32, state_shape) : nullptr;
  Tensor* yc = ctx.num_outputs() > 2 ? &ctx.output(2, DatumType::F32, state_shape) : nullptr;

  // Per direction: the projections of every row, then h twice (the step reads one and writes the
  // other) and c, each B * HP.
  float* xw = ctx.scratch<float>(static_cast<size_t>(std::max<int64_t>(nd * S * B * GP, 1)));
  float* hs = ctx.scratch<float>(static_cast<size_t>(nd * 2 * B * HP));
  float* cs = ctx.scratch<float>(static_cast<size_t>(nd * B * HP));
  auto h_at = [&](int64_t d, int64_t k, int64_t b) { return hs + ((d * 2 + k % 2) * B + b) * HP; };
  auto c_at = [&](int64_t d, int64_t b) { return cs + (d * B + b) * HP; };
  for (int64_t d = 0; d < nd; d++) {
    for (int64_t b = 0; b < B; b++) {
      // Padding units start at 0 (their gates are 0: they stay finite and are never read).
      float* h = h_at(d, 0, b);
      float* c = c_at(d, b);
      std::fill_n(h, HP, 0.0f);
      std::fill_n(c, HP, 0.0f);
      if (const Tensor* t = opt(5)) std::copy_n(t->data<float>() + state_index(d, b), H, h);
      if (const Tensor* t = opt(6)) std::copy_n(t->data<float>() + state_index(d, b), H, c);
    }
  }
  const int team_size = team_threads(S, nd * B * GP * H);
  const bool measured = team_size > 1 && policy_.by_time;
  TeamChoice* choice = measured ? &ctx.op_state<TeamChoice>(*this) : nullptr;
  bool record = false;
  const int team = team_size > 1 && (!choice || choice->use_team(record)) ? team_size : 1;
  // Split the input projections over threads only when they are large or the team wakes the
  // workers anyway: for small products the wake-up and spinning cost more CPU than the split
  // saves, and on a loaded machine waiting for a descheduled worker stalls the whole step loop.
  const int threads = team > 1 || S * B * GP * input_ >= (int64_t{1} << 25) ? 0 : 1;
  const kernels::MmmPlan plan =
      kernels::plan_mmm(*kernel_, S * B, GP, input_, false, true, threads);
  float* scratch = ctx.scratch<float>(plan.scratch_floats);
  for (int64_t d = 0; d < nd; d++) {
    if (S * B == 0) break;
    const Direction& dir = dirs_[static_cast<size_t>(d)];
    // Input projection for every (step, batch) row of X in its own order, in one product.
    kernels::Epilogue ep;
    ep.col_bias = dir.bias.data();
    kernels::StridedSource a(x.data<float>(), S * B, input_, input_, 1, kernel_->mr);
    kernels::mmm(plan, a, *dir.w, ep, xw + d * S * B * GP, GP, scratch);
  }
  const RnnDirection direction = reference_->config().direction;
  // Each step is shared by the team in pieces of two blocks (the kernel's widest): a piece
  // updates its units of c and h (of every direction and batch item) and writes them to Y. The
  // step ends when every piece is done, which publishes the new h to every member.
  const auto start = std::chrono::steady_clock::now();
  run_team(team, [&](int member, Team& t) {
    int64_t k = 0;
    auto piece = [&](int64_t first, int64_t last) {
      const int64_t u0 = std::min(first * block, H), u1 = std::min(last * block, H);
      for (int64_t d = 0; d < nd; d++) {
        const Direction& dir = dirs_[static_cast<size_t>(d)];
        const bool reverse = direction == RnnDirection::Reverse || d == 1;
        const int64_t step = reverse ? S - 1 - k : k;
        for (int64_t b = 0; b < B; b++) {
          const int64_t row = batch_first ? b * S + step : step * B + b;
          float* h_new = h_at(d, k + 1, b);
          step_->step(dir.r.data<float>(), xw + (d * S * B + row) * GP,
                      dir.peepholes.empty() ? nullptr : dir.peepholes.data(), h_at(d, k, b), H,
                      c_at(d, b), h_new, first, last);
          if (y) {
            const int64_t at =
                batch_first ? ((b * S + step) * nd + d) * H : ((step * nd + d) * B + b) * H;
            std::copy(h_new + u0, h_new + u1, y->data<float>() + at + u0);
          }
        }
      }
    };
    for (k = 0; k < S; k++) t.for_each(member, blocks_, piece, 2);
    if (member != 0) return;
    for (int64_t d = 0; d < nd; d++) {
      for (int64_t b = 0; b < B; b++) {
        const int64_t at = state_index(d, b);
        if (yh) std::copy_n(h_at(d, S, b), H, yh->data<float>() + at);
        if (yc) std::copy_n(c_at(d, b), H, yc->data<float>() + at);
      }
    }
  });
  if (measured && record) {
    const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                        std::chrono::steady_clock::now() - start)
                        .count();
    choice->record_time(team > 1, ns / std::max<int64_t>(S, 1));
  }
}

}  // namespace kiln::ops
