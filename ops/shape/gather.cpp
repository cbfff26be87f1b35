#include "ops/shape/gather.h"

#include "ops/shape/common.h"

namespace kiln::ops {

int64_t checked_index(int64_t index, int64_t dim, const char* op) {
  KILN_ENSURE(index >= -dim && index < dim, "{}: index {} out of range for dim {}", op, index, dim);
  return index < 0 ? index + dim : index;
}

std::vector<Fact> Gather::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 2, 2);
  const Fact& data = required(inputs, 0, name());
  const Fact& indices = required(inputs, 1, name());
  KILN_ENSURE(data.rank() >= 1, "Gather: data must have rank >= 1");
  KILN_ENSURE(is_integer(indices.dt), "Gather: indices must be integers, got {}",
              name_of(indices.dt));
  size_t axis = normalize_axis(axis_, data.rank(), name());
  std::vector<Dim> shape(data.shape.begin(), data.shape.begin() + static_cast<long>(axis));
  shape.insert(shape.end(), indices.shape.begin(), indices.shape.end());
  shape.insert(shape.end(), data.shape.begin() + static_cast<long>(axis) + 1, data.shape.end());
  if (data.dims_value && data.rank() == 1 && indices.rank() <= 1) {
    if (auto idx = indices.known_i64_values()) {
      const auto& dv = *data.dims_value;
      std::vector<Dim> picked;
      for (int64_t i : *idx)
        picked.push_back(
            dv[static_cast<size_t>(checked_index(i, static_cast<int64_t>(dv.size()), "Gather"))]);
      return {fact_from_dims_value(data.dt, shape, picked)};
    }
  }
  return {Fact(data.dt, shape)};
}

void Gather::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& data = required(inputs, 0, name());
  const Tensor& indices = required(inputs, 1, name());
  size_t axis = normalize_axis(axis_, data.rank(), name());
  KILN_ENSURE(is_integer(indices.dtype()), "{}: indices must be integers, got {}", name(),
              name_of(indices.dtype()));
  const size_t n_idx = static_cast<size_t>(indices.numel());
  std::span<int64_t> idx(ctx.scratch<int64_t>(n_idx), n_idx);
  for (size_t i = 0; i < n_idx; i++) idx[i] = indices.value_as_i64(static_cast<int64_t>(i));
  Shape& shape = ctx.temp_shape(0);
  shape.assign(data.shape().begin(), data.shape().begin() + static_cast<long>(axis));
  shape.insert(shape.end(), indices.shape().begin(), indices.shape().end());
  shape.insert(shape.end(), data.shape().begin() + static_cast<long>(axis) + 1, data.shape().end());
  const int64_t dim = data.dim(axis);
  for (auto& i : idx) i = checked_index(i, dim, "Gather");
  Tensor& out = ctx.output(0, data.dtype(), shape);
  // Nothing to copy (and the products of huge declared dims around an empty one need not fit).
  if (out.numel() == 0) return;
  int64_t outer = 1, inner = 1;
  for (size_t d = 0; d < axis; d++) outer *= data.dim(d);
  for (size_t d = axis + 1; d < data.rank(); d++) inner *= data.dim(d);
  int64_t n = static_cast<int64_t>(idx.size());
  dispatch_any(data.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* src = data.data<T>();
    T* dst = out.data<T>();
    for (int64_t o = 0; o < outer; o++)
      for (int64_t j = 0; j < n; j++) {
        const T* s = src + (o * dim + idx[static_cast<size_t>(j)]) * inner;
        T* d = dst + (o * n + j) * inner;
        for (int64_t k = 0; k < inner; k++) d[k] = s[k];
      }
  });
}

std::vector<Fact> GatherElements::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 2, 2);
  const Fact& data = required(inputs, 0, name());
  const Fact& indices = required(inputs, 1, name());
  KILN_ENSURE(data.rank() >= 1 && indices.rank() == data.rank(),
              "GatherElements: data [{}] and indices [{}] must have the same rank >= 1",
              dims_to_string(data.shape), dims_to_string(indices.shape));
  KILN_ENSURE(is_integer(indices.dt), "GatherElements: indices must be integers");
  normalize_axis(axis_, data.rank(), name());
  return {Fact(data.dt, indices.shape)};
}

