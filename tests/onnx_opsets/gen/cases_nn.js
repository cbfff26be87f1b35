'use strict';
// Normalizations, pooling and convolution-like ops of opsets 18-25: GroupNormalization-18/21,
// RMSNormalization-23, LpNormalization-22, LpPool-18/22, AveragePool-19/22, MaxPool-22,
// GlobalLpPool-22, MaxRoiPool-22, Col2Im-18, DeformConv-19/22, Conv/ConvTranspose-22,
// InstanceNormalization-22, Mish-18/22, Swish-24, Gelu-20.
const { f, c64, one } = require('./case_util');

function normCases() {
  const out = [];
  for (const [opset, perChannel] of [[18, false], [21, true]]) {
    const c = 6;
    for (const g of [1, 2, 3, 6]) {
      const s = perChannel ? c : g;
      out.push(one(`GroupNormalization_${opset}_groups${g}`, 'GroupNormalization', opset,
        [f('x', [2, c, 3, 2], { gen: [-2, 2] }), f('scale', [s], { constant: true }), f('bias', [s], { constant: true })],
        { num_groups: g, epsilon: 1e-3 }));
    }
    out.push(one(`GroupNormalization_${opset}_rank3`, 'GroupNormalization', opset,
      [f('x', [1, 4, 5]), f('scale', [perChannel ? 4 : 2]), f('bias', [perChannel ? 4 : 2])], { num_groups: 2 }));
  }
  out.push(one('GroupNormalization_21_double', 'GroupNormalization', 21,
    [{ name: 'x', type: 'double', dims: [2, 4, 3] }, { name: 's', type: 'double', dims: [4] }, { name: 'b', type: 'double', dims: [4] }],
    { num_groups: 2 }, [['y', 'double']]));
  for (const axis of [-1, 1, 0, -2]) {
    out.push(one(`RMSNormalization_23_axis${axis}`, 'RMSNormalization', 23,
      [f('x', [2, 3, 4], { gen: [-3, 3] }), f('scale', axis === -1 ? [4] : axis === -2 || axis === 1 ? [3, 4] : [2, 3, 4])],
      { axis }));
  }
  out.push(one('RMSNormalization_23_epsilon_broadcast_scale', 'RMSNormalization', 23,
    [f('x', [3, 5], { gen: [-0.01, 0.01] }), f('scale', [1])], { epsilon: 0.001 }));
  out.push(one('RMSNormalization_23_double', 'RMSNormalization', 23,
    [{ name: 'x', type: 'double', dims: [2, 6] }, { name: 's', type: 'double', dims: [6] }], {}, [['y', 'double']]));
  for (const [axis, p] of [[-1, 2], [0, 1], [1, 2], [-2, 1]]) {
    out.push(one(`LpNormalization_22_axis${axis}_p${p}`, 'LpNormalization', 22, [f('x', [3, 4, 2])], { axis, p }));
  }
  out.push(one('InstanceNormalization_22', 'InstanceNormalization', 22,
    [f('x', [2, 3, 4, 2]), f('s', [3]), f('b', [3])], { epsilon: 1e-4 }));
  return out;
}

function poolCases() {
  const out = [];
  const x = f('x', [1, 2, 7, 6]);
  for (const opset of [18, 22]) {
    out.push(one(`LpPool_${opset}_p2`, 'LpPool', opset, [x], { kernel_shape: [3, 2], p: 2 }));
    out.push(one(`LpPool_${opset}_ceil_strides`, 'LpPool', opset, [x], { kernel_shape: [3, 3], strides: [2, 2], ceil_mode: 1, p: 3 }));
    out.push(one(`LpPool_${opset}_dilations_pads`, 'LpPool', opset, [x],
      { kernel_shape: [2, 2], dilations: [2, 1], pads: [1, 0, 1, 1], p: 1 }));
    out.push(one(`LpPool_${opset}_same_upper`, 'LpPool', opset, [x], { kernel_shape: [3, 3], strides: [2, 2], auto_pad: 'SAME_UPPER' }));
  }
  out.push(one('LpPool_18_1d', 'LpPool', 18, [f('x', [2, 3, 9])], { kernel_shape: [3], strides: [2], dilations: [2] }));
  for (const opset of [19, 22]) {
    out.push(one(`AveragePool_${opset}_dilations`, 'AveragePool', opset, [x], { kernel_shape: [2, 2], dilations: [2, 2] }));
    out.push(one(`AveragePool_${opset}_dilations_pads_count_pad`, 'AveragePool', opset, [x],
      { kernel_shape: [3, 2], dilations: [1, 2], pads: [1, 1, 1, 1], count_include_pad: 1 }));
    out.push(one(`AveragePool_${opset}_dilations_pads_exclude`, 'AveragePool', opset, [x],
      { kernel_shape: [3, 2], dilations: [2, 2], pads: [1, 1, 1, 1], strides: [2, 1] }));
    out.push(one(`AveragePool_${opset}_ceil_dilations`, 'AveragePool', opset, [x],
      { kernel_shape: [2, 3], dilations: [2, 1], strides: [2, 2], ceil_mode: 1 }));
    out.push(one(`AveragePool_${opset}_1d_dilations`, 'AveragePool', opset, [f('x', [1, 1, 10])],
      { kernel_shape: [3], dilations: [3] }));
  }
  out.push(one('MaxPool_22_dilations_ceil', 'MaxPool', 22, [x], { kernel_shape: [2, 2], dilations: [2, 2], strides: [2, 2], ceil_mode: 1 }));
  out.push(one('MaxPool_22_indices', 'MaxPool', 22, [x], { kernel_shape: [3, 3], pads: [1, 1, 1, 1] },
    [['y', 'float'], ['i', 'int64']]));
  out.push(one('GlobalLpPool_22', 'GlobalLpPool', 22, [x], { p: 3 }));
  out.push(one('GlobalLpPool_21', 'GlobalLpPool', 21, [x], { p: 3 }));
  out.push(one('GlobalAveragePool_22', 'GlobalAveragePool', 22, [x]));
  out.push(one('GlobalMaxPool_22', 'GlobalMaxPool', 22, [x]));
  const rois = { name: 'rois', type: 'float', dims: [3, 5], data: [0, 0, 0, 3, 3, 1, 1, 2, 5, 6, 0, 2.4, 0.6, 4.2, 3.7], constant: true };
  for (const opset of [21, 22]) {  // ONNX Runtime has MaxRoiPool-1 only: 21 selects it
    out.push(one(`MaxRoiPool_${opset}`, 'MaxRoiPool', opset, [f('x', [2, 2, 6, 7]), rois], { pooled_shape: [2, 2] }));
    out.push(one(`MaxRoiPool_${opset}_scale`, 'MaxRoiPool', opset, [f('x', [2, 1, 8, 8]), rois],
      { pooled_shape: [3, 2], spatial_scale: 0.5 }));
  }
  return out;
}

