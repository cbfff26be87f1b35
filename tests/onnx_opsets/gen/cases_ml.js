'use strict';
// The ai.onnx.ml operators of classic exported models (scikit-learn, XGBoost, LightGBM through
// skl2onnx / onnxmltools): linear models, SVMs, trees, encoders and scalers.
const b = require('./onnx_builder');
const { f } = require('./case_util');

const ML = 'ai.onnx.ml';
const ml = (name, op, opset, inputs, attrs, outputs) => ({ name, op, opset, domain: ML, inputs, attrs, outputs });
const str = (name, dims, data) => ({ name, type: 'string', dims, data });
const TRANSFORMS = ['NONE', 'SOFTMAX', 'LOGISTIC', 'SOFTMAX_ZERO', 'PROBIT'];

function linearCases() {
  const out = [];
  const x = f('x', [4, 3], { gen: [-2, 2] });
  for (const pt of TRANSFORMS) {
    out.push(ml(`LinearClassifier_1_ovr_${pt}`, 'LinearClassifier', 1, [x], {
      coefficients: [0.5, -1, 0.25, 1, 0.3, -0.7, -0.2, 0.9, 0.4], intercepts: [0.1, -0.2, 0.05],
      classlabels_ints: [7, 8, 9], post_transform: pt,
    }, [['label', 'int64'], ['scores', 'float']]));
    out.push(ml(`LinearRegressor_1_${pt}`, 'LinearRegressor', 1, [x], {
      coefficients: [0.5, -1, 0.25, 1, 0.3, -0.7], intercepts: [0.1, -0.2], targets: 2, post_transform: pt,
    }, [['y', 'float']]));
  }
  out.push(ml('LinearClassifier_1_binary_strings', 'LinearClassifier', 1, [x], {
    coefficients: [0.5, -1, 0.25], intercepts: [0.1], classlabels_strings: ['no', 'yes'],
  }, [['label', 'string'], ['scores', 'float']]));
  out.push(ml('LinearClassifier_1_binary_logistic', 'LinearClassifier', 1, [x], {
    coefficients: [0.5, -1, 0.25], intercepts: [0.1], classlabels_ints: [0, 1], post_transform: 'LOGISTIC',
  }, [['label', 'int64'], ['scores', 'float']]));
  out.push(ml('LinearClassifier_1_int_input', 'LinearClassifier', 1, [{ name: 'x', type: 'int64', dims: [3, 2], gen: [-3, 3] }], {
    coefficients: [1, -1, 0.5, 0.5], intercepts: [0.25, -0.5], classlabels_ints: [1, 2], multi_class: 1,
  }, [['label', 'int64'], ['scores', 'float']]));
  out.push(ml('LinearRegressor_1_single', 'LinearRegressor', 1, [{ name: 'x', type: 'double', dims: [2, 3] }],
    { coefficients: [0.5, -1, 0.25], intercepts: ['floats', [3]] }, [['y', 'float']]));
  return out;
}

