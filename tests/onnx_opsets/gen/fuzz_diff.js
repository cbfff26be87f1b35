#!/usr/bin/env node
'use strict';
// Differential tester of kiln against ONNX Runtime on random single-operator models (a dev tool,
// not part of ctest). For every operator version of opsets 18-25 it knows (the ones introduced in
// 18-25 and the older ones a model exported today uses at opset 18+), it draws random valid
// configurations (seeded): shapes of rank 0-4, broadcasting, every dtype the op allows, attributes
// omitted (defaults) or drawn, optional inputs omitted or given as empty names, NaN / Inf / -0 /
// large values. ONNX Runtime (onnxruntime-node 1.30, one thread) computes the outputs; the cases it
// rejects are skipped. Each case is then checked with
//   kiln run model.onnx --input-bundle DIR --assert-output-bundle DIR
// at kiln's DEFAULT tolerances, and the per-op pass rates and every failure are printed.
//
//   mkdir -p build/ort && cp ../shared/bench/ort/package*.json build/ort/
//   npm ci --prefix build/ort --ignore-scripts
//   NODE_PATH=build/ort/node_modules node tests/onnx_opsets/gen/fuzz_diff.js \
//     [--kiln build/kiln] [--per-op 16] [--seed 1] [--filter REGEX] [--jobs 2] [--keep DIR]
//
// --filter keeps the ops whose name (e.g. Conv_22) matches; --keep writes every failing case as
// DIR/<case>/{model.onnx,test_data_set_0} (the layout of tests/onnx_opsets/cases) to reproduce it.
// A failing case worth keeping goes into the committed suite through the case lists of
// cases_*.js (regenerated with generate.js FILTER), not from here.
const fs = require('fs');
const os = require('os');
const path = require('path');
const { execFile } = require('child_process');
const b = require('./onnx_builder');
const { buildCase } = require('./case_model');
const { ortInput, ortOutputProto } = require('./generate');
const ort = require('onnxruntime-node');

// ---------------------------------------------------------------- random helpers
function R(seed) {
  const r = b.rng(seed);
  const o = {
    next: r.next,
    int: (lo, hi) => lo + Math.floor((hi - lo + 1) * r.next()),
    // float is drawn more often: it is the type ONNX Runtime has kernels for everywhere.
    pick: (a) => (a.includes('float') && r.next() < 0.35 ? 'float' : a[Math.floor(a.length * r.next())]),
    p: (x) => r.next() < x,
    shape: (minRank = 0, maxRank = 4, maxDim = 4) => {
      const n = o.int(minRank, maxRank);
      return Array.from({ length: n }, () => o.int(1, maxDim));
    },
    // A shape broadcastable to `s`: leading dims dropped, some dims set to 1.
    bcast: (s) => {
      const drop = o.p(0.3) ? o.int(0, s.length) : 0;
      return s.slice(drop).map((d) => (o.p(0.3) ? 1 : d));
    },
    shuffle: (a) => {
      const c = a.slice();
      for (let i = c.length - 1; i > 0; i--) {
        const j = Math.floor(r.next() * (i + 1));
        [c[i], c[j]] = [c[j], c[i]];
      }
      return c;
    },
  };
  return o;
}

const FLT = ['float', 'double', 'float16'];
const SINT = ['int8', 'int16', 'int32', 'int64'];
const UINT = ['uint8', 'uint16', 'uint32', 'uint64'];
const INT = [...SINT, ...UINT];
const NUM = [...FLT, ...INT];
const ALL = [...NUM, 'bool'];
const isFloat = (t) => FLT.includes(t);
const numel = (d) => d.reduce((a, x) => a * x, 1);

const SPECIAL = [NaN, Infinity, -Infinity, -0, 0, 1e4, -1e4, 0.5, -0.5, 2.5];
// Values of `type`: floats uniform in [lo, hi] with a few specials when `special`, integers in a
// range that fits the type.
function values(r, type, n, opt = {}) {
  if (type === 'bool') return Array.from({ length: n }, () => r.p(0.5));
  if (isFloat(type)) {
    const [lo, hi] = opt.range || [-3, 3];
    return Array.from({ length: n }, () => {
      if (opt.special && r.p(0.12)) return r.pick(SPECIAL);
      let v = lo + (hi - lo) * r.next();
      if (opt.halves && r.p(0.4)) v = Math.round(v * 2) / 2;
      if (type === 'float') v = Math.fround(v);
      return v;
    });
  }
  let [lo, hi] = opt.irange || (UINT.includes(type) ? [0, 60] : [-30, 30]);
  if (type === 'int8') { lo = Math.max(lo, -128); hi = Math.min(hi, 127); }
  if (type === 'uint8') { lo = Math.max(lo, 0); hi = Math.min(hi, 255); }
  if (UINT.includes(type)) lo = Math.max(lo, 0);
  return Array.from({ length: n }, () => r.int(lo, hi));
}

const T = (r, name, type, dims, opt = {}) =>
  ({ name, type, dims, data: opt.data || values(r, type, numel(dims), opt), constant: opt.constant });
const I64 = (name, data, dims, constant = true) => ({ name, type: 'int64', dims: dims || [data.length], data, constant });

// ---------------------------------------------------------------- op table
// Each entry: op, v (the versions of the op; a case at opset s uses the newest version <= s),
// min (the lowest opset to draw; default 18), gen(r, version) -> {inputs, attrs, outputs, opsets?}.
const OPS = [];
function add(op, v, gen, extra = {}) { OPS.push(Object.assign({ op, v, gen }, extra)); }

// Unary float ops.
const UNARY = [
  ['Abs', [13], NUM], ['Neg', [13], [...FLT, ...SINT]], ['Exp', [13], FLT], ['Log', [13], FLT, [0.01, 10]],
  ['Sqrt', [13], FLT, [0, 10]], ['Reciprocal', [13], FLT], ['Floor', [13], FLT], ['Ceil', [13], FLT],
  ['Sigmoid', [13], FLT], ['Tanh', [13], FLT], ['Relu', [14], [...FLT, 'int8', 'int32', 'int64']],
  ['Erf', [13], FLT], ['Sign', [13], NUM], ['Round', [11, 22], FLT], ['Sin', [7, 22], FLT], ['Cos', [7, 22], FLT],
  ['Tan', [7, 22], FLT, [-1.4, 1.4]], ['Asin', [7, 22], FLT, [-1, 1]], ['Acos', [7, 22], FLT, [-1, 1]],
  ['Atan', [7, 22], FLT], ['Sinh', [9, 22], FLT], ['Cosh', [9, 22], FLT], ['Asinh', [9, 22], FLT],
  ['Acosh', [9, 22], FLT, [1, 6]], ['Atanh', [9, 22], FLT, [-1, 1]], ['Softplus', [1, 22], FLT],
  ['Softsign', [1, 22], FLT], ['HardSwish', [14, 22], FLT], ['Mish', [18, 22], FLT],
];
for (const [op, v, types, range] of UNARY) {
  add(op, v, (r) => {
    const t = r.pick(types);
    const x = T(r, 'x', t, r.shape(), { range, special: r.p(0.3), halves: op === 'Round' });
    return { inputs: [x], outputs: [['y', t]] };
  });
}
const UNARY_ATTR = [
  ['LeakyRelu', [16], () => ({ alpha: 0.1 })], ['Elu', [6, 22], () => ({ alpha: 0.7 })],
  ['Selu', [6, 22], () => ({ alpha: 1.5, gamma: 1.1 })], ['HardSigmoid', [6, 22], () => ({ alpha: 0.3, beta: 0.4 })],
  ['ThresholdedRelu', [10, 22], () => ({ alpha: 0.4 })], ['Celu', [12], () => ({ alpha: 0.8 })],
  ['Shrink', [9], () => ({ lambd: 0.6, bias: 0.3 })], ['Gelu', [20], (r) => ({ approximate: r.pick(['none', 'tanh']) })],
  ['Swish', [24], () => ({ alpha: 0.75 })],
];
for (const [op, v, attrs] of UNARY_ATTR) {
  add(op, v, (r) => {
    const t = op === 'Shrink' && r.p(0.3) ? r.pick(INT) : r.pick(FLT);
    const x = T(r, 'x', t, r.shape(), { special: r.p(0.3) });
    return { inputs: [x], attrs: r.p(0.4) ? {} : attrs(r), outputs: [['y', t]] };
  });
}
add('IsNaN', [13, 20], (r) => {
  const t = r.pick(FLT);
  return { inputs: [T(r, 'x', t, r.shape(), { special: true })], outputs: [['y', 'bool']] };
});
add('IsInf', [10, 20], (r) => {
  const t = r.pick(FLT);
  const attrs = r.p(0.5) ? {} : { detect_positive: r.int(0, 1), detect_negative: r.int(0, 1) };
  return { inputs: [T(r, 'x', t, r.shape(), { special: true })], attrs, outputs: [['y', 'bool']] };
});
add('Not', [1], (r) => ({ inputs: [T(r, 'x', 'bool', r.shape())], outputs: [['y', 'bool']] }));
add('BitwiseNot', [18], (r) => {
  const t = r.pick(INT);
  return { inputs: [T(r, 'x', t, r.shape())], outputs: [['y', t]] };
});

