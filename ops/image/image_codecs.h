// Image decoding for ImageDecoder (ops/image/image_decoder.h): encoded bytes to 8-bit RGB
// pixels, row-major [height, width, 3]. JPEG through libjpeg(-turbo) and PNG through libpng when
// kiln is built with them (CMake finds them: KILN_HAVE_LIBJPEG, KILN_HAVE_LIBPNG), WebP through
// libwebp (KILN_HAVE_LIBWEBP), BMP and binary PNM (P5 / P6) by kiln itself. Hostile input
// (truncated, corrupt, or declaring more than max_pixels pixels) gets a kiln::Error naming the
// format, never a crash: the libraries' error handlers return here instead of exiting, and the
// pixel buffer is a Tensor, so the tensor memory budget (core/run_limits.h) applies too.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "core/tensor.h"

namespace kiln::ops {

// More pixels than this is refused before anything is allocated (an 8192 x 8192 image; a
// 48-megapixel photo fits).
inline constexpr int64_t kMaxDecodedPixels = int64_t{1} << 26;

enum class ImageFormat { Unknown, Jpeg, Png, Bmp, WebP, Tiff, Jpeg2000, Pnm, Gif };

// The format the first bytes announce (magic numbers), Unknown when none.
ImageFormat sniff_image_format(const uint8_t* data, size_t size);
const char* image_format_name(ImageFormat format);
// Whether this build decodes the format.
bool image_format_supported(ImageFormat format);

// Decodes to a U8 tensor [H, W, 3], RGB. Throws a kiln::Error on anything it cannot decode.
Tensor decode_image_rgb(const uint8_t* data, size_t size, int64_t max_pixels = kMaxDecodedPixels);

}  // namespace kiln::ops
