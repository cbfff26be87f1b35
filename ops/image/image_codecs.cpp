#include "ops/image/image_codecs.h"

#include <fmt/format.h>

#include <csetjmp>
#include <cstdio>
#include <cstring>

#include "base/error.h"

#ifdef KILN_HAVE_LIBJPEG
#include <jerror.h>
#include <jpeglib.h>
#endif
#ifdef KILN_HAVE_LIBPNG
#include <png.h>
#endif
#ifdef KILN_HAVE_LIBWEBP
#include <webp/decode.h>
#endif

namespace kiln::ops {

namespace {

bool starts_with(const uint8_t* data, size_t size, const char* magic, size_t n) {
  return size >= n && std::memcmp(data, magic, n) == 0;
}

// Checks the declared size against the cap and returns the [h, w, 3] pixel tensor.
Tensor pixel_tensor(const char* format, int64_t width, int64_t height, int64_t max_pixels) {
  KILN_ENSURE(width > 0 && height > 0, "{} image of {} x {} pixels: nothing to decode", format,
              width, height);
  KILN_ENSURE(width <= max_pixels / height,
              "{} image declares {} x {} pixels, more than the limit of {} pixels", format, width,
              height, max_pixels);
  return Tensor(DatumType::U8, Shape{height, width, 3});
}

// ---- JPEG (libjpeg / libjpeg-turbo) ----
#ifdef KILN_HAVE_LIBJPEG
struct JpegError {
  jpeg_error_mgr mgr;  // first: libjpeg hands the error manager back as cinfo->err
  std::jmp_buf jump;
  char message[JMSG_LENGTH_MAX];
  bool truncated;
};

// libjpeg's default error_exit calls exit(): this one returns to the setjmp of the phase that
// failed, with the message kept.
void jpeg_on_error(j_common_ptr cinfo) {
  auto* e = reinterpret_cast<JpegError*>(cinfo->err);
  (*cinfo->err->format_message)(cinfo, e->message);
  std::longjmp(e->jump, 1);
}

// Warnings are counted, not printed; a premature end of data marks the image truncated (libjpeg
// would fill the rest with gray).
void jpeg_on_message(j_common_ptr cinfo, int level) {
  if (level >= 0) return;
  auto* e = reinterpret_cast<JpegError*>(cinfo->err);
  if (cinfo->err->msg_code == JWRN_JPEG_EOF) e->truncated = true;
  cinfo->err->num_warnings++;
}

// The phases below hold no C++ object with a destructor: longjmp may leave them.
bool jpeg_header_phase(jpeg_decompress_struct* cinfo, JpegError* e, const uint8_t* data,
                       size_t size) {
  if (setjmp(e->jump)) return false;
  jpeg_create_decompress(cinfo);
  // Past this, big progressive images need backing store, which Debian's libjpeg lacks: an
  // error, not a swap storm.
  cinfo->mem->max_memory_to_use = 512L << 20;
  jpeg_mem_src(cinfo, data, static_cast<unsigned long>(size));
  jpeg_read_header(cinfo, TRUE);
  cinfo->out_color_space = JCS_RGB;
  jpeg_calc_output_dimensions(cinfo);
  return true;
}

bool jpeg_pixels_phase(jpeg_decompress_struct* cinfo, JpegError* e, uint8_t* out) {
  if (setjmp(e->jump)) return false;
  jpeg_start_decompress(cinfo);
  if (cinfo->output_components != 3) {
    std::snprintf(e->message, sizeof e->message, "decodes to %d components, not 3",
                  cinfo->output_components);
    return false;
  }
  const size_t stride = static_cast<size_t>(cinfo->output_width) * 3;
  while (cinfo->output_scanline < cinfo->output_height) {
    JSAMPROW row = out + static_cast<size_t>(cinfo->output_scanline) * stride;
    if (jpeg_read_scanlines(cinfo, &row, 1) != 1) break;
  }
  jpeg_finish_decompress(cinfo);
  return true;
}

struct JpegGuard {
  jpeg_decompress_struct* cinfo;
  ~JpegGuard() { jpeg_destroy_decompress(cinfo); }
};

Tensor decode_jpeg(const uint8_t* data, size_t size, int64_t max_pixels) {
  jpeg_decompress_struct cinfo;
  std::memset(&cinfo, 0, sizeof cinfo);
  JpegError e;
  std::memset(&e, 0, sizeof e);
  cinfo.err = jpeg_std_error(&e.mgr);
  e.mgr.error_exit = jpeg_on_error;
  e.mgr.emit_message = jpeg_on_message;
  JpegGuard guard{&cinfo};
  KILN_ENSURE(jpeg_header_phase(&cinfo, &e, data, size), "JPEG: {}", e.message);
  Tensor out = pixel_tensor("JPEG", cinfo.output_width, cinfo.output_height, max_pixels);
  KILN_ENSURE(jpeg_pixels_phase(&cinfo, &e, out.data<uint8_t>()), "JPEG: {}", e.message);
  KILN_ENSURE(!e.truncated, "JPEG: truncated data (premature end of the JPEG stream)");
  return out;
}
#endif

// ---- PNG (libpng) ----
#ifdef KILN_HAVE_LIBPNG
struct PngSource {
  const uint8_t* data;
  size_t size;
  size_t at;
  char message[256];
};

// libpng's default error handler would print to stderr; this one keeps the message and returns
// to the setjmp of the phase that failed.
void png_on_error(png_structp png, png_const_charp message) {
  auto* s = static_cast<PngSource*>(png_get_error_ptr(png));
  std::snprintf(s->message, sizeof s->message, "%s", message);
  png_longjmp(png, 1);
}
void png_on_warning(png_structp, png_const_charp) {}

void png_read_memory(png_structp png, png_bytep out, png_size_t n) {
  auto* s = static_cast<PngSource*>(png_get_io_ptr(png));
  if (n > s->size - s->at) png_error(png, "truncated data");
  std::memcpy(out, s->data + s->at, n);
  s->at += n;
}

// Reads the header and sets the transforms to 8-bit RGB: palettes expanded, 16-bit samples cut
// to their high byte, alpha dropped, gray replicated (as PIL's convert("RGB")). No gamma.
bool png_header_phase(png_structp png, png_infop info, PngSource* s, uint32_t* width,
                      uint32_t* height, int* passes) {
  if (setjmp(png_jmpbuf(png))) return false;
  png_set_read_fn(png, s, png_read_memory);
  png_set_user_limits(png, 0x7fffffff, 0x7fffffff);  // the pixel cap is checked by the caller
  png_read_info(png, info);
  const int color = png_get_color_type(png, info);
  png_set_expand(png);
  if (png_get_bit_depth(png, info) == 16) png_set_strip_16(png);
  png_set_strip_alpha(png);
  if (color == PNG_COLOR_TYPE_GRAY || color == PNG_COLOR_TYPE_GRAY_ALPHA) png_set_gray_to_rgb(png);
  *passes = png_set_interlace_handling(png);
  png_read_update_info(png, info);
  *width = png_get_image_width(png, info);
  *height = png_get_image_height(png, info);
  if (png_get_rowbytes(png, info) != static_cast<size_t>(*width) * 3)
    png_error(png, "unexpected row size after conversion to RGB");
  return true;
}

bool png_pixels_phase(png_structp png, png_infop info, uint8_t* out, uint32_t width,
                      uint32_t height, int passes) {
  if (setjmp(png_jmpbuf(png))) return false;
  const size_t stride = static_cast<size_t>(width) * 3;
  for (int p = 0; p < passes; p++)
    for (uint32_t y = 0; y < height; y++) png_read_row(png, out + y * stride, nullptr);
  png_read_end(png, info);
  return true;
}

struct PngGuard {
  png_structp png;
  png_infop info;
  ~PngGuard() { png_destroy_read_struct(&png, info ? &info : nullptr, nullptr); }
};

Tensor decode_png(const uint8_t* data, size_t size, int64_t max_pixels) {
  PngSource s;
  std::memset(&s, 0, sizeof s);
  s.data = data;
  s.size = size;
  png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &s, png_on_error, png_on_warning);
  KILN_ENSURE(png, "PNG: out of memory");
  PngGuard guard{png, png_create_info_struct(png)};
  KILN_ENSURE(guard.info, "PNG: out of memory");
  uint32_t width = 0, height = 0;
  int passes = 1;
  KILN_ENSURE(png_header_phase(png, guard.info, &s, &width, &height, &passes), "PNG: {}",
              s.message);
  Tensor out = pixel_tensor("PNG", width, height, max_pixels);
  KILN_ENSURE(png_pixels_phase(png, guard.info, out.data<uint8_t>(), width, height, passes),
              "PNG: {}", s.message);
  return out;
}
#endif

// ---- WebP (libwebp) ----
#ifdef KILN_HAVE_LIBWEBP
Tensor decode_webp(const uint8_t* data, size_t size, int64_t max_pixels) {
  int width = 0, height = 0;
  KILN_ENSURE(WebPGetInfo(data, size, &width, &height), "WebP: not a valid WebP header");
  Tensor out = pixel_tensor("WebP", width, height, max_pixels);
  KILN_ENSURE(WebPDecodeRGBInto(data, size, out.data<uint8_t>(), static_cast<size_t>(out.numel()),
                                width * 3),
              "WebP: corrupt or truncated data");
  return out;
}
#endif

// ---- BMP (kiln's own reader: uncompressed 1/4/8-bit palettes, 24-bit, 32-bit) ----
class ByteReader {
 public:
  ByteReader(const uint8_t* data, size_t size, const char* format)
      : data_(data), size_(size), format_(format) {}
  uint32_t u16(size_t at) const {
    need(at, 2);
    return static_cast<uint32_t>(data_[at] | data_[at + 1] << 8);
  }
  uint32_t u32(size_t at) const {
    need(at, 4);
    return static_cast<uint32_t>(data_[at]) | static_cast<uint32_t>(data_[at + 1]) << 8 |
           static_cast<uint32_t>(data_[at + 2]) << 16 | static_cast<uint32_t>(data_[at + 3]) << 24;
  }
  void need(size_t at, size_t n) const {
    KILN_ENSURE(at <= size_ && n <= size_ - at, "{}: truncated data ({} bytes, {} needed)", format_,
                size_, at + n);
  }
  const uint8_t* at(size_t offset) const { return data_ + offset; }

