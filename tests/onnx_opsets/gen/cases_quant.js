'use strict';
// QuantizeLinear / DequantizeLinear 19, 21, 23, 24, 25: float8 (saturating or not), int4 /
// uint4 / int16 / uint16 / int2 / uint2, per tensor, per axis and blocked, output_dtype,
// precision; QLinearMatMul-21. Narrow outputs come back as float through DequantizeLinear or
// Cast.
const b = require('./onnx_builder');
const { f, one } = require('./case_util');

const scalar = (name, type, v) => ({ name, type, dims: [], data: [v], constant: true });
const vec = (name, type, dims, data) => ({ name, type, dims, data, constant: true });

// x -> QuantizeLinear(scale, zp) -> Cast(back): the quantized values as float / int32.
function quant(name, opset, zpType, scale, zp, attrs = {}, x = f('x', [3, 8], { gen: [-20, 20] }), back = 'float') {
  const inits = [b.tensor('s', 'float', scale.dims, scale.data)];
  const qin = ['x', 's'];
  if (zp) { inits.push(b.tensor('zp', zpType, zp.dims, zp.data)); qin.push('zp'); }
  return {
    name, op: 'QuantizeLinear', opset, inputs: [x], initializers: inits,
    nodes: [b.node('QuantizeLinear', qin, ['q'], attrs), b.node('Cast', ['q'], ['y'], { to: b.DT[back] })],
    outputs: [['y', back]],
  };
}

// An initializer of `type` -> DequantizeLinear(scale, zp) -> y.
function dequant(name, opset, type, dims, values, scale, zp, attrs = {}) {
  const inits = [b.tensor('q', type, dims, values), b.tensor('s', 'float', scale.dims, scale.data)];
  const din = ['q', 's'];
  if (zp) { inits.push(b.tensor('zp', type, zp.dims, zp.data)); din.push('zp'); }
  return {
    name, op: 'DequantizeLinear', opset, inputs: [f('x', [1])], initializers: inits,
    nodes: [b.node('DequantizeLinear', din, ['d'], attrs), b.node('Add', ['d', 'x'], ['y'])],
    outputs: [['y', 'float']],
  };
}

