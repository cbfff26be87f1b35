'use strict';
// Resize-18/19 (antialias, axes, keep_aspect_ratio_policy, half_pixel_symmetric), GridSample-20/22
// (linear/nearest/cubic names, 2-D and 3-D, padding modes), AffineGrid-20, RoiAlign-22, DFT-20.
const { f, i64, c64, one } = require('./case_util');

const scalesOf = (v) => f('scales', [v.length], { data: v, constant: true });
const sizesOf = (v) => c64('sizes', [v.length], v);

function resizeCases() {
  const out = [];
  const x = f('x', [1, 2, 5, 6]);
  for (const opset of [18, 19]) {
    for (const mode of ['nearest', 'linear', 'cubic']) {
      out.push(one(`Resize_${opset}_${mode}_down_antialias`, 'Resize', opset, [x, null, scalesOf([1, 1, 0.6, 0.5])],
        { mode, antialias: 1 }));
      out.push(one(`Resize_${opset}_${mode}_up_antialias`, 'Resize', opset, [x, null, scalesOf([1, 1, 1.5, 2])],
        { mode, antialias: 1 }));
      out.push(one(`Resize_${opset}_${mode}_axes_scales`, 'Resize', opset, [x, null, scalesOf([0.8, 1.7])],
        { mode, axes: [3, 2] }));
      out.push(one(`Resize_${opset}_${mode}_axes_sizes`, 'Resize', opset, [x, null, null, sizesOf([3, 9])],
        { mode, axes: [-2, -1] }));
      for (const policy of ['not_larger', 'not_smaller']) {
        out.push(one(`Resize_${opset}_${mode}_${policy}`, 'Resize', opset, [x, null, null, sizesOf([4, 8])],
          { mode, axes: [2, 3], keep_aspect_ratio_policy: policy }));
      }
    }
    out.push(one(`Resize_${opset}_linear_antialias_align_corners`, 'Resize', opset, [x, null, scalesOf([1, 1, 0.5, 0.5])],
      { mode: 'linear', antialias: 1, coordinate_transformation_mode: 'align_corners' }));
    out.push(one(`Resize_${opset}_linear_align_corners_fractional`, 'Resize', opset, [x, null, scalesOf([1, 1, 0.6, 0.5])],
      { mode: 'linear', coordinate_transformation_mode: 'align_corners' }));
    out.push(one(`Resize_${opset}_cubic_antialias_exclude`, 'Resize', opset, [x, null, scalesOf([1, 1, 0.4, 0.7])],
      { mode: 'cubic', antialias: 1, exclude_outside: 1, cubic_coeff_a: -0.5 }));
    out.push(one(`Resize_${opset}_3d_linear_antialias`, 'Resize', opset, [f('x', [1, 1, 4, 5, 6]), null, scalesOf([1, 1, 0.5, 0.6, 0.5])],
      { mode: 'linear', antialias: 1 }));
  }
  for (const mode of ['nearest', 'linear', 'cubic']) {
    for (const s of [[1, 1, 0.6, 1.7], [1, 1, 2.5, 0.5]]) {
      out.push(one(`Resize_19_${mode}_half_pixel_symmetric_${s[2]}`, 'Resize', 19, [x, null, scalesOf(s)],
        { mode, coordinate_transformation_mode: 'half_pixel_symmetric' }));
    }
    out.push(one(`Resize_19_${mode}_half_pixel_symmetric_sizes`, 'Resize', 19, [x, null, null, sizesOf([1, 2, 3, 11])],
      { mode, coordinate_transformation_mode: 'half_pixel_symmetric' }));
  }
  return out;
}

