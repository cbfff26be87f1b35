// LabelEncoder (ai.onnx.ml 1, 2, 4): maps each input element through key -> value pairs (keys
// strings or numbers, a NaN key matching NaN; the last of repeated keys wins), unknown keys to
// the default. Version 1's classes_strings maps strings to their index and integers to the
// string at it.
#pragma once

#include <map>
#include <unordered_map>

#include "core/op.h"

namespace kiln::ops::ml {

class LabelEncoder : public Op {
 public:
  // keys, values: 1-D tensors of one type each; default_value: a scalar of the values' type.
  // `op_name`: LabelEncoder, or CategoryMapper (the same mapping between strings and integers).
  LabelEncoder(Tensor keys, Tensor values, Tensor default_value,
               std::string op_name = "LabelEncoder");
  std::string name() const override { return op_name_; }
  bool same_as(const Op& other) const override {
    const auto* o = dynamic_cast<const LabelEncoder*>(&other);
    return o && op_name_ == o->op_name_ && keys_.equals(o->keys_) && values_.equals(o->values_) &&
           default_.equals(o->default_);
  }
  Attributes attributes() const override;
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs&) const override { return {}; }

 private:
  int64_t lookup(const Tensor& x, int64_t i) const;  // value index, -1 for the default
  Tensor keys_, values_, default_;
  std::string op_name_;
  std::unordered_map<std::string, int64_t> string_index_;
  std::map<double, int64_t> number_index_;
  int64_t nan_index_ = -1;
};

}  // namespace kiln::ops::ml
