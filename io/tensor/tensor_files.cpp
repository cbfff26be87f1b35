#include "io/tensor/tensor_files.h"

#include <archive.h>
#include <archive_entry.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "base/error.h"
#include "core/map_value.h"
#include "core/run_limits.h"
#include "core/sequence.h"
#include "io/onnx/tensor_proto.h"
#include "io/onnx/value_proto.h"
#include "io/tensor/conform.h"

namespace kiln::io {

namespace fs = std::filesystem;

namespace {

std::string read_file(const std::string& path) {
  std::error_code ec;
  KILN_ENSURE(fs::is_regular_file(path, ec), "tensor file '{}' does not exist", path);
  std::ifstream in(path, std::ios::binary);
  KILN_ENSURE(in.good(), "cannot open '{}'", path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  KILN_ENSURE(out.good(), "cannot write '{}'", path);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  KILN_ENSURE(out.good(), "error writing '{}'", path);
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

struct NpyType {
  const char* descr;
  DatumType dt;
};
const NpyType kNpyTypes[] = {
    {"<f4", DatumType::F32}, {"<f8", DatumType::F64}, {"<f2", DatumType::F16},
    {"|i1", DatumType::I8},  {"<i2", DatumType::I16}, {"<i4", DatumType::I32},
    {"<i8", DatumType::I64}, {"|u1", DatumType::U8},  {"<u2", DatumType::U16},
    {"<u4", DatumType::U32}, {"<u8", DatumType::U64}, {"|b1", DatumType::Bool},
};

// The .npy header: a Python dict literal such as
//   {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
// read by a hand-written scanner, one pass, no recursion and no backtracking (std::regex
// overflowed the stack on a header with ~28,000 spaces inside the shape tuple, which numpy
// reads fine). Keys and strings in single or double quotes, whitespace anywhere numpy's
// literal_eval allows it; any other value or key is an error.
struct NpyHeader {
  std::string descr;
  bool fortran_order = false;
  Shape shape;
};

class NpyHeaderScanner {
 public:
  NpyHeaderScanner(std::string_view text, const std::string& what) : s_(text), what_(what) {}

  NpyHeader parse() {
    NpyHeader h;
    bool has_descr = false, has_order = false, has_shape = false;
    expect('{');
    while (!eat('}')) {
      std::string key = string_literal();
      expect(':');
      if (key == "descr") {
        h.descr = string_literal();
        has_descr = true;
      } else if (key == "fortran_order") {
        h.fortran_order = boolean();
        has_order = true;
      } else if (key == "shape") {
        h.shape = tuple();
        has_shape = true;
      } else {
        fail("{}: .npy header has an unknown key '{}'", what_, key);
      }
      if (!eat(',')) {
        expect('}');
        break;
      }
    }
    skip();
    KILN_ENSURE(pos_ == s_.size(), "{}: unexpected text after the .npy header dict", what_);
    KILN_ENSURE(has_descr, "{}: .npy header has no descr", what_);
    KILN_ENSURE(has_order, "{}: .npy header has no fortran_order", what_);
    KILN_ENSURE(has_shape, "{}: .npy header has no shape", what_);
    return h;
  }

 private:
  void skip() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' ||
                                s_[pos_] == '\r' || s_[pos_] == '\f' || s_[pos_] == '\v'))
      pos_++;
  }
  bool eat(char c) {
    skip();
    if (pos_ < s_.size() && s_[pos_] == c) {
      pos_++;
      return true;
    }
    return false;
  }
  void expect(char c) {
    KILN_ENSURE(eat(c), "{}: malformed .npy header: expected '{}' at offset {}", what_, c, pos_);
  }
  std::string string_literal() {
    skip();
    KILN_ENSURE(pos_ < s_.size() && (s_[pos_] == '\'' || s_[pos_] == '"'),
                "{}: malformed .npy header: expected a quoted string at offset {}", what_, pos_);
    const char quote = s_[pos_++];
    const size_t end = s_.find(quote, pos_);
    KILN_ENSURE(end != std::string_view::npos, "{}: malformed .npy header: unterminated string",
                what_);
    std::string out(s_.substr(pos_, end - pos_));
    pos_ = end + 1;
    return out;
  }
  bool boolean() {
    skip();
    for (const char* word : {"True", "False"}) {
      const size_t n = std::strlen(word);
      if (s_.substr(pos_, n) == word) {
        pos_ += n;
        return word[0] == 'T';
      }
    }
    fail("{}: malformed .npy header: fortran_order must be True or False", what_);
  }
  // (), (3,), (2, 3) or (2, 3,): non-negative integers.
  Shape tuple() {
    expect('(');
    Shape shape;
    while (!eat(')')) {
      skip();
      const size_t start = pos_;
      int64_t v = 0;
      while (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9') {
        KILN_ENSURE(pos_ - start < 16, "{}: .npy dimension {}... is too large", what_,
                    s_.substr(start, 16));
        v = v * 10 + (s_[pos_++] - '0');
      }
      KILN_ENSURE(pos_ > start, "{}: malformed .npy header: expected a dimension at offset {}",
                  what_, pos_);
      if (pos_ < s_.size() && s_[pos_] == 'L') pos_++;  // Python 2 long literals
      shape.push_back(v);
      check_rank(static_cast<int64_t>(shape.size()), ".npy shape");
      if (!eat(',')) {
        expect(')');
        break;
      }
    }
    return shape;
  }

