// Picking the loader for a model file by its name (or an explicit format).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/graph.h"

namespace kiln::io {

enum class ModelFormat { Onnx, TensorFlow, Nnef };

// Format from the file name: .onnx, .pb (TensorFlow GraphDef), .nnef.tgz/.nnef/dir with
// graph.nnef. nullopt when the name says nothing.
std::optional<ModelFormat> format_from_path(const std::string& path);
// "onnx", "tf", "nnef"; throws on anything else.
ModelFormat parse_model_format(const std::string& name);

// Loads a model into a Graph at the "load" stage (facts of the file, not yet analysed).
std::shared_ptr<Graph> load_model(const std::string& path,
                                  std::optional<ModelFormat> format = std::nullopt);

// Where to cut a graph: nodes fed instead of computed, nodes whose outputs are the model's
// outputs (TensorFlow graphs only; empty: the graph's own inputs and outputs).
struct GraphCut {
  std::vector<std::string> input_nodes;
  std::vector<std::string> output_nodes;
};
std::shared_ptr<Graph> load_model(const std::string& path, std::optional<ModelFormat> format,
                                  const GraphCut& cut);

// Loads a model held in memory: the bytes of a .onnx file, a TensorFlow GraphDef (.pb) or an
// NNEF archive (.tgz / .tar). `name` names it in errors. ONNX external data is not available.
std::shared_ptr<Graph> load_model_from_memory(std::string_view bytes, ModelFormat format,
                                              const std::string& name = "model",
                                              const GraphCut& cut = {});

}  // namespace kiln::io
