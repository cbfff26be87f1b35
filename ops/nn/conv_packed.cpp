#include "ops/nn/conv_packed.h"

#include <algorithm>

#include "base/error.h"
#include "base/threading.h"
#include "ops/core/plan_cache.h"

namespace kiln::ops {

namespace {

// A session's plans of one ConvPacked node, by geometry and thread count.
using ConvPlans = PlanCache<std::pair<kernels::ConvGeometry, int>, kernels::ConvPlan>;

}  // namespace

ConvPacked::ConvPacked(std::shared_ptr<const Conv> reference, WindowGeometry geometry,
                       int64_t group, const Tensor& weights, const Tensor* bias,
                       const Shape* in_spatial)
    : reference_(std::move(reference)), geo_(std::move(geometry)) {
  KILN_ENSURE(weights.dtype() == DatumType::F32 && weights.rank() >= 3,
              "ConvPacked: weights must be f32 [M, C/group, k...]");
  std::optional<kernels::ConvGeometry> known;
  if (in_spatial) {
    const WindowGeometry::Resolved r = geo_.resolve(*in_spatial, "Conv");
    known = conv_geometry(make_window3(geo_, *in_spatial, r.output, r.pad_begin, "Conv"));
  }
  kernel_ = std::make_shared<kernels::ConvKernel>(weights.data<float>(), weights.shape(), group,
                                                  active_isa(), known ? &*known : nullptr);
  if (known) fixed_plan_ = kernel_->plan(*known);
  if (bias) {
    KILN_ENSURE(bias->dtype() == DatumType::F32 && bias->numel() == kernel_->out_channels(),
                "ConvPacked: bias must hold {} f32 values", kernel_->out_channels());
    const float* b = bias->data<float>();
    bias_ = std::make_shared<std::vector<float>>(b, b + kernel_->out_channels());
  }
}

Attributes ConvPacked::attributes() const {
  Attributes attrs = reference_->attributes();
  attrs.emplace_back("kernel", kernel_->description());
  if (fixed_plan_) attrs.emplace_back("path", kernels::conv_path_name(fixed_plan_->path));
  if (!steps_.empty()) attrs.emplace_back("epilogue", steps_.describe());
  return attrs;
}

std::vector<Fact> ConvPacked::output_facts(const FactRefs& inputs) const {
  return reference_->output_facts(without_operands(inputs, steps_));
}

Cost ConvPacked::cost(const FactRefs& inputs) const {
  return reference_->cost(without_operands(inputs, steps_));
}

std::unique_ptr<OpState> ConvPacked::make_state(const FactRefs&) const {
  return std::make_unique<ConvPlans>();
}

OpPtr ConvPacked::with_output_step(const OutputStep& step, const FactRefs& inputs,
                                   const Fact* operand) const {
  OutputStep s = step;
  if (s.kind == OutputStep::Kind::Binary) {
    if (!operand) return nullptr;
    const Fact out = output_facts(inputs).at(0);
    // Calls per image (axis 0), rows are the output channels (axis 1), columns the positions.
    auto kind = classify_operand(out.shape, operand->shape, 1, 1);
    if (!kind || operand->dt != DatumType::F32) return nullptr;
    s.operand = *kind;
    s.input = inputs.size();
  }
  // The depthwise kernel clamps in registers but adds no residual; Winograd has no LeakyRelu and
  // adds its residual before the clamp only.
  RegisterStage stage;
  stage.residual = !kernel_->depthwise();
  stage.leaky = !kernel_->depthwise() && !kernel_->has_winograd();
  stage.residual_last = !kernel_->depthwise() && !kernel_->has_winograd();
  auto copy = std::make_shared<ConvPacked>(*this);
  if (!copy->steps_.add(s, stage)) return nullptr;
  return copy;
}

void ConvPacked::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& x = required(inputs, 0, name());
  Shape& out_shape = ctx.temp_shape(3);
  const kernels::ConvPlan& plan = plan_for(ctx, ctx.op_state<OpState>(*this), x, out_shape);
  Tensor& y = ctx.output(0, DatumType::F32, out_shape);
  if (y.numel() == 0) return;
  compute(ctx, inputs, plan, out_shape, y.data<float>(),
          kernel_->out_channels() * plan.geo.out_size());
}

const kernels::ConvPlan& ConvPacked::plan_for(EvalContext& ctx, OpState& plans, const Tensor& x,
                                              Shape& out_shape) const {
  KILN_ENSURE(x.dtype() == DatumType::F32 && x.rank() >= 3 && x.rank() <= 5,
              "ConvPacked: input must be f32 of rank 3 to 5, got {} [{}]", name_of(x.dtype()),
              shape_to_string(x.shape()));
  KILN_ENSURE(x.dim(1) == kernel_->channels(),
              "ConvPacked: input has {} channels, weights expect {}", x.dim(1),
              kernel_->channels());
  Shape& in_spatial = ctx.temp_shape(0);
  in_spatial.assign(x.shape().begin() + 2, x.shape().end());
  Shape& out_spatial = ctx.temp_shape(1);
  Shape& pad_begin = ctx.temp_shape(2);
  geo_.resolve_into(in_spatial, "Conv", out_spatial, pad_begin);
  const kernels::ConvGeometry geo =
      conv_geometry(make_window3(geo_, in_spatial, out_spatial, pad_begin, "Conv"));
  out_shape.clear();
  out_shape.push_back(x.dim(0));
  out_shape.push_back(kernel_->out_channels());
  out_shape.insert(out_shape.end(), out_spatial.begin(), out_spatial.end());
  const int threads = num_threads();
  if (fixed_plan_ && fixed_plan_->geo == geo && fixed_plan_->for_threads == threads)
    return *fixed_plan_;
  auto* cache = dynamic_cast<ConvPlans*>(&plans);
  KILN_ENSURE(cache, "ConvPacked: plans of another op");
  return cache->get({geo, threads}, [&] { return kernel_->plan(geo, threads); });
}

void ConvPacked::compute(EvalContext& ctx, const TensorRefs& inputs, const kernels::ConvPlan& plan,
                         const Shape& out_shape, float* yd, int64_t y_batch_stride) const {
  const Tensor& x = required(inputs, 0, name());
  const float* xd = x.data<float>();
  const int64_t image_in = kernel_->channels() * plan.geo.in_size();
  const int64_t image_out = kernel_->out_channels() * plan.geo.out_size();
  float* scratch = ctx.scratch<float>(plan.scratch_floats);
  for (int64_t n = 0; n < x.dim(0); n++) {
    kernels::Epilogue ep;
    ep.row_bias = bias_ ? bias_->data() : nullptr;
    steps_.lower(inputs, out_shape, 1, n * image_out, ep);
    kernel_->run(plan, xd + n * image_in, ep, yd + n * y_batch_stride, scratch);
  }
}

}  // namespace kiln::ops
