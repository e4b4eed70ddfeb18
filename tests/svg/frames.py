#!/usr/bin/env python3
"""Print the frames of a flame graph SVG, ours or flamegraph.pl's, one per
line, sorted:
   TITLE<TAB>LABEL<TAB>X<TAB>WIDTH<TAB>HEIGHT<TAB>FILL<TAB>Y
TITLE is the tooltip's first line (flamegraph.pl's "name (N samples,
P%)"), LABEL the drawn text ('' when none), X and WIDTH rounded to 0.1 px
as flamegraph.pl writes them.  With --meta: the document's title, width
and height instead, one per line.

With --compare PEER OURS [--fills]: print one line per difference between
the two SVGs' frames: titles and labels (the root's label aside: empty in
flamegraph.pl, "all" in ours) and heights exactly, x and width within
0.15 px (flamegraph.pl rounds each end to 0.1 px, we write 0.01 px), and
with --fills the fills, but for "-" (a separator: grey 160 in the older
flamegraph.pl Debian ships, 200 in today's and ours); nothing when they
agree."""
import sys
import xml.etree.ElementTree as ET

S = "{http://www.w3.org/2000/svg}"
args = [a for a in sys.argv[1:] if not a.startswith("--")]
root = ET.parse(args[0]).getroot()
if "--meta" in sys.argv:
    texts = [t for t in root.iter(S + "text")]
    # the title: ours has id="title"; flamegraph.pl's is the first text
    title = [t for t in texts if t.get("id") == "title"] or texts[:1]
    print("title\t" + (title[0].text or ""))
    print("width\t%g" % float(root.get("width")))
    print("height\t%g" % float(root.get("height")))
    sys.exit(0)
def frames(path):
    rows = []
    for g in ET.parse(path).getroot().iter(S + "g"):
        t, r = g.find(S + "title"), g.find(S + "rect")
        if t is None or r is None:
            continue
        x = g.find(S + "text")
        title = t.text.split("\n")[0]
        label = (x.text or "") if x is not None else ""
        if title.startswith("all ("):
            label = ""
        rows.append((title, label, float(r.get("x")), float(r.get("width")),
                     float(r.get("height")), r.get("fill")))
    return sorted(rows)


if "--compare" in sys.argv:
    a, b = frames(args[0]), frames(args[1])
    if len(a) != len(b):
        print("%d frames against %d" % (len(a), len(b)))
    for p, o in zip(a, b):
        same = p[0] == o[0] and p[1] == o[1] and p[4] == o[4] and \
            abs(p[2] - o[2]) < 0.15 and abs(p[3] - o[3]) < 0.15
        if "--fills" in sys.argv and not p[0].startswith("- ("):
            same = same and p[5] == o[5]
        if not same:
            print("peer %r\nours %r" % (p, o))
    sys.exit(0)
rows = []
for g in root.iter(S + "g"):
    t, r = g.find(S + "title"), g.find(S + "rect")
    if t is None or r is None:
        continue
    x = g.find(S + "text")
    rows.append("%s\t%s\t%.1f\t%.1f\t%.1f\t%s\t%g" % (
        t.text.split("\n")[0], (x.text or "") if x is not None else "",
        float(r.get("x")), float(r.get("width")), float(r.get("height")),
        r.get("fill"), float(r.get("y"))))
for row in sorted(rows):
    print(row)