void GatherElements::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& data = required(inputs, 0, name());
  const Tensor& indices = required(inputs, 1, name());
  KILN_ENSURE(indices.rank() == data.rank(), "GatherElements: rank mismatch");
  size_t axis = normalize_axis(axis_, data.rank(), name());
  auto idx = index_values(indices, name());
  auto dstrides = contiguous_strides(data.shape());
  const Shape& ishape = indices.shape();
  for (size_t d = 0; d < data.rank(); d++)
    KILN_ENSURE(d == axis || ishape[d] <= data.dim(d),
                "GatherElements: indices [{}] larger than data [{}] on axis {}",
                shape_to_string(ishape), shape_to_string(data.shape()), d);
  Tensor& out = ctx.output(0, data.dtype(), ishape);
  dispatch_any(data.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* src = data.data<T>();
    T* dst = out.data<T>();
    std::vector<int64_t> pos(ishape.size(), 0);
    for (size_t i = 0; i < idx.size(); i++) {
      int64_t off = 0;
      for (size_t d = 0; d < pos.size(); d++) {
        int64_t p = d == axis ? checked_index(idx[i], data.dim(d), "GatherElements") : pos[d];
        off += p * dstrides[d];
      }
      dst[i] = src[off];
      for (size_t d = pos.size(); d-- > 0;) {
        if (++pos[d] < ishape[d]) break;
        pos[d] = 0;
      }
    }
  });
}

std::vector<Fact> GatherND::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 2, 2);
  const Fact& data = required(inputs, 0, name());
  const Fact& indices = required(inputs, 1, name());
  KILN_ENSURE(is_integer(indices.dt), "GatherND: indices must be integers");
  size_t b = static_cast<size_t>(batch_dims_);
  KILN_ENSURE(batch_dims_ >= 0 && indices.rank() >= 1 && b < indices.rank() && b < data.rank(),
              "GatherND: batch_dims {} too large for data [{}] and indices [{}]", batch_dims_,
              dims_to_string(data.shape), dims_to_string(indices.shape));
  int64_t last = indices.shape.back().to_int();
  KILN_ENSURE(last >= 1 && b + static_cast<size_t>(last) <= data.rank(),
              "GatherND: indices last dim {} too large for data rank {}", last, data.rank());
  std::vector<Dim> shape(indices.shape.begin(), indices.shape.end() - 1);
  shape.insert(shape.end(), data.shape.begin() + static_cast<long>(b) + last, data.shape.end());
  return {Fact(data.dt, shape)};
}

void GatherND::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& data = required(inputs, 0, name());
  const Tensor& indices = required(inputs, 1, name());
  size_t b = static_cast<size_t>(batch_dims_);
  KILN_ENSURE(batch_dims_ >= 0 && indices.rank() >= 1 && b < indices.rank() && b < data.rank(),
              "GatherND: batch_dims {} too large", batch_dims_);
  int64_t last = indices.shape().back();
  KILN_ENSURE(last >= 1 && b + static_cast<size_t>(last) <= data.rank(),
              "GatherND: indices last dim {} too large for data rank {}", last, data.rank());
  auto idx = index_values(indices, name());
  Shape shape(indices.shape().begin(), indices.shape().end() - 1);
  shape.insert(shape.end(), data.shape().begin() + static_cast<long>(b) + last, data.shape().end());
  int64_t batch = 1;
  for (size_t d = 0; d < b; d++) {
    KILN_ENSURE(data.dim(d) == indices.dim(d), "GatherND: batch dims of data and indices differ");
    batch *= data.dim(d);
  }
  int64_t per_batch = 1;  // index tuples per batch
  for (size_t d = b; d + 1 < indices.rank(); d++) per_batch *= indices.dim(d);
  int64_t slice = 1;
  for (size_t d = b + static_cast<size_t>(last); d < data.rank(); d++) slice *= data.dim(d);
  auto strides = contiguous_strides(data.shape());
  int64_t batch_stride = b == 0 ? 0 : strides[b - 1];
  Tensor& out = ctx.output(0, data.dtype(), shape);
  dispatch_any(data.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* src = data.data<T>();
    T* dst = out.data<T>();
    for (int64_t bi = 0; bi < batch; bi++)
      for (int64_t t = 0; t < per_batch; t++) {
        const int64_t* tuple = idx.data() + (bi * per_batch + t) * last;
        int64_t off = bi * batch_stride;
        for (int64_t k = 0; k < last; k++) {
          size_t d = b + static_cast<size_t>(k);
          off += checked_index(tuple[k], data.dim(d), "GatherND") * strides[d];
        }
        T* o = dst + (bi * per_batch + t) * slice;
        for (int64_t k = 0; k < slice; k++) o[k] = src[off + k];
      }
  });
}

}  // namespace kiln::ops
