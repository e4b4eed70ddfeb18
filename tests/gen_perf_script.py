#!/usr/bin/env python3
"""gen_perf_script.py SEED - a small random `perf script` text for
differential tests (t-perf-variants.sh): samples of three event types
(cpu-clock, task-clock, cycles:u; a period or none) whose stacks come
from a pool of four, so that the reader's record cache takes some of
them; side-band PERF_RECORD_* lines between samples, one to three in a
row, with or without a pid, some followed by a blank line (which perf
never prints, but the reader must take as stackcollapse-perf.pl does);
comms with a blank and "java"; kernel, user and JIT frames.  No
Lpkg/Class; frames: the script of today tidies those under "java-PID"
too (/^java/), FlameGraph's own --pid results do not, and sfconv
follows the results (t-peers.sh).  Deterministic per SEED."""
import random
import sys

r = random.Random(int(sys.argv[1]))
comms = ["sh", "prog", "my prog", "java"]
pool = [[("%x" % r.randint(1, 99),
          r.choice(["f", "g", "h+0x1", "main", "[unknown]"]),
          r.choice(["/bin/sh", "[kernel.kallsyms]", "/tmp/perf-1.map"]))
         for _ in range(r.randint(0, 4))] for _ in range(4)]
out = []
t = 1.0
for _ in range(r.randint(5, 80)):
    t += 0.0001
    comm = r.choice(comms)
    pid = r.randint(1, 3)
    tid = pid + r.randint(0, 2)
    if r.random() < 0.35:
        for _ in range(r.choice([1, 1, 1, 2, 3])):
            rec = r.choice([
                "PERF_RECORD_MMAP2 %d/%d: [0x1(0x2) @ 0 00:00 0 0]: r-xp /bin/x"
                % (pid, tid),
                "PERF_RECORD_COMM: %s:%d/%d" % (comm, pid, tid),
                "PERF_RECORD_COMM exec: %s:%d/%d" % (comm, pid, tid),
                "PERF_RECORD_FORK(%d:%d):(%d:%d)" % (pid, tid, pid, tid),
                "PERF_RECORD_EXIT(%d:%d):(%d:%d)" % (pid, tid, pid, tid),
                "PERF_RECORD_LOST lost 3",
                "PERF_RECORD_SWITCH OUT",
                "PERF_RECORD_SWITCH_CPU_WIDE OUT preempt  next pid/tid:    0/0"])
            out.append("%s %s%d [000] %.6f: %s" % (
                r.choice(comms), r.choice(["%d/" % pid, ""]), tid, t, rec))
        if r.random() < 0.2:
            out.append("")
        continue
    out.append("%s %d/%d [000] %.6f: %s %s:" % (
        comm, pid, tid, t, r.choice(["1", "250000", ""]),
        r.choice(["cpu-clock", "task-clock", "cycles:u"])))
    for pc, sym, dso in r.choice(pool):
        out.append("\t%s %s (%s)" % (pc, sym, dso))
    out.append("")
print("\n".join(out))
