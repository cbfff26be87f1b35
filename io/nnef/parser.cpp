#include "io/nnef/parser.h"

#include <cctype>
#include <charconv>
#include <cstdlib>

#include "base/error.h"

namespace kiln::nnef {

namespace {

enum class Tok { End, Identifier, Integer, Real, String, Symbol };

struct Token {
  Tok kind = Tok::End;
  std::string text;
  int line = 1;
  int column = 1;
};

// Splits the text into tokens; '#' starts a comment running to the end of the line.
class Lexer {
 public:
  Lexer(std::string_view text, const std::string& source) : text_(text), source_(source) {}

  std::vector<Token> run() {
    std::vector<Token> out;
    for (;;) {
      skip_space();
      Token t;
      t.line = line_;
      t.column = column_;
      if (pos_ >= text_.size()) {
        out.push_back(t);
        return out;
      }
      char c = text_[pos_];
      if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
        t.kind = Tok::Identifier;
        while (pos_ < text_.size() &&
               (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_'))
          t.text += take();
      } else if (std::isdigit(static_cast<unsigned char>(c))) {
        lex_number(t);
      } else if (c == '\'' || c == '"') {
        t.kind = Tok::String;
        char quote = take();
        for (;;) {
          if (pos_ >= text_.size() || text_[pos_] == '\n')
            fail("{}:{}:{}: unterminated string literal", source_, t.line, t.column);
          char d = take();
          if (d == quote) break;
          if (d == '\\' && pos_ < text_.size()) d = take();
          t.text += d;
        }
      } else {
        t.kind = Tok::Symbol;
        static const char* two[] = {"->", "<=", ">=", "==", "!=", "&&", "||"};
        for (const char* s : two)
          if (text_.substr(pos_, 2) == s) {
            t.text = s;
            take();
            take();
            break;
          }
        if (t.text.empty()) {
          static const std::string_view singles = "()[]{}<>,;:=+-*/^!?";
          if (singles.find(c) == std::string_view::npos) {
            std::string shown = std::isprint(static_cast<unsigned char>(c))
                                    ? std::string(1, c)
                                    : fmt::format("\\x{:02x}", static_cast<unsigned char>(c));
            fail("{}:{}:{}: unexpected character '{}'", source_, line_, column_, shown);
          }
          t.text = std::string(1, take());
        }
      }
      out.push_back(std::move(t));
    }
  }

 private:
  char take() {
    char c = text_[pos_++];
    if (c == '\n') {
      line_++;
      column_ = 1;
    } else {
      column_++;
    }
    return c;
  }
  void skip_space() {
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      if (c == '#') {
        while (pos_ < text_.size() && text_[pos_] != '\n') take();
      } else if (std::isspace(static_cast<unsigned char>(c))) {
        take();
      } else {
        break;
      }
    }
  }
  void lex_number(Token& t) {
    t.kind = Tok::Integer;
    auto digits = [&] {
      while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_])))
        t.text += take();
    };
    digits();
    if (pos_ + 1 < text_.size() && text_[pos_] == '.' &&
        std::isdigit(static_cast<unsigned char>(text_[pos_ + 1]))) {
      t.kind = Tok::Real;
      t.text += take();
      digits();
    } else if (pos_ < text_.size() && text_[pos_] == '.') {
      t.kind = Tok::Real;  // "1." is a real
      t.text += take();
    }
    if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
      size_t save = pos_;
      std::string exp(1, text_[pos_]);
      size_t p = pos_ + 1;
      if (p < text_.size() && (text_[p] == '+' || text_[p] == '-')) exp += text_[p++];
      if (p < text_.size() && std::isdigit(static_cast<unsigned char>(text_[p]))) {
        t.kind = Tok::Real;
        while (pos_ < p) t.text += take();
        digits();
      } else {
        pos_ = save;
      }
    }
  }

  std::string_view text_;
  const std::string& source_;
  size_t pos_ = 0;
  int line_ = 1;
  int column_ = 1;
};

class Parser {
 public:
  Parser(std::vector<Token> tokens, const std::string& source)
      : tokens_(std::move(tokens)), source_(source) {}

