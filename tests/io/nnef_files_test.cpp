// NNEF .dat tensor files and archives: round trips for every type, and hostile inputs.
#include <archive.h>
#include <archive_entry.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>

#include "base/error.h"
#include "io/nnef/archive.h"
#include "io/nnef/dat_file.h"

namespace {

namespace fs = std::filesystem;
using kiln::DatumType;
using kiln::Tensor;
using namespace kiln::nnef;

Tensor sample(DatumType dt) {
  std::vector<double> xs = {0, 1, -2, 3, 4, -5, 6, 7, 1, 0, 1};
  Tensor t = Tensor::from_vector<double>({11}, xs);
  if (dt == DatumType::Bool || kiln::is_unsigned_int(dt)) {
    for (double& x : xs) x = x < 0 ? -x : x;
    t = Tensor::from_vector<double>({11}, xs);
  }
  return t.cast_to(dt).reshaped({1, 11});
}

TEST(NnefDat, RoundTripsEveryType) {
  for (DatumType dt : {DatumType::F32, DatumType::F64, DatumType::F16, DatumType::BF16,
                       DatumType::I8, DatumType::I16, DatumType::I32, DatumType::I64, DatumType::U8,
                       DatumType::U16, DatumType::U32, DatumType::U64, DatumType::Bool}) {
    Tensor t = sample(dt);
    std::string bytes = write_dat(t);
    size_t data = dt == DatumType::Bool ? 2 : 11 * kiln::size_of(dt);
    EXPECT_EQ(bytes.size(), 128 + data) << kiln::name_of(dt);
    DatTensor back = read_dat(bytes, "t.dat");
    EXPECT_FALSE(back.quantized);
    EXPECT_TRUE(back.tensor.equals(t)) << kiln::name_of(dt) << ": " << back.tensor.to_string();
  }
}

TEST(NnefDat, HeaderLayoutFollowsTheSpec) {
  std::string bytes = write_dat(Tensor::from_vector<int16_t>({2, 3}, {1, 2, 3, 4, 5, 6}));
  auto u32 = [&](size_t off) {
    uint32_t v;
    std::memcpy(&v, bytes.data() + off, 4);
    return v;
  };
  EXPECT_EQ(uint8_t(bytes[0]), 0x4E);
  EXPECT_EQ(uint8_t(bytes[1]), 0xEF);
  EXPECT_EQ(bytes[2], 1);
  EXPECT_EQ(bytes[3], 0);
  EXPECT_EQ(u32(4), 12u);  // data length
  EXPECT_EQ(u32(8), 2u);   // rank
  EXPECT_EQ(u32(12), 2u);
  EXPECT_EQ(u32(16), 3u);
  EXPECT_EQ(u32(44), 16u);  // bits per item
  EXPECT_EQ(u32(48), 4u);   // signed integer
  // Packed bools, most significant bit first.
  std::string b = write_dat(Tensor::from_vector<bool>({3}, {true, false, true}));
  EXPECT_EQ(uint8_t(b[128]), 0xA0);
}

TEST(NnefDat, QuantizedAndLegacySignedCodes) {
  std::string bytes = write_dat(Tensor::from_vector<uint8_t>({2}, {7, 9}));
  bytes[48] = 2;  // quantized unsigned
  auto q = read_dat(bytes, "q.dat");
  EXPECT_TRUE(q.quantized);
  EXPECT_EQ(q.tensor.dtype(), DatumType::U8);
  // NNEF-Tools: unsigned code with a non-zero reserved word means signed.
  bytes[48] = 1;
  bytes[52] = 1;
  EXPECT_EQ(read_dat(bytes, "s.dat").tensor.dtype(), DatumType::I8);
}

std::string dat_error(std::string bytes) {
  try {
    read_dat(bytes, "w.dat");
  } catch (const kiln::Error& e) {
    return e.chain();
  }
  return "";
}

TEST(NnefDat, MalformedFilesAreCleanErrors) {
  std::string good = write_dat(Tensor::from_vector<float>({2, 2}, {1, 2, 3, 4}));
  EXPECT_NE(dat_error(good.substr(0, 60)).find("truncated"), std::string::npos);
  EXPECT_NE(dat_error(good.substr(0, good.size() - 1)).find("truncated or corrupt"),
            std::string::npos);
  EXPECT_NE(dat_error(good + "x").find("w.dat"), std::string::npos);
  std::string bad = good;
  bad[0] = 'X';
  EXPECT_NE(dat_error(bad).find("magic"), std::string::npos);
  bad = good;
  bad[8] = 9;  // rank 9
  EXPECT_NE(dat_error(bad).find("rank 9"), std::string::npos);
  bad = good;
  bad[4] = 17;  // data length disagrees with the shape
  EXPECT_NE(dat_error(bad).find("header says 17"), std::string::npos);
  bad = good;
  bad[44] = 24;  // 24-bit floats
  EXPECT_NE(dat_error(bad).find("unsupported item type"), std::string::npos);
  bad = good;
  for (int i = 0; i < 4; i++) bad[12 + i] = bad[16 + i] = char(0xFF);  // 2^64 elements
  EXPECT_NE(dat_error(bad).find("too large"), std::string::npos);
  bad = good;
  bad[2] = 2;
  EXPECT_NE(dat_error(bad).find("version"), std::string::npos);
}

class NnefArchive : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("kiln_nnef_archive_" + std::to_string(::getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_ / "sandbox");
  }
  void TearDown() override { fs::remove_all(root_); }

