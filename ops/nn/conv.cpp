#include "ops/nn/conv.h"

#include <cstring>

#include "base/error.h"
#include "core/run_limits.h"
#include "ops/nn/conv_packed.h"
#include "ops/nn/nn_common.h"

namespace kiln::ops {

std::vector<int64_t> weight_kernel_dims(const Fact& w, const std::string& op) {
  std::vector<int64_t> dims;
  for (size_t i = 2; i < w.rank(); i++) {
    auto v = w.shape[i].as_int();
    KILN_ENSURE(v.has_value(), "{}: weight kernel dims must be known integers, got {}", op,
                dims_to_string(w.shape));
    dims.push_back(*v);
  }
  return dims;
}

Attributes Conv::attributes() const {
  Attributes attrs;
  geo_.append_attributes(attrs);
  if (group_ != 1) attrs.emplace_back("group", std::to_string(group_));
  return attrs;
}

std::vector<Fact> Conv::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 2, 3);
  const Fact& x = required(inputs, 0, name());
  const Fact& w = required(inputs, 1, name());
  KILN_ENSURE(is_float(x.dt), "Conv: input type {} is not a float type", name_of(x.dt));
  KILN_ENSURE(w.dt == x.dt, "Conv: weight type {} differs from input type {}", name_of(w.dt),
              name_of(x.dt));
  KILN_ENSURE(x.rank() >= 3, "Conv: input rank {} must be at least 3", x.rank());
  KILN_ENSURE(w.rank() == x.rank(), "Conv: weight rank {} differs from input rank {}", w.rank(),
              x.rank());
  KILN_ENSURE(group_ >= 1 && group_ <= kMaxWindowAttribute, "Conv: group {} must be in [1, 2^31]",
              group_);
  size_t rank = x.rank() - 2;
  WindowGeometry g = geo_.complete(rank, name(), weight_kernel_dims(w, name()));
  if (x.shape[1].is_int() && w.shape[1].is_int()) {
    KILN_ENSURE(
        x.shape[1].to_int() % group_ == 0 && x.shape[1].to_int() / group_ == w.shape[1].to_int(),
        "Conv: input has {} channels, weights expect {} x group {}", x.shape[1].to_string(),
        w.shape[1].to_string(), group_);
  }
  if (w.shape[0].is_int()) {
    KILN_ENSURE(w.shape[0].to_int() % group_ == 0,
                "Conv: {} output channels not divisible by group {}", w.shape[0].to_string(),
                group_);
  }
  if (inputs.size() > 2 && inputs[2]) {
    const Fact& b = *inputs[2];
    KILN_ENSURE(b.rank() == 1 && b.shape[0] == w.shape[0], "Conv: bias shape [{}] must be [{}]",
                dims_to_string(b.shape), w.shape[0].to_string());
    KILN_ENSURE(b.dt == x.dt, "Conv: bias type {} differs from input type {}", name_of(b.dt),
                name_of(x.dt));
  }
  std::vector<Dim> spatial(x.shape.begin() + 2, x.shape.end());
  std::vector<Dim> shape = {x.shape[0], w.shape[0]};
  for (const Dim& d : g.output_dims(spatial, name())) shape.push_back(d);
  return {Fact(x.dt, shape)};
}

Cost Conv::cost(const FactRefs& inputs) const {
  std::vector<Fact> out = output_facts(inputs);
  const Fact& x = *inputs[0];
  const Fact& w = *inputs[1];
  Cost c;
  // Each output element is a dot product of C/group * kernel volume terms.
  Dim per_output = dims_product(std::vector<Dim>(w.shape.begin() + 1, w.shape.end()));
  c.fma = out[0].volume() * per_output;
  c.fma_type = x.dt;
  if (w.value) c.params_bytes = Dim(static_cast<int64_t>(w.value->nbytes()));
  if (inputs.size() > 2 && inputs[2] && inputs[2]->value) {
    c.params_bytes += Dim(static_cast<int64_t>(inputs[2]->value->nbytes()));
  }
  return c;
}

