// einsum-to-matmul: the MatMul forms give the Einsum reference's values (attention, 1x1 convs,
// "..." with a symbolic dim, scalar and outer products, batch broadcasting, permuted and implicit
// outputs), and the forms it declines keep their Einsum.
#include <gtest/gtest.h>

#include "core/tensor_compare.h"
#include "ops/linalg/einsum.h"
#include "passes/einsum_to_matmul.h"
#include "passes/pipeline.h"
#include "tests/passes/pass_test_util.h"

namespace kiln::testing {
namespace {

struct Case {
  const char* equation;
  const char* a_fact;  // as the graph sees it (may be symbolic)
  const char* b_fact;
  Shape a, b;  // as run
  bool rewritten;
};

TEST(EinsumToMatMul, MatMulsGiveTheEinsumValues) {
  const Case cases[] = {
      {"bhqd,bhkd->bhqk", "2,3,5,8,f32", "2,3,7,8,f32", {2, 3, 5, 8}, {2, 3, 7, 8}, true},
      {"bhqk,bhkd->bhqd", "2,3,5,7,f32", "2,3,7,8,f32", {2, 3, 5, 7}, {2, 3, 7, 8}, true},
      {"nchw,cd->ndhw", "2,3,4,5,f32", "3,6,f32", {2, 3, 4, 5}, {3, 6}, true},
      {"nchw,dc->ndhw", "2,3,4,5,f32", "6,3,f32", {2, 3, 4, 5}, {6, 3}, true},
      {"nct,dc->ndt", "2,3,T,f32", "6,3,f32", {2, 3, 9}, {6, 3}, true},
      {"dc,nchw->nhdw", "6,3,f32", "2,3,4,5,f32", {6, 3}, {2, 3, 4, 5}, true},
      {"...d,dh->...h", "S,3,8,f32", "8,5,f32", {4, 3, 8}, {8, 5}, true},
      {"bqd,kd->bqk", "2,S,8,f32", "6,8,f32", {2, 5, 8}, {6, 8}, true},
      {"i,i", "7,f32", "7,f32", {7}, {7}, true},
      {"ij,jk", "3,4,f32", "4,5,f32", {3, 4}, {4, 5}, true},
      {"bij,jk->bki", "2,3,4,f32", "4,5,f32", {2, 3, 4}, {4, 5}, true},
      {"ab,cd->abcd", "2,3,f32", "4,5,f32", {2, 3}, {4, 5}, true},
      {"bn,anm->bam", "2,3,f32", "4,3,5,f32", {2, 3}, {4, 3, 5}, true},
      {"bij,bjk->bik", "1,4,5,f32", "3,5,6,f32", {1, 4, 5}, {3, 5, 6}, true},
      {"ij,ij->ij", "3,4,f32", "3,4,f32", {3, 4}, {3, 4}, true},
      {"ij,jk->i", "3,4,f32", "4,5,f32", {3, 4}, {4, 5}, false},  // k summed in B only
      {"ij,jj->i", "3,4,f32", "4,4,f32", {3, 4}, {4, 4}, false},  // a diagonal
  };
  unsigned seed = 60;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.equation);
    Graph g;
    Outlet a = g.add_source("a", Fact::parse(c.a_fact));
    Outlet b = g.add_source("b", Fact::parse(c.b_fact));
    int e = g.add_node("e", std::make_shared<ops::Einsum>(c.equation), {a, b});
    g.set_outputs({{e, 0}}, {"e"});
    g.analyse();
    Graph before = g;
    EXPECT_EQ(passes::EinsumToMatMul().run(g) > 0, c.rewritten);
    passes::optimize(g);
    const bool has_einsum = compute_ops(g).find("Einsum") != std::string::npos;
    EXPECT_EQ(has_einsum, !c.rewritten) << compute_ops(g);
    const std::vector<Tensor> inputs = {random_tensor(c.a, seed++), random_tensor(c.b, seed++)};
    const Tensor want = run(before, inputs)[0];
    const Tensor got = run(g, inputs)[0];
    ASSERT_EQ(got.shape(), want.shape());
    // Sums of at most 8 products of values in [-1, 1], f32 against the reference's order.
    const auto r = compare_tensors(got, want, 1e-5, 1e-6);
    EXPECT_TRUE(r.ok) << r.summary();
  }
}

}  // namespace
}  // namespace kiln::testing
