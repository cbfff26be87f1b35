// Strict NNEF lowering: kiln ops that have an exact expression in standard NNEF operations,
// written as that expression.
//
// With `kiln convert --nnef-strict` (WriteOptions::strict) a lowering is tried before the op's
// usual serializer, so HardSwish becomes mul(x, clamp(add(div(x, 6.0), 0.5), 0.0, 1.0)) instead
// of kiln_core_unary, and an LSTM of known length becomes its unrolled time steps. Lowerings
// marked `always` are also used without --nnef-strict, for ops no serializer writes
// (InstanceNormalization, Expand, Pad in wrap mode...). A lowering returns false, before
// writing anything, when the node is outside what it expresses exactly (then the op is refused
// as before). docs/nnef.md lists the lowerings and every op refused with why.
#pragma once

#include <map>
#include <string>

#include "io/nnef/serializer.h"

namespace kiln::nnef {

struct Lowering {
  Serializer write;
  bool always = false;  // also without --nnef-strict (no other serializer writes the op)
};

// Lowerings by kiln op name.
const std::map<std::string, Lowering>& strict_lowerings();

namespace ser {
// A temporary named after node n's output and `suffix` ("<output>_<suffix>"), holding expr:
// the intermediate values of a lowering.
std::string node_temp(WriterContext& c, const Node& n, const std::string& suffix,
                      const std::string& expr);
// Registered by io/nnef/strict_recurrent.cpp: LSTM and GRU unrolled over their time steps.
void register_recurrent_lowerings(std::map<std::string, Lowering>& l);
// Registered by io/nnef/strict_resize.cpp: nearest and linear Resize by integer factors.
void register_resize_lowerings(std::map<std::string, Lowering>& l);
}  // namespace ser

}  // namespace kiln::nnef
