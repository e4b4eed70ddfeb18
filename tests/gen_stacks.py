#!/usr/bin/env python3
"""Deterministic generators for the round-trip tests.

gen_stacks.py collapsed SEED N   -> collapsed lines (may repeat stacks)
gen_stacks.py lines SEED N       -> sample lines in canonical form
gen_stacks.py deep DEPTH         -> one collapsed line with DEPTH frames
gen_stacks.py expect-collapsed FILE
    -> what a collapsed writer must print for FILE: equal stacks summed,
       all-zero ones left out, sorted bytewise, computed here
       independently of sftools.
"""
import random
import sys

NAMES = ["main", "a", "b", "std::vector<int>::push_back", "with space",
         "\u00fcber", "\u65e5\u672c\u8a9e", "x(int, char*)", "[unknown]",
         "Thread_2122", "@at", "tab\u00e9", "lisp::(LAMBDA ())"]


def weight(r):
    k = r.randrange(0, 4)
    if k == 0:
        return str(r.randrange(1, 1000))
    if k == 1:
        return str(r.randrange(0, 40) / 4).rstrip("0").rstrip(".") or "0"
    return "1"


def stack(r, maxdepth=12):
    d = r.randrange(0, maxdepth)
    return ";".join(r.choice(NAMES) for _ in range(d))


def fmt_num(x):
    if x == int(x):
        return str(int(x))
    return repr(x)


def main():
    cmd = sys.argv[1]
    out = sys.stdout
    if cmd == "collapsed":
        r = random.Random(int(sys.argv[2]))
        for _ in range(int(sys.argv[3])):
            s = stack(r)
            out.write("%s %s\n" % (s, weight(r)))
    elif cmd == "lines":
        r = random.Random(int(sys.argv[2]))
        threads = ["1:main", "22:worker 1", ":named-only", "7", ""]
        for _ in range(int(sys.argv[3])):
            out.write("%s\t%s\t%s\n" % (r.choice(threads), weight(r), stack(r)))
    elif cmd == "deep":
        d = int(sys.argv[2])
        out.write(";".join("f%d" % (i % 97) for i in range(d)) + " 3\n")
    elif cmd == "expect-collapsed":
        # a stack whose samples are all zero is left out (docs/formats.md,
        # "All-zero samples"); the weights here are never negative
        sums, nonzero = {}, set()
        with open(sys.argv[2], "rb") as f:
            for line in f:
                line = line.rstrip(b"\n")
                s, _, w = line.rpartition(b" ")
                sums[s] = sums.get(s, 0) + float(w)
                if float(w) != 0:
                    nonzero.add(s)
        for s in sorted(nonzero):
            out.buffer.write(s + b" " + fmt_num(sums[s]).encode() + b"\n")
    else:
        sys.exit("unknown command")


if __name__ == "__main__":
    main()