function cases() {
  const out = [];
  const s1 = { dims: [], data: [0.37] };
  for (const opset of [19, 21, 23, 24, 25]) {
    for (const t of ['float8e4m3fn', 'float8e5m2', 'float8e4m3fnuz', 'float8e5m2fnuz']) {
      for (const sat of [1, 0]) {
        out.push(quant(`QuantizeLinear_${opset}_${t}_sat${sat}`, opset, t, { dims: [], data: [0.01] },
          { dims: [], data: [0] }, { saturate: sat }, f('x', [12], { data: [0, 1, -1, 2.3, 4.48, 5, 600, -600, 1e9, 0.0001, -3.33, 4.4] })));
      }
    }
    out.push(quant(`QuantizeLinear_${opset}_uint8_axis`, opset, 'uint8', { dims: [8], data: [0.1, 0.2, 0.3, 0.4, 0.5, 0.25, 0.125, 1] },
      { dims: [8], data: [0, 10, 128, 255, 3, 7, 100, 50] }, { axis: -1 }));
    out.push(quant(`QuantizeLinear_${opset}_int8_ties`, opset, 'int8', { dims: [], data: [0.5] }, { dims: [], data: [-3] }, {},
      f('x', [8], { data: [0.25, 0.75, -0.25, -0.75, 1.25, 100, -100, 63.25] })));
  }
  for (const opset of [21, 23, 24, 25]) {
    for (const t of ['int4', 'uint4', 'int16', 'uint16']) {
      const zp = t === 'int4' ? [-1] : t === 'uint4' ? [3] : t === 'int16' ? [-100] : [1000];
      out.push(quant(`QuantizeLinear_${opset}_${t}`, opset, t, s1, { dims: [], data: zp }));
    }
    out.push(quant(`QuantizeLinear_${opset}_blocked_int8`, opset, 'int8', { dims: [3, 2], data: [0.1, 0.2, 0.3, 0.4, 0.5, 0.6] },
      { dims: [3, 2], data: [0, 1, -1, 2, -2, 3] }, { axis: 1, block_size: 4 }));
    out.push(quant(`QuantizeLinear_${opset}_blocked_uint4_axis0`, opset, 'uint4', { dims: [2, 8], data: Array.from({ length: 16 }, (_, i) => 1 + i / 4) },
      { dims: [2, 8], data: Array.from({ length: 16 }, (_, i) => i % 16) }, { axis: 0, block_size: 2 }));
    out.push(quant(`QuantizeLinear_${opset}_blocked_uneven`, opset, 'int8', { dims: [3, 3], data: [1, 2, 3, 4, 5, 6, 7, 8, 9].map((v) => v / 10) },
      null, { axis: 1, block_size: 3, output_dtype: b.DT.int8 }));
    out.push(quant(`QuantizeLinear_${opset}_output_dtype_int4`, opset, null, s1, null, { output_dtype: b.DT.int4 }));
  }
  for (const opset of [23, 24, 25]) {
    out.push({
      name: `QuantizeLinear_${opset}_precision_float16_scale`, op: 'QuantizeLinear', opset, inputs: [f('x', [6], { data: [1, 2.5, 3.3, -4.1, 100, 0.07] })],
      initializers: [b.tensor('s', 'float16', [], [0.3]), b.tensor('zp', 'int8', [], [1])],
      nodes: [b.node('QuantizeLinear', ['x', 's', 'zp'], ['q'], { precision: b.DT.float }), b.node('Cast', ['q'], ['y'], { to: b.DT.float })],
      outputs: [['y', 'float']],
    });
  }
  out.push(quant('QuantizeLinear_25_int2', 25, 'int2', s1, { dims: [], data: [0] }));
  out.push(quant('QuantizeLinear_25_uint2', 25, 'uint2', s1, { dims: [], data: [1] }));
  // DequantizeLinear.
  for (const opset of [19, 21, 23, 24, 25]) {
    out.push(dequant(`DequantizeLinear_${opset}_float8e4m3fn`, opset, 'float8e4m3fn', [6], [0x00, 0x38, 0xb8, 0x7e, 0x40, 0x01], s1, null));
    out.push(dequant(`DequantizeLinear_${opset}_float8e5m2_zp`, opset, 'float8e5m2', [4], [0x3c, 0xbc, 0x7b, 0x10], s1, { dims: [], data: [0] }));
    out.push(dequant(`DequantizeLinear_${opset}_uint8_axis`, opset, 'uint8', [2, 3], [0, 100, 200, 255, 7, 9], { dims: [3], data: [0.5, 1, 2] },
      { dims: [3], data: [1, 2, 3] }, { axis: 1 }));
  }
  for (const opset of [21, 23, 24, 25]) {
    out.push(dequant(`DequantizeLinear_${opset}_int4`, opset, 'int4', [5], [-8, -1, 0, 3, 7], s1, { dims: [], data: [1] }));
    out.push(dequant(`DequantizeLinear_${opset}_uint4_axis`, opset, 'uint4', [3, 3], [0, 1, 2, 13, 14, 15, 7, 8, 9], { dims: [3], data: [1, 2, 4] },
      { dims: [3], data: [8, 8, 0] }, { axis: 0 }));
    out.push(dequant(`DequantizeLinear_${opset}_int16`, opset, 'int16', [4], [-32768, -1, 1000, 32767], s1, { dims: [], data: [-5] }));
    out.push(dequant(`DequantizeLinear_${opset}_uint16`, opset, 'uint16', [3], [0, 1000, 65535], s1, { dims: [], data: [7] }));
    out.push(dequant(`DequantizeLinear_${opset}_blocked`, opset, 'int8', [2, 6], [1, 2, 3, 4, 5, 6, -1, -2, -3, -4, -5, -6],
      { dims: [2, 2], data: [0.1, 0.2, 0.3, 0.4] }, { dims: [2, 2], data: [0, 1, 2, 3] }, { axis: 1, block_size: 3 }));
    out.push(dequant(`DequantizeLinear_${opset}_blocked_int4_axis0`, opset, 'int4', [5, 2], [1, 2, 3, 4, 5, 6, 7, -8, -7, -6],
      { dims: [2, 2], data: [0.5, 1, 2, 4] }, null, { axis: 0, block_size: 3 }));
  }
  for (const opset of [23, 24, 25]) {
    out.push({
      name: `DequantizeLinear_${opset}_output_dtype_float16`, op: 'DequantizeLinear', opset, inputs: [f('x', [1])],
      initializers: [b.tensor('q', 'int8', [4], [1, -2, 100, -128]), b.tensor('s', 'float', [], [0.25])],
      nodes: [b.node('DequantizeLinear', ['q', 's'], ['d'], { output_dtype: b.DT.float16 }), b.node('Cast', ['d'], ['y'], { to: b.DT.float })],
      outputs: [['y', 'float']],
    });
  }
  out.push(dequant('DequantizeLinear_25_int2', 25, 'int2', [5], [-2, -1, 0, 1, 1], s1, { dims: [], data: [1] }));
  // QLinearMatMul-21.
  out.push(one('QLinearMatMul_21_uint8', 'QLinearMatMul', 21, [
    { name: 'a', type: 'uint8', dims: [2, 3], gen: [0, 255] }, scalar('as', 'float', 0.02), scalar('az', 'uint8', 120),
    { name: 'b', type: 'uint8', dims: [3, 4], gen: [0, 255] }, scalar('bs', 'float', 0.03), scalar('bz', 'uint8', 130),
    scalar('ys', 'float', 0.1), scalar('yz', 'uint8', 128)], {}, [['y', 'uint8']]));
  out.push(one('QLinearMatMul_21_int8_per_column', 'QLinearMatMul', 21, [
    { name: 'a', type: 'int8', dims: [2, 2, 3], gen: [-128, 127] }, scalar('as', 'float', 0.05), scalar('az', 'int8', 1),
    { name: 'b', type: 'int8', dims: [3, 2], gen: [-128, 127] }, vec('bs', 'float', [2], [0.01, 0.02]), vec('bz', 'int8', [2], [0, 0]),
    scalar('ys', 'float', 0.5), scalar('yz', 'int8', -3)], {}, [['y', 'int8']]));
  return out;
}

module.exports = { cases };
