#include "ops/quant/quant_util.h"

#include <fmt/format.h>

#include "core/broadcast.h"
#include "core/run_limits.h"

namespace kiln::ops::quant {

bool is_quantized_type(DatumType dt) {
  return dt == DatumType::U8 || dt == DatumType::I8 || dt == DatumType::U16 || dt == DatumType::I16;
}

std::vector<int32_t> to_i32(const Tensor& t, const std::string& op) {
  KILN_ENSURE(t.dtype() == DatumType::U8 || t.dtype() == DatumType::I8 ||
                  t.dtype() == DatumType::U16 || t.dtype() == DatumType::I16 ||
                  t.dtype() == DatumType::I32,
              "{}: expected an 8, 16 or 32-bit integer tensor, got {}", op, name_of(t.dtype()));
  std::vector<int32_t> out(static_cast<size_t>(t.numel()));
  dispatch_numeric(t.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_integral_v<T>) {
      const T* p = t.data<T>();
      for (size_t i = 0; i < out.size(); i++) out[i] = static_cast<int32_t>(p[i]);
    }
  });
  return out;
}

std::vector<float> to_f32(const Tensor& t, const std::string& op) {
  KILN_ENSURE(is_float(t.dtype()), "{}: expected a float tensor, got {}", op, name_of(t.dtype()));
  std::vector<float> out(static_cast<size_t>(t.numel()));
  dispatch_numeric(t.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (!std::is_integral_v<T>) {
      const T* p = t.data<T>();
      for (size_t i = 0; i < out.size(); i++) out[i] = static_cast<float>(p[i]);
    }
  });
  return out;
}

void store_saturated(Tensor& t, int64_t i, double v) {
  switch (t.dtype()) {
    case DatumType::U8:
      t.data<uint8_t>()[i] = saturate_round<uint8_t>(v);
      break;
    case DatumType::I8:
      t.data<int8_t>()[i] = saturate_round<int8_t>(v);
      break;
    case DatumType::U16:
      t.data<uint16_t>()[i] = saturate_round<uint16_t>(v);
      break;
    case DatumType::I16:
      t.data<int16_t>()[i] = saturate_round<int16_t>(v);
      break;
    case DatumType::I32:
      t.data<int32_t>()[i] = saturate_round<int32_t>(v);
      break;
    default:
      fail("cannot store a quantized value as {}", name_of(t.dtype()));
  }
}

void check_axis_param(const Fact& x, const Fact& param, int64_t axis, const std::string& op,
                      const std::string& what) {
  if (param.rank() == 0) return;
  KILN_ENSURE(param.rank() == 1, "{}: {} must be a scalar or 1-D, got rank {}", op, what,
              param.rank());
  if (param.shape[0] == Dim(1)) return;
  size_t ax = normalize_axis(axis, x.rank(), op);
  KILN_ENSURE(param.shape[0] == x.shape[ax] || !param.shape[0].is_int() || !x.shape[ax].is_int(),
              "{}: {} has {} values but input dim {} along axis {} is {}", op, what,
              param.shape[0].to_string(), ax, ax, x.shape[ax].to_string());
}

AxisParam axis_param(const Shape& x, const Shape& param, int64_t axis, const std::string& op,
                     const std::string& what) {
  AxisParam p;
  if (shape_numel(param) == 1 && param.size() <= 1) return p;
  KILN_ENSURE(param.size() == 1, "{}: {} must be a scalar or 1-D, got rank {}", op, what,
              param.size());
  size_t ax = normalize_axis(axis, x.size(), op);
  KILN_ENSURE(param[0] == x[ax], "{}: {} has {} values but input dim along axis {} is {}", op, what,
              param[0], ax, x[ax]);
  p.per_axis = true;
  p.count = x[ax];
  for (size_t d = ax + 1; d < x.size(); d++) p.inner *= x[d];
  return p;
}

