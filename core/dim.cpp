#include "core/dim.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <ostream>
#include <set>

#include "base/error.h"

namespace kiln {
namespace {

int64_t floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) q--;
  return q;
}

// Coefficient arithmetic, checked: hostile shapes (2^62 x 4) must give an error, not wrap.
int64_t checked_mul(int64_t a, int64_t b) {
  int64_t r;
  KILN_ENSURE(!__builtin_mul_overflow(a, b, &r), "dimension arithmetic overflows ({} * {})", a, b);
  return r;
}
int64_t checked_add(int64_t a, int64_t b) {
  int64_t r;
  KILN_ENSURE(!__builtin_add_overflow(a, b, &r), "dimension arithmetic overflows ({} + {})", a, b);
  return r;
}

std::string term_key(const std::vector<Dim::Atom>& atoms) {
  std::string key;
  for (const auto& a : atoms) {
    if (!key.empty()) key += "*";
    key += a.key;
  }
  return key;
}

Dim::Term make_term(int64_t coefficient, std::vector<Dim::Atom> atoms) {
  std::sort(atoms.begin(), atoms.end(),
            [](const Dim::Atom& a, const Dim::Atom& b) { return a.key < b.key; });
  Dim::Term t;
  t.coefficient = coefficient;
  t.key = term_key(atoms);
  t.atoms = std::move(atoms);
  return t;
}

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}
  Dim parse() {
    Dim d = expr();
    skip();
    KILN_ENSURE(pos_ == text_.size(), "unexpected '{}' in dimension '{}'", text_.substr(pos_),
                text_);
    return d;
  }

 private:
  void skip() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) pos_++;
  }
  bool eat(char c) {
    skip();
    if (pos_ < text_.size() && text_[pos_] == c) {
      pos_++;
      return true;
    }
    return false;
  }
  Dim expr() {
    Dim d = term();
    for (;;) {
      if (eat('+'))
        d = d + term();
      else if (eat('-'))
        d = d - term();
      else
        return d;
    }
  }
  Dim term() {
    Dim d = factor();
    for (;;) {
      if (eat('*')) {
        d = d * factor();
      } else if (eat('/')) {
        Dim divisor = factor();
        KILN_ENSURE(divisor.is_int() && divisor.to_int() > 0,
                    "dimension '{}': can only divide by a positive integer", text_);
        d = d.div(divisor.to_int());
      } else {
        return d;
      }
    }
  }
  Dim factor() {
    skip();
    KILN_ENSURE(pos_ < text_.size(), "dimension '{}' ends too early", text_);
    // Nesting is recursion: bounded, so "((((...S" from the command line cannot overflow the
    // stack.
    KILN_ENSURE(++depth_ <= 100, "dimension '{}' is nested too deeply", text_.substr(0, 40));
    struct Leave {
      int& depth;
      ~Leave() { depth--; }
    } leave{depth_};
    char c = text_[pos_];
    if (c == '(') {
      pos_++;
      Dim d = expr();
      KILN_ENSURE(eat(')'), "missing ')' in dimension '{}'", text_);
      return d;
    }
    if (c == '-') {
      pos_++;
      return -factor();
    }
    if (std::isdigit(static_cast<unsigned char>(c))) {
      int64_t v = 0;
      while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
        KILN_ENSURE(v < (int64_t{1} << 58), "dimension '{}' is too large", text_);
        v = v * 10 + (text_[pos_++] - '0');
      }
      return Dim(v);
    }
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      size_t start = pos_;
      while (pos_ < text_.size() &&
             (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_'))
        pos_++;
      return Dim::symbol(std::string(text_.substr(start, pos_ - start)));
    }
    fail("unexpected '{}' in dimension '{}'", c, text_);
  }

  std::string_view text_;
  size_t pos_ = 0;
  int depth_ = 0;
};

}  // namespace

Dim::Dim(int64_t value) {
  if (value != 0) terms_.push_back(make_term(value, {}));
}

Dim Dim::symbol(std::string name) {
  KILN_ENSURE(!name.empty(), "empty symbol name");
  Atom a;
  a.symbol = name;
  a.key = name;
  Dim d(0);
  d.terms_.push_back(make_term(1, {a}));
  return d;
}

