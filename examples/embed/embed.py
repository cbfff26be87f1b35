#!/usr/bin/env python3
"""Runs a model with kiln's Python module: embed.py MODEL [NAME=FILE.npy ...] [--labels FILE]
Inputs not given are zeros of the model's input shapes. Prints each output's name, shape and
first values; with --labels (one class name per line), the top 3 classes of output 0 instead,
as `kiln run --labels` prints them."""

import sys

import numpy as np

import kiln


def read_labels(path):
    try:
        with open(path, encoding="utf-8") as f:
            labels = [line.rstrip("\r\n") for line in f]
    except OSError:
        raise kiln.Error(f"--labels: cannot open '{path}'")
    while labels and not labels[-1]:
        labels.pop()
    return labels


def print_top(scores, labels, k=3):
    """'  1. name  4.9665' per class, best first (ties: the lower index), per row of scores."""
    n = scores.shape[-1] if scores.ndim else 0
    if scores.dtype != np.float32 or n != len(labels):
        raise kiln.Error(f"--labels: output 0 is {scores.shape} {scores.dtype}, "
                         f"the labels file has {len(labels)} labels")
    rows = scores.reshape(-1, n) if n else scores.reshape(0, 0)
    for r, row in enumerate(rows):
        if len(rows) > 1:
            print(f"row {r}:")
        for i, c in enumerate(np.argsort(-row, kind="stable")[:k]):
            print(f"  {i + 1}. {labels[c]}  {float(row[c]):.4f}")


def main(argv):
    args = argv[2:]
    labels = None
    if "--labels" in args and args.index("--labels") + 1 < len(args):
        at = args.index("--labels")
        labels = args[at + 1]
        args = args[:at] + args[at + 2:]
    if len(argv) < 2:
        print(f"usage: {argv[0]} MODEL [NAME=FILE.npy ...] [--labels FILE]", file=sys.stderr)
        return 2
    try:
        model = kiln.load(argv[1]).optimize()
        given = dict(arg.split("=", 1) for arg in args)
        inputs = {}
        for name, fact in zip(model.input_names, model.input_facts):
            if name in given:
                inputs[name] = kiln.read_tensor(given[name])
            else:  # "1,40,100,f32": zeros of that shape
                *dims, dtype = fact.split(",")
                inputs[name] = np.zeros([int(d) for d in dims], np.float32 if dtype == "f32" else dtype)
        outputs = model.run(inputs)
        if labels is not None:
            print(f"output 0 '{model.output_names[0]}' top 3:")
            print_top(outputs[0], read_labels(labels))
            return 0
        for i, (name, y) in enumerate(zip(model.output_names, outputs)):
            print(f"output {i} '{name}': {','.join(map(str, y.shape))},{y.dtype} "
                  f"{y.reshape(-1)[:16].tolist()}")
    except kiln.Error as e:
        print(f"embed.py: error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