namespace {
// The i32 accumulators are scratch, not tensors, but hold as many values as the output: they
// must fit the memory budget too (a ConvInteger with pads of 2^31 asked for 257 GB).
size_t accumulator_count(const Shape& shape) {
  const int64_t n = shape_numel(shape);
  KILN_ENSURE(n <= (int64_t{1} << 60), "an int32 product of shape [{}] is too large",
              shape_to_string(shape));
  charge_memory(static_cast<size_t>(n) * 4);
  release_memory(static_cast<size_t>(n) * 4);
  return static_cast<size_t>(n);
}

void check_dims_match(const Dim& a, const Dim& b, const std::string& op) {
  KILN_ENSURE(a == b || !a.is_int() || !b.is_int(), "{}: inner dimensions do not match ({} vs {})",
              op, a.to_string(), b.to_string());
}

}  // namespace

std::vector<Dim> matmul_output_dims(const std::vector<Dim>& a, const std::vector<Dim>& b,
                                    const std::string& op) {
  KILN_ENSURE(!a.empty() && !b.empty(), "{}: operands must have rank >= 1", op);
  std::vector<Dim> a2 = a, b2 = b;
  if (a2.size() == 1) a2.insert(a2.begin(), Dim(1));
  if (b2.size() == 1) b2.push_back(Dim(1));
  check_dims_match(a2.back(), b2[b2.size() - 2], op);
  std::vector<Dim> out = broadcast_dims(
      {std::vector<Dim>(a2.begin(), a2.end() - 2), std::vector<Dim>(b2.begin(), b2.end() - 2)});
  if (a.size() > 1) out.push_back(a2[a2.size() - 2]);
  if (b.size() > 1) out.push_back(b2.back());
  return out;
}

Dim matmul_fma(const std::vector<Dim>& a, const std::vector<Dim>& b, const std::string& op) {
  return dims_product(matmul_output_dims(a, b, op)) * a.back();
}

IntMatMul int_matmul(const Tensor& a, const Tensor& b, const std::vector<int32_t>& a_zp,
                     const std::vector<int32_t>& b_zp, const std::string& op) {
  KILN_ENSURE(a.rank() >= 1 && b.rank() >= 1, "{}: operands must have rank >= 1", op);
  Shape as = a.shape(), bs = b.shape();
  if (as.size() == 1) as.insert(as.begin(), 1);
  if (bs.size() == 1) bs.push_back(1);
  IntMatMul r;
  r.m = as[as.size() - 2];
  r.k = as.back();
  r.n = bs.back();
  KILN_ENSURE(bs[bs.size() - 2] == r.k, "{}: inner dimensions do not match ({} vs {})", op, r.k,
              bs[bs.size() - 2]);
  KILN_ENSURE(a_zp.size() == 1 || static_cast<int64_t>(a_zp.size()) == r.m,
              "{}: A zero point must have 1 or {} values, got {}", op, r.m, a_zp.size());
  KILN_ENSURE(b_zp.size() == 1 || static_cast<int64_t>(b_zp.size()) == r.n,
              "{}: B zero point must have 1 or {} values, got {}", op, r.n, b_zp.size());
  Shape a_batch(as.begin(), as.end() - 2), b_batch(bs.begin(), bs.end() - 2);
  Shape batch = broadcast_shapes({a_batch, b_batch});
  r.shape = batch;
  if (a.rank() > 1) r.shape.push_back(r.m);
  if (b.rank() > 1) r.shape.push_back(r.n);
  std::vector<int32_t> av = to_i32(a, op), bv = to_i32(b, op);
  Shape acc_shape = batch;
  acc_shape.push_back(r.m);
  acc_shape.push_back(r.n);
  r.acc.assign(accumulator_count(acc_shape), 0);
  std::array<std::vector<int64_t>, 2> strides = {broadcast_strides(a_batch, batch),
                                                 broadcast_strides(b_batch, batch)};
  const int64_t m = r.m, n = r.n, k = r.k;
  for_each_broadcast<2>(batch, strides, [&](int64_t bi, const std::array<int64_t, 2>& off) {
    const int32_t* pa = av.data() + off[0] * m * k;
    const int32_t* pb = bv.data() + off[1] * k * n;
    int32_t* pc = r.acc.data() + bi * m * n;
    for (int64_t i = 0; i < m; i++) {
      int32_t za = a_zp[a_zp.size() == 1 ? 0 : static_cast<size_t>(i)];
      for (int64_t j = 0; j < n; j++) {
        int32_t zb = b_zp[b_zp.size() == 1 ? 0 : static_cast<size_t>(j)];
        int32_t s = 0;
        for (int64_t kk = 0; kk < k; kk++) s += (pa[i * k + kk] - za) * (pb[kk * n + j] - zb);
        pc[i * n + j] = s;
      }
    }
  });
  return r;
}

