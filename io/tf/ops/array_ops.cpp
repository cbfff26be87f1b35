// TF translators for constants and shape / indexing ops.
#include <limits>

#include "base/error.h"
#include "io/tf/ops/helpers.h"
#include "io/tf/tf_tensor.h"
#include "ops/core/identity.h"
#include "ops/elementwise/cast.h"
#include "ops/shape/concat.h"
#include "ops/shape/expand.h"
#include "ops/shape/gather.h"
#include "ops/shape/pad.h"
#include "ops/shape/range.h"
#include "ops/shape/reshape.h"
#include "ops/shape/shape_of.h"
#include "ops/shape/slice.h"
#include "ops/shape/split.h"
#include "ops/shape/squeeze.h"
#include "ops/shape/tile.h"
#include "ops/shape/transpose.h"

namespace kiln::tf_io {

namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

Outlet i64_const(NodeContext& ctx, const std::string& suffix, const std::vector<int64_t>& v) {
  return ctx.add_const(suffix, Tensor::from_vector<int64_t>({static_cast<int64_t>(v.size())}, v));
}

// Slice x along `axes` (ONNX semantics: clamped, negative from the end).
Outlet add_slice(NodeContext& ctx, const std::string& suffix, Outlet x,
                 const std::vector<int64_t>& starts, const std::vector<int64_t>& ends,
                 const std::vector<int64_t>& axes, const std::vector<int64_t>& steps) {
  return ctx.add(
      suffix, std::make_shared<ops::Slice>(),
      {x, i64_const(ctx, suffix + "_starts", starts), i64_const(ctx, suffix + "_ends", ends),
       i64_const(ctx, suffix + "_axes", axes), i64_const(ctx, suffix + "_steps", steps)});
}

void strided_slice(NodeContext& ctx) {
  auto begin = const_ints(ctx, 1, "begin");
  auto end = const_ints(ctx, 2, "end");
  auto strides = const_ints(ctx, 3, "strides");
  const size_t n = begin.size();
  KILN_ENSURE(end.size() == n && strides.size() == n,
              "StridedSlice: begin, end and strides have {}, {} and {} values", n, end.size(),
              strides.size());
  const int64_t begin_mask = ctx.attr_int("begin_mask", 0);
  const int64_t end_mask = ctx.attr_int("end_mask", 0);
  const int64_t ellipsis_mask = ctx.attr_int("ellipsis_mask", 0);
  const int64_t new_axis_mask = ctx.attr_int("new_axis_mask", 0);
  const int64_t shrink_mask = ctx.attr_int("shrink_axis_mask", 0);
  auto bit = [](int64_t mask, size_t i) { return ((mask >> i) & 1) != 0; };

  std::vector<int64_t> starts, ends, axes, steps, squeeze, unsqueeze;
  size_t out_pos = 0;  // position in the final output
  int64_t d = 0;       // input axis
  bool seen_ellipsis = false;
  for (size_t i = 0; i < n; i++) {
    if (bit(ellipsis_mask, i) && !seen_ellipsis) {
      seen_ellipsis = true;
      size_t rank = input_rank(ctx, 0, "StridedSlice with an ellipsis");
      size_t specified = 0;
      for (size_t j = 0; j < n; j++)
        if (j != i && !bit(new_axis_mask, j)) specified++;
      KILN_ENSURE(specified <= rank, "StridedSlice: {} indexed axes for an input of rank {}",
                  specified, rank);
      size_t count = rank - specified;
      d += static_cast<int64_t>(count);
      out_pos += count;
      continue;
    }
    if (bit(new_axis_mask, i)) {
      unsqueeze.push_back(static_cast<int64_t>(out_pos++));
      continue;
    }
    KILN_ENSURE(strides[i] != 0, "StridedSlice: stride 0 on axis {}", i);
    if (bit(shrink_mask, i)) {
      const int64_t b = begin[i];
      starts.push_back(b);
      ends.push_back(b == -1 ? kMax : b + 1);
      steps.push_back(1);
      axes.push_back(d);
      squeeze.push_back(d);
    } else {
      const bool fwd = strides[i] > 0;
      starts.push_back(bit(begin_mask, i) ? (fwd ? 0 : kMax) : begin[i]);
      ends.push_back(bit(end_mask, i) ? (fwd ? kMax : kMin) : end[i]);
      steps.push_back(strides[i]);
      axes.push_back(d);
      out_pos++;
    }
    d++;
  }
  Outlet y = ctx.input(0);
  const bool more = !squeeze.empty() || !unsqueeze.empty();
  if (!axes.empty()) y = add_slice(ctx, more ? "slice" : "", y, starts, ends, axes, steps);
  if (!squeeze.empty())
    y = ctx.add(unsqueeze.empty() ? "" : "squeeze", std::make_shared<ops::Squeeze>(squeeze), {y});
  if (!unsqueeze.empty()) y = ctx.add("", std::make_shared<ops::Unsqueeze>(unsqueeze), {y});
  if (axes.empty() && !more) y = ctx.add("", std::make_shared<ops::Identity>(), {y});
  ctx.set_output(0, y);
}

void concat(NodeContext& ctx, size_t axis_input, size_t first, size_t count) {
  int64_t axis = const_int(ctx, axis_input, "axis");
  std::vector<Outlet> values;
  for (size_t i = first; i < first + count; i++) values.push_back(ctx.input(i));
  ctx.set_output(0, ctx.add("", std::make_shared<ops::Concat>(axis), values));
}

Outlet cast_to(NodeContext& ctx, const std::string& suffix, Outlet x, DatumType dt) {
  return ctx.add(suffix, std::make_shared<ops::Cast>(dt), {x});
}

void pad(NodeContext& ctx, ops::PadMode mode) {
  Tensor p = ctx.const_input(1, "paddings");
  KILN_ENSURE(p.rank() == 2 && p.dim(1) == 2, "{}: paddings must have shape [rank, 2], got [{}]",
              ctx.op_type(), shape_to_string(p.shape()));
  auto v = p.to_i64_vector();
  const size_t r = static_cast<size_t>(p.dim(0));
  std::vector<int64_t> pads(2 * r);
  for (size_t i = 0; i < r; i++) {
    pads[i] = v[2 * i];
    pads[r + i] = v[2 * i + 1];
  }
  double value = 0;
  if (ctx.op_type() == "PadV2") {
    Tensor c = ctx.const_input(2, "constant_values");
    KILN_ENSURE(c.numel() == 1, "PadV2: constant_values must be a scalar");
    value = c.value_as_double(0);
  }
  ctx.set_output(0, ctx.add("", std::make_shared<ops::Pad>(mode, pads, value), {ctx.input(0)}));
}

}  // namespace

