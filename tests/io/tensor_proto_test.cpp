// TensorProto reading: data counts are checked against the shape before anything is allocated.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <string>

#include "base/error.h"
#include "core/run_limits.h"
#include "io/onnx/tensor_proto.h"

namespace kiln {
namespace {

// A small budget for the duration of a test: a tensor allocated before its data is checked
// would fail with the budget's "too large" error instead of the count error.
class SmallBudget {
 public:
  explicit SmallBudget(size_t bytes) : saved_(memory_budget()) { set_memory_budget(bytes); }
  ~SmallBudget() { set_memory_budget(saved_); }

 private:
  size_t saved_;
};

std::string load_error(const onnx::TensorProto& proto) {
  try {
    (void)onnx_io::tensor_from_proto(proto, "/nonexistent");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

onnx::TensorProto declared(int type, int64_t n) {
  onnx::TensorProto p;
  p.set_name("t");
  p.set_data_type(type);
  p.add_dims(n);
  return p;
}

TEST(TensorProto, MissingDataIsReportedBeforeAllocating) {
  SmallBudget budget(1 << 20);
  const int64_t n = int64_t{1} << 28;  // 1 GiB of float: far over the budget
  for (int type : {onnx::TensorProto::FLOAT, onnx::TensorProto::DOUBLE, onnx::TensorProto::INT64,
                   onnx::TensorProto::UINT64, onnx::TensorProto::INT8, onnx::TensorProto::FLOAT16,
                   onnx::TensorProto::STRING, onnx::TensorProto::BOOL}) {
    SCOPED_TRACE(type);
    std::string err = load_error(declared(type, n));
    EXPECT_NE(err.find("for 268435456 elements"), std::string::npos) << err;
  }
  auto raw = declared(onnx::TensorProto::FLOAT, n);
  raw.set_raw_data(std::string(12, '\0'));
  std::string err = load_error(raw);
  EXPECT_NE(err.find("has 12 bytes of raw data, shape [268435456] f32 needs 1073741824"),
            std::string::npos)
      << err;
  auto int4 = declared(23 /* INT4 */, n);  // packed: 2^27 bytes needed in int32_data
  int4.add_int32_data(1);
  err = load_error(int4);
  EXPECT_NE(err.find("has 1 int32_data values for 268435456 elements"), std::string::npos) << err;
}

TEST(TensorProto, CountsThatMatchStillLoad) {
  auto p = declared(onnx::TensorProto::FLOAT, 3);
  for (float v : {1.f, 2.f, 3.f}) p.add_float_data(v);
  Tensor t = onnx_io::tensor_from_proto(p, "/nonexistent");
  ASSERT_EQ(t.numel(), 3);
  EXPECT_EQ(t.values<float>()[2], 3.f);
  auto raw = declared(onnx::TensorProto::INT64, 2);
  raw.set_raw_data(std::string(16, '\x01'));
  EXPECT_EQ(onnx_io::tensor_from_proto(raw, "/nonexistent").values<int64_t>()[1],
            0x0101010101010101);
  auto wrong = declared(onnx::TensorProto::INT32, 2);
  wrong.add_int32_data(7);
  EXPECT_NE(load_error(wrong).find("has 1 values for 2 elements"), std::string::npos);
}

}  // namespace
}  // namespace kiln