  struct Entry {
    Entry(std::string n, std::string d, mode_t t = AE_IFREG, std::string l = "")
        : name(std::move(n)), data(std::move(d)), type(t), link(std::move(l)) {}
    std::string name;
    std::string data;
    mode_t type;
    std::string link;
  };
  // Builds a tar(.gz) by hand so that it can hold what kiln's writer never produces.
  std::string make(const std::string& file, const std::vector<Entry>& entries, bool gzip) {
    std::string path = (root_ / file).string();
    archive* a = archive_write_new();
    archive_write_set_format_pax_restricted(a);
    if (gzip) archive_write_add_filter_gzip(a);
    archive_write_open_filename(a, path.c_str());
    for (const auto& e : entries) {
      archive_entry* en = archive_entry_new();
      archive_entry_set_pathname(en, e.name.c_str());
      archive_entry_set_filetype(en, e.type);
      archive_entry_set_perm(en, 0644);
      if (!e.link.empty()) archive_entry_set_symlink(en, e.link.c_str());
      archive_entry_set_size(en, e.type == AE_IFREG ? int64_t(e.data.size()) : 0);
      archive_write_header(a, en);
      if (!e.data.empty()) archive_write_data(a, e.data.data(), e.data.size());
      archive_entry_free(en);
    }
    archive_write_close(a);
    archive_write_free(a);
    return path;
  }
  std::string error_of(const std::string& path, ArchiveLimits limits = {}) {
    try {
      read_container(path, limits);
    } catch (const kiln::Error& e) {
      return e.chain();
    }
    return "";
  }
  // Nothing may appear outside the sandbox: the root holds only what the test made.
  void expect_nothing_written() {
    EXPECT_FALSE(fs::exists(root_ / "kiln_nnef_escape"));
    EXPECT_FALSE(fs::exists(root_.parent_path() / "kiln_nnef_escape"));
    EXPECT_FALSE(fs::exists("/tmp/kiln_evil"));
    EXPECT_TRUE(fs::is_empty(root_ / "sandbox"));
  }
  fs::path root_;
};

