// kiln::Error (defined in the public include/kiln/error.h: the library and the programs that
// embed it share the one class) and the helpers that throw it: fail() and KILN_ENSURE.
#pragma once

#include <fmt/format.h>

#include "kiln/error.h"

namespace kiln {

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
