// kiln::Error: the one exception type of kiln (the library and its public API), carrying a
// chain of context lines. what() is the root cause; chain() is the whole message the `kiln`
// command prints ("loading 'm.onnx': node conv1 (Conv): ...").
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "kiln/export.h"

// libkiln's own sources include it through base/error.h (which adds fail() and KILN_ENSURE).
namespace kiln {

class KILN_API Error : public std::runtime_error {
 public:
  explicit Error(std::string message) : std::runtime_error(message), message_(std::move(message)) {}

  // Adds an outer context line ("while loading node conv1 (Conv)") and returns *this for rethrow.
  Error& with_context(std::string context) {
    context_.push_back(std::move(context));
    return *this;
  }
  const std::string& message() const { return message_; }
  const std::vector<std::string>& context() const { return context_; }
  // The whole chain, outermost context first, then the root cause.
  std::string chain() const {
    std::string out;
    for (auto it = context_.rbegin(); it != context_.rend(); ++it) out += *it + ": ";
    return out + message_;
  }

 private:
  std::string message_;
  std::vector<std::string> context_;
};

}  // namespace kiln
