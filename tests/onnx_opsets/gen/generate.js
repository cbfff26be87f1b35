#!/usr/bin/env node
'use strict';
// Generates kiln's single-operator suite for ONNX opsets 18-25 (tests/onnx_opsets/cases/):
// one folder per case with model.onnx and test_data_set_0/{input,output}_N.pb, the outputs
// computed by ONNX Runtime (onnxruntime-node 1.30, CPU, one thread, run twice: the two runs
// must agree bit for bit). Cases ONNX Runtime cannot run are left out and listed in
// excluded.txt with its error. manifest.txt lists the cases: name, domain, op, opset, version.
//
//   mkdir -p build/ort && cp ../shared/bench/ort/package*.json build/ort/
//   npm ci --prefix build/ort --ignore-scripts
//   NODE_PATH=build/ort/node_modules node tests/onnx_opsets/gen/generate.js [FILTER]
//
// FILTER (a regular expression) regenerates only the matching cases and keeps the others.
const fs = require('fs');
const path = require('path');
const b = require('./onnx_builder');
const ort = require('onnxruntime-node');

const SUITE = path.resolve(__dirname, '..');
const CASES = path.join(SUITE, 'cases');
const FAMILIES = fs.readdirSync(__dirname).filter((f) => f.startsWith('cases_') && f.endsWith('.js')).sort();

const ORT_TYPES = {
  float: 'float32', double: 'float64', int8: 'int8', uint8: 'uint8', int16: 'int16', uint16: 'uint16',
  int32: 'int32', uint32: 'uint32', int64: 'int64', uint64: 'uint64', bool: 'bool', string: 'string',
  float16: 'float16', int4: 'int4', uint4: 'uint4',
};
const FROM_ORT = Object.fromEntries(Object.entries(ORT_TYPES).map(([k, v]) => [v, k]));

const TYPED = {
  float: Float32Array, double: Float64Array, int8: Int8Array, uint8: Uint8Array, int16: Int16Array,
  uint16: Uint16Array, int32: Int32Array, uint32: Uint32Array, int64: BigInt64Array,
  uint64: BigUint64Array, bool: Uint8Array, float16: Uint16Array,
};

function ortInput(inp) {
  const type = ORT_TYPES[inp.type];
  if (!type) throw new Error(`input ${inp.name}: ONNX Runtime's JS API has no ${inp.type} tensors`);
  let data;
  if (inp.type === 'string') data = inp.data;
  else if (inp.type === 'float16') data = new Uint16Array(inp.data.map(b.f32ToF16Bits));
  else if (inp.type === 'int4' || inp.type === 'uint4') data = new Uint8Array(b.encodeValues(inp.type, inp.data));
  else if (inp.type === 'int64' || inp.type === 'uint64') data = new TYPED[inp.type](inp.data.map((v) => BigInt(v)));
  else data = new TYPED[inp.type](inp.data.map(Number));
  return new ort.Tensor(type, data, inp.dims);
}

let tensorProto = null;
function tensorProtoType() {
  if (!tensorProto) {
    tensorProto = require('protobufjs').loadSync(process.env.ONNX_PROTO || '/usr/include/onnx/onnx.proto')
      .lookupType('onnx.TensorProto');
  }
  return tensorProto;
}

// An output tensor of ONNX Runtime as TensorProto bytes.
function ortOutputProto(name, t) {
  const type = FROM_ORT[t.type];
  if (!type) throw new Error(`output ${name}: cannot store ${t.type}`);
  const msg = { name, dataType: b.DT[type], dims: t.dims.map(Number) };
  if (type === 'string') msg.stringData = t.data.map((s) => Buffer.from(s, 'utf8'));
  else msg.rawData = Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength);
  const TP = tensorProtoType();
  return TP.encode(TP.fromObject(msg)).finish();
}

function sameOutputs(a, b2) {
  return Object.keys(a).every((k) => {
    const x = a[k].data, y = b2[k].data;
    if (Array.isArray(x)) return JSON.stringify(x) === JSON.stringify(y);
    return Buffer.compare(Buffer.from(x.buffer, x.byteOffset, x.byteLength),
      Buffer.from(y.buffer, y.byteOffset, y.byteLength)) === 0;
  });
}

function rmrf(p) { fs.rmSync(p, { recursive: true, force: true }); }

