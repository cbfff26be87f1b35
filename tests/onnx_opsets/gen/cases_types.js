'use strict';
// The new operators on float16 and double tensors (ONNX Runtime computes float16 in float and
// rounds once, like kiln; a case whose values differ by a float16 rounding would show it).
const { f, i64, c64, one } = require('./case_util');

function typed(type, name, dims, extra = {}) {
  return Object.assign({ name, type, dims }, extra);
}

function cases() {
  const out = [];
  for (const t of ['float16', 'double']) {
    const T = (name, dims, extra) => typed(t, name, dims, extra);
    const o = [['y', t]];
    out.push(one(`GroupNormalization_21_${t}_typed`, 'GroupNormalization', 21,
      [T('x', [2, 4, 3]), T('s', [4]), T('b', [4])], { num_groups: 2 }, o));
    out.push(one(`RMSNormalization_23_${t}_typed`, 'RMSNormalization', 23, [T('x', [2, 3, 4]), T('s', [4])], {}, o));
    out.push(one(`LpNormalization_22_${t}_typed`, 'LpNormalization', 22, [T('x', [3, 4])], { p: 2 }, o));
    out.push(one(`Mish_22_${t}_typed`, 'Mish', 22, [T('x', [8], { gen: [-4, 4] })], {}, o));
    out.push(one(`Swish_24_${t}_typed`, 'Swish', 24, [T('x', [8], { gen: [-4, 4] })], { alpha: ['float', 1.5] }, o));
    out.push(one(`Gelu_20_${t}_tanh_typed`, 'Gelu', 20, [T('x', [8], { gen: [-4, 4] })], { approximate: 'tanh' }, o));
    out.push(one(`Attention_23_${t}_typed`, 'Attention', 23, [T('q', [1, 2, 3, 4]), T('k', [1, 2, 3, 4]), T('v', [1, 2, 3, 4])],
      { is_causal: 1 }, [['Y', t]]));
    out.push(one(`RotaryEmbedding_23_${t}_typed`, 'RotaryEmbedding', 23,
      [T('x', [1, 2, 3, 4]), T('cos', [3, 2]), T('sin', [3, 2]), i64('pos', [1, 3], [0, 2, 1])], {}, o));
    out.push(one(`CenterCropPad_18_${t}_typed`, 'CenterCropPad', 18, [T('x', [3, 5]), c64('shape', [2], [4, 2])], {}, o));
    out.push(one(`Col2Im_18_${t}`, 'Col2Im', 18,
      [T('x', [1, 4, 4]), c64('image_shape', [2], [3, 3]), c64('block_shape', [2], [2, 2])], {}, o));
    out.push(one(`AffineGrid_20_${t}_typed`, 'AffineGrid', 20, [T('theta', [1, 2, 3]), c64('size', [4], [1, 1, 2, 3])], {}, o));
    out.push(one(`GridSample_20_${t}_typed`, 'GridSample', 20, [T('x', [1, 1, 3, 3]), T('grid', [1, 2, 2, 2])], {}, o));
    out.push(one(`DeformConv_19_${t}_typed`, 'DeformConv', 19,
      [T('x', [1, 1, 4, 4]), T('w', [1, 1, 2, 2]), T('offset', [1, 8, 3, 3], { gen: [-1, 1] })], {}, o));
    out.push(one(`ReduceMean_18_${t}_typed`, 'ReduceMean', 18, [T('x', [3, 4]), c64('axes', [1], [1])], {}, o));
    out.push(one(`ReduceLogSumExp_18_${t}_typed`, 'ReduceLogSumExp', 18, [T('x', [3, 4]), c64('axes', [1], [0])], {}, o));
    out.push(one(`Pad_19_${t}_wrap_typed`, 'Pad', 19, [T('x', [2, 3]), c64('pads', [4], [0, 2, 1, 1])], { mode: 'wrap' }, o));
    out.push(one(`TopK_24_${t}_typed`, 'TopK', 24, [T('x', [2, 5]), i64('k', [1], [2])], {}, [['v', t], ['i', 'int64']]));
    out.push(one(`Resize_18_${t}_linear_antialias`, 'Resize', 18,
      [T('x', [1, 1, 4, 6]), null, f('scales', [4], { data: [1, 1, 0.5, 0.5], constant: true })],
      { mode: 'linear', antialias: 1 }, o));
    out.push(one(`ScatterElements_18_${t}_max_typed`, 'ScatterElements', 18,
      [T('d', [3, 3]), i64('i', [2, 3], [0, 1, 2, 0, 1, 2]), T('u', [2, 3])], { reduction: 'max' }, o));
    out.push(one(`MaxRoiPool_21_${t}_typed`, 'MaxRoiPool', 21,
      [T('x', [1, 1, 4, 4]), T('rois', [1, 5], { data: [0, 0, 0, 3, 3], constant: true })], { pooled_shape: [2, 2] }, o));
    out.push(one(`Attention_24_${t}_nonpad_typed`, 'Attention', 24, [T('q', [2, 1, 2, 4]), T('k', [2, 1, 4, 4]), T('v', [2, 1, 4, 4]),
      null, null, null, i64('n', [2], [2, 4])], {}, [['Y', t]]));
  }
  out.push(one('QuantizeLinear_21_float16_input', 'QuantizeLinear', 21,
    [typed('float16', 'x', [6], { gen: [-5, 5] }), typed('float16', 's', [], { data: [0.5], constant: true }),
      { name: 'zp', type: 'int8', dims: [], data: [2], constant: true }], {}, [['y', 'int8']]));
  out.push(one('DequantizeLinear_21_float16_scale', 'DequantizeLinear', 21,
    [{ name: 'x', type: 'int8', dims: [5], gen: [-100, 100] }, typed('float16', 's', [], { data: [0.125], constant: true })],
    {}, [['y', 'float16']]));
  return out;
}

module.exports = { cases };
