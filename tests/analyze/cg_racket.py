#!/usr/bin/env python3
"""Call graph against Racket's own profile/analyzer: every value and every
order of `sfanalyze --callgraph --json` must equal what analyze-samples
computes (run through bench/callgraph-racket.rkt, which prints exact
numbers), on seeded random profiles (bench/gen_stacks.c shapes: random
walks over a fixed call graph with recursion and cycles, several threads,
weight 1).  Values compare as the exact number rounded to the nearest
double, integers as integers.

Usage: cg_racket.py SFANALYZE RKT GEN [N SAMPLES FUNCTIONS DEPTH DISTINCT]...
where GEN is a compiled bench/gen_stacks.c; each N SAMPLES FUNCTIONS DEPTH
DISTINCT group is one profile, seeded with N.
"""
import json
import subprocess
import sys
import tempfile
from fractions import Fraction as F

SF, RKT, GEN = sys.argv[1:4]
failed = 0


def exact(x):
    if isinstance(x, str):
        n, d = x.split("/")
        return F(int(n), int(d))
    return F(x)


def num_eq(got, want):
    want = exact(want)
    if want.denominator == 1:
        return isinstance(got, int) and got == want.numerator
    return isinstance(got, float) and got == float(want)


def node_diff(g, r, where):
    for k in ("id", "thread_ids"):
        if g[k] != r[k]:
            return "%s %s: %r, racket %r" % (where, k, g[k], r[k])
    for k in ("total", "self"):
        if not num_eq(g[k], r[k]):
            return "%s %s: %r, racket %r" % (where, k, g[k], r[k])
    for lst in ("callers", "callees"):
        if len(g[lst]) != len(r[lst]):
            return "%s: %d %s, racket %d" % (where, len(g[lst]), lst,
                                             len(r[lst]))
        for i, (ge, re) in enumerate(zip(g[lst], r[lst])):
            if ge["id"] != re["id"]:
                return "%s %s[%d]: %r, racket %r" % (where, lst, i,
                                                     ge["id"], re["id"])
            for k in ("total", "caller_time", "callee_time"):
                if not num_eq(ge[k], re[k]):
                    return "%s %s[%d] %s: %r, racket %r" % (
                        where, lst, i, k, ge[k], re[k])
    return None


def diff(g, r):
    for k in ("total_time", "sample_number"):
        if not num_eq(g[k], r[k]):
            return "%s: %r, racket %r" % (k, g[k], r[k])
    if [t for t, _ in g["thread_times"]] != [t for t, _ in r["thread_times"]]:
        return "thread ids differ"
    for (t, a), (_, b) in zip(g["thread_times"], r["thread_times"]):
        if not num_eq(a, b):
            return "thread %d time: %r, racket %r" % (t, a, b)
    if [n["id"] for n in g["nodes"]] != [n["id"] for n in r["nodes"]]:
        return "node order differs"
    for i, (a, b) in enumerate(zip(g["nodes"], r["nodes"])):
        d = node_diff(a, b, "node %d" % (i + 1))
        if d:
            return d
    return node_diff(g["star_node"], r["star_node"], "star node")


args = sys.argv[4:]
with tempfile.TemporaryDirectory() as tmp:
    for j in range(0, len(args), 5):
        seed, n, nf, depth, distinct = args[j:j + 5]
        name = "cg-racket-seed%s-%sx%s" % (seed, n, nf)
        path = tmp + "/in.samples.tsv"
        with open(path, "w") as f:
            subprocess.run([GEN, n, nf, depth, seed, distinct], stdout=f,
                           check=True)
        try:
            ref = json.loads(subprocess.run(
                ["racket", RKT, path], capture_output=True, text=True,
                check=True).stdout)
            got = json.loads(subprocess.run(
                [SF, "--callgraph", "--json", path], capture_output=True,
                text=True, check=True).stdout)
        except subprocess.CalledProcessError as e:
            print("FAIL: %s: %s exited with %d: %s" % (
                name, e.cmd[0], e.returncode, e.stderr.strip()[:200]))
            failed += 1
            continue
        d = diff(got, ref)
        if d:
            print("FAIL: %s: %s" % (name, d))
            failed += 1
        else:
            print("PASS: %s" % name)
sys.exit(1 if failed else 0)
