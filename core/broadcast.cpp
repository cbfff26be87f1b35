#include "core/broadcast.h"

#include <algorithm>

#include "base/error.h"

namespace kiln {

std::vector<Dim> broadcast_dims(const std::vector<std::vector<Dim>>& shapes) {
  size_t rank = 0;
  for (const auto& s : shapes) rank = std::max(rank, s.size());
  std::vector<Dim> out(rank, Dim(1));
  for (const auto& s : shapes) {
    size_t offset = rank - s.size();
    for (size_t i = 0; i < s.size(); i++) {
      Dim& o = out[offset + i];
      const Dim& d = s[i];
      if (d == Dim(1) || d == o) continue;
      if (o == Dim(1)) {
        o = d;
        continue;
      }
      // Two different dims, neither 1: a concrete mismatch is an error; with symbols, trust
      // the concrete one (a symbol must then equal it or be 1 at run time).
      if (o.is_int() && d.is_int())
        fail("shapes cannot broadcast: dims {} and {} on axis {}", o.to_string(), d.to_string(),
             offset + i);
      if (!o.is_int() && d.is_int()) o = d;
    }
  }
  return out;
}

Shape broadcast_shapes(const std::vector<Shape>& shapes) {
  size_t rank = 0;
  for (const auto& s : shapes) rank = std::max(rank, s.size());
  Shape out(rank, 1);
  for (const auto& s : shapes) {
    size_t offset = rank - s.size();
    for (size_t i = 0; i < s.size(); i++) {
      int64_t& o = out[offset + i];
      int64_t d = s[i];
      if (d == 1 || d == o) continue;
      if (o == 1) {
        o = d;
        continue;
      }
      std::string all;
      for (const auto& sh : shapes) all += " [" + shape_to_string(sh) + "]";
      fail("shapes cannot broadcast:{}", all);
    }
  }
  return out;
}

void broadcast_shapes_into(const Shape& a, const Shape& b, Shape& out) {
  size_t rank = std::max(a.size(), b.size());
  out.assign(rank, 1);
  for (const Shape* s : {&a, &b}) {
    size_t offset = rank - s->size();
    for (size_t i = 0; i < s->size(); i++) {
      int64_t& o = out[offset + i];
      int64_t d = (*s)[i];
      if (d == 1 || d == o) continue;
      if (o == 1) {
        o = d;
        continue;
      }
      fail("shapes cannot broadcast: [{}] [{}]", shape_to_string(a), shape_to_string(b));
    }
  }
}

void broadcast_strides_into(const Shape& shape, const Shape& out_shape, int64_t* strides) {
  KILN_ENSURE(shape.size() <= out_shape.size(), "cannot broadcast rank {} to rank {}", shape.size(),
              out_shape.size());
  size_t offset = out_shape.size() - shape.size();
  for (size_t i = 0; i < offset; i++) strides[i] = 0;
  // Unsigned: the strides of an empty tensor declaring huge dims may wrap (they address nothing);
  // a non-empty tensor's are at most its element count.
  uint64_t stride = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    strides[offset + i] = shape[i] == 1 ? 0 : static_cast<int64_t>(stride);
    stride *= static_cast<uint64_t>(shape[i]);
  }
}

std::vector<int64_t> broadcast_strides(const Shape& shape, const Shape& out_shape) {
  KILN_ENSURE(shape.size() <= out_shape.size(), "cannot broadcast rank {} to rank {}", shape.size(),
              out_shape.size());
  std::vector<int64_t> strides(out_shape.size(), 0);
  auto own = contiguous_strides(shape);
  size_t offset = out_shape.size() - shape.size();
  for (size_t i = 0; i < shape.size(); i++) strides[offset + i] = shape[i] == 1 ? 0 : own[i];
  return strides;
}

}  // namespace kiln
