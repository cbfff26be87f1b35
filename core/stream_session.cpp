#include "core/stream_session.h"

#include <algorithm>
#include <cstring>

#include "base/error.h"

namespace kiln {

namespace {

struct Frames {
  int64_t outer = 1;
  int64_t frames = 0;
  size_t frame_bytes = 0;
};

Frames frames_of(const Shape& shape, size_t axis, DatumType dt) {
  KILN_ENSURE(axis < shape.size(), "stream axis {} out of range for [{}]", axis,
              shape_to_string(shape));
  Frames f;
  size_t inner = size_of(dt);
  for (size_t i = 0; i < axis; i++) f.outer *= shape[i];
  for (size_t i = axis + 1; i < shape.size(); i++) inner *= static_cast<size_t>(shape[i]);
  f.frames = shape[axis];
  f.frame_bytes = inner;
  return f;
}

}  // namespace

void copy_frames(const Tensor& src, int64_t src_begin, Tensor& dst, int64_t dst_begin, int64_t n,
                 size_t axis) {
  Frames s = frames_of(src.shape(), axis, src.dtype());
  Frames d = frames_of(dst.shape(), axis, dst.dtype());
  KILN_ENSURE(s.outer == d.outer && s.frame_bytes == d.frame_bytes,
              "stream: tensors [{}] and [{}] differ off the stream axis",
              shape_to_string(src.shape()), shape_to_string(dst.shape()));
  n = std::min(n, s.frames - src_begin);
  n = std::min(n, d.frames - dst_begin);
  if (n <= 0) return;
  const char* sp = static_cast<const char*>(src.raw_data());
  char* dp = static_cast<char*>(dst.raw_data());
  for (int64_t o = 0; o < s.outer; o++)
    std::memcpy(dp + static_cast<size_t>(o * d.frames + dst_begin) * d.frame_bytes,
                sp + static_cast<size_t>(o * s.frames + src_begin) * s.frame_bytes,
                static_cast<size_t>(n) * s.frame_bytes);
}

StreamSession::StreamSession(PlanPtr plan, StreamSpec spec, SessionOptions options)
    : plan_(std::move(plan)), spec_(std::move(spec)), options_(options) {
  reset();
}

void StreamSession::reset() {
  session_ = std::make_unique<Session>(plan_, options_);
  pulses_ = 0;
}

void StreamSession::set_stream_length(int64_t frames) {
  KILN_ENSURE(frames >= 0, "stream length {} is negative", frames);
  length_ = frames;
}

std::vector<Tensor> StreamSession::push(const std::vector<Tensor>& inputs) {
  std::vector<Tensor> outputs;
  push(inputs, outputs);
  return outputs;
}

void StreamSession::push(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) {
  run_pulse(inputs, outputs, nullptr);
}

void StreamSession::push_timed(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs,
                               const NodeTimer& timer) {
  run_pulse(inputs, outputs, &timer);
}

void StreamSession::run_pulse(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs,
                              const NodeTimer* timer) {
  KILN_ENSURE(inputs.size() == spec_.inputs.size(), "stream: model expects {} inputs, got {}",
              spec_.inputs.size(), inputs.size());
  for (size_t i = 0; i < inputs.size(); i++) {
    const StreamPort& port = spec_.inputs[i];
    if (port.streaming)
      KILN_ENSURE(port.axis < inputs[i].rank() && inputs[i].dim(port.axis) == port.pulse,
                  "stream: input {} must carry {} frames along axis {} per push, got [{}]", i,
                  port.pulse, port.axis, shape_to_string(inputs[i].shape()));
  }
  auto run = [&](const std::vector<Tensor>& feed) {
    if (timer)
      outputs = session_->run_timed(feed, *timer);
    else
      session_->run(feed, outputs);
  };
  if (spec_.length_input < 0) {
    run(inputs);
  } else {
    if (length_tensor_.is_null()) length_tensor_ = Tensor(DatumType::I64, Shape{});
    length_tensor_.data<int64_t>()[0] = length_;
    inputs_.resize(inputs.size() + 1);
    for (size_t i = 0; i < inputs.size(); i++) inputs_[i] = inputs[i];
    inputs_[inputs.size()] = length_tensor_;
    // (inputs_ keeps its tensors until the next push: copy-assigning into them reuses their
    // shape buffers, so a steady-state push allocates nothing.)
    run(inputs_);
  }
  pulses_++;
}

int64_t StreamSession::whole_length(const std::vector<Tensor>& inputs) const {
  KILN_ENSURE(inputs.size() == spec_.inputs.size(), "stream: model expects {} inputs, got {}",
              spec_.inputs.size(), inputs.size());
  int64_t length = -1;
  for (size_t i = 0; i < inputs.size(); i++) {
    const StreamPort& port = spec_.inputs[i];
    if (!port.streaming) continue;
    KILN_ENSURE(port.axis < inputs[i].rank(), "stream: input {} has rank {}, stream axis is {}", i,
                inputs[i].rank(), port.axis);
    int64_t n = inputs[i].dim(port.axis);
    KILN_ENSURE(length < 0 || length == n,
                "stream: streaming inputs of different lengths ({} and {} frames)", length, n);
    length = n;
  }
  KILN_ENSURE(length >= 0, "stream: the model has no streaming input");
  return length;
}

std::vector<Tensor> StreamSession::pulse_buffers(const std::vector<Tensor>& inputs) const {
  std::vector<Tensor> pulse_in(inputs.size());
  for (size_t i = 0; i < inputs.size(); i++) {
    if (!spec_.inputs[i].streaming) {
      pulse_in[i] = inputs[i];
      continue;
    }
    Shape s = inputs[i].shape();
    s[spec_.inputs[i].axis] = spec_.pulse;
    pulse_in[i] = Tensor(inputs[i].dtype(), s);
  }
  return pulse_in;
}

void StreamSession::cut_pulse(const std::vector<Tensor>& inputs, int64_t k,
                              std::vector<Tensor>& buffers) const {
  for (size_t i = 0; i < inputs.size(); i++) {
    if (!spec_.inputs[i].streaming) continue;
    std::memset(buffers[i].raw_data(), 0, buffers[i].nbytes());
    copy_frames(inputs[i], k * spec_.pulse, buffers[i], 0, spec_.pulse, spec_.inputs[i].axis);
  }
}

std::vector<Tensor> StreamSession::run_whole(const std::vector<Tensor>& inputs) {
  const int64_t length = whole_length(inputs);
  SymbolValues syms{{spec_.symbol, length}};
  set_stream_length(length);
  reset();
  // Pulses: enough to cover every input frame and every output frame past its delay.
  int64_t pulses = std::max<int64_t>(1, (length + spec_.pulse - 1) / spec_.pulse);
  std::vector<int64_t> out_len(spec_.outputs.size(), 0);
  for (size_t o = 0; o < spec_.outputs.size(); o++) {
    const StreamPort& port = spec_.outputs[o];
    if (!port.streaming) continue;
    out_len[o] = port.full.eval(syms);
    KILN_ENSURE(out_len[o] >= 0,
                "stream: {} frames are too few for output {} (its length {} would be {})", length,
                o, port.full.to_string(), out_len[o]);
    pulses = std::max(pulses, (out_len[o] + port.delay + port.pulse - 1) / port.pulse);
  }
  std::vector<Tensor> pulse_in = pulse_buffers(inputs);
  std::vector<Tensor> whole(spec_.outputs.size()), outs;
  for (int64_t k = 0; k < pulses; k++) {
    cut_pulse(inputs, k, pulse_in);
    push(pulse_in, outs);
    for (size_t o = 0; o < outs.size(); o++) {
      const StreamPort& port = spec_.outputs[o];
      if (!port.streaming) {
        whole[o] = outs[o].clone();
        continue;
      }
      KILN_ENSURE(outs[o].dim(port.axis) == port.pulse,
                  "stream: output {} has {} frames in a pulse, expected {}", o,
                  outs[o].dim(port.axis), port.pulse);
      if (whole[o].is_null()) {
        Shape s = outs[o].shape();
        s[port.axis] = out_len[o];
        whole[o] = Tensor(outs[o].dtype(), s);
      }
      // Pulse k holds output frames [k * pulse - delay, (k + 1) * pulse - delay).
      int64_t first = k * port.pulse - port.delay;
      int64_t skip = std::max<int64_t>(0, -first);
      copy_frames(outs[o], skip, whole[o], first + skip, port.pulse - skip, port.axis);
    }
  }
  return whole;
}

}  // namespace kiln
