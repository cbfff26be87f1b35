'use strict';
// Regressions found by the differential tester (gen/fuzz_diff.js): each case is one kiln bug it
// caught, kept with the inputs that showed it. Named `<Op>_<version>_regress_<what>`
// (regenerate them with FILTER=_regress_).
const b = require('./onnx_builder');
const { c64, one } = require('./case_util');

const T = (type, name, dims, data, extra = {}) => Object.assign({ name, type, dims, data }, extra);

function cases() {
  const out = [];
  // Resize of integers: the interpolated value is truncated toward zero (kiln rounded it).
  out.push(one('Resize_19_regress_uint8_linear', 'Resize', 19, [T('uint8', 'x', [1, 1, 3, 1], [8, 32, 45]), null, null,
    c64('sizes', [4], [1, 1, 5, 3])], { mode: 'linear', coordinate_transformation_mode: 'pytorch_half_pixel' },
  [['y', 'uint8']]));
  out.push(one('Resize_19_regress_int32_linear_negative', 'Resize', 19, [T('int32', 'x', [1, 1, 1, 2], [-10, 0]), null, null,
    c64('sizes', [4], [1, 1, 1, 4])], { mode: 'linear', coordinate_transformation_mode: 'align_corners' }, [['y', 'int32']]));
  // Window functions: a symmetric window of size 1 divides 0 by 0 (NaN; kiln gave a0 - a1), and
  // an integer window casts the float window (Blackman's middle value 1, not 0.99999... -> 0).
  const size = (n) => T('int64', 'n', [], [n], { constant: true });
  out.push(one('HammingWindow_17_regress_symmetric_size1', 'HammingWindow', 18, [size(1)], { periodic: 0 }));
  out.push(one('HannWindow_17_regress_symmetric_size1', 'HannWindow', 18, [size(1)], { periodic: 0 }));
  out.push(one('BlackmanWindow_17_regress_int64', 'BlackmanWindow', 18, [size(4)], { output_datatype: b.DT.int64 },
    [['y', 'int64']]));
  // QuantizeLinear-21 of float16: x / scale in float (kiln rounded the quotient to float16:
  // 148.375 / 1.137 = 130.53 became 130.5, then 130 by round-half-even).
  out.push(one('QuantizeLinear_21_regress_float16_quotient', 'QuantizeLinear', 21, [
    T('float16', 'x', [4, 2], [231.5, -140, 148.375, 41, -141.5, -135.25, -52.5, 228.25]),
    T('float16', 'sc', [4], [3.908, 1.137, 1.209, 1.262]),
    T('uint8', 'zp', [4], [8, 9, 6, 15], { constant: true })], { axis: -2 }, [['y', 'uint8']]));
  // float16 BatchNormalization / Gemm: the optimizer rewrote them into float16 Mul / Add with
  // the folded constants rounded to float16 (4 ulps off; Gemm's beta * C cancelling A * B).
  out.push(one('BatchNormalization_15_regress_float16', 'BatchNormalization', 19, [
    T('float16', 'x', [1, 2, 2, 2], [1.727, 0.3523, -1.57, 0.49, 1.887, -1.427, 2.56, -0.4653]),
    T('float', 'sc', [2], [0.8544839, 2.8742018], { constant: true }),
    T('float', 'b', [2], [1.0985296, -1.9928288], { constant: true }),
    T('float', 'm', [2], [-2.006997, 1.7953287], { constant: true }),
    T('float', 'v', [2], [1.1039755, 1.6680204], { constant: true })], { epsilon: 1e-3 }, [['y', 'float16']]));
  out.push(one('Gemm_13_regress_float16_beta', 'Gemm', 19, [
    T('float16', 'a', [2, 2], [-1500, 0.5, 3, -1400]),
    T('float16', 'b', [2, 2], [1, 0.25, 2, 1], { constant: true }),
    T('float16', 'c', [2], [1001, 935])], { beta: 1.5 }, [['y', 'float16']]));
  out.push(one('Gemm_13_regress_float16_alpha', 'Gemm', 19, [
    T('float16', 'a', [2, 3], [1.1, -2.3, 0.7, 3.3, 1.9, -0.6]),
    T('float16', 'b', [3, 2], [0.3, 1.7, -1.1, 0.9, 2.2, -0.4], { constant: true }),
    T('float16', 'c', [1, 2], [-2.5, 1.5], { constant: true })], { alpha: 0.3, beta: 0.7, transA: 0 }, [['y', 'float16']]));
  // NaN through the activations whose formula clamps (np.clip / maximum / minimum in ONNX's
  // reference): kiln's std::max(0, std::min(1, NaN)) gave 1 (HardSigmoid), 0 (Celu).
  const special = [NaN, 1.5, -0.5, Infinity, -Infinity, 0, -3, 7];
  const fx = (dims) => ({ name: 'x', type: 'float', dims, data: special });
  out.push(one('HardSigmoid_22_regress_nan', 'HardSigmoid', 22, [fx([8])], { alpha: 0.3, beta: 0.4 }));
  out.push(one('HardSwish_22_regress_nan', 'HardSwish', 22, [fx([2, 4])]));
  out.push(one('Celu_12_regress_nan', 'Celu', 22, [fx([8])], { alpha: 0.8 }));
  return out;
}

module.exports = { cases };
