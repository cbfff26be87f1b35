#include "ops/random/random_tensor.h"

#include <cmath>
#include <cstring>
#include <random>

#include "base/error.h"

namespace kiln::ops {

uint64_t random_seed(std::optional<float> seed) {
  if (!seed) return std::random_device{}();
  double v = static_cast<double>(*seed);
  if (v == std::floor(v) && v >= -9.2e18 && v <= 9.2e18)
    return static_cast<uint64_t>(static_cast<int64_t>(v));
  uint32_t bits;
  std::memcpy(&bits, &*seed, 4);  // a fractional seed: its bits
  return bits;
}

std::string RandomTensor::name() const {
  std::string base = o_.distribution == Distribution::Normal ? "RandomNormal" : "RandomUniform";
  return o_.shape ? base : base + "Like";
}

Attributes RandomTensor::attributes() const {
  bool normal = o_.distribution == Distribution::Normal;
  Attributes a{{normal ? "mean" : "low", fmt::format("{}", o_.a)},
               {normal ? "scale" : "high", fmt::format("{}", o_.b)}};
  if (o_.seed) a.push_back({"seed", fmt::format("{}", *o_.seed)});
  if (o_.dtype) a.push_back({"dtype", std::string(name_of(*o_.dtype))});
  if (o_.shape) a.push_back({"shape", ints_to_string(*o_.shape)});
  return a;
}

DatumType RandomTensor::output_type(const Fact* like) const {
  DatumType dt = o_.dtype ? *o_.dtype : like ? like->dt : DatumType::F32;
  KILN_ENSURE(is_float(dt), "{}: dtype {} is not a float type", name(), name_of(dt));
  return dt;
}

std::vector<Fact> RandomTensor::output_facts(const FactRefs& inputs) const {
  if (o_.shape) {
    expect_inputs(name(), inputs.size(), 0, 0);
    for (int64_t d : *o_.shape) KILN_ENSURE(d >= 0, "{}: negative dim {} in shape", name(), d);
    return {Fact(output_type(nullptr), *o_.shape)};
  }
  expect_inputs(name(), inputs.size(), 1, 1);
  const Fact& like = required(inputs, 0, name());
  return {Fact(output_type(&like), like.shape)};
}

void RandomTensor::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor* like = o_.shape ? nullptr : &required(inputs, 0, name());
  Fact like_fact;
  if (like) like_fact = Fact(like->dtype(), like->shape());
  DatumType dt = output_type(like ? &like_fact : nullptr);
  Tensor& y = ctx.output(0, dt, o_.shape ? *o_.shape : like->shape());
  std::mt19937_64 rng(random_seed(o_.seed));
  std::normal_distribution<double> normal(o_.a, o_.b);
  std::uniform_real_distribution<double> uniform(o_.a, o_.b);
  dispatch_numeric(dt, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (!std::is_integral_v<T>) {
      T* out = y.data<T>();
      for (int64_t i = 0; i < y.numel(); i++) {
        double v = o_.distribution == Distribution::Normal ? normal(rng) : uniform(rng);
        out[i] = static_cast<T>(v);
      }
    }
  });
}

}  // namespace kiln::ops
