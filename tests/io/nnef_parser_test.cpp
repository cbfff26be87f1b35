// NNEF text syntax: documents, fragments with defaults, expressions, and errors with positions.
#include <gtest/gtest.h>

#include "base/error.h"
#include "io/nnef/parser.h"

namespace {

using kiln::nnef::Expr;
using kiln::nnef::parse_document;

std::string error_of(const std::string& text) {
  try {
    parse_document(text, "graph.nnef");
  } catch (const kiln::Error& e) {
    return e.chain();
  }
  return "";
}

TEST(NnefParser, DocumentWithFragmentsAndGraph) {
  auto doc = parse_document(R"(
version 1.0;
extension tract_registry tract_core;
extension KHR_enable_fragment_definitions, KHR_enable_operator_expressions;

# a compound fragment with a default
fragment scale( x: tensor<scalar>, k: scalar = 2.0 ) -> ( y: tensor<scalar> )
{
    y = k * x;
}
fragment opaque<? = scalar>( x: tensor<?>, axes: integer[] ) -> ( y: tensor<?>, z: tensor<?> );

graph net( a ) -> ( b )
{
    a = external<scalar>(shape = [1, 2]);
    b = scale(a, k = -0.5e1);
}
)");
  EXPECT_EQ(doc.version, "1.0");
  ASSERT_EQ(doc.extensions.size(), 3u);
  EXPECT_EQ(doc.extensions[0], "tract_registry tract_core");
  EXPECT_EQ(doc.extensions[2], "KHR_enable_operator_expressions");
  ASSERT_EQ(doc.fragments.size(), 2u);
  const auto& f = doc.fragments[0];
  EXPECT_EQ(f.name, "scale");
  ASSERT_EQ(f.params.size(), 2u);
  EXPECT_EQ(f.params[0].type.text, "tensor<scalar>");
  ASSERT_TRUE(f.params[1].default_value);
  EXPECT_DOUBLE_EQ(f.params[1].default_value->real, 2.0);
  ASSERT_TRUE(f.body.has_value());
  EXPECT_EQ(f.body->size(), 1u);
  const auto& g = doc.fragments[1];
  EXPECT_TRUE(g.generic);
  EXPECT_EQ(g.generic_default, "scalar");
  EXPECT_FALSE(g.body.has_value());
  EXPECT_EQ(g.params[1].type.text, "integer[]");
  EXPECT_EQ(g.results.size(), 2u);
  ASSERT_TRUE(doc.graph.has_value());
  EXPECT_EQ(doc.graph->inputs, std::vector<std::string>{"a"});
  const auto& call = *doc.graph->body[1].rhs;
  EXPECT_EQ(call.kind, Expr::Kind::Invocation);
  EXPECT_EQ(call.text, "scale");
  ASSERT_EQ(call.named.size(), 1u);
  EXPECT_DOUBLE_EQ(call.named[0].second->real, -5.0);
  const auto& ext = *doc.graph->body[0].rhs;
  EXPECT_EQ(ext.type_arg, "scalar");
  EXPECT_EQ(ext.named[0].second->kind, Expr::Kind::Array);
}

TEST(NnefParser, OperatorPrecedence) {
  auto doc = parse_document(
      "graph g( x ) -> ( y ) { y = 1 + 2 * 3 ^ 2 ^ 1 if a < b && !c else [x[0], x[1:]]; }");
  const Expr& e = *doc.graph->body[0].rhs;
  ASSERT_EQ(e.kind, Expr::Kind::IfElse);
  const Expr& sum = *e.items[1];
  ASSERT_EQ(sum.kind, Expr::Kind::Binary);
  EXPECT_EQ(sum.text, "+");
  const Expr& prod = *sum.items[1];
  EXPECT_EQ(prod.text, "*");
  const Expr& pow = *prod.items[1];
  EXPECT_EQ(pow.text, "^");
  EXPECT_EQ(pow.items[1]->text, "^");  // right associative
  const Expr& cond = *e.items[0];
  EXPECT_EQ(cond.text, "&&");
  EXPECT_EQ(cond.items[0]->text, "<");
  EXPECT_EQ(cond.items[1]->kind, Expr::Kind::Unary);
  const Expr& other = *e.items[2];
  ASSERT_EQ(other.kind, Expr::Kind::Array);
  EXPECT_FALSE(other.items[0]->is_range);
  EXPECT_TRUE(other.items[1]->is_range);
  EXPECT_EQ(other.items[1]->items[2], nullptr);
}

TEST(NnefParser, TuplesAndArraysOnTheLeft) {
  auto doc = parse_document(
      "graph g( x ) -> ( a, b ) { [a, b] = split(x, axis = 1, ratios = [1, 1]); (c, d) = f(x); "
      "p = [(0, 1), (2, 3)]; }");
  EXPECT_EQ(doc.graph->body[0].lhs->kind, Expr::Kind::Array);
  EXPECT_EQ(doc.graph->body[1].lhs->kind, Expr::Kind::Tuple);
  const Expr& p = *doc.graph->body[2].rhs;
  ASSERT_EQ(p.items.size(), 2u);
  EXPECT_EQ(p.items[1]->kind, Expr::Kind::Tuple);
  EXPECT_EQ(p.items[1]->items[1]->integer, 3);
}

TEST(NnefParser, SyntaxErrorsNameLineAndColumn) {
  EXPECT_NE(error_of("graph g( x ) -> ( y )\n{\n    y = relu(x;\n}").find("graph.nnef:3:15: "),
            std::string::npos)
      << error_of("graph g( x ) -> ( y )\n{\n    y = relu(x;\n}");
  EXPECT_NE(error_of("graph g( x ) -> ( y )\n{\n  y = 'abc;\n}")
                .find("graph.nnef:3:7: "
                      "unterminated string"),
            std::string::npos);
  EXPECT_NE(error_of("version 1.0;\ngraph g( x ) -> ( y ) { y = x @ 2; }").find("graph.nnef:2:"),
            std::string::npos);
  EXPECT_NE(error_of("fragment f( x: tensor<float> ) -> ( y: tensor<scalar> );").find("1:23"),
            std::string::npos)
      << error_of("fragment f( x: tensor<float> ) -> ( y: tensor<scalar> );");
  EXPECT_NE(error_of("graph g( x ) -> ( y ) { y = f(a = 1, 2); }").find("positional argument"),
            std::string::npos);
  EXPECT_NE(error_of("graph g( x ) -> ( y ) { y = f(a = 1, a = 2); }").find("given twice"),
            std::string::npos);
  EXPECT_NE(error_of("").find("expected 'fragment' or 'graph'"), std::string::npos);
  EXPECT_NE(error_of("graph g( x ) -> ( y ) { y = x; } trailing").find("end of the document"),
            std::string::npos);
  EXPECT_NE(error_of("graph g( x ) -> ( y ) { y = 99999999999999999999; }").find("out of range"),
            std::string::npos);
}

TEST(NnefParser, DeepNestingIsAnErrorNotACrash) {
  std::string deep = "graph g( x ) -> ( y ) { y = " + std::string(5000, '(') + "x" +
                     std::string(5000, ')') + "; }";
  EXPECT_NE(error_of(deep).find("nested too deeply"), std::string::npos);
  std::string negs = "graph g( x ) -> ( y ) { y = " + std::string(5000, '-') + "x; }";
  EXPECT_NE(error_of(negs).find("nested too deeply"), std::string::npos);
}

TEST(NnefParser, Quantization) {
  auto q = kiln::nnef::parse_quantization(
      "\"w\": zero_point_linear_quantize(zero_point = 3, scale = 0.5, bits = 8, signed = true, "
      "symmetric = false);\n'x': linear_quantize(min = -1.0, max = 1.0, bits = 8);");
  ASSERT_EQ(q.size(), 2u);
  EXPECT_EQ(q[0].tensor, "w");
  EXPECT_EQ(q[0].invocation->text, "zero_point_linear_quantize");
  EXPECT_EQ(q[0].invocation->named.size(), 5u);
  EXPECT_EQ(q[1].tensor, "x");
  EXPECT_THROW(kiln::nnef::parse_quantization("w: foo();"), kiln::Error);
}

}  // namespace
