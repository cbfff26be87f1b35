#include "ops/random/bernoulli.h"

#include <random>

#include "base/error.h"
#include "ops/random/random_tensor.h"

namespace kiln::ops {

Attributes Bernoulli::attributes() const {
  Attributes a;
  if (dtype_) a.push_back({"dtype", std::string(name_of(*dtype_))});
  if (seed_) a.push_back({"seed", fmt::format("{}", *seed_)});
  return a;
}

std::vector<Fact> Bernoulli::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 1, 1);
  const Fact& p = required(inputs, 0, name());
  KILN_ENSURE(is_float(p.dt), "Bernoulli: input must be float probabilities, got {}",
              name_of(p.dt));
  DatumType dt = dtype_.value_or(p.dt);
  KILN_ENSURE(is_numeric(dt) || dt == DatumType::Bool, "Bernoulli: dtype {} is not numeric",
              name_of(dt));
  return {Fact(dt, p.shape)};
}

void Bernoulli::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& p = required(inputs, 0, name());
  DatumType dt = dtype_.value_or(p.dtype());
  Tensor& y = ctx.output(0, dt, p.shape());
  std::mt19937_64 rng(random_seed(seed_));
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  dispatch_pod(dt, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (!is_narrow_v<T>) {
      T* out = y.data<T>();
      for (int64_t i = 0; i < p.numel(); i++) {
        double prob = p.value_as_double(i);
        KILN_ENSURE(prob >= 0.0 && prob <= 1.0, "Bernoulli: probability {} outside [0, 1]", prob);
        out[i] = static_cast<T>(uniform(rng) < prob ? 1.0f : 0.0f);
      }
    } else {
      fail("Bernoulli: dtype {} is not supported", name_of(dt));
    }
  });
}

}  // namespace kiln::ops
