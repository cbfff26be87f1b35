#include "core/profiler.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <tuple>

#include "base/error.h"

namespace kiln {

double ProfileResult::mean_run_ms() const {
  if (run_ms.empty()) return 0;
  return std::accumulate(run_ms.begin(), run_ms.end(), 0.0) / static_cast<double>(run_ms.size());
}

double ProfileResult::nodes_total_ms() const {
  return std::accumulate(node_ms.begin(), node_ms.end(), 0.0);
}

namespace {

// Sums the times of body nodes, keyed by body path, node name and op (a body's graph is
// replaced by its optimized form on its second use, so node ids are not stable; they only tell
// unnamed nodes apart).
class BodyCollector : public BodyTimer {
 public:
  BodyCollector(ProfileResult& result, bool record_events, const int& run,
                std::chrono::steady_clock::time_point origin)
      : result_(result), record_events_(record_events), run_(run), origin_(origin) {}

  void node(const std::string& path, const Graph& body, int node,
            std::chrono::nanoseconds elapsed) override {
    const Node& n = body.node(node);
    const std::string op = n.op->name();
    auto key = std::make_tuple(path, n.name, op, n.name.empty() ? node : -1);
    auto it = rows_.find(key);
    if (it == rows_.end()) {
      BodyNodeProfile row;
      row.path = path;
      row.top_node = std::stoi(path.substr(0, path.find('.')));
      row.depth = 1 + static_cast<int>(std::count(path.begin(), path.end(), '/'));
      row.node = node;
      row.name = n.name;
      row.op = op;
      result_.body_nodes.push_back(row);
      total_ns_.push_back(0);
      calls_.push_back(0);
      it = rows_.emplace(key, result_.body_nodes.size() - 1).first;
    }
    total_ns_[it->second] += static_cast<double>(elapsed.count());
    calls_[it->second]++;
    if (record_events_) {
      using Clock = std::chrono::steady_clock;
      double end_us = std::chrono::duration<double, std::micro>(Clock::now() - origin_).count();
      double dur_us = static_cast<double>(elapsed.count()) / 1000.0;
      result_.events.push_back({result_.body_nodes[it->second].top_node, run_, end_us - dur_us,
                                dur_us, static_cast<int>(it->second)});
    }
  }

  void finish(int runs) {
    for (size_t i = 0; i < result_.body_nodes.size(); i++) {
      result_.body_nodes[i].ms = total_ns_[i] / 1e6 / runs;
      result_.body_nodes[i].calls = calls_[i] / runs;
    }
  }

 private:
  ProfileResult& result_;
  bool record_events_;
  const int& run_;
  std::chrono::steady_clock::time_point origin_;
  std::map<std::tuple<std::string, std::string, std::string, int>, size_t> rows_;
  std::vector<double> total_ns_, calls_;
};

}  // namespace

ProfileResult profile_state(Session& state, const std::vector<Tensor>& inputs,
                            const ProfileLimits& limits, bool record_events,
                            const ProfileProgress& progress) {
  KILN_ENSURE(limits.max_runs > 0 || limits.max_seconds > 0,
              "profiling needs a limit: a run count or a time budget");
  using Clock = std::chrono::steady_clock;
  const Graph& g = state.plan().graph();
  ProfileResult result;
  result.node_ms.assign(g.size(), 0.0);
  std::vector<double> total_ns(g.size(), 0.0);
  std::vector<bool> seen(g.size(), false);
  auto start = Clock::now();
  auto seconds_since = [](Clock::time_point t) {
    return std::chrono::duration<double>(Clock::now() - t).count();
  };
  for (int i = 0; i < limits.warmup_runs; i++) {
    state.run(inputs);
    if (progress) progress(seconds_since(start), 0);
  }

  auto origin = Clock::now();
  int run = 0;
  NodeTimer timer = [&](int node, std::chrono::nanoseconds elapsed) {
    auto idx = static_cast<size_t>(node);
    total_ns[idx] += static_cast<double>(elapsed.count());
    if (run == 0 && !seen[idx]) {
      seen[idx] = true;
      result.nodes.push_back(node);
    }
    if (record_events) {
      double end_us = std::chrono::duration<double, std::micro>(Clock::now() - origin).count();
      double dur_us = static_cast<double>(elapsed.count()) / 1000.0;
      result.events.push_back({node, run, end_us - dur_us, dur_us});
    }
  };
  BodyCollector bodies(result, record_events, run, origin);
  for (;;) {
    auto t0 = Clock::now();
    state.run_timed(inputs, timer, &bodies);
    result.run_ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    run++;
    if (progress) progress(seconds_since(start), static_cast<size_t>(run));
    if (limits.max_runs > 0 && run >= limits.max_runs) break;
    if (limits.max_seconds > 0 &&
        std::chrono::duration<double>(Clock::now() - origin).count() >= limits.max_seconds)
      break;
  }
  result.runs = run;
  for (size_t i = 0; i < g.size(); i++) result.node_ms[i] = total_ns[i] / 1e6 / run;
  bodies.finish(run);
  // Body nodes report before the node that ran them: the events in time order.
  std::stable_sort(result.events.begin(), result.events.end(),
                   [](const NodeEvent& a, const NodeEvent& b) { return a.start_us < b.start_us; });
  return result;
}

}  // namespace kiln