async function runCase(c) {
  const dir = path.join(CASES, c.name);
  rmrf(dir);
  const ds = path.join(dir, 'test_data_set_0');
  fs.mkdirSync(ds, { recursive: true });
  const bytes = Buffer.from(c.modelBytes);
  fs.writeFileSync(path.join(dir, 'model.onnx'), bytes);
  const feeds = {};
  c.feeds.forEach((inp, i) => {
    fs.writeFileSync(path.join(ds, `input_${i}.pb`), b.encodeTensor(inp.name, inp.type, inp.dims, inp.data));
    feeds[inp.name] = ortInput(inp);
  });
  const opts = { intraOpNumThreads: 1, interOpNumThreads: 1, executionMode: 'sequential', logSeverityLevel: 3 };
  const refBytes = c.refModelBytes ? Buffer.from(c.refModelBytes) : bytes;
  const run = async () => (await ort.InferenceSession.create(refBytes, opts)).run(feeds);
  let r1, r2;
  try {
    r1 = await run();
    r2 = await run();
  } catch (e) {
    rmrf(dir);
    return { excluded: String(e && e.message || e).split('\n')[0].slice(0, 300) };
  }
  if (!sameOutputs(r1, r2)) { rmrf(dir); return { excluded: 'ONNX Runtime is not deterministic on it' }; }
  c.outputNames.forEach((n, i) => fs.writeFileSync(path.join(ds, `output_${i}.pb`), ortOutputProto(n, r1[n])));
  return {};
}

async function main() {
  ort.env.logLevel = 'error';
  const filter = process.argv[2] ? new RegExp(process.argv[2]) : null;
  const { buildCase } = require('./case_model');
  let all = [];
  for (const f of FAMILIES) all = all.concat(require(path.join(__dirname, f)).cases());
  const names = new Set();
  for (const c of all) {
    if (names.has(c.name)) throw new Error('duplicate case ' + c.name);
    names.add(c.name);
  }
  fs.mkdirSync(CASES, { recursive: true });
  const manifestPath = path.join(SUITE, 'manifest.txt'), excludedPath = path.join(SUITE, 'excluded.txt');
  const readLines = (p) => (fs.existsSync(p) ? fs.readFileSync(p, 'utf8').split('\n').filter((l) => l && !l.startsWith('#')) : []);
  const manifest = new Map(), excluded = new Map();
  if (filter) {
    for (const l of readLines(manifestPath)) manifest.set(l.split(' ')[0], l);
    for (const l of readLines(excludedPath)) excluded.set(l.split(' ')[0], l);
  } else {
    for (const d of fs.readdirSync(CASES)) rmrf(path.join(CASES, d));
  }
  for (const d of fs.existsSync(CASES) ? fs.readdirSync(CASES) : []) if (!names.has(d)) rmrf(path.join(CASES, d));
  for (const k of [...manifest.keys()]) if (!names.has(k)) manifest.delete(k);
  for (const k of [...excluded.keys()]) if (!names.has(k)) excluded.delete(k);
  let ran = 0;
  for (const spec of all) {
    if (filter && !filter.test(spec.name)) continue;
    const c = buildCase(spec);
    const r = await runCase(c);
    ran++;
    manifest.delete(c.name);
    excluded.delete(c.name);
    const line = `${c.name} ${c.domain || 'ai.onnx'} ${c.op} ${c.opset}`;
    if (r.excluded) {
      excluded.set(c.name, `${line} ${r.excluded}`);
      console.log(`EXCLUDED ${c.name}: ${r.excluded}`);
    } else {
      manifest.set(c.name, line);
    }
  }
  const sorted = (m) => [...m.keys()].sort().map((k) => m.get(k));
  fs.writeFileSync(manifestPath, '# case domain op opset (generated by gen/generate.js)\n' + sorted(manifest).join('\n') + '\n');
  fs.writeFileSync(excludedPath, '# case domain op opset: ONNX Runtime error (generated by gen/generate.js)\n' + sorted(excluded).join('\n') + '\n');
  console.log(`${ran} cases run, ${manifest.size} in the suite, ${excluded.size} excluded`);
}

module.exports = { ortInput, ortOutputProto, sameOutputs };

if (require.main === module) main().catch((e) => { console.error(e && e.stack || e); process.exit(1); });
