// The qconvert kernels compiled with avx512 flags (see CMakeLists: *_avx512.cpp).
#include "kernels/quant/qconvert_impl.h"

namespace kiln::kernels {

QConvert qconvert_avx512() {
  return make_qconvert();
}

}  // namespace kiln::kernels
