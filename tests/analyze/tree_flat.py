#!/usr/bin/env python3
"""--tree, --inverted, --flat (and the filters) against sums computed here
from the generated sample lines, independently of sfanalyze.  With
TIMELINE (a native JSON document of bench/gen_timeline.c, every sample a
stack of its own), the same reports and the call graph's node sums of
that document too: large enough that sfanalyze builds the view, the
tree and the call graph's adjacency in the pages loading leaves
(sf_big_keep), which the small profiles never reach.

Usage: tree_flat.py SFANALYZE [COUNT [TIMELINE]]
"""
import json
import random
import re
import subprocess
import sys
import tempfile
from collections import defaultdict

SF = sys.argv[1]
COUNT = int(sys.argv[2]) if len(sys.argv) > 2 else 40
bad = defaultdict(int)
first = {}


def sfa(path, *opts):
    out = subprocess.run([SF, "--json", *opts, path], capture_output=True,
                         text=True)
    if out.returncode:
        raise RuntimeError(out.stderr)
    return json.loads(out.stdout)


def tree_sums(samples, inverted=False):
    """{path tuple: [total, self]} with () the root."""
    t = defaultdict(lambda: [0, 0])
    t[()] = [0, 0]   # the root stands for all samples, even none
    for _, w, s in samples:
        s = list(reversed(s)) if inverted else s
        for i in range(len(s) + 1):
            t[tuple(s[:i])][0] += w
        t[tuple(s)][1] += w
    return t


def flat_sums(samples):
    f = defaultdict(lambda: [0, 0])
    for _, w, s in samples:
        if s:
            f[s[-1]][0] += w
        for x in set(s):
            f[x][1] += w
    return f


def walk(node, path, out, order_ok):
    out[path] = [node["total"], node["self"]]
    kids = node["children"]
    keys = [(-k["total"], k["name"]) for k in kids]
    if keys != sorted(keys):
        order_ok[0] = False
    for k in kids:
        walk(k, path + (k["name"],), out, order_ok)


def note(name, ok, detail):
    if not ok:
        bad[name] += 1
        first.setdefault(name, detail)


def check_tree(name, got, samples, inverted=False):
    want = tree_sums(samples, inverted)
    have, order_ok = {}, [True]
    note(name, got["name"] is None, "root name")
    walk(got, (), have, order_ok)
    note(name, order_ok[0], "children not sorted by total, then name")
    h = {k: tuple(v) for k, v in have.items()}
    w = {k: tuple(v) for k, v in want.items()}
    note(name, h == w, "differs: %s" % sorted(set(h.items()) ^
                                             set(w.items()))[:3])


def check_flat(name, got, samples, by_total=False):
    want = flat_sums(samples)
    note(name + "-header", (got["unit"], got["total"], got["samples"]) ==
         ("count", sum(w for _, w, _ in samples), len(samples)),
         "header %r" % {k: got[k] for k in ("unit", "total", "samples")})
    got = got["functions"]
    have = {r["name"]: [r["self"], r["total"]] for r in got}
    note(name, have == dict(want), "rows differ")
    keys = [(-(r["total"] if by_total else r["self"]), r["name"])
            for r in got]
    note(name + "-sorted", [k[0] for k in keys] == sorted(k[0] for k in keys),
         "not sorted")


def gen(rng):
    names = ["main", "f", "g", "h", "io_read", "io_write", "lock",
             "x::y", "sp ace"][:rng.randint(3, 9)]
    samples = []
    for _ in range(rng.randint(1, 60)):
        depth = rng.randint(0, 7)
        samples.append((rng.choice([0, 1, 4]), rng.choice([0, 1, 2, 3, 5, 8]),
                        [rng.choice(names) for _ in range(depth)]))
    return samples


def write(samples, path):
    with open(path, "w") as f:
        for t, w, s in samples:
            f.write("%d\t%d\t%s\n" % (t, w, ";".join(s)))


def hide(samples, rx):
    return [(t, w, [x for x in s if not re.search(rx, x)])
            for t, w, s in samples]


def collapse(samples):
    out = []
    for t, w, s in samples:
        c = []
        for x in s:
            if not c or c[-1] != x:
                c.append(x)
        out.append((t, w, c))
    return out


