// NNEF primitives of the recurrent ops: kiln_core_lstm / kiln_core_gru / kiln_core_rnn (the ONNX
// ops; optional inputs left out or given as [] are absent) and their streaming forms
// kiln_pulse_lstm / _gru / _rnn (a PulsedRecurrent around the op, `warmup` frames not fed into
// the carried state).
#include "io/nnef/primitive_util.h"
#include "ops/pulse/pulsed_recurrent.h"
#include "ops/recurrent/gru.h"
#include "ops/recurrent/lstm.h"
#include "ops/recurrent/rnn.h"

namespace kiln::nnef::prim {

namespace {

enum class Kind { Lstm, Gru, Rnn };

std::vector<Outlet> recurrent_inputs(Builder& b, const Args& a, Kind kind) {
  std::vector<Outlet> inputs;
  static const char* names[] = {"x", "w", "r", "b", "sequence_lens", "initial_h", "initial_c", "p"};
  const size_t count = kind == Kind::Lstm ? 8 : 6;
  for (size_t i = 0; i < count; i++) {
    const Value& v = a.get(names[i]);
    bool absent = v.kind == Value::Kind::Array && v.items.empty();
    inputs.push_back(absent ? Outlet{} : a.tensor(b, names[i]));
  }
  while (!inputs.empty() && !inputs.back().present()) inputs.pop_back();
  return inputs;
}

OpPtr recurrent_op(const Args& a, Kind kind) {
  ops::RecurrentConfig cfg;
  cfg.direction = ops::parse_rnn_direction(a.string("direction"));
  if (a.integer("hidden_size") > 0) cfg.hidden_size = a.integer("hidden_size");
  std::vector<std::string> names;
  for (const auto& v : a.get("activations").items) {
    KILN_ENSURE(v.kind == Value::Kind::String, "{}: activations must be strings", a.op());
    names.push_back(v.string);
  }
  std::vector<float> alphas, betas;
  for (double x : a.reals("activation_alpha")) alphas.push_back(static_cast<float>(x));
  for (double x : a.reals("activation_beta")) betas.push_back(static_cast<float>(x));
  if (!names.empty()) cfg.activations = ops::Activation::from_onnx(names, alphas, betas);
  if (a.real("clip") > 0) cfg.clip = static_cast<float>(a.real("clip"));
  cfg.layout = a.integer("layout");
  KILN_ENSURE(cfg.layout == 0 || cfg.layout == 1, "{}: layout must be 0 or 1, got {}", a.op(),
              cfg.layout);
  switch (kind) {
    case Kind::Lstm:
      return std::make_shared<ops::Lstm>(cfg, a.boolean("input_forget"));
    case Kind::Gru:
      return std::make_shared<ops::Gru>(cfg, a.boolean("linear_before_reset"));
    case Kind::Rnn:
      return std::make_shared<ops::Rnn>(cfg);
  }
  fail("{}: unknown recurrent kind", a.op());
}

V add_recurrent(Builder& b, const Args& a, Kind kind, bool pulsed) {
  const int64_t max_outputs = kind == Kind::Lstm ? 3 : 2;
  const int64_t n = a.integer("outputs");
  KILN_ENSURE(n >= 1 && n <= max_outputs, "{}: outputs must be 1 to {}, got {}", a.op(),
              max_outputs, n);
  OpPtr op = recurrent_op(a, kind);
  if (pulsed) {
    const int64_t warmup = a.integer("warmup");
    KILN_ENSURE(warmup >= 0 && warmup <= (int64_t{1} << 24), "{}: warmup {} out of range", a.op(),
                warmup);
    op = std::make_shared<ops::PulsedRecurrent>(op, kind == Kind::Lstm ? 2 : 1, warmup);
  }
  auto outs = b.add_multi(op, recurrent_inputs(b, a, kind), size_t(n));
  V items;
  for (auto o : outs) items.push_back(Value::tensor(o));
  return {Value::array(items)};
}

}  // namespace

void register_recurrent_primitives(std::map<std::string, Primitive>& p) {
  for (auto [name, kind] :
       {std::pair{"lstm", Kind::Lstm}, {"gru", Kind::Gru}, {"rnn", Kind::Rnn}}) {
    const Kind k = kind;
    p[std::string("kiln_core_") + name] = [k](Builder& b, const Args& a) {
      return add_recurrent(b, a, k, false);
    };
    p[std::string("kiln_pulse_") + name] = [k](Builder& b, const Args& a) {
      return add_recurrent(b, a, k, true);
    };
  }
}

}  // namespace kiln::nnef::prim
