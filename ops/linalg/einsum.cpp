#include "ops/linalg/einsum.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <type_traits>

#include "base/error.h"

namespace kiln::ops {

namespace {

std::vector<int> parse_term(const std::string& term, const std::string& equation) {
  std::vector<int> out;
  bool seen_ellipsis = false;
  for (size_t i = 0; i < term.size(); i++) {
    char ch = term[i];
    if (ch == '.') {
      KILN_ENSURE(term.compare(i, 3, "...") == 0 && !seen_ellipsis,
                  "Einsum: bad ellipsis in equation '{}'", equation);
      seen_ellipsis = true;
      out.push_back(-1);
      i += 2;
    } else {
      KILN_ENSURE(std::isalpha(static_cast<unsigned char>(ch)),
                  "Einsum: unexpected character '{}' in equation '{}'", ch, equation);
      out.push_back(static_cast<unsigned char>(ch));
    }
  }
  return out;
}

}  // namespace

Einsum::Einsum(std::string equation) : equation_(std::move(equation)) {
  std::string eq;
  for (char ch : equation_)
    if (!std::isspace(static_cast<unsigned char>(ch))) eq += ch;
  size_t arrow = eq.find("->");
  std::string lhs = eq.substr(0, arrow);
  if (arrow != std::string::npos) {
    explicit_output_ = true;
    output_term_ = parse_term(eq.substr(arrow + 2), equation_);
  }
  size_t start = 0;
  while (true) {
    size_t comma = lhs.find(',', start);
    terms_.push_back(parse_term(lhs.substr(start, comma - start), equation_));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
}

Einsum::Resolved Einsum::resolve(const std::vector<size_t>& ranks) const {
  KILN_ENSURE(ranks.size() == terms_.size(), "Einsum: equation '{}' has {} operands, got {} inputs",
              equation_, terms_.size(), ranks.size());
  Resolved r;
  size_t max_ellipsis = 0;
  std::map<int, int> counts;
  for (size_t i = 0; i < terms_.size(); i++) {
    const auto& term = terms_[i];
    bool has_ellipsis = std::find(term.begin(), term.end(), kEllipsis) != term.end();
    size_t letters = term.size() - (has_ellipsis ? 1 : 0);
    KILN_ENSURE(has_ellipsis ? ranks[i] >= letters : ranks[i] == letters,
                "Einsum: operand {} of '{}' has rank {}, the equation gives it {} labels", i,
                equation_, ranks[i], letters);
    size_t ell = has_ellipsis ? ranks[i] - letters : 0;
    max_ellipsis = std::max(max_ellipsis, ell);
    std::vector<int> labels;
    for (int l : term) {
      if (l == kEllipsis) {
        // Ellipsis dims are right-aligned across operands, like broadcasting.
        for (size_t e = 0; e < ell; e++) labels.push_back(256 + static_cast<int>(e));
      } else {
        labels.push_back(l);
        counts[l]++;
      }
    }
    r.inputs.push_back(std::move(labels));
  }
  for (size_t i = 0; i < r.inputs.size(); i++) {
    size_t ell = 0;
    for (int l : r.inputs[i]) ell += l >= 256 ? 1 : 0;
    for (int& l : r.inputs[i])
      if (l >= 256) l += static_cast<int>(max_ellipsis - ell);
  }
  if (explicit_output_) {
    for (int l : output_term_) {
      if (l == kEllipsis) {
        for (size_t e = 0; e < max_ellipsis; e++) r.output.push_back(256 + static_cast<int>(e));
      } else {
        KILN_ENSURE(counts.count(l), "Einsum: output label '{}' of '{}' is in no input",
                    static_cast<char>(l), equation_);
        KILN_ENSURE(std::find(r.output.begin(), r.output.end(), l) == r.output.end(),
                    "Einsum: output label '{}' repeated in '{}'", static_cast<char>(l), equation_);
        r.output.push_back(l);
      }
    }
  } else {
    for (size_t e = 0; e < max_ellipsis; e++) r.output.push_back(256 + static_cast<int>(e));
    for (auto [l, n] : counts)
      if (n == 1) r.output.push_back(l);
  }
  r.all = r.output;
  for (const auto& labels : r.inputs)
    for (int l : labels)
      if (std::find(r.all.begin(), r.all.end(), l) == r.all.end()) r.all.push_back(l);
  return r;
}

namespace {

// Size of every label, 1 standing aside for any other size (broadcasting).
template <typename D>
std::map<int, D> label_sizes(const Einsum::Resolved& r, const std::vector<std::vector<D>>& shapes,
                             const std::string& equation) {
  std::map<int, D> sizes;
  for (size_t i = 0; i < r.inputs.size(); i++) {
    for (size_t a = 0; a < r.inputs[i].size(); a++) {
      int l = r.inputs[i][a];
      const D& d = shapes[i][a];
      auto it = sizes.find(l);
      if (it == sizes.end() || it->second == D(1)) {
        sizes[l] = d;
      } else if (!(d == D(1)) && !(d == it->second)) {
        if constexpr (std::is_same_v<D, Dim>) {
          // Two different symbols cannot be proven unequal; keep the first.
          if (!d.is_int() || !it->second.is_int()) continue;
        }
        fail("Einsum: label of '{}' has inconsistent sizes", equation);
      }
    }
  }
  return sizes;
}

}  // namespace

std::vector<Fact> Einsum::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 1, -1);
  std::vector<size_t> ranks;
  std::vector<std::vector<Dim>> shapes;
  DatumType dt = required(inputs, 0, name()).dt;
  for (size_t i = 0; i < inputs.size(); i++) {
    const Fact& f = required(inputs, i, name());
    KILN_ENSURE(is_numeric(f.dt), "Einsum: unsupported input type {}", name_of(f.dt));
    KILN_ENSURE(f.dt == dt, "Einsum: inputs have different types {} and {}", name_of(dt),
                name_of(f.dt));
    ranks.push_back(f.rank());
    shapes.push_back(f.shape);
  }
  Resolved r = resolve(ranks);
  auto sizes = label_sizes<Dim>(r, shapes, equation_);
  std::vector<Dim> shape;
  for (int l : r.output) shape.push_back(sizes.at(l));
  return {Fact(dt, std::move(shape))};
}

