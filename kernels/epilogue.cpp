#include "kernels/epilogue.h"

#include <cmath>

#include "base/error.h"
#include "kernels/elementwise/vec_math.h"
#include "kernels/epilogue_impl.h"
#include "kernels/mmm/tile_args.h"

namespace kiln::kernels {

const char* unary_fn_name(UnaryFn fn) {
  switch (fn) {
    case UnaryFn::Exp:
      return "Exp";
    case UnaryFn::Sigmoid:
      return "Sigmoid";
    case UnaryFn::Tanh:
      return "Tanh";
    case UnaryFn::Erf:
      return "Erf";
    case UnaryFn::Gelu:
      return "Gelu";
    case UnaryFn::GeluTanh:
      return "GeluTanh";
    case UnaryFn::Silu:
      return "Silu";
    case UnaryFn::HardSigmoid:
      return "HardSigmoid";
    case UnaryFn::HardSwish:
      return "HardSwish";
    case UnaryFn::LeakyRelu:
      return "LeakyRelu";
    case UnaryFn::Clamp:
      return "Clip";
    case UnaryFn::Elu:
      return "Elu";
    case UnaryFn::Selu:
      return "Selu";
    case UnaryFn::Celu:
      return "Celu";
    case UnaryFn::Softplus:
      return "Softplus";
    case UnaryFn::Mish:
      return "Mish";
    case UnaryFn::Softsign:
      return "Softsign";
    case UnaryFn::ThresholdedRelu:
      return "ThresholdedRelu";
    case UnaryFn::Abs:
      return "Abs";
    case UnaryFn::Neg:
      return "Neg";
    case UnaryFn::Sqrt:
      return "Sqrt";
    case UnaryFn::Reciprocal:
      return "Reciprocal";
    case UnaryFn::Log:
      return "Log";
  }
  return "?";
}

const char* binary_fn_name(BinaryFn fn) {
  switch (fn) {
    case BinaryFn::Add:
      return "Add";
    case BinaryFn::Sub:
      return "Sub";
    case BinaryFn::Mul:
      return "Mul";
    case BinaryFn::Div:
      return "Div";
    case BinaryFn::Max:
      return "Max";
    case BinaryFn::Min:
      return "Min";
    case BinaryFn::PRelu:
      return "PRelu";
  }
  return "?";
}

namespace {

// Row loops the compiler vectorizes (no aliasing between the tile row and its operand).
void add_row(float* __restrict row, const float* __restrict o, int64_t n) {
  for (int64_t j = 0; j < n; j++) row[j] = row[j] + o[j];
}
void mul_row(float* __restrict row, const float* __restrict o, int64_t n) {
  for (int64_t j = 0; j < n; j++) row[j] = row[j] * o[j];
}

}  // namespace

void apply_post_steps(const Epilogue& ep, float* c, int64_t ldc, int64_t rows, int64_t cols,
                      int64_t i0, int64_t j0) {
  const VecMath& vm = vec_math();
  for (int s = 0; s < ep.post_count; s++) {
    const PostStep& p = ep.post[s];
    // A residual Add (or a Mul) by a full or per-column operand: inline row loops, not the
    // vec_math call per tile row, whose dispatch cost as much as a small conv's row of
    // additions (tdnn_stream's Relu-then-residual convs). Commutative: the same bits.
    if (p.kind == PostStep::Kind::Binary &&
        (p.binary == BinaryFn::Add || p.binary == BinaryFn::Mul) &&
        (p.operand_kind == PostStep::Operand::Full || p.operand_kind == PostStep::Operand::Col)) {
      const bool full = p.operand_kind == PostStep::Operand::Full;
      for (int64_t i = 0; i < rows; i++) {
        const float* o = p.operand + (full ? (i0 + i) * p.ld : 0) + j0;
        if (p.binary == BinaryFn::Add)
          add_row(c + i * ldc, o, cols);
        else
          mul_row(c + i * ldc, o, cols);
      }
      continue;
    }
    // A unary step over rows that follow each other (a tile as wide as the output's rows: the
    // small planes of late CNN layers, 1x1 heads): one call, whole vectors across the rows,
    // instead of a call and a partial vector per row (PP-LCNet's HardSwish steps on 2x6 planes
    // and 1x1 outputs were a fifth of its time). Lane by lane: the same bits.
    if (p.kind == PostStep::Kind::Unary && ldc == cols) {
      vm.unary(p.unary, c, c, rows * cols, p.alpha, p.beta);
      continue;
    }
    for (int64_t i = 0; i < rows; i++) {
      float* row = c + i * ldc;
      if (p.kind == PostStep::Kind::Unary) {
        vm.unary(p.unary, row, row, cols, p.alpha, p.beta);
        continue;
      }
      const int op = static_cast<int>(p.binary);
      switch (p.operand_kind) {
        case PostStep::Operand::Full: {
          const float* o = p.operand + (i0 + i) * p.ld + j0;
          vm.binary(op, 0, p.operand_first ? o : row, p.operand_first ? row : o, row, cols);
          break;
        }
        case PostStep::Operand::Col: {
          const float* o = p.operand + j0;
          vm.binary(op, 0, p.operand_first ? o : row, p.operand_first ? row : o, row, cols);
          break;
        }
        case PostStep::Operand::Row:
        case PostStep::Operand::Scalar: {
          const float* o = p.operand + (p.operand_kind == PostStep::Operand::Row ? i0 + i : 0);
          if (p.operand_first)
            vm.binary(op, 2, o, row, row, cols);
          else
            vm.binary(op, 1, row, o, row, cols);
          break;
        }
      }
    }
  }
}

void apply_register_stage(const float* acc, int64_t ld_acc, int64_t rows, int64_t cols, int64_t i0,
                          int64_t j0, const Epilogue& ep, float* c, int64_t ldc) {
  const TileArgs whole = base_args(ep, c, ldc);
  for (int64_t i = 0; i < rows; i++) {
    for (int64_t j = 0; j < cols; j++) {
      float v[1][1] = {{acc[i * ld_acc + j]}};
      const TileArgs t = tile_args(whole, i0 + i, j0 + j);
      epilogue_regs<ScalarLanes, 1, 1>(
          v, t, [](const float* p, int) { return *p; }, [&](int, int, float x) { *t.c = x; });
    }
  }
}

void apply_epilogue(const float* acc, int64_t ld_acc, int64_t rows, int64_t cols, int64_t i0,
                    int64_t j0, const Epilogue& ep, float* c, int64_t ldc) {
  apply_register_stage(acc, ld_acc, rows, cols, i0, j0, ep, c, ldc);
  if (ep.post_count > 0) apply_post_steps(ep, c + i0 * ldc + j0, ldc, rows, cols, i0, j0);
}

}  // namespace kiln::kernels
