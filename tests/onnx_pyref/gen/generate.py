#!/usr/bin/python3
"""Generates tests/onnx_pyref: single-operator cases of the operators ONNX Runtime's node API
(tests/onnx_opsets/gen) cannot check -- the map operators (ZipMap, DictVectorizer, CastMap take or
make map / seq(map) values, which onnxruntime-node cannot feed or fetch) and ImageDecoder (which
ONNX Runtime does not implement). Expected values come from Python references written here (the
operators' semantics as ONNX Runtime implements them, see each case) and from PIL (Debian's
python3-pil) for the decoded images, never from kiln.

  /usr/bin/python3 tests/onnx_pyref/gen/generate.py   (Debian's python3-numpy, python3-pil)

writes cases/<name>/{model.onnx,test_data_set_0/{input,output}_N.pb}, manifest.txt (cases whose
outputs must match) and errors.txt (cases kiln must refuse with an error matching a regex).
"""
import io
import re
import os
import shutil
import struct
import sys
import zlib

import numpy as np
from PIL import Image

sys.path.insert(0, os.path.dirname(__file__))
import onnx_pb as pb  # noqa: E402

SUITE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CASES = os.path.join(SUITE, 'cases')
ML = 'ai.onnx.ml'
manifest, errors = [], []


def write_case(name, op, opset, domain, model, inputs, outputs, error=None):
    d = os.path.join(CASES, name, 'test_data_set_0')
    os.makedirs(d)
    with open(os.path.join(CASES, name, 'model.onnx'), 'wb') as f:
        f.write(model)
    for i, data in enumerate(inputs):
        with open(os.path.join(d, 'input_%d.pb' % i), 'wb') as f:
            f.write(data)
    for i, data in enumerate(outputs):
        with open(os.path.join(d, 'output_%d.pb' % i), 'wb') as f:
            f.write(data)
    line = '%s %s %s %d' % (name, domain or 'ai.onnx', op, opset)
    if error:
        errors.append('%s %s' % (line, error))
    else:
        manifest.append(line)


# ---------------------------------------------------------------- edge cases
def empty_case(name, op, opset, inputs, attrs, out_dims, out_type=pb.FLOAT, domain='', opsets=None):
    """An operator version ONNX Runtime 1.30 has no kernel for (or refuses the empty input of), on
    an empty tensor: the spec's output shape (out_dims, a zero dimension) is the whole answer.
    inputs: [(name, dtype, dims, values)]; values None: a graph input fed as an empty tensor."""
    feeds = [i for i in inputs if i[3] is None]
    inits = [pb.tensor(n, t, d, v) for n, t, d, v in inputs if v is not None]
    m = pb.model([pb.node(op, [i[0] for i in inputs], ['y'], domain, **attrs)],
                 [pb.value_info(n, pb.tensor_type(t, d)) for n, t, d, _ in feeds],
                 [pb.value_info('y', pb.tensor_type(out_type, out_dims))],
                 opsets or {'': opset}, inits)
    write_case(name, op, opset, domain, m, [pb.tensor(n, t, d, []) for n, t, d, _ in feeds],
               [pb.tensor('y', out_type, out_dims, [])])


def probit(p):
    # ONNX Runtime's probit (onnxruntime/core/providers/cpu/ml/ml_common.h, which its LinearClassifier
    # PROBIT cases in tests/onnx_opsets check kiln against): sqrt(2) erfinv(2p - 1) with Winitzki's
    # erfinv approximation (a = 0.147), computed here in float64.
    x = 2.0 * p - 1.0
    ln = np.log((1.0 - x) * (1.0 + x))
    v = 2.0 / (np.pi * 0.147) + 0.5 * ln
    return np.sqrt(2.0) * np.sign(x) * np.sqrt(-v + np.sqrt(v * v - ln / 0.147))


