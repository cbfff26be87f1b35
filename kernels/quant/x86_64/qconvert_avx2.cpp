// The qconvert kernels compiled with avx2 flags (see CMakeLists: *_avx2.cpp).
#include "kernels/quant/qconvert_impl.h"

namespace kiln::kernels {

QConvert qconvert_avx2() {
  return make_qconvert();
}

}  // namespace kiln::kernels
