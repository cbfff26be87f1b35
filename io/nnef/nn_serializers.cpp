// NNEF serializers of the nn ops: convolution, pooling, reductions, matmul, normalizations.
#include <algorithm>
#include <cstring>

#include "io/nnef/serializer_util.h"
#include "ops/nn/conv.h"
#include "ops/reduce/reduce.h"

namespace kiln::nnef::ser {

namespace {

struct Window {
  std::vector<int64_t> begin, end, stride, dilation, kernel;
};

// Concrete padding for a window op, with ceil mode turned into extra end padding.
Window resolve_window(Ctx& c, const Node& n, const ops::WindowGeometry& geo,
                      const std::vector<int64_t>& kernel_dims) {
  const Fact& x = c.fact(in(n, 0));
  size_t spatial = x.rank() - 2;
  ops::WindowGeometry g = geo.complete(spatial, n.op->name(), kernel_dims);
  Window w;
  w.stride = g.strides;
  w.dilation = g.dilations;
  w.kernel = g.kernel;
  std::vector<Dim> in_dims(x.shape.begin() + 2, x.shape.end());
  std::vector<Dim> out_dims(n.outputs[0].shape.begin() + 2, n.outputs[0].shape.end());
  bool concrete = true;
  for (const auto& d : in_dims) concrete = concrete && d.is_int();
  for (const auto& d : out_dims) concrete = concrete && d.is_int();
  if (g.auto_pad == ops::AutoPad::NotSet || g.auto_pad == ops::AutoPad::Valid) {
    w.begin.assign(g.pads.begin(), g.pads.begin() + long(spatial));
    w.end.assign(g.pads.begin() + long(spatial), g.pads.end());
    if (g.ceil_mode) {
      KILN_ENSURE(concrete, "ceil_mode needs concrete spatial dims for NNEF");
      for (size_t i = 0; i < spatial; i++) {
        int64_t need = (out_dims[i].to_int() - 1) * w.stride[i] + g.effective_kernel(i) -
                       in_dims[i].to_int() - w.begin[i];
        w.end[i] = std::max(w.end[i], need);
      }
    }
    return w;
  }
  KILN_ENSURE(concrete, "auto_pad {} needs concrete spatial dims for NNEF",
              ops::auto_pad_name(g.auto_pad));
  Shape in_shape;
  for (const auto& d : in_dims) in_shape.push_back(d.to_int());
  auto r = g.resolve(in_shape, n.op->name());
  for (size_t i = 0; i < spatial; i++) {
    w.begin.push_back(r.pad_begin[i]);
    w.end.push_back(std::max<int64_t>(
        0, (r.output[i] - 1) * w.stride[i] + g.effective_kernel(i) - in_shape[i] - r.pad_begin[i]));
  }
  return w;
}

bool write_conv(Ctx& c, const Node& n) {
  OpAttrs attrs(n);
  Window w =
      resolve_window(c, n, geometry_of(attrs), ops::weight_kernel_dims(c.fact(in(n, 1)), "Conv"));
  std::string x = c.tensor(in(n, 0)), filter = c.identifier(in(n, 1));
  std::string bias = has_input(n, 2) ? channel_param(c, in(n, 2)) : "0.0";
  c.assign(n, 0,
           fmt::format("conv({}, {}, {}, border = 'constant', padding = {}, stride = {}, "
                       "dilation = {}, groups = {})",
                       x, filter, bias, pairs(w.begin, w.end), nnef_ints(w.stride),
                       nnef_ints(w.dilation), attrs.integer("group", 1)));
  return true;
}

bool write_pool(Ctx& c, const Node& n) {
  OpAttrs attrs(n);
  // Only the values are written: a use of MaxPool's indices output fails as undefined.
  if (n.op->name() == "LpPool") return false;
  ops::WindowGeometry geo = geometry_of(attrs);
  Window w = resolve_window(c, n, geo, {});
  bool avg = n.op->name() == "AveragePool";
  bool include_pad = avg && attrs.integer("count_include_pad", 0) != 0;
  if (include_pad && geo.ceil_mode) return false;
  auto full = [](std::vector<int64_t> v, int64_t fill) {
    v.insert(v.begin(), 2, fill);
    return v;
  };
  c.assign(
      n, 0,
      fmt::format("{}({}, size = {}, border = {}, padding = {}, stride = {}, dilation = {})",
                  avg ? "avg_pool" : "max_pool", c.tensor(in(n, 0)), nnef_ints(full(w.kernel, 1)),
                  include_pad ? "'constant'" : "'ignore'", pairs(full(w.begin, 0), full(w.end, 0)),
                  nnef_ints(full(w.stride, 1)), nnef_ints(full(w.dilation, 1))));
  return true;
}

bool write_global_pool(Ctx& c, const Node& n) {
  bool max = n.op->name() == "GlobalMaxPool";
  std::vector<int64_t> axes;
  for (size_t i = 2; i < c.fact(in(n, 0)).rank(); i++) axes.push_back(int64_t(i));
  c.assign(n, 0,
           fmt::format("{}({}, axes = {})", max ? "max_reduce" : "mean_reduce", c.tensor(in(n, 0)),
                       nnef_ints(axes)));
  return true;
}

bool write_reduce(Ctx& c, const Node& n) {
  const auto& op = op_as<ops::Reduce>(n);
  OpAttrs attrs(n);
  size_t rank = c.fact(in(n, 0)).rank();
  std::vector<int64_t> axes;
  if (auto a = attrs.ints("axes")) {
    axes = *a;
  } else if (has_input(n, 1)) {
    axes = c.const_ints(n, 1);
  }
  if (axes.empty()) {
    if (attrs.integer("noop_with_empty_axes", 0)) {
      c.assign(n, 0, fmt::format("copy({})", c.tensor(in(n, 0))));
      return true;
    }
    for (size_t i = 0; i < rank; i++) axes.push_back(int64_t(i));
  }
  axes = normalized_axes(axes, rank, n.op->name());
  std::sort(axes.begin(), axes.end());
  std::string x = c.tensor(in(n, 0));
  std::string ax = nnef_ints(axes);
  using K = ops::ReduceKind;
  std::string expr;
  switch (op.kind()) {
    case K::Sum:
      expr = fmt::format("sum_reduce({}, axes = {})", x, ax);
      break;
    case K::Mean:
      expr = fmt::format("mean_reduce({}, axes = {})", x, ax);
      break;
    case K::Max:
      expr = fmt::format("max_reduce({}, axes = {})", x, ax);
      break;
    case K::Min:
      expr = fmt::format("min_reduce({}, axes = {})", x, ax);
      break;
    case K::L1:
      expr = fmt::format("sum_reduce(abs({}), axes = {})", x, ax);
      break;
    case K::L2:
      expr = fmt::format("sqrt(sum_reduce(sqr({}), axes = {}))", x, ax);
      break;
    case K::SumSquare:
      expr = fmt::format("sum_reduce(sqr({}), axes = {})", x, ax);
      break;
    case K::LogSum:
      expr = fmt::format("log(sum_reduce({}, axes = {}))", x, ax);
      break;
    case K::LogSumExp:
      expr = fmt::format("log(sum_reduce(exp({}), axes = {}))", x, ax);
      break;
    default:
      return false;
  }
  if (attrs.integer("keepdims", 1)) {
    c.assign(n, 0, expr);
  } else {
    std::string t = c.temp(c.planned_name({n.id, 0}) + "_keep", expr);
    c.assign(n, 0, fmt::format("squeeze({}, axes = {})", t, ax));
  }
  return true;
}

std::pair<std::string, std::string> matmul_operands(Ctx& c, Outlet a, Outlet b) {
  size_t ra = c.fact(a).rank(), rb = c.fact(b).rank();
  if (ra >= 2 && rb >= 2) {
    size_t r = std::max(ra, rb);
    // Quantized weights (DequantizeLinear of integers, a kiln_core fragment already) keep their
    // rank: padded, they would read back as unsqueeze(dequantize(w)) and be folded to floats, out
    // of reach of the int8 rewrite (kiln's matmul broadcasts the batch dims).
    if (rb < r && c.written_as_op(b)) return {c.tensor_of_rank(a, r), c.identifier(b)};
    return {c.tensor_of_rank(a, r), c.tensor_of_rank(b, r)};
  }
  return {c.identifier(a), c.identifier(b)};
}

// MatMul's bias (input 2, one value per column): add(matmul(a, b), bias) with the bias padded
// to the product's rank; reading it back, fold-affine puts the bias into the MatMul again.
bool write_matmul(Ctx& c, const Node& n) {
  auto [a, b] = matmul_operands(c, in(n, 0), in(n, 1));
  std::string expr = fmt::format("matmul({}, {})", a, b);
  if (has_input(n, 2)) {
    expr = c.temp(c.planned_name({n.id, 0}) + "_matmul", expr);
    expr = fmt::format("add({}, {})", expr, c.tensor_of_rank(in(n, 2), out_rank(n)));
  }
  c.assign(n, 0, expr);
  return true;
}

bool write_gemm(Ctx& c, const Node& n) {
  if (write_quantized_gemm(c, n)) return true;
  OpAttrs attrs(n);
  double alpha = attrs.real("alpha", 1.0), beta = attrs.real("beta", 1.0);
  // Constant operands are stored transposed already, so reading the NNEF back gives a plain
  // MatMul on a constant (and writing that again gives the same text).
  auto operand = [&](size_t i, bool transposed) -> std::pair<std::string, bool> {
    const Fact& f = c.fact(in(n, i));
    if (!transposed || !f.value || f.rank() != 2) return {c.identifier(in(n, i)), transposed};
    const Tensor& t = *f.value;
    Tensor tt(t.dtype(), {t.dim(1), t.dim(0)});
    size_t es = size_of(t.dtype());
    const char* src = static_cast<const char*>(t.raw_data());
    char* dst = static_cast<char*>(tt.raw_data());
    for (int64_t r = 0; r < t.dim(0); r++)
      for (int64_t k = 0; k < t.dim(1); k++)
        std::memcpy(dst + (k * t.dim(0) + r) * es, src + (r * t.dim(1) + k) * es, es);
    return {c.variable(tt, c.graph().node(in(n, i).node).name), false};
  };
  auto [a, ta] = operand(0, attrs.integer("transA", 0) != 0);
  auto [b, tb] = operand(1, attrs.integer("transB", 0) != 0);
  std::string expr = ta || tb ? fmt::format("matmul({}, {}, transposeA = {}, transposeB = {})", a,
                                            b, ta ? "true" : "false", tb ? "true" : "false")
                              : fmt::format("matmul({}, {})", a, b);
  if (alpha != 1.0)
    expr = fmt::format("mul({}, {})", c.temp(c.planned_name({n.id, 0}) + "_matmul", expr),
                       nnef_real(alpha));
  if (has_input(n, 2) && beta != 0.0) {
    // The product first, then the bias: the order a MatMul + Add graph is written in.
    expr = c.temp(c.planned_name({n.id, 0}) + "_matmul", expr);
    std::string bias = c.tensor_of_rank(in(n, 2), 2);
    if (beta != 1.0)
      bias = c.temp(c.planned_name({n.id, 0}) + "_bias",
                    fmt::format("mul({}, {})", bias, nnef_real(beta)));
    expr = fmt::format("add({}, {})", expr, bias);
  }
  c.assign(n, 0, expr);
  return true;
}

bool write_softmax(Ctx& c, const Node& n) {
  OpAttrs attrs(n);
  size_t rank = out_rank(n);
  size_t axis = normalize_axis(attrs.integer("axis", -1), rank, n.op->name());
  if (attrs.integer("coerce_2d", 0) && axis + 1 != rank) return false;
  if (n.op->name() == "Hardmax") return false;
  std::string expr = fmt::format("softmax({}, axes = [{}])", c.tensor(in(n, 0)), axis);
  if (n.op->name() == "LogSoftmax")
    expr = fmt::format("log({})", c.temp(c.planned_name({n.id, 0}) + "_softmax", expr));
  c.assign(n, 0, expr);
  return true;
}

bool write_batch_norm(Ctx& c, const Node& n) {
  OpAttrs attrs(n);
  if (attrs.integer("training_mode", 0) || n.outputs.size() > 1) return false;
  std::string x = c.tensor(in(n, 0));
  std::string scale = channel_param(c, in(n, 1)), offset = channel_param(c, in(n, 2)),
              mean = channel_param(c, in(n, 3)), var = channel_param(c, in(n, 4));
  c.assign(n, 0,
           fmt::format("batch_normalization({}, {}, {}, {}, {}, epsilon = {})", x, mean, var,
                       offset, scale, nnef_real(attrs.real("epsilon", 1e-5))));
  return true;
}

bool write_layer_norm(Ctx& c, const Node& n) {
  OpAttrs attrs(n);  // only Y is written: the mean / inv_std_dev outputs are refused if used
  size_t rank = out_rank(n);
  size_t axis = normalize_axis(attrs.integer("axis", -1), rank, "LayerNormalization");
  std::vector<int64_t> axes;
  for (size_t i = axis; i < rank; i++) axes.push_back(int64_t(i));
  std::string x = c.tensor(in(n, 0)), ax = nnef_ints(axes);
  std::string mean =
      c.temp(c.planned_name({n.id, 0}) + "_mean", fmt::format("mean_reduce({}, axes = {})", x, ax));
  std::string centered =
      c.temp(c.planned_name({n.id, 0}) + "_centered", fmt::format("sub({}, {})", x, mean));
  std::string var = c.temp(c.planned_name({n.id, 0}) + "_var",
                           fmt::format("mean_reduce(sqr({}), axes = {})", centered, ax));
  std::string norm = c.temp(c.planned_name({n.id, 0}) + "_norm",
                            fmt::format("div({}, sqrt(add({}, {})))", centered, var,
                                        nnef_real(attrs.real("epsilon", 1e-5))));
  std::string scaled = c.temp(c.planned_name({n.id, 0}) + "_scaled",
                              fmt::format("mul({}, {})", norm, c.tensor_of_rank(in(n, 1), rank)));
  if (has_input(n, 2))
    c.assign(n, 0, fmt::format("add({}, {})", scaled, c.tensor_of_rank(in(n, 2), rank)));
  else
    c.assign(n, 0, fmt::format("copy({})", scaled));
  return true;
}

bool write_arg_reduce(Ctx& c, const Node& n) {
  OpAttrs attrs(n);
  if (attrs.integer("select_last_index", 0)) return false;
  size_t axis = normalize_axis(attrs.integer("axis", 0), c.fact(in(n, 0)).rank(), n.op->name());
  std::string expr = fmt::format("{}({}, axes = [{}])",
                                 n.op->name() == "ArgMax" ? "argmax_reduce" : "argmin_reduce",
                                 c.tensor(in(n, 0)), axis);
  if (attrs.integer("keepdims", 1)) {
    c.assign(n, 0, expr);
  } else {
    c.assign(n, 0,
             fmt::format("squeeze({}, axes = [{}])",
                         c.temp(c.planned_name({n.id, 0}) + "_keep", expr), axis));
  }
  return true;
}

}  // namespace

void register_nn_serializers(std::map<std::string, Serializer>& s) {
  s["Conv"] = write_conv;
  s["MaxPool"] = write_pool;
  s["AveragePool"] = write_pool;
  s["GlobalAveragePool"] = write_global_pool;
  s["GlobalMaxPool"] = write_global_pool;
  for (int k = 0; k <= int(ops::ReduceKind::SumSquare); k++)
    s[ops::reduce_kind_name(ops::ReduceKind(k))] = write_reduce;
  s["MatMul"] = write_matmul;
  s["Gemm"] = write_gemm;
  s["Softmax"] = write_softmax;
  s["LogSoftmax"] = write_softmax;
  s["BatchNormalization"] = write_batch_norm;
  s["LayerNormalization"] = write_layer_norm;
  s["ArgMax"] = write_arg_reduce;
  s["ArgMin"] = write_arg_reduce;
}

}  // namespace kiln::nnef::ser
