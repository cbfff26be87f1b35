#include "ops/nn/gemm.h"

#include <type_traits>

#include "base/error.h"
#include "base/saturate.h"
#include "core/broadcast.h"
#include "ops/nn/matmul_packed.h"
#include "ops/nn/nn_common.h"

namespace kiln::ops {

namespace {
bool gemm_type(DatumType dt) {
  return is_float(dt) || dt == DatumType::I32 || dt == DatumType::I64 || dt == DatumType::U32 ||
         dt == DatumType::U64;
}
}  // namespace

Attributes Gemm::attributes() const {
  Attributes attrs;
  if (alpha_ != 1.0f) attrs.emplace_back("alpha", fmt::format("{}", alpha_));
  if (beta_ != 1.0f) attrs.emplace_back("beta", fmt::format("{}", beta_));
  if (trans_a_) attrs.emplace_back("transA", "1");
  if (trans_b_) attrs.emplace_back("transB", "1");
  return attrs;
}

std::vector<Fact> Gemm::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 2, 3);
  const Fact& a = required(inputs, 0, name());
  const Fact& b = required(inputs, 1, name());
  KILN_ENSURE(gemm_type(a.dt), "Gemm: unsupported type {}", name_of(a.dt));
  KILN_ENSURE(b.dt == a.dt, "Gemm: B type {} differs from A type {}", name_of(b.dt), name_of(a.dt));
  KILN_ENSURE(a.rank() == 2 && b.rank() == 2, "Gemm: A and B must be matrices, got [{}] and [{}]",
              dims_to_string(a.shape), dims_to_string(b.shape));
  Dim m = trans_a_ ? a.shape[1] : a.shape[0], ka = trans_a_ ? a.shape[0] : a.shape[1];
  Dim kb = trans_b_ ? b.shape[1] : b.shape[0], n = trans_b_ ? b.shape[0] : b.shape[1];
  if (ka.is_int() && kb.is_int()) {
    KILN_ENSURE(ka == kb, "Gemm: inner dims differ: A [{}] and B [{}] (transA={}, transB={})",
                dims_to_string(a.shape), dims_to_string(b.shape), trans_a_, trans_b_);
  }
  if (inputs.size() > 2 && inputs[2]) {
    const Fact& c = *inputs[2];
    KILN_ENSURE(c.dt == a.dt, "Gemm: C type {} differs from A type {}", name_of(c.dt),
                name_of(a.dt));
    KILN_ENSURE(c.rank() <= 2, "Gemm: C rank {} must be at most 2", c.rank());
    std::vector<Dim> out = {m, n};
    KILN_ENSURE(broadcast_dims({out, c.shape}) == out,
                "Gemm: C shape [{}] does not broadcast to [{}]", dims_to_string(c.shape),
                dims_to_string(out));
  }
  return {Fact(a.dt, std::vector<Dim>{m, n})};
}

Cost Gemm::cost(const FactRefs& inputs) const {
  std::vector<Fact> out = output_facts(inputs);
  const Fact& a = *inputs[0];
  Cost c;
  c.fma = out[0].volume() * (trans_a_ ? a.shape[0] : a.shape[1]);
  c.fma_type = a.dt;
  for (size_t i = 0; i < inputs.size(); i++) {
    if (inputs[i] && inputs[i]->value) {
      c.params_bytes += Dim(static_cast<int64_t>(inputs[i]->value->nbytes()));
    }
  }
  return c;
}

OpPtr Gemm::codegen(const FactRefs& inputs) const {
  if (inputs.size() < 2 || !inputs[0] || !inputs[1]) return nullptr;
  const Fact& a = *inputs[0];
  const Fact& b = *inputs[1];
  if (a.dt != DatumType::F32 || b.dt != DatumType::F32 || !b.value || b.rank() != 2) return nullptr;
  if (a.rank() != 2) return nullptr;
  int64_t n = trans_b_ ? b.value->dim(0) : b.value->dim(1);
  MatMulPacked::Config config;
  config.gemm = true;
  config.trans_a = trans_a_;
  config.alpha = alpha_;
  const Fact* c = inputs.size() > 2 ? inputs[2] : nullptr;
  if (c && beta_ != 0.0f) {
    // Only a constant C that is the same for every row fuses as a column bias.
    if (!c->value || c->dt != DatumType::F32) return nullptr;
    const Tensor& cv = *c->value;
    bool row_vector =
        cv.numel() == 1 || (cv.rank() >= 1 && cv.shape().back() == n && cv.numel() == n);
    if (!row_vector) return nullptr;
    const float* cd = cv.data<float>();
    for (int64_t j = 0; j < n; j++) config.col_bias.push_back(beta_ * cd[cv.numel() == 1 ? 0 : j]);
  }
  return std::make_shared<MatMulPacked>(std::make_shared<Gemm>(*this), *b.value, trans_b_,
                                        std::move(config));
}

