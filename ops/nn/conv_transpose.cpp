#include "ops/nn/conv_transpose.h"

#include <algorithm>

#include "base/error.h"
#include "core/run_limits.h"
#include "ops/nn/conv.h"
#include "ops/nn/conv_transpose_packed.h"
#include "ops/nn/nn_common.h"

namespace kiln::ops {

namespace {
int64_t floor_div2(int64_t v) {
  return v >= 0 ? v / 2 : -((-v + 1) / 2);
}
}  // namespace

Attributes ConvTranspose::attributes() const {
  Attributes attrs;
  geo_.append_attributes(attrs);
  if (group_ != 1) attrs.emplace_back("group", std::to_string(group_));
  if (!output_padding_.empty())
    attrs.emplace_back("output_padding", ints_to_string(output_padding_));
  if (!output_shape_.empty()) attrs.emplace_back("output_shape", ints_to_string(output_shape_));
  return attrs;
}

std::vector<ConvTranspose::Axis> ConvTranspose::axes(const WindowGeometry& g,
                                                     const std::vector<Dim>& input) const {
  size_t rank = input.size();
  std::vector<int64_t> out_pad = output_padding_;
  if (out_pad.empty()) out_pad.assign(rank, 0);
  KILN_ENSURE(out_pad.size() == rank, "ConvTranspose: output_padding has {} values, expected {}",
              out_pad.size(), rank);
  // The spec: each output_padding is below its axis' stride or dilation.
  for (size_t i = 0; i < rank; i++)
    KILN_ENSURE(out_pad[i] >= 0 && out_pad[i] < std::max(g.strides[i], g.dilations[i]),
                "ConvTranspose: output_padding {} on axis {} must be in [0, max(stride {}, "
                "dilation {}))",
                out_pad[i], i, g.strides[i], g.dilations[i]);
  std::vector<int64_t> out_shape = output_shape_;
  // Some exporters give the full output shape, batch and channels included.
  if (out_shape.size() == rank + 2) out_shape.erase(out_shape.begin(), out_shape.begin() + 2);
  KILN_ENSURE(out_shape.empty() || out_shape.size() == rank,
              "ConvTranspose: output_shape has {} values, expected {}", out_shape.size(), rank);
  for (int64_t d : out_shape)
    KILN_ENSURE(d >= 0 && d <= kMaxWindowAttribute,
                "ConvTranspose: output_shape {} must be in "
                "[0, 2^31]",
                d);
  std::vector<Axis> result;
  for (size_t i = 0; i < rank; i++) {
    // Output size before removing any padding.
    Dim full = (input[i] - Dim(1)) * Dim(g.strides[i]) + Dim(out_pad[i] + g.effective_kernel(i));
    Axis a;
    bool same = g.auto_pad == AutoPad::SameUpper || g.auto_pad == AutoPad::SameLower;
    if (!out_shape.empty() || same) {
      a.out = out_shape.empty() ? input[i] * Dim(g.strides[i]) : Dim(out_shape[i]);
      int64_t total = (full - a.out).to_int();
      a.pad_begin =
          g.auto_pad == AutoPad::SameUpper ? floor_div2(total) : total - floor_div2(total);
    } else if (g.auto_pad == AutoPad::Valid) {
      a.out = full;
    } else {
      a.out = full - Dim(g.pads[i] + g.pads[i + rank]);
      a.pad_begin = g.pads[i];
    }
    if (a.out.is_int()) {
      KILN_ENSURE(a.out.to_int() >= 0, "ConvTranspose: negative output size {}", a.out.to_string());
    }
    result.push_back(a);
  }
  return result;
}

std::vector<Fact> ConvTranspose::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 2, 3);
  const Fact& x = required(inputs, 0, name());
  const Fact& w = required(inputs, 1, name());
  KILN_ENSURE(is_float(x.dt), "ConvTranspose: input type {} is not a float type", name_of(x.dt));
  KILN_ENSURE(w.dt == x.dt, "ConvTranspose: weight type {} differs from input type {}",
              name_of(w.dt), name_of(x.dt));
  KILN_ENSURE(x.rank() >= 3 && w.rank() == x.rank(),
              "ConvTranspose: input rank {} and weight rank {} must match and be >= 3", x.rank(),
              w.rank());
  KILN_ENSURE(group_ >= 1 && group_ <= kMaxWindowAttribute,
              "ConvTranspose: group {} must be in [1, 2^31]", group_);
  if (x.shape[1].is_int() && w.shape[0].is_int()) {
    KILN_ENSURE(x.shape[1] == w.shape[0] && x.shape[1].to_int() % group_ == 0,
                "ConvTranspose: input has {} channels, weights [{}], group {}",
                x.shape[1].to_string(), dims_to_string(w.shape), group_);
  }
  Dim m_out = w.shape[1] * Dim(group_);
  if (inputs.size() > 2 && inputs[2]) {
    const Fact& b = *inputs[2];
    KILN_ENSURE(b.rank() == 1 && b.shape[0] == m_out, "ConvTranspose: bias shape [{}] must be [{}]",
                dims_to_string(b.shape), m_out.to_string());
  }
  size_t rank = x.rank() - 2;
  WindowGeometry g = geo_.complete(rank, name(), weight_kernel_dims(w, name()));
  std::vector<Dim> shape = {x.shape[0], m_out};
  for (const Axis& a : axes(g, std::vector<Dim>(x.shape.begin() + 2, x.shape.end()))) {
    shape.push_back(a.out);
  }
  return {Fact(x.dt, shape)};
}

