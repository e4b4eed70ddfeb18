#!/bin/sh
# Time and peak memory of the web-viewer JSON readers on large generated
# inputs (never part of `make check`).  Usage: sh bench/web-formats.sh
# [SCALE]  (SCALE 1: a 56 MB speedscope evented file with 1.5 million
# events and a 298 MB trace with 2.4 million X events).  Needs GNU time.
# Each line gives the peak RSS over the input size (goal: at most 2x).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
SFCONV=${SFCONV:-$top/bin/sfconv}
scale=${1:-1}
dir=${TMPDIR:-/tmp}/sf-bench-web.$$
mkdir -p "$dir"
trap 'rm -rf "$dir"' EXIT

python3 - "$dir" "$scale" <<'P'
import random, sys
d, scale = sys.argv[1], float(sys.argv[2])
random.seed(1)
with open(d + '/evented.speedscope.json', 'w') as f:
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
random.seed(2)
with open(d + '/x.trace.json', 'w') as f:
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
P
# the goal (issue 18): peak RSS at most twice the input
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
for f in evented.speedscope.json x.trace.json; do
	size=$(wc -c < "$dir/$f")
	/usr/bin/time -f "%e %M" -o "$dir/t" \
		"$SFCONV" -q "$dir/$f" -o "$dir/out.folded"
	read t kb < "$dir/t"
	awk -v f="$f" -v s="$size" -v t="$t" -v kb="$kb" 'BEGIN {
		printf "%s (%d bytes): %s s, %d KB peak, %.2fx the input\n",
		       f, s, t, kb, kb * 1024 / s }'
done
