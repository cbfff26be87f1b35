// The grouped convolution body compiled with avx2 flags (see CMakeLists: *_avx2.cpp).
#include "kernels/conv/grouped_conv_impl.h"

namespace kiln::kernels {

void grouped_conv_items_avx2(const GroupedConvArgs& a, const GroupedConvLayout& l, int64_t i0,
                             int64_t i1, const float* planes) {
  grouped_conv_body(a, l, i0, i1, planes);
}

}  // namespace kiln::kernels
