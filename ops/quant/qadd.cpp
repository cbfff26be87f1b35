#include "ops/quant/qadd.h"

#include <cstdint>

#include "fmt/format.h"
#include "kernels/quant/qconvert.h"
#include "ops/quant/quant_util.h"

namespace kiln::ops {

namespace {

using quant::q8;

template <class T>
void clamp_below(T* __restrict y, int64_t n, T lo) {
  for (int64_t i = 0; i < n; i++) y[i] = y[i] < lo ? lo : y[i];
}

}  // namespace

Attributes QAdd::attributes() const {
  Attributes a{{"a", fmt::format("{}*({}-{})", p_.a_scale, name_of(q8(p_.a_signed)), p_.a_zp)},
               {"b", fmt::format("{}*({}-{})", p_.b_scale, name_of(q8(p_.b_signed)), p_.b_zp)},
               {"y", fmt::format("{}*({}-{})", p_.y_scale, name_of(q8(p_.y_signed)), p_.y_zp)}};
  if (p_.relu) a.push_back({"relu", "1"});
  return a;
}

std::vector<Fact> QAdd::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 2, 2);
  const Fact& a = required(inputs, 0, name());
  const Fact& b = required(inputs, 1, name());
  KILN_ENSURE(a.dt == q8(p_.a_signed) && b.dt == q8(p_.b_signed),
              "QAdd: inputs must be {} and {}, got {} and {}", name_of(q8(p_.a_signed)),
              name_of(q8(p_.b_signed)), name_of(a.dt), name_of(b.dt));
  KILN_ENSURE(a.shape == b.shape, "QAdd: input shapes differ ({} and {})", dims_to_string(a.shape),
              dims_to_string(b.shape));
  return {Fact(q8(p_.y_signed), a.shape)};
}

void QAdd::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& a = required(inputs, 0, name());
  const Tensor& b = required(inputs, 1, name());
  KILN_ENSURE(
      a.dtype() == q8(p_.a_signed) && b.dtype() == q8(p_.b_signed) && a.shape() == b.shape(),
      "QAdd: inputs must be {} and {} of one shape", name_of(q8(p_.a_signed)),
      name_of(q8(p_.b_signed)));
  Tensor& y = ctx.output(0, q8(p_.y_signed), a.shape());
  // Each element through the chain's float operations (the products rounded before the sum),
  // in the ISA's vector kernel: bitwise the chain (kernels/quant/qconvert.h).
  kernels::qconvert().add(a.raw_data(), b.raw_data(), y.raw_data(), a.numel(),
                          kernels::Q8{p_.a_scale, p_.a_zp, p_.a_signed},
                          kernels::Q8{p_.b_scale, p_.b_zp, p_.b_signed},
                          kernels::Q8{p_.y_scale, p_.y_zp, p_.y_signed});
  if (p_.relu) {
    // Bytes still in cache; a loop the compiler vectorizes (max on u8 / i8 lanes).
    if (p_.y_signed) {
      clamp_below(static_cast<int8_t*>(y.raw_data()), y.numel(), static_cast<int8_t>(p_.y_zp));
    } else {
      clamp_below(static_cast<uint8_t*>(y.raw_data()), y.numel(), static_cast<uint8_t>(p_.y_zp));
    }
  }
}

Cost QAdd::cost(const FactRefs& inputs) const {
  Cost c;
  c.other = required(inputs, 0, name()).volume();
  return c;
}

}  // namespace kiln::ops
