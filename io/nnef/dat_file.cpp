#include "io/nnef/dat_file.h"

#include <bit>
#include <cstring>

#include "base/error.h"

namespace kiln::nnef {

namespace {

constexpr size_t kHeaderSize = 128;
constexpr size_t kMaxRank = 8;
constexpr uint32_t kFloat = 0, kUint = 1, kQuint = 2, kQint = 3, kInt = 4, kBool = 5;
constexpr uint32_t kKilnVendor = (uint32_t('K') << 8) | uint32_t('L');
static_assert(std::endian::native == std::endian::little, "kiln's .dat code assumes little-endian");

uint32_t read_u32(std::string_view bytes, size_t offset) {
  uint32_t v;
  std::memcpy(&v, bytes.data() + offset, 4);
  return v;
}
void put_u32(std::string& out, size_t offset, uint32_t v) {
  std::memcpy(&out[offset], &v, 4);
}

// kiln's extension item types (vendor 'KL'): bf16 is a 16-bit float; the narrow types each
// have an item code of their own, 4-bit and 2-bit ones packed low bits first, as ONNX does.
struct KilnItem {
  DatumType dt;
  uint32_t item, bits;
};
const KilnItem kKilnItems[] = {
    {DatumType::BF16, kFloat, 16},    {DatumType::F8E4M3FN, 0x10, 8},
    {DatumType::F8E4M3FNUZ, 0x11, 8}, {DatumType::F8E5M2, 0x12, 8},
    {DatumType::F8E5M2FNUZ, 0x13, 8}, {DatumType::F8E8M0, 0x14, 8},
    {DatumType::F4E2M1, 0x15, 4},     {DatumType::I4, kInt, 4},
    {DatumType::U4, kUint, 4},        {DatumType::I2, kInt, 2},
    {DatumType::U2, kUint, 2},
};

DatumType type_of(uint32_t item, uint32_t vendor, uint32_t bits, const std::string& name) {
  auto bad = [&]() -> DatumType {
    fail("{}: unsupported item type {} (vendor {:#x}) with {} bits per item", name, item, vendor,
         bits);
  };
  if (vendor == kKilnVendor) {
    for (const auto& k : kKilnItems)
      if (k.item == item && k.bits == bits) return k.dt;
    return bad();
  }
  if (vendor != 0) return bad();
  switch (item) {
    case kFloat:
      return bits == 16   ? DatumType::F16
             : bits == 32 ? DatumType::F32
             : bits == 64 ? DatumType::F64
                          : bad();
    case kUint:
    case kQuint:
      return bits == 8    ? DatumType::U8
             : bits == 16 ? DatumType::U16
             : bits == 32 ? DatumType::U32
             : bits == 64 ? DatumType::U64
                          : bad();
    case kInt:
    case kQint:
      return bits == 8    ? DatumType::I8
             : bits == 16 ? DatumType::I16
             : bits == 32 ? DatumType::I32
             : bits == 64 ? DatumType::I64
                          : bad();
    case kBool:
      return bits == 1 || bits == 8 ? DatumType::Bool : bad();
    default:
      return bad();
  }
}

}  // namespace

DatTensor read_dat(std::string_view bytes, const std::string& name) {
  KILN_ENSURE(bytes.size() >= kHeaderSize,
              "{}: truncated tensor file ({} bytes, the header alone is {})", name, bytes.size(),
              kHeaderSize);
  KILN_ENSURE(static_cast<uint8_t>(bytes[0]) == 0x4E && static_cast<uint8_t>(bytes[1]) == 0xEF,
              "{}: not an NNEF tensor file (bad magic number)", name);
  KILN_ENSURE(bytes[2] == 1 && bytes[3] == 0, "{}: unsupported tensor file version {}.{}", name,
              int(bytes[2]), int(bytes[3]));
  uint32_t data_length = read_u32(bytes, 4);
  uint32_t rank = read_u32(bytes, 8);
  KILN_ENSURE(rank <= kMaxRank, "{}: rank {} exceeds the maximum of {}", name, rank, kMaxRank);
  Shape shape;
  int64_t count = 1;
  for (uint32_t i = 0; i < rank; i++) {
    int64_t d = read_u32(bytes, 12 + 4 * i);
    shape.push_back(d);
    KILN_ENSURE(d == 0 || count <= (int64_t(1) << 40) / d, "{}: tensor shape [{}...] too large",
                name, shape_to_string(shape));
    count *= d;
  }
  uint32_t bits = read_u32(bytes, 44);
  uint32_t item_word = read_u32(bytes, 48);
  uint32_t item = item_word & 0xFFFF, vendor = item_word >> 16;
  // NNEF-Tools marks signed integers as unsigned with a non-zero first reserved word.
  if (vendor == 0 && item == kUint && read_u32(bytes, 52) != 0) item = kInt;
  DatumType dt = type_of(item, vendor, bits, name);
  uint64_t expected = bits == 1  ? (uint64_t(count) + 7) / 8
                      : bits < 8 ? packed_bytes(int(bits), count)
                                 : uint64_t(count) * (bits / 8);
  KILN_ENSURE(data_length == expected,
              "{}: header says {} data bytes but shape [{}] of {}-bit items needs {}", name,
              data_length, shape_to_string(shape), bits, expected);
  KILN_ENSURE(bytes.size() == kHeaderSize + data_length,
              "{}: file holds {} data bytes, the header says {} (truncated or corrupt file)", name,
              bytes.size() - kHeaderSize, data_length);
  DatTensor out;
  out.quantized = vendor == 0 && (item == kQuint || item == kQint);
  out.tensor = Tensor(dt, shape);
  const char* data = bytes.data() + kHeaderSize;
  if (dt == DatumType::Bool) {
    bool* dst = out.tensor.data<bool>();
    for (int64_t i = 0; i < count; i++)
      dst[i] =
          bits == 1 ? ((static_cast<uint8_t>(data[i / 8]) >> (7 - i % 8)) & 1) != 0 : data[i] != 0;
  } else if (bits < 8) {
    unpack_sub_byte(int(bits), dt == DatumType::I4 || dt == DatumType::I2,
                    reinterpret_cast<const uint8_t*>(data), count,
                    static_cast<uint8_t*>(out.tensor.raw_data()));
  } else if (data_length > 0) {
    std::memcpy(out.tensor.raw_data(), data, data_length);
  }
  return out;
}

std::string write_dat(const Tensor& tensor) {
  DatumType dt = tensor.dtype();
  KILN_ENSURE(is_numeric(dt) || dt == DatumType::Bool || is_narrow(dt),
              "{} tensors cannot be stored in NNEF .dat files", name_of(dt));
  KILN_ENSURE(tensor.rank() <= kMaxRank, "NNEF .dat files hold tensors up to rank {}, got {}",
              kMaxRank, tensor.rank());
  for (int64_t d : tensor.shape())
    KILN_ENSURE(d <= int64_t(UINT32_MAX), "tensor dim {} too large for a .dat file", d);
  uint32_t bits = dt == DatumType::Bool ? 1 : static_cast<uint32_t>(bits_of(dt));
  uint32_t item = is_float(dt)          ? kFloat
                  : is_signed_int(dt)   ? kInt
                  : is_unsigned_int(dt) ? kUint
                                        : kBool;
  uint32_t vendor = 0;
  for (const auto& k : kKilnItems)
    if (k.dt == dt) item = k.item, vendor = kKilnVendor;
  uint64_t data_length = dt == DatumType::Bool ? (uint64_t(tensor.numel()) + 7) / 8
                         : bits < 8            ? packed_bytes(int(bits), tensor.numel())
                                               : uint64_t(tensor.nbytes());
  KILN_ENSURE(data_length <= UINT32_MAX, "tensor of {} bytes too large for a .dat file",
              data_length);
  std::string out(kHeaderSize + data_length, '\0');
  out[0] = static_cast<char>(0x4E);
  out[1] = static_cast<char>(0xEF);
  out[2] = 1;
  out[3] = 0;
  put_u32(out, 4, static_cast<uint32_t>(data_length));
  put_u32(out, 8, static_cast<uint32_t>(tensor.rank()));
  for (size_t i = 0; i < tensor.rank(); i++)
    put_u32(out, 12 + 4 * i, static_cast<uint32_t>(tensor.dim(i)));
  put_u32(out, 44, bits);
  put_u32(out, 48, item | (vendor << 16));
  char* data = out.data() + kHeaderSize;
  if (dt == DatumType::Bool) {
    const bool* src = tensor.data<bool>();
    for (int64_t i = 0; i < tensor.numel(); i++)
      if (src[i])
        data[i / 8] = static_cast<char>(static_cast<uint8_t>(data[i / 8]) | (0x80 >> (i % 8)));
  } else if (bits < 8) {
    pack_sub_byte(int(bits), static_cast<const uint8_t*>(tensor.raw_data()), tensor.numel(),
                  reinterpret_cast<uint8_t*>(data));
  } else if (data_length > 0) {
    std::memcpy(data, tensor.raw_data(), data_length);
  }
  return out;
}

}  // namespace kiln::nnef