void register_tf_array_ops(OpRegistry& r) {
  r.add("Const", [](NodeContext& ctx) {
    const auto& v = ctx.required_attr("value", "tensor");
    KILN_ENSURE(v.has_tensor(), "Const: attribute 'value' is not a tensor");
    ctx.set_output(0, ctx.add_const("", tensor_from_tf(v.tensor())));
  });
  r.add("Reshape", [](NodeContext& ctx) {
    // TF has no "0 copies the input dim" rule: 0 is a zero-sized dim.
    ctx.wire(std::make_shared<ops::Reshape>(true));
  });
  r.add("Squeeze", [](NodeContext& ctx) {
    auto dims = ctx.attr_ints(ctx.has_attr("squeeze_dims") ? "squeeze_dims" : "axis",
                              std::vector<int64_t>{});
    std::optional<std::vector<int64_t>> axes;
    if (!dims.empty()) axes = dims;
    ctx.set_output(0, ctx.add("", std::make_shared<ops::Squeeze>(axes), {ctx.input(0)}));
  });
  r.add("ExpandDims", [](NodeContext& ctx) {
    int64_t axis = const_int(ctx, 1, "axis");
    ctx.set_output(0, ctx.add("", std::make_shared<ops::Unsqueeze>(std::vector<int64_t>{axis}),
                              {ctx.input(0)}));
  });
  r.add("Transpose", [](NodeContext& ctx) {
    auto perm = const_ints(ctx, 1, "perm");
    ctx.set_output(0, add_transpose(ctx, "", ctx.input(0), perm));
  });
  r.add("ConcatV2", [](NodeContext& ctx) {
    KILN_ENSURE(ctx.num_inputs() >= 2, "ConcatV2: needs values and an axis");
    concat(ctx, ctx.num_inputs() - 1, 0, ctx.num_inputs() - 1);
  });
  r.add("Concat", [](NodeContext& ctx) {
    KILN_ENSURE(ctx.num_inputs() >= 2, "Concat: needs an axis and values");
    concat(ctx, 0, 1, ctx.num_inputs() - 1);
  });
  r.add("Pack", [](NodeContext& ctx) {
    int64_t axis = ctx.attr_int("axis", 0);
    std::vector<Outlet> values;
    for (size_t i = 0; i < ctx.num_inputs(); i++)
      values.push_back(ctx.add("expand_" + std::to_string(i),
                               std::make_shared<ops::Unsqueeze>(std::vector<int64_t>{axis}),
                               {ctx.input(i)}));
    ctx.set_output(0, ctx.add("", std::make_shared<ops::Concat>(axis), values));
  });
  r.add("Unpack", [](NodeContext& ctx) {
    int64_t axis = ctx.attr_int("axis", 0);
    int64_t num = ctx.attr_int("num");
    KILN_ENSURE(num >= 1, "Unpack: num must be positive, got {}", num);
    int id = ctx.add_multi("split", std::make_shared<ops::Split>(axis, static_cast<size_t>(num)),
                           {ctx.input(0)}, static_cast<size_t>(num));
    for (int64_t i = 0; i < num; i++)
      ctx.set_output(
          static_cast<size_t>(i),
          ctx.add(std::to_string(i), std::make_shared<ops::Squeeze>(std::vector<int64_t>{axis}),
                  {Outlet{id, static_cast<int>(i)}}));
  });
  r.add("Slice", [](NodeContext& ctx) {
    auto begin = const_ints(ctx, 1, "begin");
    auto size = const_ints(ctx, 2, "size");
    KILN_ENSURE(begin.size() == size.size(), "Slice: {} begins but {} sizes", begin.size(),
                size.size());
    std::vector<int64_t> ends, axes, steps;
    for (size_t i = 0; i < begin.size(); i++) {
      KILN_ENSURE(begin[i] >= 0 && size[i] >= -1, "Slice: invalid begin {} / size {} on axis {}",
                  begin[i], size[i], i);
      ends.push_back(size[i] == -1 ? kMax : begin[i] + size[i]);
      axes.push_back(static_cast<int64_t>(i));
      steps.push_back(1);
    }
    ctx.set_output(0, add_slice(ctx, "", ctx.input(0), begin, ends, axes, steps));
  });
  r.add("StridedSlice", strided_slice);
  r.add("Gather", [](NodeContext& ctx) {
    ctx.set_output(0, ctx.add("", std::make_shared<ops::Gather>(0), {ctx.input(0), ctx.input(1)}));
  });
  r.add("GatherV2", [](NodeContext& ctx) {
    KILN_ENSURE(ctx.attr_int("batch_dims", 0) == 0, "GatherV2: batch_dims != 0 is not supported");
    int64_t axis = const_int(ctx, 2, "axis");
    ctx.set_output(0,
                   ctx.add("", std::make_shared<ops::Gather>(axis), {ctx.input(0), ctx.input(1)}));
  });
  r.add("GatherNd", [](NodeContext& ctx) { ctx.wire(std::make_shared<ops::GatherND>(0)); });
  r.add("Pad", [](NodeContext& ctx) { pad(ctx, ops::PadMode::Constant); });
  r.add("PadV2", [](NodeContext& ctx) { pad(ctx, ops::PadMode::Constant); });
  r.add("MirrorPad", [](NodeContext& ctx) {
    std::string mode = ctx.attr_string("mode");
    KILN_ENSURE(mode == "REFLECT", "MirrorPad: mode '{}' is not supported (only REFLECT)", mode);
    pad(ctx, ops::PadMode::Reflect);
  });
  r.add("Shape", [](NodeContext& ctx) {
    Outlet s = ctx.add("i64", std::make_shared<ops::ShapeOf>(), {ctx.input(0)});
    ctx.set_output(0, cast_to(ctx, "", s, ctx.attr_type("out_type", DatumType::I32)));
  });
  r.add("Size", [](NodeContext& ctx) {
    Outlet s = ctx.add("i64", std::make_shared<ops::Size>(), {ctx.input(0)});
    ctx.set_output(0, cast_to(ctx, "", s, ctx.attr_type("out_type", DatumType::I32)));
  });
  r.add("Rank", [](NodeContext& ctx) {
    auto rank = static_cast<int32_t>(input_rank(ctx, 0, "Rank"));
    ctx.set_output(0, ctx.add_const("", Tensor::scalar<int32_t>(rank)));
  });
  r.add("Fill", [](NodeContext& ctx) {
    ctx.set_output(0, ctx.add("", std::make_shared<ops::Expand>(), {ctx.input(1), ctx.input(0)}));
  });
  r.add("BroadcastTo", [](NodeContext& ctx) { ctx.wire(std::make_shared<ops::Expand>()); });
  for (int value : {0, 1})
    r.add(value ? "OnesLike" : "ZerosLike", [value](NodeContext& ctx) {
      const Fact* f = ctx.input_fact(0);
      KILN_ENSURE(f, "{}: the input type must be known at load time", ctx.op_type());
      Tensor v = Tensor::scalar<int32_t>(value).cast_to(f->dt);
      Outlet shape = ctx.add("shape", std::make_shared<ops::ShapeOf>(), {ctx.input(0)});
      ctx.set_output(
          0, ctx.add("", std::make_shared<ops::Expand>(), {ctx.add_const("value", v), shape}));
    });
  r.add("Range", [](NodeContext& ctx) { ctx.wire(std::make_shared<ops::Range>()); });
  r.add("Tile", [](NodeContext& ctx) { ctx.wire(std::make_shared<ops::Tile>()); });
  r.add("Split", [](NodeContext& ctx) {
    int64_t axis = const_int(ctx, 0, "split_dim");
    int64_t num = ctx.attr_int("num_split");
    KILN_ENSURE(num >= 1, "Split: num_split must be positive, got {}", num);
    int id = ctx.add_multi("", std::make_shared<ops::Split>(axis, static_cast<size_t>(num)),
                           {ctx.input(1)}, static_cast<size_t>(num));
    for (int64_t i = 0; i < num; i++)
      ctx.set_output(static_cast<size_t>(i), Outlet{id, static_cast<int>(i)});
  });
  r.add("SplitV", [](NodeContext& ctx) {
    auto sizes = const_ints(ctx, 1, "size_splits");
    int64_t axis = const_int(ctx, 2, "split_dim");
    auto minus = std::count(sizes.begin(), sizes.end(), -1);
    if (minus > 0) {
      const Fact* f = ctx.input_fact(0);
      KILN_ENSURE(f && minus == 1, "SplitV: a -1 size needs the input shape at load time");
      auto dim = f->shape.at(normalize_axis(axis, f->rank(), "SplitV")).as_int();
      KILN_ENSURE(dim.has_value(), "SplitV: a -1 size needs a known dim on the split axis");
      int64_t rest = *dim;
      for (int64_t s : sizes)
        if (s != -1) rest -= s;
      for (auto& s : sizes)
        if (s == -1) s = rest;
    }
    int id = ctx.add_multi("", std::make_shared<ops::Split>(axis, sizes.size(), sizes),
                           {ctx.input(0)}, sizes.size());
    for (size_t i = 0; i < sizes.size(); i++) ctx.set_output(i, Outlet{id, static_cast<int>(i)});
  });
}

}  // namespace kiln::tf_io
