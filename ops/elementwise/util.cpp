#include "ops/elementwise/util.h"

namespace kiln::ops {

std::vector<Dim> broadcast_facts(const std::vector<const Fact*>& facts) {
  std::vector<std::vector<Dim>> shapes;
  shapes.reserve(facts.size());
  for (const Fact* f : facts) shapes.push_back(f->shape);
  return broadcast_dims(shapes);
}

}  // namespace kiln::ops
