// `kiln bench --pulse P --frame-ms 10`: times a streaming model pulse by pulse (random frames,
// a stream that never ends): per-pulse latency (median, p99, max) and the real-time factor,
// the pulse's duration over its median latency.
#pragma once

#include <string>

#include "cli/model_setup.h"
#include "core/benchmark.h"

namespace kiln::cli {

struct PulseBenchOptions {
  ModelOptions model;
  std::string pulse;
  double frame_ms = 10;
  BenchLimits limits;
  uint64_t seed = 0;
  bool json = false;
};

int bench_pulsed(const PulseBenchOptions& o);

}  // namespace kiln::cli
