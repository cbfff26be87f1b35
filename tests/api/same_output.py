#!/usr/bin/env python3
"""same_output.py WANT GOT: GOT (an embed example's line) names the same output as WANT (`kiln
run`'s line: output 0 'name': 1,12,f32 [v0, v1, ...]) and its first values agree within 1e-4
(relative). Exit 1 with both lines otherwise."""

import re
import sys


def parse(line):
    head, _, values = line.partition("[")
    return head.split()[:3], [float(x) for x in re.findall(r"[-+]?(?:nan|inf|\d[\d.]*(?:e[-+]?\d+)?)", values)]


def main(want, got):
    (wh, wv), (gh, gv) = parse(want), parse(got)
    n = min(len(wv), len(gv))
    if wh != gh or n == 0 or any(abs(a - b) > 1e-4 * max(1.0, abs(a)) for a, b in zip(wv[:n], gv[:n])):
        print(f"differs from kiln run:\n  kiln run: {want}\n  it:       {got}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