function transformCases() {
  const out = [];
  for (const norm of ['MAX', 'L1', 'L2']) {
    out.push(ml(`Normalizer_1_${norm}`, 'Normalizer', 1, [f('x', [3, 4], { gen: [-2, 2] })], { norm }, [['y', 'float']]));
  }
  out.push(ml('Normalizer_1_L1_int', 'Normalizer', 1, [{ name: 'x', type: 'int64', dims: [2, 3], gen: [0, 5] }], { norm: 'L1' }, [['y', 'float']]));
  out.push(ml('Scaler_1', 'Scaler', 1, [f('x', [3, 4])], { offset: [0.5, -1, 2, 0], scale: [2, 0.5, -1, 3] }, [['y', 'float']]));
  out.push(ml('Scaler_1_broadcast_int', 'Scaler', 1, [{ name: 'x', type: 'int32', dims: [2, 3], gen: [-5, 5] }],
    { offset: [1.5], scale: [0.25] }, [['y', 'float']]));
  out.push(ml('Binarizer_1', 'Binarizer', 1, [f('x', [3, 4])], { threshold: 0.2 }, [['y', 'float']]));
  out.push(ml('Binarizer_1_int', 'Binarizer', 1, [{ name: 'x', type: 'int64', dims: [5], gen: [-3, 3] }], {}, [['y', 'int64']]));
  out.push(ml('Imputer_1_float', 'Imputer', 1, [f('x', [3, 3], { data: [1, NaN, 3, NaN, 5, 6, 7, 8, NaN] })],
    { imputed_value_floats: ['floats', [10, 20, 30]], replaced_value_float: NaN }, [['y', 'float']]));
  out.push(ml('Imputer_1_int', 'Imputer', 1, [{ name: 'x', type: 'int64', dims: [2, 3], data: [0, 1, -1, -1, 4, -1] }],
    { imputed_value_int64s: [9], replaced_value_int64: -1 }, [['y', 'int64']]));
  out.push(ml('ArrayFeatureExtractor_1', 'ArrayFeatureExtractor', 1,
    [f('x', [2, 5]), { name: 'i', type: 'int64', dims: [3], data: [4, 0, 2] }], {}, [['y', 'float']]));
  out.push(ml('ArrayFeatureExtractor_1_strings', 'ArrayFeatureExtractor', 1,
    [str('x', [2, 3], ['a', 'b', 'c', 'd', 'e', 'f']), { name: 'i', type: 'int64', dims: [1, 2], data: [2, 1] }], {}, [['y', 'string']]));
  out.push(ml('FeatureVectorizer_1', 'FeatureVectorizer', 1, [f('a', [2, 2]), f('b', [2, 3])],
    { inputdimensions: [2, 3] }, [['y', 'float']]));
  return out;
}

function encoderCases() {
  const out = [];
  const names = ['Amy', 'Sally', 'Dori', 'Bob', 'Amy', 'Zed'];
  out.push(ml('LabelEncoder_2_string_to_int', 'LabelEncoder', 2, [str('x', [2, 3], names)],
    { keys_strings: ['Amy', 'Sally', 'Bob'], values_int64s: [5, 6, 7], default_int64: -42 }, [['y', 'int64']]));
  out.push(ml('LabelEncoder_2_int_to_string', 'LabelEncoder', 2, [{ name: 'x', type: 'int64', dims: [5], data: [1, 2, 3, 4, 1] }],
    { keys_int64s: [1, 3], values_strings: ['one', 'three'], default_string: '?' }, [['y', 'string']]));
  out.push(ml('LabelEncoder_2_float_to_float', 'LabelEncoder', 2, [f('x', [4], { data: [0.5, 1.5, NaN, 2] })],
    { keys_floats: [0.5, NaN, 2], values_floats: ['floats', [10, 20, 30]], default_float: ['float', -1] }, [['y', 'float']]));
  out.push(ml('LabelEncoder_1_string_to_int', 'LabelEncoder', 1, [str('x', [3], ['a', 'b', 'z'])],
    { classes_strings: ['a', 'b', 'c'], default_int64: 99 }, [['y', 'int64']]));
  out.push(ml('LabelEncoder_4_tensor_keys', 'LabelEncoder', 4, [{ name: 'x', type: 'int64', dims: [4], data: [1, 2, 3, 9] }],
    { keys_tensor: ['tensor', b.tensor('k', 'int64', [3], [1, 2, 3])], values_tensor: ['tensor', b.tensor('v', 'float', [3], [-1.5, -2, -3])],
      default_tensor: ['tensor', b.tensor('d', 'float', [1], [100])] }, [['y', 'float']]));
  out.push(ml('LabelEncoder_4_int32_int16', 'LabelEncoder', 4, [{ name: 'x', type: 'int32', dims: [4], data: [1, 2, 3, 9] }],
    { keys_tensor: ['tensor', b.tensor('k', 'int32', [3], [1, 2, 3])], values_tensor: ['tensor', b.tensor('v', 'int16', [3], [-1, -2, -3])],
      default_tensor: ['tensor', b.tensor('d', 'int16', [1], [100])] }, [['y', 'int16']]));
  out.push(ml('LabelEncoder_4_double', 'LabelEncoder', 4, [{ name: 'x', type: 'double', dims: [3], data: [0.25, 7, 1] }],
    { keys_tensor: ['tensor', b.tensor('k', 'double', [2], [0.25, 1])], values_tensor: ['tensor', b.tensor('v', 'string', [2], ['q', 'one'])] },
    [['y', 'string']]));
  out.push(ml('LabelEncoder_4_string_tensor_keys', 'LabelEncoder', 4, [str('x', [4], ['a', 'b', 'zz', 'c'])],
    { keys_tensor: ['tensor', b.tensor('k', 'string', [3], ['a', 'b', 'c'])],
      values_tensor: ['tensor', b.tensor('v', 'int64', [3], [10, 20, 30])] }, [['y', 'int64']]));
  out.push(ml('OneHotEncoder_1_ints', 'OneHotEncoder', 1, [{ name: 'x', type: 'int64', dims: [2, 2], data: [1, 5, 3, 9] }],
    { cats_int64s: [1, 3, 5, 7] }, [['y', 'float']]));
  out.push(ml('OneHotEncoder_1_strings', 'OneHotEncoder', 1, [str('x', [3], ['b', 'q', 'a'])], { cats_strings: ['a', 'b', 'c'] }, [['y', 'float']]));
  out.push(ml('OneHotEncoder_1_float', 'OneHotEncoder', 1, [f('x', [3], { data: [2, 0, 1.7] })], { cats_int64s: [0, 1, 2] }, [['y', 'float']]));
  out.push(ml('CategoryMapper_1_to_int', 'CategoryMapper', 1, [str('x', [2, 3], names)],
    { cats_strings: ['Amy', 'Bob', 'Zed'], cats_int64s: [1, 2, 3], default_int64: -5 }, [['y', 'int64']]));
  out.push(ml('CategoryMapper_1_to_string', 'CategoryMapper', 1, [{ name: 'x', type: 'int64', dims: [4], data: [3, 1, 8, 2] }],
    { cats_strings: ['Amy', 'Bob', 'Zed'], cats_int64s: [1, 2, 3], default_string: 'none' }, [['y', 'string']]));
  return out;
}

