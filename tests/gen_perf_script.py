#!/usr/bin/env python3
"""gen_perf_script.py SEED - a small random `perf script` text for
differential tests (t-perf-variants.sh): samples of two event types
(cpu-clock, task-clock) with 0-4 frames, side-band PERF_RECORD_* lines
between them (some followed by a blank line, which perf never prints
but the reader must take as stackcollapse-perf.pl does), comms with a
blank, pid/tid pairs, kernel and user frames.  Deterministic per SEED."""
import random
import sys

r = random.Random(int(sys.argv[1]))
comms = ["sh", "prog", "my prog", "java"]
out = []
t = 1.0
for _ in range(r.randint(5, 40)):
    t += 0.0001
    comm = r.choice(comms)
    pid = r.randint(1, 3)
    tid = pid + r.randint(0, 2)
    if r.random() < 0.3:
        rec = r.choice([
            "PERF_RECORD_MMAP2 %d/%d: [0x1(0x2) @ 0 00:00 0 0]: r-xp /bin/x"
            % (pid, tid),
            "PERF_RECORD_COMM: %s:%d/%d" % (comm, pid, tid),
            "PERF_RECORD_EXIT(%d:%d):(%d:%d)" % (pid, tid, pid, tid),
            "PERF_RECORD_SWITCH_CPU_WIDE OUT preempt  next pid/tid:    0/0"])
        out.append("%s %d/%d [000] %.6f: %s" % (comm, pid, tid, t, rec))
        if r.random() < 0.15:
            out.append("")
        continue
    event = r.choice(["cpu-clock", "task-clock"])
    out.append("%s %d/%d [000] %.6f: %d %s:"
               % (comm, pid, tid, t, r.choice([1, 250000]), event))
    for _ in range(r.randint(0, 4)):
        out.append("\t%x %s (%s)" % (
            r.randint(1, 99), r.choice(["f", "g", "h", "main"]),
            r.choice(["/bin/sh", "[kernel.kallsyms]"])))
    out.append("")
print("\n".join(out))
