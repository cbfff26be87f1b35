#include "ops/quant/qlinear_matmul.h"

#include <array>
#include <cmath>
#include <limits>

#include "core/broadcast.h"
#include "kernels/quant/qmmm.h"
#include "ops/quant/quant_util.h"

namespace kiln::ops {

namespace {
// The float8 types QLinearMatMul takes since opset 21.
bool is_float8(DatumType dt) {
  return dt == DatumType::F8E4M3FN || dt == DatumType::F8E4M3FNUZ || dt == DatumType::F8E5M2 ||
         dt == DatumType::F8E5M2FNUZ;
}
}  // namespace

std::vector<Fact> QLinearMatMul::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 8, 8);
  const Fact& a = required(inputs, 0, name());
  const Fact& b = required(inputs, 3, name());
  auto quantized = [](DatumType dt) {
    return dt == DatumType::U8 || dt == DatumType::I8 || is_float8(dt);
  };
  KILN_ENSURE(quantized(a.dt), "QLinearMatMul: a must be u8, i8 or float8, got {}", name_of(a.dt));
  KILN_ENSURE(quantized(b.dt), "QLinearMatMul: b must be u8, i8 or float8, got {}", name_of(b.dt));
  for (size_t i : {1, 4, 6})
    KILN_ENSURE(is_float(required(inputs, i, name()).dt),
                "QLinearMatMul: input {} (a scale) must be float", i);
  KILN_ENSURE(required(inputs, 2, name()).dt == a.dt,
              "QLinearMatMul: a_zero_point type differs from a");
  KILN_ENSURE(required(inputs, 5, name()).dt == b.dt,
              "QLinearMatMul: b_zero_point type differs from b");
  const Fact& yzp = required(inputs, 7, name());
  KILN_ENSURE(quantized(yzp.dt), "QLinearMatMul: y_zero_point must be u8, i8 or float8, got {}",
              name_of(yzp.dt));
  return {Fact(yzp.dt, quant::matmul_output_dims(a.shape, b.shape, name()))};
}