Cost ConvTranspose::cost(const FactRefs& inputs) const {
  output_facts(inputs);
  const Fact& x = *inputs[0];
  const Fact& w = *inputs[1];
  Cost c;
  // Every input element is multiplied by (M/group) * kernel volume weights.
  c.fma = x.volume() * dims_product(std::vector<Dim>(w.shape.begin() + 1, w.shape.end()));
  c.fma_type = x.dt;
  if (w.value) c.params_bytes = Dim(static_cast<int64_t>(w.value->nbytes()));
  if (inputs.size() > 2 && inputs[2] && inputs[2]->value) {
    c.params_bytes += Dim(static_cast<int64_t>(inputs[2]->value->nbytes()));
  }
  return c;
}

namespace {

// Scatters columns [M/g * kernel, input size] into the output planes [M/g, output size].
template <typename A>
void col2im(const A* cols, int64_t channels, const Window3& w, A* out) {
  int64_t is = w.in_size(), os = w.out_size();
  for (int64_t c = 0; c < channels; c++) {
    A* oc = out + c * os;
    for (int64_t kz = 0; kz < w.kernel[0]; kz++) {
      for (int64_t ky = 0; ky < w.kernel[1]; ky++) {
        for (int64_t kx = 0; kx < w.kernel[2]; kx++) {
          int64_t row = ((c * w.kernel[0] + kz) * w.kernel[1] + ky) * w.kernel[2] + kx;
          const A* src = cols + row * is;
          for (int64_t iz = 0; iz < w.in[0]; iz++) {
            int64_t oz = iz * w.stride[0] - w.pad[0] + kz * w.dilation[0];
            if (oz < 0 || oz >= w.out[0]) continue;
            for (int64_t iy = 0; iy < w.in[1]; iy++) {
              int64_t oy = iy * w.stride[1] - w.pad[1] + ky * w.dilation[1];
              if (oy < 0 || oy >= w.out[1]) continue;
              const A* s = src + (iz * w.in[1] + iy) * w.in[2];
              A* d = oc + (oz * w.out[1] + oy) * w.out[2];
              for (int64_t ix = 0; ix < w.in[2]; ix++) {
                int64_t ox = ix * w.stride[2] - w.pad[2] + kx * w.dilation[2];
                if (ox >= 0 && ox < w.out[2]) d[ox] += s[ix];
              }
            }
          }
        }
      }
    }
  }
}

// The gather form, for outputs smaller than the input (a crop by pads or output_shape): each
// output position sums the taps that land on it, out[m, o] += x[c, i] * W[c, m, tap] where
// o = i * stride - pad + tap * dilation. Its cost is output x kernel x channels, where the scatter
// form (matmul + col2im) costs input x kernel x channels and a [M/g * kernel, input] buffer: a
// hostile model with a 3x4096 kernel cropped to 10x8 asked for 604 MB and 150M products.
template <typename A>
void gather_taps(const A* x, const A* weights, int64_t cg, int64_t mg, const Window3& w, A* out) {
  const int64_t is = w.in_size(), ks = w.kernel_size(), rows = mg * ks;
  for (int64_t m = 0; m < mg; m++) {
    for (int64_t oz = 0; oz < w.out[0]; oz++) {
      for (int64_t oy = 0; oy < w.out[1]; oy++) {
        for (int64_t ox = 0; ox < w.out[2]; ox++) {
          A* o = out + m * w.out_size() + (oz * w.out[1] + oy) * w.out[2] + ox;
          for (int64_t kz = 0; kz < w.kernel[0]; kz++) {
            const int64_t tz = oz + w.pad[0] - kz * w.dilation[0];
            if (tz < 0 || tz % w.stride[0] != 0 || tz / w.stride[0] >= w.in[0]) continue;
            for (int64_t ky = 0; ky < w.kernel[1]; ky++) {
              const int64_t ty = oy + w.pad[1] - ky * w.dilation[1];
              if (ty < 0 || ty % w.stride[1] != 0 || ty / w.stride[1] >= w.in[1]) continue;
              for (int64_t kx = 0; kx < w.kernel[2]; kx++) {
                const int64_t tx = ox + w.pad[2] - kx * w.dilation[2];
                if (tx < 0 || tx % w.stride[2] != 0 || tx / w.stride[2] >= w.in[2]) continue;
                const int64_t i =
                    ((tz / w.stride[0]) * w.in[1] + ty / w.stride[1]) * w.in[2] + tx / w.stride[2];
                const int64_t tap = (kz * w.kernel[1] + ky) * w.kernel[2] + kx;
                for (int64_t c = 0; c < cg; c++)
                  *o += x[c * is + i] * weights[c * rows + m * ks + tap];
              }
            }
          }
        }
      }
    }
  }
}

template <typename T>
void conv_transpose_kernel(EvalContext& ctx, const Tensor& x, const Tensor& wt, const Tensor* bias,
                           const Window3& w, int64_t group, Tensor& y) {
  using A = nn::Acc<T>;
  int64_t n_batch = x.dim(0), c_in = x.dim(1);
  int64_t cg = c_in / group, mg = wt.dim(1), m_out = mg * group;
  int64_t rows = mg * w.kernel_size(), is = w.in_size(), os = w.out_size();
  const bool gather = os < is;
  // The scatter form's buffer comes from the op's scratch, which the memory budget counts.
  A* cols = gather ? nullptr : ctx.scratch<A>(static_cast<size_t>(rows * is));
  A* out = ctx.scratch<A>(static_cast<size_t>(mg * os));
  std::vector<A> weights_buf, in_buf;
  const A* weights = nn::as_acc<A>(wt.data<T>(), wt.numel(), weights_buf);
  const A* xa = nn::as_acc<A>(x.data<T>(), x.numel(), in_buf);
  T* yd = y.data<T>();
  for (int64_t n = 0; n < n_batch; n++) {
    for (int64_t g = 0; g < group; g++) {
      for (int64_t m = 0; m < mg; m++) {
        A b = bias ? nn::to_acc<A>(bias->data<T>()[g * mg + m]) : A(0);
        std::fill(out + m * os, out + (m + 1) * os, b);
      }
      const A* xg = xa + (n * c_in + g * cg) * is;
      if (gather) {
        gather_taps(xg, weights + g * cg * rows, cg, mg, w, out);
      } else {
        std::fill(cols, cols + rows * is, A(0));
        // cols = W_g^T x_g, W_g being [C/g, M/g * kernel].
        nn::matmul_acc<A>(rows, is, cg, weights + g * cg * rows, 1, rows, xg, is, cols, is);
        col2im(cols, mg, w, out);
      }
      T* dst = yd + (n * m_out + g * mg) * os;
      for (int64_t i = 0; i < mg * os; i++) dst[i] = nn::from_acc<T>(out[i]);
    }
  }
}

}  // namespace

