// NNEF serializers of the shape ops: reshape, squeeze, transpose, concat, split, slice, pad...
#include <algorithm>

#include "io/nnef/serializer_util.h"
#include "ops/shape/slice.h"

namespace kiln::nnef::ser {

namespace {

// Reshape, Flatten, Squeeze/Unsqueeze without axes: the output shape says it all.
bool write_reshape(Ctx& c, const Node& n) {
  // A target computed at run time (not from shapes known here) has no NNEF attribute form.
  if (n.op->name() == "Reshape" && !c.fact(in(n, 1)).value && !c.fact(in(n, 1)).dims_value)
    return false;
  c.assign(n, 0,
           fmt::format("reshape({}, shape = {})", c.tensor(in(n, 0)), c.dims(n.outputs[0].shape)));
  return true;
}

bool write_squeeze(Ctx& c, const Node& n) {
  bool squeeze = n.op->name() == "Squeeze";
  std::optional<std::vector<int64_t>> axes = OpAttrs(n).ints("axes");
  if (!axes && has_input(n, 1)) axes = c.const_ints(n, 1);
  if (!axes) return write_reshape(c, n);
  size_t rank = squeeze ? c.fact(in(n, 0)).rank() : out_rank(n);
  std::vector<int64_t> ax = normalized_axes(*axes, rank, n.op->name());
  std::sort(ax.begin(), ax.end());
  c.assign(n, 0,
           fmt::format("{}({}, axes = {})", squeeze ? "squeeze" : "unsqueeze", c.tensor(in(n, 0)),
                       nnef_ints(ax)));
  return true;
}

bool write_transpose(Ctx& c, const Node& n) {
  auto given = OpAttrs(n).ints("perm");
  size_t rank = c.fact(in(n, 0)).rank();
  std::vector<int64_t> perm;
  if (given) {
    perm = normalized_axes(*given, rank, "Transpose");
  } else {
    for (size_t i = rank; i-- > 0;) perm.push_back(int64_t(i));
  }
  c.assign(n, 0, fmt::format("transpose({}, axes = {})", c.tensor(in(n, 0)), nnef_ints(perm)));
  return true;
}

bool write_concat(Ctx& c, const Node& n) {
  int64_t axis = OpAttrs(n).integer("axis", 0);
  std::string values;
  for (size_t i = 0; i < n.inputs.size(); i++) values += (i ? ", " : "") + c.identifier(in(n, i));
  c.assign(
      n, 0,
      fmt::format("concat([{}], axis = {})", values, normalize_axis(axis, out_rank(n), "Concat")));
  return true;
}

bool write_split(Ctx& c, const Node& n) {
  size_t axis = normalize_axis(OpAttrs(n).integer("axis", 0), out_rank(n), "Split");
  std::vector<int64_t> sizes;
  for (const auto& f : n.outputs) {
    auto d = f.shape[axis].as_int();
    KILN_ENSURE(d.has_value(), "Split with symbolic part sizes cannot be written as NNEF");
    sizes.push_back(*d);
  }
  c.assign_all(n, fmt::format("split({}, axis = {}, ratios = {})", c.tensor(in(n, 0)), axis,
                              nnef_ints(sizes)));
  return true;
}

bool write_slice(Ctx& c, const Node& n) {
  if (OpAttrs(n).has("starts")) return false;  // the opset < 10 attribute form
  const Fact& x = c.fact(in(n, 0));
  std::vector<int64_t> starts = c.const_ints(n, 1), ends = c.const_ints(n, 2), axes, steps;
  if (has_input(n, 3)) {
    axes = c.const_ints(n, 3);
  } else {
    for (size_t i = 0; i < starts.size(); i++) axes.push_back(int64_t(i));
  }
  steps = has_input(n, 4) ? c.const_ints(n, 4) : std::vector<int64_t>(starts.size(), 1);
  axes = normalized_axes(axes, x.rank(), "Slice");
  std::vector<int64_t> begin, end;
  for (size_t i = 0; i < axes.size(); i++) {
    auto dim = x.shape[size_t(axes[i])].as_int();
    if (dim) {
      ops::SliceAxis s = ops::resolve_slice(*dim, starts[i], ends[i], steps[i]);
      begin.push_back(s.start);
      int64_t e = s.start + s.len * steps[i];
      end.push_back(e < 0 ? -(*dim) - 1 : e);
    } else {
      begin.push_back(starts[i]);
      end.push_back(ends[i]);
    }
  }
  c.assign(
      n, 0,
      fmt::format("slice({}, axes = {}, begin = {}, end = {}, stride = {})", c.tensor(in(n, 0)),
                  nnef_ints(axes), nnef_ints(begin), nnef_ints(end), nnef_ints(steps)));
  return true;
}

bool write_pad(Ctx& c, const Node& n) {
  OpAttrs attrs(n);
  std::string mode = attrs.str("mode", "constant");
  // The attribute form (opset < 11) does not print its value: refuse rather than guess.
  if (has_input(n, 3) || mode == "wrap" || attrs.has("pads")) return false;
  std::vector<int64_t> pads = c.const_ints(n, 1);
  double value = 0.0;
  if (has_input(n, 2)) {
    const Fact& f = c.fact(in(n, 2));
    KILN_ENSURE(f.value, "Pad value must be a constant for NNEF");
    value = f.value->value_as_double(0);
  }
  size_t rank = c.fact(in(n, 0)).rank();
  std::vector<int64_t> b(pads.begin(), pads.begin() + long(rank)),
      e(pads.begin() + long(rank), pads.end());
  std::string border = mode == "edge" ? "replicate" : mode;
  if (border != "constant" && border != "reflect" && border != "replicate") return false;
  c.assign(n, 0,
           fmt::format("pad({}, padding = {}, border = '{}', value = {})", c.tensor(in(n, 0)),
                       pairs(b, e), border, nnef_real(value)));
  return true;
}

bool write_gather(Ctx& c, const Node& n) {
  const Fact& x = c.fact(in(n, 0));
  size_t axis = normalize_axis(OpAttrs(n).integer("axis", 0), x.rank(), "Gather");
  const Fact& idx = c.fact(in(n, 1));
  auto dim = x.shape[axis].as_int();
  // A constant scalar index is a standard slice + squeeze.
  if (idx.value && idx.rank() == 0 && dim) {
    int64_t i = idx.value->value_as_i64(0);
    if (i < 0) i += *dim;
    std::string s =
        c.temp(c.planned_name({n.id, 0}) + "_slice",
               fmt::format("slice({}, axes = [{}], begin = [{}], end = [{}], stride = [1])",
                           c.tensor(in(n, 0)), axis, i, i + 1));
    // reshape rather than squeeze: the declutter stage makes squeezes reshapes, so writing the
    // NNEF read back gives the same text.
    c.assign(n, 0, fmt::format("reshape({}, shape = {})", s, c.dims(n.outputs[0].shape)));
    return true;
  }
  c.use_extension("kiln_registry kiln_core", "Gather");
  c.assign(n, 0,
           fmt::format("kiln_core_gather({}, {}, axis = {})", c.identifier(in(n, 0)),
                       c.identifier(in(n, 1)), axis));
  return true;
}

bool write_tile(Ctx& c, const Node& n) {
  c.assign(
      n, 0,
      fmt::format("tile({}, repeats = {})", c.tensor(in(n, 0)), nnef_ints(c.const_ints(n, 1))));
  return true;
}

bool write_gather_elements(Ctx& c, const Node& n) {
  size_t axis = normalize_axis(OpAttrs(n).integer("axis", 0), out_rank(n), "GatherElements");
  c.use_extension("kiln_registry kiln_core", "GatherElements");
  c.assign(n, 0,
           fmt::format("kiln_core_gather_elements({}, {}, axis = {})", c.identifier(in(n, 0)),
                       c.identifier(in(n, 1)), axis));
  return true;
}

// Shape (a dim only known at run time, e.g. the frame count an If's condition tests) as
// tract_core_shape_of, sliced when the op takes a range of the dims.
bool write_shape(Ctx& c, const Node& n) {
  size_t rank = c.fact(in(n, 0)).rank();
  const Fact& out = n.outputs[0];
  KILN_ENSURE(out.rank() == 1 && out.shape[0].is_int(), "Shape: output fact [{}] is not 1-D",
              dims_to_string(out.shape));
  int64_t count = out.shape[0].to_int();
  int64_t start = OpAttrs(n).integer("start", 0);
  if (start < 0) start += static_cast<int64_t>(rank);
  start = std::clamp<int64_t>(start, 0, static_cast<int64_t>(rank));
  c.use_extension("tract_registry tract_core", "Shape");
  std::string shape = fmt::format("tract_core_shape_of({})", c.identifier(in(n, 0)));
  if (start == 0 && count == static_cast<int64_t>(rank)) {
    c.assign(n, 0, shape);
    return true;
  }
  std::string full = c.temp(c.planned_name({n.id, 0}) + "_full", shape);
  c.assign(n, 0,
           fmt::format("slice({}, axes = [0], begin = [{}], end = [{}], stride = [1])", full, start,
                       start + count));
  return true;
}

}  // namespace

void register_shape_serializers(std::map<std::string, Serializer>& s) {
  s["Reshape"] = write_reshape;
  s["Flatten"] = write_reshape;
  s["Squeeze"] = write_squeeze;
  s["Unsqueeze"] = write_squeeze;
  s["Transpose"] = write_transpose;
  s["Concat"] = write_concat;
  s["Split"] = write_split;
  s["Slice"] = write_slice;
  s["Pad"] = write_pad;
  s["Gather"] = write_gather;
  s["Tile"] = write_tile;
  s["GatherElements"] = write_gather_elements;
  s["Shape"] = write_shape;
}

}  // namespace kiln::nnef::ser
