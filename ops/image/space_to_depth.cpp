#include "ops/image/space_to_depth.h"

namespace kiln::ops {

std::vector<Fact> SpaceToDepth::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 1, 1);
  const Fact& x = required(inputs, 0, name());
  KILN_ENSURE(blocksize_ >= 1 && blocksize_ <= kMaxBlocksize,
              "SpaceToDepth: blocksize must be in [1, {}], got {}", kMaxBlocksize, blocksize_);
  KILN_ENSURE(x.rank() == 4, "SpaceToDepth: input must have rank 4, got {}", x.rank());
  for (size_t ax : {2, 3})
    if (x.shape[ax].is_int())
      KILN_ENSURE(x.shape[ax].to_int() % blocksize_ == 0,
                  "SpaceToDepth: dim {} ({}) not divisible by blocksize {}", ax,
                  x.shape[ax].to_int(), blocksize_);
  return {Fact(x.dt, std::vector<Dim>{x.shape[0], x.shape[1] * Dim(blocksize_ * blocksize_),
                                      x.shape[2].div(blocksize_), x.shape[3].div(blocksize_)})};
}

void SpaceToDepth::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& x = required(inputs, 0, name());
  KILN_ENSURE(x.rank() == 4, "SpaceToDepth: input must have rank 4, got {}", x.rank());
  const int64_t b = blocksize_, n = x.dim(0), c = x.dim(1), h = x.dim(2), w = x.dim(3);
  KILN_ENSURE(b >= 1 && b <= kMaxBlocksize && h % b == 0 && w % b == 0,
              "SpaceToDepth: spatial dims {}x{} not divisible by blocksize {}", h, w, b);
  const int64_t oh = h / b, ow = w / b;
  int64_t oc = 0;
  // An empty input may declare a huge channel count (fuzz finding 29).
  KILN_ENSURE(!__builtin_mul_overflow(c, b * b, &oc), "SpaceToDepth: {} channels are too many", c);
  Tensor& y = ctx.output(0, x.dtype(), {n, oc, oh, ow});
  if (x.numel() == 0) return;  // its loops would still walk the non-zero dims, up to 2^62
  dispatch_any(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* px = x.data<T>();
    T* py = y.data<T>();
    for (int64_t in = 0; in < n; in++)
      for (int64_t i = 0; i < b; i++)
        for (int64_t j = 0; j < b; j++)
          for (int64_t ic = 0; ic < c; ic++)
            for (int64_t ih = 0; ih < oh; ih++)
              for (int64_t iw = 0; iw < ow; iw++) {
                int64_t dst = ((in * oc + (i * b + j) * c + ic) * oh + ih) * ow + iw;
                py[dst] = px[((in * c + ic) * h + ih * b + i) * w + iw * b + j];
              }
  });
}

}  // namespace kiln::ops