 private:
  const uint8_t* data_;
  size_t size_;
  const char* format_;
};

Tensor decode_bmp(const uint8_t* data, size_t size, int64_t max_pixels) {
  ByteReader r(data, size, "BMP");
  const size_t pixels_at = r.u32(10);
  const uint32_t header = r.u32(14);
  int64_t width = 0, height = 0;
  uint32_t bpp = 0, compression = 0, colors = 0;
  size_t palette_at = 14 + static_cast<size_t>(header), palette_entry = 4;
  if (header == 12) {  // BITMAPCOREHEADER
    width = r.u16(18);
    height = static_cast<int16_t>(r.u16(20));
    bpp = r.u16(24);
    palette_entry = 3;
  } else if (header >= 40 && header <= 124) {  // BITMAPINFOHEADER and its V2..V5 extensions
    width = static_cast<int32_t>(r.u32(18));
    height = static_cast<int32_t>(r.u32(22));
    bpp = r.u16(28);
    compression = r.u32(30);
    colors = r.u32(46);
  } else {
    fail("BMP: unsupported header size {}", header);
  }
  const bool top_down = height < 0;
  if (top_down) height = -height;
  if (compression == 3 && bpp == 32) {  // BI_BITFIELDS: only the usual BGRX / BGRA layout
    const size_t masks = 54;            // after a 40-byte header, or inside a V2..V5 header
    KILN_ENSURE(r.u32(masks) == 0x00ff0000u && r.u32(masks + 4) == 0x0000ff00u &&
                    r.u32(masks + 8) == 0x000000ffu,
                "BMP: 32-bit bit fields other than 8-bit B, G, R are not supported");
    if (header == 40) palette_at += 12;
  } else if (compression == 1 || compression == 2) {
    fail("BMP: run-length encoded (RLE{}) images are not supported", compression == 1 ? 8 : 4);
  } else {
    KILN_ENSURE(compression == 0, "BMP: compression {} is not supported", compression);
  }
  KILN_ENSURE(bpp == 1 || bpp == 4 || bpp == 8 || bpp == 24 || bpp == 32,
              "BMP: {} bits per pixel is not supported (1, 4, 8, 24, 32)", bpp);
  Tensor out = pixel_tensor("BMP", width, height, max_pixels);
  const size_t row_bytes = (static_cast<size_t>(width) * bpp + 31) / 32 * 4;
  r.need(pixels_at, row_bytes * static_cast<size_t>(height));
  uint32_t palette_size = 0;
  if (bpp <= 8) {
    palette_size = colors ? colors : 1u << bpp;
    KILN_ENSURE(palette_size <= 256, "BMP: palette of {} colors", palette_size);
    r.need(palette_at, palette_size * palette_entry);
  }
  uint8_t* o = out.data<uint8_t>();
  for (int64_t y = 0; y < height; y++) {
    const uint8_t* row =
        r.at(pixels_at + row_bytes * static_cast<size_t>(top_down ? y : height - 1 - y));
    uint8_t* dst = o + y * width * 3;
    for (int64_t x = 0; x < width; x++, dst += 3) {
      if (bpp >= 24) {
        const uint8_t* p = row + x * (bpp / 8);
        dst[0] = p[2];
        dst[1] = p[1];
        dst[2] = p[0];
        continue;
      }
      const int64_t bit = x * bpp;
      const uint32_t index = (row[bit / 8] >> (8 - bpp - bit % 8)) & ((1u << bpp) - 1);
      if (index >= palette_size) {
        dst[0] = dst[1] = dst[2] = 0;
        continue;
      }
      const uint8_t* c = r.at(palette_at + index * palette_entry);
      dst[0] = c[2];
      dst[1] = c[1];
      dst[2] = c[0];
    }
  }
  return out;
}

// ---- binary PNM: P5 (gray) and P6 (RGB), maxval 255 ----
Tensor decode_pnm(const uint8_t* data, size_t size, int64_t max_pixels) {
  KILN_ENSURE(size >= 2 && (data[1] == '5' || data[1] == '6'),
              "PNM: only binary P5 (PGM) and P6 (PPM) images are supported");
  const bool rgb = data[1] == '6';
  size_t at = 2;
  int64_t fields[3] = {0, 0, 0};
  for (int64_t& f : fields) {
    for (;;) {  // whitespace and comments
      KILN_ENSURE(at < size, "PNM: truncated header");
      if (data[at] == '#') {
        while (at < size && data[at] != '\n') at++;
      } else if (data[at] == ' ' || data[at] == '\t' || data[at] == '\n' || data[at] == '\r') {
        at++;
      } else {
        break;
      }
    }
    KILN_ENSURE(data[at] >= '0' && data[at] <= '9', "PNM: malformed header");
    int digits = 0;
    while (at < size && data[at] >= '0' && data[at] <= '9') {
      KILN_ENSURE(++digits <= 9, "PNM: header number too large");
      f = f * 10 + (data[at++] - '0');
    }
  }
  KILN_ENSURE(at < size, "PNM: truncated header");
  at++;  // the one whitespace byte before the pixels
  KILN_ENSURE(fields[2] == 255, "PNM: maxval {} is not supported (255)", fields[2]);
  Tensor out = pixel_tensor("PNM", fields[0], fields[1], max_pixels);
  const int64_t n = fields[0] * fields[1];
  ByteReader(data, size, "PNM").need(at, static_cast<size_t>(n * (rgb ? 3 : 1)));
  uint8_t* o = out.data<uint8_t>();
  if (rgb) {
    std::memcpy(o, data + at, static_cast<size_t>(n * 3));
  } else {
    for (int64_t i = 0; i < n; i++) o[3 * i] = o[3 * i + 1] = o[3 * i + 2] = data[at + i];
  }
  return out;
}

}  // namespace