Attributes ConvGeometry::attributes() const {
  Attributes a;
  if (auto_pad != "NOTSET") a.push_back({"auto_pad", auto_pad});
  if (!kernel_shape.empty())
    a.push_back({"kernel_shape", fmt::format("{}", fmt::join(kernel_shape, ","))});
  if (!strides.empty()) a.push_back({"strides", fmt::format("{}", fmt::join(strides, ","))});
  if (!dilations.empty()) a.push_back({"dilations", fmt::format("{}", fmt::join(dilations, ","))});
  if (!pads.empty()) a.push_back({"pads", fmt::format("{}", fmt::join(pads, ","))});
  if (group != 1) a.push_back({"group", std::to_string(group)});
  return a;
}

namespace {

struct Resolved {
  std::vector<int64_t> kernel, strides, dilations;
};

Resolved resolve(const ConvGeometry& g, const std::vector<Dim>& x, const std::vector<Dim>& w,
                 const std::string& op) {
  KILN_ENSURE(x.size() >= 3, "{}: input must have rank >= 3 (N, C, spatial...), got {}", op,
              x.size());
  KILN_ENSURE(w.size() == x.size(), "{}: weights rank {} differs from input rank {}", op, w.size(),
              x.size());
  size_t sp = x.size() - 2;
  Resolved r;
  r.kernel = g.kernel_shape;
  if (r.kernel.empty())
    for (size_t i = 0; i < sp; i++) r.kernel.push_back(w[i + 2].to_int());
  r.strides = g.strides.empty() ? std::vector<int64_t>(sp, 1) : g.strides;
  r.dilations = g.dilations.empty() ? std::vector<int64_t>(sp, 1) : g.dilations;
  KILN_ENSURE(r.kernel.size() == sp && r.strides.size() == sp && r.dilations.size() == sp,
              "{}: kernel_shape/strides/dilations must have {} values", op, sp);
  for (size_t i = 0; i < sp; i++)
    KILN_ENSURE(!w[i + 2].is_int() || w[i + 2].to_int() == r.kernel[i],
                "{}: kernel_shape [{}] does not match weights [{}]", op,
                fmt::format("{}", fmt::join(r.kernel, ",")), dims_to_string(w));
  KILN_ENSURE(g.pads.empty() || g.pads.size() == 2 * sp, "{}: pads must have {} values", op,
              2 * sp);
  KILN_ENSURE(g.group >= 1 && g.group <= kMaxWindowAttribute, "{}: group {} must be in [1, 2^31]",
              op, g.group);
  for (size_t i = 0; i < sp; i++)
    KILN_ENSURE(r.strides[i] >= 1 && r.dilations[i] >= 1 && r.kernel[i] >= 1 &&
                    r.strides[i] <= kMaxWindowAttribute && r.dilations[i] <= kMaxWindowAttribute &&
                    r.kernel[i] <= kMaxWindowAttribute,
                "{}: strides, dilations and kernel dims must be in [1, 2^31]", op);
  for (int64_t p : g.pads)
    KILN_ENSURE(p >= 0 && p <= kMaxWindowAttribute, "{}: pad {} must be in [0, 2^31]", op, p);
  if (w[1].is_int() && x[1].is_int())
    KILN_ENSURE(x[1].to_int() % g.group == 0 && x[1].to_int() / g.group == w[1].to_int(),
                "{}: weights expect {} input channels per group (group {}), input has {}", op,
                w[1].to_int(), g.group, x[1].to_int());
  if (w[0].is_int())
    KILN_ENSURE(w[0].to_int() % g.group == 0, "{}: {} output channels not divisible by group {}",
                op, w[0].to_int(), g.group);
  return r;
}

// Begin and end pads of spatial axis i for an input of length `in` (concrete).
std::pair<int64_t, int64_t> pads_for(const ConvGeometry& g, const Resolved& r, size_t i,
                                     int64_t in) {
  size_t sp = r.kernel.size();
  int64_t dk = (r.kernel[i] - 1) * r.dilations[i] + 1;
  if (g.auto_pad == "SAME_UPPER" || g.auto_pad == "SAME_LOWER") {
    int64_t out = (in + r.strides[i] - 1) / r.strides[i];
    int64_t total = std::max<int64_t>(0, (out - 1) * r.strides[i] + dk - in);
    int64_t small = total / 2;
    return g.auto_pad == "SAME_UPPER" ? std::pair{small, total - small}
                                      : std::pair{total - small, small};
  }
  if (g.auto_pad == "VALID" || g.pads.empty()) return {0, 0};
  return {g.pads[i], g.pads[i + sp]};
}

}  // namespace