namespace {

// Opset 21's float8 operands: dequantize (x - zero point) * scale, multiply in float, quantize
// the result (y / y_scale + y_zero_point, rounded to nearest even, saturating).
void float8_qlinear_matmul(EvalContext& ctx, const TensorRefs& in) {
  const Tensor &a = *in[0], &b = *in[3];
  KILN_ENSURE(a.rank() >= 2 && b.rank() >= 2, "QLinearMatMul: float8 operands must be 2-D or more");
  const int64_t m = a.dim(a.rank() - 2), k = a.dim(a.rank() - 1), n = b.dim(b.rank() - 1);
  KILN_ENSURE(b.dim(b.rank() - 2) == k, "QLinearMatMul: inner dims {} and {} differ", k,
              b.dim(b.rank() - 2));
  Shape a_batch(a.shape().begin(), a.shape().end() - 2),
      b_batch(b.shape().begin(), b.shape().end() - 2);
  Shape batch = broadcast_shapes({a_batch, b_batch});
  auto as = broadcast_strides(a_batch, batch), bs = broadcast_strides(b_batch, batch);
  Shape out = batch;
  out.push_back(m);
  out.push_back(n);
  Tensor& y = ctx.output(0, in[7]->dtype(), out);
  auto scale = [&](size_t i, int64_t j) {
    return in[i]->value_as_double(in[i]->numel() == 1 ? 0 : j);
  };
  const double y_scale = in[6]->value_as_double(0), y_zero = in[7]->value_as_double(0);
  const int64_t batches = shape_numel(batch);
  for (int64_t t = 0; t < batches; t++) {
    int64_t ao = 0, bo = 0;
    for (size_t d = batch.size(), r = static_cast<size_t>(t); d-- > 0;
         r /= static_cast<size_t>(batch[d])) {
      ao += static_cast<int64_t>(r % static_cast<size_t>(batch[d])) * as[d];
      bo += static_cast<int64_t>(r % static_cast<size_t>(batch[d])) * bs[d];
    }
    for (int64_t i = 0; i < m; i++)
      for (int64_t j = 0; j < n; j++) {
        double acc = 0;
        for (int64_t e = 0; e < k; e++) {
          double av =
              (a.value_as_double((ao * m + i) * k + e) - in[2]->value_as_double(0)) * scale(1, i);
          double bv =
              (b.value_as_double((bo * k + e) * n + j) - in[5]->value_as_double(0)) * scale(4, j);
          acc += av * bv;
        }
        const int64_t at = (t * m + i) * n + j;
        const double q = acc / y_scale + y_zero;
        dispatch_pod(y.dtype(), [&](auto tag) {
          using T = typename decltype(tag)::type;
          if constexpr (is_minifloat_v<T>)
            y.data<T>()[at] = T::from_bits(float_to_minifloat(T::format, static_cast<float>(q)));
          else if constexpr (std::is_integral_v<T>)
            quant::store_saturated(y, at, std::nearbyint(q));
        });
      }
  }
}

bool is_q8(DatumType dt) {
  return dt == DatumType::U8 || dt == DatumType::I8;
}

int32_t zero_point(const Tensor& z) {
  return z.dtype() == DatumType::U8 ? int32_t{z.data<uint8_t>()[0]} : int32_t{z.data<int8_t>()[0]};
}

// The common case (attention: two u8 / i8 activations, per-tensor parameters, ranks >= 2) on
// the int8 kernels: per batch item both operands packed into the session's scratch for the
// active ISA's Wide16 kernel (zero points subtracted when packing: exact for any of them), the
// i32 sums requantized in the fused epilogue with the float multiplier a_scale * b_scale /
// y_scale (as QMatMulPacked: within one step of the double requantization above, on ties).
// A steady-state run allocates nothing.
void qlinear_matmul_q8(EvalContext& ctx, const TensorRefs& in, const Shape& out_shape,
                       const Shape& batch, int64_t m, int64_t k, int64_t n) {
  const Tensor &a = *in[0], &b = *in[3];
  const int32_t za = zero_point(*in[2]), zb = zero_point(*in[5]);
  Tensor& y = ctx.output(0, in[7]->dtype(), out_shape);
  if (shape_numel(out_shape) == 0) return;
  const kernels::QMicroKernel& kern = kernels::default_q_kernel(false, false);
  void* ap = ctx.scratch<uint8_t>(kernels::qpacked_bytes(kern, true, m, k));
  void* bp = ctx.scratch<uint8_t>(kernels::qpacked_bytes(kern, false, n, k));
  float* mult = ctx.scratch<float>(static_cast<size_t>(m));
  const float mv = static_cast<float>(static_cast<double>(in[1]->data<float>()[0]) *
                                      in[4]->data<float>()[0] / in[6]->data<float>()[0]);
  for (int64_t i = 0; i < m; i++) mult[i] = mv;
  kernels::Epilogue ep;
  ep.output = in[7]->dtype() == DatumType::U8 ? kernels::OutputType::U8 : kernels::OutputType::I8;
  ep.out_zero_point = zero_point(*in[7]);
  ep.row_scale = mult;
  const Shape a_batch(a.shape().begin(), a.shape().end() - 2),
      b_batch(b.shape().begin(), b.shape().end() - 2);
  std::array<std::vector<int64_t>, 2> strides = {broadcast_strides(a_batch, batch),
                                                 broadcast_strides(b_batch, batch)};
  const auto* pa0 = static_cast<const uint8_t*>(a.raw_data());
  const auto* pb0 = static_cast<const uint8_t*>(b.raw_data());
  auto* py0 = static_cast<uint8_t*>(y.raw_data());
  for_each_broadcast<2>(batch, strides, [&](int64_t bi, const std::array<int64_t, 2>& off) {
    kernels::QOperand qa;
    qa.data = pa0 + off[0] * m * k;
    qa.is_signed = a.dtype() == DatumType::I8;
    qa.stride_lane = k;
    qa.stride_k = 1;
    qa.zp = &za;
    kernels::QOperand qb;
    qb.data = pb0 + off[1] * k * n;
    qb.is_signed = b.dtype() == DatumType::I8;
    qb.stride_lane = 1;
    qb.stride_k = n;
    qb.zp = &zb;
    kernels::qpack(kern, true, qa, m, k, ap);
    kernels::qpack(kern, false, qb, n, k, bp);
    kernels::qmmm(kern, m, n, k, ap, bp, ep, py0 + bi * m * n, n);
  });
}

}  // namespace