// Binary / variadic ops with broadcasting.
function binary(op, v, types, outType, opt = {}) {
  add(op, v, (r) => {
    const t = r.pick(types);
    const s = r.shape();
    let sa = s, sb = r.bcast(s);
    if (r.p(0.5)) [sa, sb] = [sb, sa];
    const a = T(r, 'a', t, sa, Object.assign({ special: r.p(0.25) }, opt.a ? opt.a(t) : {}));
    const bb = T(r, 'b', opt.bType ? opt.bType(t) : t, sb, Object.assign({ special: r.p(0.25) }, opt.b ? opt.b(t) : {}));
    const attrs = opt.attrs ? opt.attrs(r, t) : {};
    return { inputs: [a, bb], attrs, outputs: [['y', outType || t]] };
  });
}
binary('Add', [14], NUM);
binary('Sub', [14], NUM);
binary('Mul', [14], NUM, undefined, { a: () => ({ irange: [-10, 10] }), b: () => ({ irange: [-10, 10] }) });
binary('Div', [14], NUM, undefined, { b: (t) => (isFloat(t) ? {} : { irange: UINT.includes(t) ? [1, 9] : [1, 9] }) });
binary('Pow', [15], ['float', 'double', 'int32', 'int64'], undefined, {
  a: (t) => (isFloat(t) ? { range: [0.1, 3] } : { irange: [-4, 4] }),
  b: (t) => (isFloat(t) ? { range: [-2, 3], halves: true } : { irange: [0, 4] }),
  bType: (t) => t,
});
binary('Mod', [13], NUM, undefined, {
  b: (t) => (isFloat(t) ? { range: [0.5, 3] } : { irange: SINT.includes(t) ? [-7, 7].filter(Boolean) && [1, 7] : [1, 7] }),
  attrs: (r, t) => (isFloat(t) ? { fmod: 1 } : (r.p(0.5) ? { fmod: r.int(0, 1) } : {})),
});
add('Mod', [13], (r) => {  // signed integers with negative divisors, fmod 0 (Python) and 1 (C)
  const t = r.pick(SINT);
  const s = r.shape(1, 3);
  const d = values(r, t, numel(s), { irange: [1, 7] }).map((x) => (r.p(0.5) ? -x : x));
  return { inputs: [T(r, 'a', t, s), T(r, 'b', t, s, { data: d })], attrs: { fmod: r.int(0, 1) }, outputs: [['y', t]] };
}, { tag: 'neg' });
for (const op of ['Equal', 'Less', 'Greater', 'LessOrEqual', 'GreaterOrEqual']) {
  binary(op, op === 'Equal' ? [13, 19] : op.includes('Or') ? [16] : [13], [...NUM, ...(op === 'Equal' ? ['bool'] : [])], 'bool');
}
for (const op of ['And', 'Or', 'Xor']) binary(op, [7], ['bool'], 'bool');
for (const op of ['BitwiseAnd', 'BitwiseOr', 'BitwiseXor']) binary(op, [18], INT);
binary('BitShift', [11], UINT, undefined, { b: () => ({ irange: [0, 7] }), attrs: (r) => ({ direction: r.pick(['LEFT', 'RIGHT']) }) });
add('PRelu', [16], (r) => {  // slope unidirectionally broadcastable to x
  const t = r.pick(['float', 'double', 'float16', 'int32', 'int64']);
  const s = r.shape();
  return { inputs: [T(r, 'x', t, s, { special: r.p(0.25) }), T(r, 's', t, r.bcast(s), { constant: r.p(0.5) })], outputs: [['y', t]] };
});
for (const op of ['Max', 'Min', 'Mean', 'Sum']) {
  add(op, [13], (r) => {
    const t = op === 'Mean' ? r.pick(FLT) : r.pick(NUM);
    const s = r.shape();
    const n = r.int(1, 4);
    const inputs = Array.from({ length: n }, (_, i) => T(r, `x${i}`, t, i === 0 ? s : r.bcast(s), { special: r.p(0.2) }));
    return { inputs: r.shuffle(inputs), outputs: [['y', t]] };
  });
}
add('Where', [16], (r) => {
  const t = r.pick(ALL);
  const s = r.shape();
  const shapes = r.shuffle([s, r.bcast(s), r.bcast(s)]);
  return {
    inputs: [T(r, 'c', 'bool', shapes[0]), T(r, 'x', t, shapes[1]), T(r, 'y', t, shapes[2])],
    outputs: [['z', t]],
  };
});
add('Clip', [13], (r) => {
  const t = r.pick(NUM);
  const x = T(r, 'x', t, r.shape(), { special: r.p(0.3) });
  const inputs = [x];
  const lo = values(r, t, 1)[0], hi = values(r, t, 1)[0];
  const [mn, mx] = lo <= hi ? [lo, hi] : [hi, lo];
  const form = r.int(0, 3);
  if (form === 0) inputs.push(T(r, 'min', t, [], { data: [mn], constant: r.p(0.5) }));
  if (form === 1) inputs.push(null, T(r, 'max', t, [], { data: [mx], constant: r.p(0.5) }));
  if (form === 2) inputs.push(T(r, 'min', t, [], { data: [mn] }), T(r, 'max', t, [], { data: [mx] }));
  return { inputs, outputs: [['y', t]] };
});

// Reductions.
const REDUCE = ['ReduceSum', 'ReduceMean', 'ReduceMax', 'ReduceMin', 'ReduceProd', 'ReduceL1', 'ReduceL2',
  'ReduceLogSum', 'ReduceLogSumExp', 'ReduceSumSquare'];
for (const op of REDUCE) {
  const v = op === 'ReduceSum' ? [13] : op === 'ReduceMax' || op === 'ReduceMin' ? [18, 20] : [18];
  add(op, v, (r) => {
    let types = [...FLT, 'int32', 'int64'];
    if (op === 'ReduceMax' || op === 'ReduceMin') types = [...types, 'int8', 'uint8', 'bool'];
    const t = r.pick(types);
    const s = r.shape(0, 4);
    const pos = op === 'ReduceLogSum' || op === 'ReduceL2';
    const x = T(r, 'x', t, s, { range: pos ? [0.1, 3] : [-3, 3], irange: [-5, 5], special: !pos && r.p(0.2) });
    const attrs = {};
    if (r.p(0.5)) attrs.keepdims = r.int(0, 1);
    const inputs = [x];
    const form = r.int(0, 3);
    if (form >= 1 && s.length) {
      const axes = r.shuffle(s.map((_, i) => i)).slice(0, r.int(1, s.length)).map((a) => (r.p(0.4) ? a - s.length : a));
      inputs.push(I64('axes', axes, undefined, r.p(0.7)));
    } else if (form === 3) {
      inputs.push(I64('axes', [], [0], true));
      if (r.p(0.7)) attrs.noop_with_empty_axes = r.int(0, 1);
    } else if (form === 2) {
      inputs.push(null);
    }
    return { inputs, attrs, outputs: [['y', t]] };
  });
}
for (const op of ['ArgMax', 'ArgMin']) {
  add(op, [13], (r) => {
    const t = r.pick([...FLT, 'int32', 'int64', 'int8', 'uint8']);
    const s = r.shape(1, 4);
    const x = T(r, 'x', t, s, { irange: [0, 3], range: [-1, 1], halves: true });
    const attrs = {};
    if (r.p(0.7)) attrs.axis = r.int(-s.length, s.length - 1);
    if (r.p(0.5)) attrs.keepdims = r.int(0, 1);
    if (r.p(0.5)) attrs.select_last_index = r.int(0, 1);
    return { inputs: [x], attrs, outputs: [['y', 'int64']] };
  });
}
for (const op of ['Softmax', 'LogSoftmax', 'Hardmax']) {
  add(op, [13], (r) => {
    const t = r.pick(FLT);
    const s = r.shape(1, 4);
    const attrs = r.p(0.3) ? {} : { axis: r.int(-s.length, s.length - 1) };
    return { inputs: [T(r, 'x', t, s, { range: [-5, 5], halves: op === 'Hardmax', special: r.p(0.15) })], attrs, outputs: [['y', t]] };
  });
}
add('CumSum', [14], (r) => {
  const t = r.pick(['float', 'double', 'float16', 'int32', 'int64', 'uint32', 'uint64']);
  const s = r.shape(1, 3);
  const attrs = {};
  if (r.p(0.5)) attrs.exclusive = r.int(0, 1);
  if (r.p(0.5)) attrs.reverse = r.int(0, 1);
  const axisT = r.pick(['int32', 'int64']);
  return {
    inputs: [T(r, 'x', t, s), { name: 'axis', type: axisT, dims: r.p(0.5) ? [] : [1], data: [r.int(-s.length, s.length - 1)], constant: r.p(0.5) }],
    attrs, outputs: [['y', t]],
  };
});
add('TopK', [11, 24], (r) => {
  const t = r.pick([...FLT, 'int32', 'int64', 'int8', 'uint8']);
  const s = r.shape(1, 3, 5);
  const axis = r.int(-s.length, s.length - 1);
  const n = s[axis < 0 ? axis + s.length : axis];
  const attrs = {};
  if (r.p(0.6)) attrs.axis = axis; else attrs.axis = undefined;
  const ax = attrs.axis === undefined ? s.length - 1 : axis;
  const len = s[ax < 0 ? ax + s.length : ax];
  if (r.p(0.5)) attrs.largest = r.int(0, 1);
  attrs.sorted = 1;
  // distinct values so the order is unique
  const vals = r.shuffle(Array.from({ length: numel(s) }, (_, i) => i - 5));
  void n;
  return {
    inputs: [T(r, 'x', t, s, { data: t.startsWith('u') ? vals.map((x) => x + 5) : vals.map((x) => (isFloat(t) ? x / 4 : x)) }),
      I64('k', [r.int(0, len)], [1], r.p(0.5))],
    attrs, outputs: [['v', t], ['i', 'int64']],
  };
});