std::vector<Dim> conv_output_dims(const ConvGeometry& g, const std::vector<Dim>& x,
                                  const std::vector<Dim>& w, const std::string& op) {
  KILN_ENSURE(g.auto_pad == "NOTSET" || g.auto_pad == "VALID" || g.auto_pad == "SAME_UPPER" ||
                  g.auto_pad == "SAME_LOWER",
              "{}: unknown auto_pad {}", op, g.auto_pad);
  Resolved r = resolve(g, x, w, op);
  std::vector<Dim> out = {x[0], w[0]};
  for (size_t i = 0; i < r.kernel.size(); i++) {
    const Dim& in = x[i + 2];
    int64_t dk = (r.kernel[i] - 1) * r.dilations[i] + 1;
    if (g.auto_pad == "SAME_UPPER" || g.auto_pad == "SAME_LOWER") {
      out.push_back(in.div_ceil(r.strides[i]));
    } else {
      int64_t pad =
          g.auto_pad == "VALID" || g.pads.empty() ? 0 : g.pads[i] + g.pads[i + r.kernel.size()];
      Dim span = in + Dim(pad - dk);
      if (span.is_int())
        KILN_ENSURE(span.to_int() >= 0, "{}: kernel larger than padded input on axis {}", op,
                    i + 2);
      out.push_back(span.div(r.strides[i]) + Dim(1));
    }
  }
  return out;
}

ConvResolved resolve_conv(const ConvGeometry& g, const Shape& x, const Shape& w,
                          const std::string& op) {
  std::vector<Dim> xd(x.begin(), x.end()), wd(w.begin(), w.end());
  std::vector<Dim> od = conv_output_dims(g, xd, wd, op);
  Resolved r = resolve(g, xd, wd, op);
  ConvResolved c;
  c.kernel = r.kernel;
  c.strides = r.strides;
  c.dilations = r.dilations;
  for (size_t i = 0; i < r.kernel.size(); i++)
    c.pad_begin.push_back(pads_for(g, r, i, x[i + 2]).first);
  for (const Dim& d : od) c.out.push_back(d.to_int());
  return c;
}

Dim conv_fma(const ConvGeometry& g, const std::vector<Dim>& x, const std::vector<Dim>& w,
             const std::string& op) {
  std::vector<Dim> out = conv_output_dims(g, x, w, op);
  Dim per_output = Dim(1);
  for (size_t i = 1; i < w.size(); i++) per_output = per_output * w[i];
  return dims_product(out) * per_output;
}

