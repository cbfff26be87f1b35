#!/usr/bin/env node
'use strict';
// Compares output tensors (.pb) of a quantized model: SNR against a float reference and the
// largest difference between two int8 engines in output quantization steps.
//
//   node scripts/quant-compare.js --float REF.pb --kiln KILN.pb [--ort ORT.pb] [--step S]
//
// Prints one JSON line: snr_db_kiln (and snr_db_ort) = 10 log10(sum ref^2 / sum (y - ref)^2),
// max_abs_kiln_ort and, with --step, that difference in steps (docs/quantization.md's rule:
// <= 2 steps).
const fs = require('fs');
const { decodeTensor } = require('./ort-run');

const args = {};
for (let i = 2; i < process.argv.length; i += 2) args[process.argv[i].replace(/^--/, '')] = process.argv[i + 1];
const read = (f) => Array.from(decodeTensor(fs.readFileSync(f)).data, Number);
const snr = (y, ref) => {
  let s = 0, n = 0;
  for (let i = 0; i < ref.length; i++) { s += ref[i] * ref[i]; n += (y[i] - ref[i]) ** 2; }
  return 10 * Math.log10(s / Math.max(n, 1e-30));
};
const out = {};
const ref = read(args.float), k = read(args.kiln);
out.snr_db_kiln = snr(k, ref);
if (args.ort) {
  const o = read(args.ort);
  out.snr_db_ort = snr(o, ref);
  let m = 0;
  for (let i = 0; i < o.length; i++) m = Math.max(m, Math.abs(o[i] - k[i]));
  out.max_abs_kiln_ort = m;
  if (args.step) out.max_steps_kiln_ort = m / Number(args.step);
}
console.log(JSON.stringify(out));
