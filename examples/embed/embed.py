#!/usr/bin/env python3
"""Runs a model with kiln's Python module: embed.py MODEL [NAME=FILE.npy ...]
Inputs not given are zeros of the model's input shapes. Prints each output's name, shape and
first values."""

import sys

import numpy as np

import kiln


def main(argv):
    if len(argv) < 2:
        print(f"usage: {argv[0]} MODEL [NAME=FILE.npy ...]", file=sys.stderr)
        return 2
    try:
        model = kiln.load(argv[1]).optimize()
        given = dict(arg.split("=", 1) for arg in argv[2:])
        inputs = {}
        for name, fact in zip(model.input_names, model.input_facts):
            if name in given:
                inputs[name] = kiln.read_tensor(given[name])
            else:  # "1,40,100,f32": zeros of that shape
                *dims, dtype = fact.split(",")
                inputs[name] = np.zeros([int(d) for d in dims], np.float32 if dtype == "f32" else dtype)
        for i, (name, y) in enumerate(zip(model.output_names, model.run(inputs))):
            print(f"output {i} '{name}': {','.join(map(str, y.shape))},{y.dtype} "
                  f"{y.reshape(-1)[:16].tolist()}")
    except kiln.Error as e:
        print(f"embed.py: error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
