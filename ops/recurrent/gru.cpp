#include "ops/recurrent/gru.h"

#include "ops/recurrent/gru_packed.h"

namespace kiln::ops {

std::vector<Activation> Gru::default_activations() const {
  return Activation::from_onnx({"Sigmoid", "Tanh"}, {}, {});
}

OpPtr Gru::codegen(const FactRefs& inputs) const {
  auto at = [&](size_t i) -> const Fact* { return i < inputs.size() ? inputs[i] : nullptr; };
  const Fact *x = at(0), *w = at(1), *r = at(2), *b = at(3);
  if (!x || !w || !r || x->dt != DatumType::F32 || x->rank() != 3) return nullptr;
  if (!w->value || !r->value || (b && !b->value) || at(4) || config().clip) return nullptr;
  if (!config().activations.empty()) {
    auto defaults = default_activations();
    for (size_t i = 0; i < config().activations.size(); i++) {
      if (config().activations[i].kind != defaults[i % defaults.size()].kind) return nullptr;
    }
  }
  if (w->value->dtype() != DatumType::F32 || r->value->dtype() != DatumType::F32) return nullptr;
  if (w->value->rank() != 3 || r->value->rank() != 3 || !x->shape[2].is_int() ||
      x->shape[2].to_int() != w->value->dim(2)) {
    return nullptr;
  }
  const int64_t hidden = r->value->dim(2);
  if (w->value->dim(1) != 3 * hidden || r->value->dim(1) != 3 * hidden) return nullptr;
  if (b && (b->value->rank() != 2 || b->value->dim(1) != 6 * hidden)) return nullptr;
  if (static_cast<size_t>(w->value->dim(0)) != num_directions()) return nullptr;
  if (config().hidden_size && *config().hidden_size != hidden) return nullptr;
  return std::make_shared<GruPacked>(std::make_shared<Gru>(*this), *w->value, *r->value,
                                     b ? b->value.get() : nullptr);
}

void Gru::step(const RnnStep& s) const {
  const int64_t H = s.hidden;
  double* z = s.scratch;
  double* r = s.scratch + H;
  double* cand = s.scratch + 2 * H;
  const Activation &f = s.acts[0], &g = s.acts[1];
  for (int64_t k = 0; k < 2 * H; k++) {
    const double* row = s.r + k * H;
    double sum = s.xw[k] + s.rb[k];
    for (int64_t j = 0; j < H; j++) sum += row[j] * s.h[j];
    s.scratch[k] = act(f, sum);
  }
  for (int64_t k = 0; k < H; k++) {
    const double* row = s.r + (2 * H + k) * H;
    double rec = 0;
    if (linear_before_reset_) {
      for (int64_t j = 0; j < H; j++) rec += row[j] * s.h[j];
      rec = r[k] * (rec + s.rb[2 * H + k]);
    } else {
      for (int64_t j = 0; j < H; j++) rec += row[j] * (r[j] * s.h[j]);
      rec += s.rb[2 * H + k];
    }
    cand[k] = act(g, s.xw[2 * H + k] + rec);
  }
  for (int64_t k = 0; k < H; k++) s.h[k] = (1.0 - z[k]) * cand[k] + z[k] * s.h[k];
}

}  // namespace kiln::ops