OpPtr Conv::codegen(const FactRefs& inputs) const {
  if (inputs.size() < 2 || !inputs[0] || !inputs[1]) return nullptr;
  const Fact& x = *inputs[0];
  const Fact& w = *inputs[1];
  const Fact* b = inputs.size() > 2 ? inputs[2] : nullptr;
  if (x.dt != DatumType::F32 || !w.value || w.dt != DatumType::F32) return nullptr;
  if (x.rank() < 3 || x.rank() > 5 || w.rank() != x.rank()) return nullptr;
  if (b && !b->value) return nullptr;
  if (!x.shape[1].is_int() || x.shape[1].to_int() != w.value->dim(1) * group_) return nullptr;
  WindowGeometry g = geo_.complete(x.rank() - 2, name(), weight_kernel_dims(w, name()));
  // Spatial dims known now let ConvPacked choose its algorithm (and weights) once.
  Shape in_spatial;
  for (size_t i = 2; i < x.rank(); i++) {
    if (x.shape[i].is_int()) in_spatial.push_back(x.shape[i].to_int());
  }
  const bool known = in_spatial.size() == x.rank() - 2;
  return std::make_shared<ConvPacked>(std::make_shared<Conv>(*this), g, group_, *w.value,
                                      b ? b->value.get() : nullptr, known ? &in_spatial : nullptr);
}

namespace {

template <typename T, typename A>
void im2col(const T* x, int64_t channels, const Window3& w, A* cols) {
  int64_t os = w.out_size();
  int64_t plane = w.in_size();
  for (int64_t c = 0; c < channels; c++) {
    const T* xc = x + c * plane;
    for (int64_t kz = 0; kz < w.kernel[0]; kz++) {
      for (int64_t ky = 0; ky < w.kernel[1]; ky++) {
        for (int64_t kx = 0; kx < w.kernel[2]; kx++) {
          int64_t row = ((c * w.kernel[0] + kz) * w.kernel[1] + ky) * w.kernel[2] + kx;
          A* dst = cols + row * os;
          for (int64_t oz = 0; oz < w.out[0]; oz++) {
            int64_t iz = oz * w.stride[0] - w.pad[0] + kz * w.dilation[0];
            for (int64_t oy = 0; oy < w.out[1]; oy++) {
              int64_t iy = oy * w.stride[1] - w.pad[1] + ky * w.dilation[1];
              A* d = dst + (oz * w.out[1] + oy) * w.out[2];
              if (iz < 0 || iz >= w.in[0] || iy < 0 || iy >= w.in[1]) {
                for (int64_t ox = 0; ox < w.out[2]; ox++) d[ox] = A(0);
                continue;
              }
              const T* src = xc + (iz * w.in[1] + iy) * w.in[2];
              int64_t x0 = kx * w.dilation[2] - w.pad[2];
              for (int64_t ox = 0; ox < w.out[2]; ox++) {
                int64_t ix = ox * w.stride[2] + x0;
                d[ox] = (ix >= 0 && ix < w.in[2]) ? nn::to_acc<A>(src[ix]) : A(0);
              }
            }
          }
        }
      }
    }
  }
}

// Values of T as the accumulation type A: `src` itself when they are the same, else converted
// into `buf` (count values).
template <typename A, typename T>
const A* acc_values(const T* src, int64_t count, A* buf) {
  if constexpr (std::is_same_v<A, T>) {
    return src;
  } else {
    for (int64_t i = 0; i < count; i++) buf[i] = nn::to_acc<A>(src[i]);
    return buf;
  }
}

template <typename T>
void conv_kernel(EvalContext& ctx, const Tensor& x, const Tensor& wt, const Tensor* bias,
                 const Window3& w, int64_t group, Tensor& y) {
  using A = nn::Acc<T>;
  constexpr bool kConvert = !std::is_same_v<A, T>;
  int64_t n_batch = x.dim(0), c_in = x.dim(1), m_out = wt.dim(0);
  int64_t cg = c_in / group, mg = m_out / group;
  int64_t kin = cg * w.kernel_size(), os = w.out_size(), is = w.in_size();
  // 1x1, stride 1, no padding at either end (output plane = input plane): the input is the
  // matmul operand itself. (End padding alone makes the output larger than the input.)
  bool pointwise = conv_geometry(w).is_pointwise();
  // Temporaries from the session's scratch: the weights and input as A (when T is narrower),
  // the im2col matrix, the group's A-typed output.
  A* weights_buf = kConvert ? ctx.scratch<A>(static_cast<size_t>(wt.numel())) : nullptr;
  A* in_buf = kConvert && pointwise ? ctx.scratch<A>(static_cast<size_t>(cg * is)) : nullptr;
  A* cols_buf = pointwise ? nullptr : ctx.scratch<A>(static_cast<size_t>(kin * os));
  A* out_buf = kConvert ? ctx.scratch<A>(static_cast<size_t>(mg * os)) : nullptr;
  const A* weights = acc_values<A>(wt.data<T>(), wt.numel(), weights_buf);
  const T* xd = x.data<T>();
  T* yd = y.data<T>();
  for (int64_t n = 0; n < n_batch; n++) {
    for (int64_t g = 0; g < group; g++) {
      const T* xg = xd + (n * c_in + g * cg) * is;
      const A* cols;
      if (pointwise) {
        cols = acc_values<A>(xg, cg * is, in_buf);
      } else {
        im2col(xg, cg, w, cols_buf);
        cols = cols_buf;
      }
      A* out;
      if constexpr (!kConvert) {
        out = yd + (n * m_out + g * mg) * os;
      } else {
        out = out_buf;
      }
      for (int64_t m = 0; m < mg; m++) {
        A b = bias ? nn::to_acc<A>(bias->data<T>()[g * mg + m]) : A(0);
        for (int64_t j = 0; j < os; j++) out[m * os + j] = b;
      }
      nn::matmul_acc<A>(mg, os, kin, weights + g * mg * kin, kin, 1, cols, os, out, os);
      if constexpr (kConvert) {
        T* dst = yd + (n * m_out + g * mg) * os;
        for (int64_t i = 0; i < mg * os; i++) dst[i] = nn::from_acc<T>(out[i]);
      }
    }
  }
}

}  // namespace

