#include "io/onnx/quantize/quantize_model.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <set>

#include "base/error.h"
#include "core/session.h"
#include "io/input_facts.h"
#include "io/onnx/onnx_loader.h"
#include "io/onnx/tensor_proto.h"
#include "passes/pipeline.h"

namespace kiln::onnx_io {

namespace {

bool is_default_domain(const std::string& d) {
  return d.empty() || d == "ai.onnx";
}

int64_t default_opset(const onnx::ModelProto& model) {
  for (const auto& o : model.opset_import())
    if (is_default_domain(o.domain())) return o.version();
  return 1;
}

const onnx::AttributeProto* attribute(const onnx::NodeProto& node, const char* name) {
  for (const auto& a : node.attribute())
    if (a.name() == name) return &a;
  return nullptr;
}
int64_t int_attr(const onnx::NodeProto& node, const char* name, int64_t def) {
  const auto* a = attribute(node, name);
  return a ? a->i() : def;
}
float float_attr(const onnx::NodeProto& node, const char* name, float def) {
  const auto* a = attribute(node, name);
  return a ? a->f() : def;
}

std::map<std::string, const onnx::TensorProto*> initializers(const onnx::GraphProto& g) {
  std::map<std::string, const onnx::TensorProto*> m;
  for (const auto& t : g.initializer()) m[t.name()] = &t;
  return m;
}

std::string node_label(const onnx::NodeProto& node, int index) {
  return fmt::format("node '{}' ({})",
                     node.name().empty() ? fmt::format("#{}", index) : node.name(), node.op_type());
}

// Names read anywhere in a graph, its subgraphs included.
void collect_uses(const onnx::GraphProto& g, std::set<std::string>& uses) {
  for (const auto& n : g.node()) {
    for (const auto& i : n.input()) uses.insert(i);
    for (const auto& a : n.attribute()) {
      if (a.has_g()) collect_uses(a.g(), uses);
      for (const auto& sub : a.graphs()) collect_uses(sub, uses);
    }
  }
  for (const auto& o : g.output()) uses.insert(o.name());
}

onnx::TensorProto make_tensor(const std::string& name, int type, const std::vector<int64_t>& dims,
                              const void* data, size_t bytes) {
  onnx::TensorProto t;
  t.set_name(name);
  t.set_data_type(type);
  for (auto d : dims) t.add_dims(d);
  t.set_raw_data(std::string(static_cast<const char*>(data), bytes));
  return t;
}

template <typename T>
onnx::TensorProto make_tensor(const std::string& name, int type, const std::vector<int64_t>& dims,
                              const std::vector<T>& values) {
  return make_tensor(name, type, dims, values.data(), values.size() * sizeof(T));
}

// Round half to even, as QuantizeLinear does.
double round_even(double x) {
  return std::nearbyint(x);
}

}  // namespace

std::pair<float, uint8_t> activation_params(const Range& r) {
  const double lo = std::min<double>(r.min, 0.0), hi = std::max<double>(r.max, 0.0);
  double scale = (hi - lo) / 255.0;
  if (!(scale > 0) || !std::isfinite(scale)) return {1.0f, 0};
  const float s = static_cast<float>(scale);
  const double z = std::clamp(round_even(-lo / s), 0.0, 255.0);
  return {s, static_cast<uint8_t>(z)};
}

QuantizePlan plan_quantization(const onnx::ModelProto& model, const QuantizeOptions& options) {
  const auto& g = model.graph();
  const auto inits = initializers(g);
  QuantizePlan plan;
  std::set<std::string> names, excluded(options.exclude.begin(), options.exclude.end());
  for (const auto& n : g.node()) names.insert(n.name());
  for (const auto& e : excluded)
    KILN_ENSURE(names.count(e), "--exclude '{}': the model has no node of that name", e);
  std::map<std::string, std::vector<int>> consumers;
  for (int i = 0; i < g.node_size(); i++)
    for (const auto& in : g.node(i).input())
      if (!in.empty()) consumers[in].push_back(i);
  std::set<std::string> graph_outputs;
  for (const auto& o : g.output()) graph_outputs.insert(o.name());
  std::set<std::string> seen;
  auto add_tensor = [&](const std::string& t) {
    if (seen.insert(t).second) plan.tensors.push_back(t);
  };
  for (int i = 0; i < g.node_size(); i++) {
    const auto& node = g.node(i);
    const std::string& op = node.op_type();
    if (!is_default_domain(node.domain()) || (op != "Conv" && op != "MatMul" && op != "Gemm"))
      continue;
    if (excluded.count(node.name())) {
      plan.excluded.push_back(node.name());
      continue;
    }
    auto skip = [&](const std::string& why) {
      plan.skipped.push_back(fmt::format("{}: {}", node_label(node, i), why));
    };
    if (node.input_size() < 2 || node.output_size() < 1) continue;
    auto w = inits.find(node.input(1));
    if (w == inits.end()) {
      skip("its weight is not a constant initializer");
      continue;
    }
    if (w->second->data_type() != onnx::TensorProto::FLOAT) {
      skip("its weight is not float");
      continue;
    }
    if (inits.count(node.input(0))) {
      skip("its first input is a constant");
      continue;
    }
    const int rank = w->second->dims_size();
    QuantizeTarget t;
    t.node = i;
    t.input = node.input(0);
    if (op == "Conv") {
      if (rank < 3) {
        skip(fmt::format("weight of rank {}", rank));
        continue;
      }
      t.weight_axis = 0;
    } else if (op == "MatMul") {
      if (rank != 2) {
        skip(fmt::format("weight of rank {} (2 needed)", rank));
        continue;
      }
      t.weight_axis = 1;
    } else {
      if (rank != 2 || int_attr(node, "transA", 0) != 0 || float_attr(node, "alpha", 1.f) != 1.f ||
          float_attr(node, "beta", 1.f) != 1.f) {
        skip("transA, alpha != 1 or beta != 1");
        continue;
      }
      t.weight_axis = int_attr(node, "transB", 0) ? 0 : 1;
    }
    // ORT folds a Relu / Clip that is the output's only consumer into the output quantization.
    t.output = node.output(0);
    auto c = consumers.find(t.output);
    if (!graph_outputs.count(t.output) && c != consumers.end() && c->second.size() == 1) {
      const auto& next = g.node(c->second[0]);
      if (is_default_domain(next.domain()) &&
          (next.op_type() == "Relu" || next.op_type() == "Clip") && next.input(0) == t.output &&
          next.output_size() == 1) {
        t.output = next.output(0);
        t.activation = c->second[0];
      }
    }
    add_tensor(t.input);
    add_tensor(t.output);
    plan.targets.push_back(t);
    (op == "Conv" ? plan.conv : op == "MatMul" ? plan.matmul : plan.gemm)++;
  }
  KILN_ENSURE(!plan.targets.empty(),
              "nothing to quantize: no Conv, MatMul or Gemm with a constant float weight{}",
              plan.skipped.empty()
                  ? std::string()
                  : fmt::format(" ({} skipped: {})", plan.skipped.size(), plan.skipped.front()));
  return plan;
}

std::map<std::string, Range> calibrate(const onnx::ModelProto& model, const std::string& base_dir,
                                       const std::vector<std::string>& tensors,
                                       const std::vector<std::vector<Tensor>>& input_sets,
                                       const QuantizeOptions& options) {
  KILN_ENSURE(!input_sets.empty(), "calibration needs at least one input set");
  onnx::ModelProto exposed = model;
  std::set<std::string> outputs;
  for (const auto& o : exposed.graph().output()) outputs.insert(o.name());
  std::set<std::string> graph_inputs;
  for (const auto& i : exposed.graph().input()) graph_inputs.insert(i.name());
  for (const auto& t : tensors)
    if (!outputs.count(t) && !graph_inputs.count(t))
      exposed.mutable_graph()->add_output()->set_name(t);

  std::map<std::string, Range> ranges;
  auto record = [&](const std::string& name, const Tensor& v) {
    KILN_ENSURE(v.dtype() == DatumType::F32,
                "tensor '{}' holds {}, not f32: only float activations are quantized (leave its "
                "consumer out with --exclude)",
                name, name_of(v.dtype()));
    Range& r = ranges[name];
    for (float x : v.values<float>()) {
      if (!std::isfinite(x)) continue;
      if (!r.seen) {
        r.min = r.max = x;
        r.seen = true;
      }
      r.min = std::min(r.min, x);
      r.max = std::max(r.max, x);
    }
  };

  std::shared_ptr<Graph> graph;
  std::unique_ptr<Session> session;
  std::vector<Shape> planned_shapes;
  std::map<std::string, size_t> output_index, input_index;
  for (size_t s = 0; s < input_sets.size(); s++) {
    const auto& inputs = input_sets[s];
    std::vector<Shape> shapes;
    for (const auto& t : inputs) shapes.push_back(t.shape());
    if (!session || shapes != planned_shapes) {
      graph = load_onnx_model(exposed, base_dir);
      io::apply_input_facts(*graph, options.input_facts);
      KILN_ENSURE(inputs.size() == graph->inputs().size(),
                  "calibration input set {} has {} tensors, the model {} inputs", s, inputs.size(),
                  graph->inputs().size());
      bind_input_shapes(*graph, inputs);
      passes::run_to_stage(*graph, passes::Stage::Optimize);
      session = std::make_unique<Session>(passes::plan(graph));
      planned_shapes = shapes;
      output_index.clear();
      input_index.clear();
      const auto names = graph->output_names();
      for (size_t o = 0; o < names.size(); o++) output_index[names[o]] = o;
      for (size_t i = 0; i < graph->inputs().size(); i++) input_index[graph->input_name(i)] = i;
    }
    std::vector<Tensor> out;
    try {
      out = session->run(inputs);
    } catch (Error& e) {
      e.with_context(fmt::format("calibration run {} of the float model", s));
      throw;
    }
    for (const auto& t : tensors) {
      if (auto i = input_index.find(t); i != input_index.end()) {
        record(t, inputs[i->second]);
      } else {
        auto o = output_index.find(t);
        KILN_ENSURE(o != output_index.end(), "tensor '{}' is no value of the loaded model", t);
        record(t, out[o->second]);
      }
    }
  }
  return ranges;
}

void apply_quantization(onnx::ModelProto& model, const std::string& base_dir,
                        const QuantizePlan& plan, const std::map<std::string, Range>& ranges,
                        const QuantizeOptions& options) {
  const int64_t opset = default_opset(model);
  KILN_ENSURE(opset >= 10, "the model's opset {} has no QuantizeLinear (opset 10 or newer needed)",
              opset);
  KILN_ENSURE(options.per_tensor || opset >= 13,
              "per-channel weights need DequantizeLinear's axis (opset 13); the model is opset {}: "
              "use --per-tensor, or upgrade the model's opset first",
              opset);
  onnx::GraphProto& g = *model.mutable_graph();
  // Every name in use, so that new names are unique.
  std::set<std::string> used;
  for (const auto& t : g.initializer()) used.insert(t.name());
  for (const auto& i : g.input()) used.insert(i.name());
  for (const auto& n : g.node()) {
    used.insert(n.name());
    for (const auto& o : n.output()) used.insert(o);
    for (const auto& i : n.input()) used.insert(i);
  }
  auto unique = [&](const std::string& base) {
    std::string name = base;
    for (int k = 1; used.count(name); k++) name = fmt::format("{}_{}", base, k);
    used.insert(name);
    return name;
  };
  const auto inits = initializers(g);
  std::map<std::string, Tensor> weights;  // float initializers, read once
  auto weight = [&](const std::string& name) -> const Tensor& {
    auto it = weights.find(name);
    if (it == weights.end())
      it = weights.emplace(name, tensor_from_proto(*inits.at(name), base_dir)).first;
    return it->second;
  };

  std::vector<onnx::TensorProto> new_inits;
  // Activation parameters, per quantized tensor.
  struct ActParams {
    float scale;
    uint8_t zero_point;
    std::string scale_name, zp_name;
  };
  std::map<std::string, ActParams> act;
  for (const auto& t : plan.tensors) {
    auto r = ranges.find(t);
    KILN_ENSURE(r != ranges.end() && r->second.seen,
                "tensor '{}' has no calibrated range (no finite value in any calibration run)", t);
    auto [scale, zp] = activation_params(r->second);
    ActParams p{scale, zp, unique(t + "_scale"), unique(t + "_zero_point")};
    new_inits.push_back(make_tensor<float>(p.scale_name, onnx::TensorProto::FLOAT, {}, {scale}));
    new_inits.push_back(make_tensor<uint8_t>(p.zp_name, onnx::TensorProto::UINT8, {}, {zp}));
    act[t] = p;
  }

  auto dq_node = [&](const std::string& x, const std::string& scale, const std::string& zp,
                     const std::string& y, int64_t axis) {
    onnx::NodeProto n;
    n.set_op_type("DequantizeLinear");
    n.set_name(unique(y + "_DequantizeLinear"));
    n.add_input(x);
    n.add_input(scale);
    n.add_input(zp);
    n.add_output(y);
    if (axis >= 0) {
      auto* a = n.add_attribute();
      a->set_name("axis");
      a->set_type(onnx::AttributeProto::INT);
      a->set_i(axis);
    }
    return n;
  };
  auto q_node = [&](const std::string& x, const ActParams& p, const std::string& y) {
    onnx::NodeProto n;
    n.set_op_type("QuantizeLinear");
    n.set_name(unique(y + "_QuantizeLinear"));
    n.add_input(x);
    n.add_input(p.scale_name);
    n.add_input(p.zp_name);
    n.add_output(y);
    return n;
  };

  std::map<int, const QuantizeTarget*> by_node;
  for (const auto& t : plan.targets) by_node[t.node] = &t;
  // A Relu, or a Clip from 0 to at least the calibrated maximum, before a uint8 quantization of
  // zero point 0 changes nothing the saturation does not: it is dropped, the op's output takes
  // its name (as ORT's QDQ format has it), so that Conv -> QuantizeLinear is one int8 op.
  std::set<int> dropped_activations;
  // Initializers and Constant nodes (value / value_float) hold the Clip bounds.
  std::map<std::string, const onnx::NodeProto*> constant_nodes;
  for (const auto& n : g.node())
    if (is_default_domain(n.domain()) && n.op_type() == "Constant" && n.output_size() == 1)
      constant_nodes[n.output(0)] = &n;
  auto const_scalar = [&](const std::string& name, double& v) {
    Tensor t;
    if (auto it = inits.find(name); it != inits.end()) {
      t = tensor_from_proto(*it->second, base_dir);
    } else if (auto c = constant_nodes.find(name); c != constant_nodes.end()) {
      if (const auto* a = attribute(*c->second, "value_float")) {
        v = a->f();
        return true;
      }
      const auto* a = attribute(*c->second, "value");
      if (!a || !a->has_t()) return false;
      t = tensor_from_proto(a->t(), base_dir);
    } else {
      return false;
    }
    if (t.numel() != 1 || !is_float(t.dtype())) return false;
    v = t.value_as_double(0);
    return true;
  };
  for (const auto& t : plan.targets) {
    if (t.activation < 0) continue;
    const auto& a = g.node(t.activation);
    const Range& r = ranges.at(t.output);
    if (activation_params(r).second != 0) continue;
    bool removable = a.op_type() == "Relu";
    if (a.op_type() == "Clip") {
      double lo = 0, hi = 0;
      const bool has_min = a.input_size() > 1 && !a.input(1).empty();
      const bool has_max = a.input_size() > 2 && !a.input(2).empty();
      if (opset < 11) {
        lo = float_attr(a, "min", -3.4e38f);
        hi = float_attr(a, "max", 3.4e38f);
        removable = lo == 0 && hi >= r.max;
      } else {
        removable = has_min && const_scalar(a.input(1), lo) && lo == 0 &&
                    (!has_max || (const_scalar(a.input(2), hi) && hi >= r.max));
      }
    }
    if (removable) dropped_activations.insert(t.activation);
  }
  std::set<std::string> graph_inputs;
  for (const auto& i : g.input())
    if (!inits.count(i.name())) graph_inputs.insert(i.name());

  std::vector<onnx::NodeProto> nodes;
  std::map<std::string, std::string> input_rename;  // graph input -> its DequantizeLinear output
  for (const auto& t : plan.tensors) {
    if (!graph_inputs.count(t)) continue;
    const auto& p = act[t];
    const std::string q = unique(t + "_quantized"), dq = unique(t + "_dequantized");
    nodes.push_back(q_node(t, p, q));
    nodes.push_back(dq_node(q, p.scale_name, p.zp_name, dq, -1));
    input_rename[t] = dq;
  }

  for (int i = 0; i < g.node_size(); i++) {
    if (dropped_activations.count(i)) continue;
    onnx::NodeProto node = g.node(i);
    for (auto& in : *node.mutable_input())
      if (auto r = input_rename.find(in); r != input_rename.end()) in = r->second;
    if (auto it = by_node.find(i); it != by_node.end()) {
      const QuantizeTarget& t = *it->second;
      if (dropped_activations.count(t.activation)) node.set_output(0, t.output);
      const Tensor& w = weight(node.input(1));
      const Shape& shape = w.shape();
      const int axis = t.weight_axis;
      const int64_t channels = options.per_tensor ? 1 : shape.at(axis);
      int64_t inner = 1;
      for (size_t d = axis + 1; d < shape.size(); d++) inner *= shape[d];
      auto channel_of = [&](int64_t idx) {
        return options.per_tensor ? 0 : (idx / inner) % shape[axis];
      };
      const auto wv = w.values<float>();
      std::vector<float> amax(channels, 0.f);
      for (int64_t k = 0; k < w.numel(); k++)
        if (std::isfinite(wv[k]))
          amax[channel_of(k)] = std::max(amax[channel_of(k)], std::abs(wv[k]));
      std::vector<float> w_scale(channels);
      for (int64_t c = 0; c < channels; c++) w_scale[c] = amax[c] > 0 ? amax[c] / 127.0f : 1.0f;
      std::vector<int8_t> wq(w.numel());
      for (int64_t k = 0; k < w.numel(); k++)
        wq[k] = static_cast<int8_t>(
            std::clamp(round_even(wv[k] / w_scale[channel_of(k)]), -127.0, 127.0));
      const std::string base = node.input(1);
      const std::string wq_name = unique(base + "_quantized"), ws_name = unique(base + "_scale"),
                        wz_name = unique(base + "_zero_point"), wdq = unique(base + "_dequantized");
      const std::vector<int64_t> pdims =
          options.per_tensor ? std::vector<int64_t>{} : std::vector<int64_t>{channels};
      new_inits.push_back(make_tensor(wq_name, onnx::TensorProto::INT8, shape, wq));
      new_inits.push_back(make_tensor(ws_name, onnx::TensorProto::FLOAT, pdims, w_scale));
      new_inits.push_back(
          make_tensor(wz_name, onnx::TensorProto::INT8, pdims, std::vector<int8_t>(channels, 0)));
      nodes.push_back(dq_node(wq_name, ws_name, wz_name, wdq, options.per_tensor ? -1 : axis));
      node.set_input(1, wdq);

      // Bias (Conv's B, Gemm's C): int32, scale = input scale * weight scale, zero point 0.
      if (node.input_size() > 2 && !node.input(2).empty()) {
        const auto b = inits.find(node.input(2));
        const int64_t n_out = shape.at(axis);
        if (b != inits.end() && b->second->data_type() == onnx::TensorProto::FLOAT &&
            b->second->dims_size() == 1 && b->second->dims(0) == n_out) {
          const auto bv = weight(node.input(2)).values<float>();
          const float s_in = act.at(t.input).scale;
          std::vector<float> b_scale(channels);
          for (int64_t c = 0; c < channels; c++) b_scale[c] = s_in * w_scale[c];
          std::vector<int32_t> bq(n_out);
          for (int64_t c = 0; c < n_out; c++) {
            const double q = round_even(bv[c] / b_scale[options.per_tensor ? 0 : c]);
            bq[c] = static_cast<int32_t>(std::clamp(q, -2147483647.0, 2147483647.0));
          }
          const std::string bbase = node.input(2);
          const std::string bq_name = unique(bbase + "_quantized"),
                            bs_name = unique(bbase + "_scale"),
                            bz_name = unique(bbase + "_zero_point"),
                            bdq = unique(bbase + "_dequantized");
          new_inits.push_back(make_tensor(bq_name, onnx::TensorProto::INT32, {n_out}, bq));
          new_inits.push_back(make_tensor(bs_name, onnx::TensorProto::FLOAT, pdims, b_scale));
          new_inits.push_back(make_tensor(bz_name, onnx::TensorProto::INT32, pdims,
                                          std::vector<int32_t>(channels, 0)));
          nodes.push_back(dq_node(bq_name, bs_name, bz_name, bdq, options.per_tensor ? -1 : 0));
          node.set_input(2, bdq);
        }
      }
    }
    // Outputs to quantize: the producer's output is renamed, Q -> DQ gives back the name.
    std::vector<onnx::NodeProto> after;
    for (auto& out : *node.mutable_output()) {
      auto a = act.find(out);
      if (out.empty() || a == act.end() || graph_inputs.count(out)) continue;
      const std::string name = out;
      const std::string fl = unique(name + "_float"), q = unique(name + "_quantized");
      out = fl;
      after.push_back(q_node(fl, a->second, q));
      after.push_back(dq_node(q, a->second.scale_name, a->second.zp_name, name, -1));
    }
    nodes.push_back(std::move(node));
    for (auto& n : after) nodes.push_back(std::move(n));
  }

  g.clear_node();
  for (auto& n : nodes) *g.add_node() = std::move(n);
  // Drop the Constant nodes (Clip bounds) and float initializers nothing reads any more.
  std::set<std::string> uses;
  collect_uses(g, uses);
  {
    std::vector<onnx::NodeProto> kept;
    for (auto& n : *g.mutable_node())
      if (!(n.op_type() == "Constant" && n.output_size() == 1 && !uses.count(n.output(0))))
        kept.push_back(std::move(n));
    g.clear_node();
    for (auto& n : kept) *g.add_node() = std::move(n);
  }
  std::vector<onnx::TensorProto> keep;
  std::set<std::string> dropped;
  for (auto& t : *g.mutable_initializer()) {
    if (uses.count(t.name()))
      keep.push_back(std::move(t));
    else
      dropped.insert(t.name());
  }
  g.clear_initializer();
  for (auto& t : keep) *g.add_initializer() = std::move(t);
  for (auto& t : new_inits) *g.add_initializer() = std::move(t);
  // Models of IR < 4 list initializers as inputs too.
  if (!dropped.empty()) {
    std::vector<onnx::ValueInfoProto> in;
    for (const auto& i : g.input())
      if (!dropped.count(i.name())) in.push_back(i);
    g.clear_input();
    for (auto& i : in) *g.add_input() = std::move(i);
  }
}

std::vector<std::pair<std::string, float>> output_steps(const onnx::ModelProto& model,
                                                        const std::string& base_dir) {
  const auto& g = model.graph();
  const auto inits = initializers(g);
  std::vector<std::pair<std::string, float>> steps;
  for (const auto& o : g.output())
    for (const auto& n : g.node())
      if (n.op_type() == "DequantizeLinear" && n.output(0) == o.name() && n.input_size() > 1) {
        auto s = inits.find(n.input(1));
        if (s != inits.end()) {
          Tensor t = tensor_from_proto(*s->second, base_dir);
          if (t.numel() == 1)
            steps.emplace_back(o.name(), static_cast<float>(t.value_as_double(0)));
        }
      }
  return steps;
}

}  // namespace kiln::onnx_io