  Document document(bool require_graph) {
    Document doc;
    if (is_word("version")) {
      next();
      const Token& v = peek();
      if (v.kind != Tok::Real && v.kind != Tok::Integer) error(v, "expected a version number");
      doc.version = next().text;
      expect(";");
    }
    while (is_word("extension")) {
      next();
      for (;;) {
        std::string item = expect_identifier("extension name");
        while (peek().kind == Tok::Identifier) item += " " + next().text;
        doc.extensions.push_back(item);
        if (!accept(",")) break;
      }
      expect(";");
    }
    while (is_word("fragment")) doc.fragments.push_back(fragment());
    if (is_word("graph")) {
      doc.graph = graph();
    } else if (require_graph) {
      error(peek(), "expected 'fragment' or 'graph'");
    }
    if (peek().kind != Tok::End) error(peek(), "expected the end of the document");
    return doc;
  }

  std::vector<QuantEntry> quantization() {
    std::vector<QuantEntry> out;
    while (peek().kind != Tok::End) {
      const Token& t = peek();
      if (t.kind != Tok::String) error(t, "expected a quoted tensor name");
      QuantEntry e;
      e.tensor = next().text;
      expect(":");
      e.invocation = expression();
      if (e.invocation->kind != Expr::Kind::Invocation)
        error(t, "expected a quantization invocation after the tensor name");
      expect(";");
      out.push_back(std::move(e));
    }
    return out;
  }

 private:
  const Token& peek(size_t ahead = 0) const {
    size_t i = std::min(pos_ + ahead, tokens_.size() - 1);
    return tokens_[i];
  }
  const Token& next() {
    const Token& t = tokens_[pos_];
    if (pos_ + 1 < tokens_.size()) pos_++;
    return t;
  }
  bool is_symbol(const char* s, size_t ahead = 0) const {
    return peek(ahead).kind == Tok::Symbol && peek(ahead).text == s;
  }
  bool is_word(const char* s) const { return peek().kind == Tok::Identifier && peek().text == s; }
  bool accept(const char* s) {
    if (!is_symbol(s)) return false;
    next();
    return true;
  }
  [[noreturn]] void error(const Token& t, const std::string& what) const {
    std::string found = t.kind == Tok::End      ? "the end of the text"
                        : t.kind == Tok::String ? "'" + t.text + "' (a string)"
                                                : "'" + t.text + "'";
    fail("{}:{}:{}: {}, found {}", source_, t.line, t.column, what, found);
  }
  void expect(const char* s) {
    if (!accept(s)) error(peek(), fmt::format("expected '{}'", s));
  }
  std::string expect_identifier(const char* what) {
    if (peek().kind != Tok::Identifier) error(peek(), fmt::format("expected {}", what));
    return next().text;
  }

  // type := ("tensor" "<" base ">" | base | "(" type, ... ")") ("[" "]")*
  TypeSpec type() {
    TypeSpec t;
    if (accept("(")) {
      t.text = "(";
      for (;;) {
        t.text += type().text;
        if (!accept(",")) break;
        t.text += ", ";
      }
      expect(")");
      t.text += ")";
    } else if (is_word("tensor")) {
      next();
      expect("<");
      t.text = "tensor<" + base_type() + ">";
      expect(">");
    } else {
      t.text = base_type();
    }
    while (is_symbol("[") && is_symbol("]", 1)) {
      next();
      next();
      t.text += "[]";
    }
    return t;
  }
  std::string base_type() {
    if (accept("?")) return "?";
    const Token& t = peek();
    if (t.kind == Tok::Identifier &&
        (t.text == "scalar" || t.text == "integer" || t.text == "logical" || t.text == "string"))
      return next().text;
    if (t.kind == Tok::Symbol && t.text == ">") return "";  // tensor<> in some exporters
    error(t, "expected a type (scalar, integer, logical, string or ?)");
  }

  Param param(bool allow_default) {
    Param p;
    p.name = expect_identifier("a parameter name");
    expect(":");
    p.type = type();
    if (allow_default && accept("=")) p.default_value = expression();
    return p;
  }

  Fragment fragment() {
    Fragment f;
    f.line = peek().line;
    next();  // fragment
    f.name = expect_identifier("a fragment name");
    if (accept("<")) {
      f.generic = true;
      expect("?");
      if (accept("=")) f.generic_default = base_type();
      expect(">");
    }
    expect("(");
    if (!is_symbol(")")) {
      for (;;) {
        f.params.push_back(param(true));
        if (!accept(",")) break;
      }
    }
    expect(")");
    expect("->");
    expect("(");
    for (;;) {
      f.results.push_back(param(false));
      if (!accept(",")) break;
    }
    expect(")");
    if (accept(";")) return f;
    f.body = block();
    return f;
  }

