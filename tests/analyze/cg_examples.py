#!/usr/bin/env python3
"""Call-graph worked examples (docs/analyze.md, "Call graph", 8 and 10).

Every expected value below was written by hand from the rules of
docs/analyze.md, "Call graph" (Examples A-F below, of which A is 10.2 and D
is 10.3 there, C the diamond of 9.5 and E, F the empty and zero-weight
cases; the section 8 numerics example; the derivations are in the
comments).  Usage: cg_examples.py SFANALYZE
"""
import json
import subprocess
import sys
import tempfile
from fractions import Fraction as F

SF = sys.argv[1]
failed = 0


def run(lines, *opts):
    with tempfile.NamedTemporaryFile("w", suffix=".samples.tsv",
                                     delete=False) as f:
        f.write("".join(lines))
        path = f.name
    out = subprocess.run([SF, "--callgraph", "--json", *opts, path],
                         capture_output=True, text=True)
    if out.returncode:
        raise RuntimeError(out.stderr)
    return json.loads(out.stdout)


def same_num(got, want):
    # exact integers print exactly; other values as the nearest double
    if isinstance(want, F) and want.denominator == 1:
        want = int(want)
    if isinstance(want, int):
        return isinstance(got, int) and got == want
    return float(want) == got


def check(name, cond, why=""):
    global failed
    if cond:
        print("PASS: " + name)
    else:
        failed = 1
        print("FAIL: %s: %s" % (name, why))


def edges(got, want):
    """want: [(id, total, caller_time, callee_time)], in order."""
    if len(got) != len(want):
        return False
    for g, w in zip(got, want):
        if g["id"] != w[0]:
            return False
        for key, val in zip(("total", "caller_time", "callee_time"), w[1:]):
            if not same_num(g[key], F(val)):
                return False
    return True


def node(res, nid):
    if nid is None:
        return res["star_node"]
    for n in res["nodes"]:
        if n["id"] == nid:
            return n
    return None


def expect(ex, res, order, total_time, sample_number, thread_times, nodes):
    check(ex + "-order", [n["id"] for n in res["nodes"]] == order,
          "got %s" % [n["id"] for n in res["nodes"]])
    check(ex + "-total-time", same_num(res["total_time"], F(total_time)),
          res["total_time"])
    check(ex + "-sample-number", res["sample_number"] == sample_number,
          res["sample_number"])
    check(ex + "-thread-times",
          len(res["thread_times"]) == len(thread_times) and
          all(g[0] == w[0] and same_num(g[1], F(w[1]))
              for g, w in zip(res["thread_times"], thread_times)),
          res["thread_times"])
    for nid, (total, self, tids, callers, callees) in nodes.items():
        n = node(res, nid)
        tag = "%s-node-%s" % (ex, nid if nid is not None else "star")
        if n is None:
            check(tag, False, "missing")
            continue
        check(tag + "-total-self",
              same_num(n["total"], F(total)) and same_num(n["self"], F(self)),
              (n["total"], n["self"]))
        check(tag + "-thread-ids", n["thread_ids"] == tids, n["thread_ids"])
        if callers is not None:
            check(tag + "-callers", edges(n["callers"], callers),
                  n["callers"])
        if callees is not None:
            check(tag + "-callees", edges(n["callees"], callees),
                  n["callees"])


# Example A: one sample, w = 1000, A;B;B;B;A (the table of 10.2).
t = F(1000, 3)
res = run(["0\t1000\tA;B;B;B;A\n"])
expect("A", res, ["A", "B"], 1000, 1, [(0, 1000)], {
    "A": (1000, 1000, [0],
          [("B", 1000, 500, t), (None, 1000, 500, 1000)],
          [("B", 1000, t, 500), (None, 1000, 1000, 500)]),
    "B": (1000, 0, [0],
          [("B", 1000, 2 * t, 2 * t), ("A", 1000, t, 500)],
          [("B", 1000, 2 * t, 2 * t), ("A", 1000, 500, t)]),
    # * lists, newest first: callers = edges X->* = [A->*]; callees [*->A]
    None: (1000, 0, [], [("A", 1000, 1000, 500)], [("A", 1000, 500, 1000)]),
})

# Example B: w = 10, main;A;B;A;B.  Creation order *->main, B->*, A->B,
# B->A, main->A; ties in sorted lists keep the newer edge first, so
# B.callees = [B->A (5), B->* (5)].
res = run(["0\t10\tmain;A;B;A;B\n"])
expect("B", res, ["main", "A", "B"], 10, 1, [(0, 10)], {
    "main": (10, 0, [0], [(None, 10, 10, 10)], [("A", 10, 5, 10)]),
    "A": (10, 0, [0], [("main", 10, 5, 10), ("B", 10, 5, 5)],
          [("B", 10, 10, 10)]),
    "B": (10, 10, [0], [("A", 10, 10, 10)],
          [("A", 10, 5, 5), (None, 10, 10, 5)]),
    None: (10, 0, [], [("B", 10, 10, 5)], [("main", 10, 10, 10)]),
})

