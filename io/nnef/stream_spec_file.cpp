#include "io/nnef/stream_spec_file.h"

#include <nlohmann/json.hpp>

#include "base/error.h"

namespace kiln::nnef {

namespace {

using Json = nlohmann::ordered_json;

Json port_json(const StreamPort& p) {
  Json j;
  j["streaming"] = p.streaming;
  if (!p.streaming) return j;
  j["axis"] = p.axis;
  j["pulse"] = p.pulse;
  j["delay"] = p.delay;
  j["full"] = p.full.to_string();
  return j;
}

// Bounds for values read back: a hostile file must not ask for absurd buffers.
constexpr int64_t kMaxFrames = int64_t{1} << 24;
constexpr size_t kMaxRank = 16;

StreamPort port_from(const Json& j, const std::string& what) {
  KILN_ENSURE(j.is_object(), "{}: expected an object", what);
  StreamPort p;
  p.streaming = j.at("streaming").get<bool>();
  if (!p.streaming) return p;
  const int64_t axis = j.at("axis").get<int64_t>();
  KILN_ENSURE(axis >= 0 && static_cast<size_t>(axis) < kMaxRank, "{}: axis {} out of range", what,
              axis);
  p.axis = static_cast<size_t>(axis);
  p.pulse = j.at("pulse").get<int64_t>();
  p.delay = j.at("delay").get<int64_t>();
  KILN_ENSURE(p.pulse > 0 && p.pulse <= kMaxFrames, "{}: pulse {} out of range", what, p.pulse);
  KILN_ENSURE(p.delay >= 0 && p.delay <= kMaxFrames, "{}: delay {} out of range", what, p.delay);
  p.full = Dim::parse(j.at("full").get<std::string>());
  return p;
}

}  // namespace

std::string stream_spec_to_json(const StreamSpec& spec) {
  Json j;
  j["format"] = "kiln-stream";
  j["version"] = 1;
  j["symbol"] = spec.symbol;
  j["pulse"] = spec.pulse;
  j["length_input"] = spec.length_input;
  j["inputs"] = Json::array();
  for (const auto& p : spec.inputs) j["inputs"].push_back(port_json(p));
  j["outputs"] = Json::array();
  for (const auto& p : spec.outputs) j["outputs"].push_back(port_json(p));
  return j.dump(2) + "\n";
}

StreamSpec stream_spec_from_json(const std::string& text, size_t num_inputs, size_t num_outputs,
                                 const std::string& source) {
  const std::string where = source + "/" + kStreamSpecFile;
  try {
    const Json j = Json::parse(text);
    KILN_ENSURE(j.is_object() && j.value("format", "") == "kiln-stream",
                "not a kiln stream description");
    KILN_ENSURE(j.at("version").get<int>() == 1, "version {} (kiln reads version 1)",
                j.at("version").dump());
    StreamSpec spec;
    spec.symbol = j.at("symbol").get<std::string>();
    KILN_ENSURE(!spec.symbol.empty(), "empty stream symbol");
    spec.pulse = j.at("pulse").get<int64_t>();
    KILN_ENSURE(spec.pulse > 0 && spec.pulse <= kMaxFrames, "pulse {} out of range", spec.pulse);
    spec.length_input = j.at("length_input").get<int>();
    const Json& ins = j.at("inputs");
    const Json& outs = j.at("outputs");
    KILN_ENSURE(ins.is_array() && outs.is_array(), "inputs and outputs must be arrays");
    // The graph's inputs: the model's own, then the stream length when there is one.
    const size_t own_inputs = ins.size() + (spec.length_input >= 0 ? 1 : 0);
    KILN_ENSURE(own_inputs == num_inputs && outs.size() == num_outputs,
                "describes {} inputs{} and {} outputs, the graph has {} and {}", ins.size(),
                spec.length_input >= 0 ? " + the stream length" : "", outs.size(), num_inputs,
                num_outputs);
    KILN_ENSURE(spec.length_input < 0 || static_cast<size_t>(spec.length_input) == ins.size(),
                "length_input {} should be {} (after the model's inputs)", spec.length_input,
                ins.size());
    bool any = false;
    for (size_t i = 0; i < ins.size(); i++) {
      spec.inputs.push_back(port_from(ins[i], fmt::format("input {}", i)));
      any = any || spec.inputs.back().streaming;
    }
    KILN_ENSURE(any, "no streaming input");
    for (size_t i = 0; i < outs.size(); i++)
      spec.outputs.push_back(port_from(outs[i], fmt::format("output {}", i)));
    return spec;
  } catch (const nlohmann::json::exception& e) {
    fail("{}: {}", where, e.what());
  } catch (Error& e) {
    e.with_context(where);
    throw;
  }
}

std::optional<StreamSpec> stream_spec_of(const FileMap& files, size_t num_inputs,
                                         size_t num_outputs, const std::string& source) {
  auto it = files.find(kStreamSpecFile);
  if (it == files.end()) return std::nullopt;
  return stream_spec_from_json(it->second, num_inputs, num_outputs, source);
}

}  // namespace kiln::nnef
