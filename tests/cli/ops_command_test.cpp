// `kiln ops` and sequence values through `kiln run` (type-directed bundle reading).
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "core/sequence.h"
#include "io/tensor/tensor_files.h"
#include "tests/cli/run_kiln.h"

namespace {

using kiln::testing::CommandResult;
using kiln::testing::run_kiln;

namespace fs = std::filesystem;

std::vector<int> versions_of(const nlohmann::json& row, const char* key) {
  return row[key].get<std::vector<int>>();
}

TEST(OpsCommand, ListsSupportedOpsWithTheVersionsKilnImplements) {
  auto [code, out] = run_kiln("ops --json", false);
  ASSERT_EQ(code, 0) << out;
  auto json = nlohmann::json::parse(out);
  std::map<std::string, nlohmann::json> rows;
  for (const auto& row : json) {
    EXPECT_TRUE(row["supported"].get<bool>());
    rows[row["domain"].get<std::string>() + "/" + row["op"].get<std::string>()] = row;
  }
  // Versions come from kiln's registry and the ONNX 1.23 spec, up to opset 25.
  EXPECT_EQ(versions_of(rows.at("ai.onnx/Loop"), "versions"),
            (std::vector<int>{1, 11, 13, 16, 19, 21, 23, 24, 25}));
  EXPECT_EQ(versions_of(rows.at("ai.onnx/Pad"), "versions"),
            (std::vector<int>{1, 2, 11, 13, 18, 19, 21, 23, 24, 25}));
  EXPECT_EQ(versions_of(rows.at("ai.onnx/Attention"), "versions"), (std::vector<int>{23, 24, 25}));
  EXPECT_EQ(versions_of(rows.at("ai.onnx/GroupNormalization"), "versions"),
            (std::vector<int>{18, 21}));
  EXPECT_EQ(rows.at("ai.onnx/RMSNormalization")["since_opset"], 23);
  EXPECT_TRUE(rows.count("ai.onnx.ml/TreeEnsemble"));
  EXPECT_TRUE(rows.count("ai.onnx/SequenceMap"));
  for (const auto& [key, row] : rows)
    for (int v : versions_of(row, "versions")) EXPECT_LE(v, 25) << key;
  auto [code2, table] = run_kiln("ops");
  EXPECT_EQ(code2, 0);
  EXPECT_NE(table.find("SplitToSequence"), std::string::npos);
  EXPECT_NE(table.find("operator versions"), std::string::npos);
}

TEST(OpsCommand, MissingListsTheSpecsOperatorsKilnLacks) {
  auto [code, out] = run_kiln("ops --missing --json", false);
  ASSERT_EQ(code, 0) << out;
  auto json = nlohmann::json::parse(out);
  std::set<std::string> missing;
  for (const auto& row : json) missing.insert(row["op"].get<std::string>());
  // Newer than the opset 25 kiln implements, or with no translator at all.
  EXPECT_TRUE(missing.count("BitCast"));
  EXPECT_FALSE(missing.count("ImageDecoder"));
  EXPECT_FALSE(missing.count("ZipMap"));
  EXPECT_FALSE(missing.count("CastMap"));
  EXPECT_FALSE(missing.count("Attention"));
  EXPECT_FALSE(missing.count("Conv"));
  EXPECT_FALSE(missing.count("Gradient"));
  auto [code2, table] = run_kiln("ops --missing");
  EXPECT_EQ(code2, 0);
  EXPECT_NE(table.find("not supported"), std::string::npos);
}

// A model importing an opset past 25 runs when its operators did not change since, with a
// warning naming the opset; an operator whose newer version kiln lacks is refused, naming it.
TEST(OpsCommand, NewerOpsetsWarnAndNewerVersionsAreRefused) {
  fs::path dir = fs::temp_directory_path() / ("kiln_cli_opset_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  auto model_with = [&](int64_t opset, const std::string& op) {
    onnx::ModelProto model;
    model.set_ir_version(10);
    model.add_opset_import()->set_version(opset);
    auto* g = model.mutable_graph();
    g->set_name("g");
    auto* n = g->add_node();
    n->set_op_type(op);
    n->add_input("x");
    n->add_output("y");
    for (const char* name : {"x", "y"}) {
      auto* v = name[0] == 'x' ? g->add_input() : g->add_output();
      v->set_name(name);
      v->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
      v->mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_value(2);
    }
    std::string path = (dir / (op + std::to_string(opset) + ".onnx")).string();
    std::ofstream(path, std::ios::binary) << model.SerializeAsString();
    return path;
  };
  auto [code, out] = run_kiln("dump " + model_with(30, "Relu"));
  EXPECT_EQ(code, 0) << out;
  EXPECT_NE(out.find("opset 30 of ai.onnx"), std::string::npos) << out;
  auto [quiet, quiet_out] = run_kiln("dump " + model_with(25, "Relu"));
  EXPECT_EQ(quiet, 0) << quiet_out;
  EXPECT_EQ(quiet_out.find("newer than"), std::string::npos) << quiet_out;
  // Celu-28 is newer than kiln's Celu-12.
  auto [refused, refused_out] = run_kiln("dump " + model_with(28, "Celu"));
  EXPECT_EQ(refused, 1);
  EXPECT_NE(refused_out.find("version 28 of Celu, kiln implements versions up to"),
            std::string::npos)
      << refused_out;
  fs::remove_all(dir);
}

// A model: seq = SplitToSequence(x, axis=0, keepdims=0); y = SequenceLength(seq).
TEST(SequenceThroughCli, RunsAndChecksSequenceOutputs) {
  fs::path dir = fs::temp_directory_path() / ("kiln_cli_seq_" + std::to_string(::getpid()));
  fs::create_directories(dir / "data");
  onnx::ModelProto model;
  model.set_ir_version(8);
  model.add_opset_import()->set_version(15);
  auto* g = model.mutable_graph();
  g->set_name("g");
  auto* split = g->add_node();
  split->set_op_type("SplitToSequence");
  split->add_input("x");
  split->add_output("seq");
  auto* keep = split->add_attribute();
  keep->set_name("keepdims");
  keep->set_type(onnx::AttributeProto::INT);
  keep->set_i(0);
  auto* len = g->add_node();
  len->set_op_type("SequenceLength");
  len->add_input("seq");
  len->add_output("n");
  auto* x = g->add_input();
  x->set_name("x");
  x->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
  x->mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_param("N");
  x->mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_value(2);
  auto* seq_out = g->add_output();
  seq_out->set_name("seq");
  seq_out->mutable_type()
      ->mutable_sequence_type()
      ->mutable_elem_type()
      ->mutable_tensor_type()
      ->set_elem_type(onnx::TensorProto::FLOAT);
  auto* n_out = g->add_output();
  n_out->set_name("n");
  n_out->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::INT64);
  std::ofstream(dir / "model.onnx", std::ios::binary) << model.SerializeAsString();