void QLinearMatMul::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  for (size_t i = 0; i < 8; i++) required(inputs, i, name());
  if (is_float8(inputs[0]->dtype()) || is_float8(inputs[3]->dtype()) ||
      is_float8(inputs[7]->dtype()))
    return float8_qlinear_matmul(ctx, inputs);
  {
    const Tensor &a = *inputs[0], &b = *inputs[3];
    bool fast = is_q8(a.dtype()) && is_q8(b.dtype()) && is_q8(inputs[7]->dtype()) &&
                a.rank() >= 2 && b.rank() >= 2 && a.dim(a.rank() - 1) == b.dim(b.rank() - 2);
    for (size_t i : {1, 4, 6})
      fast = fast && inputs[i]->dtype() == DatumType::F32 && inputs[i]->numel() == 1;
    for (size_t i : {2, 5, 7}) fast = fast && inputs[i]->numel() == 1;
    if (fast) {
      const int64_t m = a.dim(a.rank() - 2), k = a.dim(a.rank() - 1), n = b.dim(b.rank() - 1);
      const Shape a_batch(a.shape().begin(), a.shape().end() - 2),
          b_batch(b.shape().begin(), b.shape().end() - 2);
      const Shape batch = broadcast_shapes({a_batch, b_batch});
      Shape out = batch;
      out.push_back(m);
      out.push_back(n);
      qlinear_matmul_q8(ctx, inputs, out, batch, m, k, n);
      return;
    }
  }
  std::vector<float> as = quant::to_f32(*inputs[1], name());
  std::vector<float> bs = quant::to_f32(*inputs[4], name());
  std::vector<float> ys = quant::to_f32(*inputs[6], name());
  std::vector<int32_t> yz = quant::to_i32(*inputs[7], name());
  KILN_ENSURE(ys.size() == 1 && yz.size() == 1,
              "QLinearMatMul: y_scale and y_zero_point must hold one value");
  quant::IntMatMul r = quant::int_matmul(*inputs[0], *inputs[3], quant::to_i32(*inputs[2], name()),
                                         quant::to_i32(*inputs[5], name()), name());
  KILN_ENSURE(as.size() == 1 || static_cast<int64_t>(as.size()) == r.m,
              "QLinearMatMul: a_scale must have 1 or {} values", r.m);
  KILN_ENSURE(bs.size() == 1 || static_cast<int64_t>(bs.size()) == r.n,
              "QLinearMatMul: b_scale must have 1 or {} values", r.n);
  Tensor& y = ctx.output(0, inputs[7]->dtype(), r.shape);
  const int64_t total = static_cast<int64_t>(r.acc.size());
  for (int64_t i = 0; i < total; i++) {
    int64_t row = (i / r.n) % r.m, col = i % r.n;
    double mult = static_cast<double>(as[as.size() == 1 ? 0 : static_cast<size_t>(row)]) *
                  bs[bs.size() == 1 ? 0 : static_cast<size_t>(col)] / ys[0];
    quant::store_saturated(y, i, std::nearbyint(r.acc[static_cast<size_t>(i)] * mult) + yz[0]);
  }
}

Cost QLinearMatMul::cost(const FactRefs& inputs) const {
  Cost c;
  c.fma = quant::matmul_fma(required(inputs, 0, name()).shape, required(inputs, 3, name()).shape,
                            name());
  c.fma_type = DatumType::I32;
  return c;
}

}  // namespace kiln::ops
