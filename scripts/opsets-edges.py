#!/usr/bin/env python3
"""Edge-case coverage of the operator versions of ONNX opsets 18-25 (issue 22).

    scripts/opsets-edges.py [--spec ../shared/spec/onnx-1.23] [--markdown FILE] [--strict] [-v]

Lists every ai.onnx operator version introduced in opsets 18-25 (from the spec's Changelog.md)
and every version of the ai.onnx.ml operators issue 22 names (Changelog-ml.md), and per version
which edge categories the cases of tests/onnx_opsets and tests/onnx_pyref cover -- read from the
cases themselves (model.onnx and the test_data_set_0 .pb files, parsed here with a small
protobuf reader: no onnx package needed), not from their names:

  neg_axis   the op has an axis-like attribute or input (axis, axes, Shape's start/end) and a
             case gives it a negative value;
  empty      a tensor input of the op or an output of the case has a zero dimension;
  broadcast  the spec says the op broadcasts and a case feeds inputs of different shapes
             (Attention: an attn_mask of rank < 4 or with a dimension 1);
  mode:A=V   for each mode-like attribute A of the op (the MODES table below: string enums and
             int flags), each value V (an absent attribute counts as its spec default).

Every expected value comes from ONNX Runtime 1.30 (tests/onnx_opsets) or a Python reference
(tests/onnx_pyref): none from kiln. Cases in tests/onnx_opsets/known_failures.txt do not count.

Exit code 1 when an operator version covers no edge category at all and is not exempted in
tests/onnx_opsets/edge_exemptions.txt (`Op-V reason`: the whole version; `Op-V category reason`:
one category does not apply), or when an exemption is stale (names no target, or the version or
category is covered after all). --strict also fails on any missing category.
"""
import argparse
import os
import re
import sys
from collections import defaultdict

from protobuf_wire import fields, read_varint

ML_OPS = ['LinearClassifier', 'LinearRegressor', 'Normalizer', 'Scaler', 'ArrayFeatureExtractor',
          'ZipMap', 'TreeEnsembleClassifier', 'TreeEnsembleRegressor', 'TreeEnsemble',
          'LabelEncoder', 'OneHotEncoder', 'Imputer', 'Binarizer', 'CategoryMapper',
          'SVMClassifier', 'SVMRegressor']