// Data movement.
const DM = [13, 14, 19, 21, 23, 24, 25];
add('Reshape', [14, 19, 21, 23, 24, 25], (r) => {
  const t = r.pick(ALL);
  const s = r.shape(0, 4);
  const n = numel(s);
  // a target shape: factor n, maybe with a -1 or a 0 (copy)
  let target = [];
  let rest = n;
  const k = r.int(1, 3);
  for (let i = 0; i < k - 1; i++) {
    const divs = [1, 2, 3, 4].filter((d) => rest % d === 0);
    const d = r.pick(divs);
    target.push(d);
    rest /= d;
  }
  target.push(rest);
  if (n > 0 && r.p(0.4)) target[r.int(0, target.length - 1)] = -1;
  const attrs = {};
  if (r.p(0.3) && s.length && target.length <= s.length && target[0] === s[0] && r.p(0.5)) target[0] = 0;
  if (r.p(0.3)) attrs.allowzero = 0;
  if (s.length === 0 && r.p(0.3)) target = [];
  return { inputs: [T(r, 'x', t, s), I64('shape', target, [target.length], r.p(0.6))], attrs, outputs: [['y', t]] };
});
add('Transpose', [13, 21, 23, 24, 25], (r) => {
  const t = r.pick(ALL);
  const s = r.shape(0, 5);
  const attrs = r.p(0.3) ? {} : { perm: r.shuffle(s.map((_, i) => i)) };
  if (attrs.perm && !attrs.perm.length) attrs.perm = ['ints', []];
  return { inputs: [T(r, 'x', t, s)], attrs, outputs: [['y', t]] };
});
add('Squeeze', [13, 21, 23, 24, 25], (r) => {
  const t = r.pick(ALL);
  const s = r.shape(0, 4, 3).map((d) => (r.p(0.4) ? 1 : d));
  const ones = s.map((d, i) => (d === 1 ? i : -1)).filter((i) => i >= 0);
  const inputs = [T(r, 'x', t, s)];
  if (ones.length && r.p(0.6)) {
    const axes = r.shuffle(ones).slice(0, r.int(1, ones.length)).map((a) => (r.p(0.4) ? a - s.length : a));
    inputs.push(I64('axes', axes, undefined, r.p(0.6)));
  }
  return { inputs, outputs: [['y', t]] };
});
add('Unsqueeze', [13, 21, 23, 24, 25], (r) => {
  const t = r.pick(ALL);
  const s = r.shape(0, 3);
  const k = r.int(1, 2);
  const outRank = s.length + k;
  const axes = r.shuffle(Array.from({ length: outRank }, (_, i) => i)).slice(0, k).map((a) => (r.p(0.4) ? a - outRank : a));
  return { inputs: [T(r, 'x', t, s), I64('axes', axes, undefined, r.p(0.6))], outputs: [['y', t]] };
});
add('Flatten', [13, 21, 23, 24, 25], (r) => {
  const t = r.pick(ALL);
  const s = r.shape(1, 4);
  const attrs = r.p(0.3) ? {} : { axis: r.int(-s.length, s.length) };
  return { inputs: [T(r, 'x', t, s)], attrs, outputs: [['y', t]] };
});
add('Identity', [19, 21, 23, 24, 25], (r) => {
  const t = r.pick(ALL);
  return { inputs: [T(r, 'x', t, r.shape())], outputs: [['y', t]] };
});
add('Concat', [13], (r) => {
  const t = r.pick(ALL);
  const s = r.shape(1, 4);
  const axis = r.int(-s.length, s.length - 1);
  const a = axis < 0 ? axis + s.length : axis;
  const n = r.int(1, 3);
  const inputs = Array.from({ length: n }, (_, i) => {
    const si = s.slice();
    si[a] = r.int(i === 0 ? 1 : 0, 3);
    return T(r, `x${i}`, t, si);
  });
  return { inputs, attrs: { axis }, outputs: [['y', t]] };
});
add('Split', [13, 18], (r, ver) => {
  const t = r.pick(ALL);
  const s = r.shape(1, 3, 6);
  const axis = r.int(-s.length, s.length - 1);
  const a = axis < 0 ? axis + s.length : axis;
  const len = s[a];
  const attrs = r.p(0.3) && axis === 0 ? {} : { axis };
  const inputs = [T(r, 'x', t, s)];
  let n;
  if (ver >= 18 && r.p(0.5)) {
    n = r.int(1, Math.max(1, len));
    attrs.num_outputs = n;
  } else {
    n = r.int(1, 3);
    const parts = Array(n).fill(0);
    for (let i = 0; i < len; i++) parts[r.int(0, n - 1)]++;
    inputs.push(I64('split', parts, undefined, r.p(0.6)));
  }
  return { inputs, attrs, outputs: Array.from({ length: n }, (_, i) => [`y${i}`, t]) };
});
add('Slice', [13], (r) => {
  const t = r.pick(ALL);
  const s = r.shape(1, 4, 6);
  const k = r.int(1, s.length);
  const axesList = r.shuffle(s.map((_, i) => i)).slice(0, k);
  const starts = [], ends = [], steps = [];
  for (const a of axesList) {
    const d = s[a];
    const step = r.pick([1, 1, 2, -1, -2, 3]);
    const big = [2 ** 62, -(2 ** 62), 1000, -1000];
    starts.push(r.p(0.15) ? r.pick(big) : r.int(-d - 1, d + 1));
    ends.push(r.p(0.2) ? r.pick(big) : r.int(-d - 1, d + 1));
    steps.push(step);
  }
  const inputs = [T(r, 'x', t, s), I64('starts', starts, undefined, r.p(0.6)), I64('ends', ends, undefined, r.p(0.6))];
  const full = axesList.length === s.length && axesList.every((a, i) => a === i);
  const form = r.int(0, 2);
  if (form === 0 && full) {
    if (steps.every((x) => x === 1) && r.p(0.5)) return { inputs, outputs: [['y', t]] };
    inputs.push(null, I64('steps', steps));
  } else {
    inputs.push(I64('axes', axesList.map((a) => (r.p(0.4) ? a - s.length : a)), undefined, r.p(0.6)));
    if (form !== 1) inputs.push(I64('steps', steps, undefined, r.p(0.6)));
  }
  return { inputs, outputs: [['y', t]] };
});
add('Gather', [13], (r) => {
  const t = r.pick(ALL);
  const s = r.shape(1, 3);
  const axis = r.int(-s.length, s.length - 1);
  const d = s[axis < 0 ? axis + s.length : axis];
  const is = r.shape(0, 2);
  const it = r.pick(['int32', 'int64']);
  const idx = Array.from({ length: numel(is) }, () => r.int(-d, d - 1));
  const attrs = r.p(0.3) && axis === 0 ? {} : { axis };
  return { inputs: [T(r, 'x', t, s), { name: 'i', type: it, dims: is, data: idx, constant: r.p(0.3) }], attrs, outputs: [['y', t]] };
});
add('GatherElements', [13], (r) => {
  const t = r.pick(ALL);
  const s = r.shape(1, 3);
  const axis = r.int(-s.length, s.length - 1);
  const a = axis < 0 ? axis + s.length : axis;
  const is = s.map((d, i) => (i === a ? r.int(1, 4) : r.int(1, d)));
  const idx = Array.from({ length: numel(is) }, () => r.int(-s[a], s[a] - 1));
  return { inputs: [T(r, 'x', t, s), { name: 'i', type: r.pick(['int32', 'int64']), dims: is, data: idx }], attrs: { axis }, outputs: [['y', t]] };
});
add('GatherND', [13], (r) => {
  const t = r.pick(ALL);
  const s = r.shape(1, 4);
  const bd = r.int(0, s.length - 1);
  const k = r.int(1, s.length - bd);
  const is = [...s.slice(0, bd), ...r.shape(0, 1), k];
  const idx = [];
  for (let i = 0; i < numel(is) / k; i++) for (let j = 0; j < k; j++) { const d = s[bd + j]; idx.push(r.int(-d, d - 1)); }
  const attrs = bd || r.p(0.5) ? { batch_dims: bd } : {};
  return { inputs: [T(r, 'x', t, s), I64('i', idx, is, false)], attrs, outputs: [['y', t]] };
});
add('ScatterElements', [13, 16, 18], (r, ver) => {
  const t = r.pick(ver >= 18 ? [...FLT, 'int32', 'int64', 'int8', 'uint8'] : ALL);
  const s = r.shape(1, 3);
  const axis = r.int(-s.length, s.length - 1);
  const a = axis < 0 ? axis + s.length : axis;
  const attrs = { axis };
  let red = 'none';
  if (ver >= 16 && r.p(0.6)) { red = r.pick(ver >= 18 ? ['none', 'add', 'mul', 'max', 'min'] : ['none', 'add', 'mul']); attrs.reduction = red; }
  const is = s.map((d, i) => (i === a ? r.int(1, d) : r.int(1, d)));
  // unique indices along the axis per line when reduction none
  const idx = new Array(numel(is));
  const strides = is.map((_, i) => numel(is.slice(i + 1)));
  for (let f = 0; f < idx.length; f++) {
    const pos = Math.floor(f / strides[a]) % is[a];
    idx[f] = pos;
  }
  const perLine = r.shuffle(Array.from({ length: s[a] }, (_, i) => i));
  for (let f = 0; f < idx.length; f++) {
    idx[f] = red === 'none' ? perLine[idx[f]] : r.int(0, s[a] - 1);
    if (r.p(0.3)) idx[f] -= s[a];
  }
  return {
    inputs: [T(r, 'x', t, s, { irange: [-5, 5] }), I64('i', idx, is, false), T(r, 'u', t, is, { irange: [-5, 5] })],
    attrs, outputs: [['y', t]],
  };
});
add('ScatterND', [13, 16, 18], (r, ver) => {
  const t = r.pick([...FLT, 'int32', 'int64']);
  const s = r.shape(1, 3);
  const k = r.int(1, s.length);
  const attrs = {};
  let red = 'none';
  if (ver >= 16 && r.p(0.6)) { red = r.pick(ver >= 18 ? ['none', 'add', 'mul', 'max', 'min'] : ['none', 'add', 'mul']); attrs.reduction = red; }
  const cells = numel(s.slice(0, k));
  const m = r.int(1, red === 'none' ? Math.min(cells, 4) : 4);
  const chosen = red === 'none' ? r.shuffle(Array.from({ length: cells }, (_, i) => i)).slice(0, m)
    : Array.from({ length: m }, () => r.int(0, cells - 1));
  const idx = [];
  for (const c of chosen) {
    let rem = c;
    const coord = [];
    for (let j = k - 1; j >= 0; j--) { coord.unshift(rem % s[j]); rem = Math.floor(rem / s[j]); }
    idx.push(...coord.map((x, j) => (r.p(0.3) ? x - s[j] : x)));
  }
  return {
    inputs: [T(r, 'x', t, s, { irange: [-5, 5] }), I64('i', idx, [m, k], false), T(r, 'u', t, [m, ...s.slice(k)], { irange: [-5, 5] })],
    attrs, outputs: [['y', t]],
  };
});
add('Expand', [13], (r) => {
  const t = r.pick(ALL);
  const s = r.shape(0, 3);
  const target = r.bcast(r.shape(s.length, 4)).map((d) => d);
  // make target compatible: for each aligned dim, target dim is 1 or equals s dim or s dim is 1
  const out = r.shape(Math.max(s.length, 0), 4);
  const off = out.length - s.length;
  const xs = s.map((d, i) => (r.p(0.5) ? 1 : out[i + off]));
  const tgt = out.map((d, i) => (i >= off && r.p(0.3) ? 1 : d));
  void target;
  return { inputs: [T(r, 'x', t, xs), I64('shape', tgt, [tgt.length], r.p(0.6))], outputs: [['y', t]] };
});
add('Tile', [13], (r) => {
  const t = r.pick(ALL);
  const s = r.shape(1, 3);
  return { inputs: [T(r, 'x', t, s), I64('reps', s.map(() => r.int(0, 3)), undefined, r.p(0.6))], outputs: [['y', t]] };
});
add('Pad', [13, 18, 19, 21, 23, 24, 25], (r, ver) => {
  const t = r.pick([...FLT, 'int32', 'int64', 'int8', 'uint8', 'bool']);
  const s = r.shape(1, 4);
  const modes = ver >= 19 ? ['constant', 'reflect', 'edge', 'wrap'] : ['constant', 'reflect', 'edge'];
  const mode = r.pick(modes);
  const attrs = mode === 'constant' && r.p(0.4) ? {} : { mode };
  const useAxes = ver >= 18 && r.p(0.5);
  const axes = useAxes ? r.shuffle(s.map((_, i) => i)).slice(0, r.int(1, s.length)) : s.map((_, i) => i);
  const lim = (a) => (mode === 'reflect' ? s[a] - 1 : mode === 'wrap' ? s[a] : 3);
  const begin = axes.map((a) => r.int(mode === 'constant' ? -Math.min(2, s[a]) : 0, lim(a)));
  const end = axes.map((a) => r.int(mode === 'constant' ? -Math.min(2, s[a] - Math.max(0, -begin[axes.indexOf(a)])) : 0, lim(a)));
  const inputs = [T(r, 'x', t, s), I64('pads', [...begin, ...end], undefined, r.p(0.6))];
  const cv = r.int(0, 2);
  if (mode === 'constant' && cv === 1) inputs.push(T(r, 'v', t, r.p(0.7) ? [] : [1], { constant: r.p(0.5) }));
  else if (useAxes) inputs.push(null);
  if (useAxes) inputs.push(I64('axes', axes.map((a) => (r.p(0.4) ? a - s.length : a)), undefined, r.p(0.6)));
  return { inputs, attrs, outputs: [['y', t]] };
});
add('Range', [11], (r) => {
  const t = r.pick(['float', 'double', 'int16', 'int32', 'int64']);
  const fl = isFloat(t);
  const start = fl ? r.int(-10, 10) / 2 : r.int(-10, 10);
  let delta = fl ? r.pick([0.5, -0.5, 1.5, -2, 0.3]) : r.pick([1, 2, -1, -3, 4]);
  const limit = start + delta * r.int(-1, 8) + (fl ? 0.25 : 0);
  if (t === 'float') delta = Math.fround(delta);
  const sc = (n, v) => ({ name: n, type: t, dims: [], data: [v], constant: r.p(0.5) });
  return { inputs: [sc('s', start), sc('l', limit), sc('d', delta)], outputs: [['y', t]] };
});
add('NonZero', [13], (r) => {
  const t = r.pick(ALL);
  return { inputs: [T(r, 'x', t, r.shape(0, 3), { irange: [0, 1], range: [0, 1], halves: true })], outputs: [['y', 'int64']] };
});
add('Trilu', [14], (r) => {
  const t = r.pick(ALL);
  const s = r.shape(2, 4, 5);
  const inputs = [T(r, 'x', t, s)];
  if (r.p(0.6)) inputs.push(I64('k', [r.int(-6, 6)], [], r.p(0.5)));
  const attrs = r.p(0.5) ? {} : { upper: r.int(0, 1) };
  return { inputs, attrs, outputs: [['y', t]] };
});
add('OneHot', [11], (r) => {
  const it = r.pick(['int64', 'int32', 'float']);
  const vt = r.pick(['float', 'int64', 'int32', 'double']);
  const s = r.shape(0, 3);
  const depth = r.int(1, 5);
  const idx = Array.from({ length: numel(s) }, () => r.int(-depth - 1, depth));
  const attrs = r.p(0.4) ? {} : { axis: r.int(-s.length - 1, s.length) };
  return {
    inputs: [{ name: 'i', type: it, dims: s, data: idx }, { name: 'd', type: r.pick(['int64', 'float', 'int32']), dims: r.p(0.5) ? [] : [1], data: [depth], constant: r.p(0.5) },
      T(r, 'v', vt, [2], { constant: r.p(0.5) })],
    attrs, outputs: [['y', vt]],
  };
});
add('Einsum', [12], (r) => {
  const t = r.pick(['float', 'double', 'int32', 'int64']);
  const eqs = [['ij,jk->ik', [[2, 3], [3, 4]]], ['bij,bjk->bik', [[2, 2, 3], [2, 3, 2]]], ['ii->i', [[3, 3]]],
    ['ij->ji', [[2, 3]]], ['i,i->', [[4], [4]]], ['ij,j->i', [[2, 3], [3]]], ['...ij,...jk->...ik', [[2, 2, 3], [3, 2]]],
    ['ij', [[2, 3]]], ['ij,ij->ij', [[2, 3], [2, 3]]], ['i,j->ij', [[3], [2]]], ['bhqd,bhkd->bhqk', [[1, 2, 3, 4], [1, 2, 2, 4]]],
    ['ijk->i', [[2, 3, 2]]], ['ij,kj->ik', [[2, 3], [4, 3]]], ['ii', [[3, 3]]]];
  const [eq, shapes] = r.pick(eqs);
  return { inputs: shapes.map((s, i) => T(r, `x${i}`, t, s, { irange: [-4, 4] })), attrs: { equation: eq }, outputs: [['y', t]] };
});
add('Shape', [15, 19, 21, 23, 24, 25], (r) => {
  const t = r.pick(ALL);
  const s = r.shape(0, 4);
  const attrs = {};
  if (r.p(0.5)) attrs.start = r.int(-s.length - 2, s.length + 2);
  if (r.p(0.5)) attrs.end = r.int(-s.length - 2, s.length + 2);
  return { inputs: [T(r, 'x', t, s)], attrs, outputs: [['y', 'int64']] };
});
add('Size', [13, 19, 21, 23, 24, 25], (r) => {
  const t = r.pick(ALL);
  return { inputs: [T(r, 'x', t, r.shape(0, 4))], outputs: [['y', 'int64']] };
});
add('ConstantOfShape', [9, 20, 21, 23, 24, 25], (r) => {
  const t = r.pick(NUM.concat(['bool']));
  const s = r.shape(0, 3);
  const attrs = {};
  if (r.p(0.7)) attrs.value = ['tensor', b.tensor('value', t, [1], values(r, t, 1))];
  return { inputs: [I64('s', s, [s.length], r.p(0.5))], attrs, outputs: [['y', attrs.value ? t : 'float']] };
});
add('EyeLike', [9, 22], (r) => {
  const t = r.pick(['float', 'double', 'int32', 'int64', 'int8', 'uint8', 'bool']);
  const s = r.shape(2, 2, 5);
  const attrs = {};
  if (r.p(0.5)) attrs.k = r.int(-5, 5);
  let ot = t;
  if (r.p(0.4)) { ot = r.pick(['float', 'int64', 'int32', 'double']); attrs.dtype = b.DT[ot]; }
  return { inputs: [T(r, 'x', t, s)], attrs, outputs: [['y', ot]] };
});
add('DepthToSpace', [13], (r) => {
  const t = r.pick(ALL);
  const bs = r.int(1, 3);
  const s = [r.int(1, 2), bs * bs * r.int(1, 2), r.int(1, 3), r.int(1, 3)];
  const attrs = { blocksize: bs };
  if (r.p(0.6)) attrs.mode = r.pick(['DCR', 'CRD']);
  return { inputs: [T(r, 'x', t, s)], attrs, outputs: [['y', t]] };
});
add('SpaceToDepth', [13], (r) => {
  const t = r.pick(ALL);
  const bs = r.int(1, 3);
  const s = [r.int(1, 2), r.int(1, 3), bs * r.int(1, 2), bs * r.int(1, 2)];
  return { inputs: [T(r, 'x', t, s)], attrs: { blocksize: bs }, outputs: [['y', t]] };
});
add('Compress', [11], (r) => {
  const t = r.pick(ALL);
  const s = r.shape(1, 3);
  const attrs = {};
  let len = numel(s);
  if (r.p(0.6)) { const a = r.int(-s.length, s.length - 1); attrs.axis = a; len = s[a < 0 ? a + s.length : a]; }
  const cl = r.int(0, len);
  return { inputs: [T(r, 'x', t, s), T(r, 'c', 'bool', [cl])], attrs, outputs: [['y', t]] };
});
add('ReverseSequence', [10], (r) => {
  const t = r.pick(ALL);
  const tm = r.int(0, 1);
  const B = r.int(1, 3), Tn = r.int(1, 4);
  const s = tm === 0 ? [Tn, B, r.int(1, 2)] : [B, Tn, r.int(1, 2)];
  const lens = Array.from({ length: B }, () => r.int(1, Tn));
  return {
    inputs: [T(r, 'x', t, s), I64('l', lens, [B], r.p(0.5))],
    attrs: { time_axis: tm, batch_axis: 1 - tm }, outputs: [['y', t]],
  };
});
const CASTABLE = [...NUM, 'bool'];
add('Cast', [13, 19, 21, 23, 24, 25], (r) => {
  const from = r.pick(CASTABLE), to = r.pick(CASTABLE);
  let opt = { special: false, range: [-300, 300] };
  if (isFloat(from) && !isFloat(to)) opt = { range: to === 'bool' ? [-2, 2] : UINT.includes(to) ? [0, 120] : [-120, 120], halves: true };
  if (isFloat(from) && isFloat(to)) opt = { range: [-70000, 70000], special: true };
  if (!isFloat(from) && !isFloat(to)) opt = { irange: [0, 127] };
  return { inputs: [T(r, 'x', from, r.shape(0, 3), opt)], attrs: { to: b.DT[to] }, outputs: [['y', to]] };
});
add('CastLike', [15, 19, 21, 23, 24, 25], (r) => {
  const from = r.pick(CASTABLE), to = r.pick(CASTABLE);
  const opt = isFloat(from) && !isFloat(to) ? { range: [0, 100] } : { irange: [0, 100], range: [-100, 100] };
  return { inputs: [T(r, 'x', from, r.shape(0, 3), opt), T(r, 'l', to, [1], { constant: r.p(0.5) })], outputs: [['y', to]] };
});
add('Dropout', [13, 22], (r) => {
  const t = r.pick(FLT);
  const s = r.shape();
  const inputs = [T(r, 'x', t, s)];
  const form = r.int(0, 2);
  if (form === 1) inputs.push(T(r, 'ratio', 'float', [], { data: [0.5], constant: true }));
  if (form === 2) inputs.push(null, { name: 'tm', type: 'bool', dims: [], data: [false], constant: true });
  const outs = [['y', t]];
  if (r.p(0.4)) outs.push(['m', 'bool']);
  return { inputs, attrs: r.p(0.5) ? { seed: 3 } : {}, outputs: outs };
});

