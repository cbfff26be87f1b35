// Shared machinery of the ONNX recurrent ops (RNN, GRU, LSTM): attribute handling, shape
// inference, directions, layouts, sequence lengths and the time loop. Each op supplies its
// cell (one time step for one batch item).
//
// The input projection X·W^T + Wb of every time step is computed in one pass before the time
// loop ("hoisting"), so the loop itself only does the recurrent H·R^T product.
#pragma once

#include <optional>
#include <vector>

#include "core/op.h"
#include "ops/recurrent/activation.h"

namespace kiln::ops {

enum class RnnDirection { Forward, Reverse, Bidirectional };

struct RecurrentConfig {
  RnnDirection direction = RnnDirection::Forward;
  std::optional<int64_t> hidden_size;
  // Activations of every direction, one block per direction (a single block is used for both
  // directions of a bidirectional op). Empty: the op's defaults.
  std::vector<Activation> activations;
  std::optional<float> clip;
  int64_t layout = 0;  // 0: [seq, batch, ...]; 1: [batch, seq, ...]
};

// Parses "forward" / "reverse" / "bidirectional"; throws on other names.
RnnDirection parse_rnn_direction(const std::string& text);

// What a cell needs for one time step of one batch item. Vectors are in gate-major order, as in
// the ONNX weights.
struct RnnStep {
  const double* xw;  // X·W^T + Wb for this step: gates*H
  const double* r;   // recurrent weights of this direction: [gates*H, H]
  const double* rb;  // recurrent bias: gates*H
  const double* p;   // LSTM peepholes [3H] (i, o, f) or nullptr
  const Activation* acts;
  double* h;        // hidden state, updated in place: H
  double* c;        // cell state (LSTM), updated in place: H
  double* scratch;  // gates*H
  int64_t hidden;
};

class RecurrentOp : public Op {
 public:
  explicit RecurrentOp(RecurrentConfig config);
  Attributes attributes() const override;
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs& inputs) const override;
  const RecurrentConfig& config() const { return config_; }

 protected:
  virtual size_t gates() const = 0;
  virtual size_t max_inputs() const = 0;
  virtual size_t state_outputs() const = 0;  // 1 (Y_h) or 2 (Y_h, Y_c)
  virtual std::vector<Activation> default_activations() const = 0;
  virtual void step(const RnnStep& s) const = 0;
  virtual void extra_attributes(Attributes& attrs) const { (void)attrs; }
  // An activation applied to a clipped pre-activation.
  double act(const Activation& a, double x) const {
    if (config_.clip)
      x = x < -*config_.clip ? -*config_.clip : (x > *config_.clip ? *config_.clip : x);
    return a.apply(x);
  }
  size_t num_directions() const { return config_.direction == RnnDirection::Bidirectional ? 2 : 1; }

 private:
  // Activations for every direction, filled with the defaults.
  std::vector<Activation> activations() const;
  RecurrentConfig config_;
};

}  // namespace kiln::ops