def svm_probit_case():
    # SVMRegressor, LINEAR kernel, PROBIT (ONNX Runtime ignores the transform: tests/onnx_opsets/
    # known_failures.txt): y = probit(sum_i c_i <x, sv_i> + rho).
    x = np.array([[0.1, -0.3], [0.4, 0.2], [-0.2, 0.1]], np.float32)
    sv = np.array([[0.5, 1.0], [-1.0, 0.3], [0.2, -0.8]], np.float32)
    coef, rho = np.array([0.3, -0.2, 0.25]), 0.1
    score = (x.astype(np.float64) @ sv.T.astype(np.float64)) @ coef + rho
    y = probit(score).astype(np.float32).reshape(3, 1)
    m = pb.model([pb.node('SVMRegressor', ['x'], ['y'], ML, coefficients=coef.tolist(), kernel_type='LINEAR',
                          kernel_params=[0.0, 0.0, 0.0], n_supports=3, rho=[rho], support_vectors=sv.ravel().tolist(),
                          post_transform='PROBIT')],
                 [pb.value_info('x', pb.tensor_type(pb.FLOAT, [3, 2]))],
                 [pb.value_info('y', pb.tensor_type(pb.FLOAT, [3, 1]))], {'': 21, ML: 1})
    write_case('SVMRegressor_1_edge_PROBIT_ref', 'SVMRegressor', 1, ML, m,
               [pb.tensor('x', pb.FLOAT, [3, 2], x.ravel().tolist())], [pb.tensor('y', pb.FLOAT, [3, 1], y.ravel().tolist())])


def tree_ensemble_transform_cases():
    # TreeEnsemble-5 post_transform 1 (SOFTMAX) and 2 (LOGISTIC) in the spec's encoding (ONNX Runtime
    # reads them in its own enum order: tests/onnx_opsets/known_failures.txt). One split on feature 0
    # at 0.2 (BRANCH_LEQ): true -> leaf 0 (target 0, 0.4), false -> leaf 1 (target 1, -0.6); SUM.
    x = np.array([[0.1], [0.5], [-0.3], [0.2]], np.float32)
    raw = np.where(x <= np.float32(0.2), [[0.4, 0.0]], [[0.0, -0.6]]).astype(np.float64)
    refs = {1: np.exp(raw - raw.max(1, keepdims=True)) / np.exp(raw - raw.max(1, keepdims=True)).sum(1, keepdims=True),
            2: 1.0 / (1.0 + np.exp(-raw))}
    for pt, y in refs.items():
        m = pb.model([pb.node('TreeEnsemble', ['x'], ['y'], ML, tree_roots=[0], nodes_featureids=[0],
                              nodes_splits=pb.tensor('', pb.FLOAT, [1], [0.2]), nodes_modes=pb.tensor('', pb.UINT8, [1], [0]),
                              nodes_truenodeids=[0], nodes_trueleafs=[1], nodes_falsenodeids=[1], nodes_falseleafs=[1],
                              leaf_targetids=[0, 1], leaf_weights=pb.tensor('', pb.FLOAT, [2], [0.4, -0.6]),
                              n_targets=2, aggregate_function=1, post_transform=pt)],
                     [pb.value_info('x', pb.tensor_type(pb.FLOAT, [4, 1]))],
                     [pb.value_info('y', pb.tensor_type(pb.FLOAT, [4, 2]))], {'': 21, ML: 5})
        write_case('TreeEnsemble_5_edge_post%d_ref' % pt, 'TreeEnsemble', 5, ML, m,
                   [pb.tensor('x', pb.FLOAT, [4, 1], x.ravel().tolist())],
                   [pb.tensor('y', pb.FLOAT, [4, 2], y.astype(np.float32).ravel().tolist())])


