// Pulsification of the ops that work frame by frame: element-wise ops, layout ops that keep the
// stream axis whole, ops working along other axes. Everything else that touches the stream is
// refused, naming the node, the op and the axis.
#include "base/error.h"
#include "ops/core/identity.h"
#include "ops/elementwise/binary.h"
#include "ops/elementwise/cast.h"
#include "ops/elementwise/clip.h"
#include "ops/elementwise/min_max_f32.h"
#include "ops/elementwise/silu.h"
#include "ops/elementwise/unary.h"
#include "ops/elementwise/variadic.h"
#include "ops/elementwise/vectorized.h"
#include "ops/elementwise/where.h"
#include "ops/nn/batch_norm.h"
#include "ops/nn/conv.h"
#include "ops/nn/dropout.h"
#include "ops/nn/global_pool.h"
#include "ops/nn/layer_norm.h"
#include "ops/nn/matmul.h"
#include "ops/nn/pool.h"
#include "ops/nn/softmax.h"
#include "ops/reduce/arg_reduce.h"
#include "ops/reduce/cumsum.h"
#include "ops/reduce/reduce.h"
#include "ops/reduce/topk.h"
#include "ops/shape/concat.h"
#include "ops/shape/flatten.h"
#include "ops/shape/gather.h"
#include "ops/shape/pad.h"
#include "ops/shape/reshape.h"
#include "ops/shape/slice.h"
#include "ops/shape/split.h"
#include "ops/shape/squeeze.h"
#include "ops/shape/transpose.h"
#include "passes/pulse/pulsifier.h"

