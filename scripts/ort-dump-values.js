#!/usr/bin/env node
'use strict';
// Dumps ONNX Runtime's intermediate values of a model, for `kiln compare --reference DIR`:
//
//   node scripts/ort-dump-values.js MODEL.onnx OUT_DIR [--inputs DIR] [--opt LEVEL] [--threads N]
//
// Every output of every top-level node becomes a graph output (the model is rewritten in memory
// at the protobuf wire level: one ValueInfoProto{name} appended to GraphProto.output per value;
// the file is never modified), the model runs once on DIR/input_N.pb (default: the
// test_data_set_0 folder next to the model), and each value is written as OUT_DIR/<key>.npy,
// listed in OUT_DIR/values.json in graph order with the keys of the values its node reads.
// <key> is kiln's name for the value: the node's name (else its first output's name, else its
// op type) made an NNEF identifier, plus _o<slot> past the first output. Values inside
// subgraphs (If/Loop bodies) and non-tensor values are not dumped.
//
// onnxruntime-node: NODE_PATH, or build/ort/node_modules (see docs/compare.md):
//   mkdir -p build/ort && cp ../shared/bench/ort/package*.json build/ort/
//   npm ci --prefix build/ort --ignore-scripts
// --opt: ONNX Runtime's graph optimization level (default 'disabled': the graph as written;
// with 'all', fusions keep every value that is a graph output, but layout changes may differ).
const fs = require('fs');
const path = require('path');

function loadOrt() {
  const candidates = ['onnxruntime-node',
    path.join(__dirname, '..', 'build', 'ort', 'node_modules', 'onnxruntime-node')];
  for (const c of candidates) {
    try { return require(c); } catch (e) { if (e.code !== 'MODULE_NOT_FOUND') throw e; }
  }
  throw new Error('onnxruntime-node not found: set NODE_PATH or install it under build/ort ' +
                  '(npm ci --prefix build/ort --ignore-scripts)');
}

// --- protobuf wire format -------------------------------------------------------------------
function readVarint(buf, pos) {
  let v = 0n, shift = 0n;
  for (;;) {
    if (pos >= buf.length) throw new Error('truncated varint');
    const b = buf[pos++];
    v |= BigInt(b & 0x7f) << shift;
    if (!(b & 0x80)) return [v, pos];
    shift += 7n;
    if (shift > 63n) throw new Error('varint too long');
  }
}
function* fields(buf) {
  let pos = 0;
  while (pos < buf.length) {
    const start = pos;
    let key;
    [key, pos] = readVarint(buf, pos);
    const field = Number(key >> 3n), wire = Number(key & 7n);
    let value;
    if (wire === 0) [value, pos] = readVarint(buf, pos);
    else if (wire === 1) { value = buf.subarray(pos, pos + 8); pos += 8; }
    else if (wire === 5) { value = buf.subarray(pos, pos + 4); pos += 4; }
    else if (wire === 2) {
      let n;
      [n, pos] = readVarint(buf, pos);
      value = buf.subarray(pos, pos + Number(n));
      pos += Number(n);
    } else throw new Error('unsupported wire type ' + wire);
    if (pos > buf.length) throw new Error('truncated field');
    yield { field, wire, value, raw: buf.subarray(start, pos) };
  }
}
function varint(n) {
  const out = [];
  let v = BigInt(n);
  do { let b = Number(v & 0x7fn); v >>= 7n; if (v) b |= 0x80; out.push(b); } while (v);
  return Buffer.from(out);
}
function lengthDelimited(field, bytes) {
  return Buffer.concat([varint((field << 3) | 2), varint(bytes.length), bytes]);
}
const text = (b) => Buffer.from(b).toString('utf8');

// --- the graph --------------------------------------------------------------------------------
function parseNode(bytes) {
  const n = { inputs: [], outputs: [], name: '', op: '' };
  for (const f of fields(bytes)) {
    if (f.field === 1 && f.wire === 2) n.inputs.push(text(f.value));
    else if (f.field === 2 && f.wire === 2) n.outputs.push(text(f.value));
    else if (f.field === 3 && f.wire === 2) n.name = text(f.value);
    else if (f.field === 4 && f.wire === 2) n.op = text(f.value);
  }
  return n;
}
function valueInfoName(bytes) {
  for (const f of fields(bytes)) if (f.field === 1 && f.wire === 2) return text(f.value);
  return '';
}

