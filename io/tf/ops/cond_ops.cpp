// tf.cond (Switch / Merge outside while loops) with a predicate known at load time: the branch
// taken is wired through, the other one is dead (never translated into the graph). A predicate
// known only at run time is refused with a clear error.
#include "base/error.h"
#include "io/tf/ops/helpers.h"

namespace kiln::tf_io {

void register_tf_cond_ops(OpRegistry& r) {
  r.add("Switch", [](NodeContext& ctx) {
    auto pred = ctx.try_const_input(1);
    KILN_ENSURE(pred && pred->numel() == 1,
                "Switch: tf.cond on a predicate only known at run time is not supported (the "
                "predicate '{}' must fold to a constant at load time)",
                ctx.input_ref(1));
    const bool taken = pred->value_as_double(0) != 0;
    Outlet data = ctx.input(0);
    ctx.set_output(taken ? 1 : 0, data);
    ctx.set_output(taken ? 0 : 1, kDeadOutlet);
  });
  r.add("Merge", [](NodeContext& ctx) {
    Outlet alive = kDeadOutlet;
    int32_t index = -1;
    for (size_t i = 0; i < ctx.num_inputs(); i++) {
      Outlet o = ctx.input_or_dead(i);
      if (o == kDeadOutlet) continue;
      KILN_ENSURE(alive == kDeadOutlet,
                  "Merge: inputs {} and {} are both alive (not a tf.cond with a constant "
                  "predicate)",
                  index, i);
      alive = o;
      index = static_cast<int32_t>(i);
    }
    if (alive == kDeadOutlet) throw DeadInput{};
    ctx.set_output(0, alive);
    ctx.set_output(1, ctx.add_const("value_index", Tensor::scalar<int32_t>(index)));
  });
}

}  // namespace kiln::tf_io
