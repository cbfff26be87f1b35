#include "ops/nn/matmul_dynamic.h"

#include <array>

#include "base/error.h"

namespace kiln::ops {

namespace {

using Dims = MatMulDynamic::Dims;

std::string perm_string(const std::vector<size_t>& perm) {
  std::string s = "[";
  for (size_t i = 0; i < perm.size(); i++) s += (i ? "," : "") + std::to_string(perm[i]);
  return s + "]";
}

// Whether `perm` is empty (no transpose) or a permutation of `rank` axes.
bool valid_perm(const std::vector<size_t>& perm, size_t rank) {
  if (perm.empty()) return true;
  if (perm.size() != rank || rank > 32) return false;
  uint32_t seen = 0;  // (no allocation: eval checks layouts on every run)
  for (size_t p : perm) {
    if (p >= rank || (seen >> p & 1u)) return false;
    seen |= 1u << p;
  }
  return true;
}

Fact permuted(const Fact& f, const std::vector<size_t>& perm) {
  if (perm.empty()) return f;
  Fact out = f;
  for (size_t d = 0; d < perm.size(); d++) out.shape[d] = f.shape[perm[d]];
  out.value = nullptr;
  return out;
}

// Dims and element strides of Transpose(t, perm) read in place from the contiguous tensor t.
void view(const Tensor& t, const std::vector<size_t>& perm, Dims& dims, Dims& strides) {
  const size_t r = t.rank();
  Dims st{};
  // Unsigned: an empty tensor declaring huge dims may wrap its strides (they address nothing).
  uint64_t s = 1;
  for (size_t d = r; d-- > 0;) {
    st[d] = static_cast<int64_t>(s);
    s *= static_cast<uint64_t>(t.dim(d));
  }
  for (size_t d = 0; d < r; d++) {
    size_t src = perm.empty() ? d : perm[d];
    dims[d] = t.dim(src);
    strides[d] = st[src];
  }
}

}  // namespace

MatMulDynamic::MatMulDynamic(std::shared_ptr<const MatMul> reference, Layout layout)
    : reference_(std::move(reference)),
      kernel_(&kernels::default_micro_kernel()),
      layout_(std::move(layout)) {
  for (const auto* p : {&layout_.a, &layout_.b, &layout_.y}) {
    KILN_ENSURE(
        p->empty() || (p->size() >= 2 && p->size() <= kMaxLayoutRank && valid_perm(*p, p->size())),
        "MatMulDynamic: {} is not a permutation of 2 to {} axes", perm_string(*p), kMaxLayoutRank);
  }
  KILN_ENSURE(layout_.y.empty() || layout_.y.back() == layout_.y.size() - 1,
              "MatMulDynamic: the output permutation {} must keep the last axis last",
              perm_string(layout_.y));
}

Attributes MatMulDynamic::attributes() const {
  Attributes attrs;
  if (!layout_.a.empty()) attrs.emplace_back("a_perm", perm_string(layout_.a));
  if (!layout_.b.empty()) attrs.emplace_back("b_perm", perm_string(layout_.b));
  if (!layout_.y.empty()) attrs.emplace_back("y_perm", perm_string(layout_.y));
  return attrs;
}

std::vector<Fact> MatMulDynamic::output_facts(const FactRefs& inputs) const {
  if (layout_.empty()) return reference_->output_facts(inputs);
  expect_inputs(name(), inputs.size(), 2, 3);
  const Fact& a = required(inputs, 0, name());
  const Fact& b = required(inputs, 1, name());
  KILN_ENSURE(valid_perm(layout_.a, a.rank()) && valid_perm(layout_.b, b.rank()),
              "MatMulDynamic: operand ranks {} and {} do not fit the layout", a.rank(), b.rank());
  Fact pa = permuted(a, layout_.a), pb = permuted(b, layout_.b);
  FactRefs refs = {&pa, &pb};
  if (inputs.size() > 2) refs.push_back(inputs[2]);
  std::vector<Fact> out = reference_->output_facts(refs);
  KILN_ENSURE(valid_perm(layout_.y, out[0].rank()),
              "MatMulDynamic: the result's rank {} does not fit the output permutation {}",
              out[0].rank(), perm_string(layout_.y));
  out[0] = permuted(out[0], layout_.y);
  return out;
}

Cost MatMulDynamic::cost(const FactRefs& inputs) const {
  if (layout_.empty()) return reference_->cost(inputs);
  Fact pa = permuted(required(inputs, 0, name()), layout_.a);
  Fact pb = permuted(required(inputs, 1, name()), layout_.b);
  FactRefs refs = {&pa, &pb};
  if (inputs.size() > 2) refs.push_back(inputs[2]);
  return reference_->cost(refs);
}

bool MatMulDynamic::eval_broadcast(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& a = *inputs[0];
  const Tensor& b = *inputs[1];
  const size_t ra = a.rank(), rb = b.rank(), r = std::max(ra, rb);
  if (r > kMaxLayoutRank) return false;
  const int64_t m = a.dim(ra - 2), k = a.dim(ra - 1), n = b.dim(rb - 1);
  if (b.dim(rb - 2) != k) return false;
  // Batch dims right-aligned, missing ones 1; a dim of 1 is read again for every index (stride 0).
  Dims batch{}, sa{}, sb{};
  int64_t step_a = m * k, step_b = k * n;
  for (size_t d = r - 2; d-- > 0;) {
    const int64_t da = d + ra >= r ? a.dim(d + ra - r) : 1;
    const int64_t db = d + rb >= r ? b.dim(d + rb - r) : 1;
    if (da != db && da != 1 && db != 1) return false;
    batch[d] = std::max(da, db);
    sa[d] = da == 1 ? 0 : step_a;
    sb[d] = db == 1 ? 0 : step_b;
    step_a *= da;
    step_b *= db;
  }
  Shape& out = ctx.temp_shape(0);  // reusable: no allocation per run
  out.assign(batch.begin(), batch.begin() + static_cast<std::ptrdiff_t>(r - 2));
  out.push_back(m);
  out.push_back(n);
  Tensor& y = ctx.output(0, DatumType::F32, out);
  if (y.numel() == 0) return true;
  Dims sy{};
  int64_t s = 1;
  for (size_t d = r; d-- > 0;) {
    sy[d] = s;
    s *= out[d];
  }
  sa[r - 2] = k, sa[r - 1] = 1;
  sb[r - 2] = n, sb[r - 1] = 1;
  products(ctx, inputs, r, batch, sa, sb, sy, m, n, k, y.data<float>());
  return true;
}

void MatMulDynamic::products(EvalContext& ctx, const TensorRefs& inputs, size_t r,
                             const Dims& batch, const Dims& sa, const Dims& sb, const Dims& sy,
                             int64_t m, int64_t n, int64_t k, float* py) const {
  kernels::Epilogue ep;
  if (inputs.size() > 2 && inputs[2]) {  // MatMul's bias: one value per column
    const Tensor& bias = *inputs[2];
    KILN_ENSURE(bias.dtype() == DatumType::F32 && bias.numel() == n,
                "MatMul: bias [{}] does not match {} columns", shape_to_string(bias.shape()), n);
    ep.col_bias = bias.data<float>();
  }
  int64_t batches = 1;
  for (size_t d = 0; d + 2 < r; d++) batches *= batch[d];
  const float* pa = inputs[0]->data<float>();
  const float* pb = inputs[1]->data<float>();
  // Product after product, each splitting its tiles over the threads, with one plan (the same
  // shape every time) and the session's scratch.
  const kernels::MmmPlan plan = kernels::plan_mmm(*kernel_, m, n, k, false, false);
  float* scratch = ctx.scratch<float>(plan.scratch_floats);
  for (int64_t i = 0; i < batches; i++) {
    int64_t oa = 0, ob = 0, oy = 0, rem = i;
    for (size_t d = r - 2; d-- > 0;) {
      const int64_t idx = rem % batch[d];
      rem /= batch[d];
      oa += idx * sa[d];
      ob += idx * sb[d];
      oy += idx * sy[d];
    }
    kernels::StridedSource src_a(pa + oa, m, k, sa[r - 2], sa[r - 1], kernel_->mr);
    kernels::StridedSource src_b(pb + ob, n, k, sb[r - 1], sb[r - 2], kernel_->nr);
    kernels::mmm(plan, src_a, src_b, ep, py + oy, sy[r - 2], scratch);
  }
}

void MatMulDynamic::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& a = required(inputs, 0, name());
  const Tensor& b = required(inputs, 1, name());
  const size_t r = a.rank();
  // Operands of different ranks or broadcast batch dims (a constant [d, c] by [n, c, t]):
  // the products along the broadcast batch, each operand read in place.
  if (layout_.empty() && a.dtype() == DatumType::F32 && b.dtype() == DatumType::F32 && r >= 2 &&
      b.rank() >= 2) {
    bool same = b.rank() == r;
    for (size_t d = 0; same && d + 2 < r; d++) same = a.dim(d) == b.dim(d);
    if (!same && eval_broadcast(ctx, inputs)) return;
  }
  const bool typed = a.dtype() == DatumType::F32 && b.dtype() == DatumType::F32 && r >= 2 &&
                     b.rank() == r && r <= kMaxLayoutRank && valid_perm(layout_.a, r) &&
                     valid_perm(layout_.b, r) && valid_perm(layout_.y, r);
  Dims da{}, sa{}, db{}, sb{};
  bool same_batch = typed;
  if (typed) {
    view(a, layout_.a, da, sa);
    view(b, layout_.b, db, sb);
    for (size_t d = 0; d + 2 < r; d++) same_batch = same_batch && da[d] == db[d];
    same_batch = same_batch && da[r - 1] == db[r - 2];
  }
  if (!same_batch) {
    KILN_ENSURE(layout_.empty(),
                "MatMulDynamic: operands [{}] and [{}] do not fit its transposed layout (the "
                "shapes changed since the graph was optimized)",
                shape_to_string(a.shape()), shape_to_string(b.shape()));
    reference_->eval(ctx, inputs);
    return;
  }
  const int64_t m = da[r - 2], k = da[r - 1], n = db[r - 1];
  // The raw result [batch..., m, n] and where it lands in the (transposed) output.
  Dims raw{};
  for (size_t d = 0; d + 2 < r; d++) raw[d] = da[d];
  raw[r - 2] = m;
  raw[r - 1] = n;
  Shape& out = ctx.temp_shape(0);  // reusable: no allocation per run
  out.clear();
  for (size_t d = 0; d < r; d++) out.push_back(raw[layout_.y.empty() ? d : layout_.y[d]]);
  Tensor& y = ctx.output(0, DatumType::F32, out);
  if (y.numel() == 0) return;
  Dims sy{};  // strides of the raw result's axes inside y
  int64_t s = 1;
  for (size_t d = r; d-- > 0;) {
    sy[layout_.y.empty() ? d : layout_.y[d]] = s;
    s *= out[d];
  }
  products(ctx, inputs, r, da, sa, sb, sy, m, n, k, y.data<float>());
}

}  // namespace kiln::ops