// The model with every node output as a graph output, and the graph's nodes and outputs.
function exposeValues(modelBytes) {
  const parts = [];
  let graph = null;
  for (const f of fields(modelBytes)) {
    if (f.field === 7 && f.wire === 2) graph = f.value; else parts.push(f.raw);
  }
  if (!graph) throw new Error('no graph in the model');
  const nodes = [], outputs = [];
  for (const f of fields(graph)) {
    if (f.field === 1 && f.wire === 2) nodes.push(parseNode(f.value));
    else if (f.field === 12 && f.wire === 2) outputs.push(valueInfoName(f.value));
  }
  const extra = [];
  const known = new Set(outputs);
  for (const n of nodes) for (const o of n.outputs) {
    if (o && !known.has(o)) { known.add(o); extra.push(lengthDelimited(12, lengthDelimited(1, Buffer.from(o)))); }
  }
  const newGraph = Buffer.concat([Buffer.from(graph), ...extra]);
  return { bytes: Buffer.concat([...parts.map((p) => Buffer.from(p)), lengthDelimited(7, newGraph)]), nodes, outputs };
}

// --- kiln's names -----------------------------------------------------------------------------
const RESERVED = new Set(['version', 'extension', 'fragment', 'graph', 'tensor', 'integer', 'scalar',
  'logical', 'string', 'true', 'false', 'for', 'in', 'yield', 'if', 'else', 'length_of', 'shape_of',
  'range_of']);
function nnefIdentifier(name) {
  let out = name.replace(/[^A-Za-z0-9_]/g, '_');
  if (!out || /^[0-9]/.test(out)) out = 't_' + out;
  if (RESERVED.has(out)) out += '_';
  return out;
}
function kilnNodeName(n) {
  if (n.name) return n.name;
  const o = n.outputs.find((x) => x);
  return o || n.op;
}

// --- tensors ----------------------------------------------------------------------------------
const DT = { 1: ['float32', Float32Array, '<f4'], 2: ['uint8', Uint8Array, '|u1'], 3: ['int8', Int8Array, '|i1'],
  5: ['int16', Int16Array, '<i2'], 6: ['int32', Int32Array, '<i4'], 7: ['int64', BigInt64Array, '<i8'],
  9: ['bool', Uint8Array, '|b1'], 11: ['float64', Float64Array, '<f8'] };
const ORT_DESCR = { float32: '<f4', uint8: '|u1', int8: '|i1', int16: '<i2', int32: '<i4', int64: '<i8',
  bool: '|b1', float64: '<f8', uint16: '<u2', uint32: '<u4', uint64: '<u8', float16: '<f2' };

function readTensorProto(bytes) {
  let dims = [], type = 0, name = '', raw = null;
  const floats = [], ints = [];
  for (const f of fields(bytes)) {
    if (f.field === 1) {
      if (f.wire === 0) dims.push(Number(BigInt.asIntN(64, f.value)));
      else for (let p = 0; p < f.value.length;) { let v; [v, p] = readVarint(f.value, p); dims.push(Number(BigInt.asIntN(64, v))); }
    } else if (f.field === 2) type = Number(f.value);
    else if (f.field === 8) name = text(f.value);
    else if (f.field === 9) raw = Buffer.from(f.value);
    else if (f.field === 4) {
      if (f.wire === 5) floats.push(Buffer.from(f.value).readFloatLE(0));
      else for (let p = 0; p < f.value.length; p += 4) floats.push(Buffer.from(f.value).readFloatLE(p));
    } else if (f.field === 5 || f.field === 7) {
      if (f.wire === 0) ints.push(f.value);
      else for (let p = 0; p < f.value.length;) { let v; [v, p] = readVarint(f.value, p); ints.push(v); }
    }
  }
  const t = DT[type];
  if (!t) throw new Error('input tensor type ' + type + ' is not supported here');
  const count = dims.reduce((a, b) => a * b, 1);
  let data;
  if (raw) data = new t[1](raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.length));
  else if (type === 1) data = Float32Array.from(floats);
  else if (type === 7) data = BigInt64Array.from(ints.map((v) => BigInt.asIntN(64, v)));
  else data = t[1].from(ints.map((v) => Number(BigInt.asIntN(64, v))));
  if (data.length !== count) throw new Error(`tensor '${name}': ${data.length} values for shape [${dims}]`);
  return { name, type: t[0], dims, data };
}

