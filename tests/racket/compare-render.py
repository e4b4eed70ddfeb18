"""compare-render.py RENDER.txt CALLGRAPH.json: the nodes Racket's
profile/render-text printed (order, total and self in ms as it rounds
them, their percentages of the total time as it formats them, the name)
against `sfanalyze --callgraph --timestamps --json` on the exported
profile.  Prints one line per difference; exit 1 if any."""
import json
import re
import sys
from fractions import Fraction

render = open(sys.argv[1], encoding="utf-8").read().splitlines()
cg = json.load(open(sys.argv[2], encoding="utf-8"))
tt = Fraction(cg["total_time"]) / 1000000          # ms


def pct(x):
    # utils.rkt format-percent: round(x * 1000) (exact, to even), "a.b%"
    p = round(Fraction(x) / tt * 1000) if tt else 0
    return "%d.%d%%" % (p // 10, p % 10)


def ms(ns):
    return str(round(Fraction(ns) / 1000000))    # f:msec: round, to even


want = []
for line in render:
    m = re.match(r"^\[(\d+)\] +(\d+)\(([\d.]+%)\) +(\d+)\(([\d.]+%)\) +(.*)$",
                 line)
    if m:
        want.append(m.groups())
bad = []
head = [l for l in render if "Number of samples taken:" in l]
if not head or int(head[0].split(":")[1].split()[0]) != cg["sample_number"]:
    bad.append("sample count: render %s, sfanalyze %s" % (head, cg["sample_number"]))
got = []
for i, n in enumerate(cg["nodes"]):
    tot = Fraction(n["total"])
    slf = Fraction(n["self"])
    got.append((str(i + 1), ms(tot), pct(tot / 1000000), ms(slf),
                pct(slf / 1000000), n["id"]))
if len(want) != len(got) or not want:
    bad.append("render shows %d nodes, sfanalyze %d" % (len(want), len(got)))
for w, g in zip(want, got):
    # render's "Name+src" is the name, a blank and the source; the
    # exporter names a frame "name source" when one name has several
    name_ok = w[5] == g[5] or w[5].startswith(g[5] + " ")
    if w[:5] != g[:5] or not name_ok:
        bad.append("render %s != sfanalyze %s" % (w, g))
for b in bad:
    print(b)
sys.exit(1 if bad else 0)
