// Map values (core/map_value.h) and the operators of maps (ZipMap, DictVectorizer, CastMap):
// values, facts, errors and MapProto files. End-to-end cases through ONNX models are in
// tests/onnx_pyref (expected values from Python references).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include <unistd.h>

#include "../shape/test_util.h"
#include "base/error.h"
#include "core/map_value.h"
#include "core/sequence.h"
#include "core/tensor_compare.h"
#include "io/tensor/tensor_files.h"
#include "ops/ml/cast_map.h"
#include "ops/ml/dict_vectorizer.h"
#include "ops/ml/zip_map.h"

namespace kiln {
namespace {

using test::eval_op;
using test::facts_of;

Tensor strings(std::vector<std::string> v) {
  Tensor t(DatumType::String, Shape{static_cast<int64_t>(v.size())});
  for (size_t i = 0; i < v.size(); i++) t.data<std::string>()[i] = v[i];
  return t;
}

Tensor i64s(std::vector<int64_t> v) {
  return Tensor::from_vector<int64_t>({static_cast<int64_t>(v.size())}, v);
}

Tensor f32s(std::vector<float> v) {
  return Tensor::from_vector<float>({static_cast<int64_t>(v.size())}, v);
}

TEST(MapValue, SortedByKeyAndSearchable) {
  Tensor m = make_map(i64s({7, -2, 3}), f32s({0.5f, 1.5f, 2.5f}));
  const MapValue& v = map_of(m, "test");
  EXPECT_EQ(v.keys.to_i64_vector(), (std::vector<int64_t>{-2, 3, 7}));
  EXPECT_EQ(v.values.value_as_double(0), 1.5);
  EXPECT_EQ(v.values.value_as_double(2), 0.5);
  EXPECT_EQ(map_find(v, int64_t{3}), 1);
  EXPECT_EQ(map_find(v, int64_t{4}), -1);
  EXPECT_EQ(map_find(v, std::string("3")), -1);  // wrong key type: absent
  Tensor s = make_map(strings({"b", "a"}), i64s({1, 2}));
  EXPECT_EQ(map_find(map_of(s, "test"), std::string("a")), 0);
  EXPECT_EQ(fact_of_value(s).to_string(), "map(string,i64)");
  EXPECT_EQ(m.to_string(), "map [map(i64,f32) {-2: 1.5, 3: 2.5, 7: 0.5}]");
}

TEST(MapValue, Errors) {
  EXPECT_THROW(make_map(i64s({1, 1}), f32s({1, 2})), Error);  // duplicate key
  EXPECT_THROW(make_map(i64s({1, 2}), f32s({1})), Error);     // lengths differ
  EXPECT_THROW(make_map(f32s({1}), f32s({1})), Error);        // float keys
  EXPECT_THROW(map_of(f32s({1}), "test"), Error);
}

TEST(MapValue, CompareAndCopy) {
  Tensor a = make_map(i64s({1, 2}), f32s({0.5f, 1.0f}));
  Tensor b = make_map(i64s({2, 1}), f32s({1.0f + 1e-7f, 0.5f}));
  EXPECT_TRUE(compare_tensors(a, b, 1e-5, 1e-5).ok);
  EXPECT_FALSE(a.equals(b));
  EXPECT_TRUE(a.clone().equals(a));
  Tensor c = make_map(i64s({1, 3}), f32s({0.5f, 1.0f}));
  auto r = compare_tensors(a, c, 1e-5, 1e-5);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.reason.find("map keys"), std::string::npos) << r.reason;
  EXPECT_FALSE(compare_tensors(a, make_map(i64s({1, 2}), i64s({0, 1})), 1, 1).ok);
}

TEST(MapOps, ZipMapRowsAndFacts) {
  ops::ml::Labels labels;
  labels.strings = {"b", "a"};
  ops::ml::ZipMap op(labels);
  auto facts = facts_of(op, {Fact(DatumType::F32, Shape{3, 2})});
  EXPECT_EQ(facts[0].to_string(), "seq(map(string,f32))");
  auto out = eval_op(op, {Tensor::from_vector<float>({2, 2}, {0.25f, 0.75f, 1, 0})});
  const auto& seq = sequence_of(out[0], "test");
  ASSERT_EQ(seq.items.size(), 2u);
  const MapValue& row1 = map_of(seq.items[1], "test");
  EXPECT_EQ(row1.values.value_as_double(map_find(row1, std::string("b"))), 1.0);
  EXPECT_EQ(row1.values.value_as_double(map_find(row1, std::string("a"))), 0.0);
  EXPECT_THROW(facts_of(op, {Fact(DatumType::F32, Shape{3, 5})}), Error);
  labels.ints = {1};
  EXPECT_THROW(ops::ml::ZipMap{labels}, Error);  // both label lists
  ops::ml::Labels twice;
  twice.ints = {4, 4};
  EXPECT_THROW(ops::ml::ZipMap{twice}, Error);  // duplicate labels
}

TEST(MapOps, DictVectorizer) {
  ops::ml::Labels vocab;
  vocab.ints = {5, 1, 9};
  ops::ml::DictVectorizer op(vocab);
  EXPECT_EQ(facts_of(op, {map_fact(DatumType::I64, DatumType::F64)})[0].to_string(), "1,3,f64");
  EXPECT_THROW(facts_of(op, {map_fact(DatumType::String, DatumType::F64)}), Error);
  EXPECT_THROW(facts_of(op, {Fact(DatumType::F32, Shape{3})}), Error);
  auto out = eval_op(op, {make_map(i64s({1, 7}), strings({"one", "seven"}))});
  ASSERT_EQ(out[0].shape(), (Shape{1, 3}));
  EXPECT_EQ(out[0].data<std::string>()[0], "");
  EXPECT_EQ(out[0].data<std::string>()[1], "one");
  EXPECT_EQ(out[0].data<std::string>()[2], "");
}

TEST(MapOps, CastMapModes) {
  Tensor m = make_map(i64s({4, 0, 2}), f32s({2.5f, -1.75f, 8}));
  using ops::ml::CastMap;
  using ops::ml::CastMapTo;
  auto dense = eval_op(CastMap(CastMapTo::Int64, false, 1), {m});
  EXPECT_EQ(dense[0].shape(), (Shape{1, 3}));
  EXPECT_EQ(dense[0].to_i64_vector(), (std::vector<int64_t>{-1, 8, 2}));  // toward zero
  auto sparse = eval_op(CastMap(CastMapTo::String, true, 4), {m});
  ASSERT_EQ(sparse[0].shape(), (Shape{1, 4}));
  EXPECT_EQ(sparse[0].data<std::string>()[0], "-1.750000");
  EXPECT_EQ(sparse[0].data<std::string>()[1], "0.f");  // ONNX Runtime's pad
  EXPECT_EQ(sparse[0].data<std::string>()[2], "8.000000");
  EXPECT_EQ(sparse[0].data<std::string>()[3], "0.f");  // key 4 is past max_map
  EXPECT_EQ(
      facts_of(CastMap(CastMapTo::Float, true, 4), {map_fact(DatumType::I64, DatumType::F32)})[0]
          .to_string(),
      "1,4,f32");
  EXPECT_THROW(CastMap(CastMapTo::Float, true, 0), Error);
  EXPECT_THROW(
      facts_of(CastMap(CastMapTo::Float, false, 1), {map_fact(DatumType::String, DatumType::F32)}),
      Error);
}

TEST(MapFiles, MapProtoRoundTripAndNpyRefusal) {
  auto dir = std::filesystem::temp_directory_path() / ("kiln_map_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  Tensor m = make_map(strings({"x", "a"}), Tensor::from_vector<double>({2}, {1.5, -2}));
  io::write_tensor_pb((dir / "m.pb").string(), m);
  Fact declared = map_fact(DatumType::String, DatumType::F64);
  EXPECT_TRUE(io::read_value_pb((dir / "m.pb").string(), &declared).tensor.equals(m));
  Tensor seq = make_sequence(DatumType::Map,
                             {m, make_map(strings({"q"}), Tensor::from_vector<double>({1}, {3}))});
  io::write_tensor_pb((dir / "s.pb").string(), seq);
  Fact seq_declared = sequence_fact(declared);
  EXPECT_TRUE(io::read_value_pb((dir / "s.pb").string(), &seq_declared).tensor.equals(seq));
  // An empty map's values type comes from the declaration.
  io::write_tensor_pb((dir / "e.pb").string(), make_empty_map(DatumType::String, DatumType::F32));
  Tensor e = io::read_value_pb((dir / "e.pb").string(), &declared).tensor;
  EXPECT_EQ(map_of(e, "test").value_dt, DatumType::F64);
  try {
    io::write_npy((dir / "m.npy").string(), m);
    FAIL() << "a map written as .npy";
  } catch (const Error& err) {
    EXPECT_NE(std::string(err.what()).find("cannot be written as .npy"), std::string::npos);
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace kiln
