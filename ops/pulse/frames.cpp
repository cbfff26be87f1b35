#include "ops/pulse/frames.h"

#include <cstring>
#include <type_traits>

#include "base/error.h"

namespace kiln::ops::pulse {

FrameLayout frame_layout(const Shape& shape, size_t axis, DatumType dt) {
  KILN_ENSURE(axis < shape.size(), "stream axis {} out of range for shape [{}]", axis,
              shape_to_string(shape));
  FrameLayout l;
  size_t inner = 1;
  for (size_t i = 0; i < axis; i++) l.outer *= shape[i];
  for (size_t i = axis + 1; i < shape.size(); i++) inner *= static_cast<size_t>(shape[i]);
  l.frames = shape[axis];
  l.frame_bytes = inner * size_of(dt);
  return l;
}

void fill_value(void* dst, size_t bytes, DatumType dt, double value) {
  if (value == 0.0) {
    std::memset(dst, 0, bytes);
    return;
  }
  dispatch_pod(dt, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T v = T(static_cast<float>(value));
    if constexpr (std::is_integral_v<T>) v = static_cast<T>(value);
    T* p = static_cast<T*>(dst);
    for (size_t i = 0; i < bytes / sizeof(T); i++) p[i] = v;
  });
}

void fill_frames(Tensor& t, size_t axis, int64_t begin, int64_t end, double value) {
  if (end <= begin) return;
  FrameLayout l = frame_layout(t.shape(), axis, t.dtype());
  char* base = static_cast<char*>(t.raw_data());
  for (int64_t o = 0; o < l.outer; o++)
    fill_value(base + (static_cast<size_t>(o * l.frames + begin)) * l.frame_bytes,
               static_cast<size_t>(end - begin) * l.frame_bytes, t.dtype(), value);
}

}  // namespace kiln::ops::pulse