  std::vector<Assignment> block() {
    expect("{");
    std::vector<Assignment> body;
    while (!accept("}")) {
      if (peek().kind == Tok::End) error(peek(), "expected '}'");
      Assignment a;
      a.line = peek().line;
      a.lhs = lvalue();
      expect("=");
      a.rhs = expression();
      expect(";");
      body.push_back(std::move(a));
    }
    return body;
  }

  ExprPtr lvalue() {
    const Token& t = peek();
    auto e = std::make_shared<Expr>();
    e->line = t.line;
    e->column = t.column;
    if (accept("[") || (t.kind == Tok::Symbol && t.text == "(" && (next(), true))) {
      bool array = t.text == "[";
      e->kind = array ? Expr::Kind::Array : Expr::Kind::Tuple;
      const char* close = array ? "]" : ")";
      if (!is_symbol(close)) {
        for (;;) {
          e->items.push_back(lvalue());
          if (!accept(",")) break;
        }
      }
      expect(close);
      return e;
    }
    e->kind = Expr::Kind::Identifier;
    e->text = expect_identifier("an identifier on the left of '='");
    return e;
  }

  std::vector<std::string> identifier_list() {
    std::vector<std::string> out;
    expect("(");
    if (!is_symbol(")")) {
      for (;;) {
        out.push_back(expect_identifier("an identifier"));
        if (!accept(",")) break;
      }
    }
    expect(")");
    return out;
  }

  GraphDef graph() {
    GraphDef g;
    g.line = peek().line;
    next();  // graph
    g.name = expect_identifier("a graph name");
    g.inputs = identifier_list();
    expect("->");
    g.outputs = identifier_list();
    g.body = block();
    return g;
  }

  static std::shared_ptr<Expr> make(Expr::Kind kind, const Token& at, std::string text,
                                    std::vector<ExprPtr> items) {
    auto e = std::make_shared<Expr>();
    e->kind = kind;
    e->line = at.line;
    e->column = at.column;
    e->text = std::move(text);
    e->items = std::move(items);
    return e;
  }