POST = ['NONE', 'SOFTMAX', 'LOGISTIC', 'SOFTMAX_ZERO', 'PROBIT']
BIN = [0, 1]
AUTO_PAD = ['NOTSET', 'SAME_UPPER', 'SAME_LOWER', 'VALID']
DIRECTION = ['forward', 'reverse', 'bidirectional']
# Mode-like attributes: (op or '*', attribute) -> the values a full coverage needs. Ops not named
# here have no mode-like attribute (free-form strings such as RegexFullMatch's pattern, sizes such
# as num_groups, and dtypes are not modes).
MODES = {
    ('*', 'auto_pad'): AUTO_PAD,
    ('Pad', 'mode'): ['constant', 'reflect', 'edge', 'wrap'],
    ('Resize', 'mode'): ['nearest', 'linear', 'cubic'],
    ('Resize', 'coordinate_transformation_mode'): [
        'half_pixel', 'half_pixel_symmetric', 'pytorch_half_pixel', 'align_corners', 'asymmetric',
        'tf_crop_and_resize'],
    ('Resize', 'nearest_mode'): ['round_prefer_floor', 'round_prefer_ceil', 'floor', 'ceil'],
    ('Resize', 'keep_aspect_ratio_policy'): ['stretch', 'not_larger', 'not_smaller'],
    ('Resize', 'antialias'): BIN,
    ('Resize', 'exclude_outside'): BIN,
    ('ScatterElements', 'reduction'): ['none', 'add', 'mul', 'max', 'min'],
    ('ScatterND', 'reduction'): ['none', 'add', 'mul', 'max', 'min'],
    ('Gelu', 'approximate'): ['none', 'tanh'],
    ('GridSample', 'mode'): ['linear', 'nearest', 'cubic'],
    ('GridSample', 'padding_mode'): ['zeros', 'border', 'reflection'],
    ('GridSample', 'align_corners'): BIN,
    ('AffineGrid', 'align_corners'): BIN,
    ('ImageDecoder', 'pixel_format'): ['RGB', 'BGR', 'Grayscale'],
    ('GRU', 'direction'): DIRECTION, ('LSTM', 'direction'): DIRECTION,
    ('RNN', 'direction'): DIRECTION,
    ('GRU', 'layout'): BIN, ('LSTM', 'layout'): BIN, ('RNN', 'layout'): BIN,
    ('GRU', 'linear_before_reset'): BIN, ('LSTM', 'input_forget'): BIN,
    ('NegativeLogLikelihoodLoss', 'reduction'): ['none', 'sum', 'mean'],
    ('RoiAlign', 'mode'): ['avg', 'max'],
    ('RoiAlign', 'coordinate_transformation_mode'): ['half_pixel', 'output_half_pixel'],
    ('TensorScatter', 'mode'): ['linear', 'circular'],
    ('Cast', 'round_mode'): ['up', 'down', 'nearest'], ('CastLike', 'round_mode'): ['up', 'down', 'nearest'],
    ('LpNormalization', 'p'): [1, 2], ('LinearClassifier', 'multi_class'): BIN,
    ('Cast', 'saturate'): BIN, ('CastLike', 'saturate'): BIN, ('QuantizeLinear', 'saturate'): BIN,
    ('TopK', 'largest'): BIN, ('TopK', 'sorted'): BIN,
    ('DFT', 'inverse'): BIN, ('DFT', 'onesided'): BIN,
    ('IsInf', 'detect_positive'): BIN, ('IsInf', 'detect_negative'): BIN,
    ('AveragePool', 'ceil_mode'): BIN, ('AveragePool', 'count_include_pad'): BIN,
    ('MaxPool', 'ceil_mode'): BIN, ('MaxPool', 'storage_order'): BIN, ('LpPool', 'ceil_mode'): BIN,
    ('*', 'keepdims'): BIN, ('*', 'noop_with_empty_axes'): BIN,
    ('Reshape', 'allowzero'): BIN,
    ('RotaryEmbedding', 'interleaved'): BIN,
    ('Attention', 'is_causal'): BIN, ('Attention', 'qk_matmul_output_mode'): [0, 1, 2, 3],
    ('Normalizer', 'norm'): ['MAX', 'L1', 'L2'],
    ('LinearClassifier', 'post_transform'): POST, ('LinearRegressor', 'post_transform'): POST,
    ('SVMClassifier', 'post_transform'): POST, ('SVMRegressor', 'post_transform'): POST,
    ('SVMClassifier', 'kernel_type'): ['LINEAR', 'POLY', 'RBF', 'SIGMOID'],
    ('SVMRegressor', 'kernel_type'): ['LINEAR', 'POLY', 'RBF', 'SIGMOID'],
    ('TreeEnsembleClassifier', 'post_transform'): POST,
    ('TreeEnsembleRegressor', 'post_transform'): POST,
    ('TreeEnsembleRegressor', 'aggregate_function'): ['AVERAGE', 'SUM', 'MIN', 'MAX'],
    ('TreeEnsemble', 'post_transform'): [0, 1, 2, 3, 4],
    ('TreeEnsemble', 'aggregate_function'): [0, 1, 2, 3],
    ('OneHotEncoder', 'zeros'): BIN,
}
AXIS_ATTRS = {'axis', 'axes'}
BROADCAST_RE = re.compile(r'(multidirectional|unidirectional) \(i\.e\., Numpy-style\) broadcasting')


# ---- the spec -------------------------------------------------------------------------------

def parse_changelog(path, domain_marker, end_marker=None):
    """{op: {version: {'attrs': {name: (type, default)}, 'inputs': [names], 'broadcast': bool}}}"""
    text = open(path, encoding='utf-8').read()
    start = text.find(domain_marker)
    end = text.find(end_marker, start) if end_marker else -1
    text = text[start:end if end >= 0 else len(text)]
    out = defaultdict(dict)
    parts = re.split(r'^### <a name="([^"]+)"></a>.*$', text, flags=re.M)
    for name, body in zip(parts[1::2], parts[2::2]):
        full, ver = name.rsplit('-', 1)
        op = full.split('.')[-1]
        attrs, inputs = {}, []
        sec = re.search(r'#### Attributes\n(.*?)\n####', body, re.S)
        for m in re.finditer(r'<dt><tt>(\w+)</tt> : (\w+)(?: \(default is ([^)]*)\))?', sec.group(1) if sec else ''):
            attrs[m.group(1)] = (m.group(2), m.group(3))
        sec = re.search(r'#### Inputs[^\n]*\n(.*?)\n####', body, re.S)
        for m in re.finditer(r'<dt><tt>(\w+)</tt>', sec.group(1) if sec else ''):
            inputs.append(m.group(1))
        out[op][int(ver)] = {'attrs': attrs, 'inputs': inputs,
                             'broadcast': bool(BROADCAST_RE.search(body)) or op == 'Attention'}
    return out


