#!/usr/bin/env python3
"""Write a small perf.data by hand from the documented layout
(tools/perf/Documentation/perf.data-file-format.txt and
include/uapi/linux/perf_event.h), so the reader is tested on a file whose
every byte is known, where perf cannot record.

    gen_perfdata.py file OUT      file mode (PERFILE2, 104-byte header)
    gen_perfdata.py pipe OUT      pipe mode (16-byte header, HEADER_ATTR)
    gen_perfdata.py anon OUT      file mode, with memory of no file (below)

One cpu-clock event (type 1, config 0), sample_type IP|TID|TIME|PERIOD|
CALLCHAIN with sample_id_all (trailer: pid, tid, time).  Records in file
order, with their timestamps:

    MMAP  t=10  pid 42: [0x1000, 0x2000) pgoff 0 /nonexistent/libdemo.so
    COMM  t=60  pid 42 tid 42 "demo"
    SAMPLE t=100 42/42 period 1000 chain USER 0x1000 0x9999
    SAMPLE t=50  42/42 period 500  chain USER 0x1000
    SAMPLE t=120 42/42 period 300  chain USER 0x1000 -1 (corrupt: dropped)

Taken in time order (as perf script does), the t=50 sample comes before
the COMM, so its thread is still perf's ":42".  Expected collapsed output
(hand-derived, root first):

    :42;[libdemo.so] 500
    demo 300
    demo;[unknown];[libdemo.so] 1000

In "anon" mode two maps of no file follow the MMAP, and two samples
have a caller in them (perf's map__new names executable anonymous memory
after the JIT symbol file /tmp/perf-PID.map, other anonymous memory
keeps its name, "//anon", whose base name is "anon"):

    MMAP  t=11  pid 42: [0x3000, 0x4000) //anon, MISC_MMAP_DATA (data)
    MMAP  t=12  pid 42: [0x5000, 0x6000) //anon (code)
    SAMPLE t=130 42/42 period 700 chain USER 0x1000 0x3008
    SAMPLE t=140 42/42 period 900 chain USER 0x1000 0x5008

adding (when /tmp/perf-42.map does not exist):

    demo;[anon];[libdemo.so] 700
    demo;[perf-42.map];[libdemo.so] 900

Prints the byte offset of each record, one per line, to stdout.
"""
import struct
import sys

S_IP, S_TID, S_TIME, S_CALLCHAIN, S_PERIOD = 1, 2, 4, 0x20, 0x100
SAMPLE_TYPE = S_IP | S_TID | S_TIME | S_PERIOD | S_CALLCHAIN
CONTEXT_USER = (1 << 64) - 512
ATTR_SIZE = 112


def attr():
    flags = (1 << 10) | (1 << 18)       # freq, sample_id_all
    a = struct.pack("<IIQQQQQ", 1, ATTR_SIZE, 0, 4000, SAMPLE_TYPE, 0, flags)
    return a + b"\0" * (ATTR_SIZE - len(a))


def rec(rtype, misc, body):
    size = 8 + len(body)
    assert size % 8 == 0
    return struct.pack("<IHH", rtype, misc, size) + body


def trailer(pid, tid, time):
    return struct.pack("<iiQ", pid, tid, time)


def name(s):
    b = s.encode() + b"\0"
    return b + b"\0" * (-len(b) % 8)


def sample(time, period, chain):
    body = struct.pack("<QiiQQ", chain[1] if len(chain) > 1 else 0, 42, 42,
                       time, period)
    body += struct.pack("<Q", len(chain))
    body += b"".join(struct.pack("<Q", x) for x in chain)
    return rec(9, 2, body)


def anon_records():
    data = 1 << 13                      # PERF_RECORD_MISC_MMAP_DATA
    return [
        rec(1, 2 | data, struct.pack("<iiQQQ", 42, 42, 0x3000, 0x1000,
                                     0x3000) +
            name("//anon") + trailer(42, 42, 11)),
        rec(1, 2, struct.pack("<iiQQQ", 42, 42, 0x5000, 0x1000, 0x5000) +
            name("//anon") + trailer(42, 42, 12)),
        sample(130, 700, [CONTEXT_USER, 0x1000, 0x3008]),
        sample(140, 900, [CONTEXT_USER, 0x1000, 0x5008]),
    ]


def records():
    return [
        rec(1, 2, struct.pack("<iiQQQ", 42, 42, 0x1000, 0x1000, 0) +
            name("/nonexistent/libdemo.so") + trailer(42, 42, 10)),
        rec(3, 0, struct.pack("<ii", 42, 42) + name("demo") +
            trailer(42, 42, 60)),
        sample(100, 1000, [CONTEXT_USER, 0x1000, 0x9999]),
        sample(50, 500, [CONTEXT_USER, 0x1000]),
        sample(120, 300, [CONTEXT_USER, 0x1000, (1 << 64) - 1]),
    ]


def main():
    mode, out = sys.argv[1], sys.argv[2]
    recs = records()
    if mode == "anon":
        recs += anon_records()
    if mode == "pipe":
        head = b"PERFILE2" + struct.pack("<Q", 16)
        hattr = rec(64, 0, attr() + struct.pack("<Q", 7))
        data = head + hattr
        offs = []
        for r in recs:
            offs.append(len(data))
            data += r
    else:
        entry_size = ATTR_SIZE + 16
        attrs_off = 104
        ids_off = attrs_off + entry_size
        data_off = ids_off + 8
        body = b"".join(recs)
        head = b"PERFILE2" + struct.pack(
            "<QQQQQQQQ", 104, entry_size, attrs_off, entry_size,
            data_off, len(body), 0, 0) + b"\0" * 32
        assert len(head) == 104
        data = head + attr() + struct.pack("<QQ", ids_off, 8) + \
            struct.pack("<Q", 7)
        assert len(data) == data_off
        offs = []
        for r in recs:
            offs.append(len(data))
            data += r
    with open(out, "wb") as f:
        f.write(data)
    for o in offs:
        print(o)


main()
