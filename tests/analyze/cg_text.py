#!/usr/bin/env python3
"""The call graph's text (docs/analyze.md) against the same report's JSON:
every node and edge line of `sfanalyze --callgraph`, at -j1 and -j2,
rendered here with Python's own %-formatting (correctly rounded, as C's
printf) from `--callgraph --json`'s values:

  node:  " %-6s %12s (%5.1f%%) %12s (%5.1f%%)  NAME"
  edge:  "   %-6s %-8s %14s %6.1f%%  NAME"  (caller lines print the
         edge's caller_time, callee lines its callee_time; the
         percentage is of the node's total; * is the stack root as a
         caller, the self time as a callee)

Times as docs/analyze.md writes them: counts plain below 100000, then
k/M/G with two decimals (".00" dropped); --raw always plain; a
fraction with two decimals, its trailing zeros dropped.  Percentages
are 100.0 * part / whole in doubles, as the report computes them.
Profiles are seeded random sample lines whose totals make many
percentages land exactly on a half (12.25 -> "12.2": printf rounds the
exact binary value, half to even); the run checks that some did.

Usage: cg_text.py SFANALYZE [COUNT]
"""
import json
import random
import subprocess
import sys
import tempfile

SF = sys.argv[1]
COUNT = int(sys.argv[2]) if len(sys.argv) > 2 else 60
failed = 0
halves = 0


def check(name, ok, detail=""):
    global failed
    if ok:
        print("PASS: " + name)
    else:
        failed += 1
        print("FAIL: %s: %s" % (name, detail))


def plain(v):
    """sf_an_fmt: a whole value's digits, else two decimals trimmed"""
    if v == int(v) and abs(v) < 1e15:
        return "%d" % v if v or str(v)[0] != "-" else "-0"
    if abs(v) < 0.005:
        return "%.2g" % v
    s = "%.2f" % v
    return s.rstrip("0").rstrip(".")


def count(v, raw):
    if raw or v == 0 or abs(v) < 1e5:
        return plain(v)
    pick = ("", 1)
    for lab, f in (("", 1), ("k", 1e3), ("M", 1e6), ("G", 1e9),
                   ("T", 1e12)):
        if abs(v) / f >= 1.0:
            pick = (lab, f)
    s = "%.2f" % (abs(v) / pick[1])
    if s.endswith(".00"):
        s = s[:-3]
    return ("-" if v < 0 else "") + s + pick[0]


def pct(part, whole):
    global halves
    p = 100.0 * part / whole if whole != 0 else 0.0
    y = p * 10
    if y - int(y) == 0.5:
        halves += 1
    return p


def render(doc, raw):
    """the lines between the report's second and last rule"""
    idx = {n["id"]: i + 1 for i, n in enumerate(doc["nodes"])}
    tt = doc["total_time"]
    out = []
    for i, n in enumerate(doc["nodes"]):
        if i:
            out.append("-" * 72)
        tot = n["total"]
        for kind, lst, key in (("caller", n["callers"], "caller_time"),):
            for e in lst:
                out.append(edge(kind, e, key, tot, idx, raw))
        out.append(" %-6s %12s (%5.1f%%) %12s (%5.1f%%)  %s" % (
            "[%d]" % (i + 1), count(tot, raw), pct(tot, tt),
            count(n["self"], raw), pct(n["self"], tt), n["id"]))
        for e in n["callees"]:
            out.append(edge("callee", e, "callee_time", tot, idx, raw))
    return out


def edge(kind, e, key, tot, idx, raw):
    if e["id"] is None:
        lab, name = "*", "(stack root)" if kind == "caller" else "(self time)"
    else:
        lab, name = "[%d]" % idx[e["id"]], e["id"]
    return "   %-6s %-8s %14s %6.1f%%  %s" % (
        kind, lab, count(e[key], raw), pct(e[key], tot), name)


def profile(rng, k):
    """sample lines: weights in quarters, totals with many halves"""
    nfun = rng.choice([3, 5, 8, 20, 60]) if k % 10 else 1200
    n = rng.choice([8, 16, 40, 80, 400, 2000]) if k % 10 else 4000
    big = k % 7 == 3
    lines = []
    for _ in range(n):
        depth = rng.randint(0, 9)
        stack = ";".join("f%d" % rng.randrange(nfun) for _ in range(depth))
        if big:
            w = rng.choice([1, 3, 99999, 100000, 123456, 2500000,
                            7 * 10 ** 9])
        else:
            w = rng.choice([1, 1, 1, 2, 3, 0.25, 0.5, 1.75])
        lines.append("%d\t%s\t%s" % (rng.randrange(3), w, stack))
    return "\n".join(lines) + "\n"


def main():
    rng = random.Random(20261129)
    with tempfile.TemporaryDirectory() as d:
        for k in range(COUNT):
            path = d + "/p.samples.tsv"
            with open(path, "w") as f:
                f.write(profile(rng, k))
            for raw in ([], ["--raw"]):
                js = subprocess.run([SF, "-q", "--callgraph", "--json"] +
                                    raw + [path], capture_output=True,
                                    text=True)
                if js.returncode:
                    check("cg-text-%d" % k, False, js.stderr.strip())
                    continue
                want = render(json.loads(js.stdout), bool(raw))
                for j in ("-j1", "-j2"):
                    r = subprocess.run([SF, "-q", j, "--callgraph"] + raw +
                                       [path], capture_output=True,
                                       text=True)
                    lines = r.stdout.split("\n")
                    rules = [i for i, l in enumerate(lines)
                             if l == "=" * 72]
                    got = lines[rules[1] + 1:rules[2]] \
                        if len(rules) == 3 else lines
                    bad = next((a for a in zip(want, got) if a[0] != a[1]),
                               None)
                    name = "cg-text-%d%s%s" % (k, "-raw" if raw else "", j)
                    check(name, r.returncode == 0 and got == want,
                          "want %r, got %r (%d/%d lines)" % (
                              bad[0], bad[1], len(want), len(got))
                          if bad else "%d lines wanted, %d got" % (
                              len(want), len(got)))
    # 1000 t / T exactly k + 1/2 on enough lines that rounding on a half
    # was exercised
    check("cg-text-halves", halves >= 100, "only %d" % halves)
    return 1 if failed else 0


sys.exit(main())
