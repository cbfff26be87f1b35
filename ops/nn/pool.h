// MaxPool, AveragePool and LpPool over 1 to 3 spatial dims, with pads / auto_pad, strides,
// dilations and ceil_mode. MaxPool may also output the flat indices of the maxima.
#pragma once

#include "core/op.h"
#include "ops/nn/pool_geometry.h"

namespace kiln::ops {

enum class PoolKind { Max, Average, Lp };

class Pool : public Op {
 public:
  struct Options {
    bool count_include_pad = false;  // AveragePool
    int64_t storage_order = 0;       // MaxPool indices: 0 row-major, 1 column-major
    float p = 2.0f;                  // LpPool
  };
  Pool(PoolKind kind, WindowGeometry geometry, Options options)
      : kind_(kind), geo_(std::move(geometry)), options_(options) {}
  std::string name() const override;
  Attributes attributes() const override;
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs& inputs) const override;
  // f32 AveragePool of 1 or 2 spatial dims without dilation: AvgPoolF32 (ops/nn/avg_pool_f32.h).
  OpPtr codegen(const FactRefs& inputs) const override;
  // MaxPool (MaxPoolValues, ops/nn/max_pool_values.h) and AveragePool have kernel forms.
  bool is_reference_impl() const override { return kind_ != PoolKind::Lp; }
  PoolKind kind() const { return kind_; }
  const Options& options() const { return options_; }
  const WindowGeometry& geometry() const { return geo_; }

 private:
  PoolKind kind_;
  WindowGeometry geo_;
  Options options_;
};

}  // namespace kiln::ops
