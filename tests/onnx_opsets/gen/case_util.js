'use strict';
// Shorthands for the case families: one-op cases on float inputs, and cases that reach a type
// ONNX Runtime's JavaScript API cannot feed (bfloat16, float8, float4, int2...) through Casts.
const b = require('./onnx_builder');

const f = (name, dims, extra = {}) => Object.assign({ name, type: 'float', dims }, extra);
const i64 = (name, dims, data, extra = {}) => Object.assign({ name, type: 'int64', dims, data }, extra);
const c64 = (name, dims, data) => i64(name, dims, data, { constant: true });

// A case with one op on the given inputs and outputs (default: one float output 'y').
function one(name, op, opset, inputs, attrs = {}, outputs = [['y', 'float']], extra = {}) {
  return Object.assign({ name, op, opset, inputs, attrs, outputs }, extra);
}

// x (float) -> Cast(type) -> op(x, ...constants) -> Cast(float): runs `op` on `type` tensors.
// `others` are extra inputs of the op, given as initializers (tensor objects) or graph inputs.
function viaType(name, op, opset, type, dims, attrs = {}, opts = {}) {
  const nodes = [b.node('Cast', ['x'], ['xt'], { to: b.DT[type] })];
  const opInputs = ['xt', ...(opts.opInputs || [])];
  const outType = opts.outType || type;
  nodes.push(b.node(op, opInputs, ['yt'], attrs, opts.domain || ''));
  const back = opts.back || (outType === 'bool' || outType === 'int64' ? outType : 'float');
  if (outType === back) nodes.push(b.node('Identity', ['yt'], ['y']));
  else nodes.push(b.node('Cast', ['yt'], ['y'], { to: b.DT[back] }));
  return {
    name, op, opset,
    inputs: [Object.assign({ name: 'x', type: opts.inputType || 'float', dims }, opts.input || {}),
      ...(opts.graphInputs || [])],
    initializers: opts.initializers || [],
    nodes, outputs: [['y', back]],
  };
}

const NARROW = ['float8e4m3fn', 'float8e4m3fnuz', 'float8e5m2', 'float8e5m2fnuz', 'int4', 'uint4',
  'float4e2m1', 'float8e8m0', 'int2', 'uint2'];
// The opset that introduced a narrow type in the data-movement ops' type lists.
function opsetOfType(t) {
  if (t.startsWith('float8e') && t !== 'float8e8m0') return 19;
  if (t.endsWith('int4')) return 21;
  if (t === 'float4e2m1') return 23;
  if (t === 'float8e8m0') return 24;
  return 25;
}

module.exports = { f, i64, c64, one, viaType, NARROW, opsetOfType };
