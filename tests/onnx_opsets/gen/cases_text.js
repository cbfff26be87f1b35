'use strict';
// StringConcat-20, StringSplit-20, RegexFullMatch-20 (RE2 syntax); control flow and optional
// ops on the newer types: If/Loop/Scan-19..25, OptionalHasElement/OptionalGetElement-18 on
// plain tensors, SplitToSequence-24.
const b = require('./onnx_builder');
const { f, i64, one } = require('./case_util');

const str = (name, dims, data) => ({ name, type: 'string', dims, data });

function textCases() {
  const out = [];
  out.push(one('StringConcat_20', 'StringConcat', 20, [str('x', [2, 2], ['a', '', 'kiln ', 'é']), str('y', [2, 2], ['b', 'c', 'ops', '✓'])],
    {}, [['z', 'string']]));
  out.push(one('StringConcat_20_broadcast', 'StringConcat', 20, [str('x', [3], ['x', 'y', 'z']), str('y', [2, 1], ['_1', '_2'])],
    {}, [['z', 'string']]));
  out.push(one('StringConcat_20_empty', 'StringConcat', 20, [str('x', [0], []), str('y', [1], ['s'])], {}, [['z', 'string']]));
  const texts = ['hello world', '  lots   of   space ', '', 'a,b,,c', ',x,', 'one'];
  out.push(one('StringSplit_20_whitespace', 'StringSplit', 20, [str('x', [2, 3], texts)], {}, [['y', 'string'], ['n', 'int64']]));
  out.push(one('StringSplit_20_comma', 'StringSplit', 20, [str('x', [6], texts)], { delimiter: ',' }, [['y', 'string'], ['n', 'int64']]));
  out.push(one('StringSplit_20_maxsplit', 'StringSplit', 20, [str('x', [6], texts)], { delimiter: ',', maxsplit: 1 },
    [['y', 'string'], ['n', 'int64']]));
  out.push(one('StringSplit_20_whitespace_maxsplit', 'StringSplit', 20, [str('x', [3], ['a b c d', ' x  y ', 'z'])], { maxsplit: 2 },
    [['y', 'string'], ['n', 'int64']]));
  out.push(one('StringSplit_20_multichar', 'StringSplit', 20, [str('x', [3], ['a--b--c', '--', 'no'])], { delimiter: '--' },
    [['y', 'string'], ['n', 'int64']]));
  const words = ['www.google.com', 'kiln.onnx', 'a1b2', 'ABC', '', '12345', 'foo@bar.org', 'ünïcode'];
  for (const [tag, pattern] of [['domain', '(\\W|^)[\\w.\\-]{0,25}\\.(com|org)(\\W|$)'], ['digits', '\\d+'], ['alnum', '[a-z]\\d[a-z]\\d'],
    ['anchors', '^A.*'], ['empty', '.*'], ['case', '(?i)abc'], ['unicode', '\\p{L}+'], ['alternation', 'kiln\\.(onnx|nnef)']]) {
    out.push(one(`RegexFullMatch_20_${tag}`, 'RegexFullMatch', 20, [str('x', [2, 4], words)], { pattern }, [['y', 'bool']]));
  }
  return out;
}

// If whose branches return a narrow-typed constant, cast back to float.
function controlCases() {
  const out = [];
  const branch = (name, type, values) => ({
    name, node: [b.node('Constant', [], [`${name}_c`], { value: ['tensor', b.tensor('v', type, [values.length], values)] })],
    output: [b.valueInfo(`${name}_c`, type, [values.length])], input: [], initializer: [],
  });
  for (const [t, opset, vt, ve] of [['float8e4m3fn', 19, [0x38, 0x40], [0xb8, 0x44]], ['int4', 21, [3, -2], [7, -8]],
    ['uint4', 21, [1, 15], [0, 9]], ['float8e5m2', 19, [0x3c, 0x3d], [0x40, 0x41]]]) {
    for (const cond of [true, false]) {
      out.push({
        name: `If_${opset}_${t}_${cond}`, op: 'If', opset,
        inputs: [{ name: 'c', type: 'bool', dims: [], data: [cond] }],
        nodes: [b.node('If', ['c'], ['r'], { then_branch: ['graph', branch('then', t, vt)], else_branch: ['graph', branch('else', t, ve)] }),
          b.node('Cast', ['r'], ['y'], { to: b.DT.float })],
        outputs: [['y', 'float']],
      });
    }
  }
  // Loop carrying an int4 value: v <- v + 1 (through int8), 3 times.
  out.push({
    name: 'Loop_21_int4_carried', op: 'Loop', opset: 21,
    inputs: [i64('m', [], [3]), { name: 'x', type: 'int8', dims: [2], data: [1, -3] }],
    nodes: [b.node('Cast', ['x'], ['v0'], { to: b.DT.int4 }),
      b.node('Loop', ['m', '', 'v0'], ['vf'], { body: ['graph', {
        name: 'body', input: [b.valueInfo('i', 'int64', []), b.valueInfo('cond', 'bool', []), b.valueInfo('v', 'int4', [2])],
        output: [b.valueInfo('cond_out', 'bool', []), b.valueInfo('v_out', 'int4', [2])],
        node: [b.node('Identity', ['cond'], ['cond_out']), b.node('Cast', ['v'], ['v8'], { to: b.DT.int8 }),
          b.node('Constant', [], ['one'], { value: ['tensor', b.tensor('one', 'int8', [], [1])] }),
          b.node('Add', ['v8', 'one'], ['w8']), b.node('Cast', ['w8'], ['v_out'], { to: b.DT.int4 })],
        initializer: [],
      }] }),
      b.node('Cast', ['vf'], ['y'], { to: b.DT.int8 })],
    outputs: [['y', 'int8']],
  });
  // Optional ops on plain tensors (18).
  out.push(one('OptionalHasElement_18_tensor', 'OptionalHasElement', 18, [f('x', [2, 3])], {}, [['y', 'bool']]));
  out.push(one('OptionalGetElement_18_tensor', 'OptionalGetElement', 18, [f('x', [2, 3])]));
  out.push({
    name: 'OptionalHasElement_18_absent', op: 'OptionalHasElement', opset: 18, inputs: [f('x', [1])],
    nodes: [b.node('OptionalHasElement', [], ['h']), b.node('Cast', ['h'], ['hf'], { to: b.DT.float }), b.node('Add', ['hf', 'x'], ['y'])],
    outputs: [['y', 'float']],
  });
  // SplitToSequence-24 then ConcatFromSequence.
  out.push({
    name: 'SplitToSequence_24', op: 'SplitToSequence', opset: 24, inputs: [f('x', [6, 2])],
    nodes: [b.node('SplitToSequence', ['x'], ['s'], { axis: 0, keepdims: 0 }), b.node('ConcatFromSequence', ['s'], ['y'], { axis: 1, new_axis: 1 })],
    outputs: [['y', 'float']],
  });
  out.push({
    name: 'SplitToSequence_24_split', op: 'SplitToSequence', opset: 24, inputs: [f('x', [2, 7]), i64('sp', [3], [1, 2, 4])],
    nodes: [b.node('SplitToSequence', ['x', 'sp'], ['s'], { axis: 1 }), b.node('SequenceAt', ['s', 'k'], ['y'])],
    initializers: [b.tensor('k', 'int64', [], [-1])],
    outputs: [['y', 'float']],
  });
  return out;
}

function cases() {
  return [...textCases(), ...controlCases()];
}

module.exports = { cases };