ImageFormat sniff_image_format(const uint8_t* data, size_t size) {
  if (starts_with(data, size, "\xFF\xD8\xFF", 3)) return ImageFormat::Jpeg;
  if (starts_with(data, size, "\x89PNG\r\n\x1A\n", 8)) return ImageFormat::Png;
  if (starts_with(data, size, "BM", 2)) return ImageFormat::Bmp;
  if (size >= 12 && starts_with(data, size, "RIFF", 4) && std::memcmp(data + 8, "WEBP", 4) == 0)
    return ImageFormat::WebP;
  if (starts_with(data, size, "II*\0", 4) || starts_with(data, size, "MM\0*", 4))
    return ImageFormat::Tiff;
  if (starts_with(data, size, "\0\0\0\x0CjP  ", 8) ||
      starts_with(data, size, "\xFF\x4F\xFF\x51", 4))
    return ImageFormat::Jpeg2000;
  if (starts_with(data, size, "GIF8", 4)) return ImageFormat::Gif;
  if (size >= 2 && data[0] == 'P' && data[1] >= '1' && data[1] <= '7') return ImageFormat::Pnm;
  return ImageFormat::Unknown;
}

const char* image_format_name(ImageFormat format) {
  switch (format) {
    case ImageFormat::Jpeg:
      return "JPEG";
    case ImageFormat::Png:
      return "PNG";
    case ImageFormat::Bmp:
      return "BMP";
    case ImageFormat::WebP:
      return "WebP";
    case ImageFormat::Tiff:
      return "TIFF";
    case ImageFormat::Jpeg2000:
      return "JPEG 2000";
    case ImageFormat::Pnm:
      return "PNM";
    case ImageFormat::Gif:
      return "GIF";
    case ImageFormat::Unknown:
      break;
  }
  return "unknown";
}

