// Sequence and optional ops beyond the backend suite: negative positions, empty sequences,
// uneven splits, new axes, symbolic facts, errors; SequenceProto files and conform_to.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include <unistd.h>

#include "../shape/test_util.h"
#include "base/error.h"
#include "core/graph.h"
#include "core/sequence.h"
#include "io/tensor/conform.h"
#include "io/tensor/tensor_files.h"
#include "ops/control/sequence_map.h"
#include "ops/elementwise/binary.h"
#include "ops/sequence/concat_from_sequence.h"
#include "ops/sequence/optional_construct.h"
#include "ops/sequence/optional_get_element.h"
#include "ops/sequence/optional_has_element.h"
#include "ops/sequence/sequence_at.h"
#include "ops/sequence/sequence_construct.h"
#include "ops/sequence/sequence_empty.h"
#include "ops/sequence/sequence_erase.h"
#include "ops/sequence/sequence_insert.h"
#include "ops/sequence/sequence_length.h"
#include "ops/sequence/split_to_sequence.h"

namespace kiln {
namespace {

using test::eval_op;
using test::f32s;
using test::facts_of;
using test::iota;
using test::values;

Tensor pos(int64_t p) {
  return Tensor::scalar<int64_t>(p);
}

const std::vector<Tensor>& items(const Tensor& seq) {
  return sequence_of(seq, "test").items;
}

TEST(SequenceOps, ConstructAtNegativePositions) {
  Tensor a = f32s({2}, {1, 2}), b = f32s({3}, {3, 4, 5});
  Tensor seq = eval_op(ops::SequenceConstruct(), {a, b})[0];
  ASSERT_EQ(items(seq).size(), 2u);
  EXPECT_EQ(values(eval_op(ops::SequenceAt(), {seq, pos(-1)})[0]), (std::vector<float>{3, 4, 5}));
  EXPECT_EQ(values(eval_op(ops::SequenceAt(), {seq, pos(0)})[0]), (std::vector<float>{1, 2}));
  EXPECT_THROW(eval_op(ops::SequenceAt(), {seq, pos(2)}), Error);
  EXPECT_THROW(eval_op(ops::SequenceAt(), {seq, pos(-3)}), Error);
  EXPECT_THROW(eval_op(ops::SequenceConstruct(), {a, Tensor::scalar<int64_t>(1)}), Error);
}

TEST(SequenceOps, InsertEraseLength) {
  Tensor seq = eval_op(ops::SequenceEmpty(DatumType::F32), {})[0];
  EXPECT_EQ(eval_op(ops::SequenceLength(), {seq})[0].value_as_i64(0), 0);
  EXPECT_THROW(eval_op(ops::SequenceErase(), {seq, Tensor()}), Error);
  seq = eval_op(ops::SequenceInsert(), {seq, f32s({1}, {1}), Tensor()})[0];  // [1]
  seq = eval_op(ops::SequenceInsert(), {seq, f32s({1}, {2}), pos(0)})[0];    // [2, 1]
  seq = eval_op(ops::SequenceInsert(), {seq, f32s({1}, {3}), pos(-1)})[0];   // [2, 3, 1]
  seq = eval_op(ops::SequenceInsert(), {seq, f32s({1}, {4}), pos(3)})[0];    // [2, 3, 1, 4]
  ASSERT_EQ(items(seq).size(), 4u);
  std::vector<float> got;
  for (const auto& t : items(seq)) got.push_back(t.data<float>()[0]);
  EXPECT_EQ(got, (std::vector<float>{2, 3, 1, 4}));
  EXPECT_THROW(eval_op(ops::SequenceInsert(), {seq, f32s({1}, {5}), pos(5)}), Error);
  EXPECT_THROW(eval_op(ops::SequenceInsert(), {seq, Tensor::scalar<int64_t>(1), Tensor()}), Error);
  Tensor erased = eval_op(ops::SequenceErase(), {seq, pos(-4)})[0];  // [3, 1, 4]
  EXPECT_EQ(items(erased)[0].data<float>()[0], 3);
  erased = eval_op(ops::SequenceErase(), {erased, Tensor()})[0];  // [3, 1]
  EXPECT_EQ(eval_op(ops::SequenceLength(), {erased})[0].value_as_i64(0), 2);
  // The input sequence is never modified.
  EXPECT_EQ(items(seq).size(), 4u);
}

TEST(SequenceOps, SplitWithoutSplitKeepdims) {
  Tensor x = iota({2, 3});
  Tensor kept = eval_op(ops::SplitToSequence(-1, true), {x, Tensor()})[0];
  ASSERT_EQ(items(kept).size(), 3u);
  EXPECT_EQ(items(kept)[1].shape(), (Shape{2, 1}));
  EXPECT_EQ(values(items(kept)[1]), (std::vector<float>{1, 4}));
  Tensor squeezed = eval_op(ops::SplitToSequence(1, false), {x, Tensor()})[0];
  EXPECT_EQ(items(squeezed)[2].shape(), (Shape{2}));
  EXPECT_EQ(values(items(squeezed)[2]), (std::vector<float>{2, 5}));
}

TEST(SequenceOps, SplitScalarAndListSizes) {
  Tensor x = iota({5, 2});
  // A scalar split: chunks of 2, the last one smaller; keepdims is ignored.
  Tensor chunks = eval_op(ops::SplitToSequence(0, false), {x, Tensor::scalar<int64_t>(2)})[0];
  ASSERT_EQ(items(chunks).size(), 3u);
  EXPECT_EQ(items(chunks)[2].shape(), (Shape{1, 2}));
  EXPECT_EQ(values(items(chunks)[2]), (std::vector<float>{8, 9}));
  Tensor parts = eval_op(ops::SplitToSequence(0, true), {x, test::i64s({1, 0, 4})})[0];
  ASSERT_EQ(items(parts).size(), 3u);
  EXPECT_EQ(items(parts)[1].shape(), (Shape{0, 2}));
  EXPECT_EQ(values(items(parts)[2]).front(), 2);
  EXPECT_THROW(eval_op(ops::SplitToSequence(0, true), {x, test::i64s({1, 1})}), Error);
  EXPECT_THROW(eval_op(ops::SplitToSequence(0, true), {x, Tensor::scalar<int64_t>(0)}), Error);
  EXPECT_THROW(eval_op(ops::SplitToSequence(2, true), {x, Tensor()}), Error);
  // An empty axis gives an empty sequence.
  Tensor none = eval_op(ops::SplitToSequence(0, true), {iota({0, 3}), Tensor()})[0];
  EXPECT_TRUE(items(none).empty());
}

TEST(SequenceOps, SplitStrings) {
  Tensor s(DatumType::String, {3});
  s.data<std::string>()[0] = "a";
  s.data<std::string>()[1] = "bb";
  s.data<std::string>()[2] = "ccc";
  Tensor seq = eval_op(ops::SplitToSequence(0, false), {s, Tensor()})[0];
  ASSERT_EQ(items(seq).size(), 3u);
  EXPECT_EQ(items(seq)[2].data<std::string>()[0], "ccc");
  Tensor back = eval_op(ops::ConcatFromSequence(0, true), {seq})[0];
  EXPECT_TRUE(back.equals(s));
}

TEST(SequenceOps, ConcatAndStack) {
  Tensor seq = make_sequence(DatumType::F32, {iota({2, 2}), f32s({2, 1}, {7, 8})});
  Tensor cat = eval_op(ops::ConcatFromSequence(-1, false), {seq})[0];
  EXPECT_EQ(cat.shape(), (Shape{2, 3}));
  EXPECT_EQ(values(cat), (std::vector<float>{0, 1, 7, 2, 3, 8}));
  EXPECT_THROW(eval_op(ops::ConcatFromSequence(0, false), {seq}), Error);  // 2 vs 1 on axis 1
  Tensor pair = make_sequence(DatumType::F32, {f32s({2}, {1, 2}), f32s({2}, {3, 4})});
  Tensor stacked = eval_op(ops::ConcatFromSequence(-1, true), {pair})[0];  // new last axis
  EXPECT_EQ(stacked.shape(), (Shape{2, 2}));
  EXPECT_EQ(values(stacked), (std::vector<float>{1, 3, 2, 4}));
  EXPECT_THROW(eval_op(ops::ConcatFromSequence(2, true), {pair}), Error);
  EXPECT_THROW(eval_op(ops::ConcatFromSequence(0, false), {make_sequence(DatumType::F32, {})}),
               Error);
}

TEST(SequenceOps, Optionals) {
  Tensor full =
      eval_op(ops::OptionalConstruct(Fact(DatumType::F32, Shape{2})), {f32s({2}, {1, 2})})[0];
  EXPECT_TRUE(eval_op(ops::OptionalHasElement(), {full})[0].data<bool>()[0]);
  EXPECT_EQ(values(eval_op(ops::OptionalGetElement(), {full})[0]), (std::vector<float>{1, 2}));
  Tensor empty = eval_op(ops::OptionalConstruct(Fact(DatumType::I64, Shape{})), {Tensor()})[0];
  EXPECT_FALSE(eval_op(ops::OptionalHasElement(), {empty})[0].data<bool>()[0]);
  EXPECT_EQ(optional_of(empty, "test").elem_dt, DatumType::I64);
  EXPECT_THROW(eval_op(ops::OptionalGetElement(), {empty}), Error);
  // Opset 18: a plain value has an element, an absent one has none.
  EXPECT_TRUE(eval_op(ops::OptionalHasElement(), {f32s({1}, {0})})[0].data<bool>()[0]);
  EXPECT_FALSE(eval_op(ops::OptionalHasElement(), {Tensor()})[0].data<bool>()[0]);
}

TEST(SequenceFacts, SymbolicShapes) {
  Fact x(DatumType::F32, {Dim::symbol("N"), Dim(6)});
  auto split = facts_of(ops::SplitToSequence(1, false), {x});
  ASSERT_EQ(split[0].dt, DatumType::Sequence);
  EXPECT_EQ(split[0].element->to_string(), "N,f32");
  Fact three = Fact::constant(Tensor::scalar<int64_t>(3));
  split = facts_of(ops::SplitToSequence(1, true), {x, three});
  EXPECT_EQ(split[0].element->to_string(), "N,3,f32");
  auto stacked = facts_of(ops::ConcatFromSequence(0, true), {split[0]});
  EXPECT_EQ(stacked[0].rank(), 3u);
  EXPECT_EQ(stacked[0].shape[1], Dim::symbol("N"));
  // Items of different sizes: the differing dim becomes unknown; different ranks: unknown rank.
  auto seq = facts_of(ops::SequenceConstruct(),
                      {Fact(DatumType::F32, Shape{2, 3}), Fact(DatumType::F32, Shape{4, 3})});
  EXPECT_FALSE(seq[0].element->shape[0].is_int());
  EXPECT_EQ(seq[0].element->shape[1], Dim(3));
  seq = facts_of(ops::SequenceConstruct(),
                 {Fact(DatumType::F32, Shape{2}), Fact(DatumType::F32, Shape{2, 2})});
  EXPECT_FALSE(seq[0].element->rank_known);
  EXPECT_THROW(facts_of(ops::ConcatFromSequence(0, false), {seq[0]}), Error);
  // Inserting into a sequence known to be empty gives that item's exact fact.
  Fact empty = Fact::constant(make_sequence(DatumType::F32, {}));
  auto inserted = facts_of(ops::SequenceInsert(), {empty, x});
  EXPECT_EQ(inserted[0].element->to_string(), "N,6,f32");
  EXPECT_THROW(facts_of(ops::SequenceInsert(), {empty, Fact(DatumType::I64, Shape{1})}), Error);
  auto at = facts_of(ops::SequenceAt(), {inserted[0], Fact(DatumType::I64, Shape{})});
  EXPECT_EQ(at[0].to_string(), "N,6,f32");
  EXPECT_THROW(facts_of(ops::SequenceAt(), {x, Fact(DatumType::I64, Shape{})}), Error);
}

TEST(SequenceOps, SequenceMapWithTensorInput) {
  // body(item, bias) = item + bias, mapped over a sequence with a broadcast tensor.
  auto body = std::make_shared<Graph>();
  Outlet item = body->add_source("item", Fact());
  Outlet bias = body->add_source("bias", Fact());
  int add =
      body->add_node("add", std::make_shared<ops::Binary>(ops::BinaryKind::Add), {item, bias});
  body->set_outputs({{add, 0}}, {"sum"});
  ops::SequenceMap map(body, 2);
  Tensor seq = make_sequence(DatumType::F32, {f32s({2}, {1, 2}), f32s({3}, {3, 4, 5})});
  Tensor bias_t = f32s({1}, {10});
  auto facts = facts_of(map, {fact_of_value(seq), Fact(DatumType::F32, Shape{1})});
  EXPECT_EQ(facts[0].dt, DatumType::Sequence);
  Tensor out = eval_op(map, {seq, bias_t})[0];
  ASSERT_EQ(items(out).size(), 2u);
  EXPECT_EQ(values(items(out)[0]), (std::vector<float>{11, 12}));
  EXPECT_EQ(values(items(out)[1]), (std::vector<float>{13, 14, 15}));
  Tensor shorter = make_sequence(DatumType::F32, {f32s({1}, {0})});
  EXPECT_THROW(eval_op(map, {seq, shorter}), Error);  // sequences of different lengths
  Tensor none = eval_op(map, {make_sequence(DatumType::F32, {}), bias_t})[0];
  EXPECT_TRUE(items(none).empty());
}

TEST(SequenceFiles, RoundTripAndConform) {
  auto dir = std::filesystem::temp_directory_path() /
             ("kiln_sequence_test_" + std::to_string(getpid()));  // one per process
  std::filesystem::create_directories(dir);
  Tensor seq = make_sequence(DatumType::I64, {test::i64s({1, 2}), test::i64s({})});
  io::write_tensor_pb((dir / "seq.pb").string(), seq);
  Fact declared = sequence_fact(unknown_shape_fact(DatumType::I64));
  Tensor back = io::read_value_pb((dir / "seq.pb").string(), &declared).tensor;
  EXPECT_TRUE(back.equals(seq));
  Tensor opt = make_optional(DatumType::Sequence, Tensor(), DatumType::I64);
  io::write_tensor_pb((dir / "opt.pb").string(), opt);
  Fact opt_declared = optional_fact(declared);
  Tensor opt_back = io::read_value_pb((dir / "opt.pb").string(), &opt_declared).tensor;
  EXPECT_FALSE(optional_of(opt_back, "test").has_value());
  EXPECT_EQ(optional_of(opt_back, "test").seq_elem_dt, DatumType::I64);
  // An empty SequenceProto says nothing of its items: the declaration gives their type.
  io::write_tensor_pb((dir / "empty.pb").string(), make_sequence(DatumType::F32, {}));
  Tensor empty = io::read_value_pb((dir / "empty.pb").string(), &declared).tensor;
  EXPECT_EQ(sequence_of(empty, "test").elem_dt, DatumType::I64);
  std::filesystem::remove_all(dir);
}

TEST(SequenceFiles, ConformBf16StoredAsU16) {
  Tensor bits = Tensor::from_vector<uint16_t>({2}, {0x3f80, 0xc000});  // 1.0, -2.0 in bf16
  Tensor bf = io::conform_to(bits, Fact(DatumType::BF16, Shape{2}));
  ASSERT_EQ(bf.dtype(), DatumType::BF16);
  EXPECT_EQ(bf.value_as_double(0), 1.0);
  EXPECT_EQ(bf.value_as_double(1), -2.0);
  // A declared u16 stays u16; other mismatches are left for the input checks.
  EXPECT_EQ(io::conform_to(bits, Fact(DatumType::U16, Shape{2})).dtype(), DatumType::U16);
  EXPECT_EQ(io::conform_to(bits, Fact(DatumType::F32, Shape{2})).dtype(), DatumType::U16);
}

}  // namespace
}  // namespace kiln
