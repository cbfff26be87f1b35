// Per-node profiling: runs a Session repeatedly with a node timer and gathers each node's mean
// time per run, the whole-run times, and (optionally) one event per node per run for traces.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "core/session.h"

namespace kiln {

struct ProfileLimits {
  int warmup_runs = 1;     // untimed runs first
  int max_runs = 100;      // stop after this many profiled runs (<= 0: no limit)...
  double max_seconds = 2;  // ...or once this much time has passed (<= 0: no limit)
};

// One node evaluation, in microseconds since the first profiled run started. A node inside a
// body: `node` is the top-level node that ran the body, `body` its row in body_nodes.
struct NodeEvent {
  int node;
  int run;
  double start_us;
  double duration_us;
  int body = -1;
};

// A node inside a body (If branch, Loop / Scan body) of a top-level node, over every evaluation
// of a run: an If branch's nodes once per run when taken, a Loop body's once per iteration.
struct BodyNodeProfile {
  std::string path;   // the body: "12.0" (body 0 of node 12), nested: "12.0/3.1"
  int top_node = -1;  // the top-level node the body belongs to (12)
  int depth = 1;      // bodies nested in bodies: 2, ...
  int node = -1;      // its id in the body graph (nested bodies' paths name it: "12.0/3.1")
  std::string name, op;
  double ms = 0;     // mean time per run (every evaluation)
  double calls = 0;  // mean evaluations per run (a Loop body's: its iterations)
};

struct ProfileResult {
  int runs = 0;
  std::vector<int> nodes;         // the timed nodes, in evaluation order
  std::vector<double> node_ms;    // indexed by node id: mean time per run (0 when not timed)
  std::vector<double> run_ms;     // wall time of each profiled run (timer overhead included)
  std::vector<NodeEvent> events;  // when requested
  // The nodes inside bodies, in the order they first ran; a body node's time is part of its
  // top-level node's time, not added to nodes_total_ms.
  std::vector<BodyNodeProfile> body_nodes;
  double mean_run_ms() const;
  double nodes_total_ms() const;  // sum of node_ms
};

// Called after each run with the seconds elapsed and profiled runs done (0 while warming up).
using ProfileProgress = std::function<void(double elapsed_seconds, size_t runs)>;

// Profiles `state` on `inputs`. At least one profiled run always happens.
ProfileResult profile_state(Session& state, const std::vector<Tensor>& inputs,
                            const ProfileLimits& limits, bool record_events = false,
                            const ProfileProgress& progress = nullptr);

}  // namespace kiln
