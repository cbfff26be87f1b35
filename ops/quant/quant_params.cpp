#include "ops/quant/quant_params.h"

#include <limits>

#include "base/error.h"

namespace kiln::ops::quant {

bool is_quantized_type_21(DatumType dt) {
  switch (dt) {
    case DatumType::U8:
    case DatumType::I8:
    case DatumType::U16:
    case DatumType::I16:
    case DatumType::U4:
    case DatumType::I4:
    case DatumType::U2:
    case DatumType::I2:
    case DatumType::F8E4M3FN:
    case DatumType::F8E4M3FNUZ:
    case DatumType::F8E5M2:
    case DatumType::F8E5M2FNUZ:
    case DatumType::F4E2M1:
      return true;
    default:
      return false;
  }
}

double quant_min(DatumType dt) {
  switch (dt) {
    case DatumType::U8:
    case DatumType::U16:
    case DatumType::U4:
    case DatumType::U2:
      return 0;
    case DatumType::I8:
      return -128;
    case DatumType::I16:
      return -32768;
    case DatumType::I4:
      return -8;
    case DatumType::I2:
      return -2;
    case DatumType::I32:
      return std::numeric_limits<int32_t>::min();
    default:
      fail("{} is not an integer quantized type", name_of(dt));
  }
}

double quant_max(DatumType dt) {
  switch (dt) {
    case DatumType::U8:
      return 255;
    case DatumType::U16:
      return 65535;
    case DatumType::U4:
      return 15;
    case DatumType::U2:
      return 3;
    case DatumType::I8:
      return 127;
    case DatumType::I16:
      return 32767;
    case DatumType::I4:
      return 7;
    case DatumType::I2:
      return 1;
    case DatumType::I32:
      return std::numeric_limits<int32_t>::max();
    default:
      fail("{} is not an integer quantized type", name_of(dt));
  }
}

void check_param(const Fact& x, const Fact& param, int64_t axis, int64_t block_size,
                 const std::string& op, const std::string& what) {
  if (block_size > 0) {
    KILN_ENSURE(param.rank() == x.rank(),
                "{}: blocked {} must have the input's rank {}, got rank {}", op, what, x.rank(),
                param.rank());
    size_t ax = normalize_axis(axis, x.rank(), op);
    for (size_t d = 0; d < x.rank(); d++) {
      Dim want = d == ax ? x.shape[d].div_ceil(block_size) : x.shape[d];
      if (want.is_int() && param.shape[d].is_int())
        KILN_ENSURE(param.shape[d] == want, "{}: blocked {} [{}] for input [{}] and block_size {}",
                    op, what, dims_to_string(param.shape), dims_to_string(x.shape), block_size);
    }
    return;
  }
  if (param.rank() == 0 || (param.rank() == 1 && param.shape[0] == Dim(1))) return;
  KILN_ENSURE(param.rank() == 1,
              "{}: {} must be a scalar or 1-D (or blocked with block_size), "
              "got rank {}",
              op, what, param.rank());
  size_t ax = normalize_axis(axis, x.rank(), op);
  KILN_ENSURE(param.shape[0] == x.shape[ax] || !param.shape[0].is_int() || !x.shape[ax].is_int(),
              "{}: {} has {} values but the input has {} along axis {}", op, what,
              param.shape[0].to_string(), x.shape[ax].to_string(), ax);
}

ParamMap param_map(const Shape& x, const Shape& param, int64_t axis, int64_t block_size,
                   const std::string& op, const std::string& what) {
  ParamMap m;
  if (block_size <= 0 && shape_numel(param) == 1 && param.size() <= 1) return m;
  size_t ax = normalize_axis(axis, x.size(), op);
  m.axis_dim = x[ax];
  for (size_t d = ax + 1; d < x.size(); d++) m.inner *= x[d];
  if (block_size > 0) {
    KILN_ENSURE(param.size() == x.size(), "{}: blocked {} must have the input's rank", op, what);
    for (size_t d = 0; d < x.size(); d++) {
      int64_t want = d == ax ? (x[d] + block_size - 1) / block_size : x[d];
      KILN_ENSURE(param[d] == want, "{}: blocked {} [{}] for input [{}] and block_size {}", op,
                  what, shape_to_string(param), shape_to_string(x), block_size);
    }
    m.kind = ParamMap::Kind::Blocked;
    m.count = param[ax];
    m.block = block_size;
    return m;
  }
  KILN_ENSURE(param.size() == 1 && param[0] == x[ax],
              "{}: {} [{}] is neither one value nor one per index of axis {} ({})", op, what,
              shape_to_string(param), ax, x[ax]);
  m.kind = ParamMap::Kind::Axis;
  m.count = x[ax];
  return m;
}

}  // namespace kiln::ops::quant
