'use strict';
// Attention-23/24/25 (MHA, GQA, MQA, 3-D and 4-D inputs, causal, boolean and additive masks,
// softcap, scale, past/present KV, qk_matmul_output modes, nonpad_kv_seqlen, sliding windows)
// and RotaryEmbedding-23 (3-D / 4-D, interleaved, partial rotation, position_ids or not).
const { f, i64, one } = require('./case_util');

function attention(name, opset, o) {
  const qh = o.qh || 2, kh = o.kh || qh, b = o.b || 2, sq = o.sq || 3, skv = o.skv || sq, d = o.d || 4, dv = o.dv || d;
  const threeD = !!o.threeD;
  const q = threeD ? f('Q', [b, sq, qh * d]) : f('Q', [b, qh, sq, d]);
  const k = threeD ? f('K', [b, skv, kh * d]) : f('K', [b, kh, skv, d]);
  const v = threeD ? f('V', [b, skv, kh * dv]) : f('V', [b, kh, skv, dv]);
  const inputs = [q, k, v];
  const past = o.past || 0;
  if (o.mask) inputs.push(o.mask);
  else if (past || o.nonpad) inputs.push(null);
  if (past) {
    inputs.push(f('past_key', [b, kh, past, d]), f('past_value', [b, kh, past, dv]));
  } else if (o.nonpad) {
    inputs.push(null, null);
  }
  if (o.nonpad) inputs.push(i64('nonpad', [b], o.nonpad));
  const attrs = Object.assign({}, o.attrs || {});
  if (threeD) Object.assign(attrs, { q_num_heads: qh, kv_num_heads: kh });
  const outputs = [['Y', 'float']];
  if (past || o.present) outputs.push(['present_key', 'float'], ['present_value', 'float']);
  if (o.qk !== undefined) {
    if (outputs.length === 1) outputs.push(['', 'float'], ['', 'float']);
    outputs.push(['qk', 'float']);
    attrs.qk_matmul_output_mode = o.qk;
  }
  const named = outputs.filter((x) => x[0]);
  const spec = one(name, 'Attention', opset, inputs, attrs, named);
  spec.nodeOutputs = outputs.map((x) => x[0]);
  return spec;
}

function attentionCases() {
  const out = [];
  const boolMask = (dims) => ({ name: 'mask', type: 'bool', dims, gen: (r, n) => Array.from({ length: n }, (_, i) => i % 5 !== 3) });
  for (const opset of [23, 24, 25]) {
    out.push(attention(`Attention_${opset}_mha_4d`, opset, {}));
    out.push(attention(`Attention_${opset}_mha_3d`, opset, { threeD: true }));
    out.push(attention(`Attention_${opset}_gqa_4d`, opset, { qh: 4, kh: 2 }));
    out.push(attention(`Attention_${opset}_mqa_3d`, opset, { qh: 3, kh: 1, threeD: true }));
    out.push(attention(`Attention_${opset}_cross_dv`, opset, { sq: 2, skv: 5, d: 4, dv: 3 }));
    out.push(attention(`Attention_${opset}_causal`, opset, { sq: 4, attrs: { is_causal: 1 } }));
    out.push(attention(`Attention_${opset}_causal_cross`, opset, { sq: 3, skv: 5, attrs: { is_causal: 1 } }));
    out.push(attention(`Attention_${opset}_scale_softcap`, opset, { attrs: { scale: 0.7, softcap: ['float', 2.0] } }));
    out.push(attention(`Attention_${opset}_float_mask`, opset, { mask: f('mask', [3, 3], { gen: [-2, 1] }) }));
    out.push(attention(`Attention_${opset}_float_mask_4d`, opset, { mask: f('mask', [2, 1, 3, 3], { gen: [-2, 1] }) }));
    out.push(attention(`Attention_${opset}_bool_mask`, opset, { mask: boolMask([2, 2, 3, 3]) }));
    out.push(attention(`Attention_${opset}_bool_mask_causal`, opset, { mask: boolMask([3, 3]), attrs: { is_causal: 1 } }));
    out.push(attention(`Attention_${opset}_short_mask`, opset, { skv: 4, mask: f('mask', [3, 2]) }));
    out.push(attention(`Attention_${opset}_past_kv`, opset, { sq: 2, past: 3 }));
    out.push(attention(`Attention_${opset}_past_kv_causal_gqa`, opset, { sq: 2, past: 3, qh: 4, kh: 2, attrs: { is_causal: 1 } }));
    out.push(attention(`Attention_${opset}_past_kv_3d_mask`, opset, { sq: 1, past: 4, threeD: true, mask: f('mask', [1, 5]) }));
    for (const mode of [0, 1, 2, 3]) {
      out.push(attention(`Attention_${opset}_qk_mode${mode}`, opset,
        { qk: mode, mask: f('mask', [3, 3]), attrs: { softcap: 1.5 } }));
    }
  }
  for (const opset of [24, 25]) {
    out.push(attention(`Attention_${opset}_nonpad`, opset, { sq: 2, skv: 5, nonpad: [3, 5] }));
    out.push(attention(`Attention_${opset}_nonpad_causal`, opset, { sq: 2, skv: 6, nonpad: [4, 6], attrs: { is_causal: 1 } }));
  }
  for (const [l, r] of [[2, 0], [1, 1], [0, -1], [-1, 2]]) {
    out.push(attention(`Attention_25_window_${l}_${r}`, 25, { sq: 4, skv: 6, attrs: { left_window_size: l, right_window_size: r } }));
  }
  out.push(attention('Attention_25_window_causal', 25, { sq: 4, attrs: { left_window_size: 1, is_causal: 1 } }));
  out.push(attention('Attention_23_double', 23, {}));
  out.spec = null;
  return out;
}