  std::string_view s_;
  const std::string& what_;
  size_t pos_ = 0;
};

NpyHeader parse_npy_header(std::string_view text, const std::string& what) {
  return NpyHeaderScanner(text, what).parse();
}

}  // namespace

NamedTensor read_tensor_pb(const std::string& path) {
  std::string bytes = read_file(path);
  onnx::TensorProto proto;
  KILN_ENSURE(proto.ParseFromString(bytes), "'{}' is not a valid TensorProto file", path);
  try {
    return {proto.name(), onnx_io::tensor_from_proto(proto, fs::path(path).parent_path().string())};
  } catch (Error& e) {
    e.with_context(fmt::format("reading '{}'", path));
    throw;
  }
}

NamedTensor read_value_pb(const std::string& path, const Fact* declared) {
  if (!declared) return read_tensor_pb(path);
  if (!is_container(declared->dt)) {
    auto t = read_tensor_pb(path);
    t.tensor = conform_to(t.tensor, *declared);
    return t;
  }
  std::string bytes = read_file(path);
  std::string base = fs::path(path).parent_path().string();
  NamedTensor out;
  try {
    if (declared->dt == DatumType::Sequence) {
      onnx::SequenceProto proto;
      KILN_ENSURE(proto.ParseFromString(bytes), "'{}' is not a valid SequenceProto file", path);
      out = {proto.name(), onnx_io::sequence_from_proto(proto, base)};
    } else if (declared->dt == DatumType::Map) {
      onnx::MapProto proto;
      KILN_ENSURE(proto.ParseFromString(bytes), "'{}' is not a valid MapProto file", path);
      out = {proto.name(), onnx_io::map_from_proto(proto, base)};
    } else {
      onnx::OptionalProto proto;
      KILN_ENSURE(proto.ParseFromString(bytes), "'{}' is not a valid OptionalProto file", path);
      out = {proto.name(), onnx_io::optional_from_proto(proto, base)};
    }
  } catch (Error& e) {
    e.with_context(fmt::format("reading '{}'", path));
    throw;
  }
  out.tensor = conform_to(out.tensor, *declared);
  return out;
}

void write_tensor_pb(const std::string& path, const Tensor& tensor, const std::string& name) {
  if (is_sequence(tensor))
    write_file(path, onnx_io::sequence_to_proto(tensor, name).SerializeAsString());
  else if (is_optional(tensor))
    write_file(path, onnx_io::optional_to_proto(tensor, name).SerializeAsString());
  else if (is_map(tensor))
    write_file(path, onnx_io::map_to_proto(tensor, name).SerializeAsString());
  else
    write_file(path, onnx_io::tensor_to_proto(tensor, name).SerializeAsString());
}

