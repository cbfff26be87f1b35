// Between the public API (include/kiln/) and the library: the Impl structs behind the public
// handles and the conversions. Private to libkiln's api/ sources.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "base/error.h"  // kiln::Error (kiln/error.h) with fail() and KILN_ENSURE
#include "core/graph.h"
#include "core/session.h"
#include "core/state.h"
#include "core/tensor.h"
#include "kiln/kiln.hpp"

namespace kiln::api {

struct Tensor::Impl {
  kiln::Tensor tensor;
};

struct Model::Impl {
  std::shared_ptr<Graph> graph;  // load stage, with the facts set so far
  size_t positional = 0;         // set_input_fact specs without a name so far
};

struct Runnable::Impl {
  std::shared_ptr<const Graph> loaded;  // the load-stage graph: input names, constant inputs
  PlanPtr plan;
};

struct Session::Impl {
  std::shared_ptr<const Runnable::Impl> runnable;
  kiln::Session session;
  Impl(std::shared_ptr<const Runnable::Impl> r, SessionOptions options)
      : runnable(std::move(r)), session(runnable->plan, kiln::SessionOptions{options.threads}) {}
};

DatumType to_datum_type(DataType dt);
// Throws naming `what` when the type has no DataType (strings, sequences).
DataType from_datum_type(DatumType dt, const std::string& what);

inline Tensor wrap(kiln::Tensor t) {
  auto impl = std::make_shared<Tensor::Impl>();
  impl->tensor = std::move(t);
  return Tensor(std::move(impl));
}
inline const kiln::Tensor& unwrap(const Tensor& t) {
  static const kiln::Tensor null;
  return t.impl() ? t.impl()->tensor : null;
}

}  // namespace kiln::api

namespace kiln::api {

// Runs f; any failure leaves as a kiln::Error whose what() is the whole message the CLI prints
// (Error::chain()), bad_alloc as "out of memory".
[[noreturn]] void rethrow_as_api_error();
template <typename F>
auto guarded(F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (...) {
    rethrow_as_api_error();
  }
}

}  // namespace kiln::api