  // Precedence, lowest first: if-else, ||, &&, comparisons and 'in', + -, * /, ^ (right
  // associative), unary, postfix subscripts.
  ExprPtr expression() {
    if (++depth_ > 200) error(peek(), "expression nested too deeply");
    ExprPtr value = logical_or();
    if (is_word("if")) {
      Token at = next();
      ExprPtr cond = logical_or();
      if (!is_word("else")) error(peek(), "expected 'else'");
      next();
      ExprPtr other = expression();
      value = make(Expr::Kind::IfElse, at, "if", {cond, value, other});
    }
    depth_--;
    return value;
  }
  template <typename Next>
  ExprPtr left_assoc(std::initializer_list<const char*> ops, Next next_level) {
    ExprPtr lhs = (this->*next_level)();
    for (;;) {
      const char* found = nullptr;
      for (const char* op : ops)
        if (is_symbol(op) || (std::string(op) == "in" && is_word("in"))) found = op;
      if (!found) return lhs;
      Token at = next();
      ExprPtr rhs = (this->*next_level)();
      lhs = make(Expr::Kind::Binary, at, found, {lhs, rhs});
    }
  }
  ExprPtr logical_or() { return left_assoc({"||"}, &Parser::logical_and); }
  ExprPtr logical_and() { return left_assoc({"&&"}, &Parser::comparison); }
  ExprPtr comparison() {
    return left_assoc({"<", "<=", ">", ">=", "==", "!=", "in"}, &Parser::additive);
  }
  ExprPtr additive() { return left_assoc({"+", "-"}, &Parser::multiplicative); }
  ExprPtr multiplicative() { return left_assoc({"*", "/"}, &Parser::power); }
  ExprPtr power() {
    ExprPtr base = unary();
    if (is_symbol("^")) {
      Token at = next();
      ExprPtr exponent = power();
      return make(Expr::Kind::Binary, at, "^", {base, exponent});
    }
    return base;
  }
  ExprPtr unary() {
    if (is_symbol("-") || is_symbol("+") || is_symbol("!")) {
      if (++depth_ > 200) error(peek(), "expression nested too deeply");
      Token at = next();
      ExprPtr operand = unary();
      depth_--;
      // Fold signs into numeric literals so "-1" stays a literal.
      if (at.text == "-" && operand->kind == Expr::Kind::Integer) {
        auto e = std::make_shared<Expr>(*operand);
        e->integer = -e->integer;
        return e;
      }
      if (at.text == "-" && operand->kind == Expr::Kind::Real) {
        auto e = std::make_shared<Expr>(*operand);
        e->real = -e->real;
        return e;
      }
      return make(Expr::Kind::Unary, at, at.text, {operand});
    }
    return postfix();
  }
  ExprPtr postfix() {
    ExprPtr base = primary();
    while (is_symbol("[")) {
      Token at = next();
      auto e = std::make_shared<Expr>();
      e->kind = Expr::Kind::Subscript;
      e->line = at.line;
      e->column = at.column;
      e->items.push_back(base);
      e->items.push_back(is_symbol(":") ? nullptr : expression());
      if (accept(":")) {
        e->is_range = true;
        e->items.push_back(is_symbol("]") ? nullptr : expression());
      }
      expect("]");
      base = e;
    }
    return base;
  }
  ExprPtr primary() {
    const Token& t = peek();
    switch (t.kind) {
      case Tok::Integer: {
        auto e = make(Expr::Kind::Integer, t, t.text, {});
        auto r = std::from_chars(t.text.data(), t.text.data() + t.text.size(), e->integer);
        if (r.ec != std::errc()) error(t, "integer literal out of range");
        next();
        return e;
      }
      case Tok::Real: {
        auto e = make(Expr::Kind::Real, t, t.text, {});
        e->real = std::strtod(t.text.c_str(), nullptr);
        next();
        return e;
      }
      case Tok::String: {
        auto e = make(Expr::Kind::String, t, t.text, {});
        next();
        return e;
      }
      case Tok::Identifier: {
        if (t.text == "true" || t.text == "false") {
          auto e = make(Expr::Kind::Bool, t, t.text, {});
          e->boolean = t.text == "true";
          next();
          return e;
        }
        if (t.text == "for") error(t, "list comprehensions are not supported");
        Token name = next();
        std::string type_arg;
        // name<type>( ... ): a generic invocation such as variable<scalar>(...).
        if (is_symbol("<") && peek(1).kind != Tok::End && is_symbol(">", 2) && is_symbol("(", 3) &&
            (peek(1).text == "?" || peek(1).text == "scalar" || peek(1).text == "integer" ||
             peek(1).text == "logical" || peek(1).text == "string")) {
          next();
          type_arg = next().text;
          next();
        }
        if (is_symbol("(")) return invocation(name, type_arg);
        return make(Expr::Kind::Identifier, name, name.text, {});
      }
      case Tok::Symbol:
        if (t.text == "[" || t.text == "(") {
          bool array = t.text == "[";
          Token at = next();
          std::vector<ExprPtr> items;
          const char* close = array ? "]" : ")";
          if (!is_symbol(close)) {
            for (;;) {
              items.push_back(expression());
              if (!accept(",")) break;
            }
          }
          expect(close);
          if (!array && items.size() == 1) return items[0];  // parenthesized expression
          return make(array ? Expr::Kind::Array : Expr::Kind::Tuple, at, "", std::move(items));
        }
        break;
      default:
        break;
    }
    error(t, "expected an expression");
  }
  ExprPtr invocation(const Token& name, const std::string& type_arg) {
    auto e = std::make_shared<Expr>();
    e->kind = Expr::Kind::Invocation;
    e->line = name.line;
    e->column = name.column;
    e->text = name.text;
    e->type_arg = type_arg;
    expect("(");
    if (!is_symbol(")")) {
      for (;;) {
        if (peek().kind == Tok::Identifier && is_symbol("=", 1)) {
          std::string arg = next().text;
          next();
          for (const auto& [n, v] : e->named)
            if (n == arg) error(peek(), fmt::format("argument '{}' given twice", arg));
          e->named.emplace_back(arg, expression());
        } else {
          if (!e->named.empty()) error(peek(), "positional argument after named arguments");
          e->items.push_back(expression());
        }
        if (!accept(",")) break;
      }
    }
    expect(")");
    return e;
  }

  std::vector<Token> tokens_;
  const std::string& source_;
  size_t pos_ = 0;
  int depth_ = 0;
};

}  // namespace

Document parse_document(std::string_view text, const std::string& source, bool require_graph) {
  Parser parser(Lexer(text, source).run(), source);
  return parser.document(require_graph);
}

std::vector<QuantEntry> parse_quantization(std::string_view text, const std::string& source) {
  Parser parser(Lexer(text, source).run(), source);
  return parser.quantization();
}

}  // namespace kiln::nnef
