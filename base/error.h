// kiln::Error: the one exception type of kiln, carrying a chain of context lines.
#pragma once

#include <fmt/format.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace kiln {

class Error : public std::runtime_error {
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

template <typename... Args>
[[noreturn]] inline void fail(fmt::format_string<Args...> format, Args&&... args) {
  throw Error(fmt::format(format, std::forward<Args>(args)...));
}

}  // namespace kiln

// Throws kiln::Error with a formatted message when the condition does not hold.
#define KILN_ENSURE(cond, ...)              \
  do {                                      \
    if (!(cond)) ::kiln::fail(__VA_ARGS__); \
  } while (0)
