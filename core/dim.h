// Dim: a tensor dimension that is an integer or a symbolic expression over named symbols
// (N, S, S+1, 2*S, S/2 with floor division by a positive integer). Expressions are kept in a
// canonical form (a sum of coefficient * product-of-atoms terms), so equal dims compare equal.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kiln {

using SymbolValues = std::map<std::string, int64_t>;

class Dim {
 public:
  Dim(int64_t value = 0);  // NOLINT: integers convert implicitly
  static Dim symbol(std::string name);
  // A new symbol never seen before ("unk__7"): for dims only known at run time.
  static Dim fresh();
  // Parses "N", "2*S+1", "S/2", "(S+1)/2", "3". Throws kiln::Error on bad syntax.
  static Dim parse(std::string_view text);

  bool is_int() const;
  std::optional<int64_t> as_int() const;
  // The integer value; throws when the dim is symbolic.
  int64_t to_int() const;
  // Evaluates with every symbol bound; throws naming the first unbound symbol.
  int64_t eval(const SymbolValues& values) const;
  // Replaces the bound symbols by their values, leaves the others.
  Dim substitute(const SymbolValues& values) const;
  // Symbols used, sorted, without repetition.
  std::vector<std::string> symbols() const;

  Dim operator+(const Dim& other) const;
  Dim operator-(const Dim& other) const;
  Dim operator*(const Dim& other) const;
  Dim operator-() const { return *this * Dim(-1); }
  // Floor division by a positive integer.
  Dim div(int64_t divisor) const;
  // Ceiling division by a positive integer.
  Dim div_ceil(int64_t divisor) const { return (*this + Dim(divisor - 1)).div(divisor); }
  Dim& operator+=(const Dim& o) { return *this = *this + o; }
  Dim& operator*=(const Dim& o) { return *this = *this * o; }

  bool operator==(const Dim& other) const;
  bool operator!=(const Dim& other) const { return !(*this == other); }
  std::string to_string() const;

  struct Atom {
    std::string symbol;  // a named symbol, or empty for a division
    std::shared_ptr<const Dim> numerator;
    int64_t denominator = 1;
    std::string key;  // canonical text, used for ordering
  };
  struct Term {
    int64_t coefficient = 0;
    std::vector<Atom> atoms;  // sorted by key; empty for the constant term
    std::string key;
  };

 private:
  friend Dim dims_product(const std::vector<Dim>& dims);
  void normalize();
  // The division atom when this dim is `n/d` or `n/d + k`, else null.
  const Atom* single_division() const;
  std::vector<Term> terms_;  // sorted by key; no zero coefficients
};

std::ostream& operator<<(std::ostream& os, const Dim& d);

// Dims of a shape, printed "1,S,40".
std::string dims_to_string(const std::vector<Dim>& dims);
// Product of dims: linear in their number (monomials join into one term, sorted once).
Dim dims_product(const std::vector<Dim>& dims);

}  // namespace kiln
