// core/run_limits: the rank cap, the tensor memory budget and the run deadline.
#include "core/run_limits.h"

#include <gtest/gtest.h>

#include <thread>

#include "base/error.h"
#include "core/graph.h"
#include "core/op.h"
#include "core/state.h"
#include "core/tensor.h"

namespace kiln {
namespace {

TEST(RunLimits, RankCap) {
  EXPECT_NO_THROW(check_rank(0, "x"));
  EXPECT_NO_THROW(check_rank(kMaxRank, "x"));
  EXPECT_THROW(check_rank(kMaxRank + 1, "x"), Error);
  EXPECT_THROW(check_rank(-1, "x"), Error);
  try {
    check_rank(int64_t{1} << 62, "Unsqueeze axes");
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_NE(e.message().find("too large"), std::string::npos) << e.message();
  }
}

TEST(RunLimits, MemoryBudgetRefusesAndReleases) {
  const size_t before = memory_in_use();
  {
    Tensor a(DatumType::F32, {1000});
    EXPECT_GE(memory_in_use(), before + 4000);
  }
  EXPECT_EQ(memory_in_use(), before);
  set_memory_budget(before + (1 << 20));
  try {
    Tensor ok(DatumType::F32, {1000});
    EXPECT_THROW(Tensor(DatumType::F32, {1 << 20}), Error);  // 4 MiB > 1 MiB budget
    try {
      Tensor big(DatumType::U8, {int64_t{1} << 40});
      ADD_FAILURE();
    } catch (const Error& e) {
      EXPECT_NE(e.message().find("too large"), std::string::npos) << e.message();
    }
  } catch (...) {
    set_memory_budget(0);
    throw;
  }
  set_memory_budget(0);
  EXPECT_EQ(memory_in_use(), before);
  EXPECT_NO_THROW(Tensor(DatumType::F32, {1 << 20}));
}

// Kernel scratch counts against the budget too: a hostile conv's im2col buffer of gigabytes
// gets "too large" instead of the OOM killer (fuzz finding 24), and the arena gives its bytes
// back when it goes.
TEST(RunLimits, ScratchIsChargedToTheBudget) {
  const size_t before = memory_in_use();
  {
    ScratchArena arena;
    arena.allocate(100000);
    EXPECT_GE(memory_in_use(), before + 100000);
    arena.reset();
    EXPECT_GE(memory_in_use(), before + 100000);  // the block is kept for the next node
  }
  EXPECT_EQ(memory_in_use(), before);
  set_memory_budget(before + (1 << 20));
  {
    ScratchArena arena;
    EXPECT_NO_THROW(arena.allocate(1 << 19));
    try {
      arena.allocate(size_t{6} << 30);
      ADD_FAILURE();
    } catch (const Error& e) {
      EXPECT_NE(e.message().find("kernel scratch of 6144.0 MiB is too large"), std::string::npos)
          << e.message();
    }
    EXPECT_THROW(arena.allocate(~size_t{0} - 10), Error);  // would wrap when rounded up
  }
  set_memory_budget(0);
  EXPECT_EQ(memory_in_use(), before);
}

// An op that takes a millisecond: a graph of 200 of them runs past a 50 ms deadline.
class Slow : public Op {
 public:
  std::string name() const override { return "Slow"; }
  std::vector<Fact> output_facts(const FactRefs& in) const override { return {*in[0]}; }
  void eval(EvalContext& ctx, const TensorRefs& in) const override {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    ctx.set_output(0, *in[0]);
  }
};

TEST(RunLimits, DeadlineStopsStateBetweenNodes) {
  auto g = std::make_shared<Graph>();
  Outlet o = g->add_source("x", Fact(DatumType::F32, Shape{1}));
  for (int i = 0; i < 200; i++)
    o = {g->add_node("slow" + std::to_string(i), std::make_shared<Slow>(), {o}), 0};
  g->set_outputs({o}, {"y"});
  g->analyse();
  Tensor x = Tensor::from_vector<float>({1}, {1});
  EXPECT_NO_THROW(run_graph(g, {x}));
  set_run_timeout(0.05);
  try {
    run_graph(g, {x});
    ADD_FAILURE() << "ran past the deadline";
  } catch (const Error& e) {
    EXPECT_NE(e.chain().find("timed out"), std::string::npos) << e.chain();
  }
  clear_run_deadline();
  EXPECT_NO_THROW(run_graph(g, {x}));
}

}  // namespace
}  // namespace kiln
