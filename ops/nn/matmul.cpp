#include "ops/nn/matmul.h"

#include "base/error.h"
#include "core/broadcast.h"
#include "ops/nn/matmul_dynamic.h"
#include "ops/nn/matmul_packed.h"
#include "ops/nn/nn_common.h"

namespace kiln::ops {

namespace {

bool matmul_type(DatumType dt) {
  return is_float(dt) || dt == DatumType::I32 || dt == DatumType::I64 || dt == DatumType::U32 ||
         dt == DatumType::U64;
}

// Operand shapes as matrices (1-D promoted), batch dims, M, K, N and the output shape.
template <typename D>
struct Plan {
  std::vector<D> batch_a, batch_b, batch, out;
  D m, k_a, k_b, n;
};

template <typename D, typename Broadcast>
Plan<D> plan(const std::vector<D>& a_in, const std::vector<D>& b_in, Broadcast&& broadcast) {
  KILN_ENSURE(!a_in.empty() && !b_in.empty(), "MatMul: operands must have rank >= 1");
  std::vector<D> a = a_in, b = b_in;
  if (a.size() == 1) a.insert(a.begin(), D(1));
  if (b.size() == 1) b.push_back(D(1));
  Plan<D> p;
  p.m = a[a.size() - 2];
  p.k_a = a[a.size() - 1];
  p.k_b = b[b.size() - 2];
  p.n = b[b.size() - 1];
  p.batch_a.assign(a.begin(), a.end() - 2);
  p.batch_b.assign(b.begin(), b.end() - 2);
  p.batch = broadcast(p.batch_a, p.batch_b);
  p.out = p.batch;
  if (a_in.size() > 1) p.out.push_back(p.m);
  if (b_in.size() > 1) p.out.push_back(p.n);
  return p;
}

}  // namespace

std::vector<Fact> MatMul::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 2, 3);
  const Fact& a = required(inputs, 0, name());
  const Fact& b = required(inputs, 1, name());
  KILN_ENSURE(matmul_type(a.dt), "MatMul: unsupported type {}", name_of(a.dt));
  KILN_ENSURE(b.dt == a.dt, "MatMul: B type {} differs from A type {}", name_of(b.dt),
              name_of(a.dt));
  auto p = plan<Dim>(a.shape, b.shape, [](const std::vector<Dim>& x, const std::vector<Dim>& y) {
    return broadcast_dims({x, y});
  });
  if (p.k_a.is_int() && p.k_b.is_int()) {
    KILN_ENSURE(p.k_a == p.k_b, "MatMul: inner dims differ: [{}] x [{}]", dims_to_string(a.shape),
                dims_to_string(b.shape));
  }
  if (inputs.size() > 2 && inputs[2]) {
    const Fact& bias = *inputs[2];
    KILN_ENSURE(b.rank() >= 2, "MatMul: a bias needs a matrix B, got B [{}]",
                dims_to_string(b.shape));
    KILN_ENSURE(bias.dt == a.dt, "MatMul: bias type {} differs from A type {}", name_of(bias.dt),
                name_of(a.dt));
    KILN_ENSURE(
        bias.rank() == 1 && (!bias.shape[0].is_int() || !p.n.is_int() || bias.shape[0] == p.n),
        "MatMul: the bias must be 1-D with B's {} columns, got [{}]", p.n.to_string(),
        dims_to_string(bias.shape));
  }
  return {Fact(a.dt, p.out)};
}

Cost MatMul::cost(const FactRefs& inputs) const {
  std::vector<Fact> out = output_facts(inputs);
  const Fact& a = *inputs[0];
  Cost c;
  c.fma = out[0].volume() * a.shape.back();
  c.fma_type = a.dt;
  for (const Fact* f : inputs) {
    if (f && f->value) c.params_bytes += Dim(static_cast<int64_t>(f->value->nbytes()));
  }
  return c;
}

OpPtr MatMul::codegen(const FactRefs& inputs) const {
  if (inputs.size() < 2 || !inputs[0] || !inputs[1]) return nullptr;
  const Fact& a = *inputs[0];
  const Fact& b = *inputs[1];
  const Fact* bias = inputs.size() > 2 ? inputs[2] : nullptr;
  if (a.dt != DatumType::F32 || b.dt != DatumType::F32) return nullptr;
  if (!b.value && a.rank() >= 2 && b.rank() >= 2) {
    return std::make_shared<MatMulDynamic>(std::make_shared<MatMul>(*this));
  }
  if (!b.value || b.rank() < 2 || (bias && !bias->value)) return nullptr;
  // A constant B with leading dims of 1 (NNEF's matmul takes operands of one rank, so kiln's
  // archives store a [k, n] weight as [1, k, n]) is its [k, n] matrix, when A has at least its
  // rank: the output is then A's leading dims and n either way.
  for (size_t d = 0; d + 2 < b.rank(); d++)
    if (b.value->dim(d) != 1) return nullptr;
  if (b.rank() > 2 && a.rank() < b.rank()) return nullptr;
  const Tensor w =
      b.rank() == 2 ? *b.value
                    : b.value->reshaped({b.value->dim(b.rank() - 2), b.value->dim(b.rank() - 1)});
  if (a.rank() < 1 || !a.shape.back().is_int() || a.shape.back().to_int() != w.dim(0)) {
    return nullptr;
  }
  MatMulPacked::Config config;
  if (bias) {
    const float* v = bias->value->data<float>();
    config.col_bias.assign(v, v + bias->value->numel());
  }
  return std::make_shared<MatMulPacked>(std::make_shared<MatMul>(*this), w, false,
                                        std::move(config));
}

