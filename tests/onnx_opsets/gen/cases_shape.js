'use strict';
// Pad-18..25, Split-18, ScatterElements/ScatterND-18, CenterCropPad-18, TensorScatter-24, and
// the data-movement ops on the narrow types (Reshape, Flatten, Squeeze, Unsqueeze, Transpose,
// Identity, Shape, Size, Pad, Constant, ConstantOfShape at 19, 21, 23, 24, 25).
const b = require('./onnx_builder');
const { f, i64, c64, one, viaType, NARROW, opsetOfType } = require('./case_util');

function padCases() {
  const out = [];
  const x = f('x', [3, 4]);
  for (const opset of [18, 19, 21, 23, 24, 25]) {
    const modes = opset >= 19 ? ['constant', 'reflect', 'edge', 'wrap'] : ['constant', 'reflect', 'edge'];
    for (const mode of modes) {
      out.push(one(`Pad_${opset}_${mode}`, 'Pad', opset, [x, c64('pads', [4], [1, 2, 2, 1])], { mode }));
      out.push(one(`Pad_${opset}_${mode}_axes`, 'Pad', opset,
        [f('x', [2, 3, 4]), c64('pads', [2], [2, 3]), null, c64('axes', [1], [-1])], { mode }));
    }
  }
  out.push(one('Pad_18_constant_value_axes', 'Pad', 18,
    [x, c64('pads', [4], [0, 1, 2, 0]), { name: 'v', type: 'float', dims: [], data: [2.5], constant: true },
      c64('axes', [2], [1, 0])]));
  out.push(one('Pad_18_negative_pads', 'Pad', 18, [f('x', [4, 5]), c64('pads', [4], [-1, 1, 0, -2])]));
  out.push(one('Pad_19_wrap_axes_input', 'Pad', 19,
    [f('x', [2, 5]), i64('pads', [2], [3, 4]), null, i64('axes', [1], [1])], { mode: 'wrap' }));
  out.push(one('Pad_18_int32_axes', 'Pad', 18,
    [f('x', [2, 3]), c64('pads', [2], [1, 1]), null, { name: 'axes', type: 'int32', dims: [1], data: [0], constant: true }],
    { mode: 'edge' }));
  for (const t of ['float8e4m3fn', 'int4', 'uint4', 'float8e8m0', 'int2']) {
    const opset = Math.max(opsetOfType(t), 21);
    out.push(viaType(`Pad_${opset}_${t}`, 'Pad', opset, t, [2, 3], { mode: 'constant' },
      { initializers: [b.tensor('pads', 'int64', [4], [1, 0, 0, 2])], opInputs: ['pads'],
        input: { gen: [0, 3] } }));
  }
  return out;
}

function splitCases() {
  const out = [];
  out.push(one('Split_18_num_outputs_even', 'Split', 18, [f('x', [6, 2])], { num_outputs: 3 },
    [['a', 'float'], ['b', 'float'], ['c', 'float']]));
  out.push(one('Split_18_num_outputs_uneven', 'Split', 18, [f('x', [2, 7])], { axis: 1, num_outputs: 3 },
    [['a', 'float'], ['b', 'float'], ['c', 'float']]));
  out.push(one('Split_18_num_outputs_negative_axis', 'Split', 18, [f('x', [2, 3, 5])], { axis: -1, num_outputs: 2 },
    [['a', 'float'], ['b', 'float']]));
  out.push(one('Split_18_split_input', 'Split', 18, [f('x', [7]), c64('split', [3], [2, 0, 5])], {},
    [['a', 'float'], ['b', 'float'], ['c', 'float']]));
  out.push(one('Split_18_int64', 'Split', 18, [{ name: 'x', type: 'int64', dims: [4, 3] }], { num_outputs: 4 },
    [['a', 'int64'], ['b', 'int64'], ['c', 'int64'], ['d', 'int64']]));
  return out;
}

function scatterCases() {
  const out = [];
  for (const reduction of ['none', 'add', 'mul', 'max', 'min']) {
    const dup = reduction !== 'none';
    out.push(one(`ScatterElements_18_${reduction}`, 'ScatterElements', 18,
      [f('data', [3, 4]), i64('indices', [2, 3], dup ? [0, 1, 2, 0, 1, 2] : [0, 1, 2, 2, 1, 0]), f('updates', [2, 3])],
      { axis: 0, reduction }));
    out.push(one(`ScatterElements_18_${reduction}_negative`, 'ScatterElements', 18,
      [f('data', [2, 5]), i64('indices', [2, 2], dup ? [-1, -1, 0, -5] : [-1, 0, -2, 1]), f('updates', [2, 2])],
      { axis: -1, reduction }));
    out.push(one(`ScatterND_18_${reduction}`, 'ScatterND', 18,
      [f('data', [4, 3]), i64('indices', [3, 1], dup ? [1, 3, 1] : [1, 3, 0]), f('updates', [3, 3])], { reduction }));
    out.push(one(`ScatterND_18_${reduction}_elements`, 'ScatterND', 18,
      [f('data', [2, 3]), i64('indices', [3, 2], dup ? [0, 1, 0, 1, 1, 2] : [0, 1, 1, 0, 1, 2]), f('updates', [3])],
      { reduction }));
  }
  out.push(one('ScatterElements_18_int32_max', 'ScatterElements', 18,
    [{ name: 'data', type: 'int32', dims: [4] }, i64('indices', [3], [1, 1, 3]), { name: 'updates', type: 'int32', dims: [3] }],
    { reduction: 'max' }, [['y', 'int32']]));
  return out;
}

