'use strict';
// A case of the suite, from its declarative spec to the model bytes and the input tensors.
//
// spec: {
//   name, op, opset, domain ('' = ai.onnx), attrs: {name: value},
//   inputs: [{name, type, dims, data?, gen?, constant?}, null (an absent optional input), ...],
//   outputs: [[name, type], ...] (or [name, type, dims]),
//   nodes?: [node, ...] (replaces the single node: composite cases), opsets?: {domain: version},
//   initializers?: [tensor, ...] (extra constants for composite cases)
//   reference?: {opset?, nodes?}: what ONNX Runtime runs instead when it has no kernel for the
//     case's version but the spec defines it by an older one (e.g. version 22 of an op that only
//     added bfloat16: the same node at opset 21), or by other ops (RNN layout=1 is layout=0
//     between Transposes). kiln runs the case's model; the expected values stay ONNX Runtime's.
// }
// Inputs without `data` get deterministic values: floats uniform in gen = [lo, hi] (default
// [-1, 1]), integers in gen = [lo, hi] (default [0, 9]), bools at random, strings from gen
// (an array to pick from). `constant: true` makes an input an initializer instead of a graph
// input.
const b = require('./onnx_builder');

const FLOATS = new Set(['float', 'double', 'float16', 'bfloat16']);

function fill(spec, inp, r) {
  if (inp.data !== undefined) return inp.data;
  const n = b.numel(inp.dims);
  if (typeof inp.gen === 'function') return inp.gen(r, n);
  if (FLOATS.has(inp.type)) {
    const [lo, hi] = inp.gen || [-1, 1];
    const v = r.uniform(n, lo, hi);
    // Keep values exactly representable in the input type (float16 rounds in the encoder).
    return inp.type === 'float' ? Array.from(new Float32Array(v)) : v;
  }
  if (inp.type === 'bool') return r.ints(n, 0, 1).map((x) => x === 1);
  if (inp.type === 'string') {
    const words = inp.gen || ['a', 'bb', 'ccc'];
    return r.ints(n, 0, words.length - 1).map((i) => words[i]);
  }
  const [lo, hi] = inp.gen || [0, 9];
  return r.ints(n, lo, hi);
}

function buildCase(spec) {
  const r = b.rng(spec.name);
  const domain = spec.domain || '';
  const opsets = Object.assign({ '': domain ? 21 : spec.opset }, spec.opsets || {});
  if (domain) opsets[domain] = spec.opset;
  const graphInputs = [], initializers = [...(spec.initializers || [])], feeds = [];
  const nodeInputs = [];
  for (const inp of spec.inputs || []) {
    if (!inp) { nodeInputs.push(''); continue; }
    nodeInputs.push(inp.name);
    const data = fill(spec, inp, r);
    if (inp.constant) {
      initializers.push(b.tensor(inp.name, inp.type, inp.dims, data));
    } else {
      graphInputs.push(b.valueInfo(inp.name, inp.type, inp.dims));
      feeds.push({ name: inp.name, type: inp.type, dims: inp.dims, data });
    }
  }
  while (nodeInputs.length && nodeInputs[nodeInputs.length - 1] === '') nodeInputs.pop();
  const outputs = spec.outputs.map((o) => (Array.isArray(o) ? o : [o, 'float']));
  const nodes = spec.nodes ||
    [b.node(spec.op, nodeInputs, spec.nodeOutputs || outputs.map((o) => o[0]), spec.attrs || {}, domain)];
  const graph = {
    nodes, initializers,
    inputs: graphInputs,
    outputs: outputs.map(([name, type, dims]) => b.valueInfo(name, type, dims)),
  };
  let refModelBytes = null;
  if (spec.reference) {
    const refOpsets = Object.assign({}, opsets);
    if (spec.reference.opset) refOpsets[domain] = spec.reference.opset;
    refModelBytes = b.model(Object.assign({}, graph, { nodes: spec.reference.nodes || nodes }), refOpsets);
  }
  return {
    name: spec.name, op: spec.op, domain: domain || 'ai.onnx', opset: spec.opset,
    modelBytes: b.model(graph, opsets), refModelBytes, feeds, outputNames: outputs.map((o) => o[0]),
  };
}

module.exports = { buildCase };
