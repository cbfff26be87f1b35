#include "io/onnx/spec_ops.h"

#include <algorithm>
#include <tuple>

namespace kiln::onnx_io {

namespace {
std::string canonical(const std::string& domain) {
  return domain.empty() ? "ai.onnx" : domain;
}
}  // namespace

const std::vector<SpecOp>& spec_ops() {
  static const std::vector<SpecOp> ops = {
#include "io/onnx/spec_ops.inc"
  };
  return ops;
}

const SpecOp* find_spec_op(const std::string& domain, const std::string& op) {
  const auto& ops = spec_ops();
  std::string d = canonical(domain);
  auto it = std::lower_bound(ops.begin(), ops.end(), std::make_pair(d, op),
                             [](const SpecOp& s, const std::pair<std::string, std::string>& key) {
                               return std::tie(s.domain, s.op) < std::tie(key.first, key.second);
                             });
  return it != ops.end() && it->domain == d && it->op == op ? &*it : nullptr;
}

std::optional<int> spec_version_at(const std::string& domain, const std::string& op,
                                   int64_t opset) {
  const SpecOp* s = find_spec_op(domain, op);
  if (!s) return std::nullopt;
  std::optional<int> out;
  for (int v : s->versions)
    if (v <= opset) out = v;
  return out;
}

int newest_implemented_opset(const std::string& domain) {
  std::string d = canonical(domain);
  if (d == "ai.onnx") return 25;
  if (d == "ai.onnx.ml") return 5;
  if (d == "ai.onnx.preview.training") return 1;
  return 0;
}

int newest_spec_opset(const std::string& domain) {
  std::string d = canonical(domain);
  int newest = 0;
  for (const auto& s : spec_ops())
    if (s.domain == d) newest = std::max(newest, s.versions.back());
  return newest;
}

}  // namespace kiln::onnx_io
