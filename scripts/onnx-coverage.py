#!/usr/bin/env python3
"""Generates docs/onnx-coverage.md from a run of the ONNX backend test suite.

    scripts/onnx-coverage.py [--runner build/tests/kiln_backend_tests] [--failures FILE]
                             [--notes tests/onnx_backend/failure_notes.txt]
                             [--output docs/onnx-coverage.md]

Without --failures it runs `RUNNER --report --failures TMP` (minutes); with it, it reads a
failures file a previous run wrote ("case<TAB>why" per failing case). The operators of each
case come from its model.onnx, read with a small protobuf wire-format reader (python3 standard
library only). Per operator: how many of the cases using it pass; per failing case: the
runner's message and, when tests/onnx_backend/failure_notes.txt has one, the analysis of why.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
from collections import defaultdict

from protobuf_wire import fields

SUITE = "/usr/share/libonnx-testdata/data"
FOLDERS = ["node", "pytorch-converted", "pytorch-operator", "simple"]
# Cases comparing random draws: excluded from the target (issue 3).
RANDOM = re.compile(r"^node/test_(bernoulli.*|training_dropout(_default)?(_mask)?)$")


def graph_ops(graph, out):
    """Adds (domain, op_type) of every node of a GraphProto and its subgraphs to out."""
    for number, wire, value in fields(graph):
        if number != 1 or wire != 2:  # GraphProto.node
            continue
        op_type, domain = "", ""
        for n, w, v in fields(value):
            if n == 4 and w == 2:
                op_type = v.decode()
            elif n == 7 and w == 2:
                domain = v.decode()
            elif n == 5 and w == 2:  # AttributeProto: g (6), graphs (11)
                for an, aw, av in fields(v):
                    if an in (6, 11) and aw == 2:
                        graph_ops(av, out)
        out.add((domain if domain not in ("", "ai.onnx") else "", op_type))


def model_ops(path):
    with open(path, "rb") as f:
        model = f.read()
    ops = set()
    for number, wire, value in fields(model):
        if number == 7 and wire == 2:  # ModelProto.graph
            graph_ops(value, ops)
    return ops


def list_cases():
    cases = []
    for folder in FOLDERS:
        d = os.path.join(SUITE, folder)
        if os.path.isdir(d):
            cases += [folder + "/" + c for c in sorted(os.listdir(d))
                      if os.path.isdir(os.path.join(d, c))]
    return sorted(cases)


def read_tab_file(path):
    out = {}
    if path and os.path.exists(path):
        with open(path) as f:
            for line in f:
                line = line.rstrip("\n")
                if not line or line.startswith("#") or "\t" not in line:
                    continue
                case, text = line.split("\t", 1)
                out[case] = text
    return out


def op_name(key):
    domain, op = key
    return op if not domain else "%s (%s)" % (op, domain)


def md_escape(text):
    return text.replace("|", "\\|").replace("\n", " ")


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(here)
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--runner", default=os.path.join(root, "build/tests/kiln_backend_tests"))
    p.add_argument("--cli", help="run the cases through this kiln executable")
    p.add_argument("--failures", help="read this failures file instead of running the suite")
    p.add_argument("--notes", default=os.path.join(root, "tests/onnx_backend/failure_notes.txt"))
    p.add_argument("--output", default=os.path.join(root, "docs/onnx-coverage.md"))
    args = p.parse_args()

    if not os.path.isdir(SUITE):
        sys.exit("the ONNX backend suite is not installed (%s): apt-get install libonnx-testdata"
                 % SUITE)
    failures_path = args.failures
    if not failures_path:
        failures_path = tempfile.mktemp(suffix=".tsv")
        cmd = [args.runner, "--report", "--failures", failures_path]
        if args.cli:
            cmd += ["--cli", os.path.abspath(args.cli)]
        print("running", " ".join(cmd), file=sys.stderr)
        subprocess.run(cmd, check=False)
    failures = read_tab_file(failures_path)
    notes = read_tab_file(args.notes)

    cases = list_cases()
    per_op = defaultdict(lambda: [0, 0])
    per_folder = defaultdict(lambda: [0, 0])
    failing = []
    for case in cases:
        passed = case not in failures
        folder = case.split("/")[0]
        per_folder[folder][1] += 1
        per_folder[folder][0] += passed
        try:
            ops = model_ops(os.path.join(SUITE, case, "model.onnx"))
        except (OSError, ValueError, IndexError) as e:
            ops = set()
            print("cannot read the operators of %s: %s" % (case, e), file=sys.stderr)
        for op in ops:
            per_op[op][1] += 1
            per_op[op][0] += passed
        if not passed:
            failing.append((case, ops))

    total = len(cases)
    passed_total = total - len(failing)
    random_cases = [c for c in cases if RANDOM.match(c)]
    random_failing = [c for c, _ in failing if RANDOM.match(c)]
    counted = total - len(random_cases)
    counted_pass = passed_total - (len(random_cases) - len(random_failing))

    lines = ["# ONNX coverage", "",
             "Generated by `scripts/onnx-coverage.py` from a run of the ONNX backend test suite "
             "(Debian `libonnx-testdata`, ONNX 1.12) with the default tolerances (rtol 1e-4, "
             "atol 1e-5; integers exact). Regenerate after changing ops; do not edit by hand.",
             "", "## Summary", "",
             "| folder | passed | total |", "| --- | ---: | ---: |"]
    for folder in FOLDERS:
        if folder in per_folder:
            lines.append("| %s | %d | %d |" % (folder, per_folder[folder][0], per_folder[folder][1]))
    lines.append("| **all** | **%d** | **%d** |" % (passed_total, total))
    lines += ["",
              "Without the %d cases that compare random draws (`Bernoulli`, training-mode "
              "`Dropout`): **%d of %d** pass." % (len(random_cases), counted_pass, counted), "",
              "`kiln ops` lists the operators kiln translates; `kiln ops --missing` the standard "
              "ones it does not.", "",
              "## Remaining failures", "",
              "| case | operators | why |", "| --- | --- | --- |"]
    for case, ops in failing:
        why = notes.get(case) or failures.get(case) or "failed"
        if RANDOM.match(case):
            why = "compares random draws (excluded). " + why
        lines.append("| %s | %s | %s |" % (case, ", ".join(sorted(op_name(o) for o in ops)),
                                           md_escape(why)[:500]))
    lines += ["", "## Per operator", "",
              "Cases using the operator (anywhere in the model, subgraphs included) that pass.", "",
              "| operator | passed | total |", "| --- | ---: | ---: |"]
    for op in sorted(per_op, key=lambda k: (k[0], k[1].lower())):
        ok, n = per_op[op]
        lines.append("| %s | %d | %d%s |" % (op_name(op), ok, n, "" if ok == n else " ✗"))
    os.makedirs(os.path.dirname(args.output), exist_ok=True)
    # The opsets 18-25 section (scripts/opsets-coverage.py) is kept as it stands.
    kept = ""
    if os.path.exists(args.output):
        old = open(args.output, encoding="utf-8").read()
        at = old.find("<!-- opsets 18-25:")
        if at >= 0:
            kept = "\n" + old[at:]
    with open(args.output, "w") as f:
        f.write("\n".join(lines) + "\n" + kept)
    print("%s: %d / %d cases pass (%d / %d without the random ones)"
          % (args.output, passed_total, total, counted_pass, counted))


if __name__ == "__main__":
    main()
