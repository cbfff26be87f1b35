#include "ops/nn/pool.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "base/error.h"
#include "ops/nn/avg_pool_f32.h"
#include "ops/nn/nn_common.h"

namespace kiln::ops {

std::string Pool::name() const {
  switch (kind_) {
    case PoolKind::Max:
      return "MaxPool";
    case PoolKind::Average:
      return "AveragePool";
    case PoolKind::Lp:
      return "LpPool";
  }
  return "Pool";
}

Attributes Pool::attributes() const {
  Attributes attrs;
  geo_.append_attributes(attrs);
  if (kind_ == PoolKind::Average && options_.count_include_pad) {
    attrs.emplace_back("count_include_pad", "1");
  }
  if (kind_ == PoolKind::Max && options_.storage_order) attrs.emplace_back("storage_order", "1");
  if (kind_ == PoolKind::Lp) attrs.emplace_back("p", fmt::format("{}", options_.p));
  return attrs;
}

std::vector<Fact> Pool::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 1, 1);
  const Fact& x = required(inputs, 0, name());
  bool type_ok = is_float(x.dt) ||
                 (kind_ == PoolKind::Max && (x.dt == DatumType::I8 || x.dt == DatumType::U8));
  KILN_ENSURE(type_ok, "{}: unsupported input type {}", name(), name_of(x.dt));
  KILN_ENSURE(x.rank() >= 3, "{}: input rank {} must be at least 3", name(), x.rank());
  WindowGeometry g = geo_.complete(x.rank() - 2, name());
  std::vector<Dim> shape = {x.shape[0], x.shape[1]};
  for (const Dim& d : g.output_dims(std::vector<Dim>(x.shape.begin() + 2, x.shape.end()), name())) {
    shape.push_back(d);
  }
  std::vector<Fact> out = {Fact(x.dt, shape)};
  if (kind_ == PoolKind::Max) out.emplace_back(DatumType::I64, shape);
  return out;
}

Cost Pool::cost(const FactRefs& inputs) const {
  std::vector<Fact> out = output_facts(inputs);
  Cost c;
  if (kind_ == PoolKind::Lp) c.other = out[0].volume();
  return c;
}