IntConv int_conv(const ConvGeometry& g, const Tensor& x, int32_t x_zp, const Tensor& w,
                 const std::vector<int32_t>& w_zp, const std::string& op) {
  std::vector<Dim> xd(x.shape().begin(), x.shape().end()), wd(w.shape().begin(), w.shape().end());
  std::vector<Dim> od = conv_output_dims(g, xd, wd, op);
  Resolved r = resolve(g, xd, wd, op);
  IntConv res;
  for (const Dim& d : od) res.shape.push_back(d.to_int());
  const size_t sp = r.kernel.size();
  const int64_t batch = x.dim(0), cin = x.dim(1), cout = w.dim(0);
  const int64_t cg = cin / g.group, mg = cout / g.group;
  KILN_ENSURE(w_zp.size() == 1 || static_cast<int64_t>(w_zp.size()) == cout,
              "{}: weight zero point must have 1 or {} values, got {}", op, cout, w_zp.size());
  std::vector<int64_t> pad_begin(sp);
  for (size_t i = 0; i < sp; i++) pad_begin[i] = pads_for(g, r, i, x.dim(i + 2)).first;
  Shape in_sp(x.shape().begin() + 2, x.shape().end());
  Shape out_sp(res.shape.begin() + 2, res.shape.end());
  const int64_t in_size = shape_numel(in_sp), out_size = shape_numel(out_sp);
  const int64_t k_size = shape_numel(r.kernel);
  std::vector<int32_t> xv = to_i32(x, op), wv = to_i32(w, op);
  res.acc.assign(accumulator_count(res.shape), 0);
  // No output, or no input channel (every sum is empty: zeros): nothing to visit (the kernel of
  // empty weights may declare huge dims).
  if (res.acc.empty() || cg == 0) return res;
  std::vector<int64_t> in_strides = contiguous_strides(in_sp);
  // Per output position, each kernel position's input offset or -1 when padded (computed per
  // position: a table for all of them was out_size x k_size int64, outside the memory budget).
  std::vector<int64_t> offs(static_cast<size_t>(k_size));
  std::vector<int64_t> oi(sp);
  for (int64_t o = 0; o < out_size; o++) {
    int64_t rem = o;
    for (size_t d = sp; d-- > 0;) {
      oi[d] = rem % out_sp[d];
      rem /= out_sp[d];
    }
    for (int64_t kf = 0; kf < k_size; kf++) {
      int64_t krem = kf, off = 0;
      bool inside = true;
      for (size_t d = sp; d-- > 0;) {
        int64_t ki = krem % r.kernel[d];
        krem /= r.kernel[d];
        int64_t pos = oi[d] * r.strides[d] - pad_begin[d] + ki * r.dilations[d];
        if (pos < 0 || pos >= in_sp[d]) inside = false;
        off += pos * in_strides[d];
      }
      offs[static_cast<size_t>(kf)] = inside ? off : -1;
    }
    for (int64_t nb = 0; nb < batch; nb++) {
      for (int64_t m = 0; m < cout; m++) {
        int64_t grp = m / mg;
        int32_t zw = w_zp[w_zp.size() == 1 ? 0 : static_cast<size_t>(m)];
        // int32 accumulation wraps (two's complement, as ONNX Runtime's) instead of overflowing.
        uint32_t sum = 0;
        for (int64_t c = 0; c < cg; c++) {
          const int32_t* xin = xv.data() + (nb * cin + grp * cg + c) * in_size;
          const int32_t* wk = wv.data() + (m * cg + c) * k_size;
          for (int64_t kf = 0; kf < k_size; kf++)
            if (offs[static_cast<size_t>(kf)] >= 0)
              sum += static_cast<uint32_t>((xin[offs[static_cast<size_t>(kf)]] - x_zp) *
                                           (wk[kf] - zw));
        }
        res.acc[static_cast<size_t>((nb * cout + m) * out_size + o)] = static_cast<int32_t>(sum);
      }
    }
  }
  return res;
}

}  // namespace kiln::ops::quant
