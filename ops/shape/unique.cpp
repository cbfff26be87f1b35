#include "ops/shape/unique.h"

#include <algorithm>
#include <numeric>

#include "base/error.h"

namespace kiln::ops {

Attributes Unique::attributes() const {
  Attributes attrs{{"sorted", sorted_ ? "1" : "0"}};
  if (axis_) attrs.emplace_back("axis", std::to_string(*axis_));
  return attrs;
}

std::vector<Fact> Unique::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 1, 1);
  const Fact& x = required(inputs, 0, name());
  Dim u = Dim::fresh();
  std::vector<Dim> shape{u};
  Dim n = x.volume();
  if (axis_) {
    size_t axis = normalize_axis(*axis_, x.rank(), name());
    shape = x.shape;
    shape[axis] = u;
    n = x.shape[axis];
  }
  return {Fact(x.dt, shape), Fact(DatumType::I64, {u}), Fact(DatumType::I64, {n}),
          Fact(DatumType::I64, {u})};
}

void Unique::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& x = required(inputs, 0, name());
  // Viewed as [outer, n, inner]: slice k is every (o, k, i).
  int64_t outer = 1, n = x.numel(), inner = 1;
  size_t axis = 0;
  if (axis_) {
    axis = normalize_axis(*axis_, x.rank(), name());
    n = x.dim(axis);
    // An empty input may declare dims whose products overflow (fuzz finding 29).
    for (size_t i = 0; i < axis; i++)
      KILN_ENSURE(!__builtin_mul_overflow(outer, x.dim(i), &outer), "Unique: input too large");
    for (size_t i = axis + 1; i < x.rank(); i++)
      KILN_ENSURE(!__builtin_mul_overflow(inner, x.dim(i), &inner), "Unique: input too large");
  }
  if (axis_ && n > 0 && (outer == 0 || inner == 0)) {
    // Empty slices are all equal: one of them, first at 0, every slice maps to it (no sort of
    // n indices: an empty input may declare n = 2^31).
    Shape y_shape = x.shape();
    y_shape[axis] = 1;
    ctx.output(0, x.dtype(), y_shape);
    if (ctx.num_outputs() > 1) ctx.output(1, DatumType::I64, {1}).data<int64_t>()[0] = 0;
    if (ctx.num_outputs() > 2) {
      Tensor& inverse = ctx.output(2, DatumType::I64, {n});
      std::fill_n(inverse.data<int64_t>(), n, int64_t{0});
    }
    if (ctx.num_outputs() > 3) ctx.output(3, DatumType::I64, {1}).data<int64_t>()[0] = n;
    return;
  }
  dispatch_any(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* src = x.data<T>();
    // -1, 0, 1: lexicographic comparison of two slices.
    auto compare = [&](int64_t a, int64_t b) {
      for (int64_t o = 0; o < outer; o++) {
        for (int64_t i = 0; i < inner; i++) {
          const T& va = src[(o * n + a) * inner + i];
          const T& vb = src[(o * n + b) * inner + i];
          if (va < vb) return -1;
          if (vb < va) return 1;
        }
      }
      return 0;
    };
    std::vector<int64_t> order(static_cast<size_t>(n));
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](int64_t a, int64_t b) { return compare(a, b) < 0; });
    // Groups of equal slices; stable sorting puts each group's first occurrence first.
    std::vector<std::vector<int64_t>> groups;
    for (size_t k = 0; k < order.size(); k++) {
      if (k == 0 || compare(order[k - 1], order[k]) != 0) groups.emplace_back();
      groups.back().push_back(order[k]);
    }
    if (!sorted_) {
      std::sort(groups.begin(), groups.end(),
                [](const auto& a, const auto& b) { return a.front() < b.front(); });
    }
    int64_t u = static_cast<int64_t>(groups.size());
    Shape y_shape{u};
    if (axis_) {
      y_shape = x.shape();
      y_shape[axis] = u;
    }
    T* y = ctx.output(0, x.dtype(), y_shape).template data<T>();
    // Nothing to copy when there are no slices or they are empty (outer alone may be 2^41).
    for (int64_t o = 0; o < (u > 0 && inner > 0 ? outer : 0); o++)
      for (int64_t g = 0; g < u; g++)
        for (int64_t i = 0; i < inner; i++)
          y[(o * u + g) * inner + i] = src[(o * n + groups[g].front()) * inner + i];
    if (ctx.num_outputs() > 1) {
      int64_t* first = ctx.output(1, DatumType::I64, {u}).data<int64_t>();
      for (int64_t g = 0; g < u; g++) first[g] = groups[g].front();
    }
    if (ctx.num_outputs() > 2) {
      int64_t* inverse = ctx.output(2, DatumType::I64, {n}).data<int64_t>();
      for (int64_t g = 0; g < u; g++)
        for (int64_t k : groups[g]) inverse[k] = g;
    }
    if (ctx.num_outputs() > 3) {
      int64_t* counts = ctx.output(3, DatumType::I64, {u}).data<int64_t>();
      for (int64_t g = 0; g < u; g++) counts[g] = static_cast<int64_t>(groups[g].size());
    }
  });
}

}  // namespace kiln::ops
