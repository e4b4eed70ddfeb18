#!/bin/sh
# Sampler reader/writer figures (never part of make check):
#   sh bench/sampler.sh            from the top of the tree, after make
# Generates bench/data/sampler-in.folded deterministically (20,000 distinct
# stacks of depth 8-40, weights 1-500: about 5 million records), writes it
# as a Sampler trace, then times trace -> collapsed and trace -> trace
# next to `cat` of the same file.  Best of BENCH_RUNS (default 3); peak RSS
# from /usr/bin/time.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
runs=${BENCH_RUNS:-3}
mkdir -p "$top/bench/data"
cd "$top/bench/data"
if [ ! -s sampler-in.folded ]; then
	python3 - > sampler-in.folded <<'PY'
import random
r = random.Random(3)
names = ['f%d' % i for i in range(2000)]
for i in range(20000):
    depth = r.randint(8, 40)
    print(';'.join(r.choice(names) for _ in range(depth)), r.randint(1, 500))
PY
fi
"$top/bin/sfconv" --from collapsed sampler-in.folded --to sampler -o sampler.trace
measure() { # label command
	best=; rss=
	for i in $(seq "$runs"); do
		/usr/bin/time -f "%e %M" -o .t sh -c "$2" > /dev/null
		read t m < .t
		if [ -z "$best" ] || awk "BEGIN{exit !($t < $best)}"; then best=$t; rss=$m; fi
	done
	printf '%-28s %8s s %10s KB\n' "$1" "$best" "$rss"
}
printf 'sampler.trace: %s bytes\n' "$(wc -c < sampler.trace)"
measure "cat (floor)" "cat sampler.trace"
measure "folded -> trace" "$top/bin/sfconv --from collapsed sampler-in.folded --to sampler -o x.trace"
measure "trace -> collapsed" "$top/bin/sfconv -q sampler.trace --to collapsed"
measure "trace -> trace" "$top/bin/sfconv -q sampler.trace --to sampler -o y.trace"
cmp -s sampler.trace y.trace && echo "trace -> trace: byte-identical" || echo "trace -> trace: DIFFERS"
rm -f x.trace y.trace .t
