// Input facts given as text (the CLI's `-i`, the API's set_input_fact): by position
// ("1,3,224,224,f32") or by name ("name:1,S,40,f32"); a value makes the input a constant
// ("sr:i64=16000").
#pragma once

#include <string>
#include <vector>

#include "core/graph.h"

namespace kiln::io {

// Sets the fact of one model input per spec, in order: specs without a name take the next
// input by position. Throws naming the spec (as "-i SPEC: ...") on an unknown input name, too
// many positional specs or a fact that does not parse.
void apply_input_facts(Graph& graph, const std::vector<std::string>& specs);
// One spec; `positional` counts the specs without a name so far (the next one's input index).
// Returns the index of the input it set.
size_t apply_input_fact(Graph& graph, const std::string& spec, size_t& positional);

}  // namespace kiln::io
