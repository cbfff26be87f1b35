#include "ops/text/string_split.h"

#include <algorithm>
#include <cctype>

#include "base/error.h"

namespace kiln::ops {

Attributes StringSplit::attributes() const {
  Attributes a;
  if (!delimiter_.empty()) a.push_back({"delimiter", delimiter_});
  if (maxsplit_) a.push_back({"maxsplit", std::to_string(*maxsplit_)});
  return a;
}

std::vector<std::string> StringSplit::split(const std::string& s) const {
  std::vector<std::string> out;
  int64_t left = maxsplit_.value_or(-1);  // splits still allowed; negative: unlimited
  if (delimiter_.empty()) {
    auto space = [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; };
    size_t i = 0;
    while (i < s.size()) {
      while (i < s.size() && space(s[i])) i++;
      if (i == s.size()) break;
      if (left == 0) {  // the rest, without its trailing whitespace
        size_t end = s.size();
        while (end > i && space(s[end - 1])) end--;
        out.push_back(s.substr(i, end - i));
        break;
      }
      size_t j = i;
      while (j < s.size() && !space(s[j])) j++;
      out.push_back(s.substr(i, j - i));
      if (left > 0) left--;
      i = j;
    }
    return out;
  }
  if (s.empty()) return out;  // no pieces, as ONNX Runtime counts them
  size_t start = 0;
  while (true) {
    size_t at = left == 0 ? std::string::npos : s.find(delimiter_, start);
    if (at == std::string::npos) {
      out.push_back(s.substr(start));
      return out;
    }
    out.push_back(s.substr(start, at - start));
    start = at + delimiter_.size();
    if (left > 0) left--;
  }
}

std::vector<Fact> StringSplit::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 1, 1);
  const Fact& x = required(inputs, 0, name());
  KILN_ENSURE(x.dt == DatumType::String, "StringSplit: input must be strings, got {}",
              name_of(x.dt));
  std::vector<Dim> pieces = x.shape;
  pieces.push_back(Dim::fresh());
  return {Fact(DatumType::String, pieces), Fact(DatumType::I64, x.shape)};
}

void StringSplit::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& x = required(inputs, 0, name());
  KILN_ENSURE(x.dtype() == DatumType::String, "StringSplit: input must be strings");
  const std::string* xs = x.data<std::string>();
  std::vector<std::vector<std::string>> parts(static_cast<size_t>(x.numel()));
  int64_t widest = 0;
  for (int64_t i = 0; i < x.numel(); i++) {
    parts[static_cast<size_t>(i)] = split(xs[i]);
    widest = std::max<int64_t>(widest, static_cast<int64_t>(parts[static_cast<size_t>(i)].size()));
  }
  Shape& shape = ctx.temp_shape(0);
  shape.assign(x.shape().begin(), x.shape().end());
  shape.push_back(widest);
  Tensor& y = ctx.output(0, DatumType::String, shape);
  Tensor& counts = ctx.output(1, DatumType::I64, x.shape());
  std::string* ys = y.data<std::string>();
  int64_t* cs = counts.data<int64_t>();
  for (int64_t i = 0; i < x.numel(); i++) {
    const auto& p = parts[static_cast<size_t>(i)];
    cs[i] = static_cast<int64_t>(p.size());
    for (int64_t k = 0; k < widest; k++)
      ys[i * widest + k] = k < cs[i] ? p[static_cast<size_t>(k)] : std::string();
  }
}

}  // namespace kiln::ops
