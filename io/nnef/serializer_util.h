// Helpers shared by the NNEF op serializers (io/nnef/*_serializers.cpp).
#pragma once

#include <cstdlib>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/error.h"
#include "io/nnef/serializer.h"
#include "ops/nn/pool_geometry.h"

namespace kiln::nnef::ser {

using Ctx = WriterContext;

template <typename T>
const T& op_as(const Node& n) {
  return static_cast<const T&>(*n.op);
}

// An op's parameters, read back from its printed attributes (Op::attributes(): ONNX names,
// integer lists as "[1,2]" or "1,2", numbers in shortest round-trip form).
class OpAttrs {
 public:
  explicit OpAttrs(const Node& n) : op_(n.op->name()) {
    for (const auto& [k, v] : n.op->attributes()) m_[k] = v;
  }
  bool has(const std::string& k) const { return m_.count(k) > 0; }
  std::string str(const std::string& k, const std::string& dflt = "") const {
    auto it = m_.find(k);
    return it == m_.end() ? dflt : it->second;
  }
  int64_t integer(const std::string& k, int64_t dflt) const {
    return has(k) ? parse_int(str(k)) : dflt;
  }
  double real(const std::string& k, double dflt) const {
    if (!has(k)) return dflt;
    std::string v = str(k);
    char* end = nullptr;
    double d = std::strtod(v.c_str(), &end);
    KILN_ENSURE(end && *end == '\0', "{}: cannot read attribute {}='{}'", op_, k, v);
    return d;
  }
  std::optional<std::vector<int64_t>> ints(const std::string& k) const {
    if (!has(k)) return std::nullopt;
    std::string v = str(k);
    std::vector<int64_t> out;
    std::string cur;
    for (char ch : v + ",") {
      if (ch == '[' || ch == ']' || ch == ' ') continue;
      if (ch == ',') {
        if (!cur.empty()) out.push_back(parse_int(cur));
        cur.clear();
      } else {
        cur += ch;
      }
    }
    return out;
  }

 private:
  int64_t parse_int(const std::string& v) const {
    char* end = nullptr;
    long long x = std::strtoll(v.c_str(), &end, 10);
    KILN_ENSURE(!v.empty() && end && *end == '\0', "{}: cannot read integer '{}'", op_, v);
    return x;
  }
  std::string op_;
  std::map<std::string, std::string> m_;
};

inline ops::WindowGeometry geometry_of(const OpAttrs& a) {
  ops::WindowGeometry g;
  g.kernel = a.ints("kernel_shape").value_or(std::vector<int64_t>{});
  g.strides = a.ints("strides").value_or(std::vector<int64_t>{});
  g.dilations = a.ints("dilations").value_or(std::vector<int64_t>{});
  g.pads = a.ints("pads").value_or(std::vector<int64_t>{});
  g.auto_pad = ops::parse_auto_pad(a.str("auto_pad", "NOTSET"));
  g.ceil_mode = a.integer("ceil_mode", 0) != 0;
  return g;
}

inline Outlet in(const Node& n, size_t i) {
  return n.inputs.at(i);
}
inline bool has_input(const Node& n, size_t i) {
  return i < n.inputs.size() && n.inputs[i].present();
}
inline size_t out_rank(const Node& n) {
  return n.outputs.at(0).rank();
}

inline std::string pairs(const std::vector<int64_t>& begins, const std::vector<int64_t>& ends) {
  std::string out = "[";
  for (size_t i = 0; i < begins.size(); i++)
    out += fmt::format("{}({}, {})", i ? ", " : "", begins[i], ends[i]);
  return out + "]";
}

inline std::vector<int64_t> normalized_axes(const std::vector<int64_t>& axes, size_t rank,
                                            const std::string& op) {
  std::vector<int64_t> out;
  for (int64_t a : axes) out.push_back(int64_t(normalize_axis(a, rank, op)));
  return out;
}

// A [C] parameter as the [1, C] tensor NNEF ops take.
inline std::string channel_param(Ctx& c, Outlet o) {
  const Fact& f = c.fact(o);
  if (f.rank() == 1) return c.tensor_of_rank(o, 2);
  return c.tensor(o);
}

// Each family registers its serializers by kiln op name.
void register_elementwise_serializers(std::map<std::string, Serializer>& s);
void register_nn_serializers(std::map<std::string, Serializer>& s);
void register_shape_serializers(std::map<std::string, Serializer>& s);
void register_control_serializers(std::map<std::string, Serializer>& s);
void register_audio_serializers(std::map<std::string, Serializer>& s);
void register_recurrent_serializers(std::map<std::string, Serializer>& s);
void register_pulse_serializers(std::map<std::string, Serializer>& s);
void register_quant_serializers(std::map<std::string, Serializer>& s);
// Gemm whose B is DequantizeLinear of integers, as kiln_core_gemm (false: not such a Gemm).
bool write_quantized_gemm(Ctx& c, const Node& n);

}  // namespace kiln::nnef::ser
