#include "backend_case.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "base/error.h"
#include "core/state.h"
#include "core/tensor_compare.h"
#include "io/onnx/onnx_loader.h"
#include "io/tensor/tensor_files.h"

namespace kiln::testing {

namespace fs = std::filesystem;

CaseResult run_backend_case(const std::string& case_dir, double rtol, double atol) {
  CaseResult result;
  try {
    std::vector<fs::path> sets;
    for (const auto& e : fs::directory_iterator(case_dir))
      if (e.is_directory() && e.path().filename().string().rfind("test_data_set_", 0) == 0)
        sets.push_back(e.path());
    std::sort(sets.begin(), sets.end());
    KILN_ENSURE(!sets.empty(), "no test_data_set_* folder");
    for (const auto& set : sets) {
      // As `kiln run` does: load, read the inputs as the model declares them, bind their
      // shapes, analyse, run, read the references as the outputs are typed.
      auto graph = onnx_io::load_onnx_file((fs::path(case_dir) / "model.onnx").string());
      auto inputs_named = io::read_bundle(set.string(), "input", input_facts(*graph));
      std::vector<Tensor> inputs;
      for (auto& t : inputs_named) inputs.push_back(t.tensor);
      bind_input_shapes(*graph, inputs);
      graph->analyse();
      auto expected = io::read_bundle(set.string(), "output", output_facts(*graph));
      State state(std::make_shared<Plan>(graph));
      auto outputs = state.run(inputs);
      KILN_ENSURE(outputs.size() == expected.size(), "{} outputs, {} expected", outputs.size(),
                  expected.size());
      for (size_t i = 0; i < outputs.size(); i++) {
        auto r = compare_tensors(outputs[i], expected[i].tensor, rtol, atol);
        KILN_ENSURE(r.ok, "{}: output {}: {}", set.filename().string(), i, r.summary());
      }
    }
    result.passed = true;
  } catch (const Error& e) {
    result.message = e.chain();
  } catch (const std::exception& e) {
    result.message = std::string("exception: ") + e.what();
  }
  return result;
}

std::vector<std::string> list_backend_cases() {
  std::vector<std::string> cases;
  for (const auto& folder : kBackendFolders) {
    fs::path dir = fs::path(kBackendRoot) / folder;
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) continue;
    for (const auto& e : fs::directory_iterator(dir))
      if (e.is_directory()) cases.push_back(folder + "/" + e.path().filename().string());
  }
  std::sort(cases.begin(), cases.end());
  return cases;
}

}  // namespace kiln::testing
