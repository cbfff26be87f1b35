#include "ops/image/image_decoder.h"

#include <utility>

#include "base/error.h"
#include "ops/image/image_codecs.h"

namespace kiln::ops {

Attributes ImageDecoder::attributes() const {
  return {{"pixel_format", format_ == PixelFormat::Rgb   ? "RGB"
                           : format_ == PixelFormat::Bgr ? "BGR"
                                                         : "Grayscale"}};
}

std::vector<Fact> ImageDecoder::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 1, 1);
  const Fact& x = required(inputs, 0, name());
  KILN_ENSURE(x.dt == DatumType::U8, "ImageDecoder: encoded_stream must be u8, got {}",
              name_of(x.dt));
  const int64_t channels = format_ == PixelFormat::Grayscale ? 1 : 3;
  return {Fact(DatumType::U8, std::vector<Dim>{Dim::fresh(), Dim::fresh(), Dim(channels)})};
}

void ImageDecoder::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& x = required(inputs, 0, name());
  Tensor rgb = decode_image_rgb(x.data<uint8_t>(), static_cast<size_t>(x.numel()));
  const int64_t h = rgb.dim(0), w = rgb.dim(1), n = h * w;
  uint8_t* p = rgb.data<uint8_t>();
  if (format_ == PixelFormat::Grayscale) {
    Tensor& y = ctx.output(0, DatumType::U8, Shape{h, w, 1});
    uint8_t* g = y.data<uint8_t>();
    for (int64_t i = 0; i < n; i++, p += 3)
      g[i] = static_cast<uint8_t>((p[0] * 19595u + p[1] * 38470u + p[2] * 7471u + 0x8000u) >> 16);
    return;
  }
  if (format_ == PixelFormat::Bgr)
    for (int64_t i = 0; i < n; i++, p += 3) std::swap(p[0], p[2]);
  ctx.set_output(0, std::move(rgb));
}

Cost ImageDecoder::cost(const FactRefs&) const {
  Cost c;
  c.other = Dim(1);  // per image: its size is known only once decoded
  return c;
}

}  // namespace kiln::ops
