// NNEF serializers of the quantization ops. Per-tensor parameters go to graph.quant as tract
// writes it (graph_quant.h): a DequantizeLinear of integer constants is a quantized variable,
// a QuantizeLinear -> DequantizeLinear pair `copy` with an entry. Everything else is written as
// kiln_core_* fragments of `extension kiln_registry kiln_core;` (the ONNX operators' inputs and
// attributes, integers stored as integer .dat files): QuantizeLinear, DequantizeLinear,
// QLinearConv, QLinearMatMul, and a Gemm whose B is DequantizeLinear of integers (kiln_core_gemm:
// written as matmul + add, its weights would be folded to floats on reading back, and the int8
// rewrite at the optimize stage would not see them).
#include <cmath>
#include <optional>

#include "io/nnef/graph_quant.h"
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

// --- graph.quant (graph_quant.h): per-tensor parameters in tract's form ------------------------

// A constant scalar input: its tensor, or nullptr.
const Tensor* scalar_const(Ctx& c, const Node& n, size_t i) {
  if (!has_input(n, i)) return nullptr;
  const Fact& f = c.fact(in(n, i));
  return f.value && f.rank() == 0 ? f.value.get() : nullptr;
}

// Per-tensor parameters of a QuantizeLinear / DequantizeLinear node: f32 scale, integer zero
// point (absent: 0), no blocks.
struct PerTensor {
  float scale = 0;
  int64_t zero_point = 0;
};
std::optional<PerTensor> per_tensor_params(Ctx& c, const Node& n, DatumType int_dt) {
  const Tensor* scale = scalar_const(c, n, 1);
  if (!scale || scale->dtype() != DatumType::F32) return std::nullopt;
  PerTensor p{scale->values<float>()[0], 0};
  if (!(p.scale > 0) || !std::isfinite(p.scale)) return std::nullopt;
  if (has_input(n, 2)) {
    const Tensor* zp = scalar_const(c, n, 2);
    if (!zp || zp->dtype() != int_dt) return std::nullopt;
    p.zero_point = zp->value_as_i64(0);
  }
  return p;
}

bool graph_quant_int_type(DatumType dt) {
  return dt == DatumType::U8 || dt == DatumType::I8 || dt == DatumType::I32;
}

bool plain_dequantize(const Node& n) {
  const auto& op = op_as<ops::DequantizeLinear>(n);
  return op.block_size() == 0 && (!op.output_dt() || *op.output_dt() == DatumType::F32);
}

// A QuantizeLinear whose every consumer is a DequantizeLinear of the same per-tensor parameters:
// the pair is written as `y = copy(x)` with y's graph.quant entry.
std::optional<PerTensor> graph_quant_pair(Ctx& c, const Node& n) {
  const auto& op = op_as<ops::QuantizeLinear>(n);
  const auto& o = op.options();
  if (op.output_dt() != DatumType::U8 && op.output_dt() != DatumType::I8) return std::nullopt;
  if (o.block_size != 0 || !has_input(n, 0) || !is_float(c.fact(in(n, 0)).dt)) return std::nullopt;
  // A precision that is the scale's own type is the default one (QuantizeLinear-19/21 name f32
  // explicitly, io/onnx/ops/image_ops.cpp).
  if (o.precision && (!has_input(n, 1) || *o.precision != c.fact(in(n, 1)).dt)) return std::nullopt;
  const Fact& out = c.fact(Outlet{n.id, 0});
  auto p = per_tensor_params(c, n, out.dt);
  if (!p) return std::nullopt;
  const Graph& g = c.graph();
  for (const auto& o2 : g.outputs())
    if (o2.node == n.id) return std::nullopt;
  int consumers = 0;
  for (const auto& m : g.nodes())
    for (size_t i = 0; i < m.inputs.size(); i++) {
      if (!(m.inputs[i] == Outlet{n.id, 0})) continue;
      if (m.op->name() != "DequantizeLinear" || i != 0 || !plain_dequantize(m)) return std::nullopt;
      auto q = per_tensor_params(c, m, out.dt);
      if (!q || q->scale != p->scale || q->zero_point != p->zero_point) return std::nullopt;
      consumers++;
    }
  if (consumers == 0) return std::nullopt;
  return p;
}

void add_quant_entry(Ctx& c, const std::string& id, const PerTensor& p, DatumType dt) {
  c.shared().files["graph.quant"] +=
      zero_point_entry(id, p.zero_point, p.scale, int(bits_of(dt)), is_signed_int(dt));
}

bool write_quantize_as_graph_quant(Ctx& c, const Node& n) {
  auto p = graph_quant_pair(c, n);
  if (!p) return false;
  c.assign(n, 0, fmt::format("copy({})", c.identifier(in(n, 0))));
  add_quant_entry(c, c.names().at(Outlet{n.id, 0}), *p, c.fact(Outlet{n.id, 0}).dt);
  return true;
}

bool write_dequantize_as_graph_quant(Ctx& c, const Node& n) {
  if (!has_input(n, 0) || !plain_dequantize(n)) return false;
  const Outlet x = in(n, 0);
  const Fact& xf = c.fact(x);
  if (!graph_quant_int_type(xf.dt)) return false;
  if (xf.value) {
    // Integer weights or biases of one scale: a quantized variable.
    auto p = per_tensor_params(c, n, xf.dt);
    if (!p) return false;
    const std::string id = c.variable(*xf.value, c.planned_name(Outlet{n.id, 0}));
    // Declared scalar, as tract and the NNEF spec have it: its values are the dequantized reals.
    std::string& line = c.lines().back();
    if (auto at = line.find("variable<integer>"); at != std::string::npos)
      line.replace(at, 17, "variable<scalar>");
    std::string& dat = c.shared().files.at(id + ".dat");
    dat[48] = static_cast<char>(is_signed_int(xf.dt) ? 3 : 2);  // NNEF's quantized item types
    add_quant_entry(c, id, *p, xf.dt);
    c.names()[Outlet{n.id, 0}] = id;
    return true;
  }
  // The second half of a pair written as copy + graph.quant: the same tensor.
  const Node& producer = c.graph().node(x.node);
  if (producer.op->name() != "QuantizeLinear" || !graph_quant_pair(c, producer)) return false;
  c.names()[Outlet{n.id, 0}] = c.identifier(x);
  return true;
}

bool write_quantize(Ctx& c, const Node& n) {
  if (write_quantize_as_graph_quant(c, n)) return true;
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
  if (write_dequantize_as_graph_quant(c, n)) return true;
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
