// ImageDecoder (ONNX 20): encoded image bytes (a u8 tensor, 1-D) to a u8 image [H, W, C], channels
// last: RGB or BGR (C = 3) or Grayscale (C = 1, L = (19595 R + 38470 G + 7471 B + 2^15) >> 16, the
// ITU-R 601 luma as PIL's convert("L") computes it). Formats: ops/image/image_codecs.h. Where the
// spec returns an empty image for bytes it cannot decode, kiln fails with an error naming the
// format and the reason.
#pragma once

#include "core/op.h"

namespace kiln::ops {

enum class PixelFormat { Rgb, Bgr, Grayscale };

class ImageDecoder : public Op {
 public:
  explicit ImageDecoder(PixelFormat format) : format_(format) {}
  std::string name() const override { return "ImageDecoder"; }
  bool same_as(const Op& other) const override {
    return same_fields(*this, other, [](const ImageDecoder& o) { return std::tie(o.format_); });
  }
  Attributes attributes() const override;
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs& inputs) const override;

 private:
  PixelFormat format_;
};

}  // namespace kiln::ops
