// NNEF primitives of the quantization ops (io/nnef/quant_serializers.cpp writes them):
// kiln_core_quantize_linear, kiln_core_dequantize_linear, kiln_core_qlinear_conv,
// kiln_core_qlinear_matmul, kiln_core_gemm.
#include "io/nnef/primitive_util.h"
#include "ops/nn/gemm.h"
#include "ops/quant/dequantize_linear.h"
#include "ops/quant/qlinear_conv.h"
#include "ops/quant/qlinear_matmul.h"
#include "ops/quant/quantize_linear.h"

namespace kiln::nnef::prim {

namespace {

bool absent(const Args& a, const char* name) {
  const Value& v = a.get(name);
  return v.kind == Value::Kind::Array && v.items.empty();
}

// The named tensors, stopping at the first absent optional one.
std::vector<Outlet> inputs(Builder& b, const Args& a, std::initializer_list<const char*> names) {
  std::vector<Outlet> out;
  for (const char* n : names) {
    if (absent(a, n)) break;
    out.push_back(a.tensor(b, n));
  }
  return out;
}

int64_t block_size(const Args& a) {
  const int64_t v = a.integer("block_size");
  KILN_ENSURE(v >= 0, "{}: block_size must be >= 0, got {}", a.op(), v);
  return v;
}

V quantize_prim(Builder& b, const Args& a) {
  ops::QuantizeOptions o;
  o.block_size = block_size(a);
  o.saturate = a.boolean("saturate");
  if (!a.string("precision").empty()) o.precision = named_type(a.string("precision"), a.op());
  auto op = std::make_shared<ops::QuantizeLinear>(
      a.integer("axis"), named_type(a.string("output_type"), "kiln_core_quantize_linear"), o);
  return one(b.add(op, inputs(b, a, {"x", "scale", "zero_point"})));
}

V dequantize_prim(Builder& b, const Args& a) {
  std::optional<DatumType> out;
  if (!a.string("output_type").empty()) out = named_type(a.string("output_type"), a.op());
  auto op = std::make_shared<ops::DequantizeLinear>(a.integer("axis"), block_size(a), out);
  return one(b.add(op, inputs(b, a, {"x", "scale", "zero_point"})));
}

V qlinear_conv(Builder& b, const Args& a) {
  ops::quant::ConvGeometry g;
  g.auto_pad = a.string("auto_pad");
  g.kernel_shape = a.ints("kernel_shape");
  g.strides = a.ints("strides");
  g.dilations = a.ints("dilations");
  g.pads = a.ints("pads");
  g.group = a.integer("group");
  KILN_ENSURE(g.group >= 1, "kiln_core_qlinear_conv: group must be positive, got {}", g.group);
  auto in = inputs(b, a,
                   {"x", "x_scale", "x_zero_point", "w", "w_scale", "w_zero_point", "y_scale",
                    "y_zero_point", "bias"});
  KILN_ENSURE(in.size() >= 8, "kiln_core_qlinear_conv: the first eight inputs are required");
  return one(b.add(std::make_shared<ops::QLinearConv>(std::move(g)), in));
}

V qlinear_matmul(Builder& b, const Args& a) {
  auto in = inputs(
      b, a,
      {"a", "a_scale", "a_zero_point", "b", "b_scale", "b_zero_point", "y_scale", "y_zero_point"});
  KILN_ENSURE(in.size() == 8, "kiln_core_qlinear_matmul: eight inputs are required");
  return one(b.add(std::make_shared<ops::QLinearMatMul>(), in));
}

V gemm(Builder& b, const Args& a) {
  auto op = std::make_shared<ops::Gemm>(static_cast<float>(a.real("alpha")),
                                        static_cast<float>(a.real("beta")), a.boolean("trans_a"),
                                        a.boolean("trans_b"));
  return one(b.add(op, inputs(b, a, {"a", "b", "c"})));
}

}  // namespace

void register_quant_primitives(std::map<std::string, Primitive>& p) {
  p["kiln_core_quantize_linear"] = quantize_prim;
  p["kiln_core_dequantize_linear"] = dequantize_prim;
  p["kiln_core_qlinear_conv"] = qlinear_conv;
  p["kiln_core_qlinear_matmul"] = qlinear_matmul;
  p["kiln_core_gemm"] = gemm;
}

}  // namespace kiln::nnef::prim
