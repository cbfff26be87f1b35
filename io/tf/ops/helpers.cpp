#include "io/tf/ops/helpers.h"

#include "base/error.h"
#include "ops/shape/transpose.h"

namespace kiln::tf_io {

Outlet add_transpose(NodeContext& ctx, const std::string& suffix, Outlet x,
                     std::vector<int64_t> perm) {
  return ctx.add(suffix, std::make_shared<ops::Transpose>(std::move(perm)), {x});
}

size_t input_rank(NodeContext& ctx, size_t i, const char* why) {
  const Fact* f = ctx.input_fact(i);
  KILN_ENSURE(f,
              "{}: the rank of input {} must be known at load time ({}); give the model "
              "inputs' shapes with -i",
              ctx.op_type(), i, why);
  return f->rank();
}

std::vector<int64_t> const_ints(NodeContext& ctx, size_t i, const std::string& what) {
  Tensor t = ctx.const_input(i, what);
  KILN_ENSURE(is_integer(t.dtype()), "{}: {} must be integers, got {}", ctx.op_type(), what,
              name_of(t.dtype()));
  return t.to_i64_vector();
}

int64_t const_int(NodeContext& ctx, size_t i, const std::string& what) {
  auto v = const_ints(ctx, i, what);
  KILN_ENSURE(v.size() == 1, "{}: {} must be one integer, got {} values", ctx.op_type(), what,
              v.size());
  return v[0];
}

bool channels_last(NodeContext& ctx) {
  std::string f = ctx.attr_string("data_format", "NHWC");
  if (f == "NHWC" || f == "NWC" || f == "NDHWC") return true;
  if (f == "NCHW" || f == "NCW" || f == "NCDHW") return false;
  fail("{}: unsupported data_format '{}'", ctx.op_type(), f);
}

}  // namespace kiln::tf_io
