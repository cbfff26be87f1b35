#!/usr/bin/env node
'use strict';
// Runs a model in ONNX Runtime on a bundle and writes its outputs as TensorProto files:
//
//   node scripts/ort-run.js MODEL.onnx INPUT_DIR OUT_DIR [--threads N]
//
// INPUT_DIR holds input_N.pb; OUT_DIR/output_N.pb are written in graph output order (float
// outputs only: what `kiln quantize`'s check compares). Exit 3 when onnxruntime-node is not
// installed (tests skip), 1 on any other error.
//
// onnxruntime-node: NODE_PATH, or build/ort/node_modules (see docs/compare.md):
//   mkdir -p build/ort && cp ../shared/bench/ort/package*.json build/ort/
//   npm ci --prefix build/ort --ignore-scripts
const fs = require('fs');
const path = require('path');

function loadOrt() {
  const candidates = ['onnxruntime-node',
    path.join(__dirname, '..', 'build', 'ort', 'node_modules', 'onnxruntime-node'),
    path.join(process.cwd(), 'ort', 'node_modules', 'onnxruntime-node')];
  for (const c of candidates) {
    try { return require(c); } catch (e) { if (e.code !== 'MODULE_NOT_FOUND') throw e; }
  }
  return null;
}

// Minimal TensorProto codec (float, int64, int32, uint8, int8 data in raw_data).
const TYPES = { 1: 'float32', 2: 'uint8', 3: 'int8', 6: 'int32', 7: 'int64' };
const ARRAYS = { float32: Float32Array, uint8: Uint8Array, int8: Int8Array, int32: Int32Array,
  int64: BigInt64Array };

function readVarint(buf, pos) {
  let result = 0n, shift = 0n, b;
  do { b = buf[pos++]; result |= BigInt(b & 0x7f) << shift; shift += 7n; } while (b & 0x80);
  return [result, pos];
}

function decodeTensor(buf) {
  let pos = 0; const dims = []; let type = 0, name = '', raw = null; const floats = [];
  while (pos < buf.length) {
    let key; [key, pos] = readVarint(buf, pos);
    const field = Number(key >> 3n), wire = Number(key & 7n);
    if (wire === 0) {
      let v; [v, pos] = readVarint(buf, pos);
      if (field === 1) dims.push(Number(v)); else if (field === 2) type = Number(v);
    } else if (wire === 2) {
      let len; [len, pos] = readVarint(buf, pos); len = Number(len);
      const bytes = buf.subarray(pos, pos + len); pos += len;
      if (field === 1) { let p = 0; while (p < bytes.length) { let v; [v, p] = readVarint(bytes, p); dims.push(Number(v)); } }
      else if (field === 8) name = bytes.toString('utf8');
      else if (field === 9) raw = Buffer.from(bytes);
      else if (field === 4) for (let i = 0; i < len; i += 4) floats.push(bytes.readFloatLE(i));
    } else if (wire === 5) { if (field === 4) floats.push(buf.readFloatLE(pos)); pos += 4; }
    else if (wire === 1) pos += 8;
    else throw new Error(`unsupported wire type ${wire}`);
  }
  const t = TYPES[type];
  if (!t) throw new Error(`tensor type ${type} not supported`);
  const A = ARRAYS[t];
  const data = raw ? new A(raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.length)) : A.from(floats);
  return { name, type: t, dims, data };
}

function varint(n) {
  const out = []; let v = BigInt(n);
  do { let b = Number(v & 0x7fn); v >>= 7n; if (v) b |= 0x80; out.push(b); } while (v);
  return Buffer.from(out);
}

function encodeFloatTensor(name, dims, data) {
  const parts = [];
  for (const d of dims) parts.push(varint(1 << 3), varint(d));
  parts.push(varint(2 << 3), varint(1));
  const nm = Buffer.from(name, 'utf8');
  parts.push(varint((8 << 3) | 2), varint(nm.length), nm);
  const raw = Buffer.from(Float32Array.from(data).buffer);
  parts.push(varint((9 << 3) | 2), varint(raw.length), raw);
  return Buffer.concat(parts);
}

async function main() {
  const args = process.argv.slice(2);
  let threads = 1;
  const pos = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--threads') threads = Number(args[++i]); else pos.push(args[i]);
  }
  if (pos.length !== 3) {
    console.error('usage: node scripts/ort-run.js MODEL.onnx INPUT_DIR OUT_DIR [--threads N]');
    process.exit(2);
  }
  const ort = loadOrt();
  if (!ort) { console.error('onnxruntime-node not found'); process.exit(3); }
  const [model, inDir, outDir] = pos;
  const session = await ort.InferenceSession.create(model, { intraOpNumThreads: threads,
    interOpNumThreads: 1, executionMode: 'sequential' });
  const feeds = {};
  for (let i = 0; ; i++) {
    const f = path.join(inDir, `input_${i}.pb`);
    if (!fs.existsSync(f)) break;
    const t = decodeTensor(fs.readFileSync(f));
    let name = t.name;
    if (!name || !session.inputNames.includes(name)) name = session.inputNames[i];
    feeds[name] = new ort.Tensor(t.type, t.data, t.dims);
  }
  const res = await session.run(feeds);
  fs.mkdirSync(outDir, { recursive: true });
  session.outputNames.forEach((n, i) => {
    const t = res[n];
    fs.writeFileSync(path.join(outDir, `output_${i}.pb`), encodeFloatTensor(n, t.dims, t.data));
  });
}

if (require.main === module) {
  main().catch((e) => { console.error(String(e && e.message || e)); process.exit(1); });
}
module.exports = { decodeTensor };