# ---- ModelProto / TensorProto fields (scripts/protobuf_wire.py reads the wire format) ------------

def signed(v):
    return v - (1 << 64) if v >= 1 << 63 else v


def ints(fs, num):
    """A repeated int64 field, packed or not."""
    out = []
    for f, w, v in fs:
        if f != num:
            continue
        if w == 0:
            out.append(signed(v))
        else:
            i = 0
            while i < len(v):
                x, i = read_varint(v, i)
                out.append(signed(x))
    return out


def one(fs, num, default=None):
    for f, _, v in fs:
        if f == num:
            return v
    return default


def tensor(b):
    """TensorProto -> (name, dims, int values or None)."""
    fs = fields(b)
    dims = ints(fs, 1)
    dtype = one(fs, 2, 0)
    name = one(fs, 8, b'').decode()
    vals = None
    if dtype in (6, 7):  # int32 / int64
        raw = one(fs, 9)
        if raw is not None:
            size = 8 if dtype == 7 else 4
            vals = [int.from_bytes(raw[k:k + size], 'little', signed=True) for k in range(0, len(raw), size)]
        else:
            vals = ints(fs, 7 if dtype == 7 else 5)
    return name, dims, vals


def attribute(b):
    fs = fields(b)
    name = one(fs, 1, b'').decode()
    t = one(fs, 20, 0)
    if t == 2:
        return name, signed(one(fs, 3, 0))
    if t == 3:
        return name, one(fs, 4, b'').decode(errors='replace')
    if t == 7:
        return name, ints(fs, 8)
    if t == 4:
        return name, tensor(one(fs, 5))
    return name, None


def value_info_dims(b):
    fs = fields(b)
    name = one(fs, 1, b'').decode()
    tp = one(fs, 2)
    dims = None
    if tp is not None:
        tt = one(fields(tp), 1)
        if tt is not None:
            shape = one(fields(tt), 2)
            if shape is not None:
                dims = []
                for _, _, d in [x for x in fields(shape) if x[0] == 1]:
                    df = fields(d)
                    dims.append(one(df, 1))  # None for a symbolic dimension
    return name, dims


def load_case(d):
    """The graph of case folder d: nodes, known tensor shapes and int values."""
    model = fields(open(os.path.join(d, 'model.onnx'), 'rb').read())
    g = fields(one(model, 7))
    shapes, values, nodes, outputs = {}, {}, [], []
    for f, _, v in g:
        if f == 5:
            name, dims, vals = tensor(v)
            shapes[name], values[name] = dims, vals
        elif f == 11:
            name, dims = value_info_dims(v)
            if dims is not None and None not in dims:
                shapes[name] = dims
        elif f == 12:
            outputs.append(value_info_dims(v)[0])
        elif f == 1:
            nf = fields(v)
            nodes.append({
                'inputs': [x.decode() for f2, _, x in nf if f2 == 1],
                'outputs': [x.decode() for f2, _, x in nf if f2 == 2],
                'op': one(nf, 4, b'').decode(), 'domain': one(nf, 7, b'').decode(),
                'attrs': dict(attribute(x) for f2, _, x in nf if f2 == 5)})
    ds = os.path.join(d, 'test_data_set_0')
    graph_inputs = [value_info_dims(v)[0] for f, _, v in g if f == 11]
    initializer_names = {tensor(v)[0] for f, _, v in g if f == 5}
    feeds = [n for n in graph_inputs if n not in initializer_names]
    out_dims = []
    for k, n in enumerate(feeds):
        p = os.path.join(ds, f'input_{k}.pb')
        if os.path.exists(p):
            _, dims, vals = tensor(open(p, 'rb').read())
            shapes[n], values[n] = dims, vals
    k = 0
    while os.path.exists(os.path.join(ds, f'output_{k}.pb')):
        out_dims.append(tensor(open(os.path.join(ds, f'output_{k}.pb'), 'rb').read())[1])
        k += 1
    # Shapes and values through the shape-preserving plumbing of composite cases.
    for n in nodes:
        if n['op'] == 'Constant' and isinstance(n['attrs'].get('value'), tuple):
            _, dims, vals = n['attrs']['value']
            shapes[n['outputs'][0]], values[n['outputs'][0]] = dims, vals
        elif n['op'] in ('Cast', 'Identity', 'CastLike') and n['inputs'] and n['inputs'][0] in shapes:
            shapes[n['outputs'][0]] = shapes[n['inputs'][0]]
            if n['inputs'][0] in values and n['op'] == 'Identity':
                values[n['outputs'][0]] = values[n['inputs'][0]]
    return nodes, shapes, values, out_dims


