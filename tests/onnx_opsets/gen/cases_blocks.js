'use strict';
// Composite cases: the opset-23 operators together as a 2026 decoder export uses them, so the
// single-operator cases' ops are also checked after kiln's passes (folding the int4 weights'
// DequantizeLinear, packing the MatMuls) and with each other's outputs as inputs:
// RMSNormalization -> MatMul with int4 weights (blocked DequantizeLinear-23) ->
// RotaryEmbedding (3-D, position_ids) -> Attention (3-D, GQA, causal, past/present KV) ->
// MatMul -> residual Add.
const b = require('./onnx_builder');
const { f, i64 } = require('./case_util');

// A [k, n] int4 weight quantized in blocks of `block` rows (axis 0), with its per-block scales
// and zero points, as initializers named `${w}_q`, `${w}_s`, `${w}_zp`.
function int4Weight(r, w, k, n, block) {
  const blocks = Math.ceil(k / block);
  return [
    b.tensor(`${w}_q`, 'int4', [k, n], r.ints(k * n, -8, 7)),
    b.tensor(`${w}_s`, 'float', [blocks, n], Array.from(new Float32Array(r.uniform(blocks * n, 0.02, 0.08)))),
    b.tensor(`${w}_zp`, 'int4', [blocks, n], r.ints(blocks * n, -2, 2)),
  ];
}

function decoder(name, o) {
  const r = b.rng(name);
  const hidden = o.qh * o.d, kvHidden = o.kh * o.d, half = o.d / 2, maxPos = o.past + o.seq + 2;
  const dq = (w) => b.node('DequantizeLinear', [`${w}_q`, `${w}_s`, `${w}_zp`], [w], { axis: 0, block_size: o.block });
  const initializers = [
    b.tensor('rms_scale', 'float', [hidden], Array.from(new Float32Array(r.uniform(hidden, 0.5, 1.5)))),
    ...int4Weight(r, 'wq', hidden, hidden, o.block),
    ...int4Weight(r, 'wk', hidden, kvHidden, o.block),
    ...int4Weight(r, 'wv', hidden, kvHidden, o.block),
    b.tensor('wo', 'float', [hidden, hidden], Array.from(new Float32Array(r.uniform(hidden * hidden, -0.3, 0.3)))),
    b.tensor('cos', 'float', [maxPos, half], Array.from({ length: maxPos * half }, (_, i) => Math.fround(Math.cos((i / half | 0) / (1 + i % half))))),
    b.tensor('sin', 'float', [maxPos, half], Array.from({ length: maxPos * half }, (_, i) => Math.fround(Math.sin((i / half | 0) / (1 + i % half))))),
  ];
  const positions = [];
  for (let bi = 0; bi < o.batch; bi++) for (let t = 0; t < o.seq; t++) positions.push(o.past + t);
  const nodes = [
    b.node('RMSNormalization', ['x', 'rms_scale'], ['xn'], { axis: -1, epsilon: ['float', 1e-5] }),
    dq('wq'), dq('wk'), dq('wv'),
    b.node('MatMul', ['xn', 'wq'], ['q']),
    b.node('MatMul', ['xn', 'wk'], ['k']),
    b.node('MatMul', ['xn', 'wv'], ['v']),
    b.node('RotaryEmbedding', ['q', 'cos', 'sin', 'pos'], ['qr'], { num_heads: o.qh, interleaved: o.interleaved }),
    b.node('RotaryEmbedding', ['k', 'cos', 'sin', 'pos'], ['kr'], { num_heads: o.kh, interleaved: o.interleaved }),
    b.node('Attention', ['qr', 'kr', 'v', '', 'past_key', 'past_value'], ['attn', 'present_key', 'present_value'],
      { q_num_heads: o.qh, kv_num_heads: o.kh, is_causal: 1 }),
    b.node('MatMul', ['attn', 'wo'], ['proj']),
    b.node('Add', ['x', 'proj'], ['y']),
  ];
  return {
    name, op: 'Attention', opset: 23,
    inputs: [f('x', [o.batch, o.seq, hidden]), f('past_key', [o.batch, o.kh, o.past, o.d]),
      f('past_value', [o.batch, o.kh, o.past, o.d]), i64('pos', [o.batch, o.seq], positions)],
    initializers, nodes,
    outputs: [['y', 'float'], ['present_key', 'float'], ['present_value', 'float']],
  };
}

function cases() {
  return [
    decoder('Block_23_decoder_int4_gqa_rope', { batch: 1, seq: 5, past: 3, qh: 4, kh: 2, d: 4, block: 8, interleaved: 0 }),
    decoder('Block_23_decoder_int4_mqa_rope_interleaved_b2', { batch: 2, seq: 3, past: 2, qh: 3, kh: 1, d: 6, block: 6, interleaved: 1 }),
  ];
}

module.exports = { cases };