// NN.
function convLike(r, ver, transpose) {
  const t = r.pick(FLT);
  const nd = r.pick([1, 2, 2, 2, 3]);
  const group = r.pick([1, 1, 2]);
  const cin = group * r.int(1, 2), cout = group * r.int(1, 2);
  const k = Array.from({ length: nd }, () => r.int(1, 3));
  const dil = Array.from({ length: nd }, () => (r.p(0.2) ? 2 : 1));
  const str = Array.from({ length: nd }, () => (r.p(0.3) ? 2 : 1));
  const sp = Array.from({ length: nd }, (_, i) => r.int((k[i] - 1) * dil[i] + 1, (k[i] - 1) * dil[i] + 5));
  const x = T(r, 'x', t, [r.int(1, 2), cin, ...sp]);
  const w = T(r, 'w', t, transpose ? [cin, cout / group, ...k] : [cout, cin / group, ...k], { constant: r.p(0.7) });
  const attrs = {};
  if (group > 1 || r.p(0.3)) attrs.group = group;
  if (r.p(0.5)) attrs.kernel_shape = k;
  if (dil.some((d) => d > 1) || r.p(0.2)) attrs.dilations = dil;
  if (str.some((d) => d > 1) || r.p(0.2)) attrs.strides = str;
  const padMode = r.int(0, 3);
  if (padMode === 1) attrs.pads = [...k.map(() => r.int(0, 1)), ...k.map(() => r.int(0, 2))];
  if (padMode === 2) attrs.auto_pad = r.pick(['SAME_UPPER', 'SAME_LOWER', 'VALID', 'NOTSET']);
  if (transpose) {
    if (r.p(0.3)) attrs.output_padding = str.map((s) => (s > 1 ? r.int(0, 1) : 0));
    if (attrs.output_padding && dil.some((d) => d > 1)) delete attrs.output_padding;
  }
  const inputs = [x, w];
  if (r.p(0.5)) inputs.push(T(r, 'bias', t, [cout], { constant: r.p(0.5) }));
  return { inputs, attrs, outputs: [['y', t]] };
}
add('Conv', [11, 22], (r, v) => convLike(r, v, false));
add('ConvTranspose', [11, 22], (r, v) => convLike(r, v, true));
function poolLike(op) {
  return (r) => {
    const t = r.pick(op === 'MaxPool' ? [...FLT, 'int8', 'uint8'] : FLT);
    const nd = r.pick([1, 2, 2, 3]);
    const k = Array.from({ length: nd }, () => r.int(1, 3));
    const str = Array.from({ length: nd }, () => r.int(1, 2));
    const dil = Array.from({ length: nd }, () => (op !== 'LpPool' && r.p(0.2) ? 2 : 1));
    const sp = Array.from({ length: nd }, (_, i) => r.int((k[i] - 1) * dil[i] + 1, (k[i] - 1) * dil[i] + 4));
    const attrs = { kernel_shape: k };
    if (r.p(0.6)) attrs.strides = str;
    if (dil.some((d) => d > 1)) attrs.dilations = dil;
    const padMode = r.int(0, 2);
    if (padMode === 1) attrs.pads = [...k.map((kk) => r.int(0, Math.floor(kk / 2))), ...k.map((kk) => r.int(0, Math.floor(kk / 2)))];
    if (padMode === 2) attrs.auto_pad = r.pick(['SAME_UPPER', 'SAME_LOWER', 'VALID']);
    if (op !== 'LpPool' && r.p(0.4)) attrs.ceil_mode = r.int(0, 1);
    if (op === 'AveragePool' && r.p(0.5)) attrs.count_include_pad = r.int(0, 1);
    if (op === 'LpPool' && r.p(0.6)) attrs.p = r.int(1, 3);
    if (op === 'MaxPool' && r.p(0.3)) attrs.storage_order = 0;
    const outs = [['y', t]];
    if (op === 'MaxPool' && r.p(0.3) && isFloat(t)) outs.push(['i', 'int64']);
    if (op === 'MaxPool' && r.p(0.15) && isFloat(t)) {  // the indices alone
      return { inputs: [T(r, 'x', t, [r.int(1, 2), r.int(1, 3), ...sp])], attrs, outputs: [['i', 'int64']], nodeOutputs: ['', 'i'] };
    }
    return { inputs: [T(r, 'x', t, [r.int(1, 2), r.int(1, 3), ...sp], { irange: [-50, 50], special: r.p(0.15) })], attrs, outputs: outs };
  };
}
add('MaxPool', [12, 22], poolLike('MaxPool'));
add('AveragePool', [19, 22], poolLike('AveragePool'));
add('LpPool', [18, 22], poolLike('LpPool'));
for (const op of ['GlobalAveragePool', 'GlobalMaxPool', 'GlobalLpPool']) {
  add(op, op === 'GlobalLpPool' ? [2, 22] : [1, 22], (r) => {
    const t = r.pick(FLT);
    const attrs = op === 'GlobalLpPool' && r.p(0.5) ? { p: r.int(1, 3) } : {};
    return { inputs: [T(r, 'x', t, [r.int(1, 2), r.int(1, 3), ...r.shape(1, 3)])], attrs, outputs: [['y', t]] };
  });
}
add('BatchNormalization', [15], (r) => {
  const t = r.pick(FLT);
  const c = r.int(1, 4);
  const s = [r.int(1, 2), c, ...r.shape(0, 2)];
  const pt = r.pick([t, 'float']);
  const attrs = r.p(0.5) ? { epsilon: 1e-3 } : {};
  return {
    inputs: [T(r, 'x', t, s), T(r, 'sc', pt, [c], { constant: true }), T(r, 'b', pt, [c], { constant: true }),
      T(r, 'm', pt, [c], { constant: true }), T(r, 'v', pt, [c], { range: [0.2, 2], constant: true })],
    attrs, outputs: [['y', t]],
  };
});
add('InstanceNormalization', [6, 22], (r) => {
  const t = r.pick(FLT);
  const c = r.int(1, 3);
  const s = [r.int(1, 2), c, ...r.shape(1, 2, 5)];
  return { inputs: [T(r, 'x', t, s), T(r, 'sc', t, [c]), T(r, 'b', t, [c])], attrs: r.p(0.5) ? { epsilon: 1e-3 } : {}, outputs: [['y', t]] };
});
add('LayerNormalization', [17], (r) => {
  const t = r.pick(FLT);
  const s = r.shape(1, 4);
  const axis = r.int(-s.length, s.length - 1);
  const a = axis < 0 ? axis + s.length : axis;
  const ns = s.slice(a);
  const attrs = {};
  if (r.p(0.7)) attrs.axis = axis;
  const ax = attrs.axis === undefined ? s.length - 1 : a;
  const ns2 = s.slice(ax);
  void ns;
  if (r.p(0.4)) attrs.epsilon = 1e-3;
  const inputs = [T(r, 'x', t, s), T(r, 'sc', t, r.p(0.2) ? r.bcast(ns2) : ns2, { constant: r.p(0.5) })];
  if (r.p(0.5)) inputs.push(T(r, 'b', t, ns2, { constant: r.p(0.5) }));
  const outs = [['y', t]];
  if (r.p(0.2)) outs.push(['mean', 'float'], ['istd', 'float']);
  else if (r.p(0.2)) return { inputs, attrs, outputs: [['y', t], ['istd', 'float']], nodeOutputs: ['y', '', 'istd'] };
  return { inputs, attrs, outputs: outs };
});
add('GroupNormalization', [18, 21], (r) => {
  const t = r.pick(FLT);
  const g = r.int(1, 3);
  const c = g * r.int(1, 2);
  const s = [r.int(1, 2), c, ...r.shape(1, 2)];
  return {
    inputs: [T(r, 'x', t, s), T(r, 'sc', t, [c]), T(r, 'b', t, [c])], attrs: { num_groups: g, epsilon: r.pick([1e-5, 1e-3]) },
    outputs: [['y', t]],
  };
});
add('RMSNormalization', [23], (r) => {
  const t = r.pick(FLT);
  const s = r.shape(1, 4);
  const attrs = {};
  if (r.p(0.6)) attrs.axis = r.int(-s.length, s.length - 1);
  const ax = attrs.axis === undefined ? s.length - 1 : (attrs.axis + s.length) % s.length;
  if (r.p(0.4)) attrs.epsilon = 1e-3;
  return { inputs: [T(r, 'x', t, s), T(r, 'sc', t, s.slice(ax))], attrs, outputs: [['y', t]] };
});
add('LpNormalization', [1, 22], (r) => {
  const t = r.pick(FLT);
  const s = r.shape(1, 3);
  const attrs = {};
  if (r.p(0.6)) attrs.axis = r.int(-s.length, s.length - 1);
  if (r.p(0.6)) attrs.p = r.int(1, 2);
  return { inputs: [T(r, 'x', t, s)], attrs, outputs: [['y', t]] };
});
add('LRN', [13], (r) => {
  const t = r.pick(FLT);
  const attrs = { size: r.pick([1, 3, 5]) };
  if (r.p(0.5)) Object.assign(attrs, { alpha: 0.001, beta: 0.6, bias: 2.0 });
  return { inputs: [T(r, 'x', t, [1, r.int(1, 6), r.int(1, 3), r.int(1, 3)])], attrs, outputs: [['y', t]] };
});
add('Gemm', [13], (r) => {
  const t = r.pick(['float', 'double', 'float16', 'int32', 'int64', 'uint32', 'uint64']);
  const M = r.int(1, 4), K = r.int(1, 5), N = r.int(1, 4);
  const attrs = {};
  const ta = r.int(0, 1), tb = r.int(0, 1);
  if (ta || r.p(0.3)) attrs.transA = ta;
  if (tb || r.p(0.3)) attrs.transB = tb;
  if (r.p(0.4)) attrs.alpha = isFloat(t) ? 0.5 : 2.0;
  if (r.p(0.4)) attrs.beta = isFloat(t) ? 1.5 : 3.0;
  const inputs = [T(r, 'a', t, ta ? [K, M] : [M, K], { irange: [0, 5] }), T(r, 'b', t, tb ? [N, K] : [K, N], { irange: [0, 5], constant: r.p(0.5) })];
  if (r.p(0.6)) inputs.push(T(r, 'c', t, r.pick([[M, N], [N], [1, N], [M, 1], [], [1]]), { irange: [0, 5], constant: r.p(0.5) }));
  return { inputs, attrs, outputs: [['y', t]] };
});
add('MatMul', [13], (r) => {
  const t = r.pick(['float', 'double', 'float16', 'int32', 'int64', 'uint32', 'uint64']);
  const K = r.int(1, 6);
  const batch = r.shape(0, 2, 3);
  const aRank1 = r.p(0.15), bRank1 = r.p(0.15);
  const sa = aRank1 ? [K] : [...r.bcast(batch), r.int(1, 4), K];
  const sb = bRank1 ? [K] : [...r.bcast(batch), K, r.int(1, 4)];
  return {
    inputs: [T(r, 'a', t, sa, { irange: [0, 5] }), T(r, 'b', t, sb, { irange: [0, 5], constant: r.p(0.4) })],
    outputs: [['y', t]],
  };
});
add('MatMulInteger', [10], (r) => {
  const ta = r.pick(['int8', 'uint8']), tb = r.pick(['int8', 'uint8']);
  const M = r.int(1, 4), K = r.int(1, 5), N = r.int(1, 4);
  const inputs = [T(r, 'a', ta, [M, K], { irange: [-100, 100] }), T(r, 'b', tb, [K, N], { irange: [-100, 100], constant: r.p(0.5) })];
  const form = r.int(0, 2);
  if (form >= 1) inputs.push(T(r, 'az', ta, [], { irange: [0, 10] }));
  if (form === 2) inputs.push(T(r, 'bz', tb, r.p(0.5) ? [] : [N], { irange: [0, 10] }));
  return { inputs, outputs: [['y', 'int32']] };
});
add('Resize', [13, 18, 19], (r, ver) => {
  const t = r.pick(['float', 'float16', 'int32', 'uint8', 'int8']);
  const mode = r.pick(['nearest', 'linear', 'cubic']);
  const rank = mode === 'nearest' ? r.int(2, 4) : r.pick([4, 4, 2]);
  const s = [r.int(1, 2), r.int(1, 2), ...Array.from({ length: rank - 2 }, () => r.int(1, 5))];
  const attrs = {};
  if (mode !== 'nearest' || r.p(0.5)) attrs.mode = mode;
  const ctms = ['half_pixel', 'pytorch_half_pixel', 'align_corners', 'asymmetric'];
  if (ver >= 18 && mode !== 'nearest') ctms.push('half_pixel_symmetric');
  if (r.p(0.7)) attrs.coordinate_transformation_mode = r.pick(ctms);
  if (mode === 'nearest' && r.p(0.6)) attrs.nearest_mode = r.pick(['round_prefer_floor', 'round_prefer_ceil', 'floor', 'ceil']);
  if (mode === 'cubic' && r.p(0.5)) attrs.cubic_coeff_a = -0.5;
  if (mode !== 'nearest' && r.p(0.3)) attrs.exclude_outside = 1;
  const inputs = [T(r, 'x', t, s, { irange: [0, 100] }), null];
  const spatial = s.length - 2;
  const useSizes = r.p(0.5);
  let axes = null;
  if (ver >= 18 && r.p(0.3)) {
    axes = r.shuffle(Array.from({ length: spatial }, (_, i) => i + 2)).slice(0, r.int(1, spatial));
    attrs.axes = axes;
  }
  const over = axes || s.map((_, i) => i);
  if (useSizes) {
    inputs.push(null, I64('sizes', over.map((a) => (a < 2 && !axes ? s[a] : r.int(1, 8))), undefined, r.p(0.7)));
    if (ver >= 18 && r.p(0.4)) attrs.keep_aspect_ratio_policy = r.pick(['stretch', 'not_larger', 'not_smaller']);
  } else {
    inputs.push({ name: 'scales', type: 'float', dims: [over.length], data: over.map((a) => (a < 2 && !axes ? 1 : r.pick([0.5, 0.75, 1.5, 2, 3, 0.6]))), constant: r.p(0.7) });
  }
  if (r.p(0.3) && !useSizes) inputs[1] = null;
  return { inputs, attrs, outputs: [['y', t]] };
});
add('Det', [11, 22], (r) => {
  const t = r.pick(FLT);
  const n = r.int(1, 4);
  return { inputs: [T(r, 'x', t, [...r.shape(0, 2, 2), n, n])], outputs: [['y', t]] };
});
add('Unique', [11], (r) => {
  const t = r.pick(['float', 'int64', 'int8']);
  const s = r.shape(1, 2, 4);
  const attrs = {};
  if (r.p(0.5)) attrs.sorted = r.int(0, 1);
  if (r.p(0.5)) attrs.axis = r.int(-s.length, s.length - 1);
  return { inputs: [T(r, 'x', t, s, { irange: [0, 3], range: [0, 2], halves: true })], attrs,
    outputs: [['y', t], ['idx', 'int64'], ['inv', 'int64'], ['cnt', 'int64']] };
});
add('QuantizeLinear', [19, 21, 23, 24, 25], (r, ver) => {
  const ot = r.pick(['uint8', 'int8', ...(ver >= 21 ? ['uint16', 'int16'] : [])]);
  const xt = r.pick(['float', 'float16']);
  const s = r.shape(1, 3);
  const attrs = {};
  let sdims = [];
  if (r.p(0.5)) { const a = r.int(-s.length, s.length - 1); attrs.axis = a; sdims = [s[(a + s.length) % s.length]]; }
  const inputs = [T(r, 'x', xt, s, { range: [-300, 300], halves: true }), T(r, 'sc', xt, sdims, { range: [0.5, 4], constant: r.p(0.5) })];
  if (r.p(0.7)) inputs.push(T(r, 'zp', ot, sdims, { irange: [0, 20], constant: r.p(0.5) }));
  if (r.p(0.3)) attrs.saturate = 1;
  return { inputs, attrs, outputs: [['y', inputs[2] ? ot : 'uint8']] };
});
add('DequantizeLinear', [19, 21, 23, 24, 25], (r, ver) => {
  const it = r.pick(['uint8', 'int8', 'int32', ...(ver >= 21 ? ['uint16', 'int16'] : [])]);
  const s = r.shape(1, 3);
  const attrs = {};
  let sdims = [];
  if (r.p(0.5)) { const a = r.int(-s.length, s.length - 1); attrs.axis = a; sdims = [s[(a + s.length) % s.length]]; }
  const st = r.pick(['float', 'float16']);
  const inputs = [T(r, 'x', it, s, { irange: [-100, 100] }), T(r, 'sc', st, sdims, { range: [0.01, 2], constant: r.p(0.5) })];
  if (it !== 'int32' && r.p(0.6)) inputs.push(T(r, 'zp', it, sdims, { irange: [0, 20] }));
  return { inputs, attrs, outputs: [['y', st]] };
});

