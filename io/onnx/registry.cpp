#include "base/error.h"
#include "io/onnx/ops/register_all.h"
#include "io/onnx/translator.h"

namespace kiln::onnx_io {

void OpRegistry::add(const std::string& op_type, Translator translator, const std::string& domain) {
  translators_[{domain, op_type}] = std::move(translator);
}

const Translator* OpRegistry::find(const std::string& domain, const std::string& op_type) const {
  auto it = translators_.find({domain, op_type});
  return it == translators_.end() ? nullptr : &it->second;
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
    return r;
  }();
  return registry;
}

}  // namespace kiln::onnx_io
