// Running one ONNX backend-test case (model.onnx + test_data_set_*/) in process.
#pragma once

#include <string>
#include <vector>

namespace kiln::testing {

struct CaseResult {
  bool passed = false;
  std::string message;  // why it failed (first failing data set)
};

// Loads, analyses and runs the case on every data set, comparing outputs (rtol 1e-4, atol 1e-5).
CaseResult run_backend_case(const std::string& case_dir, double rtol = 1e-4, double atol = 1e-5);

// The suite's root and folders.
inline const char* kBackendRoot = "/usr/share/libonnx-testdata/data";
inline const std::vector<std::string> kBackendFolders = {"node", "pytorch-converted",
                                                         "pytorch-operator", "simple"};

// Case names "folder/case", sorted, of every folder that exists.
std::vector<std::string> list_backend_cases();

}  // namespace kiln::testing
