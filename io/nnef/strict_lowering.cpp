// Exact standard-NNEF expressions of kiln ops (see strict_lowering.h): activations, logical
// Xor, bool<->float casts, instance and mean-variance normalization, Expand, Pad in wrap mode,
// Gather with constant indices, nearest-neighbour Resize by integer factors.
#include "io/nnef/strict_lowering.h"

#include <cfloat>
#include <cmath>

#include "io/nnef/serializer_util.h"
#include "ops/elementwise/binary.h"
#include "ops/elementwise/cast.h"
#include "ops/elementwise/unary.h"

namespace kiln::nnef {

namespace ser {

std::string node_temp(Ctx& c, const Node& n, const std::string& suffix, const std::string& expr) {
  return c.temp(c.planned_name({n.id, 0}) + "_" + suffix, expr);
}

namespace {

std::string real(double v) {
  return nnef_real(v);
}

// Float activations as compositions of NNEF's element-wise ops, in the order kiln's reference
// evaluates them (ops/elementwise/unary.cpp).
bool lower_unary(Ctx& c, const Node& n) {
  const auto& op = op_as<ops::Unary>(n);
  const auto& p = op.params();
  if (!is_float(c.fact(in(n, 0)).dt)) return false;
  using K = ops::UnaryKind;
  K k = op.kind();
  static const std::set<K> lowered = {
      K::HardSigmoid, K::HardSwish, K::Selu,  K::Celu, K::Softsign, K::ThresholdedRelu,
      K::Shrink,      K::GeluTanh,  K::Tan,   K::Sinh, K::Cosh,     K::Asinh,
      K::Acosh,       K::Atanh,     K::IsNaN, K::IsInf};
  if (!lowered.count(k)) return false;
  std::string x = c.tensor(in(n, 0));
  std::string y;
  switch (k) {
    case K::HardSigmoid:
      y = fmt::format("clamp(add(mul({}, {}), {}), 0.0, 1.0)", x, real(p.alpha), real(p.beta));
      break;
    case K::HardSwish:
      y = fmt::format("mul({0}, clamp(add(div({0}, 6.0), 0.5), 0.0, 1.0))", x);
      break;
    case K::Selu: {
      // The branch not taken may overflow (exp of a large x): select drops it.
      std::string neg =
          node_temp(c, n, "neg", fmt::format("mul(sub(exp({}), 1.0), {})", x, real(p.alpha)));
      y = fmt::format("mul(select(gt({0}, 0.0), {0}, {1}), {2})", x, neg, real(p.gamma));
      break;
    }
    case K::Celu:
      y = fmt::format("add(max({0}, 0.0), min(mul(sub(exp(div({0}, {1})), 1.0), {1}), 0.0))", x,
                      real(p.alpha));
      break;
    case K::Softsign:
      y = fmt::format("div({0}, add(abs({0}), 1.0))", x);
      break;
    case K::ThresholdedRelu:
      y = fmt::format("select(gt({0}, {1}), {0}, 0.0)", x, real(p.alpha));
      break;
    case K::Shrink:
      y = fmt::format(
          "select(lt({0}, {1}), add({0}, {3}), select(gt({0}, {2}), sub({0}, {3}), 0.0))", x,
          real(-p.alpha), real(p.alpha), real(p.beta));
      break;
    case K::GeluTanh: {
      // 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
      std::string cube = node_temp(c, n, "cube", fmt::format("mul(mul({0}, {0}), {0})", x));
      std::string inner = node_temp(
          c, n, "inner",
          fmt::format("mul({}, add({}, mul({}, 0.044715)))", real(std::sqrt(2.0 / M_PI)), x, cube));
      y = fmt::format("mul(mul({}, 0.5), add(tanh({}), 1.0))", x, inner);
      break;
    }
    case K::Tan:
      y = fmt::format("div(sin({0}), cos({0}))", x);
      break;
    case K::Sinh:
      y = fmt::format("mul(sub(exp({0}), exp(neg({0}))), 0.5)", x);
      break;
    case K::Cosh:
      y = fmt::format("mul(add(exp({0}), exp(neg({0}))), 0.5)", x);
      break;
    case K::Asinh:
      // Odd: sign(x) log(|x| + sqrt(x^2 + 1)) avoids the cancellation of negative x.
      y = fmt::format("mul(sign({0}), log(add(abs({0}), sqrt(add(sqr({0}), 1.0)))))", x);
      break;
    case K::Acosh:
      y = fmt::format("log(add({0}, sqrt(sub(sqr({0}), 1.0))))", x);
      break;
    case K::Atanh:
      y = fmt::format("mul(log(div(add({0}, 1.0), sub(1.0, {0}))), 0.5)", x);
      break;
    case K::IsNaN:
      y = fmt::format("ne({0}, {0})", x);
      break;
    case K::IsInf: {
      // Beyond the largest finite float: an infinity (f32 inputs only).
      if (c.fact(in(n, 0)).dt != DatumType::F32 || !(p.detect_positive || p.detect_negative))
        return false;
      std::string pos = fmt::format("gt({}, {})", x, real(FLT_MAX));
      std::string neg = fmt::format("lt({}, {})", x, real(-FLT_MAX));
      y = !p.detect_negative ? pos : !p.detect_positive ? neg : fmt::format("or({}, {})", pos, neg);
      break;
    }
    default:
      return false;
  }
  c.assign(n, 0, y);
  return true;
}

// Logical Xor: (a or b) and not (a and b).
bool lower_binary(Ctx& c, const Node& n) {
  const auto& op = op_as<ops::Binary>(n);
  if (op.kind() != ops::BinaryKind::Xor || OpAttrs(n).has("axis")) return false;
  size_t rank = out_rank(n);
  std::string a = c.tensor_of_rank(in(n, 0), rank), b = c.tensor_of_rank(in(n, 1), rank);
  c.assign(n, 0, fmt::format("and(or({0}, {1}), not(and({0}, {1})))", a, b));
  return true;
}

// Casts between logical and float, and to the same type: select / ne / copy.
bool lower_cast(Ctx& c, const Node& n) {
  const auto& op = op_as<ops::Cast>(n);
  DatumType from = c.fact(in(n, 0)).dt;
  DatumType to = op.to() ? *op.to() : c.fact(in(n, 1)).dt;
  std::string x = c.tensor(in(n, 0));
  if (from == to)
    c.assign(n, 0, fmt::format("copy({})", x));
  else if (from == DatumType::Bool && to == DatumType::F32)
    c.assign(n, 0, fmt::format("select({}, 1.0, 0.0)", x));
  else if (from == DatumType::F32 && to == DatumType::Bool)
    c.assign(n, 0, fmt::format("ne({}, 0.0)", x));
  else
    return false;
  return true;
}

std::vector<int64_t> axes_from(size_t first, size_t rank) {
  std::vector<int64_t> axes;
  for (size_t i = first; i < rank; i++) axes.push_back(int64_t(i));
  return axes;
}

// (x - mean) / sqrt(var + epsilon) * scale + bias over each (batch, channel) plane.
bool lower_instance_norm(Ctx& c, const Node& n) {
  size_t rank = out_rank(n);
  if (rank < 3 || !has_input(n, 1) || !has_input(n, 2)) return false;
  std::string x = c.tensor(in(n, 0)), ax = nnef_ints(axes_from(2, rank));
  double eps = OpAttrs(n).real("epsilon", 1e-5);
  std::string mean = node_temp(c, n, "mean", fmt::format("mean_reduce({}, axes = {})", x, ax));
  std::string centered = node_temp(c, n, "centered", fmt::format("sub({}, {})", x, mean));
  std::string var =
      node_temp(c, n, "var", fmt::format("mean_reduce(sqr({}), axes = {})", centered, ax));
  std::string norm =
      node_temp(c, n, "norm", fmt::format("div({}, sqrt(add({}, {})))", centered, var, real(eps)));
  std::string scaled =
      node_temp(c, n, "scaled", fmt::format("mul({}, {})", norm, channel_param(c, in(n, 1))));
  c.assign(n, 0, fmt::format("add({}, {})", scaled, channel_param(c, in(n, 2))));
  return true;
}

// (x - mean) / (sqrt(mean((x - mean)^2)) + 1e-9) over the op's axes.
bool lower_mvn(Ctx& c, const Node& n) {
  size_t rank = out_rank(n);
  auto axes = OpAttrs(n).ints("axes").value_or(std::vector<int64_t>{0, 2, 3});
  axes = normalized_axes(axes, rank, n.op->name());
  std::sort(axes.begin(), axes.end());
  std::string x = c.tensor(in(n, 0)), ax = nnef_ints(axes);
  std::string mean = node_temp(c, n, "mean", fmt::format("mean_reduce({}, axes = {})", x, ax));
  std::string centered = node_temp(c, n, "centered", fmt::format("sub({}, {})", x, mean));
  std::string sd =
      node_temp(c, n, "std", fmt::format("sqrt(mean_reduce(sqr({}), axes = {}))", centered, ax));
  c.assign(n, 0, fmt::format("div({}, add({}, 1e-09))", centered, sd));
  return true;
}

// Expand as tile of the input made the output's rank (broadcast dims of 1 repeated).
bool lower_expand(Ctx& c, const Node& n) {
  const Fact& x = c.fact(in(n, 0));
  const Fact& y = n.outputs[0];
  std::vector<int64_t> repeats;
  size_t missing = y.rank() - x.rank();
  for (size_t i = 0; i < y.rank(); i++) {
    auto out = y.shape[i].as_int();
    if (!out) return false;
    int64_t inner = i < missing ? 1 : 0;
    if (i >= missing) {
      auto d = x.shape[i - missing].as_int();
      if (!d) return false;
      inner = *d;
    }
    if (inner != *out && inner != 1) return false;
    repeats.push_back(inner == *out ? 1 : *out);
  }
  std::string v = c.tensor_of_rank(in(n, 0), y.rank());
  c.assign(n, 0, fmt::format("tile({}, repeats = {})", v, nnef_ints(repeats)));
  return true;
}

// Pad in wrap mode: output position p of an axis reads (p - begin) mod n, i.e. the range
// [-begin, n + end) of the input repeated: tile as often as that range needs, then slice it.
bool lower_pad_wrap(Ctx& c, const Node& n) {
  OpAttrs attrs(n);
  if (attrs.str("mode") != "wrap" || attrs.has("pads")) return false;
  const Fact& x = c.fact(in(n, 0));
  size_t rank = x.rank();
  std::vector<int64_t> pads = c.const_ints(n, 1);
  std::vector<size_t> axes;
  if (has_input(n, 3)) {
    for (int64_t a : c.const_ints(n, 3)) axes.push_back(normalize_axis(a, rank, "Pad"));
  } else {
    for (size_t i = 0; i < rank; i++) axes.push_back(i);
  }
  if (pads.size() != 2 * axes.size()) return false;
  struct Cut {
    size_t axis;
    int64_t start, length, copies;
  };
  std::vector<Cut> cuts;
  for (size_t k = 0; k < axes.size(); k++) {
    int64_t b = pads[k], e = pads[k + axes.size()];
    if (b == 0 && e == 0) continue;
    auto d = x.shape[axes[k]].as_int();
    if (!d || *d < 1 || *d + b + e < 1) return false;
    int64_t start = ((-b) % *d + *d) % *d, length = *d + b + e;
    int64_t copies = (start + length + *d - 1) / *d;
    if (copies > 64) return false;
    cuts.push_back({axes[k], start, length, copies});
  }
  std::string v = c.tensor(in(n, 0));
  for (const Cut& cut : cuts) {
    if (cut.copies > 1) {
      std::vector<int64_t> repeats(rank, 1);
      repeats[cut.axis] = cut.copies;
      v = node_temp(c, n, "tiled", fmt::format("tile({}, repeats = {})", v, nnef_ints(repeats)));
    }
    v = node_temp(c, n, "wrapped",
                  fmt::format("slice({}, axes = [{}], begin = [{}], end = [{}], stride = [1])", v,
                              cut.axis, cut.start, cut.start + cut.length));
  }
  c.assign(n, 0, fmt::format("copy({})", v));
  return true;
}

// Gather with constant indices: one slice per index (runs of consecutive indices share one),
// concatenated, then reshaped to the output's shape.
bool lower_gather(Ctx& c, const Node& n) {
  const Fact& x = c.fact(in(n, 0));
  const Fact& idx = c.fact(in(n, 1));
  size_t axis = normalize_axis(OpAttrs(n).integer("axis", 0), x.rank(), "Gather");
  auto dim = x.shape[axis].as_int();
  if (!idx.value || !dim || idx.value->numel() == 0 || idx.value->numel() > 256) return false;
  for (const auto& d : n.outputs[0].shape)
    if (!d.is_int()) return false;
  std::vector<std::pair<int64_t, int64_t>> runs;
  for (int64_t i = 0; i < idx.value->numel(); i++) {
    int64_t v = idx.value->value_as_i64(i);
    if (v < 0) v += *dim;
    if (v < 0 || v >= *dim) return false;
    if (!runs.empty() && runs.back().second == v)
      runs.back().second++;
    else
      runs.push_back({v, v + 1});
  }
  std::string x_id = c.tensor(in(n, 0)), list;
  for (size_t r = 0; r < runs.size(); r++)
    list += (r ? ", " : "") +
            node_temp(c, n, "slice",
                      fmt::format("slice({}, axes = [{}], begin = [{}], end = [{}], stride = [1])",
                                  x_id, axis, runs[r].first, runs[r].second));
  std::string joined =
      runs.size() == 1
          ? list
          : node_temp(c, n, "joined", fmt::format("concat([{}], axis = {})", list, axis));
  c.assign(n, 0, fmt::format("reshape({}, shape = {})", joined, c.dims(n.outputs[0].shape)));
  return true;
}

}  // namespace

}  // namespace ser

const std::map<std::string, Lowering>& strict_lowerings() {
  static const std::map<std::string, Lowering> table = [] {
    std::map<std::string, Lowering> l;
    for (int k = 0; k <= int(ops::UnaryKind::BitwiseNot); k++)
      l[ops::Unary(ops::UnaryKind(k)).name()] = {ser::lower_unary, false};
    l["Xor"] = {ser::lower_binary, false};
    l["Cast"] = {ser::lower_cast, false};
    l["CastLike"] = {ser::lower_cast, false};
    l["Gather"] = {ser::lower_gather, false};
    l["InstanceNormalization"] = {ser::lower_instance_norm, true};
    l["MeanVarianceNormalization"] = {ser::lower_mvn, true};
    l["Expand"] = {ser::lower_expand, true};
    l["Pad"] = {ser::lower_pad_wrap, true};
    ser::register_recurrent_lowerings(l);
    ser::register_resize_lowerings(l);
    return l;
  }();
  return table;
}

}  // namespace kiln::nnef