// Ops introduced in opsets 17-25.
add('CenterCropPad', [18], (r) => {
  const t = r.pick([...FLT, 'int32', 'int64', 'uint8', 'bool']);
  const s = r.shape(1, 3, 6);
  const attrs = {};
  let over = s.map((_, i) => i);
  if (r.p(0.5)) { over = r.shuffle(over).slice(0, r.int(1, s.length)); attrs.axes = over.map((a) => (r.p(0.4) ? a - s.length : a)); }
  return { inputs: [T(r, 'x', t, s), I64('shape', over.map(() => r.int(1, 7)), undefined, r.p(0.6))], attrs, outputs: [['y', t]] };
});
add('GridSample', [16, 20, 22], (r, ver) => {
  const t = r.pick(['float', 'double']);
  const nd = ver >= 20 && r.p(0.2) ? 3 : 2;
  const modes = ver >= 20 ? ['linear', 'nearest', 'cubic'] : ['bilinear', 'nearest', 'bicubic'];
  const attrs = {};
  const mode = r.pick(modes);
  if (nd === 3 && mode.includes('cubic')) return null;
  if (r.p(0.8)) attrs.mode = mode;
  if (r.p(0.6)) attrs.padding_mode = r.pick(['zeros', 'border', 'reflection']);
  if (r.p(0.6)) attrs.align_corners = r.int(0, 1);
  const N = r.int(1, 2), C = r.int(1, 2);
  const sp = Array.from({ length: nd }, () => r.int(1, 4));
  const osp = Array.from({ length: nd }, () => r.int(1, 4));
  return {
    inputs: [T(r, 'x', t, [N, C, ...sp]), T(r, 'g', t, [N, ...osp, nd], { range: [-1.3, 1.3] })], attrs, outputs: [['y', t]],
  };
});
add('AffineGrid', [20], (r) => {
  const t = r.pick(['float', 'double']);
  const nd = r.pick([2, 3]);
  const N = r.int(1, 2);
  const size = [N, r.int(1, 3), ...Array.from({ length: nd }, () => r.int(1, 4))];
  const attrs = r.p(0.6) ? { align_corners: r.int(0, 1) } : {};
  return { inputs: [T(r, 'theta', t, [N, nd, nd + 1]), I64('size', size, undefined, r.p(0.6))], attrs, outputs: [['y', t]] };
});
for (const op of ['RNN', 'GRU', 'LSTM']) {
  add(op, [14, 22], (r) => {
    const t = op === 'RNN' ? r.pick(['float', 'double']) : 'float';  // ORT: GRU / LSTM float only
    const gates = { RNN: 1, GRU: 3, LSTM: 4 }[op];
    const dir = r.pick(['forward', 'reverse', 'bidirectional']);
    const D = dir === 'bidirectional' ? 2 : 1;
    const S = r.int(1, 4), B = r.int(1, 3), I = r.int(1, 3), H = r.int(1, 3);
    const layout = r.p(0.1) ? 1 : 0;  // ORT refuses layout 1
    const attrs = { hidden_size: H };
    if (dir !== 'forward' || r.p(0.3)) attrs.direction = dir;
    if (layout) attrs.layout = 1;
    if (op === 'GRU' && r.p(0.5)) attrs.linear_before_reset = 1;
    if (r.p(0.2)) attrs.clip = 0.5;
    const inputs = [T(r, 'x', t, layout ? [B, S, I] : [S, B, I]), T(r, 'w', t, [D, gates * H, I], { range: [-0.6, 0.6] }),
      T(r, 'rw', t, [D, gates * H, H], { range: [-0.6, 0.6] })];
    const opt = [];
    opt.push(r.p(0.6) ? T(r, 'bias', t, [D, 2 * gates * H]) : null);
    opt.push(r.p(0.4) ? { name: 'sl', type: 'int32', dims: [B], data: Array.from({ length: B }, () => r.int(1, S)) } : null);
    opt.push(r.p(0.4) ? T(r, 'h0', t, layout ? [B, D, H] : [D, B, H]) : null);
    if (op === 'LSTM') {
      opt.push(r.p(0.4) ? T(r, 'c0', t, layout ? [B, D, H] : [D, B, H]) : null);
      opt.push(r.p(0.3) ? T(r, 'p', t, [D, 3 * H]) : null);
    }
    while (opt.length && !opt[opt.length - 1]) opt.pop();
    const outs = [['y', t], ['yh', t]];
    if (op === 'LSTM' && r.p(0.5)) outs.push(['yc', t]);
    return { inputs: [...inputs, ...opt], attrs, outputs: outs };
  });
}
add('NegativeLogLikelihoodLoss', [13, 22], (r) => {
  const t = r.pick(FLT);
  const N = r.int(1, 3), C = r.int(2, 4);
  const extra = r.shape(0, 2, 3);
  const attrs = {};
  if (r.p(0.7)) attrs.reduction = r.pick(['none', 'sum', 'mean']);
  const ign = r.p(0.3) ? r.int(0, C - 1) : undefined;
  if (ign !== undefined) attrs.ignore_index = ign;
  const inputs = [T(r, 'x', t, [N, C, ...extra]), I64('tgt', values(r, 'int64', N * numel(extra), { irange: [0, C - 1] }), [N, ...extra], false)];
  if (r.p(0.5)) inputs.push(T(r, 'w', t, [C], { range: [0.2, 2] }));
  return { inputs, attrs, outputs: [['y', t]] };
});
add('SoftmaxCrossEntropyLoss', [13], (r) => {
  const t = r.pick(FLT);
  const N = r.int(1, 3), C = r.int(2, 4);
  const extra = r.shape(0, 2, 3);
  const attrs = {};
  if (r.p(0.7)) attrs.reduction = r.pick(['none', 'sum', 'mean']);
  if (r.p(0.3)) attrs.ignore_index = r.int(0, C - 1);
  const inputs = [T(r, 'x', t, [N, C, ...extra]), I64('tgt', values(r, 'int64', N * numel(extra), { irange: [0, C - 1] }), [N, ...extra], false)];
  if (r.p(0.5)) inputs.push(T(r, 'w', t, [C], { range: [0.2, 2] }));
  const outs = [['y', t]];
  if (r.p(0.4)) outs.push(['lp', t]);
  return { inputs, attrs, outputs: outs };
});
for (const op of ['HannWindow', 'HammingWindow', 'BlackmanWindow']) {
  add(op, [17], (r) => {
    const attrs = {};
    if (r.p(0.5)) attrs.periodic = r.int(0, 1);
    let ot = 'float';
    if (r.p(0.4)) { ot = r.pick(['double', 'float', 'int64', 'int32']); attrs.output_datatype = b.DT[ot]; }
    return { inputs: [{ name: 'n', type: r.pick(['int64', 'int32']), dims: [], data: [r.int(1, 10)], constant: r.p(0.5) }], attrs, outputs: [['y', ot]] };
  });
}
add('DFT', [17, 20], (r, ver) => {
  const t = r.pick(['float', 'double']);
  const complex = r.p(0.4);
  const s = [r.int(1, 2), r.int(1, 5), r.int(1, 4), complex ? 2 : 1];
  const attrs = {};
  if (r.p(0.4)) attrs.inverse = 1;
  if (!attrs.inverse && r.p(0.4)) attrs.onesided = 1;
  const axis = r.int(1, 2);
  const inputs = [T(r, 'x', t, s)];
  if (r.p(0.4)) inputs.push(I64('len', [r.int(1, 6)], [], true)); else if (ver >= 20) inputs.push(null);
  if (ver >= 20) inputs.push(I64('axis', [axis], [], true)); else attrs.axis = axis;
  if (ver >= 20 && inputs[1] === null && r.p(0.5)) inputs.splice(1, 2);
  return { inputs, attrs, outputs: [['y', t]] };
});
add('RoiAlign', [16, 22], (r) => {
  const t = r.pick(FLT);
  const N = r.int(1, 2), C = r.int(1, 2), H = r.int(2, 6), W = r.int(2, 6);
  const nr = r.int(1, 3);
  const rois = [];
  for (let i = 0; i < nr; i++) {
    const x1 = r.int(0, W * 2) / 2, y1 = r.int(0, H * 2) / 2;
    rois.push(x1, y1, x1 + r.int(0, 6) / 2, y1 + r.int(0, 6) / 2);
  }
  const attrs = {};
  if (r.p(0.6)) attrs.mode = r.pick(['avg', 'max']);
  if (r.p(0.6)) attrs.coordinate_transformation_mode = r.pick(['half_pixel', 'output_half_pixel']);
  if (r.p(0.5)) { attrs.output_height = r.int(1, 3); attrs.output_width = r.int(1, 3); }
  if (r.p(0.5)) attrs.sampling_ratio = r.int(0, 2);
  if (r.p(0.4)) attrs.spatial_scale = 0.5;
  return {
    inputs: [T(r, 'x', t, [N, C, H, W]), T(r, 'rois', t, [nr, 4], { data: rois }),
      I64('bi', Array.from({ length: nr }, () => r.int(0, N - 1)), [nr], false)],
    attrs, outputs: [['y', t]],
  };
});
add('Attention', [23, 24], (r) => {
  const t = r.pick(['float', 'float16']);
  const B = r.int(1, 2), kh = r.int(1, 2), qh = kh * r.int(1, 2), sq = r.int(1, 4), skv = r.int(1, 4), d = r.pick([2, 4]);
  const threeD = r.p(0.4);
  const attrs = {};
  if (threeD) Object.assign(attrs, { q_num_heads: qh, kv_num_heads: kh });
  if (r.p(0.3)) attrs.is_causal = 1;
  if (r.p(0.3)) attrs.scale = 0.5;
  const inputs = threeD ? [T(r, 'q', t, [B, sq, qh * d]), T(r, 'k', t, [B, skv, kh * d]), T(r, 'v', t, [B, skv, kh * d])]
    : [T(r, 'q', t, [B, qh, sq, d]), T(r, 'k', t, [B, kh, skv, d]), T(r, 'v', t, [B, kh, skv, d])];
  if (r.p(0.4)) inputs.push(r.p(0.5) ? T(r, 'm', 'bool', [sq, skv]) : T(r, 'm', t, [sq, skv]));
  return { inputs, attrs, outputs: [['y', t]] };
});
add('RotaryEmbedding', [23], (r) => {
  const t = r.pick(['float', 'float16']);
  const B = r.int(1, 2), S = r.int(1, 4), H = r.int(1, 2), D = r.pick([2, 4, 6]);
  const rot = r.p(0.3) ? 2 : D;
  const attrs = {};
  if (r.p(0.5)) attrs.interleaved = r.int(0, 1);
  if (rot !== D) attrs.rotary_embedding_dim = rot;
  const threeD = r.p(0.4);
  if (threeD) attrs.num_heads = H;
  const x = T(r, 'x', t, threeD ? [B, S, H * D] : [B, H, S, D]);
  const usePos = r.p(0.5);
  const M = usePos ? 8 : S;
  const inputs = [x, T(r, 'cos', t, usePos ? [M, rot / 2] : [B, S, rot / 2]), T(r, 'sin', t, usePos ? [M, rot / 2] : [B, S, rot / 2])];
  if (usePos) inputs.push(I64('pos', values(r, 'int64', B * S, { irange: [0, M - 1] }), [B, S], false));
  return { inputs, attrs, outputs: [['y', t]] };
});
add('TensorScatter', [24], (r) => {
  const t = r.pick(['float', 'float16', 'int64']);
  const B = r.int(1, 3), maxS = r.int(2, 5), H = r.int(1, 2), n = r.int(1, 2);
  const attrs = {};
  const circ = r.p(0.4);
  if (circ) attrs.mode = 'circular'; else if (r.p(0.3)) attrs.mode = 'linear';
  const inputs = [T(r, 'cache', t, [B, maxS, H]), T(r, 'upd', t, [B, n, H])];
  if (r.p(0.7)) inputs.push(I64('wi', Array.from({ length: B }, () => r.int(0, circ ? maxS - 1 : maxS - n)), [B], false));
  if (r.p(0.3)) attrs.axis = -2;
  return { inputs, attrs, outputs: [['y', t]] };
});