TEST_F(NnefArchive, WritesDeterministicArchivesAndReadsThemBack) {
  FileMap files = {{"graph.nnef", "graph g( x ) -> ( x ) {}"},
                   {"w.dat", std::string(300, 'a')},
                   {"sub/v.dat", "v"}};
  std::string a = (root_ / "a.nnef.tgz").string(), b = (root_ / "b.nnef.tgz").string();
  write_container(a, files);
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  write_container(b, files);
  auto slurp = [](const std::string& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  EXPECT_EQ(slurp(a), slurp(b));
  EXPECT_EQ(read_container(a), files);
  std::string t = (root_ / "c.tar").string();
  write_container(t, files);
  EXPECT_EQ(read_container(t), files);
  std::string d = (root_ / "dir").string();
  write_container(d, files);
  EXPECT_EQ(read_container(d), files);
}

TEST_F(NnefArchive, HostileEntriesAreRefused) {
  EXPECT_NE(error_of(make("dotdot.tgz", {{"../kiln_nnef_escape", "evil"}}, true))
                .find("escapes the archive"),
            std::string::npos);
  EXPECT_NE(error_of(make("nested.tgz", {{"a/../../kiln_nnef_escape", "evil"}}, true)).find("'..'"),
            std::string::npos);
  EXPECT_NE(error_of(make("abs.tar", {{"/tmp/kiln_evil", "evil"}}, false)).find("absolute"),
            std::string::npos);
  EXPECT_NE(error_of(make("link.tgz", {{"graph.nnef", "", AE_IFLNK, "/etc/passwd"}}, true))
                .find("not a regular file"),
            std::string::npos);
  EXPECT_NE(
      error_of(make("dev.tgz", {{"graph.nnef", "", AE_IFCHR}}, true)).find("not a regular file"),
      std::string::npos);
  expect_nothing_written();
}

TEST_F(NnefArchive, SizeLimitsAreEnforcedBeforeReading) {
  std::string path = make("big.tgz", {{"graph.nnef", std::string(5000, 'g')}}, true);
  ArchiveLimits limits;
  limits.max_entry_bytes = 4096;
  EXPECT_NE(error_of(path, limits).find("over the limit"), std::string::npos);
  limits = {};
  limits.max_total_bytes = 6000;
  path = make("two.tgz", {{"a", std::string(4000, 'a')}, {"b", std::string(4000, 'b')}}, true);
  EXPECT_NE(error_of(path, limits).find("add up"), std::string::npos);
  limits = {};
  limits.max_entries = 1;
  EXPECT_NE(error_of(path, limits).find("more than 1 entries"), std::string::npos);
}

TEST_F(NnefArchive, HugeDeclaredSizeIsAnError) {
  // A ustar header claiming an 8 GiB file, followed by nothing.
  std::string header(512, '\0');
  std::memcpy(header.data(), "graph.nnef", 10);
  std::memcpy(header.data() + 100, "0000644", 7);
  std::memcpy(header.data() + 108, "0000000", 7);
  std::memcpy(header.data() + 116, "0000000", 7);
  std::memcpy(header.data() + 124, "77777777777", 11);  // 8 GiB - 1
  std::memcpy(header.data() + 136, "00000000000", 11);
  header[156] = '0';
  std::memcpy(header.data() + 257, "ustar", 6);
  std::memcpy(header.data() + 263, "00", 2);
  std::memset(header.data() + 148, ' ', 8);
  unsigned sum = 0;
  for (unsigned char c : header) sum += c;
  snprintf(header.data() + 148, 8, "%06o", sum);
  std::string path = (root_ / "huge.tar").string();
  std::ofstream(path, std::ios::binary) << header << std::string(1024, '\0');
  std::string err = error_of(path);
  EXPECT_NE(err.find("over the limit"), std::string::npos) << err;
  expect_nothing_written();
}

TEST_F(NnefArchive, TruncatedGzipIsAnError) {
  std::string path = make("t.tgz", {{"graph.nnef", std::string(100000, 'x')}}, true);
  std::ifstream in(path, std::ios::binary);
  std::string bytes(std::istreambuf_iterator<char>(in), {});
  std::string cut = (root_ / "cut.tgz").string();
  std::ofstream(cut, std::ios::binary) << bytes.substr(0, bytes.size() / 2);
  EXPECT_FALSE(error_of(cut).empty());
  std::ofstream(root_ / "garbage.tgz", std::ios::binary) << "\x1f\x8b this is not gzip";
  EXPECT_FALSE(error_of((root_ / "garbage.tgz").string()).empty());
  expect_nothing_written();
}

TEST_F(NnefArchive, DirectoriesRefuseSymlinks) {
  fs::path dir = root_ / "model";
  fs::create_directories(dir);
  std::ofstream(dir / "graph.nnef") << "graph g( x ) -> ( x ) {}";
  fs::create_symlink("/etc/passwd", dir / "w.dat");
  EXPECT_NE(error_of(dir.string()).find("not a regular file"), std::string::npos);
}

TEST(NnefEntryPath, Normalizes) {
  EXPECT_EQ(checked_entry_path("./a//b.dat", "m"), "a/b.dat");
  EXPECT_THROW(checked_entry_path("C:/x", "m"), kiln::Error);
  EXPECT_THROW(checked_entry_path("a\\..\\x", "m"), kiln::Error);
  EXPECT_THROW(checked_entry_path("", "m"), kiln::Error);
}

}  // namespace
