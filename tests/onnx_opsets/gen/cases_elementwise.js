'use strict';
// Bitwise*-18, Equal-19 (strings), IsInf/IsNaN-20, the opset-22 versions of the unary float
// ops (bfloat16 added: float, double and bfloat16 through Casts), TopK-24, Det-22, EyeLike-22,
// Dropout-22, NegativeLogLikelihoodLoss-22, the recurrent ops at 22.
const b = require('./onnx_builder');
const { f, i64, one, viaType } = require('./case_util');

function bitwiseCases() {
  const out = [];
  for (const op of ['BitwiseAnd', 'BitwiseOr', 'BitwiseXor']) {
    for (const [t, lo, hi] of [['int32', -1000, 1000], ['uint8', 0, 255], ['int64', -50, 50], ['int8', -128, 127], ['uint16', 0, 65535]]) {
      out.push(one(`${op}_18_${t}`, op, 18, [{ name: 'a', type: t, dims: [3, 4], gen: [lo, hi] },
        { name: 'b', type: t, dims: [4], gen: [lo, hi] }], {}, [['y', t]]));
    }
  }
  for (const [t, lo, hi] of [['int32', -1000, 1000], ['uint8', 0, 255], ['int16', -300, 300], ['uint64', 0, 1000]]) {
    out.push(one(`BitwiseNot_18_${t}`, 'BitwiseNot', 18, [{ name: 'x', type: t, dims: [2, 3], gen: [lo, hi] }], {}, [['y', t]]));
  }
  return out;
}

function predicateCases() {
  const out = [];
  const words = ['', 'a', 'kiln', 'Kiln', 'onnx'];
  out.push(one('Equal_19_string', 'Equal', 19, [{ name: 'a', type: 'string', dims: [2, 3], gen: words },
    { name: 'b', type: 'string', dims: [3], gen: words }], {}, [['y', 'bool']]));
  out.push(one('Equal_19_int', 'Equal', 19, [{ name: 'a', type: 'int32', dims: [4], gen: [0, 2] },
    { name: 'b', type: 'int32', dims: [4], gen: [0, 2] }], {}, [['y', 'bool']]));
  const special = [1, -1, Infinity, -Infinity, NaN, 0, 3e38, -0];
  for (const [pos, neg] of [[1, 1], [1, 0], [0, 1]]) {
    out.push(one(`IsInf_20_p${pos}_n${neg}`, 'IsInf', 20, [f('x', [8], { data: special })],
      { detect_positive: pos, detect_negative: neg }, [['y', 'bool']]));
  }
  out.push(one('IsInf_20_double', 'IsInf', 20, [{ name: 'x', type: 'double', dims: [8], data: special }], {}, [['y', 'bool']]));
  out.push(one('IsInf_20_float16', 'IsInf', 20, [{ name: 'x', type: 'float16', dims: [8], data: special }], {}, [['y', 'bool']]));
  out.push(one('IsNaN_20', 'IsNaN', 20, [f('x', [8], { data: special })], {}, [['y', 'bool']]));
  out.push(one('IsNaN_20_float16', 'IsNaN', 20, [{ name: 'x', type: 'float16', dims: [8], data: special }], {}, [['y', 'bool']]));
  for (const t of ['float8e4m3fn', 'float8e5m2', 'float8e4m3fnuz', 'float8e5m2fnuz']) {
    out.push(viaType(`IsNaN_20_${t}`, 'IsNaN', 20, t, [8], {}, { input: { data: special }, outType: 'bool' }));
    out.push(viaType(`IsInf_20_${t}`, 'IsInf', 20, t, [8], {}, { input: { data: special }, outType: 'bool',
      initializers: [] }));
  }
  return out;
}

const UNARY22 = [['Acos', [-0.9, 0.9]], ['Acosh', [1.1, 5]], ['Asin', [-0.9, 0.9]], ['Asinh', [-3, 3]],
  ['Atan', [-3, 3]], ['Atanh', [-0.9, 0.9]], ['Cos', [-4, 4]], ['Cosh', [-3, 3]], ['Sin', [-4, 4]],
  ['Sinh', [-3, 3]], ['Tan', [-1.4, 1.4]], ['Elu', [-3, 3], { alpha: 0.7 }], ['HardSigmoid', [-4, 4], { alpha: 0.3, beta: 0.4 }],
  ['HardSwish', [-5, 5]], ['Round', [-4, 4]], ['Selu', [-3, 3]], ['Softplus', [-5, 5]], ['Softsign', [-5, 5]],
  ['ThresholdedRelu', [-3, 3], { alpha: 0.5 }], ['Mish', [-5, 5]]];

