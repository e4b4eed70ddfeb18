#!/usr/bin/env python3
"""The call-graph picture against the call graph: the nodes and edges of
`sfanalyze --callgraph --dot` (and of the SVG Graphviz made of it, as the
browser sees it) equal those of `--callgraph --json` after the pruning
rule applied here, independently of sfanalyze:
  a node is drawn iff total > 0 and total >= node_fraction * total_time;
  an edge iff both ends are drawn, neither is *, and its total > 0 and
  total >= edge_fraction * total_time.

Usage: cg_picture.py JSON DOT NODE_FRACTION EDGE_FRACTION [BROWSER_JSON]
Exit 0 when equal; prints what differs otherwise.
"""
import json
import re
import sys

cg = json.load(open(sys.argv[1]))
dot = open(sys.argv[2]).read()
nf, ef = float(sys.argv[3]), float(sys.argv[4])
tt = cg["total_time"]
names = {n["id"]: i + 1 for i, n in enumerate(cg["nodes"])}
want_nodes = {i + 1 for i, n in enumerate(cg["nodes"])
              if n["total"] > 0 and n["total"] >= nf * tt}
want_edges = set()
for i, n in enumerate(cg["nodes"]):
    if i + 1 not in want_nodes:
        continue
    for e in n["callees"]:
        if e["id"] is None:
            continue
        j = names[e["id"]]
        if j in want_nodes and e["total"] > 0 and e["total"] >= ef * tt:
            want_edges.add((i + 1, j))

got_nodes = {int(m) for m in re.findall(r'^N(\d+) \[label=', dot, re.M)}
got_edges = {(int(a), int(b)) for a, b in
             re.findall(r'^N(\d+) -> N(\d+) \[', dot, re.M)}
# each node's label starts with its name
labels = dict((int(i), l) for i, l in
              re.findall(r'^N(\d+) \[label="((?:[^"\\]|\\.)*)"', dot, re.M))
bad = []
if got_nodes != want_nodes:
    bad.append("nodes: dot %s, json %s" % (sorted(got_nodes),
                                           sorted(want_nodes)))
if got_edges != want_edges:
    bad.append("edges: dot %s, json %s" % (sorted(got_edges ^ want_edges),
                                           "(symmetric difference)"))
for i in got_nodes:
    name = cg["nodes"][i - 1]["id"]
    esc = name.replace("\\", "\\\\").replace('"', '\\"')
    if not labels.get(i, "").startswith(esc + "\\n"):
        bad.append("node N%d label %r is not %r" % (i, labels.get(i), name))
if len(sys.argv) > 5:
    b = json.load(open(sys.argv[5]))
    bn = {int(t[1:]) for t in b["nodes"]}
    be = {tuple(int(x) for x in re.match(r'N(\d+)->N(\d+)$', t).groups())
          for t in b["edges"]}
    if bn != want_nodes or be != want_edges:
        bad.append("browser svg: nodes %s edges %s" % (sorted(bn),
                                                       sorted(be)))
    if b["errors"]:
        bad.append("browser errors: %s" % b["errors"])
for x in bad:
    print(x)
sys.exit(1 if bad else 0)
