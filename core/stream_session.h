// StreamSession: runs a pulsed (streaming) model pulse by pulse (docs/streaming.md). Each push
// takes P frames of every streaming input and returns the matching pulse of every output; output
// i lags the stream by delay(i) frames of its own axis. Delay lines and recurrent states live in
// the session (per-session OpState): sessions of one model run independent streams.
//
//   auto pulsed = passes::pulsify(graph, {"S", 8});
//   passes::optimize(*pulsed.graph);
//   StreamSession stream(passes::plan(pulsed.graph), pulsed.spec);
//   while (have_frames) {
//     auto out = stream.push({next_8_frames});   // [1,40,8] -> [1,12,8]
//     // out[0]'s frames are the whole-input output frames 8k - delay(0) ... 8k - delay(0) + 7
//   }
#pragma once

#include <string>
#include <vector>

#include "core/session.h"

namespace kiln {

// How one model input or output streams.
struct StreamPort {
  bool streaming = false;  // false: the same tensor every pulse (inputs) / not a stream (outputs)
  size_t axis = 0;
  int64_t pulse = 0;  // frames per push along axis
  int64_t delay = 0;  // outputs: frames the output lags the whole-input output by
  Dim full;           // the whole-input length along axis (in the stream symbol)
};

struct StreamSpec {
  std::string symbol;                       // the stream length symbol (S)
  int64_t pulse = 0;                        // P
  std::vector<StreamPort> inputs, outputs;  // the model's own inputs and outputs
  // Index of the pulsed graph's extra input "stream_length" (an i64 scalar: the stream's length
  // in frames once known, -1 before), after the model's own; -1: the graph has none (no padding
  // at the stream's end). StreamSession feeds it.
  int length_input = -1;
};

// Copies frames [src_begin, src_begin + n) of src into frames [dst_begin, ...) of dst (same dims
// but the stream axis `axis`); frames past either tensor's end are not copied.
void copy_frames(const Tensor& src, int64_t src_begin, Tensor& dst, int64_t dst_begin, int64_t n,
                 size_t axis);

class StreamSession {
 public:
  StreamSession(PlanPtr plan, StreamSpec spec, SessionOptions options = {});
  // One pulse: streaming inputs carry `pulse` frames along their axis.
  std::vector<Tensor> push(const std::vector<Tensor>& inputs);
  void push(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs);
  // Same, calling `timer` after each node (Session::run_timed): session().state().node_values
  // then holds the node's outputs for this pulse.
  void push_timed(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs,
                  const NodeTimer& timer);
  // Frames output i lags the whole-input model by.
  int64_t delay(size_t output = 0) const { return spec_.outputs.at(output).delay; }
  // Back to the stream start: delay lines, recurrent states and pulse counts cleared.
  void reset();
  // The stream's length once known (frames of the streaming inputs): padding at the stream's end
  // needs it. Unknown by default (the stream never ends).
  void set_stream_length(int64_t frames);
  const StreamSpec& spec() const { return spec_; }
  Session& session() { return *session_; }
  int64_t pulses() const { return pulses_; }

  // Frames of the whole inputs' streaming axis (equal for every streaming input, else throws).
  int64_t whole_length(const std::vector<Tensor>& inputs) const;
  // Pulse-sized buffers for whole inputs (the inputs that do not stream as they are), and pulse k
  // of the whole inputs cut into them (zeros past the inputs' end).
  std::vector<Tensor> pulse_buffers(const std::vector<Tensor>& inputs) const;
  void cut_pulse(const std::vector<Tensor>& inputs, int64_t k, std::vector<Tensor>& buffers) const;

  // The whole stream at once: cuts the whole inputs into pulses (zero-padding the last), pushes
  // them all (and as many more as the delay needs), concatenates each output along its axis,
  // drops the first delay(i) frames and trims to the whole-input length. Equals the whole-input
  // model's outputs. Resets the session first.
  std::vector<Tensor> run_whole(const std::vector<Tensor>& inputs);

 private:
  PlanPtr plan_;
  StreamSpec spec_;
  SessionOptions options_;
  void run_pulse(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs,
                 const NodeTimer* timer);
  std::unique_ptr<Session> session_;
  std::vector<Tensor> inputs_;  // the model's inputs, then the stream length
  Tensor length_tensor_;
  int64_t pulses_ = 0;
  int64_t length_ = -1;
};

}  // namespace kiln