def edge_cases():
    F = pb.FLOAT
    # Version 22 of these ops only adds bfloat16; ONNX Runtime 1.30 has no version-22 kernel.
    empty_case('GlobalLpPool_22_edge_empty', 'GlobalLpPool', 22, [('x', F, [0, 2, 3, 3], None)], {'p': 3}, [0, 2, 1, 1])
    empty_case('MaxRoiPool_22_edge_empty_rois', 'MaxRoiPool', 22,
               [('x', F, [1, 2, 4, 4], [0.5] * 32), ('rois', F, [0, 5], None)], {'pooled_shape': [2, 3]}, [0, 2, 2, 3])
    empty_case('MaxUnpool_22_edge_empty', 'MaxUnpool', 22,
               [('x', F, [0, 1, 2, 2], None), ('i', pb.INT64, [0, 1, 2, 2], None)],
               {'kernel_shape': [2, 2], 'strides': [2, 2]}, [0, 1, 4, 4])
    empty_case('RoiAlign_22_edge_empty_rois', 'RoiAlign', 22,
               [('x', F, [1, 2, 4, 4], [0.5] * 32), ('rois', F, [0, 4], None), ('b', pb.INT64, [0], None)],
               {'output_height': 2, 'output_width': 3}, [0, 2, 2, 3])
    # The generators (no version-22 kernel in ONNX Runtime): an empty request has one answer.
    empty_case('RandomNormal_22_edge_empty', 'RandomNormal', 22, [], {'shape': [0, 3], 'seed': 1.0}, [0, 3])
    empty_case('RandomUniform_22_edge_empty', 'RandomUniform', 22, [], {'shape': [2, 0], 'seed': 1.0}, [2, 0])
    empty_case('RandomNormalLike_22_edge_empty', 'RandomNormalLike', 22, [('x', F, [0, 3], None)], {'seed': 1.0}, [0, 3])
    empty_case('RandomUniformLike_22_edge_empty', 'RandomUniformLike', 22, [('x', F, [3, 0], None)], {'seed': 1.0}, [3, 0])
    empty_case('Bernoulli_22_edge_empty', 'Bernoulli', 22, [('x', F, [0, 2], None)], {'seed': 1.0}, [0, 2])
    empty_case('Multinomial_22_edge_empty_batch', 'Multinomial', 22, [('x', F, [0, 3], None)],
               {'sample_size': 4, 'seed': 1.0}, [0, 4], pb.INT32)
    # GroupNormalization on an empty batch (ONNX Runtime 1.30 fails in its internal Reshape).
    for o, groups in ((18, [2]), (21, [4])):
        empty_case('GroupNormalization_%d_edge_empty' % o, 'GroupNormalization', o,
                   [('x', F, [0, 4, 3], None), ('s', F, groups, [1.0] * groups[0]), ('b', F, groups, [0.0] * groups[0])],
                   {'num_groups': 2}, [0, 4, 3])
    # GRU and LSTM on an empty batch (ONNX Runtime 1.30 aborts on them): Y is [seq, directions, 0, hidden].
    empty_case('GRU_22_edge_empty_batch', 'GRU', 22,
               [('x', F, [3, 0, 3], None), ('w', F, [1, 6, 3], [0.25] * 18), ('r', F, [1, 6, 2], [-0.5] * 12)],
               {'hidden_size': 2}, [3, 1, 0, 2])
    empty_case('LSTM_22_edge_empty_batch', 'LSTM', 22,
               [('x', F, [3, 0, 3], None), ('w', F, [1, 8, 3], [0.25] * 24), ('r', F, [1, 8, 2], [-0.5] * 16)],
               {'hidden_size': 2}, [3, 1, 0, 2])
    # Attention on an empty batch (ONNX Runtime 1.30 refuses it): Y is [0, heads, q_len, v_head].
    for o in (23, 24, 25):
        empty_case('Attention_%d_edge_empty_batch' % o, 'Attention', o,
                   [('q', F, [0, 2, 3, 4], None), ('k', F, [0, 2, 5, 4], None), ('v', F, [0, 2, 5, 4], None)],
                   {}, [0, 2, 3, 4])
    svm_probit_case()
    tree_ensemble_transform_cases()
    # ZipMap of an empty batch: an empty sequence of maps.
    m = pb.model([pb.node('ZipMap', ['x'], ['z'], ML, classlabels_int64s=[1, 2, 3])],
                 [pb.value_info('x', pb.tensor_type(pb.FLOAT, [0, 3]))],
                 [pb.value_info('z', pb.seq_type(pb.map_type(pb.INT64, pb.FLOAT)))], {'': 18, ML: 1})
    write_case('ZipMap_1_edge_empty', 'ZipMap', 1, ML, m, [pb.tensor('x', pb.FLOAT, [0, 3], [])],
               [pb.sequence_of_maps('z', [])])


# ---------------------------------------------------------------- maps
def key_type_of(keys):
    return pb.STRING if isinstance(keys[0], str) else pb.INT64


def map_bytes(d, value_type, name=''):
    keys = list(d.keys())
    return pb.map_proto(name, key_type_of(keys), keys, value_type, [d[k] for k in keys])


