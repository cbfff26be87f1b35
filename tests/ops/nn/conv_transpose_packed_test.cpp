// ConvTransposePacked (ConvTranspose::codegen) against the reference ConvTranspose (which sums
// in double): 1-D, 2-D and 3-D, strides smaller, equal and larger than the kernel, dilations,
// pads, output_padding, groups (depthwise too), batches, with and without bias, odd sizes.
// Tolerance 1e-5 absolute + 1e-5 relative: float sums of <= 24 products of values <= 1 (a few
// ulps of ~1), while a wrong offset, channel or group moves outputs by ~0.1. 1 and 2 threads
// give the same bits.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "base/threading.h"
#include "ops/nn/conv_transpose.h"
#include "ops/nn/conv_transpose_packed.h"
#include "tests/ops/nn/nn_test_util.h"

namespace kiln {
namespace {

using kiln::testing::fact_refs;
using kiln::testing::run_op;

Tensor random_tensor(std::mt19937& rng, Shape shape) {
  std::uniform_real_distribution<float> d(-1, 1);
  std::vector<float> v(static_cast<size_t>(shape_numel(shape)));
  for (auto& x : v) x = d(rng);
  return Tensor::from_vector<float>(shape, v);
}

struct Case {
  Shape x;  // N, C, spatial...
  int64_t m_per_group = 3, group = 1;
  std::vector<int64_t> kernel = {}, strides = {}, dilations = {}, pads = {}, output_padding = {};
  bool bias = true;
};

void check(const Case& c) {
  SCOPED_TRACE(::testing::Message()
               << "x " << shape_to_string(c.x) << " group " << c.group << " kernel "
               << shape_to_string(c.kernel) << " strides " << shape_to_string(c.strides));
  std::mt19937 rng(static_cast<unsigned>(c.x.size() * 31 + c.group));
  ops::WindowGeometry g;
  g.strides = c.strides;
  g.dilations = c.dilations;
  g.pads = c.pads;
  ops::ConvTranspose ref(g, c.group, c.output_padding, {});
  Shape ws = {c.x[1], c.m_per_group};
  ws.insert(ws.end(), c.kernel.begin(), c.kernel.end());
  std::vector<Tensor> in = {random_tensor(rng, c.x), random_tensor(rng, ws),
                            random_tensor(rng, {c.m_per_group * c.group})};
  std::vector<bool> absent = {false, false, !c.bias};
  std::vector<Fact> facts = {Fact(DatumType::F32, c.x), Fact::constant(in[1]),
                             Fact::constant(in[2])};
  FactRefs refs = fact_refs(facts);
  if (!c.bias) refs.pop_back();
  OpPtr fast = ref.codegen(refs);
  ASSERT_NE(fast, nullptr);
  EXPECT_EQ(fast->name(), "ConvTransposePacked");
  if (!c.bias) {
    in.pop_back();
    absent.pop_back();
  }
  auto want = run_op(ref, in, 1, absent);
  const int saved = num_threads();
  set_num_threads(1);
  auto got = run_op(*fast, in, 1, absent);
  set_num_threads(2);
  auto got2 = run_op(*fast, in, 1, absent);
  set_num_threads(saved);
  ASSERT_EQ(got[0].shape(), want[0].shape());
  ASSERT_EQ(std::memcmp(got[0].data<float>(), got2[0].data<float>(),
                        static_cast<size_t>(got[0].numel()) * sizeof(float)),
            0);
  double moved = 0;
  for (int64_t i = 0; i < want[0].numel(); i++) {
    const float w = want[0].data<float>()[i];
    ASSERT_NEAR(got[0].data<float>()[i], w, 1e-5 + 1e-5 * std::fabs(w)) << "at " << i;
    moved = std::max(moved, std::fabs(double(w)));
  }
  EXPECT_GT(moved, 0.1);
}

TEST(OpsConvTransposePacked, MatchesReference) {
  // 2-D: the upsampling heads of detectors (k = s = 2), overlapping windows (k 3 / 4, s 2),
  // stride 1, pads, output_padding, dilations.
  check({.x = {1, 4, 5, 7}, .kernel = {2, 2}, .strides = {2, 2}});
  check({.x = {2, 3, 6, 5},
         .kernel = {3, 3},
         .strides = {2, 2},
         .pads = {1, 1, 1, 1},
         .output_padding = {1, 1}});
  check({.x = {1, 5, 4, 4},
         .m_per_group = 2,
         .kernel = {4, 4},
         .strides = {2, 2},
         .pads = {1, 1, 1, 1}});
  check({.x = {1, 3, 5, 6}, .kernel = {3, 2}, .strides = {1, 1}, .bias = false});
  check({.x = {1, 2, 4, 5},
         .kernel = {3, 3},
         .strides = {3, 2},
         .dilations = {2, 1},
         .pads = {2, 0, 1, 1}});
  check({.x = {1, 4, 3, 3}, .m_per_group = 1, .group = 2, .kernel = {2, 2}, .strides = {2, 2}});
  check({.x = {1, 6, 4, 4},
         .m_per_group = 1,
         .group = 6,
         .kernel = {4, 4},
         .strides = {2, 2},
         .pads = {1, 1, 1, 1}});
  check({.x = {1, 2, 3, 3}, .kernel = {1, 1}, .strides = {3, 3}});  // stride beyond the kernel
  // Outputs smaller than the input (pads crop): the reference sums in its gather form.
  check({.x = {1, 3, 6, 6}, .kernel = {3, 3}, .strides = {1, 1}, .pads = {2, 2, 2, 2}});
  check({.x = {1, 2, 7, 5}, .kernel = {4, 3}, .strides = {2, 2}, .pads = {5, 3, 5, 3}});
  check({.x = {2, 4, 6, 6},
         .m_per_group = 2,
         .group = 2,
         .kernel = {3, 3},
         .strides = {2, 1},
         .dilations = {2, 2},
         .pads = {6, 4, 4, 4}});
  // 1-D (audio decoders, vocoders) and 3-D.
  check({.x = {1, 8, 17}, .m_per_group = 4, .kernel = {16}, .strides = {8}, .pads = {4, 4}});
  check({.x = {2, 3, 9}, .kernel = {5}, .strides = {1}, .pads = {2, 2}});
  check({.x = {1, 2, 3, 4, 3}, .m_per_group = 2, .kernel = {2, 3, 2}, .strides = {2, 1, 2}});
}

TEST(OpsConvTransposePacked, KeepsReferenceOtherwise) {
  std::mt19937 rng(3);
  Tensor w = random_tensor(rng, {2, 3, 2, 2});
  ops::ConvTranspose ref(ops::WindowGeometry{}, 1, {}, {});
  std::vector<Fact> dynamic = {Fact(DatumType::F32, Shape{1, 2, 4, 4}),
                               Fact(DatumType::F32, Shape{2, 3, 2, 2})};
  EXPECT_EQ(ref.codegen(fact_refs(dynamic)), nullptr);
  std::vector<Fact> f64 = {Fact(DatumType::F64, Shape{1, 2, 4, 4}), Fact::constant(w)};
  EXPECT_EQ(ref.codegen(fact_refs(f64)), nullptr);
  std::vector<Fact> ok = {Fact(DatumType::F32, Shape{1, 2, 4, 4}), Fact::constant(w)};
  EXPECT_NE(ref.codegen(fact_refs(ok)), nullptr);
  EXPECT_TRUE(ref.is_reference_impl());
}

}  // namespace
}  // namespace kiln