namespace {

template <typename T>
void gemm(const Tensor& a, const Tensor& b, const Tensor* c, int64_t m, int64_t n, int64_t k,
          bool ta, bool tb, double alpha, double beta, Tensor& y) {
  // Integers multiply and add on an unsigned type (nn::WrapMulOf, shared with matmul_acc): they
  // wrap like two's complement (as ONNX Runtime's int Gemm does) instead of overflowing.
  using Acc = nn::Acc<T>;
  using A = nn::WrapMulOf<Acc>;
  std::vector<A> abuf, bbuf, acc;
  const A* ad = nn::as_acc<A>(a.data<T>(), a.numel(), abuf);
  const A* bd = nn::as_acc<A>(b.data<T>(), b.numel(), bbuf);
  A* out;
  if constexpr (std::is_same_v<A, T>) {
    out = y.data<T>();
  } else {
    acc.resize(static_cast<size_t>(m * n));
    out = acc.data();
  }
  for (int64_t i = 0; i < m * n; i++) out[i] = A(0);
  if (tb && !ta) {
    // B is [N, K]: rows of A and B are both contiguous, so use dot products.
    for (int64_t i = 0; i < m; i++) {
      for (int64_t j = 0; j < n; j++) {
        const A* ar = ad + i * k;
        const A* br = bd + j * k;
        A s0 = 0, s1 = 0, s2 = 0, s3 = 0;
        int64_t q = 0;
        for (; q + 4 <= k; q += 4) {
          s0 += ar[q] * br[q];
          s1 += ar[q + 1] * br[q + 1];
          s2 += ar[q + 2] * br[q + 2];
          s3 += ar[q + 3] * br[q + 3];
        }
        for (; q < k; q++) s0 += ar[q] * br[q];
        out[i * n + j] = (s0 + s1) + (s2 + s3);
      }
    }
  } else {
    std::vector<A> packed;
    if (tb) {
      packed.resize(static_cast<size_t>(k * n));
      for (int64_t j = 0; j < n; j++) {
        for (int64_t q = 0; q < k; q++) packed[static_cast<size_t>(q * n + j)] = bd[j * k + q];
      }
      bd = packed.data();
    }
    nn::matmul_acc<A>(m, n, k, ad, ta ? 1 : k, ta ? m : 1, bd, n, out, n);
  }
  T* yd = y.data<T>();
  std::vector<int64_t> cstrides;
  const T* cd = nullptr;
  if (c && beta != 0) {
    cstrides = broadcast_strides(c->shape(), {m, n});
    cd = c->data<T>();
  }
  bool plain = alpha == 1.0 && (cd == nullptr || beta == 1.0);
  for (int64_t i = 0; i < m; i++) {
    for (int64_t j = 0; j < n; j++) {
      A v = out[i * n + j];
      A cv = cd ? nn::to_acc<A>(cd[i * cstrides[0] + j * cstrides[1]]) : A(0);
      if (plain) {
        yd[i * n + j] = nn::from_acc<T>(static_cast<A>(v + cv));
      } else {
        // Integer types scale through double, like the spec's float alpha and beta.
        if constexpr (std::is_floating_point_v<A>) {
          A r = static_cast<A>(alpha) * v + static_cast<A>(beta) * cv;
          yd[i * n + j] = nn::from_acc<T>(r);
        } else {
          double r = alpha * static_cast<double>(static_cast<Acc>(v)) +
                     beta * static_cast<double>(static_cast<Acc>(cv));
          yd[i * n + j] = saturate_int<T>(r);
        }
      }
    }
  }
}

}  // namespace

void Gemm::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& a = required(inputs, 0, name());
  const Tensor& b = required(inputs, 1, name());
  const Tensor* c = inputs.size() > 2 ? inputs[2] : nullptr;
  KILN_ENSURE(a.rank() == 2 && b.rank() == 2 && a.dtype() == b.dtype(),
              "Gemm: A and B must be matrices of one type");
  int64_t m = trans_a_ ? a.dim(1) : a.dim(0), k = trans_a_ ? a.dim(0) : a.dim(1);
  int64_t kb = trans_b_ ? b.dim(1) : b.dim(0), n = trans_b_ ? b.dim(0) : b.dim(1);
  KILN_ENSURE(k == kb, "Gemm: inner dims differ: A [{}] and B [{}]", shape_to_string(a.shape()),
              shape_to_string(b.shape()));
  if (c) {
    KILN_ENSURE(c->dtype() == a.dtype() && c->rank() <= 2 &&
                    broadcast_shapes({Shape{m, n}, c->shape()}) == Shape({m, n}),
                "Gemm: C [{}] does not broadcast to [{},{}]", shape_to_string(c->shape()), m, n);
  }
  Tensor& y = ctx.output(0, a.dtype(), {m, n});
  switch (a.dtype()) {
    case DatumType::F32:
      gemm<float>(a, b, c, m, n, k, trans_a_, trans_b_, alpha_, beta_, y);
      break;
    case DatumType::F64:
      gemm<double>(a, b, c, m, n, k, trans_a_, trans_b_, alpha_, beta_, y);
      break;
    case DatumType::F16:
      gemm<f16>(a, b, c, m, n, k, trans_a_, trans_b_, alpha_, beta_, y);
      break;
    case DatumType::BF16:
      gemm<bf16>(a, b, c, m, n, k, trans_a_, trans_b_, alpha_, beta_, y);
      break;
    case DatumType::I32:
      gemm<int32_t>(a, b, c, m, n, k, trans_a_, trans_b_, alpha_, beta_, y);
      break;
    case DatumType::I64:
      gemm<int64_t>(a, b, c, m, n, k, trans_a_, trans_b_, alpha_, beta_, y);
      break;
    case DatumType::U32:
      gemm<uint32_t>(a, b, c, m, n, k, trans_a_, trans_b_, alpha_, beta_, y);
      break;
    case DatumType::U64:
      gemm<uint64_t>(a, b, c, m, n, k, trans_a_, trans_b_, alpha_, beta_, y);
      break;
    default:
      fail("Gemm: unsupported type {}", name_of(a.dtype()));
  }
}

}  // namespace kiln::ops