Cost Einsum::cost(const FactRefs& inputs) const {
  std::vector<size_t> ranks;
  std::vector<std::vector<Dim>> shapes;
  for (size_t i = 0; i < inputs.size(); i++) {
    ranks.push_back(required(inputs, i, name()).rank());
    shapes.push_back(inputs[i]->shape);
  }
  Resolved r = resolve(ranks);
  auto sizes = label_sizes<Dim>(r, shapes, equation_);
  Cost c;
  c.fma_type = inputs[0]->dt;
  c.fma = 1;
  for (int l : r.all) c.fma = c.fma * sizes.at(l);
  return c;
}

void Einsum::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  std::vector<size_t> ranks;
  std::vector<Shape> shapes;
  for (size_t i = 0; i < inputs.size(); i++) {
    ranks.push_back(required(inputs, i, name()).rank());
    shapes.push_back(inputs[i]->shape());
  }
  Resolved r = resolve(ranks);
  auto sizes = label_sizes<int64_t>(r, shapes, equation_);
  size_t n_all = r.all.size();
  std::vector<int64_t> dims(n_all);
  for (size_t j = 0; j < n_all; j++) dims[j] = sizes.at(r.all[j]);
  // strides[k][j]: step of operand k (the output last) along label j.
  std::vector<std::vector<int64_t>> strides(inputs.size() + 1, std::vector<int64_t>(n_all, 0));
  for (size_t i = 0; i < inputs.size(); i++) {
    auto cs = contiguous_strides(shapes[i]);
    for (size_t a = 0; a < r.inputs[i].size(); a++) {
      if (shapes[i][a] == 1) continue;  // broadcast: stays put
      size_t j = static_cast<size_t>(std::find(r.all.begin(), r.all.end(), r.inputs[i][a]) -
                                     r.all.begin());
      strides[i][j] += cs[a];
    }
  }
  Shape out_shape(dims.begin(), dims.begin() + static_cast<long>(r.output.size()));
  auto ocs = contiguous_strides(out_shape);
  for (size_t j = 0; j < r.output.size(); j++) strides[inputs.size()][j] = ocs[j];
  Tensor& out = ctx.output(0, inputs[0]->dtype(), out_shape);
  int64_t total = 1;
  for (int64_t d : dims) total *= d;
  dispatch_numeric(inputs[0]->dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    constexpr bool kHalf = std::is_same_v<T, f16> || std::is_same_v<T, bf16>;
    using Acc = std::conditional_t<kHalf || std::is_floating_point_v<T>, double,
                                   std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>>;
    std::vector<Acc> acc(static_cast<size_t>(out.numel()), 0);
    std::vector<const T*> src;
    for (const Tensor* t : inputs) src.push_back(t->data<T>());
    size_t n_ops = inputs.size() + 1;
    std::vector<int64_t> offsets(n_ops, 0), index(n_all, 0);
    for (int64_t it = 0; it < total; it++) {
      Acc prod = 1;
      for (size_t k = 0; k + 1 < n_ops; k++) prod *= static_cast<Acc>(src[k][offsets[k]]);
      acc[offsets[n_ops - 1]] += prod;
      for (size_t j = n_all; j-- > 0;) {
        index[j]++;
        for (size_t k = 0; k < n_ops; k++) offsets[k] += strides[k][j];
        if (index[j] < dims[j]) break;
        for (size_t k = 0; k < n_ops; k++) offsets[k] -= strides[k][j] * index[j];
        index[j] = 0;
      }
    }
    T* y = out.data<T>();
    for (size_t i = 0; i < acc.size(); i++) {
      if constexpr (kHalf)
        y[i] = T(static_cast<float>(acc[i]));
      else
        y[i] = static_cast<T>(acc[i]);
    }
  });
}

}  // namespace kiln::ops