Window3 ConvTranspose::window(const Shape& x, const Shape& wt, Shape& out_shape) const {
  KILN_ENSURE(x.size() >= 3 && wt.size() == x.size(), "ConvTranspose: bad input ranks {} and {}",
              x.size(), wt.size());
  KILN_ENSURE(x[1] == wt[0] && x[1] % group_ == 0,
              "ConvTranspose: input channels {} / weights [{}] / group {} mismatch", x[1],
              shape_to_string(wt), group_);
  size_t rank = x.size() - 2;
  KILN_ENSURE(rank <= 3, "ConvTranspose: {} spatial dims unsupported (1 to 3)", rank);
  Shape kdims(wt.begin() + 2, wt.end());
  WindowGeometry g = geo_.complete(rank, name(), kdims);
  Shape in_spatial(x.begin() + 2, x.end());
  std::vector<Axis> ax = axes(g, std::vector<Dim>(in_spatial.begin(), in_spatial.end()));
  // In the transposed view the roles swap: `in` is the small side, `out` the large one.
  Window3 w;
  size_t off = 3 - rank;
  KILN_ENSURE(wt[1] <= kMaxWindowAttribute,
              "ConvTranspose: {} output channels per group is too "
              "many",
              wt[1]);
  out_shape = {x[0], wt[1] * group_};
  for (size_t i = 0; i < rank; i++) {
    w.in[off + i] = in_spatial[i];
    w.out[off + i] = ax[i].out.to_int();
    w.kernel[off + i] = g.kernel[i];
    w.stride[off + i] = g.strides[i];
    w.dilation[off + i] = g.dilations[i];
    w.pad[off + i] = ax[i].pad_begin;
    out_shape.push_back(w.out[off + i]);
  }
  // Planes beyond 2^40 elements are refused (as make_window3 does): their products stay far
  // from int64 overflow in the kernels.
  constexpr int64_t kMaxPlane = int64_t{1} << 40;
  int64_t in_plane = 1, out_plane = 1;
  for (int a = 0; a < 3; a++) {
    KILN_ENSURE(w.out[a] == 0 || out_plane <= kMaxPlane / w.out[a],
                "ConvTranspose: output of more than 2^40 positions per channel ({})",
                shape_to_string(out_shape));
    out_plane *= w.out[a];
    KILN_ENSURE(w.in[a] == 0 || in_plane <= kMaxPlane / w.in[a],
                "ConvTranspose: input of more than 2^40 positions per channel");
    in_plane *= w.in[a];
  }
  return w;
}

