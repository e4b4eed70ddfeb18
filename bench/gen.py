#!/usr/bin/env python3
"""Deterministic benchmark inputs (no large files live in git).

gen.py collapsed MB UNIQUE   collapsed stacks, about MB megabytes, built
                             from UNIQUE distinct stacks (depth 5-60,
                             C++/Java-like names), repeated in a fixed
                             pseudo-random order
gen.py lines N FUNCS MAXDEPTH  N sample lines over FUNCS functions, depth up
                             to MAXDEPTH, 4 threads
"""
import random
import sys


def names(r, n):
    parts = ["alloc", "parse", "Node", "visit", "std::vector<int>", "read",
             "hash", "Map", "insert", "compute", "Worker", "run", "io",
             "java.util.HashMap", "get", "lambda$0", "tokio::runtime"]
    out = []
    for i in range(n):
        out.append("%s::%s_%d" % (r.choice(parts), r.choice(parts), i))
    return out


def stacks(r, fn, unique):
    # a tree-shaped set of stacks: most share prefixes, as real ones do
    result = []
    for _ in range(unique):
        d = r.randrange(5, 60)
        s = []
        for k in range(d):
            pool = fn[:50] if k < 3 else fn
            s.append(r.choice(pool))
        result.append(";".join(s))
    return result


def main():
    r = random.Random(42)
    w = sys.stdout.write
    if sys.argv[1] == "collapsed":
        mb, unique = int(sys.argv[2]), int(sys.argv[3])
        fn = names(r, 2000)
        st = stacks(r, fn, unique)
        chunk = []
        size = 0
        while size < (4 << 20):
            line = "%s %d\n" % (r.choice(st), r.randrange(1, 100))
            chunk.append(line)
            size += len(line)
        chunk = "".join(chunk)
        reps = max(1, (mb << 20) // len(chunk))
        for _ in range(reps):
            w(chunk)
    elif sys.argv[1] == "lines":
        n, nf, maxd = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
        fn = ["f%d" % i for i in range(nf)]
        st = [";".join(r.choice(fn) for _ in range(r.randrange(1, maxd + 1)))
              for _ in range(20000)]
        out = []
        for i in range(n):
            out.append("%d\t%d\t%s\n" % (r.randrange(4), r.randrange(1, 20),
                                         r.choice(st)))
            if len(out) == 100000:
                w("".join(out))
                out = []
        w("".join(out))


if __name__ == "__main__":
    main()
