#include "io/model_loader.h"

#include <climits>
#include <filesystem>

#include "base/error.h"
#include "io/nnef/nnef_loader.h"
#include "io/onnx/onnx_loader.h"
#include "io/tf/proto/tf_graph.pb.h"
#include "io/tf/tf_loader.h"

namespace kiln::io {

namespace fs = std::filesystem;

namespace {
bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}
}  // namespace

std::optional<ModelFormat> format_from_path(const std::string& path) {
  if (ends_with(path, ".onnx")) return ModelFormat::Onnx;
  if (ends_with(path, ".pb")) return ModelFormat::TensorFlow;
  if (ends_with(path, ".nnef.tgz") || ends_with(path, ".nnef.tar") || ends_with(path, ".nnef") ||
      ends_with(path, ".nnef/") || ends_with(path, ".nnef.tar.gz"))
    return ModelFormat::Nnef;
  std::error_code ec;
  if (fs::is_directory(path, ec) && fs::exists(fs::path(path) / "graph.nnef", ec))
    return ModelFormat::Nnef;
  return std::nullopt;
}

ModelFormat parse_model_format(const std::string& name) {
  if (name == "onnx") return ModelFormat::Onnx;
  if (name == "tf" || name == "tensorflow") return ModelFormat::TensorFlow;
  if (name == "nnef") return ModelFormat::Nnef;
  fail("unknown model format '{}' (expected onnx, tf or nnef)", name);
}

std::shared_ptr<Graph> load_model(const std::string& path, std::optional<ModelFormat> format) {
  std::error_code ec;
  KILN_ENSURE(fs::exists(path, ec), "model file '{}' does not exist", path);
  if (!format) format = format_from_path(path);
  KILN_ENSURE(format.has_value(),
              "cannot tell the format of '{}' from its name: use --format onnx|tf|nnef", path);
  switch (*format) {
    case ModelFormat::Onnx:
      return onnx_io::load_onnx_file(path);
    case ModelFormat::TensorFlow:
      return tf_io::load_tf_file(path);
    case ModelFormat::Nnef:
      return nnef::load_nnef(path);
  }
  fail("unknown model format");
}

std::shared_ptr<Graph> load_model(const std::string& path, std::optional<ModelFormat> format,
                                  const GraphCut& cut) {
  if (cut.input_nodes.empty() && cut.output_nodes.empty()) return load_model(path, format);
  if (!format) format = format_from_path(path);
  KILN_ENSURE(format == ModelFormat::TensorFlow,
              "'{}': --input-node / --output-node cut TensorFlow graphs only", path);
  tf_io::LoadOptions options;
  options.input_nodes = cut.input_nodes;
  options.output_nodes = cut.output_nodes;
  return tf_io::load_tf_file(path, options);
}

std::shared_ptr<Graph> load_model_from_memory(std::string_view bytes, ModelFormat format,
                                              const std::string& name, const GraphCut& cut) {
  KILN_ENSURE(
      format == ModelFormat::TensorFlow || (cut.input_nodes.empty() && cut.output_nodes.empty()),
      "'{}': --input-node / --output-node cut TensorFlow graphs only", name);
  switch (format) {
    case ModelFormat::Onnx:
      return onnx_io::load_onnx_bytes(bytes, name, ".");
    case ModelFormat::TensorFlow: {
      tf_io::LoadOptions options;
      options.input_nodes = cut.input_nodes;
      options.output_nodes = cut.output_nodes;
      try {
        KILN_ENSURE(bytes.size() < static_cast<size_t>(INT_MAX),
                    "larger than 2 GiB, too large for a GraphDef");
        tfproto::GraphDef graph_def;
        tf_io::parse_graph_def(std::string(bytes), graph_def);
        return tf_io::load_tf_graph(graph_def, options);
      } catch (Error& e) {
        e.with_context(fmt::format("loading '{}'", name));
        throw;
      }
    }
    case ModelFormat::Nnef:
      return nnef::load_nnef_files(nnef::read_archive_bytes(bytes, name), name);
  }
  fail("unknown model format");
}

}  // namespace kiln::io