rng = random.Random(4242)
with tempfile.TemporaryDirectory() as d:
    p = d + "/p.samples.tsv"
    for i in range(COUNT):
        W = gen(rng)
        write(W, p)
        # what every report sees: the samples that are not all zero
        # (docs/analyze.md, "All-zero samples")
        S = [x for x in W if x[1] != 0]
        check_tree("tree", sfa(p, "--tree"), S)
        check_tree("tree-inverted", sfa(p, "--tree", "--inverted"), S, True)
        check_flat("flat", sfa(p, "--flat"), S)
        check_flat("flat-sort-total", sfa(p, "--flat", "--sort", "total"), S,
                   True)
        check_tree("filter-focus", sfa(p, "--focus", "^io_"),
                   [x for x in S if any(re.search("^io_", f) for f in x[2])])
        check_tree("filter-ignore", sfa(p, "--ignore", "lock|h"),
                   [x for x in S if not any(re.search("lock|h", f)
                                            for f in x[2])])
        check_tree("filter-hide", sfa(p, "--hide", "^(f|g)$"),
                   hide(S, "^(f|g)$"))
        check_flat("filter-collapse", sfa(p, "--flat",
                                          "--collapse-recursion"),
                   collapse(S))
        # a thread whose samples are all zero has none left to select
        one = rng.choice(sorted(set(x[0] for x in W)))
        if any(x[0] == one for x in S):
            check_tree("filter-thread", sfa(p, "--thread", str(one)),
                       [x for x in S if x[0] == one])
        per = sfa(p, "--per-thread")
        tids = sorted(set(x[0] for x in S))
        note("per-thread", list(per) == [str(t) for t in tids],
             "keys %s" % list(per))
        for t in tids:
            if str(t) in per:
                check_tree("per-thread", per[str(t)],
                           [x for x in S if x[0] == t])


def timeline(path):
    """The samples (thread, weight, frame names root first) of a native
    JSON document with one sample type (docs/formats.md): a sample is
    [stack, thread, time, labels, weight], a stack node [parent, frame],
    the nodes numbered from 1."""
    with open(path) as f:
        doc = json.load(f)
    names = [x["name"] for x in doc["frames"]]
    stacks = [None] + doc["stacks"]
    samples = []
    for st, th, _, _, w in doc["samples"]:
        s = []
        while st:
            s.append(names[stacks[st][1]])
            st = stacks[st][0]
        samples.append((th, w, s[::-1]))
    return samples


def check_cg_nodes(name, got, samples):
    want = flat_sums(samples)
    have = {n["id"]: [n["self"], n["total"]] for n in got["nodes"]}
    note(name, have == dict(want), "node sums differ")


timeline_names = []
if len(sys.argv) > 3:
    T = sys.argv[3]
    S = timeline(T)
    timeline_names = ["timeline-" + n for n in
                      ("tree", "tree-inverted", "flat", "hide",
                       "collapse", "focus", "callgraph", "callgraph-j1")]
    check_tree("timeline-tree", sfa(T, "--tree"), S)
    check_tree("timeline-tree-inverted", sfa(T, "--tree", "--inverted"), S,
               True)
    check_flat("timeline-flat", sfa(T, "--flat"), S)
    # the view's other path (view.c: not `direct`)
    check_flat("timeline-hide", sfa(T, "--flat", "--hide", "^lib3::"),
               hide(S, "^lib3::"))
    check_tree("timeline-collapse", sfa(T, "--collapse-recursion"),
               collapse(S))
    check_tree("timeline-focus", sfa(T, "--focus", "^lib7::fn_1"),
               [x for x in S if any(re.search("^lib7::fn_1", f)
                                    for f in x[2])])
    check_cg_nodes("timeline-callgraph", sfa(T, "--callgraph"), S)
    check_cg_nodes("timeline-callgraph-j1", sfa(T, "-j1", "--callgraph"),
                   S)
for name in ["tree", "tree-inverted", "flat", "flat-sort-total",
             "flat-sorted", "flat-sort-total-sorted", "filter-focus",
             "filter-ignore", "filter-hide", "filter-collapse",
             "filter-collapse-sorted", "filter-thread",
             "per-thread"] + timeline_names:
    if bad[name]:
        print("FAIL: %s: %d of %d profiles; first: %s" %
              (name, bad[name], COUNT, first[name]))
    else:
        print("PASS: %s" % name)
sys.exit(1 if any(bad.values()) else 0)