Dim Dim::fresh() {
  static std::atomic<int64_t> counter{0};
  return symbol(fmt::format("unk__{}", ++counter));
}

Dim Dim::parse(std::string_view text) {
  return Parser(text).parse();
}

bool Dim::is_int() const {
  return terms_.empty() || (terms_.size() == 1 && terms_[0].atoms.empty());
}

std::optional<int64_t> Dim::as_int() const {
  if (!is_int()) return std::nullopt;
  return terms_.empty() ? 0 : terms_[0].coefficient;
}

int64_t Dim::to_int() const {
  auto v = as_int();
  KILN_ENSURE(v.has_value(), "dimension {} is symbolic where a number is needed", to_string());
  return *v;
}

int64_t Dim::eval(const SymbolValues& values) const {
  Dim d = substitute(values);
  if (!d.is_int()) fail("symbol {} has no value", d.symbols().front());
  return d.to_int();
}

Dim Dim::substitute(const SymbolValues& values) const {
  Dim out(0);
  for (const auto& t : terms_) {
    Dim term(t.coefficient);
    for (const auto& a : t.atoms) {
      if (!a.symbol.empty()) {
        auto it = values.find(a.symbol);
        term = term * (it == values.end() ? Dim::symbol(a.symbol) : Dim(it->second));
      } else {
        term = term * a.numerator->substitute(values).div(a.denominator);
      }
    }
    out = out + term;
  }
  return out;
}

std::vector<std::string> Dim::symbols() const {
  std::set<std::string> names;
  for (const auto& t : terms_)
    for (const auto& a : t.atoms) {
      if (!a.symbol.empty())
        names.insert(a.symbol);
      else
        for (auto& s : a.numerator->symbols()) names.insert(s);
    }
  return {names.begin(), names.end()};
}

void Dim::normalize() {
  std::sort(terms_.begin(), terms_.end(), [](const Term& a, const Term& b) {
    // constant term last, others by key
    if (a.atoms.empty() != b.atoms.empty()) return b.atoms.empty();
    return a.key < b.key;
  });
  std::vector<Term> merged;
  for (auto& t : terms_) {
    if (!merged.empty() && merged.back().key == t.key) {
      merged.back().coefficient = checked_add(merged.back().coefficient, t.coefficient);
    } else {
      merged.push_back(std::move(t));
    }
  }
  merged.erase(std::remove_if(merged.begin(), merged.end(),
                              [](const Term& t) { return t.coefficient == 0; }),
               merged.end());
  terms_ = std::move(merged);
}

Dim Dim::operator+(const Dim& other) const {
  Dim out = *this;
  out.terms_.insert(out.terms_.end(), other.terms_.begin(), other.terms_.end());
  out.normalize();
  return out;
}

Dim Dim::operator-(const Dim& other) const {
  return *this + (-other);
}

Dim Dim::operator*(const Dim& other) const {
  Dim out(0);
  for (const auto& a : terms_)
    for (const auto& b : other.terms_) {
      std::vector<Atom> atoms = a.atoms;
      atoms.insert(atoms.end(), b.atoms.begin(), b.atoms.end());
      out.terms_.push_back(make_term(checked_mul(a.coefficient, b.coefficient), std::move(atoms)));
    }
  out.normalize();
  return out;
}

