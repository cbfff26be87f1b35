'use strict';
// Cast / CastLike 19, 21, 23, 24, 25: the narrow types (float8 with and without saturation,
// int4/uint4, float4e2m1, float8e8m0, int2/uint2), narrow initializers read from raw_data and
// typed fields.
const b = require('./onnx_builder');

// float32 values that exercise rounding, saturation and the special values of every format.
const SPECIAL = [0, -0, 1, -1, 0.5, 1.0625, 1.125, 1.1875, 3.5, 6, 7, -7, 13, 240, 250, 448, 464,
  470, 500, -500, 57344, 61440, 65536, 1e6, -1e6, 1e-3, 2e-3, 0.015625, 0.0078125, 1e-5, -1e-5,
  Infinity, -Infinity, NaN, 0.1, 0.3, -2.75, 100.5, 0.25, 0.75, 1.25, 1.75, 2.5, 5, -5.5];

function castThrough(name, opset, to, attrs, inputs = SPECIAL, back = 'float') {
  return {
    name, op: 'Cast', opset,
    inputs: [{ name: 'x', type: 'float', dims: [inputs.length], data: inputs }],
    nodes: [b.node('Cast', ['x'], ['n'], Object.assign({ to: b.DT[to] }, attrs)),
      b.node('Cast', ['n'], ['y'], { to: b.DT[back] })],
    outputs: [['y', back]],
  };
}

function cases() {
  const out = [];
  const f8 = ['float8e4m3fn', 'float8e4m3fnuz', 'float8e5m2', 'float8e5m2fnuz'];
  for (const opset of [19, 21, 23, 24, 25]) {
    for (const t of f8) {
      out.push(castThrough(`Cast_${opset}_float_to_${t}`, opset, t, {}));
      out.push(castThrough(`Cast_${opset}_float_to_${t}_nosat`, opset, t, { saturate: 0 }));
    }
  }
  for (const opset of [21, 23, 25]) {
    for (const t of ['int4', 'uint4']) {
      out.push(castThrough(`Cast_${opset}_float_to_${t}`, opset, t, {},
        [0, 1, -1, 2.5, 3.5, -2.5, 7, 7.6, 8, -8, -9, 15, 16, 100, -100, 0.5, 1.5, -0.5]));
      out.push({
        name: `Cast_${opset}_int32_to_${t}`, op: 'Cast', opset,
        inputs: [{ name: 'x', type: 'int32', dims: [12], data: [0, 1, -1, 7, 8, -8, -9, 15, 16, 17, 200, -56] }],
        nodes: [b.node('Cast', ['x'], ['n'], { to: b.DT[t] }), b.node('Cast', ['n'], ['y'], { to: b.DT.int32 })],
        outputs: [['y', 'int32']],
      });
    }
  }
  for (const opset of [23, 25]) out.push(castThrough(`Cast_${opset}_float_to_float4e2m1`, opset, 'float4e2m1', {}));
  for (const opset of [24, 25]) {
    for (const [mode, sat] of [['up', 1], ['down', 1], ['nearest', 1], ['up', 0], ['nearest', 0]]) {
      out.push(castThrough(`Cast_${opset}_float_to_float8e8m0_${mode}${sat ? '' : '_nosat'}`, opset,
        'float8e8m0', opset >= 25 ? { round_mode: mode, saturate: sat } : { saturate: sat },
        [1, 2, 3, 0.75, 1.5, 1.4, 6, 1e-3, 1e30, 3e38, 1.2e-38, 0, Infinity, NaN]));
    }
  }
  for (const t of ['int2', 'uint2']) {
    out.push({
      name: `Cast_25_int32_to_${t}`, op: 'Cast', opset: 25,
      inputs: [{ name: 'x', type: 'int32', dims: [9], data: [0, 1, -1, 2, -2, 3, 4, -3, 5] }],
      nodes: [b.node('Cast', ['x'], ['n'], { to: b.DT[t] }), b.node('Cast', ['n'], ['y'], { to: b.DT.int32 })],
      outputs: [['y', 'int32']],
    });
  }
  // Narrow -> wider types: f8 -> float16 / double / int32 / bool / string.
  for (const back of ['float16', 'double', 'int32', 'bool', 'int8']) {
    out.push(castThrough(`Cast_19_e4m3fn_to_${back}`, 19, 'float8e4m3fn', {},
      [0, 1, -1, 2.5, 3.5, -2.5, 7, 13, 100, -100, 0.5, 1.5], back));
  }
  // CastLike with saturate.
  for (const sat of [1, 0]) {
    out.push({
      name: `CastLike_19_e5m2_sat${sat}`, op: 'CastLike', opset: 19,
      inputs: [{ name: 'x', type: 'float', dims: [SPECIAL.length], data: SPECIAL }],
      initializers: [b.tensor('like', 'float8e5m2', [1], [0])],
      nodes: [b.node('CastLike', ['x', 'like'], ['n'], { saturate: sat }), b.node('Cast', ['n'], ['y'], { to: b.DT.float })],
      outputs: [['y', 'float']],
    });
  }
  // Narrow initializers read by kiln's TensorProto code (raw_data packed; odd counts).
  const inits = [
    ['float8e4m3fn', [5], [0x00, 0x38, 0xb8, 0x7e, 0x7f]],
    ['float8e4m3fnuz', [4], [0x00, 0x40, 0xc0, 0x7f]],
    ['float8e5m2', [5], [0x3c, 0xbc, 0x7b, 0x7c, 0xfc]],
    ['float8e5m2fnuz', [4], [0x40, 0xc0, 0x7f, 0x01]],
    ['int4', [2, 3], [-8, -1, 0, 1, 7, 3]],
    ['uint4', [5], [0, 1, 8, 15, 9]],
    ['float4e2m1', [7], [0x0, 0x1, 0x3, 0x7, 0x8, 0xb, 0xf]],
  ];
  for (const [t, dims, values] of inits) {
    const opset = t.startsWith('float4') ? 23 : t.endsWith('int4') ? 21 : 19;
    out.push({
      name: `Cast_${opset}_initializer_${t}`, op: 'Cast', opset,
      inputs: [],
      initializers: [b.tensor('w', t, dims, values)],
      nodes: [b.node('Cast', ['w'], ['y'], { to: b.DT.float })],
      outputs: [['y', 'float']],
    });
  }
  return out;
}

module.exports = { cases };