namespace {

// The taps k in [0, kernel) whose position base + k * dilation lies in [lo, hi): [first, last).
// The loops visit only these, so a huge kernel over a small input (a hostile model) costs no
// more than the input, in the same order as the full loop.
struct Taps {
  int64_t first, last;
};
Taps taps_inside(int64_t base, int64_t dilation, int64_t kernel, int64_t lo, int64_t hi) {
  auto ceil_div = [](int64_t a, int64_t b) { return a >= 0 ? (a + b - 1) / b : -((-a) / b); };
  const int64_t first = std::max<int64_t>(0, ceil_div(lo - base, dilation));
  const int64_t last = std::min<int64_t>(kernel, ceil_div(hi - base, dilation));
  return {first, std::max(first, last)};
}

template <typename T>
void max_pool(const Tensor& x, const Window3& w, int64_t storage_order, Tensor& y,
              Tensor* indices) {
  int64_t planes = x.dim(0) * x.dim(1), is = w.in_size(), os = w.out_size();
  const T* xd = x.data<T>();
  T* yd = y.data<T>();
  int64_t* id = indices ? indices->data<int64_t>() : nullptr;
  for (int64_t p = 0; p < planes; p++) {
    const T* xp = xd + p * is;
    for (int64_t oz = 0; oz < w.out[0]; oz++) {
      for (int64_t oy = 0; oy < w.out[1]; oy++) {
        for (int64_t ox = 0; ox < w.out[2]; ox++) {
          bool found = false;
          T best{};
          int64_t best_z = 0, best_y = 0, best_x = 0;
          const Taps tz =
              taps_inside(oz * w.stride[0] - w.pad[0], w.dilation[0], w.kernel[0], 0, w.in[0]);
          for (int64_t kz = tz.first; kz < tz.last; kz++) {
            int64_t iz = oz * w.stride[0] - w.pad[0] + kz * w.dilation[0];
            if (iz < 0 || iz >= w.in[0]) continue;
            const Taps ty =
                taps_inside(oy * w.stride[1] - w.pad[1], w.dilation[1], w.kernel[1], 0, w.in[1]);
            for (int64_t ky = ty.first; ky < ty.last; ky++) {
              int64_t iy = oy * w.stride[1] - w.pad[1] + ky * w.dilation[1];
              if (iy < 0 || iy >= w.in[1]) continue;
              const Taps tx =
                  taps_inside(ox * w.stride[2] - w.pad[2], w.dilation[2], w.kernel[2], 0, w.in[2]);
              for (int64_t kx = tx.first; kx < tx.last; kx++) {
                int64_t ix = ox * w.stride[2] - w.pad[2] + kx * w.dilation[2];
                if (ix < 0 || ix >= w.in[2]) continue;
                T v = xp[(iz * w.in[1] + iy) * w.in[2] + ix];
                if (!found || nn::to_acc<double>(v) > nn::to_acc<double>(best)) {
                  found = true;
                  best = v;
                  best_z = iz;
                  best_y = iy;
                  best_x = ix;
                }
              }
            }
          }
          int64_t o = p * os + (oz * w.out[1] + oy) * w.out[2] + ox;
          // A window entirely in the padding has no maximum; -inf (or the lowest) stands for it.
          if (!found) {
            if constexpr (std::is_integral_v<T>) {
              best = std::numeric_limits<T>::lowest();
            } else {
              best = nn::from_acc<T>(-std::numeric_limits<float>::infinity());
            }
          }
          yd[o] = best;
          if (id) {
            int64_t spatial = storage_order == 0 ? (best_z * w.in[1] + best_y) * w.in[2] + best_x
                                                 : best_z + w.in[0] * (best_y + w.in[1] * best_x);
            id[o] = p * is + spatial;
          }
        }
      }
    }
  }
}

template <typename T>
void avg_lp_pool(const Tensor& x, const Window3& w, bool lp, bool count_include_pad, double p_norm,
                 Tensor& y) {
  using A = std::conditional_t<std::is_same_v<T, double>, double, float>;
  int64_t planes = x.dim(0) * x.dim(1), is = w.in_size(), os = w.out_size();
  const T* xd = x.data<T>();
  T* yd = y.data<T>();
  A p = static_cast<A>(p_norm);
  for (int64_t pl = 0; pl < planes; pl++) {
    const T* xp = xd + pl * is;
    for (int64_t oz = 0; oz < w.out[0]; oz++) {
      for (int64_t oy = 0; oy < w.out[1]; oy++) {
        for (int64_t ox = 0; ox < w.out[2]; ox++) {
          A sum = 0;
          int64_t count = 0;
          int64_t o[3] = {oz, oy, ox};
          int64_t counts[3];
          for (int d = 0; d < 3; d++) {
            // Positions of the window inside the input (or inside the padded input).
            int64_t lo = count_include_pad ? -w.pad[d] : 0;
            int64_t hi = count_include_pad ? w.in[d] + w.pad_end[d] : w.in[d];
            const Taps t =
                taps_inside(o[d] * w.stride[d] - w.pad[d], w.dilation[d], w.kernel[d], lo, hi);
            counts[d] = t.last - t.first;
          }
          count = counts[0] * counts[1] * counts[2];
          const Taps tz =
              taps_inside(oz * w.stride[0] - w.pad[0], w.dilation[0], w.kernel[0], 0, w.in[0]);
          for (int64_t kz = tz.first; kz < tz.last; kz++) {
            int64_t iz = oz * w.stride[0] - w.pad[0] + kz * w.dilation[0];
            if (iz < 0 || iz >= w.in[0]) continue;
            const Taps ty =
                taps_inside(oy * w.stride[1] - w.pad[1], w.dilation[1], w.kernel[1], 0, w.in[1]);
            for (int64_t ky = ty.first; ky < ty.last; ky++) {
              int64_t iy = oy * w.stride[1] - w.pad[1] + ky * w.dilation[1];
              if (iy < 0 || iy >= w.in[1]) continue;
              const Taps tx =
                  taps_inside(ox * w.stride[2] - w.pad[2], w.dilation[2], w.kernel[2], 0, w.in[2]);
              for (int64_t kx = tx.first; kx < tx.last; kx++) {
                int64_t ix = ox * w.stride[2] - w.pad[2] + kx * w.dilation[2];
                if (ix < 0 || ix >= w.in[2]) continue;
                A v = nn::to_acc<A>(xp[(iz * w.in[1] + iy) * w.in[2] + ix]);
                sum += lp ? std::pow(std::abs(v), p) : v;
              }
            }
          }
          A r;
          if (lp) {
            r = std::pow(sum, A(1) / p);
          } else {
            r = count > 0 ? sum / static_cast<A>(count) : std::numeric_limits<A>::quiet_NaN();
          }
          yd[pl * os + (oz * w.out[1] + oy) * w.out[2] + ox] = nn::from_acc<T>(r);
        }
      }
    }
  }
}

}  // namespace

