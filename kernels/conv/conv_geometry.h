// The geometry of one convolution on raw NC(D)HW buffers: up to three spatial axes (fewer are
// padded with leading axes of size 1), in order depth, height, width.
#pragma once

#include <cstdint>

namespace kiln::kernels {

struct ConvGeometry {
  int64_t in[3] = {1, 1, 1};
  int64_t out[3] = {1, 1, 1};
  int64_t kernel[3] = {1, 1, 1};
  int64_t stride[3] = {1, 1, 1};
  int64_t dilation[3] = {1, 1, 1};
  int64_t pad[3] = {0, 0, 0};  // leading padding per axis
  int64_t in_size() const { return in[0] * in[1] * in[2]; }
  int64_t out_size() const { return out[0] * out[1] * out[2]; }
  int64_t kernel_size() const { return kernel[0] * kernel[1] * kernel[2]; }
  bool operator==(const ConvGeometry&) const = default;
  // 1x1 kernel, stride 1, no padding: the input plane is already the matmul operand.
  bool is_pointwise() const {
    for (int a = 0; a < 3; a++) {
      if (kernel[a] != 1 || stride[a] != 1 || pad[a] != 0 || in[a] != out[a]) return false;
    }
    return true;
  }
};

}  // namespace kiln::kernels
