// NNEF serializers of the recurrent ops: LSTM, GRU and RNN as kiln_core_lstm / kiln_core_gru /
// kiln_core_rnn (the ONNX inputs by name, absent ones omitted; the ONNX attributes), and their
// streaming form PulsedRecurrent as kiln_pulse_lstm / _gru / _rnn: the same parameters plus the
// warm-up frames not fed into the carried state (docs/streaming.md).
#include "io/nnef/serializer_util.h"
#include "ops/pulse/pulsed_recurrent.h"
#include "ops/recurrent/gru.h"
#include "ops/recurrent/lstm.h"
#include "ops/recurrent/rnn.h"

namespace kiln::nnef::ser {

namespace {

std::string string_list(const std::vector<std::string>& v) {
  std::string out = "[";
  for (size_t i = 0; i < v.size(); i++) out += (i ? ", " : "") + nnef_string(v[i]);
  return out + "]";
}

std::string real_list(const std::vector<float>& v) {
  std::string out = "[";
  for (size_t i = 0; i < v.size(); i++) out += (i ? ", " : "") + nnef_real(v[i]);
  return out + "]";
}

bool attribute_set(const Op& op, const std::string& key) {
  for (const auto& [k, v] : op.attributes())
    if (k == key) return v != "0";
  return false;
}

// The fragment suffix of a recurrent op ("lstm", "gru", "rnn"); empty for other ops.
std::string recurrent_kind(const Op& op) {
  if (dynamic_cast<const ops::Lstm*>(&op)) return "lstm";
  if (dynamic_cast<const ops::Gru*>(&op)) return "gru";
  if (dynamic_cast<const ops::Rnn*>(&op)) return "rnn";
  return "";
}

// `fragment`(inputs by name, attributes`extra`) for all outputs of `n`, `op` being n's recurrent
// op (or the one it wraps).
void write_recurrent_call(Ctx& c, const Node& n, const ops::RecurrentOp& op,
                          const std::string& kind, const std::string& fragment,
                          const std::string& extra) {
  const auto& cfg = op.config();
  static const char* names[] = {"x", "w", "r", "b", "sequence_lens", "initial_h", "initial_c", "p"};
  const size_t max_inputs = kind == "lstm" ? 8 : 6;
  std::string args;
  for (size_t i = 0; i < n.inputs.size() && i < max_inputs; i++)
    if (has_input(n, i))
      args += fmt::format("{}{} = {}", args.empty() ? "" : ", ", names[i], c.identifier(in(n, i)));
  std::vector<std::string> acts;
  std::vector<float> alphas, betas;
  for (const auto& a : cfg.activations) {
    std::string s = a.to_string();
    acts.push_back(s.substr(0, s.find('(')));
    if (ops::Activation::uses_alpha(a.kind)) alphas.push_back(a.alpha);
    if (ops::Activation::uses_beta(a.kind)) betas.push_back(a.beta);
  }
  const char* dir = cfg.direction == ops::RnnDirection::Forward   ? "forward"
                    : cfg.direction == ops::RnnDirection::Reverse ? "reverse"
                                                                  : "bidirectional";
  std::string specific;
  if (kind == "lstm")
    specific =
        fmt::format("input_forget = {}, ", attribute_set(op, "input_forget") ? "true" : "false");
  if (kind == "gru")
    specific = fmt::format("linear_before_reset = {}, ",
                           attribute_set(op, "linear_before_reset") ? "true" : "false");
  c.assign_all(n,
               fmt::format("{}({}, direction = '{}', hidden_size = {}, activations = {}, "
                           "activation_alpha = {}, activation_beta = {}, clip = {}, "
                           "{}layout = {}, outputs = {}{})",
                           fragment, args, dir, cfg.hidden_size.value_or(0), string_list(acts),
                           real_list(alphas), real_list(betas), nnef_real(cfg.clip.value_or(0.0f)),
                           specific, cfg.layout, n.outputs.size(), extra));
}

bool write_recurrent(Ctx& c, const Node& n) {
  const std::string kind = recurrent_kind(*n.op);
  c.use_extension("kiln_registry kiln_core", n.op->name());
  write_recurrent_call(c, n, op_as<ops::RecurrentOp>(n), kind, "kiln_core_" + kind, "");
  return true;
}

bool write_pulsed_recurrent(Ctx& c, const Node& n) {
  const auto& op = op_as<ops::PulsedRecurrent>(n);
  const std::string kind = recurrent_kind(op.inner());
  if (kind.empty()) {
    // A kernel form (LstmPacked) appears only after the optimize stage, which is never written.
    c.unsupported(n, "wraps " + op.inner().name());
    return true;
  }
  c.use_extension("kiln_registry kiln_pulse", "PulsedRecurrent");
  write_recurrent_call(c, n, static_cast<const ops::RecurrentOp&>(op.inner()), kind,
                       "kiln_pulse_" + kind, fmt::format(", warmup = {}", op.warmup()));
  return true;
}

}  // namespace

void register_recurrent_serializers(std::map<std::string, Serializer>& s) {
  s["LSTM"] = write_recurrent;
  s["GRU"] = write_recurrent;
  s["RNN"] = write_recurrent;
  s["PulsedRecurrent"] = write_pulsed_recurrent;
}

}  // namespace kiln::nnef::ser
