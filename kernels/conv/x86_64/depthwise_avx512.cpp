// The depthwise body compiled with avx512 flags (see CMakeLists: *_avx512.cpp).
#include "kernels/conv/depthwise_impl.h"

namespace kiln::kernels {

void depthwise_conv_f32_avx512(const DepthwiseArgs& args, int64_t c0, int64_t c1) {
  depthwise_body(args, c0, c1);
}

int64_t depthwise_scratch_floats_avx512(const ConvGeometry& geo) {
  return depthwise_scratch_size(geo);
}

}  // namespace kiln::kernels
