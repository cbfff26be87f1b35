// The operators of the ONNX specification kiln is written against (ONNX 1.23: Operators.md and
// Operators-ml.md, generated into spec_ops.inc by scripts/gen-onnx-spec-ops.py), and the
// newest opset of each domain kiln implements.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace kiln::onnx_io {

struct SpecOp {
  std::string domain;  // "ai.onnx", "ai.onnx.ml", "ai.onnx.preview.training", ...
  std::string op;
  std::vector<int> versions;  // opsets at which a version of the op was defined, ascending
  bool deprecated = false;
  bool function = false;  // defined by a function body in the spec
};

// Every operator of the spec, sorted by domain and name.
const std::vector<SpecOp>& spec_ops();
// The spec entry of (domain, op); domain "" means ai.onnx. nullptr when the spec has none.
const SpecOp* find_spec_op(const std::string& domain, const std::string& op);
// The version of `op` a model importing `opset` of its domain uses: the largest version not
// above `opset` (nullopt when the op is newer than the opset, or not in the spec).
std::optional<int> spec_version_at(const std::string& domain, const std::string& op, int64_t opset);
// The newest opset of a domain kiln implements (ai.onnx 25, ai.onnx.ml 5, ...; 0 when kiln
// knows no opset of the domain).
int newest_implemented_opset(const std::string& domain);
// The newest opset of a domain the spec defines a version of any operator at.
int newest_spec_opset(const std::string& domain);

}  // namespace kiln::onnx_io
