// The narrow element types through files: TensorProto (raw_data packed low nibble first, the
// int32_data form, external data), .pb and .npy files, and NNEF .dat with kiln's item codes.
#include <gtest/gtest.h>

#include <filesystem>

#include "io/nnef/dat_file.h"
#include "io/onnx/tensor_proto.h"
#include "io/tensor/conform.h"
#include "io/tensor/tensor_files.h"

using namespace kiln;
namespace fs = std::filesystem;

namespace {

Tensor int4_tensor(const std::vector<int>& values, DatumType dt = DatumType::I4) {
  Tensor t(dt, {static_cast<int64_t>(values.size())});
  for (size_t i = 0; i < values.size(); i++) {
    if (dt == DatumType::I4)
      t.data<i4>()[i] = i4(values[i]);
    else
      t.data<u4>()[i] = u4(values[i]);
  }
  return t;
}

std::vector<int> ints_of(const Tensor& t) {
  std::vector<int> out;
  for (int64_t i = 0; i < t.numel(); i++) out.push_back(static_cast<int>(t.value_as_i64(i)));
  return out;
}

TEST(NarrowTensorProto, Int4RawDataIsPackedLowNibbleFirst) {
  onnx::TensorProto p;
  p.set_data_type(onnx_io::kOnnxInt4);
  p.add_dims(5);
  p.set_raw_data(std::string("\x98\x7F\x01", 3));  // -8,-7 | -1,7 | 1,(pad)
  Tensor t = onnx_io::tensor_from_proto(p);
  ASSERT_EQ(t.dtype(), DatumType::I4);
  EXPECT_EQ(ints_of(t), (std::vector<int>{-8, -7, -1, 7, 1}));
  // Written back packed the same way.
  EXPECT_EQ(onnx_io::tensor_to_proto(t).raw_data(), std::string("\x98\x7F\x01", 3));
  // The wrong byte count is a clear error.
  p.set_raw_data(std::string("\x98\x7F", 2));
  EXPECT_THROW(onnx_io::tensor_from_proto(p), Error);
}

TEST(NarrowTensorProto, TypedFieldsHoldOneBytePerInt32) {
  onnx::TensorProto p;
  p.set_data_type(onnx_io::kOnnxUint4);
  p.add_dims(3);
  p.add_int32_data(0xF1);  // 1, 15
  p.add_int32_data(0x07);  // 7
  EXPECT_EQ(ints_of(onnx_io::tensor_from_proto(p)), (std::vector<int>{1, 15, 7}));
  onnx::TensorProto f8;
  f8.set_data_type(onnx_io::kOnnxFloat8E4M3FN);
  f8.add_dims(3);
  for (int v : {0x38, 0xC0, 0x7E}) f8.add_int32_data(v);
  Tensor t = onnx_io::tensor_from_proto(f8);
  ASSERT_EQ(t.dtype(), DatumType::F8E4M3FN);
  EXPECT_EQ(t.value_as_double(0), 1.0);
  EXPECT_EQ(t.value_as_double(1), -2.0);
  EXPECT_EQ(t.value_as_double(2), 448.0);
  onnx::TensorProto i2;
  i2.set_data_type(onnx_io::kOnnxInt2);
  i2.add_dims(5);
  i2.set_raw_data(std::string("\xE4\x03", 2));  // 0,1,-2,-1 | -1
  EXPECT_EQ(ints_of(onnx_io::tensor_from_proto(i2)), (std::vector<int>{0, 1, -2, -1, -1}));
}

TEST(NarrowTensorProto, EveryTypeRoundTripsThroughPbFiles) {
  fs::path dir = fs::temp_directory_path() / ("kiln_narrow_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  for (DatumType dt : {DatumType::F8E4M3FN, DatumType::F8E4M3FNUZ, DatumType::F8E5M2,
                       DatumType::F8E5M2FNUZ, DatumType::F8E8M0, DatumType::F4E2M1, DatumType::I4,
                       DatumType::U4, DatumType::I2, DatumType::U2}) {
    Tensor t(dt, {3, 3});
    auto* bytes = static_cast<uint8_t*>(t.raw_data());
    int mask = bits_of(dt) == 8 ? 0xFF : (1 << bits_of(dt)) - 1;
    for (int i = 0; i < 9; i++) bytes[i] = static_cast<uint8_t>((i * 37 + 5) & mask);
    if (dt == DatumType::I4 || dt == DatumType::I2)  // sign-extended in memory
      for (int i = 0; i < 9; i++)
        bytes[i] =
            static_cast<uint8_t>(dt == DatumType::I4 ? int(i4(bytes[i])) : int(i2(bytes[i])));
    std::string path = (dir / "t.pb").string();
    io::write_tensor_pb(path, t, "t");
    Tensor back = io::read_tensor_pb(path).tensor;
    ASSERT_EQ(back.dtype(), dt);
    EXPECT_EQ(std::string(static_cast<const char*>(back.raw_data()), 9),
              std::string(static_cast<const char*>(t.raw_data()), 9))
        << name_of(dt);
  }
  fs::remove_all(dir);
}

TEST(NarrowTensorFiles, NpyHoldsTheValuesInAWiderType) {
  Tensor f8(DatumType::F8E5M2, {3});
  f8.data<f8e5m2>()[0] = f8e5m2(1.5f);
  f8.data<f8e5m2>()[1] = f8e5m2(-0.25f);
  f8.data<f8e5m2>()[2] = f8e5m2(57344.0f);
  Tensor npy = io::parse_npy(io::serialize_npy(f8), "f8");
  ASSERT_EQ(npy.dtype(), DatumType::F32);
  EXPECT_EQ(npy.values<float>()[2], 57344.0f);
  // A model input declared f8e5m2 reads the floats back exactly.
  Tensor back = io::conform_to(npy, Fact(DatumType::F8E5M2, std::vector<Dim>{3}));
  ASSERT_EQ(back.dtype(), DatumType::F8E5M2);
  EXPECT_TRUE(back.equals(f8));
  Tensor i4s = int4_tensor({-8, 7, -1});
  Tensor as_i8 = io::parse_npy(io::serialize_npy(i4s), "i4");
  ASSERT_EQ(as_i8.dtype(), DatumType::I8);
  EXPECT_EQ(as_i8.values<int8_t>()[0], -8);
  EXPECT_TRUE(io::conform_to(as_i8, Fact(DatumType::I4, std::vector<Dim>{3})).equals(i4s));
}

TEST(NarrowNnefDat, KilnItemCodesRoundTrip) {
  Tensor u = int4_tensor({1, 15, 0, 9, 3}, DatumType::U4);
  std::string bytes = nnef::write_dat(u);
  EXPECT_EQ(bytes.size(), 128u + 3u);  // 5 elements packed in 3 bytes
  nnef::DatTensor back = nnef::read_dat(bytes, "u.dat");
  ASSERT_EQ(back.tensor.dtype(), DatumType::U4);
  EXPECT_EQ(ints_of(back.tensor), (std::vector<int>{1, 15, 0, 9, 3}));
  Tensor f(DatumType::F8E4M3FNUZ, {2});
  f.data<f8e4m3fnuz>()[0] = f8e4m3fnuz(240.0f);
  f.data<f8e4m3fnuz>()[1] = f8e4m3fnuz(-0.5f);
  nnef::DatTensor fb = nnef::read_dat(nnef::write_dat(f), "f.dat");
  ASSERT_EQ(fb.tensor.dtype(), DatumType::F8E4M3FNUZ);
  EXPECT_TRUE(fb.tensor.equals(f));
}

}  // namespace