  auto input = kiln::Tensor::from_vector<float>({3, 2}, {1, 2, 3, 4, 5, 6});
  kiln::io::write_tensor_pb((dir / "data" / "input_0.pb").string(), input, "x");
  std::vector<kiln::Tensor> rows;
  for (int r = 0; r < 3; r++) rows.push_back(input.slice_outer(r, r + 1).reshaped({2}).clone());
  kiln::io::write_tensor_pb((dir / "data" / "output_0.pb").string(),
                            kiln::make_sequence(kiln::DatumType::F32, rows), "seq");
  kiln::io::write_tensor_pb((dir / "data" / "output_1.pb").string(),
                            kiln::Tensor::scalar<int64_t>(3), "n");
  std::string model_path = (dir / "model.onnx").string();
  std::string data = (dir / "data").string();
  auto [code, out] =
      run_kiln("run " + model_path + " --input-bundle " + data + " --assert-output-bundle " + data);
  EXPECT_EQ(code, 0) << out;
  EXPECT_NE(out.find("all 2 outputs match"), std::string::npos) << out;
  // A wrong item makes the comparison fail and say which item.
  rows[1].data<float>()[0] = 30;
  kiln::io::write_tensor_pb((dir / "data" / "output_0.pb").string(),
                            kiln::make_sequence(kiln::DatumType::F32, rows), "seq");
  auto [bad, bad_out] =
      run_kiln("run " + model_path + " --input-bundle " + data + " --assert-output-bundle " + data);
  EXPECT_EQ(bad, 1);
  EXPECT_NE(bad_out.find("sequence item 1"), std::string::npos) << bad_out;
  // --output-dir writes the sequence back as a SequenceProto.
  auto [wrote, wrote_out] = run_kiln("run " + model_path + " --input-bundle " + data +
                                     " --output-dir " + (dir / "out").string());
  EXPECT_EQ(wrote, 0) << wrote_out;
  kiln::Fact declared = kiln::sequence_fact(kiln::unknown_shape_fact(kiln::DatumType::F32));
  auto back = kiln::io::read_value_pb((dir / "out" / "output_0.pb").string(), &declared);
  EXPECT_EQ(kiln::sequence_of(back.tensor, "test").items.size(), 3u);
  fs::remove_all(dir);
}

}  // namespace
