#!/usr/bin/env python3
"""Read a flame graph SVG and print one line per frame:
   NAME<TAB>DEPTH<TAB>X<TAB>Y<TAB>WIDTH<TAB>FILL<TAB>TITLE(\\n as |)
sorted, for the shell tests to compare with hand-computed values.  NAME is
the title's first line without flamegraph.pl's " (N samples, P%)"."""
import re
import sys
import xml.etree.ElementTree as ET

NS = {"s": "http://www.w3.org/2000/svg"}
SF = "{urn:sftools:flamegraph}"
root = ET.parse(sys.argv[1]).getroot()
rows = []
for g in root.find("s:g[@id='frames']", NS).findall("s:g", NS):
    title = g.find("s:title", NS).text
    r = g.find("s:rect", NS)
    rows.append("%s\t%s\t%.2f\t%.2f\t%.2f\t%s\t%s" % (
        re.sub(r" \([0-9][0-9,.e+-]* [^\n]*?, [0-9.]+%\)$", "",
               title.split("\n")[0]), g.get(SF + "d"), float(r.get("x")),
        float(r.get("y")), float(r.get("width")), r.get("fill"),
        title.replace("\n", "|")))
for row in sorted(rows):
    print(row)
