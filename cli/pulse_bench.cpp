#include "cli/pulse_bench.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <random>

#include "base/error.h"
#include "base/isa.h"
#include "base/threading.h"
#include "cli/progress.h"
#include "cli/pulse_setup.h"
#include "cli/timing_inputs.h"
#include "core/random_tensor.h"
#include "core/stream_session.h"
#include "core/timing_stats.h"

namespace kiln::cli {

int bench_pulsed(const PulseBenchOptions& o) {
  KILN_ENSURE(o.frame_ms > 0, "--frame-ms must be positive, got {}", o.frame_ms);
  auto graph = load_model_with_facts(o.model);
  PulsedSetup s = pulsify_model(*graph, o.pulse);
  const StreamSpec& spec = s.model.spec;
  const Graph& g = *s.model.graph;
  // Random frames for every pulse (the same ones each time: latency does not depend on values).
  std::mt19937_64 rng(o.seed);
  std::vector<Tensor> inputs;
  for (size_t i = 0; i < spec.inputs.size(); i++) {
    const Fact& f = g.fact(g.inputs()[i]);
    auto shape = f.try_concrete_shape();
    KILN_ENSURE(shape,
                "bench --pulse: input '{}' has a symbolic shape [{}] besides the stream: "
                "give it with -i",
                g.input_name(i), dims_to_string(f.shape));
    KILN_ENSURE(!f.value, "bench --pulse: constant inputs are not supported yet");
    inputs.push_back(random_tensor(f.dt, *shape, rng));
  }
  StreamSession stream(s.plan, spec, {num_threads()});
  BenchResult result;
  {
    ProgressLine progress("bench");
    std::vector<Tensor> outputs;
    result = benchmark([&] { stream.push(inputs, outputs); }, o.limits,
                       [&](double elapsed, size_t runs) { progress.update(elapsed, runs); });
  }
  auto stats = timing_stats(result.run_ms);
  const double pulse_ms = static_cast<double>(spec.pulse) * o.frame_ms;
  const double rtf = pulse_ms / stats.median;
  if (o.json) {
    nlohmann::json delays = nlohmann::json::array();
    for (const auto& p : spec.outputs) delays.push_back(p.delay);
    nlohmann::json doc{{"model", o.model.path},         {"cpu", cpu_description()},
                       {"isa", isa_name(active_isa())}, {"threads", num_threads()},
                       {"pulse", spec.pulse},           {"frame_ms", o.frame_ms},
                       {"pulse_duration_ms", pulse_ms}, {"pulses", stats.count},
                       {"median_ms", stats.median},     {"p99_ms", stats.p99},
                       {"max_ms", stats.max},           {"min_ms", stats.min},
                       {"real_time_factor", rtf},       {"output_delays", delays}};
    fmt::print("{}\n", doc.dump(1));
    return 0;
  }
  fmt::print("Stream: pulse {} frames of {} ({} ms of input at {} ms per frame); {}\n", spec.pulse,
             spec.symbol, pulse_ms, o.frame_ms, describe_delays(spec, g.output_names()));
  fmt::print("Threads: {}, ISA: {}, CPU: {}\n", num_threads(), isa_name(active_isa()),
             cpu_description());
  fmt::print("Per pulse over {} pulses: median {:.4f} ms, p99 {:.4f} ms, max {:.4f} ms\n",
             stats.count, stats.median, stats.p99, stats.max);
  fmt::print("Real-time factor: {:.1f} (pulse duration / median pulse latency)\n", rtf);
  return 0;
}

}  // namespace kiln::cli
