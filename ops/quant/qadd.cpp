#include "ops/quant/qadd.h"

#include <cstdint>

#include "fmt/format.h"
#include "ops/quant/quant_util.h"

namespace kiln::ops {

namespace {

using quant::q8;

// One element as the reference chain computes it; fp-contract off so that no FMA joins the
// product of one dequantization to the sum (the chain rounds the product, then the sum).
template <class A, class B, class Y>
[[gnu::optimize("fp-contract=off")]] void qadd_loop(const A* __restrict a, const B* __restrict b,
                                                    Y* __restrict y, int64_t n,
                                                    const QAddParams& p) {
  const float sa = p.a_scale, sb = p.b_scale, sy = p.y_scale;
  const int32_t za = p.a_zp, zb = p.b_zp, zy = p.y_zp;
  const float lo = static_cast<float>((p.y_signed ? -128 : 0) - zy);
  const float hi = static_cast<float>((p.y_signed ? 127 : 255) - zy);
  for (int64_t i = 0; i < n; i++) {
    const float fa = static_cast<float>(static_cast<int32_t>(a[i]) - za) * sa;
    const float fb = static_cast<float>(static_cast<int32_t>(b[i]) - zb) * sb;
    float d = (fa + fb) / sy;
    d = d > lo ? d : lo;  // NaN -> lo, as QuantizeLinear
    d = d < hi ? d : hi;
    const float r = (d + 12582912.0f) - 12582912.0f;
    y[i] = static_cast<Y>(static_cast<int32_t>(r) + zy);
  }
}

}  // namespace

Attributes QAdd::attributes() const {
  return {{"a", fmt::format("{}*({}-{})", p_.a_scale, name_of(q8(p_.a_signed)), p_.a_zp)},
          {"b", fmt::format("{}*({}-{})", p_.b_scale, name_of(q8(p_.b_signed)), p_.b_zp)},
          {"y", fmt::format("{}*({}-{})", p_.y_scale, name_of(q8(p_.y_signed)), p_.y_zp)}};
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
  const int64_t n = a.numel();
  auto with_y = [&](const auto* pa, const auto* pb) {
    if (p_.y_signed)
      qadd_loop(pa, pb, y.data<int8_t>(), n, p_);
    else
      qadd_loop(pa, pb, y.data<uint8_t>(), n, p_);
  };
  auto with_b = [&](const auto* pa) {
    if (p_.b_signed)
      with_y(pa, b.data<int8_t>());
    else
      with_y(pa, b.data<uint8_t>());
  };
  if (p_.a_signed)
    with_b(a.data<int8_t>());
  else
    with_b(a.data<uint8_t>());
}

Cost QAdd::cost(const FactRefs& inputs) const {
  Cost c;
  c.other = required(inputs, 0, name()).volume();
  return c;
}

}  // namespace kiln::ops
