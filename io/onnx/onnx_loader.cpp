#include "io/onnx/onnx_loader.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <spdlog/spdlog.h>

#include <climits>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "base/error.h"
#include "io/onnx/graph_builder.h"
#include "io/onnx/spec_ops.h"

namespace kiln::onnx_io {

std::shared_ptr<Graph> load_onnx_file(const std::string& path, OnnxModelInfo* info) {
  namespace fs = std::filesystem;
  std::error_code ec;
  KILN_ENSURE(fs::exists(path, ec), "model file '{}' does not exist", path);
  KILN_ENSURE(fs::is_regular_file(path, ec), "'{}' is not a regular file", path);
  std::ifstream in(path, std::ios::binary);
  KILN_ENSURE(in.good(), "cannot open model file '{}'", path);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  KILN_ENSURE(!bytes.empty(), "model file '{}' is empty", path);
  std::string base_dir = fs::path(path).parent_path().string();
  return load_onnx_bytes(bytes, path, base_dir.empty() ? "." : base_dir, info);
}

std::shared_ptr<Graph> load_onnx_bytes(std::string_view bytes, const std::string& name,
                                       const std::string& base_dir, OnnxModelInfo* info) {
  KILN_ENSURE(!bytes.empty(), "model '{}' is empty", name);
  KILN_ENSURE(bytes.size() < static_cast<size_t>(INT32_MAX),
              "'{}' is larger than 2 GiB, too large for an ONNX protobuf", name);
  onnx::ModelProto model;
  google::protobuf::io::ArrayInputStream stream(bytes.data(), static_cast<int>(bytes.size()));
  google::protobuf::io::CodedInputStream coded(&stream);
  coded.SetTotalBytesLimit(INT32_MAX);
  if (!model.ParseFromCodedStream(&coded) || !coded.ConsumedEntireMessage())
    fail("'{}' is not a valid ONNX model (protobuf parse failed: truncated or not ONNX)", name);
  KILN_ENSURE(
      model.has_graph() && (model.graph().node_size() > 0 || model.graph().output_size() > 0),
      "'{}' is not a valid ONNX model (no graph)", name);
  try {
    return load_onnx_model(model, base_dir, info);
  } catch (Error& e) {
    e.with_context(fmt::format("loading '{}'", name));
    throw;
  }
}

std::shared_ptr<Graph> load_onnx_model(const onnx::ModelProto& model, const std::string& base_dir,
                                       OnnxModelInfo* info) {
  std::map<std::string, int64_t> opsets;
  for (const auto& op : model.opset_import()) {
    std::string domain = op.domain() == "ai.onnx" ? "" : op.domain();
    opsets[domain] = op.version();
  }
  if (!opsets.count("")) opsets[""] = 1;
  for (const auto& [domain, version] : opsets) {
    int newest = newest_implemented_opset(domain);
    if (newest > 0 && version > newest) {
      int spec_newest = newest_spec_opset(domain);
      std::string warning = fmt::format(
          "the model imports opset {} of {}, newer than the opset {} kiln implements: operators "
          "the ONNX 1.23 spec leaves unchanged since opset {} run as defined there, operators "
          "redefined later are refused{}",
          version, domain.empty() ? "ai.onnx" : domain, newest, newest,
          version > spec_newest
              ? fmt::format(" (the spec kiln knows ends at opset {}: later changes are unknown)",
                            spec_newest)
              : "");
      spdlog::warn("{}", warning);
      if (info) info->warnings.push_back(warning);
    }
  }
  if (info) {
    info->ir_version = model.ir_version();
    info->opsets = opsets;
    info->producer = model.producer_name();
  }
  MissingOps missing;
  GraphBuilder builder(opsets, base_dir, nullptr, &missing);
  builder.build(model.graph(), false);
  return builder.graph();
}

}  // namespace kiln::onnx_io
