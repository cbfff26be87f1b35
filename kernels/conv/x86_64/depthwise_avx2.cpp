// The depthwise body compiled with avx2 flags (see CMakeLists: *_avx2.cpp).
#include "kernels/conv/depthwise_impl.h"

namespace kiln::kernels {

void depthwise_conv_f32_avx2(const DepthwiseArgs& args, int64_t c0, int64_t c1) {
  depthwise_body(args, c0, c1);
}

int64_t depthwise_scratch_floats_avx2(const ConvGeometry& geo) {
  return depthwise_scratch_size(geo);
}

}  // namespace kiln::kernels