def zipmap_cases():
    rng = np.random.default_rng(7)
    for suffix, labels, shape in [('int64', [10, 3, 7, 0], [3, 4]),
                                  ('strings', ['cat', 'dog', 'ant'], [2, 3]),
                                  ('1d', [5, -1], [2])]:
        x = rng.uniform(-1, 1, size=shape).astype(np.float32)
        attr = {'classlabels_strings' if isinstance(labels[0], str) else 'classlabels_int64s': labels}
        kt = key_type_of(labels)
        m = pb.model([pb.node('ZipMap', ['x'], ['z'], ML, **attr)],
                     [pb.value_info('x', pb.tensor_type(pb.FLOAT, shape))],
                     [pb.value_info('z', pb.seq_type(pb.map_type(kt, pb.FLOAT)))], {'': 18, ML: 1})
        rows = x.reshape(-1, len(labels))
        # ZipMap: row i -> {labels[j]: x[i, j]} (a 1-D input is one row)
        maps = [map_bytes({labels[j]: float(r[j]) for j in range(len(labels))}, pb.FLOAT) for r in rows]
        write_case('ZipMap_1_' + suffix, 'ZipMap', 1, ML, m,
                   [pb.tensor('x', pb.FLOAT, shape, x.ravel().tolist())],
                   [pb.sequence_of_maps('z', maps)])


def dictvectorizer_cases():
    # DictVectorizer: y[0, i] = map[vocabulary[i]], 0 (or "") when the map lacks the key; keys
    # outside the vocabulary are ignored (ONNX Runtime's dictvectorizer.h); shape [1, V].
    cases = [
        ('string_float', ['a', 'c', 'b', 'z'], {'a': 4.0, 'c': 8.0, 'q': 1.0}, pb.FLOAT),  # the spec's example
        ('string_double', ['x', 'y'], {'y': -2.5}, pb.DOUBLE),
        ('string_int64', ['k2', 'k1', 'k0'], {'k0': 5, 'k1': -7}, pb.INT64),
        ('int64_float', [1, 2, 3, 5], {5: 1.5, 2: -2.25}, pb.FLOAT),
        ('int64_double', [9, -4], {-4: 0.125, 9: 3.0, 100: 7.0}, pb.DOUBLE),
        ('int64_string', [3, 1, 4], {1: 'x', 3: 'y'}, pb.STRING),
        ('empty_map', [1, 2], {}, pb.FLOAT),
    ]
    for suffix, vocab, d, vt in cases:
        kt = key_type_of(vocab)
        attr = {'string_vocabulary' if kt == pb.STRING else 'int64_vocabulary': vocab}
        m = pb.model([pb.node('DictVectorizer', ['x'], ['y'], ML, **attr)],
                     [pb.value_info('x', pb.map_type(kt, vt))],
                     [pb.value_info('y', pb.tensor_type(vt))], {'': 18, ML: 1})
        zero = '' if vt == pb.STRING else 0
        y = [d.get(k, zero) for k in vocab]
        x = pb.map_proto('x', kt, list(d.keys()), vt, list(d.values()))
        write_case('DictVectorizer_1_' + suffix, 'DictVectorizer', 1, ML, m, [x],
                   [pb.tensor('y', vt, [1, len(vocab)], y)])
    # A vocabulary of the other key type: refused when the model is typed.
    m = pb.model([pb.node('DictVectorizer', ['x'], ['y'], ML, int64_vocabulary=[1])],
                 [pb.value_info('x', pb.map_type(pb.STRING, pb.FLOAT))],
                 [pb.value_info('y', pb.tensor_type(pb.FLOAT))], {'': 18, ML: 1})
    write_case('DictVectorizer_1_key_type_mismatch', 'DictVectorizer', 1, ML, m,
               [pb.map_proto('x', pb.STRING, ['a'], pb.FLOAT, [1.0])], [],
               error='DictVectorizer: map\\(string,f32\\) input for a i64 vocabulary')


