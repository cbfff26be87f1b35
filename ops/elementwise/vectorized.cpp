#include "ops/elementwise/vectorized.h"

#include "base/error.h"
#include "base/threading.h"
#include "core/broadcast.h"
#include "kernels/elementwise/vec_math.h"

namespace kiln::ops {

namespace {

// `s` right-aligned to `rank` dims, padded with leading 1s, into `out`.
const Shape& padded(const Shape& s, size_t rank, Shape& out) {
  out.assign(rank - s.size(), 1);
  out.insert(out.end(), s.begin(), s.end());
  return out;
}

// When `small` (padded) is 1 on a leading block of axes and equal to `full` after: the size of
// that trailing block (0 otherwise).
int64_t trailing_block(const Shape& small, const Shape& full) {
  size_t i = 0;
  while (i < full.size() && small[i] == 1 && full[i] != 1) i++;
  int64_t inner = 1;
  for (size_t j = i; j < full.size(); j++) {
    if (small[j] != full[j]) return 0;
    inner *= full[j];
  }
  return inner;
}

// When `small` (padded) equals `full` on a leading block of axes and is 1 after: the size of
// that leading block (0 otherwise).
int64_t leading_block(const Shape& small, const Shape& full) {
  size_t i = full.size();
  while (i > 0 && small[i - 1] == 1 && full[i - 1] != 1) i--;
  int64_t outer = 1;
  for (size_t j = 0; j < i; j++) {
    if (small[j] != full[j]) return 0;
    outer *= full[j];
  }
  return outer;
}

}  // namespace

void BinaryF32::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& a = required(inputs, 0, name());
  if (square_) {
    KILN_ENSURE(a.dtype() == DatumType::F32, "{}: input must be f32", name());
    Tensor& y = ctx.output(0, DatumType::F32, a.shape());
    kernels::vec_math().binary(2, 0, a.data<float>(), a.data<float>(), y.data<float>(), a.numel());
    return;
  }
  const Tensor& b = required(inputs, 1, name());
  if (a.dtype() != DatumType::F32 || b.dtype() != DatumType::F32 || !binary_f32(ctx, op_, a, b))
    reference_->eval(ctx, inputs);
}

bool binary_f32(EvalContext& ctx, int op, const Tensor& a, const Tensor& b) {
  Shape& out = ctx.temp_shape(0);  // reusable shapes: no allocation per run
  broadcast_shapes_into(a.shape(), b.shape(), out);
  const int64_t n = shape_numel(out);
  const auto& vm = kernels::vec_math();
  const float* ad = a.data<float>();
  const float* bd = b.data<float>();
  const bool a_full = a.shape() == out, b_full = b.shape() == out;
  // Equal shapes or a scalar operand: one loop, split across threads when large.
  const int mode = a_full && b_full           ? 0
                   : a_full && b.numel() == 1 ? 1
                   : b_full && a.numel() == 1 ? 2
                                              : -1;
  if (mode >= 0) {
    Tensor& y = ctx.output(0, DatumType::F32, out);
    float* yd = y.data<float>();
    parallel_for_work(n, 1, [&](int64_t begin, int64_t end) {
      vm.binary(op, mode, mode == 2 ? ad : ad + begin, mode == 1 ? bd : bd + begin, yd + begin,
                end - begin);
    });
    return true;
  }
  if (a_full || b_full) {
    const Shape& small = padded(a_full ? b.shape() : a.shape(), out.size(), ctx.temp_shape(1));
    const float* big = a_full ? ad : bd;
    const float* other = a_full ? bd : ad;
    if (int64_t inner = trailing_block(small, out); inner > 0) {
      Tensor& y = ctx.output(0, DatumType::F32, out);
      float* yd = y.data<float>();
      parallel_for_work(n / inner, inner, [&](int64_t begin, int64_t end) {
        for (int64_t o = begin * inner; o < end * inner; o += inner) {
          const float* x = big + o;
          vm.binary(op, 0, a_full ? x : other, a_full ? other : x, yd + o, inner);
        }
      });
      return true;
    }
    if (int64_t outer = leading_block(small, out); outer > 0) {
      Tensor& y = ctx.output(0, DatumType::F32, out);
      float* yd = y.data<float>();
      const int64_t inner = n / outer;
      // A value per row (a per-channel scale on NCHW): rows split across threads when large.
      parallel_for_work(outer, inner, [&](int64_t begin, int64_t end) {
        for (int64_t r = begin; r < end; r++) {
          const float* x = big + r * inner;
          if (a_full) {
            vm.binary(op, 1, x, other + r, yd + r * inner, inner);
          } else {
            vm.binary(op, 2, other + r, x, yd + r * inner, inner);
          }
        }
      });
      return true;
    }
  }
  return false;
}

void UnaryF32::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& x = required(inputs, 0, name());
  const auto k = unary_kernel(reference_->kind(), reference_->params());
  if (x.dtype() != DatumType::F32 || !k) {
    reference_->eval(ctx, inputs);
    return;
  }
  Tensor& y = ctx.output(0, DatumType::F32, x.shape());
  const float* xd = x.data<float>();
  float* yd = y.data<float>();
  const auto& vm = kernels::vec_math();
  // Transcendental: ~4 times the work of a copy per element.
  parallel_for_work(x.numel(), 4, [&](int64_t begin, int64_t end) {
    vm.unary(k->fn, xd + begin, yd + begin, end - begin, k->alpha, k->beta);
  });
}

}  // namespace kiln::ops
