#include "ops/image/depth_to_space.h"

namespace kiln::ops {

std::vector<Fact> DepthToSpace::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 1, 1);
  const Fact& x = required(inputs, 0, name());
  KILN_ENSURE(blocksize_ >= 1 && blocksize_ <= kMaxBlocksize,
              "DepthToSpace: blocksize must be in [1, {}], got {}", kMaxBlocksize, blocksize_);
  KILN_ENSURE(x.rank() == 4, "DepthToSpace: input must have rank 4, got {}", x.rank());
  const int64_t bb = blocksize_ * blocksize_;
  if (x.shape[1].is_int())
    KILN_ENSURE(x.shape[1].to_int() % bb == 0,
                "DepthToSpace: {} channels not divisible by blocksize^2 = {}", x.shape[1].to_int(),
                bb);
  return {Fact(x.dt, std::vector<Dim>{x.shape[0], x.shape[1].div(bb), x.shape[2] * Dim(blocksize_),
                                      x.shape[3] * Dim(blocksize_)})};
}

void DepthToSpace::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& x = required(inputs, 0, name());
  KILN_ENSURE(x.rank() == 4, "DepthToSpace: input must have rank 4, got {}", x.rank());
  const int64_t b = blocksize_, n = x.dim(0), c = x.dim(1), h = x.dim(2), w = x.dim(3);
  KILN_ENSURE(b >= 1 && b <= kMaxBlocksize && c % (b * b) == 0,
              "DepthToSpace: {} channels not divisible by blocksize^2 = {}", c, b * b);
  const int64_t oc = c / (b * b);
  int64_t oh = 0, ow = 0;
  // An empty input may declare huge spatial dims (fuzz finding 29).
  KILN_ENSURE(!__builtin_mul_overflow(h, b, &oh) && !__builtin_mul_overflow(w, b, &ow),
              "DepthToSpace: spatial dims {}x{} are too large", h, w);
  Tensor& y = ctx.output(0, x.dtype(), {n, oc, oh, ow});
  if (x.numel() == 0) return;  // its loops would still walk the non-zero dims, up to 2^62
  dispatch_any(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* px = x.data<T>();
    T* py = y.data<T>();
    for (int64_t in = 0; in < n; in++)
      for (int64_t ic = 0; ic < oc; ic++)
        for (int64_t ih = 0; ih < h; ih++)
          for (int64_t i = 0; i < b; i++)
            for (int64_t iw = 0; iw < w; iw++)
              for (int64_t j = 0; j < b; j++) {
                int64_t src_c = crd_ ? ic * b * b + i * b + j : (i * b + j) * oc + ic;
                int64_t dst = ((in * oc + ic) * h * b + ih * b + i) * w * b + iw * b + j;
                py[dst] = px[((in * c + src_c) * h + ih) * w + iw];
              }
  });
}

}  // namespace kiln::ops
