#include "ops/image/non_max_suppression.h"

#include <algorithm>
#include <numeric>

namespace kiln::ops {

std::vector<Fact> NonMaxSuppression::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 2, 5);
  const Fact& boxes = required(inputs, 0, name());
  const Fact& scores = required(inputs, 1, name());
  KILN_ENSURE(is_float(boxes.dt) && is_float(scores.dt),
              "NonMaxSuppression: boxes and scores must be float");
  KILN_ENSURE(boxes.rank() == 3, "NonMaxSuppression: boxes must be [batch, boxes, 4], got rank {}",
              boxes.rank());
  KILN_ENSURE(scores.rank() == 3,
              "NonMaxSuppression: scores must be [batch, classes, boxes], got rank {}",
              scores.rank());
  KILN_ENSURE(!boxes.shape[2].is_int() || boxes.shape[2].to_int() == 4,
              "NonMaxSuppression: boxes last dim must be 4, got {}", boxes.shape[2].to_string());
  return {Fact(DatumType::I64, std::vector<Dim>{Dim::fresh(), Dim(3)})};
}

void NonMaxSuppression::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& boxes = required(inputs, 0, name());
  const Tensor& scores = required(inputs, 1, name());
  KILN_ENSURE(boxes.rank() == 3 && boxes.dim(2) == 4 && scores.rank() == 3 &&
                  scores.dim(0) == boxes.dim(0) && scores.dim(2) == boxes.dim(1),
              "NonMaxSuppression: boxes [{}] and scores [{}] do not match",
              shape_to_string(boxes.shape()), shape_to_string(scores.shape()));
  auto scalar = [&](size_t i) -> const Tensor* {
    if (inputs.size() <= i || !inputs[i] || inputs[i]->numel() == 0) return nullptr;
    KILN_ENSURE(inputs[i]->numel() == 1, "NonMaxSuppression: input {} must hold one value", i);
    return inputs[i];
  };
  int64_t max_out = scalar(2) ? scalar(2)->value_as_i64(0) : 0;
  double iou_threshold = scalar(3) ? scalar(3)->value_as_double(0) : 0.0;
  bool has_score_threshold = scalar(4) != nullptr;
  double score_threshold = has_score_threshold ? scalar(4)->value_as_double(0) : 0.0;
  const int64_t nb = boxes.dim(0), nbox = boxes.dim(1), nc = scores.dim(1);

  // Corners (y1, x1, y2, x2) with y1 <= y2 and x1 <= x2.
  auto corners = [&](int64_t b, int64_t i) {
    int64_t o = (b * nbox + i) * 4;
    double v[4];
    for (int k = 0; k < 4; k++) v[k] = boxes.value_as_double(o + k);
    std::array<double, 4> r;
    if (center_point_box_) {
      r = {v[1] - v[3] / 2, v[0] - v[2] / 2, v[1] + v[3] / 2, v[0] + v[2] / 2};
    } else {
      r = {std::min(v[0], v[2]), std::min(v[1], v[3]), std::max(v[0], v[2]), std::max(v[1], v[3])};
    }
    return r;
  };
  auto overlaps = [&](const std::array<double, 4>& a, const std::array<double, 4>& b) {
    double area_a = (a[2] - a[0]) * (a[3] - a[1]), area_b = (b[2] - b[0]) * (b[3] - b[1]);
    if (area_a <= 0 || area_b <= 0) return false;
    double ih = std::min(a[2], b[2]) - std::max(a[0], b[0]);
    double iw = std::min(a[3], b[3]) - std::max(a[1], b[1]);
    if (ih <= 0 || iw <= 0) return false;
    double inter = ih * iw;
    return inter / (area_a + area_b - inter) > iou_threshold;
  };

  std::vector<std::array<int64_t, 3>> selected;
  for (int64_t b = 0; b < nb && max_out > 0; b++) {
    std::vector<std::array<double, 4>> box(static_cast<size_t>(nbox));
    for (int64_t i = 0; i < nbox; i++) box[static_cast<size_t>(i)] = corners(b, i);
    for (int64_t c = 0; c < nc; c++) {
      std::vector<int64_t> order;
      std::vector<double> sc(static_cast<size_t>(nbox));
      for (int64_t i = 0; i < nbox; i++) {
        sc[static_cast<size_t>(i)] = scores.value_as_double((b * nc + c) * nbox + i);
        if (!has_score_threshold || sc[static_cast<size_t>(i)] > score_threshold)
          order.push_back(i);
      }
      std::stable_sort(order.begin(), order.end(), [&](int64_t l, int64_t r) {
        return sc[static_cast<size_t>(l)] > sc[static_cast<size_t>(r)];
      });
      std::vector<int64_t> kept;
      for (int64_t i : order) {
        if (static_cast<int64_t>(kept.size()) >= max_out) break;
        bool suppressed = false;
        for (int64_t k : kept)
          if (overlaps(box[static_cast<size_t>(k)], box[static_cast<size_t>(i)])) {
            suppressed = true;
            break;
          }
        if (!suppressed) {
          kept.push_back(i);
          selected.push_back({b, c, i});
        }
      }
    }
  }
  Tensor& y = ctx.output(0, DatumType::I64, {static_cast<int64_t>(selected.size()), 3});
  int64_t* py = y.data<int64_t>();
  for (size_t i = 0; i < selected.size(); i++)
    for (size_t k = 0; k < 3; k++) py[i * 3 + k] = selected[i][k];
}

Cost NonMaxSuppression::cost(const FactRefs& inputs) const {
  Cost c;
  c.other = required(inputs, 1, name()).volume();
  return c;
}

}  // namespace kiln::ops