function centerCropPadCases() {
  const out = [];
  const shape = (v) => c64('shape', [v.length], v);
  out.push(one('CenterCropPad_18_crop', 'CenterCropPad', 18, [f('x', [5, 6, 2]), shape([3, 3, 2])]));
  out.push(one('CenterCropPad_18_pad', 'CenterCropPad', 18, [f('x', [2, 3]), shape([5, 6])]));
  out.push(one('CenterCropPad_18_mixed_axes', 'CenterCropPad', 18, [f('x', [3, 4, 5]), shape([6, 2])], { axes: [0, -1] }));
  out.push(one('CenterCropPad_18_int32', 'CenterCropPad', 18,
    [{ name: 'x', type: 'int32', dims: [4, 4] }, shape([3, 5])], {}, [['y', 'int32']]));
  out.push(one('CenterCropPad_18_shape_int32', 'CenterCropPad', 18,
    [f('x', [4, 7]), { name: 'shape', type: 'int32', dims: [1], data: [4], constant: true }], { axes: [1] }));
  return out;
}

function tensorScatterCases() {
  const out = [];
  const past = f('past', [2, 3, 6, 4]);
  out.push(one('TensorScatter_24_prefill', 'TensorScatter', 24, [past, f('update', [2, 3, 2, 4])]));
  out.push(one('TensorScatter_24_write_indices', 'TensorScatter', 24,
    [past, f('update', [2, 3, 1, 4]), i64('idx', [2], [3, 5])]));
  out.push(one('TensorScatter_24_circular', 'TensorScatter', 24,
    [past, f('update', [2, 3, 3, 4]), i64('idx', [2], [4, 1])], { mode: 'circular' }));
  out.push(one('TensorScatter_24_axis1', 'TensorScatter', 24,
    [f('past', [2, 5, 3]), f('update', [2, 2, 3]), i64('idx', [2], [0, 3])], { axis: 1 }));
  return out;
}

// Data movement on every narrow type: x (float) -> Cast(t) -> op -> Cast(float).
function narrowCases() {
  const out = [];
  for (const t of NARROW) {
    const o = opsetOfType(t);
    const vals = { input: { gen: t.includes('int') ? [-1, 1] : [-2, 2] } };
    if (t === 'float4e2m1') continue;  // ONNX Runtime has no float4 casts on the CPU
    const mv = (op, opset, attrs, extra = {}) => viaType(`${op}_${opset}_${t}`, op, opset, t, [2, 3, 4], attrs,
      Object.assign({}, vals, extra));
    const shapeInit = (name, v) => [b.tensor(name, 'int64', [v.length], v)];
    out.push(mv('Reshape', o, {}, { initializers: shapeInit('shape', [4, -1]), opInputs: ['shape'] }));
    out.push(mv('Flatten', Math.max(o, 21), { axis: 2 }));
    out.push(mv('Transpose', Math.max(o, 21), { perm: [2, 0, 1] }));
    out.push(mv('Identity', o, {}));
    out.push(mv('Unsqueeze', Math.max(o, 21), {}, { initializers: shapeInit('axes', [0, -1]), opInputs: ['axes'] }));
    out.push(mv('Shape', o, {}, { outType: 'int64' }));
    out.push(mv('Size', o, {}, { outType: 'int64' }));
  }
  for (const t of ['float8e4m3fn', 'float8e5m2fnuz', 'int4', 'uint4']) {
    const o = Math.max(opsetOfType(t), 21);
    out.push(viaType(`Squeeze_${o}_${t}`, 'Squeeze', o, t, [2, 1, 3], {},
      { initializers: [b.tensor('axes', 'int64', [1], [1])], opInputs: ['axes'] }));
  }
  // Constant and ConstantOfShape holding narrow values, read back through Cast.
  const constants = [['float8e4m3fn', [0x38, 0xc4, 0x7e]], ['float8e5m2', [0x3c, 0x7b, 0x80]],
    ['int4', [-8, 7, 3]], ['uint4', [15, 0, 9]], ['float8e4m3fnuz', [0x40, 0x7f, 0x00]], ['uint2', [3, 1, 2]],
    ['int2', [-2, 1, -1]], ['float8e8m0', [127, 130, 0]]];
  for (const [t, v] of constants) {
    const o = opsetOfType(t);
    out.push({
      name: `Constant_${o}_${t}`, op: 'Constant', opset: o, inputs: [f('x', [3])],
      nodes: [b.node('Constant', [], ['c'], { value: ['tensor', b.tensor('v', t, [3], v)] }),
        b.node('Cast', ['c'], ['cf'], { to: b.DT.float }), b.node('Add', ['x', 'cf'], ['y'])],
      outputs: [['y', 'float']],
    });
    out.push({
      name: `ConstantOfShape_${Math.max(o, 20)}_${t}`, op: 'ConstantOfShape', opset: Math.max(o, 20),
      inputs: [i64('shape', [2], [2, 3])],
      nodes: [b.node('ConstantOfShape', ['shape'], ['c'], { value: ['tensor', b.tensor('v', t, [1], [v[0]])] }),
        b.node('Cast', ['c'], ['y'], { to: b.DT.float })],
      outputs: [['y', 'float']],
    });
  }
  out.push({
    name: 'ConstantOfShape_20_bfloat16', op: 'ConstantOfShape', opset: 20, inputs: [i64('shape', [1], [4])],
    nodes: [b.node('ConstantOfShape', ['shape'], ['c'], { value: ['tensor', { name: 'v', dataType: 16, dims: [1], rawData: Buffer.from([0xc0, 0x3f]) }] }),
      b.node('Cast', ['c'], ['y'], { to: b.DT.float })],
    outputs: [['y', 'float']],
  });
  return out;
}

function cases() {
  return [...padCases(), ...splitCases(), ...scatterCases(), ...centerCropPadCases(),
    ...tensorScatterCases(), ...narrowCases()];
}

module.exports = { cases };