add('MeanVarianceNormalization', [13], (r) => {
  const t = r.pick(FLT);
  const s = [r.int(1, 2), r.int(1, 3), r.int(1, 4), r.int(1, 4)];
  const attrs = r.p(0.5) ? { axes: r.pick([[0, 2, 3], [2, 3], [1], [0, 1, 2, 3]]) } : {};
  return { inputs: [T(r, 'x', t, s)], attrs, outputs: [['y', t]] };
});
add('DynamicQuantizeLinear', [11], (r) => ({
  inputs: [T(r, 'x', 'float', r.shape(0, 3), { range: r.pick([[-3, 3], [0, 5], [-5, 0]]) })],
  outputs: [['y', 'uint8'], ['s', 'float'], ['z', 'uint8']],
}));
add('QLinearMatMul', [10, 21], (r) => {
  const qt = r.pick(['uint8', 'int8']);
  const M = r.int(1, 4), K = r.int(1, 5), N = r.int(1, 4);
  const sc = (n) => ({ name: n, type: 'float', dims: [], data: [r.pick([0.05, 0.1, 0.02, 0.3])], constant: r.p(0.5) });
  const zp = (n) => T(r, n, qt, [], { irange: qt === 'uint8' ? [100, 150] : [-20, 20], constant: r.p(0.5) });
  return {
    inputs: [T(r, 'a', qt, [M, K], { irange: [-100, 200] }), sc('as'), zp('az'), T(r, 'b', qt, [K, N], { irange: [-100, 200] }), sc('bs'), zp('bz'),
      sc('ys'), zp('yz')],
    outputs: [['y', qt]],
  };
});
add('ConvInteger', [10], (r) => {
  const xt = r.pick(['uint8', 'int8']);
  const C = r.int(1, 2), M = r.int(1, 2), k = [r.int(1, 3), r.int(1, 3)];
  const inputs = [T(r, 'x', xt, [1, C, r.int(3, 5), r.int(3, 5)], { irange: [0, 120] }), T(r, 'w', 'uint8', [M, C, ...k], { irange: [0, 120], constant: r.p(0.5) })];
  if (r.p(0.6)) inputs.push(T(r, 'xz', xt, [], { irange: [0, 20] }));
  const attrs = r.p(0.4) ? { pads: [1, 0, 1, 1] } : {};
  return { inputs, attrs, outputs: [['y', 'int32']] };
});
add('MaxUnpool', [11, 22], (r) => {
  const t = r.pick(['float', 'double']);
  const k = [r.int(1, 3), r.int(1, 3)], st = [r.int(1, 2), r.int(1, 2)];
  const N = r.int(1, 2), C = r.int(1, 2), h = r.int(1, 3), w = r.int(1, 3);
  const H = (h - 1) * st[0] + k[0], W = (w - 1) * st[1] + k[1];
  // indices: one distinct position of each output plane per input value
  const idx = [];
  for (let p = 0; p < N * C; p++) {
    const pos = r.shuffle(Array.from({ length: H * W }, (_, i) => i)).slice(0, h * w);
    for (const q of pos) idx.push(p * H * W + q);
  }
  const attrs = { kernel_shape: k };
  if (r.p(0.7)) attrs.strides = st; else if (st.some((x) => x !== 1)) return null;
  const inputs = [T(r, 'x', t, [N, C, h, w]), I64('i', idx, [N, C, h, w], false)];
  if (r.p(0.3)) inputs.push(I64('os', [N, C, H + r.int(0, 1), W + r.int(0, 1)], [4], true));
  return { inputs, attrs, outputs: [['y', t]] };
});

