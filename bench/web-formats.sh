#!/bin/sh
# Time and peak memory of the web-viewer JSON readers on large generated
# inputs (never part of `make check`).  Usage: sh bench/web-formats.sh
# [SCALE [INPUT...]]  (SCALE 1: a 56 MB speedscope evented file with 1.5
# million events, a 298 MB trace with 2.4 million X events, a 253 MB
# .cpuprofile with 28 million samples, a 297 MB Firefox processed profile
# with 15.5 million samples in one thread).  INPUT picks which to run:
# speedscope, trace, cpuprofile, firefox (default: these four), gecko
# (the gecko form of the Firefox profile, 230 MB at SCALE 1), nodes (a
# 106 MB .cpuprofile whose bulk is 600,000 nodes, one per line), frames
# (a 26 MB sampled speedscope file of 300,000 frames), fftables and
# geckotables (Firefox profiles, processed and gecko, whose bulk is one
# thread's tables: 300,000 functions, frames and stacks, twice as many
# strings, half of them unused, as many markers), objtrace (an 88 MB
# Chrome trace in the JSON Object Format: 300,000 stackFrames, 1,000,000
# samples).  Needs GNU
# time.  Each line gives the peak RSS over the input size (goal: at most
# 2x, issue 18).  SFCONV picks the binary; WEB_KEEP=DIR keeps the inputs
# in DIR.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
SFCONV=${SFCONV:-$top/bin/sfconv}
scale=${1:-1}
[ $# -gt 0 ] && shift
want=${*:-speedscope trace cpuprofile firefox}
dir=${TMPDIR:-/tmp}/sf-bench-web.$$
mkdir -p "$dir"
trap 'rm -rf "$dir"' EXIT

python3 - "$dir" "$scale" $want <<'P'
import random, sys
d, scale, want = sys.argv[1], float(sys.argv[2]), sys.argv[3:]

def speedscope(f):
    random.seed(1)
    f.write('{"$schema":"https://www.speedscope.app/file-format-schema.json",'
            '"shared":{"frames":[' + ','.join('{"name":"f%d"}' % i for i in range(2000)) +
            ']},"profiles":[{"type":"evented","name":"p","unit":"microseconds",'
            '"startValue":0,"endValue":0,"events":[')
    t, stack, first = 0, [], True
    for n in range(int(1500000 * scale)):
        if stack and (len(stack) > 30 or random.random() < 0.45):
            fr, ty = stack.pop(), 'C'
        else:
            fr, ty = random.randrange(2000), 'O'
            stack.append(fr)
        t += random.randrange(3)
        f.write(('' if first else ',') + '{"type":"%s","frame":%d,"at":%d}' % (ty, fr, t))
        first = False
    while stack:
        f.write(',{"type":"C","frame":%d,"at":%d}' % (stack.pop(), t))
    f.write(']}]}')

def trace(f):
    random.seed(2)
    f.write('[')
    t, first = 0, True
    for i in range(int(400000 * scale)):
        for tid in (1, 2):
            dur = random.randrange(1, 50)
            for k, name in enumerate(('RunTask', 'Layout', 'Paint')):
                f.write(('' if first else ',\n') +
                        '{"ph":"X","pid":1,"tid":%d,"name":"%s","cat":"devtools.timeline",'
                        '"ts":%d,"dur":%d,"args":{"data":{"frame":"0x1"}}}'
                        % (tid, name, t + k, dur - 2 * k if dur > 2 * k else 1))
                first = False
        t += 60
    f.write(']')

# A call tree of 4000 nodes (each node's parent an earlier node, so depth
# grows like a log), the bulk in samples and timeDeltas as V8 writes them:
# node ids (up to 4 digits) and microsecond deltas (2 to 4 digits).
def tree(n, seed):
    random.seed(seed)
    parent = [-1] + [random.randrange(max(0, i - 40), i) for i in range(1, n)]
    return parent

def bulk(f, n, gen, sep=','):
    """n values from gen() written in batches of 100,000."""
    first = True
    while n > 0:
        k = min(n, 100000)
        f.write(('' if first else sep) + sep.join(gen(k)))
        first, n = False, n - k

def write_nodes(f, parent, hits, sep):
    """The V8 nodes of a tree given by parent indexes, ids from 1."""
    kids = [[] for _ in parent]
    for i in range(1, len(parent)):
        kids[parent[i]].append(i)
    f.write('{"nodes":[')
    for i in range(len(parent)):
        name = '(root)' if i == 0 else 'fn%d' % i
        f.write(('' if i == 0 else sep) +
                '{"id":%d,"callFrame":{"functionName":"%s","scriptId":"%d",'
                '"url":"file:///app/m%d.js","lineNumber":%d,"columnNumber":%d},'
                '"hitCount":%d,"children":[%s]}'
                % (i + 1, name, i % 50, i % 50, i % 997, i % 61, hits,
                   ','.join(str(c + 1) for c in kids[i])))

def cpuprofile(f):
    nn = 4000
    write_nodes(f, tree(nn, 3), 0, ',')
    ns = int(28000000 * scale)
    f.write('],"startTime":1000000,"endTime":%d,"samples":[' % (1000000 + 800 * ns))
    ids = list(range(2, nn + 1))
    bulk(f, ns, lambda k: map(str, random.choices(ids, k=k)))
    f.write('],"timeDeltas":[')
    bulk(f, ns, lambda k: (str(random.randrange(10, 1600)) for _ in range(k)))
    f.write(']}')

# A sampled speedscope file whose bulk is its frame table: 300,000
# frames, as many three-frame samples.
def frames(f):
    random.seed(9)
    n = int(300000 * scale)
    f.write('{"$schema":"https://www.speedscope.app/file-format-schema.json",'
            '"shared":{"frames":[')
    f.write(','.join('{"name":"fn%d","file":"/src/mod%d.js","line":%d,"col":%d}'
                     % (i, i % 300, 1 + i % 997, 1 + i % 61) for i in range(n)))
    f.write(']},"profiles":[{"type":"sampled","name":"p","unit":"microseconds",'
            '"startValue":0,"endValue":1,"samples":[')
    f.write(','.join('[%d,%d,%d]' % (random.randrange(n), random.randrange(n), i)
                     for i in range(n)))
    f.write('],"weights":[' + ','.join('1' for i in range(n)) + ']}]}')

# A .cpuprofile whose bulk is its node table: each node's parent a random
# earlier node (depth grows like a log), one sample per node.
def nodes(f):
    random.seed(7)
    n = int(600000 * scale)
    write_nodes(f, [-1] + [random.randrange(0, i) for i in range(1, n)], 1,
                ',\n')
    f.write('],"startTime":1000000,"endTime":%d,"samples":[' % (1000000 + 100 * n))
    f.write(','.join(str(i + 1) for i in range(1, n)))
    f.write('],"timeDeltas":[')
    f.write(','.join('100' for i in range(1, n)))
    f.write(']}\n')

# One thread in the processed format samply writes: strings in the
# thread's stringArray, 2000 functions, 3000 frames, 6000 stacks (each
# row's prefix an earlier row or null), and the bulk in the samples
# columns: stack (up to 4 digits), time (ms with 3 decimals) and weight.
def firefox(f):
    random.seed(4)
    nfn, nfr, nst = 2000, 3000, 6000
    strings = ['fn%d' % i for i in range(nfn)] + ['/src/m%d.rs' % i for i in range(40)] + ['libapp.so']
    f.write('{"meta":{"interval":1,"startTime":1700000000000.5,"processType":0,'
            '"product":"bench","version":24,"preprocessedProfileVersion":41,'
            '"categories":[{"name":"Other","color":"grey","subcategories":["Other"]}]},'
            '"libs":[],"threads":[{"name":"main","processType":"default","pid":"100",'
            '"tid":101,"stringArray":[')
    f.write(','.join('"%s"' % s for s in strings))
    col = lambda v: '[' + ','.join('null' if x is None else str(x) for x in v) + ']'
    f.write('],"funcTable":{"length":%d,"name":%s,"isJS":%s,"relevantForJS":%s,'
            '"resource":%s,"fileName":%s,"lineNumber":%s,"columnNumber":%s},'
            % (nfn, col(range(nfn)), col(['false'] * nfn), col(['false'] * nfn),
               col([0] * nfn), col([nfn + i % 40 for i in range(nfn)]),
               col([1 + i % 500 for i in range(nfn)]), col([None] * nfn)))
    f.write('"resourceTable":{"length":1,"lib":[0],"name":[%d],"host":[null],"type":[1]},'
            % (nfn + 40))
    ffunc = [random.randrange(nfn) for _ in range(nfr)]
    f.write('"frameTable":{"length":%d,"address":%s,"inlineDepth":%s,"category":%s,'
            '"subcategory":%s,"func":%s,"nativeSymbol":%s,"innerWindowID":%s,'
            '"implementation":%s,"line":%s,"column":%s},'
            % (nfr, col([4096 + 16 * i for i in range(nfr)]), col([0] * nfr),
               col([0] * nfr), col([0] * nfr), col(ffunc), col([None] * nfr),
               col([None] * nfr), col([None] * nfr),
               col([None if i % 3 else 10 + i % 300 for i in range(nfr)]),
               col([None] * nfr)))
    prefix = [None] + [None if random.random() < 0.02 else random.randrange(max(0, i - 50), i)
                       for i in range(1, nst)]
    f.write('"stackTable":{"length":%d,"prefix":%s,"frame":%s,"category":%s,"subcategory":%s},'
            % (nst, col(prefix), col([random.randrange(nfr) for _ in range(nst)]),
               col([0] * nst), col([0] * nst)))
    ns = int(15500000 * scale)
    f.write('"samples":{"length":%d,"weightType":"samples","stack":[' % ns)
    bulk(f, ns, lambda k: ('null' if random.random() < 0.001 else str(random.randrange(nst))
                           for _ in range(k)))
    t = [0.0]
    def times(k):
        out = []
        for _ in range(k):
            t[0] += random.randrange(900, 1200) / 1000
            out.append('%.3f' % t[0])
        return out
    f.write('],"time":[')
    bulk(f, ns, times)
    f.write('],"weight":[')
    bulk(f, ns, lambda k: ['1'] * k)
    f.write(']},"markers":{"length":0,"category":[],"data":[],"endTime":[],'
            '"name":[],"phase":[],"startTime":[]}}],"pages":[],"counters":[]}')

# The same kind of thread in the gecko form Firefox writes: tables as
# {"schema", "data": [rows]}, the samples rows [stack, time, eventDelay].
def gecko(f):
    random.seed(5)
    nfr, nst = 3000, 6000
    f.write('{"meta":{"interval":1,"startTime":1700000000000.5,"version":24,'
            '"processType":0,"product":"bench"},"libs":[],"threads":[{"name":"main",'
            '"processType":"default","pid":"100","tid":101,"stringTable":[')
    f.write(','.join('"fn%d (/src/m%d.js:%d:%d)"' % (i, i % 40, 1 + i % 500, 1 + i % 70)
                     for i in range(nfr)))
    f.write('],"frameTable":{"schema":{"location":0,"relevantForJS":1,"innerWindowID":2,'
            '"implementation":3,"line":4,"column":5,"category":6,"subcategory":7},"data":[')
    f.write(','.join('[%d,false,0,null,null,null,0,0]' % i for i in range(nfr)))
    prefix = [None] + [None if random.random() < 0.02 else random.randrange(max(0, i - 50), i)
                       for i in range(1, nst)]
    f.write(']},"stackTable":{"schema":{"prefix":0,"frame":1},"data":[')
    f.write(','.join('[%s,%d]' % ('null' if p is None else p, random.randrange(nfr))
                     for p in prefix))
    f.write(']},"samples":{"schema":{"stack":0,"time":1,"eventDelay":2},"data":[')
    t = [0.0]
    def rows(k):
        out = []
        for _ in range(k):
            t[0] += random.randrange(900, 1200) / 1000
            out.append('[%d,%.3f,0]' % (random.randrange(nst), t[0]))
        return out
    bulk(f, int(11000000 * scale), rows)
    f.write(']},"markers":{"schema":{"name":0,"startTime":1,"endTime":2,"phase":3,'
            '"category":4,"data":5},"data":[]}}],"processes":[],"pausedRanges":[]}')

# Firefox profiles whose bulk is one thread's tables, not its samples:
# 300,000 functions, frames and stacks (each stack's prefix a random
# earlier one), as many samples and markers, and the strings of the names with
# as many that nothing uses; processed (every column samply writes) and
# gecko (rows).
def fftables(f):
    random.seed(11)
    n = int(300000 * scale)
    col = lambda v: '[' + ','.join('null' if x is None else str(x) for x in v) + ']'
    f.write('{"meta":{"interval":1,"startTime":1700000000000.5,"version":24,'
            '"preprocessedProfileVersion":41},"libs":[],"threads":[{"name":"main",'
            '"pid":"100","tid":101,"stringArray":[')
    f.write(','.join(['"fn%d"' % i for i in range(n)] + ['"/src/m%d.rs"' % i for i in range(300)] +
                     ['"unused string number %d"' % i for i in range(n)]))
    f.write('],"funcTable":{"length":%d,"name":%s,"isJS":%s,"relevantForJS":%s,'
            '"resource":%s,"fileName":%s,"lineNumber":%s,"columnNumber":%s},'
            % (n, col(range(n)), col(['false'] * n), col(['false'] * n), col([-1] * n),
               col([n + i % 300 for i in range(n)]), col([1 + i % 500 for i in range(n)]),
               col([None] * n)))
    f.write('"resourceTable":{"length":0,"lib":[],"name":[],"host":[],"type":[]},')
    f.write('"frameTable":{"length":%d,"address":%s,"inlineDepth":%s,"category":%s,'
            '"subcategory":%s,"func":%s,"nativeSymbol":%s,"innerWindowID":%s,'
            '"implementation":%s,"line":%s,"column":%s},'
            % (n, col([4096 + 16 * i for i in range(n)]), col([0] * n), col([0] * n),
               col([0] * n), col(range(n)), col([None] * n), col([None] * n),
               col([None] * n), col([None] * n), col([None] * n)))
    prefix = [None] + [random.randrange(i) for i in range(1, n)]
    f.write('"stackTable":{"length":%d,"prefix":%s,"frame":%s,"category":%s,"subcategory":%s},'
            % (n, col(prefix), col(range(n)), col([0] * n), col([0] * n)))
    f.write('"samples":{"length":%d,"weightType":"samples","stack":%s,"time":%s},'
            % (n, col(random.randrange(n) for _ in range(n)), col(range(n))))
    f.write('"markers":{"length":%d,"category":%s,"data":[%s],"endTime":%s,"name":%s,'
            '"phase":%s,"startTime":%s}}],"pages":[],"counters":[]}'
            % (n, col([0] * n), ','.join('{"type":"Text","name":"m%d"}' % i for i in range(n)),
               col(range(n)), col([0] * n), col([1] * n), col(range(n))))

def geckotables(f):
    random.seed(12)
    n = int(300000 * scale)
    f.write('{"meta":{"interval":1,"startTime":1700000000000.5,"version":24},'
            '"libs":[],"threads":[{"name":"main","pid":"100","tid":101,"stringTable":[')
    f.write(','.join(['"fn%d (/src/m%d.js:%d:%d)"' % (i, i % 300, 1 + i % 500, 1 + i % 70)
                      for i in range(n)] + ['"unused string number %d"' % i for i in range(n)]))
    f.write('],"frameTable":{"schema":{"location":0,"relevantForJS":1,"innerWindowID":2,'
            '"implementation":3,"line":4,"column":5,"category":6,"subcategory":7},"data":[')
    f.write(','.join('[%d,false,0,null,null,null,0,0]' % i for i in range(n)))
    f.write(']},"stackTable":{"schema":{"prefix":0,"frame":1},"data":[')
    f.write(",".join("[%s,%d]" % ("null" if i == 0 else random.randrange(i), i)
                     for i in range(n)))
    f.write(']},"samples":{"schema":{"stack":0,"time":1},"data":[')
    f.write(','.join('[%d,%d]' % (random.randrange(n), i) for i in range(n)))
    f.write(']},"markers":{"schema":{"name":0,"startTime":1,"data":2},"data":[')
    f.write(','.join('[%d,%d,{"type":"Text"}]' % (n + i, i) for i in range(n)))
    f.write(']}}],"processes":[]}')

# A trace in the JSON Object Format: 300,000 stackFrames (each one's
# parent a random earlier frame), 1,000,000 samples of random frames.
def objtrace(f):
    random.seed(13)
    n, ns = int(300000 * scale), int(1000000 * scale)
    f.write('{"traceEvents":[],"stackFrames":{"0":{"name":"main","category":"app"}')
    f.write(''.join(',"%d":{"name":"fn%d","category":"app","parent":"%d"}'
                    % (i, i, random.randrange(i)) for i in range(1, n)))
    f.write('},"samples":[')
    f.write(','.join('{"cpu":0,"tid":1,"ts":%d,"name":"cycles","sf":%d,"weight":1}'
                     % (10 * i, random.randrange(n)) for i in range(ns)))
    f.write(']}')

gens = {'gecko': ('gecko.firefox.json', gecko),
        'objtrace': ('object.trace.json', objtrace),
        'fftables': ('tables.firefox.json', fftables),
        'geckotables': ('tables.gecko.json', geckotables),
        'speedscope': ('evented.speedscope.json', speedscope),
        'trace': ('x.trace.json', trace),
        'cpuprofile': ('bench.cpuprofile', cpuprofile),
        'nodes': ('nodes.cpuprofile', nodes),
        'frames': ('frames.speedscope.json', frames),
        'firefox': ('processed.firefox.json', firefox)}
for w in want:
    name, gen = gens[w]
    with open(d + '/' + name, 'w') as f:
        gen(f)
P
# the goal (issue 18): peak RSS at most twice the input
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
for w in $want; do
	case $w in
	speedscope) f=evented.speedscope.json ;;
	trace) f=x.trace.json ;;
	cpuprofile) f=bench.cpuprofile ;;
	nodes) f=nodes.cpuprofile ;;
	frames) f=frames.speedscope.json ;;
	firefox) f=processed.firefox.json ;;
	gecko) f=gecko.firefox.json ;;
	fftables) f=tables.firefox.json ;;
	objtrace) f=object.trace.json ;;
	geckotables) f=tables.gecko.json ;;
	esac
	size=$(wc -c < "$dir/$f")
	/usr/bin/time -f "%e %M" -o "$dir/t" \
		"$SFCONV" -q "$dir/$f" -o "$dir/out.folded"
	read t kb < "$dir/t"
	awk -v f="$f" -v s="$size" -v t="$t" -v kb="$kb" 'BEGIN {
		printf "%s (%d bytes): %s s, %d KB peak, %.2fx the input\n",
		       f, s, t, kb, kb * 1024 / s }'
	[ -z "${WEB_KEEP:-}" ] || mv "$dir/$f" "$WEB_KEEP/"
done
