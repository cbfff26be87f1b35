#include "cli/labels.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <numeric>

#include "base/error.h"

namespace kiln::cli {

std::vector<std::string> read_labels(const std::string& path) {
  std::ifstream in(path);
  KILN_ENSURE(in.good(), "--labels: cannot open '{}'", path);
  std::vector<std::string> labels;
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    labels.push_back(line);
  }
  while (!labels.empty() && labels.back().empty()) labels.pop_back();
  KILN_ENSURE(!labels.empty(), "--labels: '{}' has no labels", path);
  return labels;
}

std::string format_top_k(const Tensor& scores, const std::vector<std::string>& labels, size_t k) {
  KILN_ENSURE(is_numeric(scores.dtype()) && scores.rank() >= 1,
              "--labels: the output is not a tensor of scores ({})", scores.to_string(0));
  const int64_t n = scores.shape().back();
  KILN_ENSURE(n == static_cast<int64_t>(labels.size()),
              "--labels: the output has {} classes but the labels file has {} labels", n,
              labels.size());
  const int64_t rows = n == 0 ? 0 : scores.numel() / n;
  k = std::min<size_t>(k, static_cast<size_t>(n));
  std::string out;
  for (int64_t r = 0; r < rows; r++) {
    if (rows > 1) out += fmt::format("row {}:\n", r);
    std::vector<int64_t> order(static_cast<size_t>(n));
    std::iota(order.begin(), order.end(), 0);
    auto score = [&](int64_t i) { return scores.value_as_double(r * n + i); };
    std::stable_sort(order.begin(), order.end(),
                     [&](int64_t a, int64_t b) { return score(a) > score(b); });
    for (size_t i = 0; i < k; i++)
      out += fmt::format("  {}. {}  {:.4f}\n", i + 1, labels[static_cast<size_t>(order[i])],
                         score(order[i]));
  }
  return out;
}

}  // namespace kiln::cli
