#include "ops/elementwise/clip.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "ops/elementwise/util.h"

namespace kiln::ops {

namespace {

template <typename C>
C bound_from_double(double v) {
  if constexpr (std::is_integral_v<C>) {
    if (std::isnan(v)) return C(0);
    if (v >= static_cast<double>(std::numeric_limits<C>::max()))
      return std::numeric_limits<C>::max();
    if (v <= static_cast<double>(std::numeric_limits<C>::lowest()))
      return std::numeric_limits<C>::lowest();
  }
  return static_cast<C>(v);
}

}  // namespace

Attributes Clip::attributes() const {
  Attributes a;
  if (min_) a.emplace_back("min", fmt::format("{}", *min_));
  if (max_) a.emplace_back("max", fmt::format("{}", *max_));
  return a;
}

std::vector<Fact> Clip::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 1, 3);
  const Fact& x = required(inputs, 0, name());
  KILN_ENSURE(is_numeric(x.dt), "Clip: expects a numeric input, got {}", name_of(x.dt));
  for (size_t i = 1; i < inputs.size(); i++) {
    if (!inputs[i]) continue;
    const Fact& b = *inputs[i];
    const char* what = i == 1 ? "min" : "max";
    KILN_ENSURE(b.dt == x.dt, "Clip: {} is {} but the input is {}", what, name_of(b.dt),
                name_of(x.dt));
    Dim volume = b.volume();
    KILN_ENSURE(!volume.is_int() || volume.to_int() == 1, "Clip: {} must be a scalar, got [{}]",
                what, dims_to_string(b.shape));
  }
  return {Fact(x.dt, x.shape)};
}

void Clip::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& x = required(inputs, 0, name());
  Tensor& out = ctx.output(0, x.dtype(), x.shape());
  dispatch_numeric(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = compute_t<T>;
    C lo = std::numeric_limits<C>::lowest();
    C hi = std::numeric_limits<C>::max();
    if constexpr (!std::is_integral_v<C>) {
      lo = -std::numeric_limits<C>::infinity();
      hi = std::numeric_limits<C>::infinity();
    }
    if (min_) lo = bound_from_double<C>(*min_);
    if (max_) hi = bound_from_double<C>(*max_);
    auto read_bound = [&](size_t i, C& bound) {
      if (i >= inputs.size() || !inputs[i]) return;
      const Tensor& b = *inputs[i];
      KILN_ENSURE(b.dtype() == x.dtype() && b.numel() == 1,
                  "Clip: bound {} must be a {} scalar, got {}", i, name_of(x.dtype()),
                  b.to_string(4));
      bound = static_cast<C>(b.data<T>()[0]);
    };
    read_bound(1, lo);
    read_bound(2, hi);
    const T* src = x.data<T>();
    T* dst = out.data<T>();
    for (int64_t i = 0; i < x.numel(); i++) {
      C v = static_cast<C>(src[i]);
      v = v < lo ? lo : v;
      v = v > hi ? hi : v;  // min > max: everything becomes max, as the spec says
      dst[i] = from_compute<T>(v);
    }
  });
}

std::optional<OutputStep> Clip::output_step(const FactRefs& inputs, size_t value) const {
  if (value != 0 || inputs.empty() || !inputs[0] || inputs[0]->dt != DatumType::F32)
    return std::nullopt;
  OutputStep s;
  s.kind = OutputStep::Kind::Clamp;
  if (min_) s.min = static_cast<float>(*min_);
  if (max_) s.max = static_cast<float>(*max_);
  // Bound inputs, when present, must be known constants.
  for (size_t i = 1; i < inputs.size() && i < 3; i++) {
    if (!inputs[i]) continue;
    if (!inputs[i]->value || inputs[i]->value->numel() != 1) return std::nullopt;
    (i == 1 ? s.min : s.max) = static_cast<float>(inputs[i]->value->value_as_double(0));
  }
  return s;
}

}  // namespace kiln::ops