function npy(tensor) {
  const descr = ORT_DESCR[tensor.type];
  if (!descr) return null;
  const shape = tensor.dims.length ? '(' + tensor.dims.join(', ') + (tensor.dims.length === 1 ? ',)' : ')') : '()';
  let header = `{'descr': '${descr}', 'fortran_order': False, 'shape': ${shape}, }`;
  const pad = 64 - ((10 + header.length + 1) % 64);
  header += ' '.repeat(pad % 64) + '\n';
  const pre = Buffer.alloc(10);
  Buffer.from([0x93]).copy(pre, 0);
  pre.write('NUMPY', 1, 'latin1');
  pre[6] = 1; pre[7] = 0;
  pre.writeUInt16LE(header.length, 8);
  const d = tensor.data;
  return Buffer.concat([pre, Buffer.from(header, 'latin1'), Buffer.from(d.buffer, d.byteOffset, d.byteLength)]);
}

async function main() {
  const args = process.argv.slice(2);
  const opts = { opt: 'disabled', threads: 1, inputs: null };
  const pos = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--inputs') opts.inputs = args[++i];
    else if (args[i] === '--opt') opts.opt = args[++i];
    else if (args[i] === '--threads') opts.threads = Number(args[++i]);
    else pos.push(args[i]);
  }
  if (pos.length !== 2) {
    console.error('usage: node ort-dump-values.js MODEL.onnx OUT_DIR [--inputs DIR] [--opt disabled|basic|extended|all] [--threads N]');
    process.exit(2);
  }
  const [modelPath, outDir] = pos;
  const inputDir = opts.inputs || path.join(path.dirname(modelPath), 'test_data_set_0');
  const ort = loadOrt();
  const model = exposeValues(fs.readFileSync(modelPath));
  const session = await ort.InferenceSession.create(model.bytes, {
    intraOpNumThreads: opts.threads, interOpNumThreads: 1, executionMode: 'sequential',
    graphOptimizationLevel: opts.opt });
  const feeds = {};
  for (let i = 0; ; i++) {
    const f = path.join(inputDir, `input_${i}.pb`);
    if (!fs.existsSync(f)) break;
    const t = readTensorProto(fs.readFileSync(f));
    const name = t.name && session.inputNames.includes(t.name) ? t.name : session.inputNames[i];
    feeds[name] = new ort.Tensor(t.type, t.data, t.dims);
  }
  const results = await session.run(feeds);
  fs.mkdirSync(outDir, { recursive: true });
  const keyOf = new Map();  // value name -> key
  model.nodes.forEach((n) => n.outputs.forEach((o, slot) => {
    if (o) keyOf.set(o, nnefIdentifier(kilnNodeName(n)) + (slot ? `_o${slot}` : ''));
  }));
  const graphOutputs = new Set(model.outputs);
  const values = [], skipped = [];
  for (const n of model.nodes) {
    n.outputs.forEach((o, slot) => {
      if (!o) return;
      const key = keyOf.get(o), t = results[o];
      const bytes = t && typeof t.data === 'object' && t.data.buffer ? npy(t) : null;
      if (!bytes) { skipped.push({ key, value: o, op: n.op }); return; }
      const file = key.length <= 180 ? key + '.npy' : key.slice(0, 160) + '_' + values.length + '.npy';
      fs.writeFileSync(path.join(outDir, file), bytes);
      const entry = { key, file, node: kilnNodeName(n), slot, op: n.op, value: o,
                      input_keys: n.inputs.filter((x) => keyOf.has(x)).map((x) => keyOf.get(x)) };
      if (graphOutputs.has(o)) entry.output = o;
      values.push(entry);
    });
  }
  const producer = 'onnxruntime-node ' + (ort.env && ort.env.versions ? ort.env.versions.common : '') +
                   ' (graphOptimizationLevel ' + opts.opt + ')';
  fs.writeFileSync(path.join(outDir, 'values.json'),
                   JSON.stringify({ producer, model: modelPath, values, skipped }, null, 1) + '\n');
  console.log(JSON.stringify({ model: modelPath, values: values.length, skipped: skipped.length, out: outDir }));
}

main().catch((e) => { console.error(e && e.stack || e); process.exit(1); });