bool image_format_supported(ImageFormat format) {
  switch (format) {
    case ImageFormat::Bmp:
    case ImageFormat::Pnm:
      return true;
#ifdef KILN_HAVE_LIBJPEG
    case ImageFormat::Jpeg:
      return true;
#endif
#ifdef KILN_HAVE_LIBPNG
    case ImageFormat::Png:
      return true;
#endif
#ifdef KILN_HAVE_LIBWEBP
    case ImageFormat::WebP:
      return true;
#endif
    default:
      return false;
  }
}

Tensor decode_image_rgb(const uint8_t* data, size_t size, int64_t max_pixels) {
  KILN_ENSURE(size > 0, "empty encoded image");
  const ImageFormat format = sniff_image_format(data, size);
  if (format == ImageFormat::Unknown) {
    std::string head;
    for (size_t i = 0; i < size && i < 8; i++) head += fmt::format("{:02x}", data[i]);
    fail("not an image format kiln recognizes (first bytes {})", head);
  }
  switch (format) {
#ifdef KILN_HAVE_LIBJPEG
    case ImageFormat::Jpeg:
      return decode_jpeg(data, size, max_pixels);
#endif
#ifdef KILN_HAVE_LIBPNG
    case ImageFormat::Png:
      return decode_png(data, size, max_pixels);
#endif
#ifdef KILN_HAVE_LIBWEBP
    case ImageFormat::WebP:
      return decode_webp(data, size, max_pixels);
#endif
    case ImageFormat::Bmp:
      return decode_bmp(data, size, max_pixels);
    case ImageFormat::Pnm:
      return decode_pnm(data, size, max_pixels);
    default:
      break;
  }
  const char* library = format == ImageFormat::Jpeg   ? " (kiln was built without libjpeg)"
                        : format == ImageFormat::Png  ? " (kiln was built without libpng)"
                        : format == ImageFormat::WebP ? " (kiln was built without libwebp)"
                                                      : "";
  fail("{} images are not supported by this build of kiln{}", image_format_name(format), library);
}

}  // namespace kiln::ops