add('STFT', [17], (r) => {
  const t = r.pick(['float', 'double']);
  const len = r.int(4, 12), fl = r.int(2, Math.min(len, 6)), step = r.int(1, 3);
  const complex = r.p(0.3);
  const inputs = [T(r, 'x', t, [r.int(1, 2), len, complex ? 2 : 1]), I64('step', [step], [], true)];
  const form = r.int(0, 2);
  if (form === 0) inputs.push(T(r, 'win', t, [fl], { range: [0, 1], constant: true }));
  else if (form === 1) inputs.push(null, I64('fl', [fl], [], true));
  else inputs.push(T(r, 'win', t, [fl], { range: [0, 1], constant: true }), I64('fl', [fl], [], true));
  const attrs = !complex && r.p(0.5) ? { onesided: r.int(0, 1) } : complex ? { onesided: 0 } : {};
  return { inputs, attrs, outputs: [['y', t]] };
});
add('MelWeightMatrix', [17], (r) => {
  const sr = r.pick([8000, 16000]);
  const attrs = {};
  let ot = 'float';
  if (r.p(0.4)) { ot = r.pick(['double', 'float']); attrs.output_datatype = b.DT[ot]; }
  const i = (n, v) => ({ name: n, type: 'int64', dims: [], data: [v], constant: true });
  const f = (n, v) => ({ name: n, type: 'float', dims: [], data: [v], constant: true });
  return {
    inputs: [i('bins', r.int(1, 6)), i('dft', r.pick([16, 32, 64])), i('sr', sr), f('lo', r.pick([0, 20, 300])), f('hi', r.pick([sr / 2, 3000, 3500]))],
    attrs, outputs: [['y', ot]],
  };
});