def castmap_cases():
    # CastMap (ONNX Runtime's cast_map.cc): values in ascending key order, [1, K]; DENSE: K = map
    # size; SPARSE: K = max_map, y[k] = value of key k or the pad (0, "0.f" for strings), keys
    # >= max_map dropped. float -> string as C's "%f"; string -> number as strtof / strtoll;
    # float -> int64 truncates.
    def to_float(v):  # strtof: the longest prefix that is a number
        if isinstance(v, str):
            v = re.match(r'\s*[+-]?(\d+\.?\d*([eE][+-]?\d+)?|\.\d+([eE][+-]?\d+)?)', v).group(0)
        return float(np.float32(float(v)))

    def to_int(v):  # strtoll: the leading integer
        return int(re.match(r'\s*[+-]?\d+', v).group(0)) if isinstance(v, str) else int(np.trunc(v))

    def to_str(v):
        return v if isinstance(v, str) else '%f' % np.float32(v)

    conv = {'TO_FLOAT': (pb.FLOAT, to_float, 0.0), 'TO_INT64': (pb.INT64, to_int, 0),
            'TO_STRING': (pb.STRING, to_str, '0.f')}
    floats = {3: 1.5, 1: -2.0, 7: 0.25, 0: 2.75}
    strings = {2: '3.5', 0: '-12', 5: '4e1'}
    cases = []
    for to in ['TO_FLOAT', 'TO_INT64', 'TO_STRING']:
        cases.append(('dense_float_' + to.lower(), floats, pb.FLOAT, to, 'DENSE', 1))
        cases.append(('sparse_float_' + to.lower(), floats, pb.FLOAT, to, 'SPARSE', 6))
        cases.append(('dense_string_' + to.lower(), strings, pb.STRING, to, 'DENSE', 1))
        cases.append(('sparse_string_' + to.lower(), strings, pb.STRING, to, 'SPARSE', 8))
    cases.append(('sparse_float_short', floats, pb.FLOAT, 'TO_FLOAT', 'SPARSE', 2))
    cases.append(('dense_float_empty', {}, pb.FLOAT, 'TO_FLOAT', 'DENSE', 1))
    for suffix, d, vt, to, form, max_map in cases:
        ot, f, pad = conv[to]
        attrs = {'cast_to': to, 'map_form': form}
        if form == 'SPARSE':
            attrs['max_map'] = max_map
        m = pb.model([pb.node('CastMap', ['x'], ['y'], ML, **attrs)],
                     [pb.value_info('x', pb.map_type(pb.INT64, vt))],
                     [pb.value_info('y', pb.tensor_type(ot))], {'': 18, ML: 1})
        keys = sorted(d)
        if form == 'DENSE':
            y = [f(d[k]) for k in keys]
        else:
            y = [f(d[k]) if k in d else pad for k in range(max_map)]
        x = pb.map_proto('x', pb.INT64, list(d.keys()), vt, list(d.values()))
        write_case('CastMap_1_' + suffix, 'CastMap', 1, ML, m, [x],
                   [pb.tensor('y', ot, [1, len(y)], y)])
    m = pb.model([pb.node('CastMap', ['x'], ['y'], ML, cast_to='TO_FLOAT', map_form='SPARSE', max_map=3)],
                 [pb.value_info('x', pb.map_type(pb.INT64, pb.FLOAT))],
                 [pb.value_info('y', pb.tensor_type(pb.FLOAT))], {'': 18, ML: 1})
    write_case('CastMap_1_sparse_negative_key', 'CastMap', 1, ML, m,
               [pb.map_proto('x', pb.INT64, [-1, 2], pb.FLOAT, [1.0, 2.0])], [],
               error='CastMap: negative key -1 in SPARSE form')
    m = pb.model([pb.node('CastMap', ['x'], ['y'], ML, cast_to='TO_FLOAT')],
                 [pb.value_info('x', pb.map_type(pb.INT64, pb.STRING))],
                 [pb.value_info('y', pb.tensor_type(pb.FLOAT))], {'': 18, ML: 1})
    write_case('CastMap_1_not_a_number', 'CastMap', 1, ML, m,
               [pb.map_proto('x', pb.INT64, [1], pb.STRING, ['abc'])], [],
               error='CastMap: the string "abc" is not a float')


