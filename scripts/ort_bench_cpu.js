#!/usr/bin/env node
'use strict';
// ONNX Runtime timing with CPU time, for scripts/bench-vs-ort.sh --cpu: the same loop as
// ../shared/bench/ort_bench.js (session options from its ort_common.js, warm-up, back-to-back
// `await session.run(feeds)` timed with process.hrtime) plus the process's CPU time
// (process.cpuUsage: user + system, all threads) over the timed runs. Prints one JSON line:
//   {"median_ms", "min_ms", "cpu_ms" (mean CPU per run), "runs", "threads"}
//
//   node scripts/ort_bench_cpu.js BENCH_DIR MODEL_DIR THREADS RUNS WARMUP
const path = require('path');

async function main() {
  const [benchDir, modelDir, threads, runs, warmup] = process.argv.slice(2);
  if (!runs) throw new Error('usage: ort_bench_cpu.js BENCH_DIR MODEL_DIR THREADS RUNS [WARMUP]');
  const { loadOrt, readTensors, dataSetDir, makeFeeds, sessionOptions } =
      require(path.resolve(benchDir, 'ort_common.js'));
  const ort = loadOrt();
  const dir = path.resolve(modelDir);
  const session = await ort.InferenceSession.create(path.join(dir, 'model.onnx'),
                                                    sessionOptions(parseInt(threads, 10)));
  const feeds = makeFeeds(ort, session, readTensors(dataSetDir(dir), 'input'));
  for (let i = 0; i < Math.max(1, parseInt(warmup || '5', 10)); i++) await session.run(feeds);
  const n = parseInt(runs, 10);
  const times = [];
  const cpu0 = process.cpuUsage();
  for (let i = 0; i < n; i++) {
    const s = process.hrtime.bigint();
    await session.run(feeds);
    times.push(Number(process.hrtime.bigint() - s) / 1e6);
  }
  const cpu = process.cpuUsage(cpu0);
  times.sort((a, b) => a - b);
  const median = n % 2 ? times[(n - 1) / 2] : (times[n / 2 - 1] + times[n / 2]) / 2;
  console.log(JSON.stringify({
    median_ms: Math.round(median * 1000) / 1000,
    min_ms: Math.round(times[0] * 1000) / 1000,
    cpu_ms: Math.round((cpu.user + cpu.system) / 1e3 / n * 1000) / 1000,
    runs: n,
    threads: parseInt(threads, 10),
  }));
  if (typeof session.release === 'function') await session.release();
}

main().catch((e) => { console.error(e && e.stack || e); process.exit(1); });
