#include "kernels/quant/qconvert.h"

#include "kernels/quant/qconvert_impl.h"

namespace kiln::kernels {

QConvert qconvert_generic() {
  return make_qconvert();
}

const QConvert& qconvert(Isa isa) {
  static const QConvert generic = qconvert_generic();
#if defined(__x86_64__) && defined(KILN_HAVE_X86_TILES)
  static const QConvert avx2 = isa_supported(Isa::Avx2) ? qconvert_avx2() : generic;
  static const QConvert avx512 = isa_supported(Isa::Avx512) ? qconvert_avx512() : generic;
  if (isa == Isa::Avx512) return avx512;
  if (isa == Isa::Avx2) return avx2;
#endif
  (void)isa;
  return generic;
}

const QConvert& qconvert() {
  static const QConvert& k = qconvert(active_isa());
  return k;
}

}  // namespace kiln::kernels
