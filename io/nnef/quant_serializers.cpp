// NNEF serializers of the quantization ops, as kiln_core_* fragments of `extension kiln_registry
// kiln_core;` (the ONNX operators' inputs and attributes, integers stored as integer .dat
// files): QuantizeLinear, DequantizeLinear, QLinearConv, QLinearMatMul, and a Gemm whose B is
// DequantizeLinear of integers (kiln_core_gemm: written as matmul + add, its weights would be
// folded to floats on reading back, and the int8 rewrite at the optimize stage would not see
// them).
#include "io/nnef/serializer_util.h"
#include "ops/nn/gemm.h"
#include "ops/quant/dequantize_linear.h"
#include "ops/quant/qlinear_conv.h"
#include "ops/quant/quantize_linear.h"

namespace kiln::nnef::ser {

namespace {

const char* kRegistry = "kiln_registry kiln_core";

// An optional input: its identifier, or [] when absent.
std::string optional_input(Ctx& c, const Node& n, size_t i) {
  return has_input(n, i) ? c.identifier(in(n, i)) : "[]";
}

bool write_quantize(Ctx& c, const Node& n) {
  const auto& op = op_as<ops::QuantizeLinear>(n);
  c.use_extension(kRegistry, "QuantizeLinear");
  const auto& o = op.options();
  c.assign(n, 0,
           fmt::format("kiln_core_quantize_linear({}, {}, zero_point = {}, axis = {}, "
                       "output_type = {}, block_size = {}, saturate = {}, precision = {})",
                       c.identifier(in(n, 0)), c.identifier(in(n, 1)), optional_input(c, n, 2),
                       op.axis(), nnef_string(std::string(name_of(op.output_dt()))), o.block_size,
                       o.saturate ? "true" : "false",
                       nnef_string(o.precision ? std::string(name_of(*o.precision)) : "")));
  return true;
}

bool write_dequantize(Ctx& c, const Node& n) {
  const auto& op = op_as<ops::DequantizeLinear>(n);
  c.use_extension(kRegistry, "DequantizeLinear");
  c.assign(n, 0,
           fmt::format("kiln_core_dequantize_linear({}, {}, zero_point = {}, axis = {}, "
                       "block_size = {}, output_type = {})",
                       c.identifier(in(n, 0)), c.identifier(in(n, 1)), optional_input(c, n, 2),
                       op.axis(), op.block_size(),
                       nnef_string(op.output_dt() ? std::string(name_of(*op.output_dt())) : "")));
  return true;
}

// The eight tensor inputs of QLinearConv / QLinearMatMul, comma-separated.
std::string eight_inputs(Ctx& c, const Node& n) {
  std::string out;
  for (size_t i = 0; i < 8; i++) out += (i ? ", " : "") + c.identifier(in(n, i));
  return out;
}

bool write_qlinear_conv(Ctx& c, const Node& n) {
  if (n.inputs.size() < 8) return false;
  const auto& g = op_as<ops::QLinearConv>(n).geometry();
  c.use_extension(kRegistry, "QLinearConv");
  c.assign(n, 0,
           fmt::format("kiln_core_qlinear_conv({}, bias = {}, auto_pad = {}, kernel_shape = {}, "
                       "strides = {}, dilations = {}, pads = {}, group = {})",
                       eight_inputs(c, n), optional_input(c, n, 8), nnef_string(g.auto_pad),
                       nnef_ints(g.kernel_shape), nnef_ints(g.strides), nnef_ints(g.dilations),
                       nnef_ints(g.pads), g.group));
  return true;
}

bool write_qlinear_matmul(Ctx& c, const Node& n) {
  if (n.inputs.size() < 8) return false;
  c.use_extension(kRegistry, "QLinearMatMul");
  c.assign(n, 0, fmt::format("kiln_core_qlinear_matmul({})", eight_inputs(c, n)));
  return true;
}

}  // namespace

bool write_quantized_gemm(Ctx& c, const Node& n) {
  if (n.inputs.size() < 2 || !c.written_as_op(in(n, 1))) return false;
  const auto& op = op_as<ops::Gemm>(n);
  c.use_extension(kRegistry, "Gemm");
  c.assign(n, 0,
           fmt::format("kiln_core_gemm({}, {}, c = {}, alpha = {}, beta = {}, trans_a = {}, "
                       "trans_b = {})",
                       c.identifier(in(n, 0)), c.identifier(in(n, 1)), optional_input(c, n, 2),
                       nnef_real(op.alpha()), nnef_real(op.beta()), op.trans_a() ? "true" : "false",
                       op.trans_b() ? "true" : "false"));
  return true;
}

void register_quant_serializers(std::map<std::string, Serializer>& s) {
  s["QuantizeLinear"] = write_quantize;
  s["DequantizeLinear"] = write_dequantize;
  s["QLinearConv"] = write_qlinear_conv;
  s["QLinearMatMul"] = write_qlinear_matmul;
}

}  // namespace kiln::nnef::ser
