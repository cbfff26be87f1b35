#include "ops/nn/deform_conv.h"

#include <cmath>

#include "base/error.h"
#include "ops/nn/nn_common.h"

namespace kiln::ops {

namespace {

struct Geometry {
  int64_t kh, kw, sh, sw, dh, dw, pt, pl, pb, pr;
};

Geometry geometry_of(const DeformConvOptions& o, int64_t kh, int64_t kw) {
  auto pick = [](const std::vector<int64_t>& v, size_t i, int64_t dflt) {
    return v.empty() ? dflt : v.at(i);
  };
  KILN_ENSURE(o.kernel_shape.empty() || o.kernel_shape.size() == 2,
              "DeformConv: only 2-D kernels are supported");
  KILN_ENSURE(o.strides.empty() || o.strides.size() == 2, "DeformConv: strides must have 2 values");
  KILN_ENSURE(o.dilations.empty() || o.dilations.size() == 2,
              "DeformConv: dilations must have 2 values");
  KILN_ENSURE(o.pads.empty() || o.pads.size() == 4, "DeformConv: pads must have 4 values");
  Geometry g{pick(o.kernel_shape, 0, kh), pick(o.kernel_shape, 1, kw), pick(o.strides, 0, 1),
             pick(o.strides, 1, 1),       pick(o.dilations, 0, 1),     pick(o.dilations, 1, 1),
             pick(o.pads, 0, 0),          pick(o.pads, 1, 0),          pick(o.pads, 2, 0),
             pick(o.pads, 3, 0)};
  KILN_ENSURE(g.kh == kh && g.kw == kw, "DeformConv: kernel_shape differs from W's");
  KILN_ENSURE(g.sh > 0 && g.sw > 0 && g.dh > 0 && g.dw > 0,
              "DeformConv: strides and dilations must be positive");
  return g;
}

Dim out_dim(const Dim& in, int64_t k, int64_t s, int64_t d, int64_t p0, int64_t p1) {
  return (in + Dim(p0 + p1 - d * (k - 1) - 1)).div(s) + Dim(1);
}

}  // namespace

Attributes DeformConv::attributes() const {
  Attributes a;
  if (!o_.strides.empty()) a.push_back({"strides", ints_to_string(o_.strides)});
  if (!o_.dilations.empty()) a.push_back({"dilations", ints_to_string(o_.dilations)});
  if (!o_.pads.empty()) a.push_back({"pads", ints_to_string(o_.pads)});
  if (o_.group != 1) a.push_back({"group", std::to_string(o_.group)});
  if (o_.offset_group != 1) a.push_back({"offset_group", std::to_string(o_.offset_group)});
  return a;
}

std::vector<Fact> DeformConv::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 3, 5);
  const Fact& x = required(inputs, 0, name());
  const Fact& w = required(inputs, 1, name());
  const Fact& offset = required(inputs, 2, name());
  KILN_ENSURE(is_float(x.dt) && w.dt == x.dt && offset.dt == x.dt,
              "DeformConv: X, W and offset must be of one float type");
  KILN_ENSURE(x.rank() == 4 && w.rank() == 4 && offset.rank() == 4,
              "DeformConv: only 2-D inputs ([N, C, H, W]) are supported, got rank {}", x.rank());
  auto kh = w.shape[2].as_int(), kw = w.shape[3].as_int();
  KILN_ENSURE(kh && kw, "DeformConv: W's kernel dims must be known");
  Geometry g = geometry_of(o_, *kh, *kw);
  std::vector<Dim> shape{x.shape[0], w.shape[0], out_dim(x.shape[2], g.kh, g.sh, g.dh, g.pt, g.pb),
                         out_dim(x.shape[3], g.kw, g.sw, g.dw, g.pl, g.pr)};
  return {Fact(x.dt, shape)};
}

Cost DeformConv::cost(const FactRefs& inputs) const {
  auto facts = output_facts(inputs);
  const Fact& w = required(inputs, 1, name());
  Cost c;
  c.fma = facts[0].volume() * dims_product({w.shape[1], w.shape[2], w.shape[3]});
  c.fma_type = w.dt;
  return c;
}