Tensor parse_npy(const std::string& bytes, const std::string& what) {
  KILN_ENSURE(bytes.size() >= 10 && bytes.compare(0, 6, "\x93NUMPY") == 0,
              "{} is not a .npy file (bad magic)", what);
  int major = static_cast<unsigned char>(bytes[6]);
  size_t header_len, header_start;
  if (major == 1) {
    header_len = static_cast<unsigned char>(bytes[8]) | static_cast<unsigned char>(bytes[9]) << 8;
    header_start = 10;
  } else {
    KILN_ENSURE(bytes.size() >= 12 && (major == 2 || major == 3), "{}: unsupported .npy version {}",
                what, major);
    header_len = 0;
    for (int i = 0; i < 4; i++)
      header_len |= size_t{static_cast<unsigned char>(bytes[8 + i])} << (8 * i);
    header_start = 12;
  }
  KILN_ENSURE(header_len <= bytes.size() - header_start, "{}: truncated .npy header", what);
  const NpyHeader h =
      parse_npy_header(std::string_view(bytes).substr(header_start, header_len), what);
  std::string descr = h.descr;
  if (descr == "<b1") descr = "|b1";
  if (descr == "<i1") descr = "|i1";
  if (descr == "<u1") descr = "|u1";
  KILN_ENSURE(!h.fortran_order, "{}: Fortran-ordered .npy arrays are not supported", what);
  const Shape& shape = h.shape;
  const NpyType* type = nullptr;
  for (const auto& t : kNpyTypes)
    if (descr == t.descr) type = &t;
  KILN_ENSURE(type, "{}: unsupported .npy dtype '{}'", what, descr);
  int64_t numel = shape_numel(shape);
  size_t data_start = header_start + header_len;
  KILN_ENSURE(static_cast<uint64_t>(numel) <= (bytes.size() - data_start) / size_of(type->dt),
              "{}: .npy data has {} bytes, shape ({}) {} needs more", what,
              bytes.size() - data_start, shape_to_string(shape), descr);
  size_t need = static_cast<size_t>(numel) * size_of(type->dt);
  KILN_ENSURE(bytes.size() - data_start == need,
              "{}: .npy data has {} bytes, shape ({}) {} needs {}", what, bytes.size() - data_start,
              shape_to_string(shape), descr, need);
  Tensor t(type->dt, shape);
  if (need) std::memcpy(t.raw_data(), bytes.data() + data_start, need);
  if (type->dt == DatumType::Bool) {
    // numpy reads any nonzero byte as True; a bool byte other than 0 or 1 is undefined in C++.
    auto* b = static_cast<uint8_t*>(t.raw_data());
    for (int64_t i = 0; i < numel; i++) b[i] = b[i] != 0;
  }
  return t;
}

Tensor read_npy(const std::string& path) {
  return parse_npy(read_file(path), "'" + path + "'");
}

std::string serialize_npy(const Tensor& input) {
  KILN_ENSURE(!is_container(input.dtype()),
              "a {} value cannot be written as .npy (numpy has no sequences, optionals or maps): "
              "write it as .pb (SequenceProto / OptionalProto / MapProto)",
              fact_of_value(input).to_string());
  // numpy has no narrow types: their values go out exactly as f32 (floats) or i8 / u8.
  DatumType dt = input.dtype();
  const Tensor& tensor = !is_narrow(dt)        ? input
                         : is_narrow_float(dt) ? input.cast_to(DatumType::F32)
                         : dt == DatumType::I4 || dt == DatumType::I2
                             ? input.cast_to(DatumType::I8)
                             : input.cast_to(DatumType::U8);
  const NpyType* type = nullptr;
  for (const auto& t : kNpyTypes)
    if (tensor.dtype() == t.dt) type = &t;
  KILN_ENSURE(type, "cannot write {} tensors as .npy", name_of(tensor.dtype()));
  std::string shape;
  for (int64_t d : tensor.shape()) shape += std::to_string(d) + ",";
  if (tensor.rank() > 1) shape.pop_back();
  std::string header =
      fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': ({}), }}", type->descr, shape);
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::string out = "\x93NUMPY";
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>((header.size() >> 8) & 0xff);
  out += header;
  out.append(static_cast<const char*>(tensor.raw_data()), tensor.nbytes());
  return out;
}

void write_npy(const std::string& path, const Tensor& tensor) {
  write_file(path, serialize_npy(tensor));
}