def pipeline_cases():
    # A scikit-learn style pipeline: a map of features -> DictVectorizer -> Normalizer (L1) ->
    # ZipMap back to a map keyed by the vocabulary (one row: a sequence of one map).
    vocab = ['c', 'b', 'z', 'a']
    d = {'a': 2.0, 'b': -1.0, 'c': 5.0, 'q': 9.0}
    nodes = [pb.node('DictVectorizer', ['x'], ['v'], ML, string_vocabulary=vocab),
             pb.node('Normalizer', ['v'], ['n'], ML, norm='L1'),
             pb.node('ZipMap', ['n'], ['z'], ML, classlabels_strings=vocab)]
    m = pb.model(nodes, [pb.value_info('x', pb.map_type(pb.STRING, pb.FLOAT))],
                 [pb.value_info('z', pb.seq_type(pb.map_type(pb.STRING, pb.FLOAT)))], {'': 18, ML: 1})
    v = np.array([d.get(k, 0.0) for k in vocab], dtype=np.float64)
    n = v / np.abs(v).sum()
    write_case('DictVectorizer_1_Normalizer_ZipMap', 'DictVectorizer', 1, ML, m,
               [pb.map_proto('x', pb.STRING, list(d.keys()), pb.FLOAT, list(d.values()))],
               [pb.sequence_of_maps('z', [map_bytes(dict(zip(vocab, n.tolist())), pb.FLOAT)])])


# ---------------------------------------------------------------- images
def test_image(w=37, h=29):
    """Gradients, a disc and noise: smooth and sharp areas, odd sizes (chroma subsampling edges)."""
    rng = np.random.default_rng(11)
    yy, xx = np.mgrid[0:h, 0:w]
    img = np.zeros((h, w, 3), dtype=np.float64)
    img[..., 0] = 255 * xx / (w - 1)
    img[..., 1] = 255 * yy / (h - 1)
    img[..., 2] = 128 + 100 * np.sin(xx / 3.0) * np.cos(yy / 4.0)
    disc = (xx - w / 2) ** 2 + (yy - h / 2) ** 2 < (min(w, h) / 4) ** 2
    img[disc] = [250, 20, 60]
    img += rng.normal(0, 6, size=img.shape)
    return np.clip(np.round(img), 0, 255).astype(np.uint8)


def encode(img, fmt, **kw):
    buf = io.BytesIO()
    img.save(buf, format=fmt, **kw)
    return buf.getvalue()


def expected(data, pixel_format):
    """The decoded image as the ONNX reference (onnx/reference/ops/op_image_decoder.py) does it
    with PIL, always with 3 channels for RGB / BGR (PIL's convert("RGB"))."""
    img = Image.open(io.BytesIO(data))
    if pixel_format == 'Grayscale':
        return np.array(img.convert('L'))[:, :, None]
    rgb = np.array(img.convert('RGB'))
    return rgb[:, :, ::-1] if pixel_format == 'BGR' else rgb


def image_model(pixel_format):
    return pb.model([pb.node('ImageDecoder', ['data'], ['image'], pixel_format=pixel_format)],
                    [pb.value_info('data', pb.tensor_type(pb.UINT8, ['n']))],
                    [pb.value_info('image', pb.tensor_type(pb.UINT8, ['h', 'w', 'c']))], {'': 20})


def image_case(name, data, pixel_format):
    y = expected(data, pixel_format)
    write_case(name, 'ImageDecoder', 20, '', image_model(pixel_format),
               [pb.tensor('data', pb.UINT8, [len(data)], data)],
               [pb.tensor('image', pb.UINT8, list(y.shape), y.ravel().tolist())])


def image_error_case(name, data, regex):
    write_case(name, 'ImageDecoder', 20, '', image_model('RGB'),
               [pb.tensor('data', pb.UINT8, [len(data)], data)], [], error=regex)


def png_chunk(kind, body):
    return struct.pack('>I', len(body)) + kind + body + struct.pack('>I', zlib.crc32(kind + body))


