// TF translators moving data between space and depth / batch: DepthToSpace and SpaceToDepth
// (NHWC around kiln's NCHW ops), SpaceToBatchND and BatchToSpaceND (the dilated-convolution
// wrappers of TF1) as Pad / Reshape / Transpose / Slice.
#include <limits>

#include "base/error.h"
#include "io/tf/ops/helpers.h"
#include "ops/image/depth_to_space.h"
#include "ops/image/space_to_depth.h"
#include "ops/shape/pad.h"
#include "ops/shape/reshape.h"
#include "ops/shape/slice.h"

namespace kiln::tf_io {

namespace {

Outlet i64_vector(NodeContext& ctx, const std::string& suffix, const std::vector<int64_t>& v) {
  return ctx.add_const(suffix, Tensor::from_vector<int64_t>({static_cast<int64_t>(v.size())}, v));
}

Outlet reshape(NodeContext& ctx, const std::string& suffix, Outlet x,
               const std::vector<int64_t>& shape) {
  return ctx.add(suffix, std::make_shared<ops::Reshape>(false),
                 {x, i64_vector(ctx, suffix + "_shape", shape)});
}

void depth_space(NodeContext& ctx, bool to_space) {
  const int64_t bs = ctx.attr_int("block_size");
  KILN_ENSURE(bs >= 2, "{}: block_size must be at least 2, got {}", ctx.op_type(), bs);
  const bool nhwc = channels_last(ctx);
  Outlet x = ctx.input(0);
  if (nhwc) x = add_transpose(ctx, "to_nchw", x, {0, 3, 1, 2});
  OpPtr op = to_space ? OpPtr(std::make_shared<ops::DepthToSpace>(bs, false))
                      : OpPtr(std::make_shared<ops::SpaceToDepth>(bs));
  Outlet y = ctx.add(nhwc ? "nchw" : "", op, {x});
  if (nhwc) y = add_transpose(ctx, "", y, {0, 2, 3, 1});
  ctx.set_output(0, y);
}

// Concrete input dims after the batch axis (spatial then the rest).
std::vector<int64_t> inner_dims(NodeContext& ctx) {
  const Fact* f = ctx.input_fact(0);
  KILN_ENSURE(f && f->rank() >= 2, "{}: the input shape must be known at load time", ctx.op_type());
  std::vector<int64_t> dims;
  for (size_t i = 1; i < f->rank(); i++) {
    auto d = f->shape[i].as_int();
    KILN_ENSURE(d.has_value(), "{}: dim {} of the input is symbolic ({})", ctx.op_type(), i,
                f->shape[i].to_string());
    dims.push_back(*d);
  }
  return dims;
}

void space_to_batch(NodeContext& ctx) {
  auto block = const_ints(ctx, 1, "block_shape");
  Tensor pad = ctx.const_input(2, "paddings");
  const size_t m = block.size();
  KILN_ENSURE(pad.numel() == static_cast<int64_t>(2 * m),
              "SpaceToBatchND: paddings must be [{}, 2]", m);
  auto p = pad.to_i64_vector();
  std::vector<int64_t> dims = inner_dims(ctx);
  KILN_ENSURE(dims.size() >= m, "SpaceToBatchND: {} block dims for an input of rank {}", m,
              dims.size() + 1);
  const size_t rank = dims.size() + 1;
  std::vector<int64_t> pads(2 * rank, 0);
  for (size_t i = 0; i < m; i++) {
    KILN_ENSURE(block[i] >= 1 && p[2 * i] >= 0 && p[2 * i + 1] >= 0,
                "SpaceToBatchND: invalid block {} or paddings on axis {}", block[i], i + 1);
    pads[1 + i] = p[2 * i];
    pads[rank + 1 + i] = p[2 * i + 1];
    dims[i] += p[2 * i] + p[2 * i + 1];
    KILN_ENSURE(dims[i] % block[i] == 0,
                "SpaceToBatchND: padded dim {} is not a multiple of block {}", dims[i], block[i]);
  }
  Outlet y =
      ctx.add("pad", std::make_shared<ops::Pad>(ops::PadMode::Constant, pads, 0.0), {ctx.input(0)});
  // [B, P1/b1, b1, ..., PM/bM, bM, rest] -> [b1..bM, B, P1/b1..PM/bM, rest] -> merge batch
  std::vector<int64_t> split{-1}, merged{-1}, perm;
  for (size_t i = 0; i < m; i++) {
    split.push_back(dims[i] / block[i]);
    split.push_back(block[i]);
    merged.push_back(dims[i] / block[i]);
    perm.push_back(static_cast<int64_t>(2 + 2 * i));
  }
  perm.push_back(0);
  for (size_t i = 0; i < m; i++) perm.push_back(static_cast<int64_t>(1 + 2 * i));
  for (size_t i = m; i < dims.size(); i++) {
    split.push_back(dims[i]);
    merged.push_back(dims[i]);
    perm.push_back(static_cast<int64_t>(1 + m + i));
  }
  y = reshape(ctx, "split", y, split);
  y = add_transpose(ctx, "permute", y, perm);
  ctx.set_output(0, reshape(ctx, "", y, merged));
}

void batch_to_space(NodeContext& ctx) {
  auto block = const_ints(ctx, 1, "block_shape");
  Tensor crop = ctx.const_input(2, "crops");
  const size_t m = block.size();
  KILN_ENSURE(crop.numel() == static_cast<int64_t>(2 * m), "BatchToSpaceND: crops must be [{}, 2]",
              m);
  auto c = crop.to_i64_vector();
  std::vector<int64_t> dims = inner_dims(ctx);
  KILN_ENSURE(dims.size() >= m, "BatchToSpaceND: {} block dims for an input of rank {}", m,
              dims.size() + 1);
  // [b1..bM, B, S1..SM, rest] -> [B, S1, b1, ..., SM, bM, rest] -> [B, S1*b1, ..., rest]
  std::vector<int64_t> split, merged{-1}, perm{static_cast<int64_t>(m)};
  for (size_t i = 0; i < m; i++) {
    KILN_ENSURE(block[i] >= 1, "BatchToSpaceND: invalid block {}", block[i]);
    split.push_back(block[i]);
  }
  split.push_back(-1);
  for (size_t i = 0; i < m; i++) {
    split.push_back(dims[i]);
    merged.push_back(dims[i] * block[i]);
    perm.push_back(static_cast<int64_t>(m + 1 + i));
    perm.push_back(static_cast<int64_t>(i));
  }
  for (size_t i = m; i < dims.size(); i++) {
    split.push_back(dims[i]);
    merged.push_back(dims[i]);
    perm.push_back(static_cast<int64_t>(1 + m + i));
  }
  Outlet y = reshape(ctx, "split", ctx.input(0), split);
  y = add_transpose(ctx, "permute", y, perm);
  bool cropped = false;
  for (auto v : c) cropped = cropped || v != 0;
  y = reshape(ctx, cropped ? "merge" : "", y, merged);
  if (cropped) {
    std::vector<int64_t> starts, ends, axes, steps;
    for (size_t i = 0; i < m; i++) {
      KILN_ENSURE(c[2 * i] >= 0 && c[2 * i + 1] >= 0 && c[2 * i] + c[2 * i + 1] <= merged[1 + i],
                  "BatchToSpaceND: invalid crops on axis {}", i + 1);
      starts.push_back(c[2 * i]);
      ends.push_back(merged[1 + i] - c[2 * i + 1]);
      axes.push_back(static_cast<int64_t>(1 + i));
      steps.push_back(1);
    }
    y = ctx.add("", std::make_shared<ops::Slice>(),
                {y, i64_vector(ctx, "starts", starts), i64_vector(ctx, "ends", ends),
                 i64_vector(ctx, "axes", axes), i64_vector(ctx, "steps", steps)});
  }
  ctx.set_output(0, y);
}

}  // namespace

void register_tf_space_ops(OpRegistry& r) {
  r.add("DepthToSpace", [](NodeContext& ctx) { depth_space(ctx, true); });
  r.add("SpaceToDepth", [](NodeContext& ctx) { depth_space(ctx, false); });
  r.add("SpaceToBatchND", space_to_batch);
  r.add("BatchToSpaceND", batch_to_space);
}

}  // namespace kiln::tf_io
