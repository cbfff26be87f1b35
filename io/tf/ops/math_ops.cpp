// TF translators for element-wise math, activations, matrix products and reductions.
#include "base/error.h"
#include "io/tf/ops/helpers.h"
#include "ops/core/identity.h"
#include "ops/elementwise/binary.h"
#include "ops/elementwise/cast.h"
#include "ops/elementwise/clip.h"
#include "ops/elementwise/unary.h"
#include "ops/elementwise/variadic.h"
#include "ops/elementwise/where.h"
#include "ops/nn/matmul.h"
#include "ops/nn/softmax.h"
#include "ops/reduce/arg_reduce.h"
#include "ops/reduce/reduce.h"
#include "ops/shape/squeeze.h"

namespace kiln::tf_io {

namespace {

using ops::BinaryKind;
using ops::UnaryKind;

void binary(OpRegistry& r, const std::string& tf, BinaryKind kind) {
  r.add(tf, [kind](NodeContext& ctx) { ctx.wire(std::make_shared<ops::Binary>(kind)); });
}

void unary(OpRegistry& r, const std::string& tf, UnaryKind kind, ops::UnaryParams params = {}) {
  r.add(tf, [kind, params](NodeContext& ctx) {
    ctx.set_output(0, ctx.add("", std::make_shared<ops::Unary>(kind, params), {ctx.input(0)}));
  });
}

void reduce(OpRegistry& r, const std::string& tf, ops::ReduceKind kind) {
  r.add(tf, [kind](NodeContext& ctx) {
    auto axes = const_ints(ctx, 1, "reduction axes");
    bool keep = ctx.attr_bool("keep_dims", false);
    Outlet x = ctx.input(0);
    if (axes.empty()) {  // TF reduces nothing; ONNX would reduce everything
      ctx.set_output(0, ctx.add("", std::make_shared<ops::Identity>(), {x}));
      return;
    }
    ctx.set_output(0, ctx.add("", std::make_shared<ops::Reduce>(kind, axes, keep), {x}));
  });
}

// Swaps the last two axes of x (rank known).
Outlet swap_last_two(NodeContext& ctx, const std::string& suffix, Outlet x, size_t rank) {
  KILN_ENSURE(rank >= 2, "{}: operand of rank {} cannot be transposed", ctx.op_type(), rank);
  std::vector<int64_t> perm;
  for (size_t i = 0; i < rank; i++) perm.push_back(static_cast<int64_t>(i));
  std::swap(perm[rank - 1], perm[rank - 2]);
  return add_transpose(ctx, suffix, x, perm);
}

void matmul(NodeContext& ctx, const char* adj_a, const char* adj_b) {
  Outlet a = ctx.input(0);
  Outlet b = ctx.input(1);
  if (ctx.attr_bool(adj_a, false))
    a = swap_last_two(ctx, "transpose_a", a, input_rank(ctx, 0, adj_a));
  if (ctx.attr_bool(adj_b, false))
    b = swap_last_two(ctx, "transpose_b", b, input_rank(ctx, 1, adj_b));
  ctx.set_output(0, ctx.add("", std::make_shared<ops::MatMul>(), {a, b}));
}

}  // namespace

void register_tf_math_ops(OpRegistry& r) {
  binary(r, "Add", BinaryKind::Add);
  binary(r, "AddV2", BinaryKind::Add);
  binary(r, "Sub", BinaryKind::Sub);
  binary(r, "Mul", BinaryKind::Mul);
  binary(r, "RealDiv", BinaryKind::Div);
  binary(r, "Div", BinaryKind::Div);  // integers: truncating, like TF's Div kernel
  binary(r, "FloorMod", BinaryKind::Mod);
  binary(r, "Pow", BinaryKind::Pow);
  binary(r, "Equal", BinaryKind::Equal);
  binary(r, "Greater", BinaryKind::Greater);
  binary(r, "GreaterEqual", BinaryKind::GreaterOrEqual);
  binary(r, "Less", BinaryKind::Less);
  binary(r, "LessEqual", BinaryKind::LessOrEqual);
  binary(r, "LogicalAnd", BinaryKind::And);
  binary(r, "LogicalOr", BinaryKind::Or);
  r.add("NotEqual", [](NodeContext& ctx) {
    Outlet eq = ctx.add("equal", std::make_shared<ops::Binary>(BinaryKind::Equal), ctx.inputs());
    ctx.set_output(0, ctx.add("", std::make_shared<ops::Unary>(UnaryKind::Not), {eq}));
  });
  r.add("Maximum", [](NodeContext& ctx) {
    ctx.wire(std::make_shared<ops::Variadic>(ops::VariadicKind::Max));
  });
  r.add("Minimum", [](NodeContext& ctx) {
    ctx.wire(std::make_shared<ops::Variadic>(ops::VariadicKind::Min));
  });
  r.add("AddN", [](NodeContext& ctx) {
    ctx.wire(std::make_shared<ops::Variadic>(ops::VariadicKind::Sum));
  });
  r.add("SquaredDifference", [](NodeContext& ctx) {
    Outlet d = ctx.add("sub", std::make_shared<ops::Binary>(BinaryKind::Sub), ctx.inputs());
    ctx.set_output(0, ctx.add("", std::make_shared<ops::Binary>(BinaryKind::Mul), {d, d}));
  });
  r.add("FloorDiv", [](NodeContext& ctx) {
    Outlet a = ctx.input(0), b = ctx.input(1);
    const Fact* f = ctx.input_fact(0);
    KILN_ENSURE(f, "FloorDiv: the operand type must be known at load time");
    if (is_float(f->dt)) {
      Outlet q = ctx.add("div", std::make_shared<ops::Binary>(BinaryKind::Div), {a, b});
      ctx.set_output(0, ctx.add("", std::make_shared<ops::Unary>(UnaryKind::Floor), {q}));
    } else {  // (a - mod(a, b)) / b is exact with the sign-of-divisor modulo
      Outlet m = ctx.add("mod", std::make_shared<ops::Binary>(BinaryKind::Mod), {a, b});
      Outlet s = ctx.add("sub", std::make_shared<ops::Binary>(BinaryKind::Sub), {a, m});
      ctx.set_output(0, ctx.add("", std::make_shared<ops::Binary>(BinaryKind::Div), {s, b}));
    }
  });

  unary(r, "Relu", UnaryKind::Relu);
  unary(r, "Sigmoid", UnaryKind::Sigmoid);
  unary(r, "Tanh", UnaryKind::Tanh);
  unary(r, "Exp", UnaryKind::Exp);
  unary(r, "Log", UnaryKind::Log);
  unary(r, "Neg", UnaryKind::Neg);
  unary(r, "Abs", UnaryKind::Abs);
  unary(r, "Sqrt", UnaryKind::Sqrt);
  unary(r, "Reciprocal", UnaryKind::Reciprocal);
  unary(r, "Inv", UnaryKind::Reciprocal);
  unary(r, "Floor", UnaryKind::Floor);
  unary(r, "Ceil", UnaryKind::Ceil);
  unary(r, "Round", UnaryKind::Round);  // half to even, as TF
  unary(r, "Sign", UnaryKind::Sign);
  unary(r, "Sin", UnaryKind::Sin);
  unary(r, "Cos", UnaryKind::Cos);
  unary(r, "Erf", UnaryKind::Erf);
  unary(r, "Softplus", UnaryKind::Softplus);
  unary(r, "Softsign", UnaryKind::Softsign);
  unary(r, "LogicalNot", UnaryKind::Not);
  unary(r, "IsNan", UnaryKind::IsNaN);
  unary(r, "Elu", UnaryKind::Elu, ops::UnaryParams{1.0f});
  unary(r, "Selu", UnaryKind::Selu,
        ops::UnaryParams{1.67326319217681884765625f, 0.0f, 1.05070102214813232421875f});
  r.add("LeakyRelu", [](NodeContext& ctx) {
    ops::UnaryParams p{ctx.attr_float("alpha", 0.2f)};
    ctx.set_output(
        0, ctx.add("", std::make_shared<ops::Unary>(UnaryKind::LeakyRelu, p), {ctx.input(0)}));
  });
  r.add("Rsqrt", [](NodeContext& ctx) {
    Outlet s = ctx.add("sqrt", std::make_shared<ops::Unary>(UnaryKind::Sqrt), {ctx.input(0)});
    ctx.set_output(0, ctx.add("", std::make_shared<ops::Unary>(UnaryKind::Reciprocal), {s}));
  });
  r.add("Square", [](NodeContext& ctx) {
    Outlet x = ctx.input(0);
    ctx.set_output(0, ctx.add("", std::make_shared<ops::Binary>(BinaryKind::Mul), {x, x}));
  });
  r.add("Relu6", [](NodeContext& ctx) {
    ctx.set_output(0, ctx.add("", std::make_shared<ops::Clip>(0.0, 6.0), {ctx.input(0)}));
  });
  // Training clutter (variable reads, gradient stops): the output is the input outlet itself.
  for (const char* id :
       {"Identity", "StopGradient", "Snapshot", "PreventGradient", "PlaceholderWithDefault"})
    r.add(id, [](NodeContext& ctx) { ctx.set_output(0, ctx.input(0)); });
  r.add("Cast", [](NodeContext& ctx) {
    DatumType to = ctx.attr_type("DstT");
    ctx.set_output(0, ctx.add("", std::make_shared<ops::Cast>(to), {ctx.input(0)}));
  });
  r.add("SelectV2", [](NodeContext& ctx) { ctx.wire(std::make_shared<ops::Where>()); });
  r.add("Select", [](NodeContext& ctx) {
    // A rank-1 condition picks whole rows of higher-rank operands: align it on axis 0.
    size_t cond_rank = input_rank(ctx, 0, "Select condition");
    size_t x_rank = input_rank(ctx, 1, "Select operand");
    Outlet c = ctx.input(0);
    if (cond_rank == 1 && x_rank > 1) {
      std::vector<int64_t> axes;
      for (size_t i = 1; i < x_rank; i++) axes.push_back(static_cast<int64_t>(i));
      c = ctx.add("cond", std::make_shared<ops::Unsqueeze>(axes), {c});
    }
    ctx.set_output(0, ctx.add("", std::make_shared<ops::Where>(), {c, ctx.input(1), ctx.input(2)}));
  });

  r.add("MatMul", [](NodeContext& ctx) { matmul(ctx, "transpose_a", "transpose_b"); });
  for (const char* op : {"BatchMatMul", "BatchMatMulV2", "BatchMatMulV3"})
    r.add(op, [](NodeContext& ctx) { matmul(ctx, "adj_x", "adj_y"); });
  r.add("Softmax", [](NodeContext& ctx) {
    ctx.set_output(0, ctx.add("", std::make_shared<ops::Softmax>(ops::SoftmaxKind::Softmax, -1),
                              {ctx.input(0)}));
  });
  r.add("LogSoftmax", [](NodeContext& ctx) {
    ctx.set_output(0, ctx.add("", std::make_shared<ops::Softmax>(ops::SoftmaxKind::LogSoftmax, -1),
                              {ctx.input(0)}));
  });

  for (bool is_max : {true, false})
    r.add(is_max ? "ArgMax" : "ArgMin", [is_max](NodeContext& ctx) {
      int64_t axis = const_int(ctx, 1, "dimension");
      Outlet i = ctx.add("i64", std::make_shared<ops::ArgReduce>(is_max, axis, false, false),
                         {ctx.input(0)});
      DatumType dt = ctx.attr_type("output_type", DatumType::I64);
      ctx.set_output(0,
                     dt == DatumType::I64 ? i : ctx.add("", std::make_shared<ops::Cast>(dt), {i}));
    });
  r.add("ClipByValue", [](NodeContext& ctx) {
    // min(max(x, lo), hi), broadcasting like TF (bounds may be tensors).
    Outlet lo = ctx.add("max", std::make_shared<ops::Variadic>(ops::VariadicKind::Max),
                        {ctx.input(0), ctx.input(1)});
    ctx.set_output(0, ctx.add("", std::make_shared<ops::Variadic>(ops::VariadicKind::Min),
                              {lo, ctx.input(2)}));
  });
  reduce(r, "Sum", ops::ReduceKind::Sum);
  reduce(r, "Mean", ops::ReduceKind::Mean);
  reduce(r, "Max", ops::ReduceKind::Max);
  reduce(r, "Min", ops::ReduceKind::Min);
  reduce(r, "Prod", ops::ReduceKind::Prod);
}

}  // namespace kiln::tf_io
