// Helpers of the streaming ops: a tensor seen as [outer, frames, inner] around its stream axis,
// and filling frames with a constant of the tensor's type.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/tensor.h"

namespace kiln::ops::pulse {

struct FrameLayout {
  int64_t outer = 1;       // product of the dims before the axis
  int64_t frames = 0;      // the axis
  size_t frame_bytes = 0;  // bytes of one frame of one outer index (inner dims x element)
};

FrameLayout frame_layout(const Shape& shape, size_t axis, DatumType dt);

// Sets frames [begin, end) of every outer index of `t` (stream axis `axis`) to `value`.
void fill_frames(Tensor& t, size_t axis, int64_t begin, int64_t end, double value);

// Fills `bytes` bytes at `dst` with copies of `value` converted to dt.
void fill_value(void* dst, size_t bytes, DatumType dt, double value);

}  // namespace kiln::ops::pulse
