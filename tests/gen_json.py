#!/usr/bin/env python3
"""Random native JSON profiles for t-json-fast.sh.

gen_json.py profile SEED [N] -> a valid sftools-profile document: random
    frames (names with quotes, backslashes, control characters, non-ASCII,
    written with and without \\u escapes), threads, label sets, stacks and
    samples (times or null, threads or null, 1-3 sample types, integer,
    fractional, exponent and negative weights), laid out one element a line
    as the writer does, so both the fast path and yajl can read it; N
    samples (up to 400 at random without N).
gen_json.py pad FILE OFFSET  -> FILE with its first frame's name padded so
    that the "\\n\\"samples\\":[" mark starts OFFSET bytes before the next
    multiple of 262144 (the reader's piece size): a cut inside the mark or
    inside any element in turn, as OFFSET varies.
gen_json.py perturb FILE KIND -> FILE changed so that it is no longer the
    writer's layout, with the same meaning:
    space   a space after the first comma of one sample in the middle
    crlf    CR LF between the samples
    number  one sample's first weight written with 70 digits (longer than
            the fast path takes)
    order   the samples section moved before the stacks section
    escape  the "samples" key written with a \\u escape
    stackspace  spaces inside the first stack node
"""
import json
import re
import random
import sys

NAMES = ["main", "a\"quote", "back\\slash", "tab\there", "nl\nline",
         "ctl\u0001x", "\u00fcber", "\u65e5\u672c\u8a9e", "emoji\U0001F600",
         "slash/ok", "x(int, char*)", "[unknown]", "<lambda>", ""]


def rstr(r, s):
    return json.dumps(s, ensure_ascii=r.random() < 0.5)


def weight(r):
    k = r.randrange(6)
    if k == 0:
        return str(r.randrange(0, 1000))
    if k == 1:
        return repr(r.randrange(0, 400) / 8)
    if k == 2:
        return repr(r.random() * 1e-6)
    if k == 3:
        return "-" + str(r.randrange(1, 50))
    if k == 4:
        return "%de%d" % (r.randrange(1, 9), r.randrange(0, 6))
    return "1"


def profile(seed, nsamples=400):
    r = random.Random(seed)
    ntypes = r.randrange(1, 4)
    types = [("samples", "count"), ("cpu", "nanoseconds"),
             ("alloc", "bytes")][:ntypes]
    nframes = r.randrange(1, 30)
    frames = []
    for i in range(nframes):
        f = ['"name":' + rstr(r, r.choice(NAMES) + str(i))]
        if r.random() < 0.3:
            f.append('"module":' + rstr(r, "lib%d.so" % r.randrange(3)))
        if r.random() < 0.3:
            f.append('"file":' + rstr(r, "src/f%d.c" % r.randrange(5)))
            f.append('"line":%d' % r.randrange(1, 500))
        frames.append("{" + ",".join(f) + "}")
    stacks = []
    for i in range(r.randrange(1, 60)):
        stacks.append("[%d,%d]" % (r.randrange(0, i + 1),
                                   r.randrange(nframes)))
    threads = []
    for i in range(r.randrange(0, 5)):
        t = ['"tid":%d' % (100 + i)]
        if r.random() < 0.5:
            t.insert(0, '"pid":%d' % 7)
        if r.random() < 0.5:
            t.append('"name":' + rstr(r, r.choice(NAMES)))
        threads.append("{" + ",".join(t) + "}")
    labels = []
    for i in range(r.randrange(0, 4)):
        labels.append("[" + ",".join(
            "[%s,%s]" % (rstr(r, "k%d" % j), rstr(r, r.choice(NAMES)))
            for j in range(r.randrange(1, 3))) + "]")
    samples = []
    t = r.randrange(0, 10**12)
    for i in range(r.randrange(0, nsamples) if nsamples <= 400 else nsamples):
        th = str(r.randrange(len(threads))) if threads and \
            r.random() < 0.8 else "null"
        if r.random() < 0.7:
            t += r.randrange(0, 10**6)
            tm = str(t)
        else:
            tm = "null"
        samples.append("[%d,%s,%s,%d,%s]" % (
            r.randrange(0, len(stacks) + 1), th, tm,
            r.randrange(0, len(labels) + 1),
            ",".join(weight(r) for _ in range(ntypes))))
    out = ['{"format":"sftools-profile","version":1,\n"meta":'
           '{"source_format":"lines","default_sample_type":%d},\n'
           % r.randrange(ntypes)]
    out.append('"sample_types":[' + ",".join(
        '{"type":"%s","unit":"%s"}' % t for t in types) + "],\n")
    out.append('"threads":[' + ",".join("\n" + t for t in threads) + "],\n")
    out.append('"frames":[' + ",".join("\n" + f for f in frames) + "],\n")
    out.append('"stacks":[' + ",".join("\n" + s for s in stacks) + "],\n")
    out.append('"label_sets":[' + ",".join("\n" + x for x in labels)
               + "],\n")
    out.append('"samples":[' + ",".join("\n" + s for s in samples)
               + "]}\n")
    return "".join(out)


def pad(text, offset):
    piece = 262144
    i = text.index('"frames":[\n{"name":"') + len('"frames":[\n{"name":"')
    mark = text.index('\n"samples":[')
    n = (piece - offset - mark) % piece
    return text[:i] + "p" * n + text[i:]


def perturb(text, kind):
    head, sep, body = text.partition('\n"samples":[')
    lines = body.split("\n")
    mid = len(lines) // 2
    if kind == "space":
        lines[mid] = lines[mid].replace(",", ", ", 1)
        return head + sep + "\n".join(lines)
    if kind == "crlf":
        return head + sep + "\r\n".join(lines)
    if kind == "number":
        m = re.match(r"(\[(?:[^,]*,){4})([^,\]]*)(.*)", lines[mid])
        lines[mid] = m.group(1) + "%.70e" % float(m.group(2)) + m.group(3)
        return head + sep + "\n".join(lines)
    if kind == "order":
        i_st = text.index('\n"stacks":[')
        i_lb = text.index('\n"label_sets":[')
        i_sm = text.index('\n"samples":[')
        a, st, lb, sm = (text[:i_st], text[i_st:i_lb], text[i_lb:i_sm],
                         text[i_sm:])
        return a + sm[:-2] + "," + lb + st[:-1] + "}\n"
    if kind == "escape":
        return text.replace('\n"samples":[', '\n"s\\u0061mples":[')
    if kind == "stackspace":
        s0 = text.index('"stacks":[\n[') + len('"stacks":[\n[')
        e = text.index("]", s0)
        p, f = text[s0:e].split(",")
        return text[:s0] + " %s , %s " % (p, f) + text[e:]
    raise SystemExit("unknown perturbation " + kind)


def main():
    cmd = sys.argv[1]
    if cmd == "profile":
        sys.stdout.write(profile(int(sys.argv[2]), *map(int, sys.argv[3:4])))
    elif cmd in ("pad", "perturb"):
        with open(sys.argv[2], encoding="utf-8", newline="") as f:
            text = f.read()
        sys.stdout.write(pad(text, int(sys.argv[3])) if cmd == "pad"
                         else perturb(text, sys.argv[3]))
    else:
        sys.exit("unknown command")


if __name__ == "__main__":
    main()