# Example C: diamond with a tie.  No recursion, so every edge has
# total = caller = callee.  main.callees sorted: L and R tie at 20, main->R
# is newer, so R first.
res = run(["0\t%s\t%s\n" % x for x in [
    (10, "main;L;D;X"), (10, "main;R;D;X"), (6, "main;L;D"), (6, "main;R;D"),
    (4, "main;R"), (4, "main;L"), (3, "main;D"), (2, "main;X")]])


def plain(*es):
    return [(i, w, w, w) for i, w in es]


expect("C", res, ["main", "R", "L", "D", "X"], 45, 8, [(0, 45)], {
    "main": (45, 0, [0], plain((None, 45)),
             plain(("R", 20), ("L", 20), ("D", 3), ("X", 2))),
    "R": (20, 4, [0], plain(("main", 20)), plain(("D", 16), (None, 4))),
    "L": (20, 4, [0], plain(("main", 20)), plain(("D", 16), (None, 4))),
    "D": (35, 15, [0], plain(("R", 16), ("L", 16), ("main", 3)),
          plain(("X", 20), (None, 15))),
    "X": (22, 22, [0], plain(("D", 20), ("main", 2)), plain((None, 22))),
    None: (45, 0, [], plain(("L", 4), ("R", 4), ("D", 15), ("X", 22)),
           plain(("main", 45))),
})

# Example D: symmetric cycle.  Creation: *->A, B->*, A->B, *->B, A->*, B->A.
res = run(["0\t10\tA;B\n", "0\t10\tB;A\n"])
expect("D", res, ["B", "A"], 20, 2, [(0, 20)], {
    "A": (20, 10, [0], plain(("B", 10), (None, 10)),
          plain((None, 10), ("B", 10))),
    "B": (20, 10, [0], plain((None, 10), ("A", 10)),
          plain(("A", 10), (None, 10))),
    None: (20, 0, [], plain(("A", 10), ("B", 10)),
           plain(("B", 10), ("A", 10))),
})

# Example E: single frames and empty stacks, two threads.
res = run(["0\t4\tA\n", "0\t6\t\n", "0\t4\tB\n", "0\t3\tA;B\n", "0\t4\tB\n",
           "1\t9\tA\n", "1\t2\t\n"])
expect("E", res, ["A", "B"], 32, 7, [(0, 21), (1, 11)], {
    "A": (16, 13, [1, 0], plain((None, 16)), plain((None, 13), ("B", 3))),
    "B": (11, 11, [0], plain((None, 8), ("A", 3)), plain((None, 11))),
    None: (32, 0, [], plain(("B", 11), ("A", 13)),
           plain(("B", 8), ("A", 16))),
})
# the same with the threads' lines interleaved: regrouped by thread (2.2)
res2 = run(["0\t4\tA\n", "1\t9\tA\n", "0\t6\t\n", "0\t4\tB\n", "1\t2\t\n",
            "0\t3\tA;B\n", "0\t4\tB\n"])
check("E-interleaved-same-result", res2 == res)

# Example F: zero weights.  Thread 1's main;f;f;g adds 1.125 with
# count(f) = 2: f->f gets 1.125/2 both ways; main->f caller_time
# 2.5 + 0.25 + 1.125/2 = 3.3125, callee_time 3.875.
res = run(["0\t2.5\tmain;f;g\n", "0\t0\tmain;zero\n", "0\t0.25\tmain;f\n",
           "0\t0\t\n", "1\t0\tmain;zero;deeper\n", "1\t1.125\tmain;f;f;g\n"])
expect("F", res, ["main", "deeper", "f", "zero", "g"], F("3.875"), 6,
       [(0, F("2.75")), (1, F("1.125"))], {
    "main": (F("3.875"), 0, [1, 0], None, None),
    "f": (F("3.875"), F("0.25"), [1, 0], None, None),
    "zero": (0, 0, [1, 0], None, None),
    "deeper": (0, 0, [1], None, None),
    "g": (F("3.625"), F("3.625"), [1, 0], None, None),
})
f = node(res, "f")
ff = [e for e in f["callers"] if e["id"] == "f"]
check("F-self-edge", len(ff) == 1 and ff[0]["caller_time"] == 0.5625 and
      ff[0]["callee_time"] == 0.5625 and ff[0]["total"] == 1.125, ff)
mf = [e for e in f["callers"] if e["id"] == "main"]
check("F-main-f", len(mf) == 1 and mf[0]["caller_time"] == 3.3125 and
      mf[0]["callee_time"] == 3.875, mf)

# Section 8: exactness decides the order (V, U, W; totals 2, 3, 3).
res = run(["0\t1\tU;V;U;W;U\n", "0\t1\tV;U;V;W;V;U\n",
           "0\t1\tU;U;U;U;W;U\n"])
check("numerics-order", [n["id"] for n in res["nodes"]] == ["V", "U", "W"],
      [n["id"] for n in res["nodes"]])
