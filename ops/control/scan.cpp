#include "ops/control/scan.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "base/error.h"
#include "core/graph_cost.h"
#include "core/run_limits.h"

namespace kiln::ops {

namespace {

std::string join(const std::vector<int64_t>& v) {
  std::string s;
  for (auto x : v) s += (s.empty() ? "" : ",") + std::to_string(x);
  return s;
}

int64_t at_or(const std::vector<int64_t>& v, size_t i, int64_t dflt) {
  return i < v.size() ? v[i] : dflt;
}

void zero_fill(Tensor& t) {
  if (t.dtype() == DatumType::String) {
    for (auto& s : t.values_mut<std::string>()) s.clear();
  } else {
    std::memset(t.raw_data(), 0, t.nbytes());
  }
}

}  // namespace

Scan::Scan(GraphPtr body, ScanConfig config)
    : body_(body), config_(std::move(config)), runner_(body) {
  size_t n = config_.num_states, m = config_.num_scan_inputs;
  KILN_ENSURE(m >= 1, "Scan: num_scan_inputs must be at least 1");
  KILN_ENSURE(body_->inputs().size() >= n + m, "Scan: body has {} inputs, needs at least {}",
              body_->inputs().size(), n + m);
  KILN_ENSURE(body_->outputs().size() >= n, "Scan: body has {} outputs, needs at least {}",
              body_->outputs().size(), n);
  KILN_ENSURE(config_.input_axes.empty() || config_.input_axes.size() == m,
              "Scan: scan_input_axes has {} entries for {} scan inputs", config_.input_axes.size(),
              m);
  KILN_ENSURE(config_.input_directions.empty() || config_.input_directions.size() == m,
              "Scan: scan_input_directions has {} entries for {} scan inputs",
              config_.input_directions.size(), m);
  size_t k = body_->outputs().size() - n;
  KILN_ENSURE(config_.output_axes.empty() || config_.output_axes.size() == k,
              "Scan: scan_output_axes has {} entries for {} scan outputs",
              config_.output_axes.size(), k);
  KILN_ENSURE(config_.output_directions.empty() || config_.output_directions.size() == k,
              "Scan: scan_output_directions has {} entries for {} scan outputs",
              config_.output_directions.size(), k);
  KILN_ENSURE(!config_.batched || config_.output_axes.empty(),
              "Scan: opset 8 has no scan_output_axes");
}

Attributes Scan::attributes() const {
  Attributes a{{"num_scan_inputs", std::to_string(config_.num_scan_inputs)}};
  if (config_.batched) a.push_back({"batched", "1"});
  if (!config_.input_axes.empty()) a.push_back({"scan_input_axes", join(config_.input_axes)});
  if (!config_.input_directions.empty())
    a.push_back({"scan_input_directions", join(config_.input_directions)});
  if (!config_.output_axes.empty()) a.push_back({"scan_output_axes", join(config_.output_axes)});
  if (!config_.output_directions.empty())
    a.push_back({"scan_output_directions", join(config_.output_directions)});
  return a;
}

std::vector<Fact> Scan::body_input_facts(const FactRefs& inputs, Dim& seq, Dim& batch) const {
  const size_t n = config_.num_states, m = config_.num_scan_inputs;
  const size_t captures = runner_.num_inputs() - n - m;
  const size_t base = first_input();
  expect_inputs(name(), inputs.size(), base + n + m + captures,
                static_cast<long>(base + n + m + captures));
  std::vector<Fact> facts;
  batch = 0;
  for (size_t i = 0; i < n; i++) {
    Fact f = without_value(required(inputs, base + i, name()));
    if (config_.batched) {
      KILN_ENSURE(f.rank() >= 1, "Scan: batched state {} needs a batch axis", i);
      batch = f.shape[0];
      f.shape.erase(f.shape.begin());
    }
    facts.push_back(std::move(f));
  }
  seq = 0;
  for (size_t j = 0; j < m; j++) {
    Fact f = without_value(required(inputs, base + n + j, name()));
    if (config_.batched) {
      KILN_ENSURE(f.rank() >= 2, "Scan: batched scan input {} needs batch and sequence axes", j);
      batch = f.shape[0];
      f.shape.erase(f.shape.begin());
    }
    size_t axis = normalize_axis(at_or(config_.input_axes, j, 0), f.rank(), "Scan input axis");
    if (j == 0) seq = f.shape[axis];
    f.shape.erase(f.shape.begin() + static_cast<long>(axis));
    facts.push_back(std::move(f));
  }
  for (size_t c = 0; c < captures; c++) facts.push_back(required(inputs, base + n + m + c, name()));
  return facts;
}

Cost Scan::cost(const FactRefs& inputs) const {
  Dim seq, batch;
  std::vector<Fact> facts = body_input_facts(inputs, seq, batch);
  Cost body = graph_cost(*runner_.analysed_graph(facts));
  return scale_cost(body, config_.batched ? seq * batch : seq);
}

std::vector<Fact> Scan::output_facts(const FactRefs& inputs) const {
  const size_t n = config_.num_states;
  Dim seq, batch;
  std::vector<Fact> facts = body_input_facts(inputs, seq, batch);
  std::vector<Fact> body_out;
  for (int attempt = 0;; attempt++) {
    body_out = runner_.analyse(facts);
    bool stable = true;
    for (size_t i = 0; i < n; i++) {
      Fact merged = merge_facts(facts[i], body_out[i],
                                fmt::format("Scan: state {} changes between iterations", i));
      if (!merged.same_type_and_shape(facts[i])) {
        facts[i] = merged;
        stable = false;
      }
    }
    if (stable) break;
    KILN_ENSURE(attempt < 3, "Scan: state shapes do not settle");
  }
  std::vector<Fact> out;
  for (size_t i = 0; i < n; i++) {
    Fact f = facts[i];
    if (config_.batched) f.shape.insert(f.shape.begin(), batch);
    out.push_back(std::move(f));
  }
  for (size_t k = 0; k < num_scan_outputs(); k++) {
    Fact f = without_value(body_out[n + k]);
    size_t axis =
        normalize_axis(at_or(config_.output_axes, k, 0), f.rank() + 1, "Scan output axis");
    f.shape.insert(f.shape.begin() + static_cast<long>(axis), seq);
    if (config_.batched) f.shape.insert(f.shape.begin(), batch);
    out.push_back(std::move(f));
  }
  return out;
}

void Scan::scan_one(SubgraphRunner::Runs& runs, const BodyTiming& timing,
                    const std::vector<Tensor>& states, const std::vector<Tensor>& scan_inputs,
                    const std::vector<Tensor>& captures, int64_t length, int64_t total,
                    std::vector<Tensor>& final_states, std::vector<Tensor>& scan_outputs) const {
  const size_t n = config_.num_states, m = config_.num_scan_inputs;
  const size_t k_out = num_scan_outputs();
  std::vector<Tensor> args(runner_.num_inputs());
  for (size_t i = 0; i < n; i++) args[i] = states[i];
  for (size_t c = 0; c < captures.size(); c++) args[n + m + c] = captures[c];
  std::vector<size_t> in_axes(m);
  for (size_t j = 0; j < m; j++)
    in_axes[j] =
        normalize_axis(at_or(config_.input_axes, j, 0), scan_inputs[j].rank(), "Scan input axis");
  scan_outputs.assign(k_out, Tensor());
  for (int64_t t = 0; t < length; t++) {
    check_deadline("Scan");  // --timeout (core/run_limits.h)
    for (size_t j = 0; j < m; j++) {
      int64_t idx = at_or(config_.input_directions, j, 0) ? length - 1 - t : t;
      args[n + j] = take_along(scan_inputs[j], in_axes[j], idx);
    }
    auto outs = runner_.run(runs, args, timing);
    for (size_t i = 0; i < n; i++) args[i] = outs[i];
    for (size_t k = 0; k < k_out; k++) {
      const Tensor& slice = outs[n + k];
      size_t axis =
          normalize_axis(at_or(config_.output_axes, k, 0), slice.rank() + 1, "Scan output axis");
      if (scan_outputs[k].is_null()) {
        Shape shape = slice.shape();
        shape.insert(shape.begin() + static_cast<long>(axis), total);
        scan_outputs[k] = Tensor(slice.dtype(), shape);
        if (length < total) zero_fill(scan_outputs[k]);
      }
      int64_t pos = at_or(config_.output_directions, k, 0) ? length - 1 - t : t;
      put_along(scan_outputs[k], axis, pos, slice);
    }
  }
  final_states.assign(args.begin(), args.begin() + static_cast<long>(n));
}

std::unique_ptr<OpState> Scan::make_state(const FactRefs&) const {
  return std::make_unique<BodyStates>(1);
}

void Scan::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  SubgraphRunner::Runs& runs = ctx.op_state<BodyStates>(*this).at(0);
  const BodyTiming timing = ctx.body_timing(0);
  const size_t n = config_.num_states, m = config_.num_scan_inputs;
  const size_t captures = runner_.num_inputs() - n - m;
  const size_t base = first_input();
  KILN_ENSURE(inputs.size() == base + n + m + captures, "Scan: expects {} inputs, got {}",
              base + n + m + captures, inputs.size());
  std::vector<Tensor> states, scans, caps;
  for (size_t i = 0; i < n; i++) states.push_back(required(inputs, base + i, name()));
  for (size_t j = 0; j < m; j++) scans.push_back(required(inputs, base + n + j, name()));
  for (size_t c = 0; c < captures; c++) caps.push_back(required(inputs, base + n + m + c, name()));
  const size_t k_out = num_scan_outputs();
  auto empty_output = [&](size_t k, int64_t batch) {
    // No iteration ran: the slice shape comes from analysing the body.
    std::vector<Fact> facts;
    const size_t strip = config_.batched ? 1 : 0;
    for (size_t i = 0; i < n + m; i++) {
      const Tensor& t = i < n ? states[i] : scans[i - n];
      Shape shape(t.shape().begin() + static_cast<long>(std::min(strip, t.rank())),
                  t.shape().end());
      if (i >= n && !shape.empty()) {
        size_t a = normalize_axis(at_or(config_.input_axes, i - n, 0), shape.size(), "Scan axis");
        shape.erase(shape.begin() + static_cast<long>(a));
      }
      facts.emplace_back(t.dtype(), shape);
    }
    for (const auto& t : caps) facts.emplace_back(t.dtype(), t.shape());
    const Fact f = runner_.analyse(facts)[n + k];
    Shape shape;
    for (const auto& d : f.shape) shape.push_back(d.as_int().value_or(0));
    size_t axis = normalize_axis(at_or(config_.output_axes, k, 0), shape.size() + 1, "Scan axis");
    shape.insert(shape.begin() + static_cast<long>(axis), 0);
    if (config_.batched) shape.insert(shape.begin(), batch);
    return Tensor(f.dt, shape);
  };
  if (!config_.batched) {
    size_t axis = normalize_axis(at_or(config_.input_axes, 0, 0), scans[0].rank(), "Scan axis");
    int64_t seq = scans[0].dim(axis);
    for (size_t j = 1; j < m; j++) {
      size_t a = normalize_axis(at_or(config_.input_axes, j, 0), scans[j].rank(), "Scan axis");
      KILN_ENSURE(scans[j].dim(a) == seq, "Scan: scan input {} has length {}, input 0 has {}", j,
                  scans[j].dim(a), seq);
    }
    std::vector<Tensor> final_states, outs;
    scan_one(runs, timing, states, scans, caps, seq, seq, final_states, outs);
    for (size_t i = 0; i < n && i < ctx.num_outputs(); i++) ctx.set_output(i, final_states[i]);
    for (size_t k = 0; k < k_out && n + k < ctx.num_outputs(); k++)
      ctx.set_output(n + k, outs[k].is_null() ? empty_output(k, 0) : outs[k]);
    return;
  }
  // Opset 8: one independent scan per batch item.
  KILN_ENSURE(scans[0].rank() >= 2, "Scan: batched scan inputs need batch and sequence axes");
  const int64_t batch = scans[0].dim(0);
  const int64_t seq = scans[0].dim(1);
  // Lengths only when given (a vector of `batch` copies of seq was 16 GB for an empty input
  // declaring a batch of 2^31).
  std::vector<int64_t> lens;
  if (inputs[0]) {
    lens = inputs[0]->to_i64_vector();
    KILN_ENSURE(static_cast<int64_t>(lens.size()) == batch,
                "Scan: sequence_lens has {} entries for batch {}", lens.size(), batch);
    for (auto l : lens)
      KILN_ENSURE(l >= 0 && l <= seq, "Scan: sequence length {} out of range [0, {}]", l, seq);
  }
  for (const auto& t : states)
    KILN_ENSURE(t.rank() >= 1 && t.dim(0) == batch, "Scan: state batch size must be {}", batch);
  for (const auto& t : scans)
    KILN_ENSURE(t.rank() >= 2 && t.dim(0) == batch && t.dim(1) == seq,
                "Scan: scan inputs must be [{}, {}, ...], got [{}]", batch, seq,
                shape_to_string(t.shape()));
  std::vector<Tensor> out_states(n), out_scans(k_out);
  for (int64_t b = 0; b < batch; b++) {
    check_deadline("running a batched Scan");  // --timeout, per batch item as per iteration
    std::vector<Tensor> s, x, final_states, outs;
    for (const auto& t : states) s.push_back(take_along(t, 0, b));
    for (const auto& t : scans) x.push_back(take_along(t, 0, b));
    scan_one(runs, timing, s, x, caps, lens.empty() ? seq : lens[static_cast<size_t>(b)], seq,
             final_states, outs);
    for (size_t i = 0; i < n; i++) {
      if (out_states[i].is_null()) {
        Shape shape = final_states[i].shape();
        shape.insert(shape.begin(), batch);
        out_states[i] = Tensor(final_states[i].dtype(), shape);
      }
      put_along(out_states[i], 0, b, final_states[i]);
    }
    for (size_t k = 0; k < k_out; k++) {
      if (outs[k].is_null()) continue;
      if (out_scans[k].is_null()) {
        Shape shape = outs[k].shape();
        shape.insert(shape.begin(), batch);
        out_scans[k] = Tensor(outs[k].dtype(), shape);
      }
      put_along(out_scans[k], 0, b, outs[k]);
    }
  }
  for (size_t i = 0; i < n && i < ctx.num_outputs(); i++) {
    if (out_states[i].is_null()) out_states[i] = Tensor(states[i].dtype(), states[i].shape());
    ctx.set_output(i, out_states[i]);
  }
  for (size_t k = 0; k < k_out && n + k < ctx.num_outputs(); k++)
    ctx.set_output(n + k, out_scans[k].is_null() ? empty_output(k, batch) : out_scans[k]);
}

}  // namespace kiln::ops
