// Pulsification of the window ops along the stream axis (Conv, MaxPool / AveragePool / LpPool)
// and of Pad along it: a PulsePad masks the frames outside the stream for the padding, and a
// PulseDelay keeps the `(k-1)·dilation + 1 - stride` frames of overlap the window needs (plus
// the frames that align the stride grid); the op itself runs unpadded on the stream axis.
#include <limits>

#include "base/error.h"
#include "ops/nn/conv.h"
#include "ops/nn/pool.h"
#include "ops/pulse/pulse_pad.h"
#include "ops/shape/pad.h"
#include "ops/shape/slice.h"
#include "passes/pulse/pulsifier.h"

namespace kiln::passes::pulse {

namespace {

// Integer lists as ops print them: "[1,2]" or "1".
std::vector<int64_t> parse_ints(const std::string& text) {
  std::vector<int64_t> out;
  std::string cur;
  for (char c : text + ",") {
    if (c == '-' || (c >= '0' && c <= '9')) {
      cur += c;
    } else if (!cur.empty()) {
      out.push_back(std::stoll(cur));
      cur.clear();
    }
  }
  return out;
}

const std::string* attribute(const Attributes& attrs, const std::string& key) {
  for (const auto& [k, v] : attrs)
    if (k == key) return &v;
  return nullptr;
}
// Op::attributes() returns by value: a pointer into that temporary would dangle (found by the
// full ASan run of the pulse property tests).
const std::string* attribute(Attributes&& attrs, const std::string& key) = delete;

// A window op's geometry and pool options, read back from its attributes.
ops::WindowGeometry geometry_of(const Attributes& attrs) {
  ops::WindowGeometry g;
  if (auto* v = attribute(attrs, "kernel_shape")) g.kernel = parse_ints(*v);
  if (auto* v = attribute(attrs, "strides")) g.strides = parse_ints(*v);
  if (auto* v = attribute(attrs, "dilations")) g.dilations = parse_ints(*v);
  if (auto* v = attribute(attrs, "pads")) g.pads = parse_ints(*v);
  if (auto* v = attribute(attrs, "auto_pad")) g.auto_pad = ops::parse_auto_pad(*v);
  if (attribute(attrs, "ceil_mode")) g.ceil_mode = true;
  return g;
}

ops::Pool::Options pool_options_of(const Attributes& attrs) {
  ops::Pool::Options o;
  if (attribute(attrs, "count_include_pad")) o.count_include_pad = true;
  if (attribute(attrs, "storage_order")) o.storage_order = 1;
  if (auto* v = attribute(attrs, "p")) o.p = std::stof(*v);
  return o;
}

// A Pad's per-axis (begin, end) pads and its constant value: the pads from the attribute or the
// known inputs, the value by running the op on a tensor of ones (padded positions show it).
struct KnownPad {
  std::vector<std::pair<int64_t, int64_t>> pads;
  double value = 0;
};

std::optional<KnownPad> known_pad(const Op& op, const FactRefs& in) {
  const Fact& x = *in.at(0);
  std::vector<int64_t> pads;
  const Attributes attrs = op.attributes();
  if (auto* v = attribute(attrs, "pads")) {
    pads = parse_ints(*v);
  } else {
    if (in.size() < 2 || !in[1]) return std::nullopt;
    auto p = in[1]->known_i64_values();
    if (!p) return std::nullopt;
    pads = *p;
  }
  std::vector<size_t> axes;
  if (in.size() > 3 && in[3]) {
    auto a = in[3]->known_i64_values();
    if (!a) return std::nullopt;
    for (int64_t v : *a) axes.push_back(normalize_axis(v, x.rank(), "Pad"));
  } else {
    for (size_t i = 0; i < x.rank(); i++) axes.push_back(i);
  }
  if (pads.size() != 2 * axes.size()) return std::nullopt;
  KnownPad k;
  k.pads.assign(x.rank(), {0, 0});
  for (size_t i = 0; i < axes.size(); i++) k.pads[axes[i]] = {pads[i], pads[i + axes.size()]};
  // The value: a [1,...,1] tensor of ones padded (by the op itself when its pads are
  // attributes, else by one frame): element 0 is padding when some axis pads at its begin,
  // the last element when some axis pads at its end.
  bool any_begin = false, any = false;
  for (auto [b, e] : k.pads) {
    any_begin = any_begin || b > 0;
    any = any || b > 0 || e > 0;
  }
  if (!any) return k;
  if (x.dt != DatumType::F32) return std::nullopt;
  if (in.size() > 2 && in[2] && !in[2]->value) return std::nullopt;
  Tensor probe(x.dt, Shape(x.rank(), 1));
  probe.data<float>()[0] = 1.0f;
  std::vector<Tensor> outs(1);
  EvalContext ctx(outs);
  if (attribute(attrs, "pads")) {
    op.eval(ctx, {&probe});
  } else {
    std::vector<int64_t> one(2 * x.rank(), 0);
    for (size_t i = 0; i < x.rank(); i++) {
      if (k.pads[i].first > 0) one[i] = 1;
      if (k.pads[i].second > 0) one[i + x.rank()] = 1;
    }
    Tensor pad_t = Tensor::from_vector<int64_t>({static_cast<int64_t>(one.size())}, one);
    TensorRefs refs{&probe, &pad_t};
    if (in.size() > 2 && in[2]) refs.push_back(in[2]->value.get());
    op.eval(ctx, refs);
  }
  const Tensor& o = outs[0];
  k.value = o.data<float>()[any_begin ? 0 : o.numel() - 1];
  return k;
}

// A Slice's (starts, ends, axes, steps) from its attributes or known inputs; axes normalized.
struct KnownSlice {
  std::vector<int64_t> starts, ends, axes, steps;
};

std::optional<KnownSlice> known_slice(const Op& op, const FactRefs& in) {
  KnownSlice k;
  const Attributes attrs = op.attributes();
  if (auto* v = attribute(attrs, "starts")) {
    k.starts = parse_ints(*v);
    if (auto* e = attribute(attrs, "ends")) k.ends = parse_ints(*e);
    if (auto* a = attribute(attrs, "axes")) k.axes = parse_ints(*a);
  } else {
    auto get = [&](size_t i, std::vector<int64_t>& out) {
      if (in.size() <= i || !in[i]) return true;
      auto v = in[i]->known_i64_values();
      if (!v) return false;
      out = *v;
      return true;
    };
    if (!get(1, k.starts) || !get(2, k.ends) || !get(3, k.axes) || !get(4, k.steps))
      return std::nullopt;
  }
  const size_t rank = in.at(0)->rank();
  if (k.axes.empty())
    for (size_t i = 0; i < k.starts.size(); i++) k.axes.push_back(static_cast<int64_t>(i));
  if (k.steps.empty()) k.steps.assign(k.starts.size(), 1);
  if (k.ends.size() != k.starts.size() || k.axes.size() != k.starts.size() ||
      k.steps.size() != k.starts.size())
    return std::nullopt;
  for (auto& a : k.axes) a = static_cast<int64_t>(normalize_axis(a, rank, "Slice"));
  return k;
}

}  // namespace

bool Pulsifier::window(const Node& n) {
  const auto* conv = dynamic_cast<const ops::Conv*>(n.op.get());
  const auto* pool = dynamic_cast<const ops::Pool*>(n.op.get());
  if (!conv && !pool) return false;
  if (pool && pool->kind() == ops::PoolKind::Max && n.outputs.size() > 1 && uses_.used({n.id, 1}))
    refuse(n, "the indices output of MaxPool count positions in the whole stream");
  const PulsedFact& in = pfact(n.inputs[0]);
  for (size_t i = 1; i < n.inputs.size(); i++)
    if (n.inputs[i].present() && pfact(n.inputs[i]).streaming) refuse(n, "its weights stream");
  if (!in.streaming) return false;
  const Fact& x = src_fact(n.inputs[0]);
  if (in.axis == 1) refuse(n, "the stream axis is its channel axis 1");
  if (in.axis == 0) return false;  // batch axis: every item on its own
  const size_t spatial = x.rank() - 2;
  const size_t a = in.axis - 2;
  std::vector<int64_t> kernel_dims;
  if (conv) kernel_dims = ops::weight_kernel_dims(src_fact(n.inputs[1]), n.name);
  ops::WindowGeometry geo =
      geometry_of(n.op->attributes()).complete(spatial, n.op->name(), kernel_dims);
  if (geo.auto_pad == ops::AutoPad::SameUpper || geo.auto_pad == ops::AutoPad::SameLower)
    refuse(n, "auto_pad SAME along the stream axis (give explicit pads)");
  const int64_t K = geo.effective_kernel(a);
  const int64_t s = geo.strides[a];
  const int64_t pl = geo.pads[a], pr = geo.pads[a + spatial];
  if (K == 1 && s == 1 && pl == 0 && pr == 0) return false;  // frame by frame
  if (geo.ceil_mode) refuse(n, "ceil_mode along the stream axis");
  double pad_value = 0;
  if (pool && pool->kind() == ops::PoolKind::Max)
    pad_value = -std::numeric_limits<float>::infinity();
  const ops::Pool::Options pool_options = pool_options_of(n.op->attributes());
  if (pool && pool->kind() == ops::PoolKind::Average && !pool_options.count_include_pad &&
      (pl || pr))
    refuse(n,
           "AveragePool with count_include_pad=0 and padding along the stream axis (its "
           "divisor changes at the stream's edges)");
  if (in.pulse % s != 0)
    refuse(n, fmt::format("its stride {} along the stream axis needs pulses of a multiple of {} "
                          "frames here, got {}: P must be a multiple of {}",
                          s, s, in.pulse, pulse_ / in.pulse * s));
  Outlet cur = mapped(n.inputs[0]);
  PulsedFact f = in;
  if (pl || pr) {
    if (f.delay < 0) {
      cur = delayed(cur, f, 0);
      f.delay = 0;
    }
    int id = add(n.name + ".pad",
                 std::make_shared<ops::PulsePad>(f.axis, pl, pr, f.delay, f.full + Dim(f.delay),
                                                 symbol_, pad_value),
                 {cur, length_input()});
    cur = {id, 0};
    f.delay -= pl;
    f.full = f.full + Dim(pl + pr);
    f.pad_value = pad_value;
    pulsed_facts_[cur] = f;
  }
  // Delay line: `overlap` frames of the past, and `extra` frames so that the window's first
  // frame lies on the stride grid and the output does not run ahead of the stream.
  const int64_t overlap = std::max<int64_t>(0, K - s);
  int64_t extra = std::max<int64_t>(0, -(f.delay + overlap));
  extra += (s - (f.delay + extra + overlap) % s) % s;
  const int64_t lag = f.delay + extra + overlap;  // in input frames, a multiple of s
  if (extra || overlap) cur = delayed(cur, f, f.delay + extra, overlap, n.name);
  ops::WindowGeometry unpadded = geo;
  unpadded.pads[a] = 0;
  unpadded.pads[a + spatial] = 0;
  unpadded.auto_pad = ops::AutoPad::NotSet;
  OpPtr op = conv ? OpPtr(std::make_shared<ops::Conv>(unpadded, conv->group()))
                  : OpPtr(std::make_shared<ops::Pool>(pool->kind(), unpadded, pool_options));
  std::vector<Outlet> ins{cur};
  for (size_t i = 1; i < n.inputs.size(); i++) ins.push_back(mapped(n.inputs[i]));
  int id = add(n.name, op, ins, n.outputs.size());
  record(n, id, lag / s);
  const PulsedFact& out = pfact({n.id, 0});
  if (!out.streaming || out.pulse != in.pulse / s)
    refuse(n, fmt::format("internal: pulsed output has {} frames, expected {}", out.pulse,
                          in.pulse / s));
  return true;
}

bool Pulsifier::pad(const Node& n) {
  const auto* op = dynamic_cast<const ops::Pad*>(n.op.get());
  if (!op) return false;
  const PulsedFact& in = pfact(n.inputs[0]);
  if (!in.streaming) return false;
  FactRefs facts;
  for (Outlet o : n.inputs) facts.push_back(o.present() ? &src_fact(o) : nullptr);
  if (n.op->attributes().at(0).second != "constant")
    refuse(n,
           "only constant padding works along the stream axis (edge / reflect / wrap need "
           "frames of the stream's other end)");
  auto known = known_pad(*op, facts);
  if (!known) refuse(n, "its pads are not known before running (or it pads another type than f32)");
  auto [pl, pr] = known->pads.at(in.axis);
  if (pl == 0 && pr == 0) return false;  // other axes only: frame by frame
  if (pl < 0 || pr < 0) refuse(n, "negative pads (cropping) along the stream axis");
  Outlet cur = mapped(n.inputs[0]);
  PulsedFact f = in;
  if (f.delay < 0) {
    cur = delayed(cur, f, 0);
    f.delay = 0;
  }
  // Pads along the other axes stay a Pad.
  bool others = false;
  for (size_t i = 0; i < known->pads.size(); i++)
    if (i != in.axis && (known->pads[i].first || known->pads[i].second)) others = true;
  if (others) {
    std::vector<int64_t> pads(2 * known->pads.size(), 0);
    for (size_t i = 0; i < known->pads.size(); i++) {
      if (i == in.axis) continue;
      pads[i] = known->pads[i].first;
      pads[i + known->pads.size()] = known->pads[i].second;
    }
    int id = add(n.name + ".other_axes",
                 std::make_shared<ops::Pad>(ops::PadMode::Constant, pads, known->value), {cur});
    cur = {id, 0};
    pulsed_facts_[cur] = f;
  }
  int id = add(n.name,
               std::make_shared<ops::PulsePad>(f.axis, pl, pr, f.delay, f.full + Dim(f.delay),
                                               symbol_, known->value),
               {cur, length_input()});
  record(n, id, f.delay - pl);
  PulsedFact& out = facts_.at({n.id, 0});
  out.pad_value = known->value;
  pulsed_facts_[{id, 0}] = out;
  return true;
}

bool Pulsifier::slice(const Node& n) {
  const auto* op = dynamic_cast<const ops::Slice*>(n.op.get());
  if (!op) return false;
  const PulsedFact& in = pfact(n.inputs[0]);
  if (!in.streaming) return false;
  for (size_t i = 1; i < n.inputs.size(); i++)
    if (n.inputs[i].present() && pfact(n.inputs[i]).streaming) refuse(n, "its bounds stream");
  FactRefs facts;
  for (Outlet o : n.inputs) facts.push_back(o.present() ? &src_fact(o) : nullptr);
  auto params = known_slice(*op, facts);
  if (!params) refuse(n, "its bounds are not known before running");
  size_t k = params->axes.size();
  for (size_t i = 0; i < params->axes.size(); i++)
    if (params->axes[i] == static_cast<int64_t>(in.axis)) k = i;
  if (k == params->axes.size()) return false;  // other axes only: frame by frame
  if (params->axes.size() != 1)
    refuse(n, "a Slice of the stream axis together with other axes (split it in two)");
  if (params->steps[k] != 1)
    refuse(n, fmt::format("a Slice with step {} along the stream axis", params->steps[k]));
  if (params->starts[k] < 0)
    refuse(n, "a Slice starting from the stream's end (negative start) needs the whole stream");
  Outlet cur = mapped(n.inputs[0]);
  PulsedFact f = in;
  if (f.delay < 0) {
    cur = delayed(cur, f, 0);
    f.delay = 0;
  }
  // Frame j of the slice is frame j + start of its input: the same pulses, `start` frames
  // more delay. Frames past the slice's end are never asked for.
  wire_[{n.id, 0}] = cur;
  PulsedFact out = f;
  out.delay = f.delay + params->starts[k];
  out.full = n.outputs[0].shape[in.axis];
  facts_[{n.id, 0}] = out;
  return true;
}

}  // namespace kiln::passes::pulse
