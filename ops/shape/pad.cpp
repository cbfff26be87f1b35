#include "ops/shape/pad.h"

#include <array>

#include "core/broadcast.h"
#include "kernels/copy/pad.h"
#include "kernels/copy/strided_copy.h"
#include "ops/shape/common.h"

namespace kiln::ops {

PadMode parse_pad_mode(const std::string& text) {
  if (text == "constant") return PadMode::Constant;
  if (text == "reflect") return PadMode::Reflect;
  if (text == "edge") return PadMode::Edge;
  if (text == "wrap") return PadMode::Wrap;
  fail("Pad: unknown mode '{}'", text);
}

namespace {

const char* mode_name(PadMode m) {
  switch (m) {
    case PadMode::Constant:
      return "constant";
    case PadMode::Reflect:
      return "reflect";
    case PadMode::Edge:
      return "edge";
    case PadMode::Wrap:
      return "wrap";
  }
  return "?";
}

// Source index for output position i (already shifted by the begin pad), or -1 for the constant.
int64_t source_index(int64_t i, int64_t n, PadMode mode) {
  if (i >= 0 && i < n) return i;
  switch (mode) {
    case PadMode::Constant:
      return -1;
    case PadMode::Edge:
      return i < 0 ? 0 : n - 1;
    case PadMode::Wrap:
      return ((i % n) + n) % n;
    case PadMode::Reflect: {
      if (n == 1) return 0;
      int64_t period = 2 * (n - 1);
      i = ((i % period) + period) % period;
      return i < n ? i : period - i;
    }
  }
  return -1;
}

}  // namespace

Attributes Pad::attributes() const {
  Attributes a{{"mode", mode_name(mode_)}};
  if (pads_) a.emplace_back("pads", ints_to_string(*pads_));
  return a;
}

std::vector<std::pair<int64_t, int64_t>> Pad::full_pads(
    const std::vector<int64_t>& pads, const std::optional<std::vector<int64_t>>& axes,
    size_t rank) const {
  std::vector<size_t> ax;
  if (axes) {
    for (int64_t a : *axes) ax.push_back(normalize_axis(a, rank, "Pad"));
  } else {
    for (size_t i = 0; i < rank; i++) ax.push_back(i);
  }
  KILN_ENSURE(pads.size() == 2 * ax.size(), "Pad: {} pads for {} axes", pads.size(), ax.size());
  // Sums of pads and dims stay far from int64 overflow whatever a hostile model says.
  for (int64_t p : pads)
    KILN_ENSURE(p >= -(int64_t{1} << 48) && p <= (int64_t{1} << 48),
                "Pad: pad {} is too large (more than 2^48 in size)", p);
  std::vector<std::pair<int64_t, int64_t>> out(rank, {0, 0});
  for (size_t i = 0; i < ax.size(); i++) out[ax[i]] = {pads[i], pads[i + ax.size()]};
  return out;
}

std::vector<Fact> Pad::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 1, 4);
  const Fact& data = required(inputs, 0, name());
  std::optional<std::vector<int64_t>> pads = pads_;
  if (!pads) {
    const Fact& p = required(inputs, 1, name());
    KILN_ENSURE(is_integer(p.dt) && p.rank() == 1, "Pad: pads must be a rank 1 integer tensor");
    pads = p.known_i64_values();
  }
  std::optional<std::vector<int64_t>> axes;
  bool axes_unknown = false;
  if (inputs.size() > 3 && inputs[3]) {
    axes = inputs[3]->known_i64_values();
    axes_unknown = !axes;
  }
  Fact out(data.dt, data.shape);
  if (!pads || axes_unknown) {
    for (auto& d : out.shape) d = Dim::fresh();
    return {out};
  }
  auto full = full_pads(*pads, axes, data.rank());
  for (size_t i = 0; i < data.rank(); i++) {
    out.shape[i] = data.shape[i] + Dim(full[i].first + full[i].second);
    if (auto v = out.shape[i].as_int()) KILN_ENSURE(*v >= 0, "Pad: negative output dim {}", *v);
  }
  return {out};
}

