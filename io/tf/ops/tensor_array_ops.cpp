// TF1 TensorArrayV3 ops, as plain tensors: a TensorArray's "flow" value is the stacked tensor
// itself ([size, element...]), so a scatter is a ScatterND (or nothing, when it writes every
// element in order), a read a Gather along axis 0. The "handle" output stands for the size.
#include "base/error.h"
#include "io/tf/ops/helpers.h"
#include "io/tf/tf_tensor.h"
#include "ops/elementwise/cast.h"
#include "ops/shape/concat.h"
#include "ops/shape/expand.h"
#include "ops/shape/gather.h"
#include "ops/shape/reshape.h"
#include "ops/shape/scatter.h"
#include "ops/shape/shape_of.h"
#include "ops/shape/squeeze.h"

namespace kiln::tf_io {

namespace {

// The TensorArrayV3 node whose flow feeds input i directly, or nullptr.
const tfproto::NodeDef* fresh_array(NodeContext& ctx, size_t i) {
  auto [node, port] = ctx.input_source(i);
  if (node && node->op() == "TensorArrayV3" && port == 1) return node;
  return nullptr;
}

bool element_shape_known(const tfproto::NodeDef& ta) {
  auto it = ta.attr().find("element_shape");
  if (it == ta.attr().end() || !it->second.has_shape()) return false;
  const auto& s = it->second.shape();
  if (s.unknown_rank()) return false;
  for (const auto& d : s.dim())
    if (d.size() < 0) return false;
  return true;
}

// The flow input i, refusing arrays nothing was written to yet.
Outlet flow_input(NodeContext& ctx, size_t i) {
  const auto* ta = fresh_array(ctx, i);
  KILN_ENSURE(!ta || element_shape_known(*ta),
              "{}: TensorArray '{}' is read before anything is written to it and its "
              "element_shape is unknown",
              ctx.op_type(), ta ? ta->name() : "");
  return ctx.input(i);
}

Outlet as_i64(NodeContext& ctx, const std::string& suffix, Outlet x) {
  return ctx.add(suffix, std::make_shared<ops::Cast>(DatumType::I64), {x});
}

// True when `indices` are known to be 0, 1, ..., n-1 with n the array size and the dim 0 of
// `value`: the scatter writes the whole array in order.
bool scatters_everything(NodeContext& ctx, size_t size_input, size_t indices_input,
                         size_t value_input) {
  auto size = ctx.try_const_input(size_input);
  auto indices = ctx.try_const_input(indices_input);
  const Fact* value = ctx.input_fact(value_input);
  if (!size || !indices || !value || value->rank() < 1 || size->numel() != 1) return false;
  if (!is_integer(size->dtype()) || !is_integer(indices->dtype())) return false;
  const int64_t n = size->value_as_i64(0);
  auto idx = indices->to_i64_vector();
  if (indices->rank() != 1 || static_cast<int64_t>(idx.size()) != n) return false;
  for (int64_t i = 0; i < n; i++)
    if (idx[static_cast<size_t>(i)] != i) return false;
  return value->shape[0] == Dim(n);
}

}  // namespace

void register_tf_tensor_array_ops(OpRegistry& r) {
  r.add("TensorArrayV3", [](NodeContext& ctx) {
    KILN_ENSURE(!ctx.attr_bool("dynamic_size", false),
                "TensorArrayV3: dynamic_size=true is not supported");
    Outlet size = ctx.input(0);
    ctx.set_output(0, size);
    if (!element_shape_known(ctx.node())) {
      ctx.set_output(1, size);  // placeholder: the first scatter gives the real shape
      return;
    }
    std::vector<int64_t> dims;
    for (const auto& d : ctx.required_attr("element_shape", "shape").shape().dim())
      dims.push_back(d.size());
    DatumType dt = ctx.attr_type("dtype");
    Outlet n = ctx.add("size_1d", std::make_shared<ops::Reshape>(false),
                       {as_i64(ctx, "size_i64", size),
                        ctx.add_const("one", Tensor::from_vector<int64_t>({1}, {1}))});
    Outlet elem = ctx.add_const(
        "element_shape", Tensor::from_vector<int64_t>({static_cast<int64_t>(dims.size())}, dims));
    Outlet shape = ctx.add("shape", std::make_shared<ops::Concat>(0), {n, elem});
    Outlet zero = ctx.add_const("zero", Tensor(dt, Shape{}));
    ctx.set_output(1, ctx.add("", std::make_shared<ops::Expand>(), {zero, shape}));
  });
  r.add("TensorArrayScatterV3", [](NodeContext& ctx) {
    Outlet value = ctx.input(2);
    Outlet base;
    if (fresh_array(ctx, 3)) {
      if (scatters_everything(ctx, 0, 1, 2)) {
        ctx.set_output(0, value);
        return;
      }
      const Fact* vf = ctx.input_fact(2);
      KILN_ENSURE(vf, "TensorArrayScatterV3: the value type must be known at load time");
      // zeros of shape [size, value.shape[1:]]
      Outlet n = ctx.add("size_1d", std::make_shared<ops::Reshape>(false),
                         {as_i64(ctx, "size_i64", ctx.input(0)),
                          ctx.add_const("one", Tensor::from_vector<int64_t>({1}, {1}))});
      Outlet elem = ctx.add("element_shape", std::make_shared<ops::ShapeOf>(1), {value});
      Outlet shape = ctx.add("shape", std::make_shared<ops::Concat>(0), {n, elem});
      Outlet zero = ctx.add_const("zero", Tensor(vf->dt, Shape{}));
      base = ctx.add("zeros", std::make_shared<ops::Expand>(), {zero, shape});
    } else {
      base = flow_input(ctx, 3);
    }
    Outlet idx = ctx.add("indices", std::make_shared<ops::Unsqueeze>(std::vector<int64_t>{-1}),
                         {as_i64(ctx, "indices_i64", ctx.input(1))});
    ctx.set_output(0, ctx.add("", std::make_shared<ops::ScatterND>(), {base, idx, value}));
  });
  r.add("TensorArrayWriteV3", [](NodeContext& ctx) {
    Outlet flow = flow_input(ctx, 3);
    Outlet idx = ctx.add("index", std::make_shared<ops::Reshape>(false),
                         {as_i64(ctx, "index_i64", ctx.input(1)),
                          ctx.add_const("index_shape", Tensor::from_vector<int64_t>({2}, {1, 1}))});
    Outlet v =
        ctx.add("value", std::make_shared<ops::Unsqueeze>(std::vector<int64_t>{0}), {ctx.input(2)});
    ctx.set_output(0, ctx.add("", std::make_shared<ops::ScatterND>(), {flow, idx, v}));
  });
  r.add("TensorArrayReadV3", [](NodeContext& ctx) {
    Outlet flow = flow_input(ctx, 2);
    ctx.set_output(0, ctx.add("", std::make_shared<ops::Gather>(0), {flow, ctx.input(1)}));
  });
  r.add("TensorArrayGatherV3", [](NodeContext& ctx) {
    Outlet flow = flow_input(ctx, 2);
    ctx.set_output(0, ctx.add("", std::make_shared<ops::Gather>(0), {flow, ctx.input(1)}));
  });
  r.add("TensorArraySizeV3", [](NodeContext& ctx) {
    Outlet flow = flow_input(ctx, 1);
    Outlet shape = ctx.add("shape", std::make_shared<ops::ShapeOf>(0, 1), {flow});
    Outlet n = ctx.add("squeeze", std::make_shared<ops::Squeeze>(std::vector<int64_t>{0}), {shape});
    ctx.set_output(0, ctx.add("", std::make_shared<ops::Cast>(DatumType::I32), {n}));
  });
}

}  // namespace kiln::tf_io
