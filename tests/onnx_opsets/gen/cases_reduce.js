'use strict';
// Reduce*-18 (axes as an input, noop_with_empty_axes), ReduceMax/ReduceMin-20 (bool).
const { f, i64, c64, one } = require('./case_util');

const OPS18 = ['ReduceL1', 'ReduceL2', 'ReduceLogSum', 'ReduceLogSumExp', 'ReduceMax', 'ReduceMean',
  'ReduceMin', 'ReduceProd', 'ReduceSumSquare'];

function cases() {
  const out = [];
  for (const op of OPS18) {
    const x = f('x', [2, 3, 4], { gen: [0.1, 2] });
    out.push(one(`${op}_18_axes1_keepdims`, op, 18, [x, c64('axes', [1], [1])]));
    out.push(one(`${op}_18_negative_axes_nokeep`, op, 18, [x, c64('axes', [2], [-1, 0])], { keepdims: 0 }));
    out.push(one(`${op}_18_no_axes`, op, 18, [x], { keepdims: 0 }));
    out.push(one(`${op}_18_empty_axes_noop`, op, 18, [x, c64('axes', [0], [])], { noop_with_empty_axes: 1 }));
    out.push(one(`${op}_18_axes_input`, op, 18, [x, i64('axes', [1], [-2])]));
    out.push(one(`${op}_18_empty_tensor`, op, 18, [f('x', [2, 0, 3]), c64('axes', [1], [2])], { keepdims: 1 }));
  }
  for (const op of ['ReduceMax', 'ReduceMin']) {
    out.push(one(`${op}_20_bool`, op, 20, [{ name: 'x', type: 'bool', dims: [3, 4] }, c64('axes', [1], [1])],
      { keepdims: 0 }, [['y', 'bool']]));
    out.push(one(`${op}_20_bool_all`, op, 20, [{ name: 'x', type: 'bool', dims: [2, 3] }], {}, [['y', 'bool']]));
    out.push(one(`${op}_20_float`, op, 20, [f('x', [3, 4]), c64('axes', [1], [0])]));
  }
  return out;
}

module.exports = { cases };
