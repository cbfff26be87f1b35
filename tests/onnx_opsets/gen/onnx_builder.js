'use strict';
// Builds single-operator ONNX models and TensorProto files for kiln's opset 18-25 suite.
// ModelProto / TensorProto are encoded with protobufjs from Debian's onnx.proto (ONNX 1.12:
// the messages are unchanged since, and data types past 16 are plain int32 values there).
const fs = require('fs');
const protobuf = require('protobufjs');

const PROTO = process.env.ONNX_PROTO || '/usr/include/onnx/onnx.proto';
const root = protobuf.loadSync(PROTO);
const ModelProto = root.lookupType('onnx.ModelProto');
const TensorProto = root.lookupType('onnx.TensorProto');

// TensorProto.DataType numbers (ONNX IR 12).
const DT = {
  float: 1, uint8: 2, int8: 3, uint16: 4, int16: 5, int32: 6, int64: 7, string: 8, bool: 9,
  float16: 10, double: 11, uint32: 12, uint64: 13, bfloat16: 16, float8e4m3fn: 17,
  float8e4m3fnuz: 18, float8e5m2: 19, float8e5m2fnuz: 20, uint4: 21, int4: 22, float4e2m1: 23,
  float8e8m0: 24, uint2: 25, int2: 26,
};
const DT_NAME = Object.fromEntries(Object.entries(DT).map(([k, v]) => [v, k]));

// Deterministic pseudo-random numbers (mulberry32), seeded per case.
function rng(seedText) {
  let h = 2166136261;
  for (const c of seedText) h = Math.imul(h ^ c.charCodeAt(0), 16777619);
  let a = h >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    uniform: (n, lo = -1, hi = 1) => Array.from({ length: n }, () => lo + (hi - lo) * next()),
    ints: (n, lo, hi) => Array.from({ length: n }, () => lo + Math.floor((hi - lo + 1) * next())),
  };
}

const numel = (dims) => dims.reduce((a, b) => a * b, 1);

function f32ToF16Bits(v) {
  const f = new Float32Array([v]);
  const u = new Uint32Array(f.buffer)[0];
  const sign = (u >>> 16) & 0x8000;
  const abs = u & 0x7fffffff;
  if (abs > 0x7f800000) return sign | 0x7e00;
  if (abs >= 0x47800000) return abs < 0x477ff000 ? sign | 0x7bff : sign | 0x7c00;
  if (abs < 0x38800000) {
    if (abs < 0x33000000) return sign;
    const e = abs >>> 23, m = (abs & 0x7fffff) | 0x800000, shift = 126 - e;
    let half = m >>> shift;
    const rest = m & ((1 << shift) - 1), halfway = 1 << (shift - 1);
    if (rest > halfway || (rest === halfway && (half & 1))) half++;
    return sign | half;
  }
  let r = abs + 0xfff + ((abs >>> 13) & 1);
  r -= 0x38000000;
  if (r >= 0x0f800000) return sign | 0x7c00;
  return sign | (r >>> 13);
}

// Little-endian bytes of `values` as `type` (numbers; int64/uint64 may be BigInt or number).
function encodeValues(type, values) {
  const n = values.length;
  switch (type) {
    case 'float': return Buffer.from(new Float32Array(values).buffer);
    case 'double': return Buffer.from(new Float64Array(values).buffer);
    case 'int8': return Buffer.from(new Int8Array(values).buffer);
    case 'uint8': case 'bool': return Buffer.from(new Uint8Array(values.map(Number)).buffer);
    case 'int16': return Buffer.from(new Int16Array(values).buffer);
    case 'uint16': return Buffer.from(new Uint16Array(values).buffer);
    case 'int32': return Buffer.from(new Int32Array(values).buffer);
    case 'uint32': return Buffer.from(new Uint32Array(values).buffer);
    case 'int64': return Buffer.from(new BigInt64Array(values.map((v) => BigInt(v))).buffer);
    case 'uint64': return Buffer.from(new BigUint64Array(values.map((v) => BigInt(v))).buffer);
    case 'float16': return Buffer.from(new Uint16Array(values.map(f32ToF16Bits)).buffer);
    case 'int4': case 'uint4': case 'int2': case 'uint2': case 'float4e2m1': {
      // values are the integers (float4e2m1: the 4-bit codes), packed low bits first
      const bits = type.endsWith('4') ? 4 : 2, per = 8 / bits, mask = (1 << bits) - 1;
      const out = Buffer.alloc(Math.ceil(n / per));
      values.forEach((v, i) => { out[Math.floor(i / per)] |= (v & mask) << (bits * (i % per)); });
      return out;
    }
    default:  // float8 and the like: values are the bits
      if (DT[type] >= 17) return Buffer.from(new Uint8Array(values).buffer);
      throw new Error('cannot encode ' + type);
  }
}

