#!/usr/bin/env python3
"""Our --flat text against the real `pprof -top -unit=auto` on the same
profile: the total, and for every function pprof lists, its flat and cum
strings equal our self and total strings (the units scaled as pprof
scales them).  With --totals only the totals are compared (unsymbolized
profiles, which pprof groups by module and we by address).

Usage: pprof_top.py PPROF_TOP_TEXT SFANALYZE_FLAT_TEXT [--totals]
"""
import re
import sys

pp, sf = open(sys.argv[1]).read(), open(sys.argv[2]).read()
totals_only = "--totals" in sys.argv[3:]
tp = re.search(r'of (\S+) total', pp)
ts = re.search(r': total (\S+) in', sf)
rows_p, rows_s = {}, {}
for line in pp.splitlines():
    m = re.match(r'^\s*(\S+)\s+\S+%\s+\S+%\s+(\S+)\s+\S+%\s+(.*)$', line)
    if m and m.group(1) != 'flat':
        rows_p[m.group(3)] = (m.group(1), m.group(2))
for line in sf.splitlines():
    m = re.match(r'^\s*\d+\s+(\S+)\s+\S+%\s+\S+%\s+(\S+)\s+\S+%  (.*)$', line)
    if m:
        rows_s[m.group(3)] = (m.group(1), m.group(2))
bad = []
if not tp or not ts or tp.group(1) != ts.group(1):
    bad.append("total: pprof %s, ours %s" % (tp and tp.group(1),
                                             ts and ts.group(1)))
if not totals_only:
    if not rows_p:
        bad.append("no rows in pprof's output")
    bad += ["%s: pprof %s, ours %s" % (k, v, rows_s.get(k))
            for k, v in rows_p.items() if rows_s.get(k) != v]
print("; ".join(bad[:3]))
sys.exit(1 if bad else 0)
