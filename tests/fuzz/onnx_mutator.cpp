// Structure-aware mutation of ONNX models for kiln_fuzz_onnx_struct (libprotobuf-mutator is
// not packaged in Debian 12): LLVMFuzzerCustomMutator parses the input as a ModelProto, changes
// one thing a byte mutation would rarely reach intact past the protobuf parser -- an attribute,
// a declared dim of an input / output / value_info, an initializer's dims, type or values, a
// node's inputs or op type, the opset -- and serializes it again. Inputs that do not parse get
// libFuzzer's own byte mutation. Values are drawn from the edges that break shape arithmetic:
// 0, 1, -1, 2^31, 2^62, 2^63 - 1, INT64_MIN, NaN, infinities.
#include <onnx/onnx_pb.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);

namespace {

using Rng = std::mt19937_64;

size_t pick(Rng& rng, size_t n) {
  return std::uniform_int_distribution<size_t>(0, n - 1)(rng);
}

int64_t interesting_int(Rng& rng) {
  static const int64_t kValues[] = {0,
                                    1,
                                    -1,
                                    2,
                                    3,
                                    -2,
                                    7,
                                    16,
                                    255,
                                    4096,
                                    16384,
                                    65536,
                                    int64_t{1} << 31,
                                    (int64_t{1} << 31) - 1,
                                    int64_t{1} << 32,
                                    int64_t{1} << 40,
                                    int64_t{1} << 62,
                                    std::numeric_limits<int64_t>::max(),
                                    std::numeric_limits<int64_t>::min(),
                                    std::numeric_limits<int64_t>::min() + 1};
  if (pick(rng, 4) == 0) return static_cast<int64_t>(pick(rng, 64)) - 8;
  return kValues[pick(rng, std::size(kValues))];
}

float interesting_float(Rng& rng) {
  static const float kValues[] = {0.0f,
                                  -0.0f,
                                  1.0f,
                                  -1.0f,
                                  0.5f,
                                  1e-38f,
                                  1e38f,
                                  -1e38f,
                                  std::numeric_limits<float>::infinity(),
                                  -std::numeric_limits<float>::infinity(),
                                  std::numeric_limits<float>::quiet_NaN(),
                                  std::numeric_limits<float>::denorm_min()};
  return kValues[pick(rng, std::size(kValues))];
}

void mutate_ints(google::protobuf::RepeatedField<int64_t>* ints, Rng& rng) {
  switch (pick(rng, 4)) {
    case 0:
      if (!ints->empty())
        ints->Set(static_cast<int>(pick(rng, ints->size())), interesting_int(rng));
      break;
    case 1:
      ints->Add(interesting_int(rng));
      break;
    case 2:
      if (!ints->empty()) ints->RemoveLast();
      break;
    default:
      for (int i = 0; i < ints->size(); i++)
        if (pick(rng, 2)) ints->Set(i, interesting_int(rng));
  }
}

void mutate_attribute(onnx::AttributeProto* a, Rng& rng) {
  switch (a->type()) {
    case onnx::AttributeProto::INT:
      a->set_i(interesting_int(rng));
      return;
    case onnx::AttributeProto::FLOAT:
      a->set_f(interesting_float(rng));
      return;
    case onnx::AttributeProto::INTS:
      mutate_ints(a->mutable_ints(), rng);
      return;
    case onnx::AttributeProto::FLOATS:
      if (a->floats_size() > 0)
        a->set_floats(static_cast<int>(pick(rng, a->floats_size())), interesting_float(rng));
      else
        a->add_floats(interesting_float(rng));
      return;
    case onnx::AttributeProto::STRING:
      a->set_s(pick(rng, 2) ? "" : a->s() + a->s());
      return;
    default:
      // Change the type: INT <-> INTS, so readers of the wrong kind are exercised.
      a->set_type(pick(rng, 2) ? onnx::AttributeProto::INT : onnx::AttributeProto::INTS);
      if (a->type() == onnx::AttributeProto::INT) a->set_i(interesting_int(rng));
  }
}

void mutate_shape(onnx::TypeProto* type, Rng& rng) {
  onnx::TypeProto_Tensor* t = nullptr;
  if (type->has_tensor_type()) t = type->mutable_tensor_type();
  if (!t) return;
  if (pick(rng, 8) == 0) {
    t->set_elem_type(static_cast<int32_t>(pick(rng, 17)));
    return;
  }
  onnx::TensorShapeProto* shape = t->mutable_shape();
  const size_t r = pick(rng, 6);
  if (r == 0 || shape->dim_size() == 0) {
    shape->add_dim()->set_dim_value(interesting_int(rng));
  } else if (r == 1) {
    shape->mutable_dim()->RemoveLast();
  } else if (r == 2) {
    shape->mutable_dim(static_cast<int>(pick(rng, shape->dim_size())))
        ->set_dim_param(pick(rng, 2) ? "S" : "N");
  } else {
    shape->mutable_dim(static_cast<int>(pick(rng, shape->dim_size())))
        ->set_dim_value(interesting_int(rng));
  }
}

void mutate_initializer(onnx::TensorProto* t, Rng& rng) {
  switch (pick(rng, 5)) {
    case 0:
      mutate_ints(t->mutable_dims(), rng);
      return;
    case 1:
      t->set_data_type(static_cast<int32_t>(1 + pick(rng, 16)));
      return;
    case 2:
      if (t->int64_data_size() > 0) {
        t->set_int64_data(static_cast<int>(pick(rng, t->int64_data_size())), interesting_int(rng));
        return;
      }
      [[fallthrough]];
    case 3:
      if (t->has_raw_data() && !t->raw_data().empty()) {
        std::string* raw = t->mutable_raw_data();
        if (t->data_type() == onnx::TensorProto::INT64 && raw->size() >= 8) {
          int64_t v = interesting_int(rng);
          std::memcpy(&(*raw)[8 * pick(rng, raw->size() / 8)], &v, 8);
        } else if (t->data_type() == onnx::TensorProto::FLOAT && raw->size() >= 4) {
          float v = interesting_float(rng);
          std::memcpy(&(*raw)[4 * pick(rng, raw->size() / 4)], &v, 4);
        } else {
          (*raw)[pick(rng, raw->size())] ^= static_cast<char>(1 + pick(rng, 255));
        }
        return;
      }
      if (t->float_data_size() > 0) {
        t->set_float_data(static_cast<int>(pick(rng, t->float_data_size())),
                          interesting_float(rng));
        return;
      }
      [[fallthrough]];
    default:
      if (t->has_raw_data() && pick(rng, 2))
        t->mutable_raw_data()->resize(pick(rng, t->raw_data().size() + 16));
      else
        mutate_ints(t->mutable_dims(), rng);
  }
}

// All graphs of the model (subgraphs of If / Loop / Scan included).
void collect_graphs(onnx::GraphProto* g, std::vector<onnx::GraphProto*>& out) {
  out.push_back(g);
  for (auto& n : *g->mutable_node())
    for (auto& a : *n.mutable_attribute()) {
      if (a.has_g()) collect_graphs(a.mutable_g(), out);
      for (auto& sub : *a.mutable_graphs()) collect_graphs(&sub, out);
    }
}

bool mutate_model(onnx::ModelProto& m, Rng& rng) {
  std::vector<onnx::GraphProto*> graphs;
  collect_graphs(m.mutable_graph(), graphs);
  onnx::GraphProto* g = graphs[pick(rng, graphs.size())];
  switch (pick(rng, 8)) {
    case 0:
    case 1: {  // an attribute
      if (g->node_size() == 0) return false;
      auto* n = g->mutable_node(static_cast<int>(pick(rng, g->node_size())));
      if (n->attribute_size() == 0 || pick(rng, 8) == 0) {
        static const char* kNames[] = {
            "axis",         "axes",    "keepdims", "group",     "perm",      "to",
            "kernel_shape", "pads",    "strides",  "dilations", "allowzero", "mode",
            "alpha",        "epsilon", "k",        "largest"};
        auto* a = n->add_attribute();
        a->set_name(kNames[pick(rng, std::size(kNames))]);
        a->set_type(pick(rng, 2) ? onnx::AttributeProto::INT : onnx::AttributeProto::INTS);
      }
      mutate_attribute(n->mutable_attribute(static_cast<int>(pick(rng, n->attribute_size()))), rng);
      return true;
    }
    case 2:
    case 3: {  // a declared type: input, output or value_info
      std::vector<onnx::ValueInfoProto*> values;
      for (auto& v : *g->mutable_input()) values.push_back(&v);
      for (auto& v : *g->mutable_output()) values.push_back(&v);
      for (auto& v : *g->mutable_value_info()) values.push_back(&v);
      if (values.empty()) return false;
      mutate_shape(values[pick(rng, values.size())]->mutable_type(), rng);
      return true;
    }
    case 4: {  // an initializer
      if (g->initializer_size() == 0) return false;
      mutate_initializer(g->mutable_initializer(static_cast<int>(pick(rng, g->initializer_size()))),
                         rng);
      return true;
    }
    case 5: {  // a node's inputs: another name of the graph, or one fewer
      if (g->node_size() == 0) return false;
      auto* n = g->mutable_node(static_cast<int>(pick(rng, g->node_size())));
      std::vector<std::string> names;
      for (const auto& v : g->input()) names.push_back(v.name());
      for (const auto& t : g->initializer()) names.push_back(t.name());
      for (const auto& other : g->node())
        for (const auto& o : other.output()) names.push_back(o);
      if (n->input_size() > 0 && pick(rng, 3) == 0) {
        n->mutable_input()->RemoveLast();
      } else if (!names.empty()) {
        const std::string& name = names[pick(rng, names.size())];
        if (n->input_size() == 0 || pick(rng, 4) == 0)
          n->add_input(name);
        else
          n->set_input(static_cast<int>(pick(rng, n->input_size())), name);
      }
      return true;
    }
    case 6: {  // a node's op type: another one of the model
      if (g->node_size() < 2) return false;
      auto* n = g->mutable_node(static_cast<int>(pick(rng, g->node_size())));
      n->set_op_type(g->node(static_cast<int>(pick(rng, g->node_size()))).op_type());
      return true;
    }
    default: {  // the opset
      if (m.opset_import_size() == 0) return false;
      static const int64_t kOpsets[] = {1, 6, 7, 9, 11, 13, 17, 18, 21, 25};
      m.mutable_opset_import(0)->set_version(kOpsets[pick(rng, std::size(kOpsets))]);
      return true;
    }
  }
}

}  // namespace

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size,
                                          unsigned int seed) {
  Rng rng(seed);
  onnx::ModelProto model;
  // One in eight mutations stays a byte mutation, so the parser's own edges are fuzzed too.
  if (pick(rng, 8) != 0 && model.ParseFromArray(data, static_cast<int>(size)) &&
      model.has_graph()) {
    bool changed = false;
    const size_t rounds = 1 + pick(rng, 3);
    for (size_t i = 0; i < rounds; i++) changed = mutate_model(model, rng) || changed;
    if (changed) {
      std::string out;
      if (model.SerializeToString(&out) && out.size() <= max_size) {
        std::memcpy(data, out.data(), out.size());
        return out.size();
      }
    }
  }
  return LLVMFuzzerMutate(data, size, max_size);
}
