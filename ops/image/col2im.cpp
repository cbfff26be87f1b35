#include "ops/image/col2im.h"

#include <algorithm>

#include "base/error.h"

namespace kiln::ops {

Attributes Col2Im::attributes() const {
  Attributes a;
  if (!dilations_.empty()) a.push_back({"dilations", ints_to_string(dilations_)});
  if (!pads_.empty()) a.push_back({"pads", ints_to_string(pads_)});
  if (!strides_.empty()) a.push_back({"strides", ints_to_string(strides_)});
  return a;
}

std::vector<int64_t> Col2Im::geometry(const std::vector<int64_t>& v, size_t n, int64_t dflt) const {
  if (v.empty()) return std::vector<int64_t>(n, dflt);
  KILN_ENSURE(v.size() == n, "Col2Im: {} values where {} spatial axes need {}", v.size(), n, n);
  return v;
}

std::vector<Fact> Col2Im::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 3, 3);
  const Fact& x = required(inputs, 0, name());
  const Fact& image = required(inputs, 1, name());
  const Fact& block = required(inputs, 2, name());
  KILN_ENSURE(x.rank() == 3, "Col2Im: input must be 3-D [N, C*prod(block), L], got rank {}",
              x.rank());
  KILN_ENSURE(
      is_integer(image.dt) && image.rank() == 1 && is_integer(block.dt) && block.rank() == 1,
      "Col2Im: image_shape and block_shape must be 1-D integer tensors");
  std::vector<Dim> shape{x.shape[0]};
  auto image_v = image.known_i64_values();
  auto block_v = block.known_i64_values();
  if (!image_v || !block_v) {
    shape.push_back(Dim::fresh());
    if (auto n = image.shape[0].as_int())
      for (int64_t i = 0; i < *n; i++) shape.push_back(Dim::fresh());
    else
      return {Fact(x.dt, std::vector<Dim>{})};
    return {Fact(x.dt, shape)};
  }
  KILN_ENSURE(image_v->size() == block_v->size() && !image_v->empty(),
              "Col2Im: image_shape has {} dims, block_shape {}", image_v->size(), block_v->size());
  int64_t block_size = 1;
  for (int64_t b : *block_v) {
    KILN_ENSURE(b > 0, "Col2Im: block dims must be positive");
    block_size *= b;
  }
  if (auto c = x.shape[1].as_int())
    KILN_ENSURE(*c % block_size == 0, "Col2Im: input dim 1 ({}) is not a multiple of {}", *c,
                block_size);
  shape.push_back(x.shape[1].div(block_size));
  for (int64_t d : *image_v) shape.push_back(d);
  return {Fact(x.dt, shape)};
}

void Col2Im::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& x = required(inputs, 0, name());
  std::vector<int64_t> image = required(inputs, 1, name()).to_i64_vector();
  std::vector<int64_t> block = required(inputs, 2, name()).to_i64_vector();
  const size_t n = image.size();
  KILN_ENSURE(x.rank() == 3 && n > 0 && block.size() == n,
              "Col2Im: image_shape and block_shape must have one value per spatial axis");
  auto dil = geometry(dilations_, n, 1);
  auto str = geometry(strides_, n, 1);
  auto pads = pads_.empty() ? std::vector<int64_t>(2 * n, 0) : pads_;
  KILN_ENSURE(pads.size() == 2 * n, "Col2Im: {} pads for {} spatial axes", pads.size(), n);
  int64_t block_size = 1, blocks = 1;
  std::vector<int64_t> counts(n);
  for (size_t d = 0; d < n; d++) {
    KILN_ENSURE(block[d] > 0 && image[d] > 0 && dil[d] > 0 && str[d] > 0,
                "Col2Im: dims, dilations and strides must be positive");
    block_size *= block[d];
    int64_t span = dil[d] * (block[d] - 1) + 1;
    counts[d] = (image[d] + pads[d] + pads[d + n] - span) / str[d] + 1;
    KILN_ENSURE(counts[d] > 0, "Col2Im: a block of {} does not fit in {} (padded)", span,
                image[d] + pads[d] + pads[d + n]);
    blocks *= counts[d];
  }
  KILN_ENSURE(x.dim(1) % block_size == 0, "Col2Im: input dim 1 ({}) is not a multiple of {}",
              x.dim(1), block_size);
  KILN_ENSURE(x.dim(2) == blocks,
              "Col2Im: input has {} blocks, image_shape and the geometry give {}", x.dim(2),
              blocks);
  const int64_t batch = x.dim(0), channels = x.dim(1) / block_size;
  Shape& out_shape = ctx.temp_shape(0);
  out_shape.assign({batch, channels});
  int64_t plane = 1;
  for (int64_t d : image) {
    out_shape.push_back(d);
    plane *= d;
  }
  Tensor& y = ctx.output(0, x.dtype(), out_shape);
  double* acc = ctx.scratch<double>(static_cast<size_t>(plane));
  int64_t* k = ctx.scratch<int64_t>(n);
  int64_t* p = ctx.scratch<int64_t>(n);
  dispatch_numeric(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* xd = x.data<T>();
    T* yd = y.data<T>();
    for (int64_t b = 0; b < batch; b++) {
      for (int64_t c = 0; c < channels; c++) {
        std::fill(acc, acc + plane, 0.0);
        for (int64_t kb = 0; kb < block_size; kb++) {
          for (int64_t r = kb, d = static_cast<int64_t>(n) - 1; d >= 0; d--) {
            k[d] = r % block[d];
            r /= block[d];
          }
          const T* col = xd + ((b * channels + c) * block_size + kb) * blocks;
          for (int64_t l = 0; l < blocks; l++) {
            int64_t r = l, offset = 0;
            bool inside = true;
            for (int64_t d = static_cast<int64_t>(n) - 1; d >= 0; d--) {
              p[d] = r % counts[d];
              r /= counts[d];
            }
            for (size_t d = 0; d < n && inside; d++) {
              int64_t pos = p[d] * str[d] + k[d] * dil[d] - pads[d];
              inside = pos >= 0 && pos < image[d];
              offset = offset * image[d] + pos;
            }
            if (inside) acc[offset] += static_cast<double>(col[l]);
          }
        }
        T* out = yd + (b * channels + c) * plane;
        for (int64_t i = 0; i < plane; i++) out[i] = static_cast<T>(acc[i]);
      }
    }
  });
}

}  // namespace kiln::ops
