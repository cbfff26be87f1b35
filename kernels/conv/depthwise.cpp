#include "kernels/conv/depthwise.h"

#include <memory>

#include "kernels/aligned_buffer.h"
#include "kernels/conv/depthwise_impl.h"

namespace kiln::kernels {

void depthwise_conv_f32_generic(const DepthwiseArgs& args, int64_t c0, int64_t c1) {
  depthwise_body(args, c0, c1);
}

int64_t depthwise_scratch_floats_generic(const ConvGeometry& geo) {
  return depthwise_scratch_size(geo);
}

int64_t depthwise_scratch_floats(const ConvGeometry& geo, Isa isa) {
  switch (isa) {
#if defined(__x86_64__) && defined(KILN_HAVE_X86_TILES)
    case Isa::Avx512:
      return depthwise_scratch_floats_avx512(geo);
    case Isa::Avx2:
      return depthwise_scratch_floats_avx2(geo);
#endif
#if defined(KILN_HAVE_NEON_TILES)
    case Isa::Neon:
      return depthwise_scratch_floats_neon(geo);
#endif
    default:
      return depthwise_scratch_floats_generic(geo);
  }
}

int64_t depthwise_channel_block(Isa isa) {
  switch (isa) {
    case Isa::Avx512:
      return 16;
    case Isa::Avx2:
      return 8;
    default:
      return 4;
  }
}

void depthwise_conv_f32(const DepthwiseArgs& given, int64_t c0, int64_t c1, Isa isa) {
  DepthwiseArgs args = given;
  std::unique_ptr<AlignedFloats> own;
  if (!args.scratch) {
    own = std::make_unique<AlignedFloats>(
        static_cast<size_t>(depthwise_scratch_floats(args.geo, isa)));
    args.scratch = own->data();
  }
  switch (isa) {
#if defined(__x86_64__) && defined(KILN_HAVE_X86_TILES)
    case Isa::Avx512:
      depthwise_conv_f32_avx512(args, c0, c1);
      return;
    case Isa::Avx2:
      depthwise_conv_f32_avx2(args, c0, c1);
      return;
#endif
#if defined(KILN_HAVE_NEON_TILES)
    case Isa::Neon:
      depthwise_conv_f32_neon(args, c0, c1);
      return;
#endif
    default:
      depthwise_conv_f32_generic(args, c0, c1);
  }
}

}  // namespace kiln::kernels
