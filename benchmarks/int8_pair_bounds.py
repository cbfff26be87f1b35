#!/usr/bin/env python3
"""How often an int8 model's weights break VPMADDUBSW's exactness bound (docs/quantization.md).

VPMADDUBSW sums two u8 x s8 products into a saturating i16: with u8 activations up to 255 the sum
is exact only when the two weights of a pair have |w0| + |w1| <= 128. For each model this prints
the share of (output channel, 4-k group) cells holding a pair over the bound, and the share of
4-k groups of 6-channel panels (the AVX2 int8 tile's rows) with one: what an exact saturating
kernel would have to redo. Depthwise weights are left out (another kernel).

Usage: python3 benchmarks/int8_pair_bounds.py MODEL.onnx...  (QDQ or QOperator int8 models)
"""
import sys

import numpy as np
import onnx
from onnx import numpy_helper


def weight_matrices(model):
    inits = {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}
    for node in model.graph.node:
        w, rows_first = None, True
        if node.op_type == "DequantizeLinear" and node.input[0] in inits:
            w = inits[node.input[0]]
            rows_first = w.ndim != 2  # a MatMul weight is [K, N]; Conv / Gemm-as-conv [M, ...]
        elif node.op_type == "QLinearConv":
            w = inits.get(node.input[3])
        elif node.op_type == "QLinearMatMul":
            w, rows_first = inits.get(node.input[3]), False
        if w is None or w.dtype != np.int8 or w.ndim < 2:
            continue
        if w.ndim == 4 and w.shape[1] == 1:
            continue  # depthwise
        yield (w.reshape(w.shape[0], -1) if rows_first else w.T).astype(np.int64)


def main(paths):
    for path in paths:
        cells = bad_cells = groups = bad_groups = 0
        for w in weight_matrices(onnx.load(path)):
            n, k = w.shape
            w = np.pad(w, ((0, (-n) % 6), (0, (-k) % 4)))
            pairs = np.abs(w).reshape(w.shape[0], -1, 2).sum(2) > 128
            quads = pairs.reshape(w.shape[0], -1, 2).any(2)[:n]
            panel = np.pad(quads, ((0, (-n) % 6), (0, 0))).reshape(-1, 6, quads.shape[1]).any(1)
            cells += quads.size
            bad_cells += quads.sum()
            groups += panel.size
            bad_groups += panel.sum()
        print(f"{path}: cells over the bound {bad_cells / max(cells, 1):.3f}, "
              f"6-row panel groups {bad_groups / max(groups, 1):.3f}")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