function tensor(name, type, dims, values) {
  if (numel(dims) !== values.length)
    throw new Error(`tensor ${name}: ${values.length} values for dims [${dims}]`);
  const t = { name, dataType: DT[type], dims };
  if (type === 'string') t.stringData = values.map((s) => Buffer.from(s, 'utf8'));
  else t.rawData = encodeValues(type, values);
  return t;
}

function encodeTensor(name, type, dims, values) {
  return TensorProto.encode(TensorProto.fromObject(tensor(name, type, dims, values))).finish();
}

function attribute(name, value) {
  // [kind, v] pairs force a type: ['floats', [1, 2]], ['ints', []], ['graph', g], ['tensor', t].
  const a = { name };
  let kind, v;
  if (Array.isArray(value) && typeof value[0] === 'string' &&
      ['float', 'int', 'string', 'floats', 'ints', 'strings', 'tensor', 'graph'].includes(value[0]) &&
      value.length === 2 && !(value[0] === 'string' && typeof value[1] !== 'string')) {
    [kind, v] = value;
  } else if (typeof value === 'number') {
    kind = Number.isInteger(value) ? 'int' : 'float';
    v = value;
  } else if (typeof value === 'string') {
    kind = 'string'; v = value;
  } else if (Array.isArray(value)) {
    if (value.length && typeof value[0] === 'string') kind = 'strings';
    else kind = value.every(Number.isInteger) ? 'ints' : 'floats';
    v = value;
  } else {
    throw new Error(`attribute ${name}: cannot infer the type of ${JSON.stringify(value)}`);
  }
  const types = { float: 1, int: 2, string: 3, tensor: 4, graph: 5, floats: 6, ints: 7, strings: 8 };
  a.type = types[kind];
  if (kind === 'float') a.f = v;
  else if (kind === 'int') a.i = v;
  else if (kind === 'string') a.s = Buffer.from(v, 'utf8');
  else if (kind === 'floats') a.floats = v;
  else if (kind === 'ints') a.ints = v;
  else if (kind === 'strings') a.strings = v.map((s) => Buffer.from(s, 'utf8'));
  else if (kind === 'tensor') a.t = v;
  else if (kind === 'graph') a.g = v;
  return a;
}

function valueInfo(name, type, dims) {
  const t = { elemType: DT[type] };
  if (dims) t.shape = { dim: dims.map((d) => (typeof d === 'string' ? { dimParam: d } : { dimValue: d })) };
  return { name, type: { tensorType: t } };
}

let nodeCount = 0;
function node(op, inputs, outputs, attrs = {}, domain = '') {
  return {
    opType: op, domain, input: inputs, output: outputs, name: `${op.toLowerCase()}_${nodeCount++}`,
    attribute: Object.entries(attrs).filter(([, v]) => v !== undefined).map(([k, v]) => attribute(k, v)),
  };
}

function irVersionFor(opset) {
  if (opset <= 18) return 8;
  if (opset <= 20) return 9;
  if (opset <= 22) return 10;
  if (opset <= 24) return 11;
  return 12;
}

// graph: {nodes, inputs: [valueInfo], outputs: [valueInfo], initializers: [tensor]}
function model(graph, opsets) {
  const m = {
    irVersion: irVersionFor(opsets[''] || 1),
    producerName: 'kiln-opsets-gen',
    opsetImport: Object.entries(opsets).map(([domain, version]) => ({ domain, version })),
    graph: {
      name: graph.name || 'g', node: graph.nodes, input: graph.inputs, output: graph.outputs,
      initializer: graph.initializers || [],
    },
  };
  return ModelProto.encode(ModelProto.fromObject(m)).finish();
}

function writeFile(path, bytes) {
  fs.writeFileSync(path, bytes);
}

module.exports = { DT, DT_NAME, rng, numel, tensor, encodeTensor, encodeValues, attribute, valueInfo,
  node, model, writeFile, f32ToF16Bits };