# ---- coverage -------------------------------------------------------------------------------

def mode_attrs(op, spec):
    out = {}
    for a, (typ, default) in spec['attrs'].items():
        vals = MODES.get((op, a)) or MODES.get(('*', a))
        if vals is None:
            continue
        if default is not None and typ == 'int':
            default = int(default)
        out[a] = (vals, default)
    return out


def axis_like(op, spec):
    attrs = [a for a in spec['attrs'] if a in AXIS_ATTRS]
    if op == 'Shape':
        attrs += ['start', 'end']
    if op == 'Scan':
        attrs += ['scan_input_axes', 'scan_output_axes']
    inputs = [k for k, n in enumerate(spec['inputs']) if n in AXIS_ATTRS]
    return attrs, inputs


def categories(op, spec, node, shapes, values, out_dims):
    got = set()
    attrs, axis_inputs = axis_like(op, spec)
    for a in attrs:
        v = node['attrs'].get(a)
        if isinstance(v, int) and v < 0 or isinstance(v, list) and any(x < 0 for x in v):
            got.add('neg_axis')
    for k in axis_inputs:
        if k < len(node['inputs']) and any(x < 0 for x in values.get(node['inputs'][k]) or []):
            got.add('neg_axis')
    data_inputs = [n for k, n in enumerate(node['inputs']) if n and k not in axis_inputs]
    if any(0 in (shapes.get(n) or [1]) for n in data_inputs) or any(0 in d for d in out_dims):
        got.add('empty')
    if spec['broadcast']:
        if op == 'Attention':
            m = shapes.get(node['inputs'][3]) if len(node['inputs']) > 3 and node['inputs'][3] else None
            if m is not None and (len(m) < 4 or 1 in m):
                got.add('broadcast')
        else:
            known = [tuple(shapes[n]) for n in data_inputs if n in shapes]
            if len(set(known)) > 1:
                got.add('broadcast')
    for a, (vals, default) in mode_attrs(op, spec).items():
        v = node['attrs'].get(a, default)
        if isinstance(v, str) and vals and isinstance(vals[0], int):
            v = int(v)
        got.add(f'mode:{a}={v}')
    return got


def required(op, spec):
    req = ['empty']
    attrs, inputs = axis_like(op, spec)
    if attrs or inputs:
        req.append('neg_axis')
    if spec['broadcast']:
        req.append('broadcast')
    for a, (vals, _) in sorted(mode_attrs(op, spec).items()):
        req += [f'mode:{a}={v}' for v in vals]
    return req


def version_of(history, opset):
    vs = [v for v in history if v <= opset]
    return max(vs) if vs else None


