// Every intermediate value of one run, named so that two runs of the same model -- two files
// (ONNX and its NNEF), two stages, two ISAs, or a reference dump -- can be matched value by
// value (`kiln compare`, `kiln run --save-values`).
//
// A value's key is its node's name made an NNEF identifier (nnef_identifier), plus "_o<slot>"
// past the first output: the name the NNEF writer gives the tensor, so a model and its NNEF
// conversion agree. A model output also answers to "output:<output name>".
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/graph.h"
#include "core/tensor.h"

namespace kiln::cli {

struct CapturedValue {
  std::string key;
  std::string output_alias;  // "output:<name>" for a model output, else empty
  std::string node_name, op;
  int node = -1, slot = 0;              // in its graph (-1: read from files)
  std::vector<std::string> input_keys;  // keys of the values its node reads (computed ones)
  Tensor value;
};

struct CapturedRun {
  std::string description;            // "model.onnx (optimize, avx512, 2 threads)"
  std::vector<CapturedValue> values;  // evaluation order
  std::vector<Tensor> outputs;        // the model outputs, in order (empty for files)
  bool has_structure = false;         // input_keys are known (graphs, values.json)
  // Index of the value answering to a key or an output alias, or -1.
  int find(const std::string& name) const;
  void index();  // builds the lookup table (after `values` is filled)

 private:
  std::map<std::string, int> by_name_;
};

// The key of output `slot` of a node named `node_name`.
std::string value_key(const std::string& node_name, int slot);

// Runs `graph` once on `inputs` through a State, copying each computed node's outputs right
// after the node ran (values in the State's arena are reused by later nodes).
CapturedRun capture_run(const GraphPtr& graph, const std::vector<Tensor>& inputs);

// Writes each value as DIR/<key>.npy, plus DIR/values.json listing them in order with their
// nodes, ops and inputs (the format `kiln compare --reference` reads). Tensors of types .npy
// cannot hold (strings, sequences) are listed as skipped.
void save_values(const CapturedRun& run, const std::string& dir);

// Reads a directory of <name>.npy files. With a values.json (written by save_values or by
// scripts/ort-dump-values.js), values come in its order, keyed by node name and slot; without
// one, each file's name is its key, in name order.
CapturedRun load_values(const std::string& dir);

}  // namespace kiln::cli
