#!/usr/bin/env python3
"""Call graph on random profiles: the invariants of docs/analyze.md, call
graph 3.1, and agreement with a small reference implementation of its
rules (exact Fractions), on every value and every ordering.

Profiles are random sample lines (THREAD<TAB>WEIGHT<TAB>stack) with few
function names (so recursion, mutual recursion and cycles are common),
empty stacks, zero and fractional weights, several threads (with id gaps)
whose lines interleave.  Seeded: the same run every time.

Usage: cg_props.py SFANALYZE [COUNT]
"""
import json
import random
import subprocess
import sys
import tempfile
from collections import Counter
from fractions import Fraction as F

SF = sys.argv[1]
COUNT = int(sys.argv[2]) if len(sys.argv) > 2 else 150
STAR = None
failed = 0


def reference(samples):
    """docs/analyze.md call graph 2.3-7; samples: [(tid, Fraction w, [frames])]
    in input order, stacks root first."""
    order = sorted(range(len(samples)), key=lambda i: samples[i][0])
    total_time = F(0)
    thread_time = {}
    tot, slf, tids = {STAR: F(0)}, {STAR: F(0)}, {STAR: []}
    edges = {}       # (x, y) -> [total, caller_time, callee_time, created]
    callers = {STAR: []}
    callees = {STAR: []}
    for i in order:
        T, w, S = samples[i]
        total_time += w
        thread_time[T] = thread_time.get(T, 0) + w
        for x in S:
            if x not in tot:
                tot[x], slf[x], tids[x] = F(0), F(0), []
                callers[x], callees[x] = [], []
            if T not in tids[x]:
                tids[x].insert(0, T)
        if not S:
            continue
        cnt = Counter(S)
        for x in set(S):
            tot[x] += w
        slf[S[-1]] += w
        occ = [(STAR, S[0]), (S[-1], STAR)]
        occ += [(S[j - 1], S[j]) for j in range(len(S) - 1, 0, -1)]
        for e in occ:
            if e not in edges:
                edges[e] = [F(0), F(0), F(0), len(edges)]
                callees[e[0]].insert(0, e)
                callers[e[1]].insert(0, e)
            x, y = e
            edges[e][1] += w / (cnt[y] if y is not STAR else 1)
            edges[e][2] += w / (cnt[x] if x is not STAR else 1)
        for e in set(occ):
            edges[e][0] += w
    tot[STAR] = total_time
    real = [n for n in tot if n is not STAR]
    # 5.1 discovery
    disc, queue, inq = [], [STAR], {STAR}
    while queue:
        n = queue.pop(0)
        if n is not STAR:
            disc.append(n)
        for e in callees[n]:
            y = e[1]
            if y not in inq and y not in disc:
                queue.append(y)
                inq.add(y)
    def inner(e):
        return e[0] != e[1] and e[0] is not STAR and e[1] is not STAR
    inw = {n: sum((edges[e][2] for e in callers[n] if inner(e)), F(0))
           for n in real}
    outw = {n: sum((edges[e][1] for e in callees[n] if inner(e)), F(0))
            for n in real}
    # 5.2
    W = list(reversed(disc))
    left, right = [], []
    while W:
        sinks = [n for n in W if outw[n] == 0]
        W = [n for n in W if n not in sinks]
        sources = [n for n in W if inw[n] == 0]
        if not sinks and not sources:
            r = min(inw[n] / outw[n] for n in W)
            sources = [n for n in reversed(W) if inw[n] / outw[n] == r]
        W = [n for n in W if n not in sources]
        for n in sources + sinks:
            for e in callees[n]:
                if e[1] in W:
                    inw[e[1]] -= edges[e][2]
            for e in callers[n]:
                if e[0] in W:
                    outw[e[0]] -= edges[e][1]
        left = left + sources
        right = sinks + right
    L = left + right
    pos = {n: i for i, n in enumerate(L)}
    layer = {}
    for n in L:
        ps = [e[0] for e in callers[n] if inner(e) and pos[e[0]] < pos[n]]
        layer[n] = 1 + max(layer[p] for p in ps) if ps else 0
    nodes = []
    for k in range(max(layer.values()) + 1 if layer else 0):
        lay = [n for n in reversed(L) if layer[n] == k]
        lay.sort(key=lambda n: -tot[n])   # stable
        nodes += lay
    def edge_list(lst, key):
        return sorted(lst, key=lambda e: -edges[e][key])   # stable
    def node_out(n, sort):
        cs = edge_list(callers[n], 1) if sort else callers[n]
        ce = edge_list(callees[n], 2) if sort else callees[n]
        return {"id": n, "total": tot[n], "self": slf[n],
                "thread_ids": tids[n],
                "callers": [(e[0], *edges[e][:3]) for e in cs],
                "callees": [(e[1], *edges[e][:3]) for e in ce]}
    maxid = max((s[0] for s in samples), default=-1)
    return {"total_time": total_time, "sample_number": len(samples),
            "thread_times": [(t, thread_time.get(t, F(0)))
                             for t in range(maxid + 1)],
            "nodes": [node_out(n, True) for n in nodes],
            "star_node": node_out(STAR, False)}


