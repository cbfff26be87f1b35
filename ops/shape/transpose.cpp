#include "ops/shape/transpose.h"

#include <algorithm>
#include <array>
#include <cstdint>

#include "core/broadcast.h"
#include "kernels/copy/strided_copy.h"
#include "ops/shape/common.h"

namespace kiln::ops {

Attributes Transpose::attributes() const {
  if (!perm_) return {};
  return {{"perm", ints_to_string(*perm_)}};
}

std::vector<size_t> Transpose::perm_for(size_t rank) const {
  std::vector<size_t> perm;
  if (!perm_) {
    for (size_t i = rank; i-- > 0;) perm.push_back(i);
    return perm;
  }
  KILN_ENSURE(perm_->size() == rank, "Transpose: perm {} has {} entries for rank {}",
              ints_to_string(*perm_), perm_->size(), rank);
  std::vector<bool> seen(rank, false);
  for (int64_t p : *perm_) {
    size_t a = normalize_axis(p, rank, name());
    KILN_ENSURE(!seen[a], "Transpose: perm {} repeats axis {}", ints_to_string(*perm_), p);
    seen[a] = true;
    perm.push_back(a);
  }
  return perm;
}

std::vector<Fact> Transpose::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 1, 1);
  const Fact& in = required(inputs, 0, name());
  std::vector<Dim> out;
  for (size_t a : perm_for(in.rank())) out.push_back(in.shape[a]);
  return {Fact(in.dt, out)};
}

namespace {
// Ranks past kSmallRank, with vectors.
void eval_large(EvalContext& ctx, const Tensor& in, const std::vector<size_t>& perm) {
  auto strides = contiguous_strides(in.shape());
  Shape out_shape;
  std::array<std::vector<int64_t>, 1> in_strides;
  for (size_t a : perm) {
    out_shape.push_back(in.dim(a));
    in_strides[0].push_back(strides[a]);
  }
  Tensor& out = ctx.output(0, in.dtype(), out_shape);
  if (!is_object(in.dtype())) {
    kernels::strided_copy(in.raw_data(), out.raw_data(), size_of(in.dtype()), out_shape,
                          in_strides[0]);
    return;
  }
  dispatch_any(in.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* src = in.data<T>();
    T* dst = out.data<T>();
    for_each_broadcast<1>(out_shape, in_strides,
                          [&](int64_t i, const std::array<int64_t, 1>& o) { dst[i] = src[o[0]]; });
  });
}
}  // namespace

void Transpose::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& in = required(inputs, 0, "Transpose");
  const size_t rank = in.rank();
  // The permutation and strides in fixed arrays (no allocation per run); perm_for words the
  // errors and serves ranks past kSmallRank.
  std::array<size_t, kSmallRank> perm{};
  bool valid = rank <= kSmallRank && (!perm_ || perm_->size() == rank);
  uint32_t seen = 0;
  for (size_t i = 0; valid && i < rank; i++) {
    int64_t p = perm_ ? (*perm_)[i] : static_cast<int64_t>(rank - 1 - i);
    if (p < 0) p += static_cast<int64_t>(rank);
    valid = p >= 0 && p < static_cast<int64_t>(rank) && !(seen & (1u << p));
    if (valid) {
      seen |= 1u << p;
      perm[i] = static_cast<size_t>(p);
    }
  }
  if (!valid) {
    auto checked = perm_for(rank);  // throws for a bad perm
    if (rank > kSmallRank) return eval_large(ctx, in, checked);
    std::copy(checked.begin(), checked.end(), perm.begin());
  }
  std::array<int64_t, kSmallRank> strides{};
  std::array<std::array<int64_t, kSmallRank>, 1> in_strides{};
  // Unsigned: an empty tensor declaring huge dims may wrap its strides (they address nothing).
  uint64_t stride = 1;
  for (size_t a = rank; a-- > 0;) {
    strides[a] = static_cast<int64_t>(stride);
    stride *= static_cast<uint64_t>(in.dim(a));
  }
  Shape& out_shape = ctx.temp_shape(0);
  for (size_t i = 0; i < rank; i++) {
    out_shape.push_back(in.dim(perm[i]));
    in_strides[0][i] = strides[perm[i]];
  }
  Tensor& out = ctx.output(0, in.dtype(), out_shape);
  if (!is_object(in.dtype())) {
    // Rows contiguous in the source as memcpy, transposed pairs in cache tiles (channel
    // shuffles are the first kind).
    kernels::strided_copy(in.raw_data(), out.raw_data(), size_of(in.dtype()), out_shape.data(),
                          in_strides[0].data(), rank);
    return;
  }
  dispatch_any(in.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* src = in.data<T>();
    T* dst = out.data<T>();
    for_each_broadcast<1>(out_shape, in_strides,
                          [&](int64_t i, const std::array<int64_t, 1>& o) { dst[i] = src[o[0]]; });
  });
}

}  // namespace kiln::ops