void Pad::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& data = required(inputs, 0, "Pad");
  const size_t rank = data.rank();
  // Pads, axes, strides and positions in reusable shapes and fixed arrays: no allocation per
  // run up to kSmallRank dims.
  const std::vector<int64_t>* pads = pads_ ? &*pads_ : nullptr;
  if (!pads) {
    const Tensor& p = required(inputs, 1, "Pad");
    KILN_ENSURE(is_integer(p.dtype()), "Pad: pads must be integers, got {}", name_of(p.dtype()));
    Shape& buffer = ctx.temp_shape(1);
    for (int64_t i = 0; i < p.numel(); i++) buffer.push_back(p.value_as_i64(i));
    pads = &buffer;
  }
  const Tensor* axes = inputs.size() > 3 ? inputs[3] : nullptr;
  const size_t n_axes = axes ? static_cast<size_t>(axes->numel()) : rank;
  KILN_ENSURE(pads->size() == 2 * n_axes, "Pad: {} pads for {} axes", pads->size(), n_axes);
  std::array<std::pair<int64_t, int64_t>, kSmallRank> full_small{};
  std::array<int64_t, kSmallRank> strides_small{}, pos_small{};
  std::vector<std::pair<int64_t, int64_t>> full_large;
  std::vector<int64_t> strides_large, pos_large;
  if (rank > kSmallRank) {
    full_large.assign(rank, {0, 0});
    strides_large.assign(rank, 0);
    pos_large.assign(rank, 0);
  }
  auto* full = rank > kSmallRank ? full_large.data() : full_small.data();
  int64_t* strides = rank > kSmallRank ? strides_large.data() : strides_small.data();
  int64_t* pos = rank > kSmallRank ? pos_large.data() : pos_small.data();
  for (size_t i = 0; i < n_axes; i++) {
    size_t a = axes ? normalize_axis(axes->value_as_i64(static_cast<int64_t>(i)), rank, "Pad") : i;
    full[a] = {(*pads)[i], (*pads)[i + n_axes]};
  }
  Shape& out_shape = ctx.temp_shape(0);
  for (size_t i = 0; i < rank; i++) {
    int64_t d = data.dim(i) + full[i].first + full[i].second;
    KILN_ENSURE(d >= 0, "Pad: negative output dim {} on axis {}", d, i);
    if (mode_ != PadMode::Constant && d > 0)
      KILN_ENSURE(data.dim(i) > 0, "Pad: {} mode cannot pad empty axis {}", mode_name(mode_), i);
    out_shape.push_back(d);
  }
  const Tensor* value_input = inputs.size() > 2 ? inputs[2] : nullptr;
  if (value_input && value_input->numel() == 0) value_input = nullptr;
  Tensor& out = ctx.output(0, data.dtype(), out_shape);
  // Nothing to write (and the input's strides, products of huge declared dims around an empty
  // one, need not fit).
  if (out.numel() == 0) return;
  int64_t stride = 1;
  for (size_t d = rank; d-- > 0;) {
    strides[d] = stride;
    stride *= data.dim(d);
  }
  const bool fast =
      mode_ == PadMode::Constant && !is_object(data.dtype()) && rank < kernels::kMaxCopyRank;
  dispatch_any(data.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    T fill{};
    if (value_input) {
      KILN_ENSURE(value_input->dtype() == data.dtype(), "Pad: constant value is {}, data is {}",
                  name_of(value_input->dtype()), name_of(data.dtype()));
      fill = value_input->data<T>()[0];
    } else if constexpr (std::is_same_v<T, f16> || std::is_same_v<T, bf16>) {
      fill = T(static_cast<float>(value_));
    } else if constexpr (!std::is_same_v<T, std::string>) {
      fill = static_cast<T>(value_);
    }
    const T* src = data.data<T>();
    T* dst = out.data<T>();
    if constexpr (std::is_trivially_copyable_v<T>) {
      if (fast) {
        // Rows of fill around a memcpy of each input row (kernels/copy/pad.h).
        int64_t begin[kernels::kMaxCopyRank];
        for (size_t d = 0; d < rank; d++) begin[d] = full[d].first;
        kernels::pad_constant(src, dst, sizeof(T), rank, data.shape().data(), out_shape.data(),
                              begin, &fill);
        return;
      }
    }
    if (out.numel() == 0) return;
    if (rank == 0) {
      dst[0] = src[0];
      return;
    }
    // Row by row along the last axis: its source index per output column is computed once
    // (-1: the constant), the other axes' once per row.
    const size_t last = rank - 1;
    const int64_t inner = out_shape[last];
    int64_t* cols = ctx.scratch<int64_t>(static_cast<size_t>(inner));
    for (int64_t j = 0; j < inner; j++)
      cols[j] = source_index(j - full[last].first, data.dim(last), mode_);
    const int64_t rows = out.numel() / inner;
    for (int64_t r = 0; r < rows; r++) {
      int64_t off = 0;
      bool inside = true;
      for (size_t d = 0; d < last && inside; d++) {
        int64_t s = source_index(pos[d] - full[d].first, data.dim(d), mode_);
        if (s < 0) inside = false;
        off += s * strides[d];
      }
      T* row = dst + r * inner;
      if (!inside) {
        for (int64_t j = 0; j < inner; j++) row[j] = fill;
      } else {
        const T* from = src + off;
        for (int64_t j = 0; j < inner; j++) row[j] = cols[j] < 0 ? fill : from[cols[j]];
      }
      for (size_t d = last; d-- > 0;) {
        if (++pos[d] < out_shape[d]) break;
        pos[d] = 0;
      }
    }
  });
}

}  // namespace kiln::ops
