#include "io/input_facts.h"

#include "base/error.h"

namespace kiln::io {

void apply_input_facts(Graph& graph, const std::vector<std::string>& specs) {
  size_t positional = 0;
  for (const auto& spec : specs) apply_input_fact(graph, spec, positional);
}

size_t apply_input_fact(Graph& graph, const std::string& text, size_t& positional) {
  size_t colon = text.find(':');
  size_t index;
  std::string fact_text = text;
  if (colon != std::string::npos) {
    std::string name = text.substr(0, colon);
    fact_text = text.substr(colon + 1);
    index = graph.inputs().size();
    for (size_t i = 0; i < graph.inputs().size(); i++)
      if (graph.input_name(i) == name) index = i;
    if (index == graph.inputs().size()) {
      std::string names;
      for (size_t i = 0; i < graph.inputs().size(); i++) names += " " + graph.input_name(i);
      fail("-i {}: the model has no input named '{}' (inputs:{})", text, name, names);
    }
  } else {
    index = positional++;
    KILN_ENSURE(index < graph.inputs().size(), "-i {}: the model has only {} inputs", text,
                graph.inputs().size());
  }
  Fact fact;
  try {
    fact = Fact::parse(fact_text);
  } catch (Error& e) {
    e.with_context("-i " + text);
    throw;
  }
  graph.set_input_fact(index, std::move(fact));
  return index;
}

}  // namespace kiln::io