def read_lines(path):
    if not os.path.exists(path):
        return []
    with open(path, encoding='utf-8') as f:
        return [l.rstrip('\n') for l in f if l.strip() and not l.startswith('#')]


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    p = argparse.ArgumentParser()
    default_spec = os.path.join(os.path.dirname(root), 'shared', 'spec', 'onnx-1.23')
    if not os.path.isdir(default_spec):
        default_spec = '/work/shared/spec/onnx-1.23'
    p.add_argument('--spec', default=default_spec)
    p.add_argument('--markdown', help='write the per-version table to this file')
    p.add_argument('--strict', action='store_true', help='fail on any missing category too')
    p.add_argument('-v', '--verbose', action='store_true', help='print every version')
    args = p.parse_args()
    if not os.path.exists(os.path.join(args.spec, 'Changelog.md')):
        print(f'no ONNX 1.23 spec at {args.spec}: skipped')
        return 77  # ctest SKIP_RETURN_CODE
    main_spec = parse_changelog(os.path.join(args.spec, 'Changelog.md'), '# ai.onnx (default)',
                                '# ai.onnx.preview')
    ml_spec = parse_changelog(os.path.join(args.spec, 'Changelog-ml.md'), '# ai.onnx.ml')
    targets = {}
    for op, hist in main_spec.items():
        for v in hist:
            if 18 <= v <= 25:
                targets[('ai.onnx', op, v)] = hist[v]
    for op in ML_OPS:
        for v, s in ml_spec.get(op, {}).items():
            targets[('ai.onnx.ml', op, v)] = s
    history = {('ai.onnx', op): h for op, h in main_spec.items()}
    history.update({('ai.onnx.ml', op): h for op, h in ml_spec.items()})

    cover = defaultdict(lambda: defaultdict(list))  # target -> category -> [case]
    ncases = defaultdict(int)
    for suite in ('onnx_opsets', 'onnx_pyref'):
        sdir = os.path.join(root, 'tests', suite)
        known = {l.split(' ')[0] for l in read_lines(os.path.join(sdir, 'known_failures.txt'))}
        for line in read_lines(os.path.join(sdir, 'manifest.txt')):
            name, domain, op, opset = line.split(' ')[:4]
            if name in known:
                continue
            v = version_of(history.get((domain, op), {}), int(opset))
            key = (domain, op, v)
            if key not in targets:
                continue
            ncases[key] += 1
            nodes, shapes, values, out_dims = load_case(os.path.join(sdir, 'cases', name))
            want = '' if domain == 'ai.onnx' else domain
            for node in nodes:
                if node['op'] == op and node['domain'] in (want, 'ai.onnx' if not want else want):
                    for c in categories(op, targets[key], node, shapes, values, out_dims):
                        cover[key][c].append(name)

    exempt_all, exempt_cat, problems = {}, defaultdict(dict), []
    for line in read_lines(os.path.join(root, 'tests', 'onnx_opsets', 'edge_exemptions.txt')):
        ident, rest = (line.split(' ', 1) + [''])[:2]
        op_v = ident.rsplit('-', 1)
        key = next((k for k in targets if k[1] == op_v[0] and str(k[2]) == op_v[-1]), None)
        if key is None:
            problems.append(f'exemption names no target version: {ident}')
            continue
        first = rest.split(' ', 1)[0]
        if first in required(key[1], targets[key]):
            exempt_cat[key][first] = rest.split(' ', 1)[1] if ' ' in rest else ''
        else:
            exempt_all[key] = rest

    rows, failing, incomplete, partial = [], [], [], 0
    for key in sorted(targets, key=lambda k: (k[0], k[1], k[2])):
        req = required(key[1], targets[key])
        got = [c for c in req if c in cover[key]]
        missing = [c for c in req if c not in cover[key] and c not in exempt_cat[key]]
        for c in exempt_cat[key]:
            if c in cover[key]:
                problems.append(f'stale exemption: {key[1]}-{key[2]} {c} is covered by {cover[key][c][0]}')
        if key in exempt_all and got:
            problems.append(f'stale exemption: {key[1]}-{key[2]} covers {", ".join(got)}')
        status = 'full' if not missing else ('exempt' if key in exempt_all and not got
                                             else ('partial' if got else 'none'))
        if status == 'none':
            failing.append(key)
        if status == 'partial':
            partial += 1
        if args.strict and missing and key not in exempt_all:
            incomplete.append(f'{key[1]}-{key[2]} ({", ".join(missing)})')
        rows.append((key, ncases[key], got, missing, status, exempt_all.get(key, '')))
        if args.verbose or status == 'none':
            print(f'{status:8} {key[0]} {key[1]}-{key[2]}: {ncases[key]} cases; covers '
                  f'{", ".join(got) or "-"}; missing {", ".join(missing) or "-"}'
                  + (f'; exempt: {exempt_all[key]}' if key in exempt_all else ''))

    counts = defaultdict(int)
    for r in rows:
        counts[r[4]] += 1
    n_req = sum(len(required(k[1], targets[k])) for k in targets)
    n_got = sum(len(r[2]) for r in rows)
    summary = (f'{len(targets)} operator versions: {counts["full"]} cover every edge category, '
               f'{counts["partial"]} some, {counts["exempt"]} exempt, {counts["none"]} none; '
               f'{n_got} of {n_req} (version, category) pairs covered')
    print(summary)
    for pr in problems:
        print('ERROR ' + pr)
    if args.markdown:
        out = ['| operator version | cases | edge categories covered | missing |', '| --- | ---: | --- | --- |']
        for key, n, got, missing, status, why in rows:
            dom = '' if key[0] == 'ai.onnx' else 'ml.'
            miss = ', '.join(missing + [f'{c} n/a: {exempt_cat[key][c]}' for c in exempt_cat[key]]) or '-'
            if status == 'exempt':
                miss = f'exempt: {why}'
            out.append(f'| {dom}{key[1]}-{key[2]} | {n} | {", ".join(got) or "-"} | {miss} |')
        with open(args.markdown, 'w', encoding='utf-8') as f:
            f.write(summary + '\n\n' + '\n'.join(out) + '\n')
    if failing:
        print('FAIL: no edge case and no exemption: ' + ', '.join(f'{k[1]}-{k[2]}' for k in failing))
    if incomplete:
        print('FAIL (--strict): edge categories with no case and no exemption: ' + '; '.join(incomplete))
    return 1 if failing or incomplete or problems else 0


if __name__ == '__main__':
    sys.exit(main())
