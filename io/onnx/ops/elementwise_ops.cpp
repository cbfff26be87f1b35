// ONNX translators for the elementwise op family.
#include "io/onnx/ops/register_all.h"
#include "io/onnx/tensor_proto.h"
#include "ops/elementwise/binary.h"
#include "ops/elementwise/cast.h"
#include "ops/elementwise/clip.h"
#include "ops/elementwise/unary.h"
#include "ops/elementwise/variadic.h"
#include "ops/elementwise/where.h"

namespace kiln::onnx_io {

namespace {

using ops::BinaryKind;
using ops::UnaryKind;
using ops::UnaryParams;

void add_unary(OpRegistry& registry, const std::string& op_type, UnaryKind kind) {
  registry.add(op_type, [kind](NodeContext& ctx) { ctx.wire(std::make_shared<ops::Unary>(kind)); });
}

void add_unary(OpRegistry& registry, const std::string& op_type, UnaryKind kind,
               std::function<UnaryParams(NodeContext&)> params) {
  registry.add(op_type, [kind, params](NodeContext& ctx) {
    ctx.wire(std::make_shared<ops::Unary>(kind, params(ctx)));
  });
}

void add_binary(OpRegistry& registry, const std::string& op_type, BinaryKind kind) {
  registry.add(op_type, [kind](NodeContext& ctx) {
    // Before opset 7, broadcasting was opt-in and could align B at an axis of A.
    if (ctx.opset() < 7 && ctx.attr_int("broadcast", 0) != 0 && ctx.has_attr("axis")) {
      ctx.wire(std::make_shared<ops::Binary>(kind, ctx.attr_int("axis")));
    } else {
      ctx.wire(std::make_shared<ops::Binary>(kind));
    }
  });
}

DatumType cast_target(NodeContext& ctx) {
  int64_t to = ctx.attr_int("to");
  auto dt = datum_type_from_onnx(static_cast<int>(to));
  KILN_ENSURE(dt.has_value(), "Cast: unsupported target type {}", to);
  return *dt;
}

// saturate (19+) and round_mode (25, float8e8m0). Cast-19..24's table maps +-Inf to NaN for
// the FNUZ types even when saturating; Cast-25's maps them to +-FLT_MAX, like ONNX Runtime for
// every version: kiln does the same for every version.
ops::CastOptions cast_options(NodeContext& ctx) {
  ops::CastOptions o;
  o.saturate = ctx.attr_int("saturate", 1) != 0;
  std::string round = ctx.attr_string("round_mode", "up");
  KILN_ENSURE(round == "up" || round == "down" || round == "nearest",
              "{}: round_mode must be up, down or nearest, got '{}'", ctx.op_type(), round);
  o.e8m0_round = round == "up" ? 0 : round == "down" ? 1 : 2;
  return o;
}

}  // namespace

void register_elementwise_ops(OpRegistry& registry) {
  const std::pair<const char*, UnaryKind> plain_unary[] = {
      {"Abs", UnaryKind::Abs},
      {"Neg", UnaryKind::Neg},
      {"Exp", UnaryKind::Exp},
      {"Log", UnaryKind::Log},
      {"Sqrt", UnaryKind::Sqrt},
      {"Reciprocal", UnaryKind::Reciprocal},
      {"Sin", UnaryKind::Sin},
      {"Cos", UnaryKind::Cos},
      {"Tan", UnaryKind::Tan},
      {"Asin", UnaryKind::Asin},
      {"Acos", UnaryKind::Acos},
      {"Atan", UnaryKind::Atan},
      {"Sinh", UnaryKind::Sinh},
      {"Cosh", UnaryKind::Cosh},
      {"Asinh", UnaryKind::Asinh},
      {"Acosh", UnaryKind::Acosh},
      {"Atanh", UnaryKind::Atanh},
      {"Sigmoid", UnaryKind::Sigmoid},
      {"Tanh", UnaryKind::Tanh},
      {"Relu", UnaryKind::Relu},
      {"HardSwish", UnaryKind::HardSwish},
      {"Softplus", UnaryKind::Softplus},
      {"Softsign", UnaryKind::Softsign},
      {"Erf", UnaryKind::Erf},
      {"Sign", UnaryKind::Sign},
      {"Round", UnaryKind::Round},
      {"Ceil", UnaryKind::Ceil},
      {"Floor", UnaryKind::Floor},
      {"IsNaN", UnaryKind::IsNaN},
      {"Not", UnaryKind::Not},
      {"BitwiseNot", UnaryKind::BitwiseNot},
  };
  for (const auto& [op_type, kind] : plain_unary) add_unary(registry, op_type, kind);

  auto alpha = [](float dflt) {
    return [dflt](NodeContext& ctx) {
      UnaryParams p;
      p.alpha = ctx.attr_float("alpha", dflt);
      return p;
    };
  };
  add_unary(registry, "Elu", UnaryKind::Elu, alpha(1.0f));
  add_unary(registry, "Celu", UnaryKind::Celu, alpha(1.0f));
  add_unary(registry, "LeakyRelu", UnaryKind::LeakyRelu, alpha(0.01f));
  add_unary(registry, "ThresholdedRelu", UnaryKind::ThresholdedRelu, alpha(1.0f));
  add_unary(registry, "Selu", UnaryKind::Selu, [](NodeContext& ctx) {
    UnaryParams p;
    p.alpha = ctx.attr_float("alpha", 1.67326319217681884765625f);
    p.gamma = ctx.attr_float("gamma", 1.05070102214813232421875f);
    return p;
  });
  add_unary(registry, "HardSigmoid", UnaryKind::HardSigmoid, [](NodeContext& ctx) {
    UnaryParams p;
    p.alpha = ctx.attr_float("alpha", 0.2f);
    p.beta = ctx.attr_float("beta", 0.5f);
    return p;
  });
  add_unary(registry, "Shrink", UnaryKind::Shrink, [](NodeContext& ctx) {
    UnaryParams p;
    p.alpha = ctx.attr_float("lambd", 0.5f);
    p.beta = ctx.attr_float("bias", 0.0f);
    return p;
  });
  add_unary(registry, "IsInf", UnaryKind::IsInf, [](NodeContext& ctx) {
    UnaryParams p;
    p.detect_positive = ctx.attr_int("detect_positive", 1) != 0;
    p.detect_negative = ctx.attr_int("detect_negative", 1) != 0;
    return p;
  });
  add_unary(registry, "Mish", UnaryKind::Mish);
  registry.implements("Mish", 22);
  add_unary(registry, "Swish", UnaryKind::Swish, alpha(1.0f));
  registry.implements("Swish", 24);
  registry.add("Gelu", [](NodeContext& ctx) {
    std::string approximate = ctx.attr_string("approximate", "none");
    KILN_ENSURE(approximate == "none" || approximate == "tanh", "Gelu: unknown approximate '{}'",
                approximate);
    ctx.wire(std::make_shared<ops::Unary>(approximate == "tanh" ? UnaryKind::GeluTanh
                                                                : UnaryKind::Gelu));
  });

  const std::pair<const char*, BinaryKind> plain_binary[] = {
      {"Add", BinaryKind::Add},
      {"Sub", BinaryKind::Sub},
      {"Mul", BinaryKind::Mul},
      {"Div", BinaryKind::Div},
      {"Pow", BinaryKind::Pow},
      {"And", BinaryKind::And},
      {"Or", BinaryKind::Or},
      {"Xor", BinaryKind::Xor},
      {"BitwiseAnd", BinaryKind::BitwiseAnd},
      {"BitwiseOr", BinaryKind::BitwiseOr},
      {"BitwiseXor", BinaryKind::BitwiseXor},
      {"Equal", BinaryKind::Equal},
      {"Greater", BinaryKind::Greater},
      {"Less", BinaryKind::Less},
      {"GreaterOrEqual", BinaryKind::GreaterOrEqual},
      {"LessOrEqual", BinaryKind::LessOrEqual},
  };
  for (const auto& [op_type, kind] : plain_binary) add_binary(registry, op_type, kind);
  registry.add("PRelu", [](NodeContext& ctx) {
    // Before opset 7, a 1-D slope held one value per channel (axis 1).
    const Fact* slope = ctx.input_fact(1);
    if (ctx.opset() < 7 && slope && slope->rank() == 1) {
      ctx.wire(std::make_shared<ops::Binary>(BinaryKind::PRelu, 1));
    } else {
      ctx.wire(std::make_shared<ops::Binary>(BinaryKind::PRelu));
    }
  });
  registry.add("Mod", [](NodeContext& ctx) {
    bool fmod = ctx.attr_int("fmod", 0) != 0;
    ctx.wire(std::make_shared<ops::Binary>(fmod ? BinaryKind::FMod : BinaryKind::Mod));
  });
  registry.add("BitShift", [](NodeContext& ctx) {
    std::string direction = ctx.attr_string("direction");
    KILN_ENSURE(direction == "LEFT" || direction == "RIGHT",
                "BitShift: direction must be LEFT or RIGHT, got '{}'", direction);
    ctx.wire(std::make_shared<ops::Binary>(direction == "LEFT" ? BinaryKind::ShiftLeft
                                                               : BinaryKind::ShiftRight));
  });

  const std::pair<const char*, ops::VariadicKind> variadic[] = {
      {"Sum", ops::VariadicKind::Sum},
      {"Mean", ops::VariadicKind::Mean},
      {"Min", ops::VariadicKind::Min},
      {"Max", ops::VariadicKind::Max},
  };
  for (const auto& [op_type, kind] : variadic) {
    ops::VariadicKind k = kind;
    registry.add(op_type, [k](NodeContext& ctx) { ctx.wire(std::make_shared<ops::Variadic>(k)); });
  }

  registry.add("Where", [](NodeContext& ctx) { ctx.wire(std::make_shared<ops::Where>()); });

  registry.add("Clip", [](NodeContext& ctx) {
    if (ctx.opset() < 11) {
      std::optional<double> lo, hi;
      if (ctx.has_attr("min")) lo = ctx.attr_float("min");
      if (ctx.has_attr("max")) hi = ctx.attr_float("max");
      ctx.wire(std::make_shared<ops::Clip>(lo, hi));
      return;
    }
    ctx.wire(std::make_shared<ops::Clip>());
  });

  registry.add("Cast", [](NodeContext& ctx) {
    ctx.wire(std::make_shared<ops::Cast>(cast_target(ctx), cast_options(ctx)));
  });
  registry.add("CastLike", [](NodeContext& ctx) {
    ctx.wire(std::make_shared<ops::Cast>(std::nullopt, cast_options(ctx)));
  });
}

}  // namespace kiln::onnx_io