def imagedecoder_cases():
    rgb = Image.fromarray(test_image())
    gray = rgb.convert('L')
    rgba = Image.fromarray(np.dstack([test_image(), np.arange(37 * 29, dtype=np.uint8).reshape(29, 37)]))
    palette = rgb.quantize(colors=16)
    encoded = {
        'png_rgb': encode(rgb, 'PNG'),
        'png_gray': encode(gray, 'PNG'),
        'png_rgba': encode(rgba, 'PNG'),
        'png_palette': encode(palette, 'PNG'),
        'png_1bit': encode(gray.point(lambda v: 255 if v > 128 else 0).convert('1'), 'PNG'),
        'jpeg_420': encode(rgb, 'JPEG', quality=90),
        'jpeg_444': encode(rgb, 'JPEG', quality=95, subsampling=0),
        'jpeg_progressive': encode(rgb, 'JPEG', quality=85, progressive=True),
        'jpeg_gray': encode(gray, 'JPEG', quality=90),
        'bmp_rgb': encode(rgb, 'BMP'),
        'bmp_gray': encode(gray, 'BMP'),
        'bmp_palette': encode(palette, 'BMP'),
        'bmp_1bit': encode(gray.convert('1'), 'BMP'),
        'webp_lossless': encode(rgb, 'WEBP', lossless=True),
        'webp_lossy': encode(rgb, 'WEBP', quality=80),
        'ppm': encode(rgb, 'PPM'),
        'pgm': encode(gray, 'PPM'),
    }
    for fmt, data in encoded.items():
        for pf in ['RGB', 'BGR', 'Grayscale']:
            if pf != 'RGB' and fmt not in ('png_rgb', 'png_gray', 'jpeg_420', 'jpeg_gray', 'bmp_rgb',
                                           'webp_lossy', 'ppm'):
                continue
            image_case('ImageDecoder_20_%s_%s' % (fmt, pf.lower()), data, pf)
    # Hostile or unsupported bytes: a clear error, never a crash.
    png = encoded['png_rgb']
    jpeg = encoded['jpeg_420']
    image_error_case('ImageDecoder_20_err_truncated_png', png[:len(png) // 2], 'PNG: .*truncated')
    image_error_case('ImageDecoder_20_err_truncated_jpeg', jpeg[:len(jpeg) * 3 // 4], 'JPEG: truncated')
    image_error_case('ImageDecoder_20_err_jpeg_header_only', jpeg[:20], 'JPEG: .+')
    huge_png = png[:8] + png_chunk(b'IHDR', struct.pack('>IIBBBBB', 100000, 100000, 8, 2, 0, 0, 0)) + \
        png[33:]
    image_error_case('ImageDecoder_20_err_huge_png', huge_png, 'PNG image declares 100000 x 100000 pixels')
    sof = jpeg.index(b'\xff\xc0')
    huge_jpeg = jpeg[:sof + 5] + struct.pack('>HH', 65000, 65000) + jpeg[sof + 9:]
    image_error_case('ImageDecoder_20_err_huge_jpeg', huge_jpeg, 'JPEG image declares 65000 x 65000 pixels')
    bmp = bytearray(encoded['bmp_rgb'])
    bmp[18:26] = struct.pack('<ii', 70000, 70000)
    image_error_case('ImageDecoder_20_err_huge_bmp', bytes(bmp), 'BMP image declares 70000 x 70000 pixels')
    bmp = encoded['bmp_rgb']
    image_error_case('ImageDecoder_20_err_truncated_bmp', bmp[:len(bmp) - 100], 'BMP: truncated data')
    image_error_case('ImageDecoder_20_err_garbage', bytes(range(7, 71)), 'not an image format kiln recognizes')
    image_error_case('ImageDecoder_20_err_tiff', encode(rgb, 'TIFF'), 'TIFF images are not supported')
    image_error_case('ImageDecoder_20_err_empty', b'', 'empty encoded image')


def main():
    if os.path.isdir(CASES):
        shutil.rmtree(CASES)
    os.makedirs(CASES)
    zipmap_cases()
    dictvectorizer_cases()
    castmap_cases()
    pipeline_cases()
    imagedecoder_cases()
    edge_cases()
    with open(os.path.join(SUITE, 'manifest.txt'), 'w') as f:
        f.write('# case domain op opset (generated by gen/generate.py)\n' + '\n'.join(sorted(manifest)) + '\n')
    with open(os.path.join(SUITE, 'errors.txt'), 'w') as f:
        f.write('# case domain op opset error-regex: kiln must fail with a message matching the regex '
                '(generated by gen/generate.py)\n' + '\n'.join(sorted(errors)) + '\n')
    print('%d cases, %d error cases' % (len(manifest), len(errors)))


if __name__ == '__main__':
    main()
