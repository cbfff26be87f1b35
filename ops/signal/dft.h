// DFT: discrete Fourier transform along one axis of a real ([..., 1]) or complex ([..., 2])
// signal; optional zero-padding/truncation to dft_length, inverse, one-sided output.
#pragma once

#include "core/op.h"

namespace kiln::ops {

class Dft : public Op {
 public:
  // axis counts the batch axis (ONNX: 1 is the first signal axis); negative values count from
  // the back of all the dims ([-r, -2]: -2 is the last signal axis), as the spec says.
  Dft(int64_t axis, bool inverse, bool onesided)
      : axis_(axis), inverse_(inverse), onesided_(onesided) {}
  std::string name() const override { return "DFT"; }
  Attributes attributes() const override;
  // inputs: signal, optional dft_length (scalar), optional axis (scalar, opset 20)
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs& inputs) const override;

 private:
  size_t resolve_axis(const FactRefs& inputs, size_t rank) const;
  int64_t axis_;
  bool inverse_;
  bool onesided_;
};

// One DFT of `length` complex samples read from `in` (stride in complex elements, `in_len`
// available samples, zero beyond), writing `out_len` bins to `out` (stride out_stride).
// Plain O(n^2) reference with exact twiddle angles; complex numbers as (re, im) pairs.
void dft_1d(const double* in_re, const double* in_im, int64_t in_len, int64_t in_stride,
            int64_t length, bool inverse, double* out_re, double* out_im, int64_t out_len,
            int64_t out_stride);

}  // namespace kiln::ops