void Conv::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& x = required(inputs, 0, name());
  const Tensor& wt = required(inputs, 1, name());
  const Tensor* bias = inputs.size() > 2 ? inputs[2] : nullptr;
  KILN_ENSURE(x.rank() >= 3 && wt.rank() == x.rank(), "Conv: bad input ranks {} and {}", x.rank(),
              wt.rank());
  KILN_ENSURE(x.dtype() == wt.dtype(), "Conv: weight and input types differ");
  KILN_ENSURE(x.dim(1) % group_ == 0 && x.dim(1) / group_ == wt.dim(1) && wt.dim(0) % group_ == 0,
              "Conv: input channels {} / weights [{}] / group {} mismatch", x.dim(1),
              shape_to_string(wt.shape()), group_);
  if (bias) {
    KILN_ENSURE(bias->numel() == wt.dim(0) && bias->dtype() == x.dtype(),
                "Conv: bias must hold {} values of the input type", wt.dim(0));
  }
  size_t rank = x.rank() - 2;
  Shape kdims(wt.shape().begin() + 2, wt.shape().end());
  WindowGeometry g = geo_.complete(rank, name(), kdims);
  Shape in_spatial(x.shape().begin() + 2, x.shape().end());
  auto r = g.resolve(in_spatial, name());
  Window3 w = make_window3(g, in_spatial, r.output, r.pad_begin, name());
  Shape out_shape = {x.dim(0), wt.dim(0)};
  out_shape.insert(out_shape.end(), r.output.begin(), r.output.end());
  Tensor& y = ctx.output(0, x.dtype(), out_shape);
  if (y.numel() == 0) return;
  switch (x.dtype()) {
    case DatumType::F32:
      conv_kernel<float>(ctx, x, wt, bias, w, group_, y);
      break;
    case DatumType::F64:
      conv_kernel<double>(ctx, x, wt, bias, w, group_, y);
      break;
    case DatumType::F16:
      conv_kernel<f16>(ctx, x, wt, bias, w, group_, y);
      break;
    case DatumType::BF16:
      conv_kernel<bf16>(ctx, x, wt, bias, w, group_, y);
      break;
    default:
      fail("Conv: unsupported type {}", name_of(x.dtype()));
  }
}

}  // namespace kiln::ops