def num_eq(got, want):
    if want.denominator == 1:
        return isinstance(got, int) and got == want.numerator
    return got == float(want)


def compare(got, ref):
    """First difference as a string, or None."""
    if got["sample_number"] != ref["sample_number"]:
        return "sample_number"
    if not num_eq(got["total_time"], ref["total_time"]):
        return "total_time"
    if len(got["thread_times"]) != len(ref["thread_times"]) or not all(
            g[0] == r[0] and num_eq(g[1], r[1])
            for g, r in zip(got["thread_times"], ref["thread_times"])):
        return "thread_times"
    gn = [n["id"] for n in got["nodes"]]
    rn = [n["id"] for n in ref["nodes"]]
    if gn != rn:
        return "node order %s, reference %s" % (gn, rn)
    for g, r in zip(got["nodes"] + [got["star_node"]],
                    ref["nodes"] + [ref["star_node"]]):
        if not (num_eq(g["total"], r["total"]) and
                num_eq(g["self"], r["self"])):
            return "total/self of %s" % r["id"]
        if g["thread_ids"] != r["thread_ids"]:
            return "thread_ids of %s" % r["id"]
        for key in ("callers", "callees"):
            ge, re_ = g[key], r[key]
            if [e["id"] for e in ge] != [e[0] for e in re_]:
                return "%s order of %s: %s vs %s" % (
                    key, r["id"], [e["id"] for e in ge], [e[0] for e in re_])
            for a, b in zip(ge, re_):
                if not (num_eq(a["total"], b[1]) and
                        num_eq(a["caller_time"], b[2]) and
                        num_eq(a["callee_time"], b[3])):
                    return "%s times of %s -> %s" % (key, r["id"], b[0])
    return None


def close(a, b):
    return abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))


def invariants(got):
    """3.1, on the printed (nearest double) values."""
    for n in got["nodes"]:
        if not close(sum(e["caller_time"] for e in n["callers"]), n["total"]):
            return "callers of %s do not sum to its total" % n["id"]
        if not close(sum(e["callee_time"] for e in n["callees"]), n["total"]):
            return "callees of %s do not sum to its total" % n["id"]
        for e in n["callers"]:
            if e["id"] is None and e["callee_time"] != e["total"]:
                return "callee_time(*->%s) != total" % n["id"]
        for e in n["callees"]:
            if e["id"] is None and (e["caller_time"] != e["total"] or
                                    e["total"] != n["self"]):
                return "caller_time(%s->*) != total != self" % n["id"]
    if not close(got["total_time"], sum(t for _, t in got["thread_times"])):
        return "total_time != sum of thread times"
    if got["star_node"]["total"] != got["total_time"]:
        return "total(*) != total_time"
    return None


def gen(rng):
    big = rng.random() < 0.2   # some larger graphs: more names, deeper
    names = rng.sample("ABCDEFGHIJKLMNOP", rng.randint(2, 14 if big else 6))
    tids = rng.sample([0, 1, 2, 3, 5], rng.randint(1, 3))
    weights = [F(0), F(1), F(1), F(2), F(3), F(1, 2), F(1, 4), F(7, 8),
               F(10), F(5, 2)]
    samples = []
    for _ in range(rng.randint(1, 200 if big else 40)):
        depth = rng.randint(0, 16 if big else 8) if rng.random() > 0.1 \
            else 0
        samples.append((rng.choice(tids), rng.choice(weights),
                        [rng.choice(names) for _ in range(depth)]))
    return samples


def write(samples, path):
    with open(path, "w") as f:
        for t, w, s in samples:
            f.write("%d\t%s\t%s\n" % (t, repr(float(w)), ";".join(s)))


rng = random.Random(20261122)
bad_ref = bad_inv = 0
with tempfile.TemporaryDirectory() as d:
    for i in range(COUNT):
        samples = gen(rng)
        write(samples, d + "/p.samples.tsv")
        out = subprocess.run([SF, "--callgraph", "--json",
                              d + "/p.samples.tsv"],
                             capture_output=True, text=True)
        if out.returncode:
            print("FAIL: cg-random-%d: exit %d: %s" % (i, out.returncode,
                                                      out.stderr.strip()))
            failed = 1
            continue
        got = json.loads(out.stdout)
        why = invariants(got)
        if why and bad_inv < 5:
            print("FAIL: cg-invariants-%d: %s" % (i, why))
        bad_inv += why is not None
        why = compare(got, reference(samples))
        if why and bad_ref < 5:
            print("FAIL: cg-reference-%d: %s" % (i, why))
            with open(d + "/p.samples.tsv") as f:
                print(f.read())
        bad_ref += why is not None
print("%s: cg-invariants: %d random profiles" %
      ("FAIL" if bad_inv else "PASS", COUNT))
print("%s: cg-reference: %d random profiles" %
      ("FAIL" if bad_ref else "PASS", COUNT))
sys.exit(1 if failed or bad_inv or bad_ref else 0)