namespace {
// libarchive's message for the last error; it may have none (null, which fmt refuses).
std::string archive_message(struct archive* a) {
  const char* msg = archive_error_string(a);
  return msg ? msg : "unknown libarchive error";
}

// `bytes`: the .npz in memory, or null to read the file `path`.
std::vector<NamedTensor> read_npz_from(const std::string& path, const std::string_view* bytes) {
  struct archive* a = archive_read_new();
  archive_read_support_format_zip(a);
  archive_read_support_filter_all(a);
  std::vector<NamedTensor> out;
  try {
    const int opened = bytes ? archive_read_open_memory(a, bytes->data(), bytes->size())
                             : archive_read_open_filename(a, path.c_str(), 1 << 16);
    KILN_ENSURE(opened == ARCHIVE_OK, "'{}' is not a readable .npz (zip) file: {}", path,
                archive_message(a));
    struct archive_entry* entry;
    int r;
    while ((r = archive_read_next_header(a, &entry)) == ARCHIVE_OK) {
      const char* raw_name = archive_entry_pathname(entry);
      std::string name = raw_name ? raw_name : "";
      if (archive_entry_filetype(entry) != AE_IFREG) continue;
      // Entries may not say their size (or lie about it): the data read is bounded too, by the
      // memory budget when one is set (core/run_limits.h), so a zip bomb is an error. An entry
      // is held twice while it is parsed (its bytes and its tensor): half the budget each.
      uint64_t limit = uint64_t{1} << 34;
      if (memory_budget() != 0) limit = std::min<uint64_t>(limit, memory_budget() / 2);
      KILN_ENSURE(archive_entry_size(entry) >= 0 &&
                      static_cast<uint64_t>(archive_entry_size(entry)) < limit,
                  "'{}': entry {} is too large", path, name);
      std::string bytes;
      char buf[1 << 16];
      la_ssize_t n;
      while ((n = archive_read_data(a, buf, sizeof buf)) > 0) {
        bytes.append(buf, static_cast<size_t>(n));
        KILN_ENSURE(bytes.size() < limit, "'{}': entry {} is too large", path, name);
      }
      KILN_ENSURE(n == 0, "'{}': cannot read entry {}: {}", path, name, archive_message(a));
      if (ends_with(name, ".npy")) name.resize(name.size() - 4);
      out.push_back({name, parse_npy(bytes, fmt::format("'{}' entry {}", path, name))});
    }
    KILN_ENSURE(r == ARCHIVE_EOF, "'{}': corrupt .npz: {}", path, archive_message(a));
  } catch (...) {
    archive_read_free(a);
    throw;
  }
  archive_read_free(a);
  return out;
}
}  // namespace

std::vector<NamedTensor> read_npz(const std::string& path) {
  std::error_code ec;
  KILN_ENSURE(fs::is_regular_file(path, ec), "npz file '{}' does not exist", path);
  return read_npz_from(path, nullptr);
}

std::vector<NamedTensor> parse_npz(std::string_view bytes, const std::string& what) {
  return read_npz_from(what, &bytes);
}

void write_npz(const std::string& path, const std::vector<NamedTensor>& tensors) {
  struct archive* a = archive_write_new();
  archive_write_set_format_zip(a);
  KILN_ENSURE(archive_write_open_filename(a, path.c_str()) == ARCHIVE_OK, "cannot write '{}'",
              path);
  for (const auto& t : tensors) {
    std::string bytes = serialize_npy(t.tensor);
    struct archive_entry* e = archive_entry_new();
    archive_entry_set_pathname(e, (t.name + ".npy").c_str());
    archive_entry_set_size(e, static_cast<la_int64_t>(bytes.size()));
    archive_entry_set_filetype(e, AE_IFREG);
    archive_entry_set_perm(e, 0644);
    archive_write_header(a, e);
    archive_write_data(a, bytes.data(), bytes.size());
    archive_entry_free(e);
  }
  archive_write_close(a);
  archive_write_free(a);
}

std::vector<NamedTensor> read_bundle(const std::string& dir, const std::string& prefix,
                                     const std::vector<Fact>& declared) {
  std::error_code ec;
  KILN_ENSURE(fs::is_directory(dir, ec), "bundle folder '{}' does not exist", dir);
  std::vector<NamedTensor> out;
  for (size_t i = 0;; i++) {
    fs::path p = fs::path(dir) / fmt::format("{}_{}.pb", prefix, i);
    if (!fs::exists(p, ec)) break;
    out.push_back(read_value_pb(p.string(), i < declared.size() ? &declared[i] : nullptr));
  }
  return out;
}

NamedTensor read_tensor_file(const std::string& path, const Fact* declared) {
  if (ends_with(path, ".npy")) {
    Tensor t = read_npy(path);
    return {fs::path(path).stem().string(), declared ? conform_to(t, *declared) : t};
  }
  if (ends_with(path, ".pb")) return read_value_pb(path, declared);
  fail("tensor file '{}': unknown format (expected .npy or .pb)", path);
}

}  // namespace kiln::io