function convCases() {
  const out = [];
  out.push(one('Col2Im_18_basic', 'Col2Im', 18,
    [f('x', [1, 5, 5]), c64('image_shape', [2], [5, 5]), c64('block_shape', [2], [1, 5])]));
  out.push(one('Col2Im_18_strides_pads_dilations', 'Col2Im', 18,
    [f('x', [2, 2 * 4, 8]), c64('image_shape', [2], [4, 5]), c64('block_shape', [2], [2, 2])],
    { strides: [2, 1], pads: [1, 0, 0, 1], dilations: [1, 2] }));
  out.push(one('Col2Im_18_overlap', 'Col2Im', 18,
    [f('x', [1, 3 * 9, 9]), c64('image_shape', [2], [5, 5]), c64('block_shape', [2], [3, 3])]));
  out.push(one('Col2Im_18_3d', 'Col2Im', 18,
    [f('x', [1, 8, 8]), c64('image_shape', [3], [3, 3, 3]), c64('block_shape', [3], [2, 2, 2])]));
  const off = (n, g, k, oh, ow, lo = -1.5, hi = 1.5) => f('offset', [n, g * 2 * k, oh, ow], { gen: [lo, hi] });
  for (const opset of [19, 22]) {
    out.push(one(`DeformConv_${opset}_basic`, 'DeformConv', opset,
      [f('x', [1, 2, 5, 5]), f('w', [3, 2, 3, 3], { constant: true }), off(1, 1, 9, 3, 3)], { kernel_shape: [3, 3] }));
    out.push(one(`DeformConv_${opset}_bias_mask_pads`, 'DeformConv', opset,
      [f('x', [2, 2, 4, 4]), f('w', [2, 2, 2, 2]), off(2, 1, 4, 5, 5), f('b', [2]), f('mask', [2, 4, 5, 5], { gen: [0, 1] })],
      { pads: [1, 1, 1, 1] }));
    out.push(one(`DeformConv_${opset}_groups_offset_groups`, 'DeformConv', opset,
      [f('x', [1, 4, 6, 5]), f('w', [4, 2, 2, 3]), off(1, 2, 6, 3, 2)],
      { group: 2, offset_group: 2, strides: [2, 2], dilations: [1, 1] }));
    out.push(one(`DeformConv_${opset}_dilations`, 'DeformConv', opset,
      [f('x', [1, 1, 7, 7]), f('w', [1, 1, 2, 2]), off(1, 1, 4, 5, 5, -0.5, 2.5)], { dilations: [2, 2] }));
  }
  out.push(one('Conv_22', 'Conv', 22, [f('x', [1, 2, 5, 5]), f('w', [3, 2, 3, 3]), f('b', [3])], { pads: [1, 1, 1, 1] }));
  out.push(one('ConvTranspose_22', 'ConvTranspose', 22, [f('x', [1, 2, 3, 3]), f('w', [2, 3, 3, 3])], { strides: [2, 2] }));
  return out;
}

function activationCases() {
  const out = [];
  const x = f('x', [3, 7], { gen: [-6, 6] });
  for (const opset of [18, 22]) out.push(one(`Mish_${opset}`, 'Mish', opset, [x]));
  out.push(one('Mish_18_double', 'Mish', 18, [{ name: 'x', type: 'double', dims: [5], gen: [-5, 5] }], {}, [['y', 'double']]));
  out.push(one('Swish_24', 'Swish', 24, [x]));
  out.push(one('Swish_24_alpha', 'Swish', 24, [x], { alpha: 1.702 }));
  out.push(one('Swish_24_double', 'Swish', 24, [{ name: 'x', type: 'double', dims: [6], gen: [-4, 4] }], { alpha: 0.5 }, [['y', 'double']]));
  out.push(one('Gelu_20', 'Gelu', 20, [x]));
  out.push(one('Gelu_20_tanh', 'Gelu', 20, [x], { approximate: 'tanh' }));
  out.push(one('Gelu_20_double', 'Gelu', 20, [{ name: 'x', type: 'double', dims: [6], gen: [-4, 4] }], {}, [['y', 'double']]));
  return out;
}

function cases() {
  return [...normCases(), ...poolCases(), ...convCases(), ...activationCases()];
}

module.exports = { cases };