function rotaryCases() {
  const out = [];
  const cache = (name, dims) => f(name, dims, { gen: [-1, 1] });
  for (const interleaved of [0, 1]) {
    out.push(one(`RotaryEmbedding_23_4d_pos_i${interleaved}`, 'RotaryEmbedding', 23,
      [f('x', [2, 3, 4, 8]), cache('cos', [10, 4]), cache('sin', [10, 4]), i64('pos', [2, 4], [0, 1, 2, 3, 5, 6, 7, 9])],
      { interleaved }));
    out.push(one(`RotaryEmbedding_23_3d_pos_i${interleaved}`, 'RotaryEmbedding', 23,
      [f('x', [1, 3, 12]), cache('cos', [6, 3]), cache('sin', [6, 3]), i64('pos', [1, 3], [2, 0, 5])],
      { interleaved, num_heads: 2 }));
    out.push(one(`RotaryEmbedding_23_no_pos_i${interleaved}`, 'RotaryEmbedding', 23,
      [f('x', [2, 2, 3, 6]), cache('cos', [2, 3, 3]), cache('sin', [2, 3, 3])], { interleaved }));
    out.push(one(`RotaryEmbedding_23_partial_i${interleaved}`, 'RotaryEmbedding', 23,
      [f('x', [1, 2, 3, 8]), cache('cos', [4, 2]), cache('sin', [4, 2]), i64('pos', [1, 3], [0, 1, 3])],
      { interleaved, rotary_embedding_dim: 4 }));
  }
  out.push(one('RotaryEmbedding_23_3d_partial_no_pos', 'RotaryEmbedding', 23,
    [f('x', [2, 2, 12]), cache('cos', [2, 2, 2]), cache('sin', [2, 2, 2])], { num_heads: 3, rotary_embedding_dim: 4 }));
  return out;
}

function cases() {
  const a = attentionCases();
  // Attention_23_double: double inputs.
  const dbl = a.find((c) => c.name === 'Attention_23_double');
  dbl.inputs = dbl.inputs.map((x) => (x ? Object.assign({}, x, { type: 'double' }) : x));
  dbl.outputs = [['Y', 'double']];
  return [...a, ...rotaryCases()];
}

module.exports = { cases };