OpPtr ConvTranspose::codegen(const FactRefs& inputs) const {
  const Fact* x = inputs.size() > 0 ? inputs[0] : nullptr;
  const Fact* w = inputs.size() > 1 ? inputs[1] : nullptr;
  const Fact* b = inputs.size() > 2 ? inputs[2] : nullptr;
  if (!x || !w || x->dt != DatumType::F32 || !w->value || w->value->dtype() != DatumType::F32)
    return nullptr;
  if ((b && (!b->value || b->value->dtype() != DatumType::F32)) || x->rank() < 3 || x->rank() > 5 ||
      w->value->rank() != x->rank()) {
    return nullptr;
  }
  if (w->value->dim(0) % group_ != 0) return nullptr;
  return std::make_shared<ConvTransposePacked>(std::make_shared<ConvTranspose>(*this), *w->value,
                                               b ? b->value.get() : nullptr);
}

void ConvTranspose::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& x = required(inputs, 0, name());
  const Tensor& wt = required(inputs, 1, name());
  const Tensor* bias = inputs.size() > 2 ? inputs[2] : nullptr;
  KILN_ENSURE(x.dtype() == wt.dtype(), "ConvTranspose: weight and input types differ");
  Shape out_shape;
  const Window3 w = window(x.shape(), wt.shape(), out_shape);
  const int64_t m_out = out_shape[1];
  if (bias) {
    KILN_ENSURE(bias->numel() == m_out && bias->dtype() == x.dtype(),
                "ConvTranspose: bias must hold {} values of the input type", m_out);
  }
  Tensor& y = ctx.output(0, x.dtype(), out_shape);
  if (y.numel() == 0) return;
  switch (x.dtype()) {
    case DatumType::F32:
      conv_transpose_kernel<float>(ctx, x, wt, bias, w, group_, y);
      break;
    case DatumType::F64:
      conv_transpose_kernel<double>(ctx, x, wt, bias, w, group_, y);
      break;
    case DatumType::F16:
      conv_transpose_kernel<f16>(ctx, x, wt, bias, w, group_, y);
      break;
    case DatumType::BF16:
      conv_transpose_kernel<bf16>(ctx, x, wt, bias, w, group_, y);
      break;
    default:
      fail("ConvTranspose: unsupported type {}", name_of(x.dtype()));
  }
}

}  // namespace kiln::ops