// Text, image-column and the ai.onnx.ml ops.
const WORDS = ['', 'a', 'kiln', 'b c', ' x  y ', 'a,b,,c', 'é', 'ONNX'];
const S = (r, name, dims) => ({ name, type: 'string', dims, data: Array.from({ length: numel(dims) }, () => r.pick(WORDS)) });
add('StringConcat', [20], (r) => {
  const s = r.shape(0, 3);
  const sa = r.p(0.5) ? s : r.bcast(s), sb = r.p(0.5) ? s : r.bcast(s);
  return { inputs: [S(r, 'a', sa), S(r, 'b', sb)], outputs: [['y', 'string']] };
});
add('StringSplit', [20], (r) => {
  const attrs = {};
  if (r.p(0.5)) attrs.delimiter = r.pick([',', ' ', 'b']);
  if (r.p(0.4)) attrs.maxsplit = r.int(0, 2);
  return { inputs: [S(r, 'x', r.shape(0, 2))], attrs, outputs: [['y', 'string'], ['n', 'int64']] };
});
add('Col2Im', [18], (r) => {
  const t = r.pick(['float', 'double']);
  const k = [r.int(1, 2), r.int(1, 3)];
  const img = [r.int(k[0], 5), r.int(k[1], 5)];
  const attrs = {};
  const str = [r.int(1, 2), r.int(1, 2)];
  if (r.p(0.5)) attrs.strides = str; else str.fill(1);
  const pads = r.p(0.4) ? [r.int(0, 1), r.int(0, 1), r.int(0, 1), r.int(0, 1)] : [0, 0, 0, 0];
  if (pads.some((x) => x)) attrs.pads = pads;
  const L = [0, 1].map((i) => Math.floor((img[i] + pads[i] + pads[i + 2] - k[i]) / str[i]) + 1);
  if (L.some((x) => x < 1)) return null;
  const C = r.int(1, 2), N = r.int(1, 2);
  return {
    inputs: [T(r, 'x', t, [N, C * k[0] * k[1], L[0] * L[1]]), I64('img', img, [2], r.p(0.7)), I64('k', k, [2], r.p(0.7))],
    attrs, outputs: [['y', t]],
  };
});
add('DeformConv', [19, 22], (r) => {
  const t = 'float';
  const k = [r.int(1, 3), r.int(1, 3)];
  const sp = [r.int(k[0], 5), r.int(k[1], 5)];
  const C = r.int(1, 2), M = r.int(1, 2), N = r.int(1, 2);
  const out = [sp[0] - k[0] + 1, sp[1] - k[1] + 1];
  const inputs = [T(r, 'x', t, [N, C, ...sp]), T(r, 'w', t, [M, C, ...k]),
    T(r, 'off', t, [N, 2 * k[0] * k[1], ...out], { range: [-1.5, 1.5] })];
  if (r.p(0.5)) inputs.push(T(r, 'b', t, [M])); else if (r.p(0.5)) inputs.push(null);
  if (r.p(0.5)) { if (inputs.length === 3) inputs.push(null); inputs.push(T(r, 'mask', t, [N, k[0] * k[1], ...out], { range: [0, 1] })); }
  return { inputs, attrs: r.p(0.5) ? { kernel_shape: k } : {}, outputs: [['y', t]] };
});
const ML = 'ai.onnx.ml';
function mlAdd(op, v, gen) { add(op, v, (r, ver) => Object.assign({ domain: ML, opsets: { '': r.int(18, 23) } }, gen(r, ver)), { ml: true }); }
mlAdd('Binarizer', [1], (r) => {
  const t = r.pick(['float', 'double', 'int64', 'int32']);
  return { inputs: [T(r, 'x', t, r.shape(1, 3))], attrs: r.p(0.5) ? { threshold: 0.25 } : {}, outputs: [['y', t]] };
});
mlAdd('Scaler', [1], (r) => {
  const t = r.pick(['float', 'double', 'int64', 'int32']);
  const c = r.int(1, 4);
  const attrs = {};
  const one1 = r.p(0.3);
  attrs.offset = ['floats', one1 ? [0.5] : Array.from({ length: c }, () => r.int(-4, 4) / 2)];
  attrs.scale = ['floats', one1 ? [1.5] : Array.from({ length: c }, () => r.int(-4, 4) / 2 + 0.25)];
  return { inputs: [T(r, 'x', t, [r.int(1, 3), c])], attrs, outputs: [['y', 'float']] };
});
mlAdd('Normalizer', [1], (r) => {
  const t = r.pick(['float', 'double', 'int64', 'int32']);
  return { inputs: [T(r, 'x', t, r.p(0.3) ? [r.int(1, 4)] : [r.int(1, 3), r.int(1, 4)])], attrs: { norm: r.pick(['MAX', 'L1', 'L2']) }, outputs: [['y', 'float']] };
});
mlAdd('LinearRegressor', [1], (r) => {
  const t = r.pick(['float', 'double', 'int64', 'int32']);
  const c = r.int(1, 3), tg = r.int(1, 2);
  const attrs = { coefficients: ['floats', Array.from({ length: c * tg }, () => r.int(-6, 6) / 4 + 0.1)], targets: tg };
  if (r.p(0.6)) attrs.intercepts = ['floats', Array.from({ length: tg }, () => r.int(-4, 4) / 2)];
  if (r.p(0.3)) attrs.post_transform = 'NONE';
  return { inputs: [T(r, 'x', t, [r.int(1, 3), c])], attrs, outputs: [['y', 'float']] };
});
mlAdd('ArrayFeatureExtractor', [1], (r) => {
  const t = r.pick(['float', 'double', 'int64', 'int32', 'string']);
  const s = r.shape(1, 3);
  const last = s[s.length - 1];
  const idx = Array.from({ length: r.int(1, 3) }, () => r.int(0, last - 1));
  const x = t === 'string' ? S(r, 'x', s) : T(r, 'x', t, s);
  return { inputs: [x, I64('i', idx, [idx.length], r.p(0.5))], outputs: [['y', t]] };
});
mlAdd('Imputer', [1], (r) => {
  const t = r.pick(['float', 'int64']);
  const c = r.int(1, 3);
  const fl = t === 'float';
  const x = T(r, 'x', t, [r.int(1, 3), c], { special: fl, irange: [-1, 3] });
  const attrs = fl ? { imputed_value_floats: ['floats', r.p(0.5) ? [9.5] : Array.from({ length: c }, (_, i) => i + 0.5)], replaced_value_float: ['float', 0] }
    : { imputed_value_int64s: r.p(0.5) ? [7] : Array.from({ length: c }, (_, i) => 10 + i), replaced_value_int64: -1 };
  if (fl && r.p(0.5)) attrs.replaced_value_float = ['float', NaN];
  return { inputs: [x], attrs, outputs: [['y', t]] };
});
mlAdd('LabelEncoder', [2, 4], (r, ver) => {
  const kind = r.pick(['s2i', 'i2s', 'f2f', 'i2f']);
  const n = r.int(1, 4);
  const keysI = r.shuffle([0, 1, 2, 3, 4, 5]).slice(0, n), keysS = r.shuffle(['a', 'kiln', '', 'b c', 'ONNX']).slice(0, n);
  const attrs = {};
  let x, ot;
  if (kind === 's2i') { attrs.keys_strings = keysS; attrs.values_int64s = keysI; x = S(r, 'x', r.shape(1, 2)); ot = 'int64'; if (r.p(0.5)) attrs.default_int64 = -7; }
  if (kind === 'i2s') { attrs.keys_int64s = keysI; attrs.values_strings = keysS; x = T(r, 'x', 'int64', r.shape(1, 2), { irange: [0, 6] }); ot = 'string'; if (r.p(0.5)) attrs.default_string = 'none'; }
  if (kind === 'f2f') { attrs.keys_floats = ['floats', keysI.map((k) => k / 2)]; attrs.values_floats = ['floats', keysI.map((k) => k * 3 + 0.5)]; x = T(r, 'x', 'float', r.shape(1, 2), { data: undefined }); x.data = x.data.map(() => r.int(0, 6) / 2); ot = 'float'; if (r.p(0.5)) attrs.default_float = -2.5; }
  if (kind === 'i2f') { attrs.keys_int64s = keysI; attrs.values_floats = ['floats', keysI.map((k) => k + 0.25)]; x = T(r, 'x', 'int64', r.shape(1, 2), { irange: [0, 6] }); ot = 'float'; }
  if (kind === 'f2f' && ver < 2) return null;
  return { inputs: [x], attrs, outputs: [['y', ot]] };
});
mlAdd('OneHotEncoder', [1], (r) => {
  const ints = r.p(0.5);
  const cats = ints ? [1, 3, 5] : ['a', 'kiln', 'b c'];
  const attrs = ints ? { cats_int64s: cats } : { cats_strings: cats };
  if (r.p(0.5)) attrs.zeros = 1;
  const s = r.shape(1, 2);
  const x = ints ? T(r, 'x', 'int64', s, { data: Array.from({ length: numel(s) }, () => r.pick([1, 3, 5, ...(attrs.zeros ? [2] : [])])) })
    : { name: 'x', type: 'string', dims: s, data: Array.from({ length: numel(s) }, () => r.pick([...cats, ...(attrs.zeros ? ['zz'] : [])])) };
  return { inputs: [x], attrs, outputs: [['y', 'float']] };
});

// ---------------------------------------------------------------- runner
function versionAt(v, opset) {
  let ver = null;
  for (const x of v) if (x <= opset) ver = x;
  return ver;
}

function args() {
  const o = { kiln: 'build/kiln', perOp: 16, seed: '1', filter: null, jobs: 2, keep: null };
  const a = process.argv.slice(2);
  for (let i = 0; i < a.length; i++) {
    const k = a[i], v = a[i + 1];
    if (k === '--kiln') o.kiln = v;
    else if (k === '--per-op') o.perOp = Number(v);
    else if (k === '--seed') o.seed = v;
    else if (k === '--filter') o.filter = new RegExp(v);
    else if (k === '--jobs') o.jobs = Number(v);
    else if (k === '--keep') o.keep = v;
    else throw new Error('unknown argument ' + k);
    i++;
  }
  return o;
}

function writeCase(dir, c, outputs) {
  const ds = path.join(dir, 'test_data_set_0');
  fs.mkdirSync(ds, { recursive: true });
  fs.writeFileSync(path.join(dir, 'model.onnx'), Buffer.from(c.modelBytes));
  c.feeds.forEach((inp, i) => fs.writeFileSync(path.join(ds, `input_${i}.pb`), b.encodeTensor(inp.name, inp.type, inp.dims, inp.data)));
  c.outputNames.forEach((n, i) => fs.writeFileSync(path.join(ds, `output_${i}.pb`), ortOutputProto(n, outputs[n])));
}

function runKiln(kiln, dir) {
  return new Promise((resolve) => {
    execFile(kiln, ['run', path.join(dir, 'model.onnx'), '--input-bundle', path.join(dir, 'test_data_set_0'),
      '--assert-output-bundle', path.join(dir, 'test_data_set_0'), '-q'], { timeout: 60000 },
    (err, stdout, stderr) => resolve({ ok: !err, text: (stdout + stderr).trim().split('\n').slice(0, 4).join(' | ') }));
  });
}

async function main() {
  const o = args();
  ort.env.logLevel = 'error';
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kiln-fuzz-'));
  const opts = { intraOpNumThreads: 1, interOpNumThreads: 1, executionMode: 'sequential', logSeverityLevel: 4 };
  const stats = new Map();
  const failures = [];
  const pending = new Set();
  let n = 0;
  for (const entry of OPS) {
    const minOpset = Math.max(entry.min || 18, 18);
    for (let i = 0; i < o.perOp; i++) {
      const r = R(`${o.seed}/${entry.op}${entry.tag || ''}/${i}`);
      const opset = entry.ml ? r.int(entry.v[0], 5) : r.int(Math.max(minOpset, entry.v[0]), 25);
      const ver = versionAt(entry.v, opset);
      const key = `${entry.op}_${ver}`;
      if (o.filter && !o.filter.test(key)) continue;
      if (!stats.has(key)) stats.set(key, { pass: 0, fail: 0, skip: 0 });
      const st = stats.get(key);
      let spec;
      try {
        spec = entry.gen(r, ver);
      } catch (e) {
        st.skip++;
        if (process.env.FUZZ_VERBOSE) console.log(`generator error ${key}: ${e.message}`);
        continue;
      }
      const name = `${key}${entry.tag ? '_' + entry.tag : ''}_s${o.seed}_${i}`;
      if (!spec) { st.skip++; continue; }
      let outputs, c;
      try {
        c = buildCase(Object.assign({ name, op: entry.op, opset }, spec));
        const feeds = {};
        for (const f of c.feeds) feeds[f.name] = ortInput(f);
        outputs = await (await ort.InferenceSession.create(Buffer.from(c.modelBytes), opts)).run(feeds);
      } catch (e) {
        st.skip++;
        if (process.env.FUZZ_VERBOSE) console.log(`skip ${name}: ${String(e.message || e).split('\n')[0].slice(0, 200)}`);
        continue;
      }
      const dir = path.join(tmp, name);
      try {
        writeCase(dir, c, outputs);
      } catch (e) {
        st.skip++;
        fs.rmSync(dir, { recursive: true, force: true });
        continue;
      }
      n++;
      const job = runKiln(o.kiln, dir).then((res) => {
        if (res.ok) st.pass++;
        else {
          st.fail++;
          failures.push(`${name} (opset ${opset}): ${res.text}`);
          if (o.keep) fs.cpSync(dir, path.join(o.keep, name), { recursive: true });
        }
        fs.rmSync(dir, { recursive: true, force: true });
      });
      pending.add(job);
      job.then(() => pending.delete(job));
      if (pending.size >= o.jobs) await Promise.race(pending);
    }
  }
  await Promise.all(pending);
  fs.rmSync(tmp, { recursive: true, force: true });
  let pass = 0, fail = 0, skip = 0;
  console.log('op_version pass/run (skipped: ONNX Runtime rejects)');
  for (const k of [...stats.keys()].sort()) {
    const s = stats.get(k);
    pass += s.pass; fail += s.fail; skip += s.skip;
    console.log(`${k} ${s.pass}/${s.pass + s.fail}${s.skip ? ` (${s.skip} skipped)` : ''}${s.fail ? '  <-- FAIL' : ''}`);
  }
  console.log('\nFailures:');
  for (const f of failures.sort()) console.log('  ' + f);
  console.log(`\n${stats.size} op versions, ${n} cases run: ${pass} pass, ${fail} fail ` +
    `(${(100 * pass / Math.max(1, n)).toFixed(2)}%), ${skip} skipped`);
}

main().catch((e) => { console.error(e && e.stack || e); process.exit(1); });
