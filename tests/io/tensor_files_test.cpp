#include "io/tensor/tensor_files.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

using namespace kiln;
namespace fs = std::filesystem;

namespace {
fs::path temp(const std::string& name) {
  auto d = fs::temp_directory_path() / ("kiln_io_test_" + std::to_string(::getpid()));
  fs::create_directories(d);
  return d / name;
}
}  // namespace

TEST(TensorFiles, PbRoundTrip) {
  auto t = Tensor::from_vector<int64_t>({2, 2}, {1, -2, 3, 1LL << 40});
  io::write_tensor_pb(temp("a.pb").string(), t, "a");
  auto back = io::read_tensor_pb(temp("a.pb").string());
  EXPECT_EQ(back.name, "a");
  EXPECT_TRUE(back.tensor.equals(t));
  auto s = Tensor::from_vector<std::string>({2}, {"x", "yz"});
  io::write_tensor_pb(temp("s.pb").string(), s);
  EXPECT_TRUE(io::read_tensor_pb(temp("s.pb").string()).tensor.equals(s));
}

TEST(TensorFiles, NpyRoundTripAndHeader) {
  auto t = Tensor::from_vector<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  std::string bytes = io::serialize_npy(t);
  EXPECT_EQ(bytes.substr(1, 5), "NUMPY");
  EXPECT_EQ((bytes.size() - t.nbytes()) % 64, 0u);
  EXPECT_NE(bytes.find("'shape': (2,3)"), std::string::npos);
  EXPECT_TRUE(io::parse_npy(bytes, "t").equals(t));
  auto v = Tensor::from_vector<bool>({1}, {true});
  EXPECT_NE(io::serialize_npy(v).find("'shape': (1,)"), std::string::npos);
  EXPECT_TRUE(io::parse_npy(io::serialize_npy(v), "v").equals(v));
}

TEST(TensorFiles, NpyErrors) {
  auto t = Tensor::from_vector<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  std::string bytes = io::serialize_npy(t);
  EXPECT_THROW(io::parse_npy(bytes.substr(0, bytes.size() - 1), "t"), Error);
  EXPECT_THROW(io::parse_npy("garbage", "t"), Error);
  std::string big = bytes;
  big.replace(big.find("(2,3)"), 5, "(9,9)");
  EXPECT_THROW(io::parse_npy(big, "t"), Error);
  EXPECT_THROW(io::read_npy(temp("absent.npy").string()), Error);
}

TEST(TensorFiles, NpzRoundTrip) {
  std::vector<io::NamedTensor> ts = {{"x", Tensor::from_vector<float>({2}, {1, 2})},
                                     {"sr", Tensor::scalar<int64_t>(16000)}};
  io::write_npz(temp("t.npz").string(), ts);
  auto back = io::read_npz(temp("t.npz").string());
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[0].name, "x");
  EXPECT_TRUE(back[0].tensor.equals(ts[0].tensor));
  EXPECT_EQ(back[1].tensor.value_as_i64(0), 16000);
  std::ofstream(temp("bad.npz").string()) << "not a zip";
  EXPECT_THROW(io::read_npz(temp("bad.npz").string()), Error);
}

// Issue 25, defect 1: the header is a Python dict literal that numpy reads with whitespace
// anywhere; a shape tuple with 28,000 spaces overflowed the stack of the old std::regex parser.
TEST(TensorFiles, NpyHeaderWithHugeWhitespace) {
  auto t = Tensor::from_vector<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  std::string header = "{\"descr\" :'<f4',  'fortran_order':False, 'shape': (2," +
                       std::string(28000, ' ') + "3 , ) }";
  header += std::string((64 - (10 + header.size() + 1) % 64) % 64, ' ') + "\n";
  std::string bytes = "\x93NUMPY";
  bytes += '\x01';
  bytes += '\x00';
  bytes += static_cast<char>(header.size() & 0xff);
  bytes += static_cast<char>(header.size() >> 8);
  bytes += header;
  bytes.append(static_cast<const char*>(t.raw_data()), t.nbytes());
  EXPECT_TRUE(io::parse_npy(bytes, "t").equals(t));
  // The committed regression input (tests/fuzz/regressions/npy) reads the same.
  EXPECT_TRUE(
      io::read_npy(KILN_SOURCE_DIR "/tests/fuzz/regressions/npy/defect1_spaces_in_shape.npy")
          .equals(t));
  auto npz =
      io::read_npz(KILN_SOURCE_DIR "/tests/fuzz/regressions/npz/defect1_spaces_in_shape.npz");
  ASSERT_EQ(npz.size(), 1u);
  EXPECT_TRUE(npz[0].tensor.equals(t));
}

TEST(TensorFiles, NpyMalformedHeadersAreErrors) {
  auto t = Tensor::from_vector<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  const std::string good = io::serialize_npy(t);
  const size_t at = good.find('{'), end = good.find('}');
  auto with_header = [&](const std::string& dict) {
    std::string b = good;
    std::string h = dict + std::string(end + 1 - at - std::min(dict.size(), end + 1 - at), ' ');
    if (dict.size() > end + 1 - at) return std::string("too long");
    b.replace(at, end + 1 - at, h);
    return b;
  };
  for (const char* dict :
       {"{'descr': '<f4', 'fortran_order': False}",  // no shape
        "{'descr': '<f4', 'shape': (2,3)}",          // no order
        "{'descr': '<f4', 'fortran_order': True, 'shape': (2,3)}",
        "{'descr': '<f4', 'fortran_order': False, 'shape': (2,-3)}",
        "{'descr': '<f4', 'fortran_order': False, 'shape': (2,3}",
        "{'descr': '<f4, 'fortran_order': False, 'shape': (2,3)}",
        "{'descr': '<f4', 'fortran_order': Maybe, 'shape': (2,3)}",
        "{'descr': '<f4', 'fortran_order': False, 'shape': (2,3), 'x': 1}",
        "{'descr': '<f4', 'fortran_order': False, 'shape': (2,3)} junk",
        "{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999,)}"}) {
    EXPECT_THROW(io::parse_npy(with_header(dict), "t"), Error) << dict;
  }
  // The same layout, well formed, parses: the helper itself is right.
  EXPECT_TRUE(
      io::parse_npy(with_header("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3,)}"), "t")
          .equals(t));
}

// Fuzz finding (npy): bool bytes other than 0 / 1 (numpy reads any nonzero byte as True) were
// copied as they were, and reading such a bool is undefined behaviour.
TEST(TensorFiles, NpyBoolBytesAreNormalized) {
  auto t = Tensor::from_vector<bool>({3}, {false, true, true});
  std::string bytes = io::serialize_npy(t);
  bytes[bytes.size() - 1] = static_cast<char>(251);
  Tensor back = io::parse_npy(bytes, "b");
  const auto* raw = static_cast<const uint8_t*>(back.raw_data());
  EXPECT_EQ(raw[0], 0);
  EXPECT_EQ(raw[1], 1);
  EXPECT_EQ(raw[2], 1);
  EXPECT_TRUE(back.equals(t));
}
