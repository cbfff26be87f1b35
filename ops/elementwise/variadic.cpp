#include "ops/elementwise/variadic.h"

#include <cmath>

#include "ops/elementwise/min_max_f32.h"
#include "ops/elementwise/util.h"

namespace kiln::ops {

std::string Variadic::name() const {
  switch (kind_) {
    case VariadicKind::Sum:
      return "Sum";
    case VariadicKind::Mean:
      return "Mean";
    case VariadicKind::Min:
      return "Min";
    case VariadicKind::Max:
      return "Max";
  }
  return "Variadic";
}

std::vector<Fact> Variadic::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 1, -1);
  std::vector<const Fact*> facts;
  for (size_t i = 0; i < inputs.size(); i++) {
    const Fact& f = required(inputs, i, name());
    KILN_ENSURE(f.dt == inputs[0]->dt, "{}: input {} is {}, input 0 is {}", name(), i,
                name_of(f.dt), name_of(inputs[0]->dt));
    facts.push_back(&f);
  }
  DatumType dt = inputs[0]->dt;
  if (kind_ == VariadicKind::Mean) {
    KILN_ENSURE(is_float(dt), "{}: expects float inputs, got {}", name(), name_of(dt));
  } else {
    KILN_ENSURE(is_numeric(dt), "{}: expects numeric inputs, got {}", name(), name_of(dt));
  }
  return {Fact(dt, broadcast_facts(facts))};
}

void Variadic::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  std::vector<Shape> shapes;
  for (size_t i = 0; i < inputs.size(); i++) {
    const Tensor& t = required(inputs, i, name());
    KILN_ENSURE(t.dtype() == inputs[0]->dtype(), "{}: inputs have different types", name());
    shapes.push_back(t.shape());
  }
  KILN_ENSURE(!inputs.empty(), "{}: expects at least one input", name());
  Shape shape = broadcast_shapes(shapes);
  DatumType dt = inputs[0]->dtype();
  Tensor& out = ctx.output(0, dt, shape);
  dispatch_numeric(dt, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = compute_t<T>;
    // Accumulate in the compute type, then store once.
    std::vector<C> acc(static_cast<size_t>(out.numel()));
    for (size_t k = 0; k < inputs.size(); k++) {
      const Tensor& t = *inputs[k];
      const T* src = t.data<T>();
      std::array<std::vector<int64_t>, 1> strides{broadcast_strides(t.shape(), shape)};
      for_each_broadcast<1>(shape, strides, [&](int64_t i, const std::array<int64_t, 1>& o) {
        C v = static_cast<C>(src[o[0]]);
        C& a = acc[static_cast<size_t>(i)];
        if (k == 0) {
          a = v;
          return;
        }
        switch (kind_) {
          case VariadicKind::Sum:
          case VariadicKind::Mean:
            if constexpr (std::is_integral_v<C>) {
              a = wrap_add(a, v);
            } else {
              a += v;
            }
            break;
          case VariadicKind::Min:
          case VariadicKind::Max:
            if constexpr (!std::is_integral_v<C>) {
              // NaN wins, as in numpy's minimum/maximum.
              if (std::isnan(a)) break;
              if (std::isnan(v)) {
                a = v;
                break;
              }
            }
            if (kind_ == VariadicKind::Min ? v < a : v > a) a = v;
            break;
        }
      });
    }
    T* dst = out.data<T>();
    C count = static_cast<C>(inputs.size());
    for (size_t i = 0; i < acc.size(); i++) {
      C v = acc[i];
      if constexpr (!std::is_integral_v<C>) {
        if (kind_ == VariadicKind::Mean) v /= count;
      }
      dst[i] = from_compute<T>(v);
    }
  });
}

std::optional<OutputStep> Variadic::output_step(const FactRefs& inputs, size_t value) const {
  if ((kind_ != VariadicKind::Max && kind_ != VariadicKind::Min) || inputs.size() != 2 ||
      value > 1 || !inputs[0] || !inputs[1] || inputs[0]->dt != DatumType::F32 ||
      inputs[1]->dt != DatumType::F32)
    return std::nullopt;
  OutputStep s;
  s.kind = OutputStep::Kind::Binary;
  s.binary = kind_ == VariadicKind::Max ? kernels::BinaryFn::Max : kernels::BinaryFn::Min;
  s.operand_first = value == 1;
  return s;
}

OpPtr Variadic::codegen(const FactRefs& inputs) const {
  if ((kind_ != VariadicKind::Max && kind_ != VariadicKind::Min) || inputs.size() != 2 ||
      !inputs[0] || !inputs[1] || inputs[0]->dt != DatumType::F32 ||
      inputs[1]->dt != DatumType::F32)
    return nullptr;
  return std::make_shared<MinMaxF32>(std::make_shared<Variadic>(*this));
}

}  // namespace kiln::ops
