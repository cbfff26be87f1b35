// Loading ONNX models: ModelProto -> kiln Graph (the "load" stage, facts not yet analysed).
#pragma once

#include <onnx/onnx_pb.h>

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/graph.h"

namespace kiln::onnx_io {

struct OnnxModelInfo {
  int64_t ir_version = 0;
  std::map<std::string, int64_t> opsets;  // domain ("" for ai.onnx) -> version
  std::string producer;
  std::vector<std::string> warnings;  // e.g. an opset newer than kiln implements
};

// Reads and translates a .onnx file. Throws kiln::Error on unreadable files, malformed
// protobuf, unsupported ops (all listed at once) or dangling names.
std::shared_ptr<Graph> load_onnx_file(const std::string& path, OnnxModelInfo* info = nullptr);
// Same, from the bytes of a .onnx file held in memory; `name` names it in errors, `base_dir` is
// where external data files live.
std::shared_ptr<Graph> load_onnx_bytes(std::string_view bytes, const std::string& name,
                                       const std::string& base_dir, OnnxModelInfo* info = nullptr);
// Same, from a parsed ModelProto; `base_dir` is where external data files live.
std::shared_ptr<Graph> load_onnx_model(const onnx::ModelProto& model, const std::string& base_dir,
                                       OnnxModelInfo* info = nullptr);

}  // namespace kiln::onnx_io