function svmCases() {
  const out = [];
  const x = f('x', [3, 2], { gen: [-1.5, 1.5] });
  const sv = [0.5, 1, -1, 0.3, 0.2, -0.8, -0.4, -0.6];
  for (const kernel of ['LINEAR', 'POLY', 'RBF', 'SIGMOID']) {
    out.push(ml(`SVMRegressor_1_${kernel}`, 'SVMRegressor', 1, [x], {
      coefficients: [0.8, -0.5, 0.3, 1], kernel_params: [0.7, 0.2, 3], kernel_type: kernel, n_supports: 4,
      rho: [0.1], support_vectors: sv,
    }, [['y', 'float']]));
    out.push(ml(`SVMClassifier_1_binary_${kernel}`, 'SVMClassifier', 1, [x], {
      classlabels_ints: [0, 1], coefficients: [0.8, -0.5, 0.3, -1], kernel_params: [0.7, 0.2, 2], kernel_type: kernel,
      rho: [0.1], support_vectors: sv, vectors_per_class: [2, 2],
    }, [['label', 'int64'], ['scores', 'float']]));
    out.push(ml(`SVMClassifier_1_3class_${kernel}`, 'SVMClassifier', 1, [x], {
      classlabels_strings: ['a', 'b', 'c'], coefficients: [0.8, -0.5, 0.3, -1, 0.6, 0.1, -0.2, 0.9],
      kernel_params: [0.5, 0.1, 2], kernel_type: kernel, rho: [0.1, -0.2, 0.3], support_vectors: sv, vectors_per_class: [1, 2, 1],
    }, [['label', 'string'], ['scores', 'float']]));
  }
  out.push(ml('SVMClassifier_1_prob', 'SVMClassifier', 1, [x], {
    classlabels_ints: [3, 4, 5], coefficients: [0.8, -0.5, 0.3, -1, 0.6, 0.1, -0.2, 0.9], kernel_params: [0.5, 0.1, 2],
    kernel_type: 'RBF', rho: [0.1, -0.2, 0.3], support_vectors: sv, vectors_per_class: [1, 2, 1],
    prob_a: [-1.2, -0.8, -1.5], prob_b: [0.1, -0.2, 0.05],
  }, [['label', 'int64'], ['scores', 'float']]));
  out.push(ml('SVMClassifier_1_linear_coefs', 'SVMClassifier', 1, [x], {
    classlabels_ints: [0, 1, 2], coefficients: [0.5, -1, 1, 0.2, -0.3, 0.8], rho: [0.1, 0.2, -0.1], kernel_type: 'LINEAR',
    kernel_params: ['floats', [0, 0, 0]],
    post_transform: 'SOFTMAX',
  }, [['label', 'int64'], ['scores', 'float']]));
  out.push(ml('SVMRegressor_1_one_class', 'SVMRegressor', 1, [x], {
    coefficients: [0.8, -0.5, 0.3, 1], kernel_params: [0.7, 0.2, 3], kernel_type: 'RBF', n_supports: 4, one_class: 1,
    rho: [0.1], support_vectors: sv,
  }, [['y', 'float']]));
  return out;
}

