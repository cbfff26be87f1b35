// The depthwise body compiled for NEON: 4-float vectors become q registers (on 32-bit ARM this file
// alone gets -mfpu=neon, see CMakeLists: *_neon.cpp; it runs only when the CPU reports NEON).
#if defined(__aarch64__) || (defined(__arm__) && defined(__ARM_NEON))
#include "kernels/conv/depthwise_impl.h"

namespace kiln::kernels {

void depthwise_conv_f32_neon(const DepthwiseArgs& args, int64_t c0, int64_t c1) {
  depthwise_body(args, c0, c1);
}

int64_t depthwise_scratch_floats_neon(const ConvGeometry& geo) {
  return depthwise_scratch_size(geo);
}

}  // namespace kiln::kernels
#endif
