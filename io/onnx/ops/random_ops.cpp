// ONNX translators for the random generators: RandomNormal, RandomUniform, their Like forms,
// Bernoulli (15, 22) and Multinomial (7, 22).
#include "io/onnx/ops/register_all.h"
#include "io/onnx/tensor_proto.h"
#include "ops/random/bernoulli.h"
#include "ops/random/multinomial.h"
#include "ops/random/random_tensor.h"

namespace kiln::onnx_io {

namespace {

std::optional<float> seed_of(NodeContext& ctx) {
  if (!ctx.has_attr("seed")) return std::nullopt;
  return ctx.attr_float("seed");
}

std::optional<DatumType> dtype_of(NodeContext& ctx) {
  if (!ctx.has_attr("dtype")) return std::nullopt;
  auto dt = datum_type_from_onnx(static_cast<int>(ctx.attr_int("dtype")));
  KILN_ENSURE(dt.has_value(), "{}: unsupported dtype {}", ctx.op_type(), ctx.attr_int("dtype"));
  return dt;
}

void add_random(OpRegistry& registry, const std::string& op, ops::Distribution d, bool like) {
  registry.add(
      op,
      [d, like](NodeContext& ctx) {
        bool normal = d == ops::Distribution::Normal;
        ops::RandomOptions o;
        o.distribution = d;
        o.a = ctx.attr_float(normal ? "mean" : "low", 0.0f);
        o.b = ctx.attr_float(normal ? "scale" : "high", 1.0f);
        o.seed = seed_of(ctx);
        o.dtype = dtype_of(ctx);
        if (!like) o.shape = ctx.attr_ints("shape");
        ctx.wire(std::make_shared<ops::RandomTensor>(o));
      },
      "", 22);
}

}  // namespace

void register_random_ops(OpRegistry& registry) {
  add_random(registry, "RandomNormal", ops::Distribution::Normal, false);
  add_random(registry, "RandomUniform", ops::Distribution::Uniform, false);
  add_random(registry, "RandomNormalLike", ops::Distribution::Normal, true);
  add_random(registry, "RandomUniformLike", ops::Distribution::Uniform, true);
  registry.add(
      "Bernoulli",
      [](NodeContext& ctx) {
        ctx.wire(std::make_shared<ops::Bernoulli>(dtype_of(ctx), seed_of(ctx)));
      },
      "", 22);
  registry.add(
      "Multinomial",
      [](NodeContext& ctx) {
        ctx.wire(std::make_shared<ops::Multinomial>(
            ctx.attr_int("sample_size", 1), dtype_of(ctx).value_or(DatumType::I32), seed_of(ctx)));
      },
      "", 22);
}

}  // namespace kiln::onnx_io