// Two trees on 3 features: tree 0 splits x0 <= 0.2 then x2 < -0.1; tree 1 splits x1 >= 0.
const TREE = {
  nodes_treeids: [0, 0, 0, 0, 0, 1, 1, 1], nodes_nodeids: [0, 1, 2, 3, 4, 0, 1, 2],
  nodes_featureids: [0, 2, 0, 0, 0, 1, 0, 0], nodes_values: [0.2, -0.1, 0, 0, 0, 0, 0, 0],
  nodes_modes: ['BRANCH_LEQ', 'BRANCH_LT', 'LEAF', 'LEAF', 'LEAF', 'BRANCH_GTE', 'LEAF', 'LEAF'],
  nodes_truenodeids: [1, 3, 0, 0, 0, 1, 0, 0], nodes_falsenodeids: [2, 4, 0, 0, 0, 2, 0, 0],
  nodes_missing_value_tracks_true: [1, 0, 0, 0, 0, 0, 0, 0],
};

function treeCases() {
  const out = [];
  const x = f('x', [5, 3], { data: [0.1, 0.5, -0.5, 0.9, -0.2, 0.3, NaN, 0.1, 0.2, -1, 0, 0, 0.3, 1, -0.3] });
  for (const agg of ['SUM', 'AVERAGE', 'MIN', 'MAX']) {
    out.push(ml(`TreeEnsembleRegressor_3_${agg}`, 'TreeEnsembleRegressor', 3, [x], Object.assign({}, TREE, {
      target_treeids: [0, 0, 0, 1, 1, 1], target_nodeids: [2, 3, 4, 1, 2, 2], target_ids: [0, 0, 0, 0, 0, 1],
      target_weights: [1.5, -2, 0.25, 3, -1, 0.5], n_targets: 2, aggregate_function: agg, base_values: [0.1, -0.1],
    }), [['y', 'float']]));
  }
  for (const pt of ['NONE', 'SOFTMAX', 'LOGISTIC']) {
    out.push(ml(`TreeEnsembleClassifier_3_${pt}`, 'TreeEnsembleClassifier', 3, [x], Object.assign({}, TREE, {
      class_treeids: [0, 0, 0, 0, 1, 1], class_nodeids: [2, 3, 4, 4, 1, 2], class_ids: [0, 1, 2, 0, 1, 2],
      class_weights: [0.5, 0.7, 0.2, 0.1, 0.4, 0.9], classlabels_int64s: [10, 20, 30], post_transform: pt,
    }), [['label', 'int64'], ['scores', 'float']]));
  }
  out.push(ml('TreeEnsembleClassifier_3_binary', 'TreeEnsembleClassifier', 3, [x], Object.assign({}, TREE, {
    class_treeids: [0, 0, 0, 1, 1], class_nodeids: [2, 3, 4, 1, 2], class_ids: [0, 0, 0, 0, 0],
    class_weights: [0.5, -0.7, 0.2, 0.1, -0.4], classlabels_strings: ['neg', 'pos'], post_transform: 'LOGISTIC',
  }), [['label', 'string'], ['scores', 'float']]));
  // Version 3 (ml opset 3): thresholds, weights and base values as double tensors.
  const asTensor = (name, v) => ['tensor', b.tensor(name, 'double', [v.length], v)];
  const xd = Object.assign({}, x, { type: 'double' });
  const t5 = Object.assign({}, TREE);
  delete t5.nodes_values;
  out.push(ml('TreeEnsembleRegressor_3_as_tensor', 'TreeEnsembleRegressor', 3, [xd], Object.assign(t5, {
    nodes_values_as_tensor: asTensor('nv', TREE.nodes_values),
    target_treeids: [0, 0, 0, 1, 1], target_nodeids: [2, 3, 4, 1, 2], target_ids: [0, 0, 0, 0, 0],
    target_weights_as_tensor: asTensor('tw', [1.5, -2, 0.25, 3, -1]), n_targets: 1,
    base_values_as_tensor: asTensor('bv', [0.5]),
  }), [['y', 'float']]));
  const c5 = Object.assign({}, TREE);
  delete c5.nodes_values;
  out.push(ml('TreeEnsembleClassifier_3_as_tensor', 'TreeEnsembleClassifier', 3, [xd], Object.assign(c5, {
    nodes_values_as_tensor: asTensor('nv', TREE.nodes_values),
    class_treeids: [0, 0, 0, 0, 1, 1], class_nodeids: [2, 3, 4, 4, 1, 2], class_ids: [0, 1, 2, 0, 1, 2],
    class_weights_as_tensor: asTensor('cw', [0.5, 0.7, 0.2, 0.1, 0.4, 0.9]), classlabels_strings: ['a', 'b', 'c'],
    post_transform: 'SOFTMAX', base_values_as_tensor: asTensor('bv', [0.1, 0.2, 0.3]),
  }), [['label', 'string'], ['scores', 'float']]));
  out.push(ml('TreeEnsembleClassifier_3_binary_positive', 'TreeEnsembleClassifier', 3, [x], Object.assign({}, TREE, {
    class_treeids: [0, 0, 0, 1, 1], class_nodeids: [2, 3, 4, 1, 2], class_ids: [1, 1, 1, 1, 1],
    class_weights: [0.5, 0.7, 0.2, 0.1, 0.4], classlabels_int64s: [0, 1],
  }), [['label', 'int64'], ['scores', 'float']]));
  // TreeEnsemble-5: the same two trees, leaves as their own table.
  const te = (name, agg, pt, extra = {}) => ml(name, 'TreeEnsemble', 5, [x], Object.assign({
    tree_roots: [0, 2], nodes_featureids: [0, 2, 1], nodes_splits: ['tensor', b.tensor('s', 'float', [3], [0.2, -0.1, 0])],
    nodes_modes: ['tensor', b.tensor('m', 'uint8', [3], [0, 1, 2])],
    nodes_truenodeids: [1, 0, 3], nodes_trueleafs: [0, 1, 1], nodes_falsenodeids: [2, 1, 4], nodes_falseleafs: [1, 1, 1],
    nodes_missing_value_tracks_true: [1, 0, 0],
    leaf_targetids: [0, 0, 1, 0, 1], leaf_weights: ['tensor', b.tensor('w', 'float', [5], [1.5, -2, 0.25, 3, -1])],
    n_targets: 2, aggregate_function: agg, post_transform: pt,
  }, extra), [['y', 'float']]);
  for (const [agg, name] of [[0, 'AVERAGE'], [1, 'SUM'], [2, 'MIN'], [3, 'MAX']]) out.push(te(`TreeEnsemble_5_${name}`, agg, 0));
  out.push(te('TreeEnsemble_5_softmax', 1, 1));
  out.push(te('TreeEnsemble_5_member', 1, 0, {
    nodes_modes: ['tensor', b.tensor('m', 'uint8', [3], [6, 1, 5])],
    membership_values: ['tensor', b.tensor('mv', 'float', [4], [0.1, 0.9, 1, NaN])],
  }));
  return out;
}

function cases() {
  return [...linearCases(), ...transformCases(), ...encoderCases(), ...svmCases(), ...treeCases()];
}

module.exports = { cases };