namespace kiln::passes::pulse {

namespace {

enum class Kind { PerFrame, Layout, Axes, MatMul, Refused };

bool is_elementwise(const Op& op) {
  return dynamic_cast<const ops::Unary*>(&op) || dynamic_cast<const ops::Binary*>(&op) ||
         dynamic_cast<const ops::Variadic*>(&op) || dynamic_cast<const ops::Where*>(&op) ||
         dynamic_cast<const ops::Clip*>(&op) || dynamic_cast<const ops::Cast*>(&op) ||
         dynamic_cast<const ops::Silu*>(&op) || dynamic_cast<const ops::MinMaxF32*>(&op) ||
         dynamic_cast<const ops::UnaryF32*>(&op) || dynamic_cast<const ops::BinaryF32*>(&op);
}

template <typename... T>
bool is_one_of(const Op& op) {
  return (... || (dynamic_cast<const T*>(&op) != nullptr));
}

Kind kind_of(const Op& op) {
  // Pad and Slice reach here only when they leave the stream axis alone (else handled before).
  if (is_elementwise(op) || is_one_of<ops::Identity, ops::Dropout, ops::BatchNorm, ops::Conv,
                                      ops::Pool, ops::Pad, ops::Slice>(op))
    return Kind::PerFrame;
  if (is_one_of<ops::Transpose, ops::Squeeze, ops::Unsqueeze, ops::Reshape, ops::Flatten>(op))
    return Kind::Layout;
  if (is_one_of<ops::Softmax, ops::LayerNorm, ops::Concat, ops::Gather, ops::Split, ops::ArgReduce,
                ops::TopK, ops::CumSum, ops::Reduce>(op))
    return Kind::Axes;
  if (is_one_of<ops::MatMul>(op)) return Kind::MatMul;
  return Kind::Refused;
}

// The axes an op works along, from its printed attributes ("axis" / "axes"); nullopt: unknown.
std::optional<std::vector<int64_t>> op_axes(const Op& op, size_t rank, bool& to_end) {
  to_end = false;
  std::optional<std::vector<int64_t>> axes;
  for (const auto& [k, v] : op.attributes()) {
    if (k == "coerce_2d") to_end = true;
    if (is_one_of<ops::LayerNorm>(op)) to_end = true;
    if (k != "axis" && k != "axes") continue;
    std::vector<int64_t> list;
    std::string cur;
    for (char c : v + ",") {
      if (c == '-' || (c >= '0' && c <= '9')) {
        cur += c;
      } else if (!cur.empty()) {
        list.push_back(std::stoll(cur));
        cur.clear();
      }
    }
    for (auto& a : list) a = a < 0 ? a + static_cast<int64_t>(rank) : a;
    axes = list;
  }
  return axes;
}

}  // namespace

void Pulsifier::generic(const Node& n) {
  const Op& op = *n.op;
  Kind kind = kind_of(op);
  // The stream axis of the first streaming input (messages name it).
  size_t in_axis = 0;
  size_t in_rank = 0;
  for (Outlet in : n.inputs)
    if (in.present() && pfact(in).streaming) {
      in_axis = pfact(in).axis;
      in_rank = src_fact(in).rank();
      break;
    }
  auto whole = [&](const std::string& what) {
    refuse(n, fmt::format("{} works along the stream axis {} ({}): it needs the whole stream, "
                          "which a streaming model never has",
                          what, in_axis, symbol_));
  };
  if (kind == Kind::Refused) {
    if (is_one_of<ops::GlobalPool>(op)) whole(op.name());
    refuse(n, fmt::format("{} is not known to work frame by frame along the stream axis {} ({})",
                          op.name(), in_axis, symbol_));
  }
  if (kind == Kind::Axes) {
    bool to_end = false;
    auto axes = op_axes(op, in_rank, to_end);
    if (!axes) whole(op.name() + " (over all axes)");
    for (int64_t a : *axes) {
      if (a == static_cast<int64_t>(in_axis) || (to_end && a <= static_cast<int64_t>(in_axis))) {
        if (is_one_of<ops::Concat>(op))
          refuse(n, fmt::format("Concat along the stream axis {} ({}) is not supported", in_axis,
                                symbol_));
        whole(op.name());
      }
    }
  }
  if (kind == Kind::MatMul) {
    for (size_t i = 0; i < n.inputs.size(); i++) {
      if (!n.inputs[i].present() || !pfact(n.inputs[i]).streaming) continue;
      const PulsedFact& f = pfact(n.inputs[i]);
      size_t rank = src_fact(n.inputs[i]).rank();
      if (i != 0 || f.axis + 1 >= rank)
        whole("MatMul (the stream axis is contracted or is the B side)");
    }
  }
  // Inputs aligned on the latest delay.
  int64_t delay = 0;
  int64_t pulse = -1;
  Dim full;
  for (Outlet in : n.inputs) {
    if (!in.present() || !pfact(in).streaming) continue;
    const PulsedFact& f = pfact(in);
    delay = std::max(delay, f.delay);
    if (pulse >= 0 && pulse != f.pulse)
      refuse(n, fmt::format("its inputs stream with different pulses ({} and {} frames)", pulse,
                            f.pulse));
    pulse = f.pulse;
    full = f.full;
  }
  std::vector<Outlet> ins;
  for (Outlet in : n.inputs) {
    if (in.present() && pfact(in).streaming)
      ins.push_back(delayed(mapped(in), pfact(in), delay));
    else
      ins.push_back(mapped(in));
  }
  // Checks against the whole-input facts: the op keeps the stream's length, and element-wise
  // ops see the stream on the same (broadcast) axis.
  for (size_t s = 0; s < n.outputs.size(); s++) {
    int axis = stream_axis(n.outputs[s], n);
    if (axis < 0) whole(op.name() + " (its output has no stream axis)");
    if (n.outputs[s].shape[static_cast<size_t>(axis)] != full)
      whole(fmt::format("{} (changes the stream length {} to {})", op.name(), full.to_string(),
                        n.outputs[s].shape[static_cast<size_t>(axis)].to_string()));
    if (kind == Kind::PerFrame || kind == Kind::Axes || kind == Kind::MatMul) {
      size_t out_rank = n.outputs[s].rank();
      for (Outlet in : n.inputs) {
        if (!in.present() || !pfact(in).streaming) continue;
        size_t r = src_fact(in).rank();
        if (pfact(in).axis + (out_rank - std::min(out_rank, r)) != static_cast<size_t>(axis) &&
            kind != Kind::Axes)
          refuse(n, "its inputs' stream axes do not line up with its output's");
      }
    }
    if (kind == Kind::Layout) {
      // The frames must stay whole: same product of the dims before the axis.
      const Fact& in = src_fact(n.inputs[0]);
      Dim before_in = 1, before_out = 1;
      for (size_t i = 0; i < pfact(n.inputs[0]).axis; i++) before_in = before_in * in.shape[i];
      for (size_t i = 0; i < static_cast<size_t>(axis); i++)
        before_out = before_out * n.outputs[s].shape[i];
      if (op.name() != "Transpose" && before_in != before_out)
        whole(op.name() + " (mixes the stream axis with others)");
    }
  }
  int id = add(n.name, n.op, ins, n.outputs.size());
  record(n, id, delay);
  for (size_t s = 0; s < n.outputs.size(); s++) {
    const PulsedFact& f = facts_.at({n.id, static_cast<int>(s)});
    if (f.streaming && f.pulse != pulse)
      refuse(n,
             fmt::format("its output has {} frames per pulse for an input of {}", f.pulse, pulse));
  }
}

}  // namespace kiln::passes::pulse