check("numerics-totals", [n["total"] for n in res["nodes"]] == [2, 3, 3],
      [n["total"] for n in res["nodes"]])

# 9.1: caller_time divides by the callee's count: A->B in A;B;B;B;A gets
# caller_time 1000/3 and callee_time 500 (not the documentation's swap).
res = run(["0\t1000\tA;B;B;B;A\n"])
ab = [e for e in node(res, "A")["callees"] if e["id"] == "B"][0]
check("swap-9.1", ab["caller_time"] == float(F(1000, 3)) and
      ab["callee_time"] == 500, ab)

# 9.6: thread-id gaps list zeros (tids 0 and 3: ids are the tids).
res = run(["0\t5\tA\n", "3\t7\tA\n"])
check("thread-gaps", res["thread_times"] == [[0, 5], [1, 0], [2, 0], [3, 7]],
      res["thread_times"])
check("thread-ids-decreasing", node(res, "A")["thread_ids"] == [3, 0],
      node(res, "A")["thread_ids"])
# --thread-ids order numbers them 0, 1 by first appearance
res = run(["3\t7\tA\n", "0\t5\tA\n"], "--thread-ids", "order")
check("thread-ids-order", res["thread_times"] == [[0, 7], [1, 5]],
      res["thread_times"])


# Filters rewrite the samples the analysis sees (docs/analyze.md): hiding
# B in A;B;C makes A call C; an all-hidden stack is an empty stack (in
# total_time, nobody's self); --collapse-recursion removes A->A.
res = run(["0\t1\tA;B;C\n", "0\t2\tB\n"], "--hide", "^B$")
expect("hide", res, ["A", "C"], 3, 2, [(0, 3)], {
    "A": (1, 0, [0], plain((None, 1)), plain(("C", 1))),
    "C": (1, 1, [0], plain(("A", 1)), plain((None, 1))),
})
res = run(["0\t4\tA;A;A\n", "0\t1\tB\n"], "--ignore", "^B")
expect("collapse-off", res, ["A"], 4, 1, [(0, 4)], {
    "A": (4, 4, [0], [("A", 4, F(8, 3), F(8, 3)), (None, 4, F(4, 3), 4)],
          [("A", 4, F(8, 3), F(8, 3)), (None, 4, 4, F(4, 3))]),
})
res = run(["0\t4\tA;A;A\n"], "--collapse-recursion")
expect("collapse-on", res, ["A"], 4, 1, [(0, 4)], {
    "A": (4, 4, [0], plain((None, 4)), plain((None, 4))),
})

# 2.1 midpoint rule (--timestamps), on the timestamp examples of 2.1:
# thread 0 at 10, 20, 60 -> 10, 25, 40; thread 1 at 10, 20, 60, 80 ->
# 10, 25, 30, 20; thread 2 at 10, 20 -> 10, 10; thread 3 has one snapshot:
# dropped (time 0, no nodes) but counted in sample_number (2.1, 6).
def timed_profile(path):
    samples = []
    for tid, times, stack in [(0, [10, 20, 60], 1), (1, [10, 20, 60, 80], 2),
                              (2, [10, 20], 1), (3, [5], 3)]:
        for t in times:
            samples.append([stack, tid, t, 0, 1])
    doc = {"format": "sftools-profile", "version": 1,
           "sample_types": [{"type": "samples", "unit": "count"}],
           "threads": [{"tid": i} for i in range(4)],
           "frames": [{"name": "A"}, {"name": "B"}, {"name": "C"}],
           "stacks": [[0, 0], [1, 1], [0, 2]], "label_sets": [],
           "samples": samples}
    with open(path, "w") as f:
        json.dump(doc, f)


with tempfile.TemporaryDirectory() as d:
    timed_profile(d + "/t.json")
    out = subprocess.run([SF, "--callgraph", "--json", "--timestamps",
                          d + "/t.json"], capture_output=True, text=True)
    res = json.loads(out.stdout) if out.returncode == 0 else None
    check("midpoint-thread-times", res is not None and
          res["thread_times"] == [[0, 75], [1, 85], [2, 20], [3, 0]],
          res and res["thread_times"])
    check("midpoint-sample-number", res is not None and
          res["sample_number"] == 10, res and res["sample_number"])
    # A is in threads 0 and 2 (stack A) and thread 1 (A;B): 75+20+85
    check("midpoint-nodes", res is not None and
          [(n["id"], n["total"], n["self"]) for n in res["nodes"]] ==
          [("A", 180, 95), ("B", 85, 85)], res and res["nodes"])
    out = subprocess.run([SF, "--callgraph", "--json", d + "/t.json"],
                         capture_output=True, text=True)
    res = json.loads(out.stdout) if out.returncode == 0 else None
    check("weights-by-default", res is not None and
          res["thread_times"] == [[0, 3], [1, 4], [2, 2], [3, 1]],
          res and res["thread_times"])

sys.exit(failed)