namespace {

template <typename T>
void deform_conv(const Tensor& x, const Tensor& w, const Tensor& off, const Tensor* bias,
                 const Tensor* mask, const Geometry& g, int64_t groups, int64_t offset_groups,
                 Tensor& y) {
  using A = nn::Acc<T>;
  const int64_t n = x.dim(0), c = x.dim(1), h = x.dim(2), wd = x.dim(3);
  const int64_t oc = w.dim(0), cg = w.dim(1), oh = y.dim(2), ow = y.dim(3);
  const int64_t taps = g.kh * g.kw;
  const int64_t per_offset_group = c / offset_groups;
  const T* xd = x.data<T>();
  const T* wd_ = w.data<T>();
  const T* od = off.data<T>();
  const T* md = mask ? mask->data<T>() : nullptr;
  T* yd = y.data<T>();
  auto sample = [&](const T* plane, A py, A px) -> A {
    if (py <= -1 || py >= h || px <= -1 || px >= wd) return A(0);
    const int64_t y0 = static_cast<int64_t>(std::floor(py)),
                  x0 = static_cast<int64_t>(std::floor(px));
    const A ly = py - A(y0), lx = px - A(x0), hy = A(1) - ly, hx = A(1) - lx;
    auto at = [&](int64_t yy, int64_t xx) {
      return yy >= 0 && yy < h && xx >= 0 && xx < wd ? nn::to_acc<A>(plane[yy * wd + xx]) : A(0);
    };
    return hy * hx * at(y0, x0) + hy * lx * at(y0, x0 + 1) + ly * hx * at(y0 + 1, x0) +
           ly * lx * at(y0 + 1, x0 + 1);
  };
  for (int64_t b = 0; b < n; b++) {
    for (int64_t o = 0; o < oc; o++) {
      const int64_t grp = o / (oc / groups);
      for (int64_t i = 0; i < oh; i++) {
        for (int64_t j = 0; j < ow; j++) {
          A acc = bias ? nn::to_acc<A>(bias->data<T>()[o]) : A(0);
          for (int64_t cl = 0; cl < cg; cl++) {
            const int64_t ch = grp * cg + cl;
            const int64_t og = ch / per_offset_group;
            const T* plane = xd + (b * c + ch) * h * wd;
            for (int64_t ki = 0; ki < g.kh; ki++) {
              for (int64_t kj = 0; kj < g.kw; kj++) {
                const int64_t tap = ki * g.kw + kj;
                const int64_t oc_y = ((b * offset_groups + og) * taps + tap) * 2;
                const A dy = nn::to_acc<A>(od[(oc_y * oh + i) * ow + j]);
                const A dx = nn::to_acc<A>(od[((oc_y + 1) * oh + i) * ow + j]);
                const A py = A(i * g.sh - g.pt + ki * g.dh) + dy;
                const A px = A(j * g.sw - g.pl + kj * g.dw) + dx;
                A v = sample(plane, py, px);
                if (md)
                  v *= nn::to_acc<A>(
                      md[(((b * offset_groups + og) * taps + tap) * oh + i) * ow + j]);
                acc += v * nn::to_acc<A>(wd_[((o * cg + cl) * g.kh + ki) * g.kw + kj]);
              }
            }
          }
          yd[((b * oc + o) * oh + i) * ow + j] = nn::from_acc<T>(acc);
        }
      }
    }
  }
}

}  // namespace

void DeformConv::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& x = required(inputs, 0, name());
  const Tensor& w = required(inputs, 1, name());
  const Tensor& off = required(inputs, 2, name());
  const Tensor* bias = inputs.size() > 3 ? inputs[3] : nullptr;
  const Tensor* mask = inputs.size() > 4 ? inputs[4] : nullptr;
  KILN_ENSURE(x.rank() == 4 && w.rank() == 4 && off.rank() == 4,
              "DeformConv: only 2-D inputs are supported");
  Geometry g = geometry_of(o_, w.dim(2), w.dim(3));
  const int64_t n = x.dim(0), c = x.dim(1), oc = w.dim(0);
  KILN_ENSURE(o_.group > 0 && o_.offset_group > 0 && c % o_.group == 0 && oc % o_.group == 0 &&
                  c % o_.offset_group == 0 && w.dim(1) * o_.group == c,
              "DeformConv: {} input / {} output channels do not fit group {} / offset_group {}", c,
              oc, o_.group, o_.offset_group);
  const int64_t oh = (x.dim(2) + g.pt + g.pb - g.dh * (g.kh - 1) - 1) / g.sh + 1;
  const int64_t ow = (x.dim(3) + g.pl + g.pr - g.dw * (g.kw - 1) - 1) / g.sw + 1;
  KILN_ENSURE(oh > 0 && ow > 0, "DeformConv: the kernel does not fit the padded input");
  const int64_t taps = g.kh * g.kw;
  KILN_ENSURE(off.shape() == Shape({n, o_.offset_group * taps * 2, oh, ow}),
              "DeformConv: offset [{}], expected [{}, {}, {}, {}]", shape_to_string(off.shape()), n,
              o_.offset_group * taps * 2, oh, ow);
  if (mask)
    KILN_ENSURE(
        mask->shape() == Shape({n, o_.offset_group * taps, oh, ow}) && mask->dtype() == x.dtype(),
        "DeformConv: mask [{}], expected [{}, {}, {}, {}]", shape_to_string(mask->shape()), n,
        o_.offset_group * taps, oh, ow);
  if (bias)
    KILN_ENSURE(bias->numel() == oc && bias->dtype() == x.dtype(),
                "DeformConv: bias must hold {} values", oc);
  Shape& shape = ctx.temp_shape(0);
  shape.assign({n, oc, oh, ow});
  Tensor& y = ctx.output(0, x.dtype(), shape);
  switch (x.dtype()) {
    case DatumType::F32:
      return deform_conv<float>(x, w, off, bias, mask, g, o_.group, o_.offset_group, y);
    case DatumType::F64:
      return deform_conv<double>(x, w, off, bias, mask, g, o_.group, o_.offset_group, y);
    case DatumType::F16:
      return deform_conv<f16>(x, w, off, bias, mask, g, o_.group, o_.offset_group, y);
    case DatumType::BF16:
      return deform_conv<bf16>(x, w, off, bias, mask, g, o_.group, o_.offset_group, y);
    default:
      fail("DeformConv: unsupported type {}", name_of(x.dtype()));
  }
}

}  // namespace kiln::ops
