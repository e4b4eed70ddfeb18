#!/usr/bin/env python3
"""Write N unique collapsed stacks (deterministic): a call tree with fan-out
10 per level, stacks of depth 3..8, weights 1..20."""
import sys

n = int(sys.argv[1]) if len(sys.argv) > 1 else 100000
out = sys.stdout
for i in range(n):
    digits = []
    k = i
    while True:
        digits.append(k % 10)
        k //= 10
        if k == 0:
            break
    frames = ["main"] + ["f%d_%d" % (lvl, d) for lvl, d in enumerate(digits)]
    frames.append("leaf_%d" % (i % 997))
    out.write("%s %d\n" % (";".join(frames), 1 + (i * 7919) % 20))
