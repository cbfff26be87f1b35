#include <algorithm>

#include "base/error.h"
#include "io/onnx/ops/register_all.h"
#include "io/onnx/translator.h"

namespace kiln::onnx_io {

void OpRegistry::add(const std::string& op_type, Translator translator, const std::string& domain,
                     int newest_version) {
  if (newest_version == 0) newest_version = domain.empty() ? kOnnx112Opset : 1 << 20;
  translators_[{domain, op_type}] = {std::move(translator), newest_version};
}

void OpRegistry::implements(const std::string& op_type, int newest_version,
                            const std::string& domain) {
  auto it = translators_.find({domain, op_type});
  KILN_ENSURE(it != translators_.end(), "no translator for {} to declare versions of", op_type);
  it->second.newest_version = std::max(it->second.newest_version, newest_version);
}

const Translator* OpRegistry::find(const std::string& domain, const std::string& op_type) const {
  auto it = translators_.find({domain, op_type});
  return it == translators_.end() ? nullptr : &it->second.translator;
}

int OpRegistry::newest_version(const std::string& domain, const std::string& op_type) const {
  auto it = translators_.find({domain, op_type});
  return it == translators_.end() ? 0 : it->second.newest_version;
}

std::vector<std::pair<std::string, std::string>> OpRegistry::list() const {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [key, _] : translators_) out.push_back(key);
  return out;
}

const OpRegistry& OpRegistry::instance() {
  static const OpRegistry registry = [] {
    OpRegistry r;
    register_elementwise_ops(r);
    register_nn_ops(r);
    register_shape_ops(r);
    register_reduce_ops(r);
    register_recurrent_ops(r);
    register_control_flow_ops(r);
    register_misc_ops(r);
    register_image_ops(r);
    register_signal_ops(r);
    register_text_ops(r);
    register_training_ops(r);
    register_sequence_ops(r);
    register_gradient_ops(r);
    register_norm_ops(r);
    register_attention_ops(r);
    register_geometry_ops(r);
    register_random_ops(r);
    register_ml_ops(r);
    register_newer_versions(r);
    return r;
  }();
  return registry;
}

}  // namespace kiln::onnx_io
