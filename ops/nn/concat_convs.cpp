#include "ops/nn/concat_convs.h"

#include <array>

#include "base/error.h"

namespace kiln::ops {

ConcatConvs::ConcatConvs(std::vector<Part> parts) : parts_(std::move(parts)) {
  KILN_ENSURE(parts_.size() >= 1 && parts_.size() <= kMaxParts,
              "ConcatConvs: {} convs (1 to {} allowed)", parts_.size(), kMaxParts);
  for (const Part& p : parts_)
    KILN_ENSURE(p.conv && p.inputs >= 1, "ConcatConvs: a part without conv or inputs");
}

Attributes ConcatConvs::attributes() const {
  std::string kernels;
  for (const Part& p : parts_) {
    for (const auto& [k, v] : p.conv->attributes())
      if (k == "kernel") kernels += (kernels.empty() ? "" : ",") + v;
  }
  return {{"axis", "1"}, {"convs", std::to_string(parts_.size())}, {"kernels", kernels}};
}

std::vector<Fact> ConcatConvs::output_facts(const FactRefs& inputs) const {
  size_t need = 0;
  for (const Part& p : parts_) need += p.inputs;
  KILN_ENSURE(inputs.size() == need, "ConcatConvs: {} inputs, its convs take {}", inputs.size(),
              need);
  Fact out;
  size_t first = 0;
  for (size_t i = 0; i < parts_.size(); i++) {
    FactRefs part(inputs.begin() + static_cast<long>(first),
                  inputs.begin() + static_cast<long>(first + parts_[i].inputs));
    first += parts_[i].inputs;
    Fact f = parts_[i].conv->output_facts(part).at(0);
    KILN_ENSURE(f.rank() >= 3, "ConcatConvs: conv output of rank {}", f.rank());
    if (i == 0) {
      out = f;
      continue;
    }
    bool same = f.dt == out.dt && f.rank() == out.rank();
    for (size_t d = 0; same && d < f.rank(); d++) same = d == 1 || f.shape[d] == out.shape[d];
    KILN_ENSURE(same, "ConcatConvs: conv outputs {} and {} differ beyond the channels",
                out.to_string(), f.to_string());
    out.shape[1] = out.shape[1] + f.shape[1];
  }
  out.value = nullptr;
  return {out};
}

Cost ConcatConvs::cost(const FactRefs& inputs) const {
  Cost total;
  size_t first = 0;
  for (const Part& p : parts_) {
    FactRefs part(inputs.begin() + static_cast<long>(first),
                  inputs.begin() + static_cast<long>(first + p.inputs));
    first += p.inputs;
    Cost c = p.conv->cost(part);
    total.fma = total.fma + c.fma;
    total.fma_type = c.fma_type;
    total.other = total.other + c.other;
    total.params_bytes = total.params_bytes + c.params_bytes;
    total.known = total.known && c.known;
  }
  return total;
}

namespace {

struct PartStates : OpState {
  std::vector<std::unique_ptr<OpState>> parts;
};

}  // namespace

std::unique_ptr<OpState> ConcatConvs::make_state(const FactRefs&) const {
  auto s = std::make_unique<PartStates>();
  for (const Part& p : parts_) s->parts.push_back(p.conv->make_state({}));
  return s;
}

void ConcatConvs::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  auto& states = ctx.op_state<PartStates>(*this);
  size_t need = 0;
  for (const Part& p : parts_) need += p.inputs;
  KILN_ENSURE(inputs.size() == need, "ConcatConvs: {} inputs, its convs take {}", inputs.size(),
              need);
  // Each conv's geometry and output shape; they must agree beyond the channels.
  std::array<const kernels::ConvPlan*, kMaxParts> plans{};
  std::array<int64_t, kMaxParts> channels{};
  Shape& total = ctx.temp_shape(4);
  Shape& part_shape = ctx.temp_shape(3);
  size_t first = 0;
  for (size_t i = 0; i < parts_.size(); i++) {
    const Tensor& x = required(inputs, first, name());
    first += parts_[i].inputs;
    plans[i] = &parts_[i].conv->plan_for(ctx, *states.parts[i], x, part_shape);
    channels[i] = part_shape[1];
    if (i == 0) {
      total = part_shape;
      continue;
    }
    bool same = part_shape.size() == total.size();
    for (size_t d = 0; same && d < total.size(); d++) same = d == 1 || part_shape[d] == total[d];
    KILN_ENSURE(same, "ConcatConvs: conv outputs [{}] and [{}] differ beyond the channels",
                shape_to_string(total), shape_to_string(part_shape));
    total[1] += part_shape[1];
  }
  Tensor& y = ctx.output(0, DatumType::F32, total);
  if (y.numel() == 0) return;
  const int64_t plane = plans[0]->geo.out_size();
  const int64_t batch_stride = total[1] * plane;
  float* yd = y.data<float>();
  first = 0;
  int64_t channel = 0;
  for (size_t i = 0; i < parts_.size(); i++) {
    TensorRefs& part = ctx.temp_refs(0);
    part.assign(inputs.begin() + static_cast<long>(first),
                inputs.begin() + static_cast<long>(first + parts_[i].inputs));
    first += parts_[i].inputs;
    // The conv's own output shape, for its residual check.
    Shape& own = ctx.temp_shape(5);
    own = total;
    own[1] = channels[i];
    parts_[i].conv->compute(ctx, part, *plans[i], own, yd + channel * plane, batch_stride);
    channel += channels[i];
  }
}

}  // namespace kiln::ops
