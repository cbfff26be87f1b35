#include "ops/nn/rotary_embedding.h"

#include "base/error.h"
#include "ops/nn/nn_common.h"

namespace kiln::ops {

Attributes RotaryEmbedding::attributes() const {
  Attributes a;
  if (interleaved_) a.push_back({"interleaved", "1"});
  if (rotary_dim_) a.push_back({"rotary_embedding_dim", std::to_string(rotary_dim_)});
  if (num_heads_) a.push_back({"num_heads", std::to_string(num_heads_)});
  return a;
}

std::vector<Fact> RotaryEmbedding::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 3, 4);
  const Fact& x = required(inputs, 0, name());
  const Fact& cos = required(inputs, 1, name());
  const Fact& sin = required(inputs, 2, name());
  KILN_ENSURE(is_float(x.dt) && cos.dt == x.dt && sin.dt == x.dt,
              "RotaryEmbedding: X and the caches must be of one float type, got {}, {}, {}",
              name_of(x.dt), name_of(cos.dt), name_of(sin.dt));
  KILN_ENSURE(x.rank() == 3 || x.rank() == 4, "RotaryEmbedding: X must be 3-D or 4-D, got rank {}",
              x.rank());
  KILN_ENSURE(x.rank() == 4 || num_heads_ > 0, "RotaryEmbedding: 3-D input needs num_heads");
  bool positions = inputs.size() > 3 && inputs[3];
  KILN_ENSURE(cos.rank() == (positions ? 2u : 3u) && sin.shape == cos.shape,
              "RotaryEmbedding: caches must be {} ({}), got [{}] and [{}]",
              positions ? "2-D" : "3-D", positions ? "with position_ids" : "without position_ids",
              dims_to_string(cos.shape), dims_to_string(sin.shape));
  if (positions)
    KILN_ENSURE(is_integer(inputs[3]->dt) && inputs[3]->rank() == 2,
                "RotaryEmbedding: position_ids must be a 2-D integer tensor");
  return {Fact(x.dt, x.shape)};
}

namespace {

template <typename T>
void rotate(const Tensor& x, const Tensor& cos, const Tensor& sin, const Tensor* pos,
            bool interleaved, int64_t rotary_dim, int64_t num_heads, Tensor& y) {
  using A = nn::Acc<T>;
  const bool four_d = x.rank() == 4;
  const int64_t batch = x.dim(0);
  const int64_t heads = four_d ? x.dim(1) : num_heads;
  const int64_t seq = four_d ? x.dim(2) : x.dim(1);
  const int64_t head = four_d ? x.dim(3) : x.dim(2) / num_heads;
  KILN_ENSURE(four_d || x.dim(2) % num_heads == 0,
              "RotaryEmbedding: hidden size {} is not divisible by {} heads", x.dim(2), num_heads);
  const int64_t rot = rotary_dim > 0 ? rotary_dim : head;
  KILN_ENSURE(rot <= head && rot % 2 == 0,
              "RotaryEmbedding: rotary_embedding_dim {} must be even and at most the head size {}",
              rot, head);
  const int64_t half = rot / 2;
  KILN_ENSURE(cos.shape().back() == half,
              "RotaryEmbedding: caches hold {} values per position, rotary_embedding_dim/2 is {}",
              cos.shape().back(), half);
  if (pos) {
    KILN_ENSURE(pos->dim(0) == batch && pos->dim(1) == seq,
                "RotaryEmbedding: position_ids [{}] for batch {} and sequence {}",
                shape_to_string(pos->shape()), batch, seq);
  } else {
    KILN_ENSURE(cos.dim(0) == batch && cos.dim(1) == seq,
                "RotaryEmbedding: caches [{}] for batch {} and sequence {}",
                shape_to_string(cos.shape()), batch, seq);
  }
  const T* xd = x.data<T>();
  const T* cd = cos.data<T>();
  const T* sd = sin.data<T>();
  T* yd = y.data<T>();
  for (int64_t b = 0; b < batch; b++) {
    for (int64_t t = 0; t < seq; t++) {
      int64_t row = b * seq + t;  // the cache row of (b, t)
      if (pos) {
        row = pos->value_as_i64(b * seq + t);
        KILN_ENSURE(row >= 0 && row < cos.dim(0),
                    "RotaryEmbedding: position id {} outside the caches' {} positions", row,
                    cos.dim(0));
      }
      const T* c = cd + row * half;
      const T* s = sd + row * half;
      for (int64_t h = 0; h < heads; h++) {
        const int64_t base =
            four_d ? ((b * heads + h) * seq + t) * head : ((b * seq + t) * heads + h) * head;
        for (int64_t d = rot; d < head; d++) yd[base + d] = xd[base + d];
        for (int64_t i = 0; i < half; i++) {
          const int64_t i1 = interleaved ? 2 * i : i;
          const int64_t i2 = interleaved ? 2 * i + 1 : i + half;
          const A x1 = nn::to_acc<A>(xd[base + i1]), x2 = nn::to_acc<A>(xd[base + i2]);
          const A cv = nn::to_acc<A>(c[i]), sv = nn::to_acc<A>(s[i]);
          yd[base + i1] = nn::from_acc<T>(cv * x1 - sv * x2);
          yd[base + i2] = nn::from_acc<T>(sv * x1 + cv * x2);
        }
      }
    }
  }
}

}  // namespace

void RotaryEmbedding::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& x = required(inputs, 0, name());
  const Tensor& cos = required(inputs, 1, name());
  const Tensor& sin = required(inputs, 2, name());
  const Tensor* pos = inputs.size() > 3 ? inputs[3] : nullptr;
  KILN_ENSURE(cos.dtype() == x.dtype() && sin.dtype() == x.dtype() && cos.shape() == sin.shape() &&
                  cos.rank() == (pos ? 2u : 3u),
              "RotaryEmbedding: caches [{}] and [{}] do not fit", shape_to_string(cos.shape()),
              shape_to_string(sin.shape()));
  KILN_ENSURE(x.rank() == 3 || x.rank() == 4, "RotaryEmbedding: X must be 3-D or 4-D");
  Tensor& y = ctx.output(0, x.dtype(), x.shape());
  switch (x.dtype()) {
    case DatumType::F32:
      return rotate<float>(x, cos, sin, pos, interleaved_, rotary_dim_, num_heads_, y);
    case DatumType::F64:
      return rotate<double>(x, cos, sin, pos, interleaved_, rotary_dim_, num_heads_, y);
    case DatumType::F16:
      return rotate<f16>(x, cos, sin, pos, interleaved_, rotary_dim_, num_heads_, y);
    case DatumType::BF16:
      return rotate<bf16>(x, cos, sin, pos, interleaved_, rotary_dim_, num_heads_, y);
    default:
      fail("RotaryEmbedding: unsupported type {}", name_of(x.dtype()));
  }
}

}  // namespace kiln::ops