function gridCases() {
  const out = [];
  for (const opset of [20, 22]) {
    for (const mode of ['linear', 'nearest', 'cubic']) {
      for (const pad of ['zeros', 'border', 'reflection']) {
        for (const ac of [0, 1]) {
          out.push(one(`GridSample_${opset}_${mode}_${pad}_ac${ac}`, 'GridSample', opset,
            [f('x', [1, 2, 4, 5]), f('grid', [1, 3, 4, 2], { gen: [-1.3, 1.3] })],
            { mode, padding_mode: pad, align_corners: ac }));
        }
      }
    }
    for (const mode of ['linear', 'nearest']) {
      for (const pad of ['zeros', 'border', 'reflection']) {
        out.push(one(`GridSample_${opset}_3d_${mode}_${pad}`, 'GridSample', opset,
          [f('x', [2, 2, 3, 4, 5]), f('grid', [2, 2, 3, 2, 3], { gen: [-1.2, 1.2] })], { mode, padding_mode: pad }));
      }
    }
  }
  return out;
}

function affineGridCases() {
  const out = [];
  for (const ac of [0, 1]) {
    out.push(one(`AffineGrid_20_2d_ac${ac}`, 'AffineGrid', 20,
      [f('theta', [2, 2, 3], { gen: [-1, 1] }), c64('size', [4], [2, 3, 4, 5])], { align_corners: ac }));
    out.push(one(`AffineGrid_20_3d_ac${ac}`, 'AffineGrid', 20,
      [f('theta', [1, 3, 4], { gen: [-1, 1] }), c64('size', [5], [1, 2, 3, 4, 2])], { align_corners: ac }));
  }
  out.push(one('AffineGrid_20_size_input', 'AffineGrid', 20, [f('theta', [1, 2, 3]), i64('size', [4], [1, 1, 2, 3])]));
  return out;
}

function roiCases() {
  const out = [];
  const rois = f('rois', [3, 4], { data: [0, 0, 4, 4, 1, 1.5, 3.2, 5, 0.5, 0.2, 2.7, 2.2], constant: true });
  const idx = c64('batch', [3], [0, 1, 1]);
  for (const opset of [21, 22]) {  // ONNX Runtime has RoiAlign-16 only: 21 selects it
    for (const mode of ['avg', 'max']) {
      for (const ctm of ['half_pixel', 'output_half_pixel']) {
        out.push(one(`RoiAlign_${opset}_${mode}_${ctm}`, 'RoiAlign', opset, [f('x', [2, 2, 6, 6]), rois, idx],
          { mode, coordinate_transformation_mode: ctm, output_height: 2, output_width: 3, sampling_ratio: 2, spatial_scale: 0.9 }));
      }
    }
    out.push(one(`RoiAlign_${opset}_adaptive_sampling`, 'RoiAlign', opset, [f('x', [2, 1, 8, 8]), rois, idx],
      { output_height: 3, output_width: 3 }));
  }
  return out;
}

function dftCases() {
  const out = [];
  out.push(one('DFT_20_real_axis_input', 'DFT', 20, [f('x', [2, 8, 1]), null, c64('axis', [], [1])]));
  out.push(one('DFT_20_complex_inverse', 'DFT', 20, [f('x', [2, 6, 2]), null, c64('axis', [], [-2])], { inverse: 1 }));
  out.push(one('DFT_20_onesided_length', 'DFT', 20, [f('x', [3, 7, 1]), c64('len', [], [10]), c64('axis', [], [1])], { onesided: 1 }));
  out.push(one('DFT_20_truncate_length', 'DFT', 20, [f('x', [1, 9, 2]), c64('len', [], [5])]));
  out.push(one('DFT_20_axis0', 'DFT', 20, [f('x', [6, 3, 2]), null, c64('axis', [], [0])]));
  out.push(one('DFT_20_double', 'DFT', 20, [{ name: 'x', type: 'double', dims: [4, 1] }, null, c64('axis', [], [0])], {},
    [['y', 'double']]));
  out.push(one('DFT_20_default_axis', 'DFT', 20, [f('x', [2, 4, 5, 1])]));
  return out;
}

function cases() {
  return [...resizeCases(), ...gridCases(), ...affineGridCases(), ...roiCases(), ...dftCases()];
}

module.exports = { cases };