OpPtr Pool::codegen(const FactRefs& inputs) const {
  if (inputs.empty() || !inputs[0]) return nullptr;
  try {
    if (!AvgPoolF32::supports(*this, *inputs[0])) return nullptr;
  } catch (const Error&) {
    return nullptr;  // an invalid geometry: the reference op reports it when run
  }
  return std::make_shared<AvgPoolF32>(std::make_shared<Pool>(*this), options_.count_include_pad);
}

void Pool::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& x = required(inputs, 0, name());
  KILN_ENSURE(x.rank() >= 3, "{}: input rank {} must be at least 3", name(), x.rank());
  WindowGeometry g = geo_.complete(x.rank() - 2, name());
  Shape in_spatial(x.shape().begin() + 2, x.shape().end());
  auto r = g.resolve(in_spatial, name());
  Window3 w = make_window3(g, in_spatial, r.output, r.pad_begin, name());
  Shape out_shape = {x.dim(0), x.dim(1)};
  out_shape.insert(out_shape.end(), r.output.begin(), r.output.end());
  Tensor& y = ctx.output(0, x.dtype(), out_shape);
  if (kind_ == PoolKind::Max) {
    Tensor* indices = nullptr;
    if (ctx.num_outputs() > 1) indices = &ctx.output(1, DatumType::I64, out_shape);
    switch (x.dtype()) {
      case DatumType::F32:
        max_pool<float>(x, w, options_.storage_order, y, indices);
        break;
      case DatumType::F64:
        max_pool<double>(x, w, options_.storage_order, y, indices);
        break;
      case DatumType::F16:
        max_pool<f16>(x, w, options_.storage_order, y, indices);
        break;
      case DatumType::BF16:
        max_pool<bf16>(x, w, options_.storage_order, y, indices);
        break;
      case DatumType::I8:
        max_pool<int8_t>(x, w, options_.storage_order, y, indices);
        break;
      case DatumType::U8:
        max_pool<uint8_t>(x, w, options_.storage_order, y, indices);
        break;
      default:
        fail("MaxPool: unsupported type {}", name_of(x.dtype()));
    }
    return;
  }
  bool lp = kind_ == PoolKind::Lp;
  bool include = options_.count_include_pad;
  double p = options_.p;
  switch (x.dtype()) {
    case DatumType::F32:
      avg_lp_pool<float>(x, w, lp, include, p, y);
      break;
    case DatumType::F64:
      avg_lp_pool<double>(x, w, lp, include, p, y);
      break;
    case DatumType::F16:
      avg_lp_pool<f16>(x, w, lp, include, p, y);
      break;
    case DatumType::BF16:
      avg_lp_pool<bf16>(x, w, lp, include, p, y);
      break;
    default:
      fail("{}: unsupported type {}", name(), name_of(x.dtype()));
  }
}

}  // namespace kiln::ops
