#!/usr/bin/env python3
"""A MobileNet-like int8 QDQ model (seeded random weights) for checking the int8 kernels' speed on
a model outside shared/: inverted residual blocks (1x1 expand, 3x3 depthwise at stride 1 or 2,
1x1 project, residual QDQ Add), per-channel symmetric int8 weights, int32 biases, u8 activations,
the QDQ layout ONNX Runtime's static quantizer writes. Also writes the float twin (same weights,
dequantized) for the int8-vs-float comparison.

    /usr/bin/python3 tests/models/gen/int8_dwsep.py OUT_DIR   # OUT_DIR/{int8,float}/model.onnx
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

rng = np.random.default_rng(21)
nodes, inits = [], []
float_nodes, float_inits = [], []


def const(name, arr, to=None):
    t = numpy_helper.from_array(arr, name)
    (to if to is not None else inits).append(t)
    return name


def q(x, scale, zp, name):
    s = const(name + "_scale", np.array(scale, np.float32))
    z = const(name + "_zp", np.array(zp, np.uint8))
    nodes.append(helper.make_node("QuantizeLinear", [x, s, z], [name + "_q"]))
    nodes.append(helper.make_node("DequantizeLinear", [name + "_q", s, z], [name + "_dq"]))
    return name + "_dq"


def conv(x, fx, cin, cout, k, stride, group, x_scale, name, relu=True):
    """QDQ conv (int8 graph) and its float twin; returns (int8 output, float output, scale)."""
    fan = cin // group * k * k
    w = rng.normal(0, np.sqrt(2.0 / fan), (cout, cin // group, k, k)).astype(np.float32)
    b = rng.normal(0, 0.05, cout).astype(np.float32)
    ws = np.abs(w).reshape(cout, -1).max(axis=1) / 127.0 + 1e-8
    wq = np.clip(np.round(w / ws[:, None, None, None]), -127, 127).astype(np.int8)
    bq = np.round(b / (x_scale * ws)).astype(np.int32)
    wn = const(name + "_w", wq)
    wsn = const(name + "_w_scale", ws.astype(np.float32))
    wzn = const(name + "_w_zp", np.zeros(cout, np.int8))
    nodes.append(helper.make_node("DequantizeLinear", [wn, wsn, wzn], [name + "_wdq"], axis=0))
    bn = const(name + "_b", bq)
    bsn = const(name + "_b_scale", (x_scale * ws).astype(np.float32))
    bzn = const(name + "_b_zp", np.zeros(cout, np.int32))
    nodes.append(helper.make_node("DequantizeLinear", [bn, bsn, bzn], [name + "_bdq"], axis=0))
    attrs = dict(kernel_shape=[k, k], strides=[stride, stride], pads=[k // 2] * 4, group=group)
    nodes.append(helper.make_node("Conv", [x, name + "_wdq", name + "_bdq"], [name + "_y"], **attrs))
    # Float twin: the dequantized weights and bias.
    fw = const(name + "_fw", (wq.astype(np.float32) * ws[:, None, None, None]).astype(np.float32),
               float_inits)
    fb = const(name + "_fb", (bq.astype(np.float32) * x_scale * ws).astype(np.float32), float_inits)
    float_nodes.append(helper.make_node("Conv", [fx, fw, fb], [name + "_fy"], **attrs))
    fy = name + "_fy"
    y = name + "_y"
    if relu:
        # As ONNX Runtime's quantizer writes it: no Relu in the int8 graph, the output's zero
        # point 0 clamps at 0.
        float_nodes.append(helper.make_node("Relu", [fy], [name + "_fr"]))
        fy = name + "_fr"
    # Output scale from a rough range estimate (std of a unit-variance input times fan-in gain).
    y_scale = (6.0 if relu else 8.0) / 255.0
    zp = 0 if relu else 128
    return q(y, y_scale, zp, name + "_out"), fy, y_scale


def main(out):
    h = 56
    x_scale = 2.0 / 255.0
    x = q("input", x_scale, 128, "in")
    fx = "input"
    c = 16
    # stem: 3 -> 16 at 56x56 is left out; the input has 16 channels.
    plan = [(16, 1, 1), (24, 2, 2), (24, 1, 1), (32, 2, 2), (32, 1, 2), (64, 2, 3), (96, 1, 2),
            (160, 2, 2)]
    i = 0
    for cout, stride, repeat in plan:
        for r in range(repeat):
            s = stride if r == 0 else 1
            e = c * 6
            name = f"b{i}"
            y, fy, sc = conv(x, fx, c, e, 1, 1, 1, x_scale, name + "_expand")
            y, fy, sc = conv(y, fy, e, e, 3, s, e, sc, name + "_dw")
            y, fy, sc = conv(y, fy, e, cout, 1, 1, 1, sc, name + "_project", relu=False)
            if s == 1 and cout == c:
                nodes.append(helper.make_node("Add", [x, y], [name + "_add"]))
                float_nodes.append(helper.make_node("Add", [fx, fy], [name + "_fadd"]))
                y, fy, sc = q(name + "_add", 10.0 / 255.0, 128, name + "_add_out"), name + "_fadd", 10.0 / 255.0
            x, fx, x_scale, c = y, fy, sc, cout
            i += 1
    nodes.append(helper.make_node("GlobalAveragePool", [x], ["output"]))
    float_nodes.append(helper.make_node("GlobalAveragePool", [fx], ["output"]))
    inp = helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 16, h, h])
    outp = helper.make_tensor_value_info("output", TensorProto.FLOAT, None)
    for kind, ns, ins in (("int8", nodes, inits), ("float", float_nodes, float_inits)):
        g = helper.make_graph(ns, "int8_dwsep", [inp], [outp], ins)
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
        m.ir_version = 7
        os.makedirs(os.path.join(out, kind), exist_ok=True)
        onnx.save(m, os.path.join(out, kind, "model.onnx"))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "int8_dwsep")
