// Runs a model with kiln's C++ API: embed MODEL [NAME=FILE.npy|.pb ...] [--labels FILE]
// Inputs not given are zeros of the model's input shapes. Prints each output as `kiln run` does:
// "output N 'name': SHAPE,TYPE [values...]"; with --labels (one class name per line), the top 3
// classes of output 0 instead, as `kiln run --labels` prints them.
#include <kiln/kiln.hpp>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <numeric>
#include <string>
#include <vector>

namespace {

std::vector<std::string> read_labels(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw kiln::Error("--labels: cannot open '" + path + "'");
  std::vector<std::string> labels;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    labels.push_back(line);
  }
  while (!labels.empty() && labels.back().empty()) labels.pop_back();
  return labels;
}

// "  1. name  4.9665" per class, best first (ties: the lower index), per row of scores.
void print_top(const kiln::api::Tensor& scores, const std::vector<std::string>& labels, size_t k) {
  std::vector<int64_t> shape = scores.shape();
  int64_t n = shape.empty() ? 0 : shape.back();
  if (scores.dtype() != kiln::api::DataType::F32 || n != static_cast<int64_t>(labels.size()))
    throw kiln::Error("--labels: output 0 is " + scores.to_string(0) + ", the labels file has " +
                      std::to_string(labels.size()) + " labels");
  const float* v = scores.data_as<float>();
  int64_t rows = n == 0 ? 0 : scores.numel() / n;
  k = std::min<size_t>(k, static_cast<size_t>(n));
  for (int64_t r = 0; r < rows; r++) {
    if (rows > 1) std::printf("row %lld:\n", static_cast<long long>(r));
    std::vector<int64_t> order(static_cast<size_t>(n));
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](int64_t a, int64_t b) { return v[r * n + a] > v[r * n + b]; });
    for (size_t i = 0; i < k; i++)
      std::printf("  %zu. %s  %.4f\n", i + 1, labels[static_cast<size_t>(order[i])].c_str(),
                  static_cast<double>(v[r * n + order[i]]));
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s MODEL [NAME=FILE.npy ...] [--labels FILE]\n", argv[0]);
    return 2;
  }
  try {
    kiln::api::Model model = kiln::api::Model::load(argv[1]);
    std::map<std::string, kiln::api::Tensor> given;
    std::string labels;
    for (int i = 2; i < argc; i++) {
      std::string arg = argv[i];
      if (arg == "--labels" && i + 1 < argc) {
        labels = argv[++i];
        continue;
      }
      size_t eq = arg.find('=');
      if (eq == std::string::npos) throw kiln::Error("expected NAME=FILE, got '" + arg + "'");
      given[arg.substr(0, eq)] = kiln::api::read_tensor(arg.substr(eq + 1));
    }
    kiln::api::Runnable runnable = model.optimize();
    std::vector<kiln::api::Tensor> inputs;
    for (size_t i = 0; i < runnable.num_inputs(); i++) {
      auto it = given.find(runnable.input_name(i));
      if (it != given.end()) {
        inputs.push_back(it->second);
        continue;
      }
      // Zeros of the input's fact ("1,40,100,f32"): every dim must be a number.
      std::string fact = runnable.input_fact(i);
      std::vector<int64_t> shape;
      size_t start = 0, comma;
      while ((comma = fact.find(',', start)) != std::string::npos) {
        shape.push_back(std::stoll(fact.substr(start, comma - start)));
        start = comma + 1;
      }
      if (fact.substr(start) != "f32")
        throw kiln::Error("input '" + runnable.input_name(i) + "' (" + fact +
                          "): give it as NAME=FILE.npy");
      inputs.emplace_back(kiln::api::DataType::F32, shape);
    }
    kiln::api::Session session = runnable.session();
    auto outputs = session.run(inputs);
    if (!labels.empty()) {
      std::printf("output 0 '%s' top 3:\n", runnable.output_name(0).c_str());
      print_top(outputs.at(0), read_labels(labels), 3);
      return 0;
    }
    for (size_t i = 0; i < outputs.size(); i++)
      std::printf("output %zu '%s': %s\n", i, runnable.output_name(i).c_str(),
                  outputs[i].to_string(16).c_str());
  } catch (const kiln::Error& e) {
    std::fprintf(stderr, "embed: error: %s\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "embed: error: %s\n", e.what());
    return 1;
  }
  return 0;
}
