#include "ops/nn/pool_geometry.h"

#include <algorithm>

#include "base/error.h"
#include "core/run_limits.h"

namespace kiln::ops {

AutoPad parse_auto_pad(const std::string& text) {
  if (text.empty() || text == "NOTSET") return AutoPad::NotSet;
  if (text == "SAME_UPPER") return AutoPad::SameUpper;
  if (text == "SAME_LOWER") return AutoPad::SameLower;
  if (text == "VALID") return AutoPad::Valid;
  fail("unknown auto_pad value '{}'", text);
}

std::string auto_pad_name(AutoPad pad) {
  switch (pad) {
    case AutoPad::NotSet:
      return "NOTSET";
    case AutoPad::SameUpper:
      return "SAME_UPPER";
    case AutoPad::SameLower:
      return "SAME_LOWER";
    case AutoPad::Valid:
      return "VALID";
  }
  return "NOTSET";
}

WindowGeometry WindowGeometry::complete(size_t rank, const std::string& op,
                                        const std::vector<int64_t>& kernel_dims) const {
  WindowGeometry g = *this;
  if (g.kernel.empty()) g.kernel = kernel_dims;
  KILN_ENSURE(g.kernel.size() == rank, "{}: kernel_shape has {} dims, expected {}", op,
              g.kernel.size(), rank);
  if (!kernel_dims.empty()) {
    KILN_ENSURE(g.kernel == kernel_dims, "{}: kernel_shape [{}] does not match weights [{}]", op,
                ints_to_string(g.kernel), ints_to_string(kernel_dims));
  }
  if (g.strides.empty()) g.strides.assign(rank, 1);
  if (g.dilations.empty()) g.dilations.assign(rank, 1);
  if (g.pads.empty()) g.pads.assign(2 * rank, 0);
  KILN_ENSURE(g.strides.size() == rank, "{}: strides has {} values, expected {}", op,
              g.strides.size(), rank);
  KILN_ENSURE(g.dilations.size() == rank, "{}: dilations has {} values, expected {}", op,
              g.dilations.size(), rank);
  KILN_ENSURE(g.pads.size() == 2 * rank, "{}: pads has {} values, expected {}", op, g.pads.size(),
              2 * rank);
  for (size_t i = 0; i < rank; i++) {
    KILN_ENSURE(g.kernel[i] >= 1 && g.kernel[i] <= kMaxWindowAttribute,
                "{}: kernel dim {} must be in [1, 2^31]", op, g.kernel[i]);
    KILN_ENSURE(g.strides[i] >= 1 && g.strides[i] <= kMaxWindowAttribute,
                "{}: stride {} must be in [1, 2^31]", op, g.strides[i]);
    KILN_ENSURE(g.dilations[i] >= 1 && g.dilations[i] <= kMaxWindowAttribute,
                "{}: dilation {} must be in [1, 2^31]", op, g.dilations[i]);
  }
  for (int64_t p : g.pads)
    KILN_ENSURE(p >= 0 && p <= kMaxWindowAttribute, "{}: pad {} must be in [0, 2^31]", op, p);
  return g;
}

std::vector<Dim> WindowGeometry::output_dims(const std::vector<Dim>& input,
                                             const std::string& op) const {
  size_t rank = kernel.size();
  KILN_ENSURE(input.size() == rank, "{}: input has {} spatial dims, kernel has {}", op,
              input.size(), rank);
  // With concrete sizes, the concrete path also applies the ceil_mode correction.
  bool concrete = std::all_of(input.begin(), input.end(), [](const Dim& d) { return d.is_int(); });
  if (concrete) {
    Shape in;
    for (const Dim& d : input) in.push_back(d.to_int());
    Resolved r = resolve(in, op);
    return {r.output.begin(), r.output.end()};
  }
  std::vector<Dim> out;
  for (size_t i = 0; i < rank; i++) {
    int64_t ek = effective_kernel(i), s = strides[i];
    switch (auto_pad) {
      case AutoPad::Valid:
        out.push_back((input[i] - Dim(ek)).div(s) + Dim(1));
        break;
      case AutoPad::SameUpper:
      case AutoPad::SameLower:
        out.push_back(input[i].div_ceil(s));
        break;
      case AutoPad::NotSet: {
        Dim span = input[i] + Dim(pads[i] + pads[i + rank] - ek);
        out.push_back((ceil_mode ? span.div_ceil(s) : span.div(s)) + Dim(1));
        break;
      }
    }
  }
  return out;
}

WindowGeometry::Resolved WindowGeometry::resolve(const Shape& input, const std::string& op) const {
  Resolved r;
  resolve_into(input, op, r.output, r.pad_begin);
  return r;
}

void WindowGeometry::resolve_into(const Shape& input, const std::string& op, Shape& output,
                                  Shape& pad_begin) const {
  size_t rank = kernel.size();
  KILN_ENSURE(input.size() == rank, "{}: input has {} spatial dims, kernel has {}", op,
              input.size(), rank);
  output.clear();
  pad_begin.clear();
  for (size_t i = 0; i < rank; i++) {
    int64_t in = input[i], ek = effective_kernel(i), s = strides[i];
    // With window attributes <= 2^31 (effective kernels < 2^62), inputs <= 2^62 keep every sum
    // below in int64 (a declared dim of 2^63-1 plus a pad overflowed).
    KILN_ENSURE(in >= 0 && in <= (int64_t{1} << 62), "{}: input size {} is too large", op, in);
    int64_t out = 0, pb = 0;
    switch (auto_pad) {
      case AutoPad::Valid:
        KILN_ENSURE(in >= ek, "{}: input size {} smaller than the kernel extent {}", op, in, ek);
        out = (in - ek) / s + 1;
        break;
      case AutoPad::SameUpper:
      case AutoPad::SameLower: {
        out = (in + s - 1) / s;
        int64_t total = std::max<int64_t>((out - 1) * s + ek - in, 0);
        pb = auto_pad == AutoPad::SameUpper ? total / 2 : total - total / 2;
        break;
      }
      case AutoPad::NotSet: {
        pb = pads[i];
        int64_t span = in + pads[i] + pads[i + rank] - ek;
        KILN_ENSURE(span >= 0, "{}: padded input size {} smaller than the kernel extent {}", op,
                    in + pads[i] + pads[i + rank], ek);
        out = (ceil_mode ? (span + s - 1) / s : span / s) + 1;
        // A window may not start in the end padding (it would only see padding).
        if (ceil_mode && (out - 1) * s >= in + pb) out--;
        break;
      }
    }
    output.push_back(out);
    pad_begin.push_back(pb);
  }
}

void WindowGeometry::append_attributes(Attributes& attrs) const {
  if (!kernel.empty()) attrs.emplace_back("kernel_shape", ints_to_string(kernel));
  if (!strides.empty()) attrs.emplace_back("strides", ints_to_string(strides));
  if (!dilations.empty()) attrs.emplace_back("dilations", ints_to_string(dilations));
  if (auto_pad != AutoPad::NotSet) {
    attrs.emplace_back("auto_pad", auto_pad_name(auto_pad));
  } else if (!pads.empty()) {
    attrs.emplace_back("pads", ints_to_string(pads));
  }
  if (ceil_mode) attrs.emplace_back("ceil_mode", "1");
}

Window3 make_window3(const WindowGeometry& geo, const Shape& input, const Shape& output,
                     const Shape& pad_begin, const std::string& op) {
  size_t rank = input.size();
  KILN_ENSURE(rank >= 1 && rank <= 3, "{}: {} spatial dims unsupported (1 to 3)", op, rank);
  Window3 w;
  size_t off = 3 - rank;
  for (size_t i = 0; i < rank; i++) {
    w.in[off + i] = input[i];
    w.out[off + i] = output[i];
    w.kernel[off + i] = geo.kernel[i];
    w.stride[off + i] = geo.strides[i];
    w.dilation[off + i] = geo.dilations[i];
    w.pad[off + i] = pad_begin[i];
    // Only used by count_include_pad: explicit pads, or the SAME padding actually applied.
    int64_t total_end =
        (output[i] - 1) * geo.strides[i] + geo.effective_kernel(i) - input[i] - pad_begin[i];
    w.pad_end[off + i] =
        geo.auto_pad == AutoPad::NotSet ? geo.pads[i + rank] : std::max<int64_t>(total_end, 0);
  }
  // Kernels are planned from declared shapes before any tensor exists: planes no tensor could
  // hold (a hostile model's dims) are refused here, so every size a plan derives stays far from
  // int64 overflow.
  constexpr int64_t kMaxPlane = int64_t{1} << 40;
  for (const int64_t* d : {w.in, w.out, w.kernel}) {
    int64_t n = 1;
    for (int a = 0; a < 3; a++) {
      KILN_ENSURE(d[a] >= 0 && (d[a] == 0 || n <= kMaxPlane / d[a]),
                  "{}: a plane of {}x{}x{} is too large", op, d[0], d[1], d[2]);
      n *= d[a];
    }
  }
  return w;
}

kernels::ConvGeometry conv_geometry(const Window3& w3) {
  kernels::ConvGeometry geo;
  for (int a = 0; a < 3; a++) {
    geo.in[a] = w3.in[a];
    geo.out[a] = w3.out[a];
    geo.kernel[a] = w3.kernel[a];
    geo.stride[a] = w3.stride[a];
    geo.dilation[a] = w3.dilation[a];
    geo.pad[a] = w3.pad[a];
  }
  return geo;
}

CompletedPoolGeometry::CompletedPoolGeometry(const WindowGeometry& geo, std::string op)
    : geo_(geo), op_(std::move(op)) {
  for (size_t rank : {1, 2}) {
    try {
      done_[rank - 1] = geo_.complete(rank, op_);
    } catch (const Error&) {
      // Not valid for this rank: get() completes it again and reports the error.
    }
  }
}

const WindowGeometry& CompletedPoolGeometry::get(size_t spatial, WindowGeometry& scratch) const {
  if (spatial >= 1 && spatial <= 2 && done_[spatial - 1]) return *done_[spatial - 1];
  scratch = geo_.complete(spatial, op_);
  return scratch;
}

Window3 resolve_pool_window(EvalContext& ctx, const Tensor& x, const WindowGeometry& geo,
                            const std::string& op, Shape& out_shape) {
  Shape& in_spatial = ctx.temp_shape(0);
  in_spatial.assign(x.shape().begin() + 2, x.shape().end());
  Shape& out_spatial = ctx.temp_shape(1);
  Shape& pad_begin = ctx.temp_shape(2);
  geo.resolve_into(in_spatial, op, out_spatial, pad_begin);
  Window3 w = make_window3(geo, in_spatial, out_spatial, pad_begin, op);
  out_shape.assign({x.dim(0), x.dim(1)});
  out_shape.insert(out_shape.end(), out_spatial.begin(), out_spatial.end());
  return w;
}

kernels::MaxPool2dGeometry pool_2d_geometry(const Window3& w) {
  kernels::MaxPool2dGeometry k;
  k.in_h = w.in[1];
  k.in_w = w.in[2];
  k.out_h = w.out[1];
  k.out_w = w.out[2];
  k.kernel_h = w.kernel[1];
  k.kernel_w = w.kernel[2];
  k.stride_h = w.stride[1];
  k.stride_w = w.stride[2];
  k.pad_h = w.pad[1];
  k.pad_w = w.pad[2];
  k.pad_end_h = w.pad_end[1];
  k.pad_end_w = w.pad_end[2];
  return k;
}

}  // namespace kiln::ops
