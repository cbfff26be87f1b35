// Matching and comparing the values of two captured runs (`kiln compare`), value by value in
// A's evaluation order.
//
// Matching: a value of A matches B's value of the same output alias (model outputs) or key
// (cli/value_capture.h). When a pass fused a node's consumers into it under the node's name --
// an optimized Conv named after the Conv computes Conv+Add+Relu -- the value's key exists on
// both sides but means different things. So when a matched value's only consumer is missing
// on the other side (and that consumer's only consumer, ...), the end of that chain is what
// the other side's value holds, and those two are compared; the chain's values are "fused".
//
// A pair is within tolerance when every element has |a - b| <= atol + rtol * |b| (b: B's
// value; NaN equals NaN; integers and bools exactly). A pair over tolerance where B is a
// constant multiple of A within tolerance is "scaled": a pass moved a constant factor there
// (fold-scale puts attention's 1/sqrt(d) into the query projection).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/value_capture.h"

namespace kiln::cli {

enum class ValueStatus { Ok, OverTolerance, Scaled, ShapeDiffers, NotComparable, OnlyInA, Fused };
const char* status_name(ValueStatus s);

struct ValueComparison {
  int step = 0;  // position in A's values
  std::string key, node_name, op, shape;
  std::string b_key;               // the B value compared (differs from key through aliases)
  std::vector<std::string> fused;  // A values folded in: A's value compared is the chain's end
  ValueStatus status = ValueStatus::OnlyInA;
  bool is_output = false;
  double max_abs = 0, max_rel = 0, scale = 1;
  int64_t mismatches = 0, elements = 0;
  std::string why;  // for ShapeDiffers / NotComparable
};

struct Comparison {
  double rtol = 1e-4, atol = 1e-5;
  std::vector<ValueComparison> values;  // one per A value, A's order
  int first_over = -1;                  // index of the first OverTolerance value, -1: none
  size_t compared = 0, over = 0, scaled = 0, only_in_a = 0, fused = 0, not_compared = 0;
  size_t outputs_compared = 0, outputs_over = 0;
  std::vector<std::string> only_in_b;  // keys of B values nothing in A matched
  bool clean() const { return over == 0 && outputs_over == 0; }
};

Comparison compare_runs(const CapturedRun& a, const CapturedRun& b, double rtol, double atol);

// The text report (every value, or with `failures_only` those not Ok); the first value over
// tolerance with its op and its inputs' errors; the counts.
std::string comparison_text(const Comparison& c, const CapturedRun& a, bool failures_only);
nlohmann::json comparison_json(const Comparison& c, const CapturedRun& a);

}  // namespace kiln::cli