function unaryCases() {
  const out = [];
  for (const [op, range, attrs] of UNARY22) {
    const data = op === 'Round' ? [-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 0.4999, -3.7, 4.2, 0] : undefined;
    const dims = data ? [data.length] : [2, 5];
    if (op !== 'Mish') out.push(one(`${op}_22`, op, 22, [f('x', dims, { gen: range, data })], attrs || {}));
    out.push(one(`${op}_22_double`, op, 22, [{ name: 'x', type: 'double', dims, gen: range, data }], attrs || {},
      [['y', 'double']]));
    out.push(viaType(`${op}_22_bfloat16`, op, 22, 'bfloat16', dims, attrs || {}, { input: { gen: range, data } }));
  }
  return out;
}

function miscCases() {
  const out = [];
  out.push(one('TopK_24_largest', 'TopK', 24, [f('x', [3, 5]), i64('k', [1], [2])], {}, [['v', 'float'], ['i', 'int64']]));
  out.push(one('TopK_24_smallest_axis0', 'TopK', 24, [f('x', [4, 3]), i64('k', [1], [3])], { axis: 0, largest: 0 },
    [['v', 'float'], ['i', 'int64']]));
  out.push(one('TopK_24_unsorted_ties', 'TopK', 24, [f('x', [6], { data: [1, 3, 3, 2, 3, 1] }), i64('k', [1], [4])],
    { sorted: 1 }, [['v', 'float'], ['i', 'int64']]));
  out.push(one('TopK_24_int64', 'TopK', 24, [{ name: 'x', type: 'int64', dims: [2, 6] }, i64('k', [1], [3])], { axis: -1 },
    [['v', 'int64'], ['i', 'int64']]));
  out.push({
    name: 'TopK_24_bfloat16', op: 'TopK', opset: 24, inputs: [f('x', [2, 5]), i64('k', [1], [2])],
    nodes: [b.node('Cast', ['x'], ['xb'], { to: b.DT.bfloat16 }), b.node('TopK', ['xb', 'k'], ['vb', 'i']),
      b.node('Cast', ['vb'], ['v'], { to: b.DT.float })],
    outputs: [['v', 'float'], ['i', 'int64']],
  });
  out.push(one('Det_22', 'Det', 22, [f('x', [2, 3, 3])]));
  out.push(one('EyeLike_22', 'EyeLike', 22, [f('x', [3, 4])], { k: 1 }));
  out.push(one('EyeLike_22_dtype', 'EyeLike', 22, [f('x', [4, 3])], { k: -1, dtype: b.DT.int32 }, [['y', 'int32']]));
  out.push(one('Dropout_22', 'Dropout', 22, [f('x', [3, 4])], {}));
  out.push(one('Dropout_22_mask', 'Dropout', 22, [f('x', [3, 4])], {}, [['y', 'float'], ['m', 'bool']]));
  out.push(one('NegativeLogLikelihoodLoss_22', 'NegativeLogLikelihoodLoss', 22,
    [f('x', [3, 4]), i64('t', [3], [0, 3, 1])], { reduction: 'mean' }));
  out.push(one('NegativeLogLikelihoodLoss_22_ignore', 'NegativeLogLikelihoodLoss', 22,
    [f('x', [2, 3, 2]), i64('t', [2, 2], [0, 2, 1, -1]), f('w', [3])], { reduction: 'sum', ignore_index: -1 }));
  const H = 3, I = 2, B = 2, S = 4;
  out.push(one('RNN_22', 'RNN', 22, [f('x', [S, B, I]), f('w', [1, H, I]), f('r', [1, H, H]), f('bias', [1, 2 * H])],
    { hidden_size: H }, [['y', 'float'], ['yh', 'float']]));
  out.push(one('GRU_22', 'GRU', 22, [f('x', [S, B, I]), f('w', [2, 3 * H, I]), f('r', [2, 3 * H, H])],
    { hidden_size: H, direction: 'bidirectional', linear_before_reset: 1 }, [['y', 'float'], ['yh', 'float']]));
  out.push(one('LSTM_22', 'LSTM', 22, [f('x', [S, B, I]), f('w', [1, 4 * H, I]), f('r', [1, 4 * H, H]), f('bias', [1, 8 * H])],
    { hidden_size: H, layout: 0 }, [['y', 'float'], ['yh', 'float'], ['yc', 'float']]));
  return out;
}

function cases() {
  return [...bitwiseCases(), ...predicateCases(), ...unaryCases(), ...miscCases()];
}

module.exports = { cases };