Dim Dim::div(int64_t divisor) const {
  KILN_ENSURE(divisor > 0, "division of dimension {} by {}", to_string(), divisor);
  if (divisor == 1) return *this;
  if (is_int()) return Dim(floor_div(to_int(), divisor));
  // Terms whose coefficient is a multiple of the divisor divide exactly and leave the floor.
  Dim exact(0), rest(0);
  for (const auto& t : terms_) {
    if (t.coefficient % divisor == 0) {
      Term q = t;
      q.coefficient /= divisor;
      exact.terms_.push_back(q);
    } else {
      rest.terms_.push_back(t);
    }
  }
  exact.normalize();
  rest.normalize();
  if (rest.terms_.empty()) return exact;
  if (rest.is_int()) return exact + Dim(floor_div(rest.to_int(), divisor));
  // The constant of the numerator is kept in [0, divisor): floor((n + k)/d) =
  // floor((n + k mod d)/d) + floor(k/d), so (S-1)/2+1 and (S+1)/2 are the same dim.
  if (rest.terms_.back().atoms.empty()) {
    int64_t k = rest.terms_.back().coefficient;
    int64_t q = floor_div(k, divisor);
    if (q != 0) return exact + Dim(q) + (rest - Dim(checked_mul(q, divisor))).div(divisor);
  }
  // Nested divisions merge: floor((floor(n/b) + k)/c) = floor((n + k*b)/(b*c)) for b, c > 0,
  // so (S/2)/2 and S/4 are the same dim.
  if (const Atom* inner = rest.single_division()) {
    int64_t k = rest.terms_.back().atoms.empty() ? rest.terms_.back().coefficient : 0;
    return exact + (*inner->numerator + Dim(checked_mul(k, inner->denominator)))
                       .div(checked_mul(inner->denominator, divisor));
  }
  Atom a;
  a.numerator = std::make_shared<const Dim>(rest);
  a.denominator = divisor;
  std::string num = rest.to_string();
  bool simple = rest.terms_.size() == 1 && rest.terms_[0].coefficient == 1 &&
                rest.terms_[0].atoms.size() == 1;
  a.key = (simple ? num : "(" + num + ")") + "/" + std::to_string(divisor);
  Dim quotient(0);
  quotient.terms_.push_back(make_term(1, {a}));
  return exact + quotient;
}

const Dim::Atom* Dim::single_division() const {
  const Atom* division = nullptr;
  for (const auto& t : terms_) {
    if (t.atoms.empty()) continue;  // the constant term
    if (division || t.coefficient != 1 || t.atoms.size() != 1 || !t.atoms[0].symbol.empty())
      return nullptr;
    division = &t.atoms[0];
  }
  return division;
}

bool Dim::operator==(const Dim& other) const {
  if (terms_.size() != other.terms_.size()) return false;
  for (size_t i = 0; i < terms_.size(); i++)
    if (terms_[i].coefficient != other.terms_[i].coefficient ||
        terms_[i].key != other.terms_[i].key)
      return false;
  return true;
}

std::string Dim::to_string() const {
  if (terms_.empty()) return "0";
  std::string out;
  for (const auto& t : terms_) {
    int64_t c = t.coefficient;
    if (!out.empty()) {
      out += c < 0 ? "-" : "+";
      c = c < 0 ? -c : c;
    } else if (c < 0 && !t.atoms.empty()) {
      out += "-";
      c = -c;
    }
    if (t.atoms.empty())
      out += std::to_string(c);
    else if (c == 1)
      out += t.key;
    else
      out += std::to_string(c) + "*" + t.key;
  }
  return out;
}

std::ostream& operator<<(std::ostream& os, const Dim& d) {
  return os << d.to_string();
}

std::string dims_to_string(const std::vector<Dim>& dims) {
  std::string out;
  for (size_t i = 0; i < dims.size(); i++) {
    if (i) out += ",";
    out += dims[i].to_string();
  }
  return out;
}

Dim dims_product(const std::vector<Dim>& dims) {
  // Multiplying one dim at a time re-sorts and re-keys the growing product at every step:
  // quadratic in the number of symbols (a Reshape of 16384 fresh dims took 49 s). Integer and
  // one-term factors are gathered instead (one coefficient, one list of atoms, one sort), and
  // only sums are multiplied the general way.
  int64_t coefficient = 1;
  std::vector<Dim::Atom> atoms;
  Dim rest(1);
  for (const auto& d : dims) {
    if (d.terms_.empty()) return Dim(0);
    if (d.terms_.size() == 1) {
      coefficient = checked_mul(coefficient, d.terms_[0].coefficient);
      atoms.insert(atoms.end(), d.terms_[0].atoms.begin(), d.terms_[0].atoms.end());
    } else {
      rest = rest * d;
    }
  }
  Dim monomial(0);
  monomial.terms_.push_back(make_term(coefficient, std::move(atoms)));
  return rest == Dim(1) ? monomial : monomial * rest;
}

}  // namespace kiln