namespace {

template <typename T>
void matmul(const Tensor& a, const Tensor& b, const Plan<int64_t>& p, Tensor& y) {
  using A = nn::Acc<T>;
  std::vector<A> abuf, bbuf, acc;
  const A* ad = nn::as_acc<A>(a.data<T>(), a.numel(), abuf);
  const A* bd = nn::as_acc<A>(b.data<T>(), b.numel(), bbuf);
  int64_t m = p.m, n = p.n, k = p.k_a;
  A* out;
  if constexpr (std::is_same_v<A, T>) {
    out = y.data<T>();
  } else {
    acc.resize(static_cast<size_t>(y.numel()));
    out = acc.data();
  }
  for (int64_t i = 0; i < y.numel(); i++) out[i] = A(0);
  // Broadcast strides over the batch dims, in whole matrices.
  std::vector<int64_t> sa = broadcast_strides(p.batch_a, p.batch);
  std::vector<int64_t> sb = broadcast_strides(p.batch_b, p.batch);
  for_each_broadcast<2>(p.batch, {sa, sb}, [&](int64_t i, const std::array<int64_t, 2>& off) {
    nn::matmul_acc<A>(m, n, k, ad + off[0] * m * k, k, 1, bd + off[1] * k * n, n, out + i * m * n,
                      n);
  });
  if constexpr (!std::is_same_v<A, T>) {
    T* yd = y.data<T>();
    for (int64_t i = 0; i < y.numel(); i++) yd[i] = nn::from_acc<T>(out[i]);
  }
}

template <typename T>
void add_bias_rows(Tensor& y, const Tensor& bias) {
  T* yd = y.data<T>();
  const T* bd = bias.data<T>();
  int64_t n = bias.numel();
  for (int64_t i = 0; i < y.numel(); i++) yd[i] = T(yd[i] + bd[i % n]);
}

// y += bias along the last axis.
void add_bias(Tensor& y, const Tensor& bias) {
  KILN_ENSURE(bias.dtype() == y.dtype() && bias.rank() == 1 && y.rank() >= 1 &&
                  bias.numel() == y.shape().back(),
              "MatMul: bias [{}] does not match the product [{}]", shape_to_string(bias.shape()),
              shape_to_string(y.shape()));
  switch (y.dtype()) {
    case DatumType::F32:
      return add_bias_rows<float>(y, bias);
    case DatumType::F64:
      return add_bias_rows<double>(y, bias);
    case DatumType::F16:
      return add_bias_rows<f16>(y, bias);
    case DatumType::BF16:
      return add_bias_rows<bf16>(y, bias);
    case DatumType::I32:
      return add_bias_rows<int32_t>(y, bias);
    case DatumType::I64:
      return add_bias_rows<int64_t>(y, bias);
    case DatumType::U32:
      return add_bias_rows<uint32_t>(y, bias);
    case DatumType::U64:
      return add_bias_rows<uint64_t>(y, bias);
    default:
      fail("MatMul: unsupported type {}", name_of(y.dtype()));
  }
}

}  // namespace

void MatMul::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& a = required(inputs, 0, name());
  const Tensor& b = required(inputs, 1, name());
  KILN_ENSURE(a.dtype() == b.dtype(), "MatMul: operand types differ");
  auto p = plan<int64_t>(a.shape(), b.shape(), [](const Shape& x, const Shape& y) {
    return broadcast_shapes({x, y});
  });
  KILN_ENSURE(p.k_a == p.k_b, "MatMul: inner dims differ: [{}] x [{}]", shape_to_string(a.shape()),
              shape_to_string(b.shape()));
  Tensor& y = ctx.output(0, a.dtype(), p.out);
  if (y.numel() == 0) return;
  switch (a.dtype()) {
    case DatumType::F32:
      matmul<float>(a, b, p, y);
      break;
    case DatumType::F64:
      matmul<double>(a, b, p, y);
      break;
    case DatumType::F16:
      matmul<f16>(a, b, p, y);
      break;
    case DatumType::BF16:
      matmul<bf16>(a, b, p, y);
      break;
    case DatumType::I32:
      matmul<int32_t>(a, b, p, y);
      break;
    case DatumType::I64:
      matmul<int64_t>(a, b, p, y);
      break;
    case DatumType::U32:
      matmul<uint32_t>(a, b, p, y);
      break;
    case DatumType::U64:
      matmul<uint64_t>(a, b, p, y);
      break;
    default:
      fail("MatMul: unsupported type {}", name_of(a.dtype()));
  }
  if (inputs.size() > 2 && inputs[2]) add_bias(y, *inputs[2]);
}

}  // namespace kiln::ops
