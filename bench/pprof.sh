#!/bin/sh
# bench/pprof.sh: read a 1,000,000-sample pprof profile and write collapsed
# stacks, and the reverse; report wall time and peak RSS (/usr/bin/time -v;
# the goal of issue #18 is 150 MB at most in both directions).
#
# The input is made deterministically: awk writes 1,000,000 distinct
# 20-frame stacks (14 shared frames, then one frame per decimal digit of
# the sample number, so no two samples fold), sfconv writes them as
# bench/data/pprof-1m.pb.gz with our pprof writer (timed too).
#
#   sh bench/pprof.sh            (after make)
#   BENCH_SAMPLES=N sh bench/pprof.sh
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
bin=$top/bin
data=$top/bench/data
n=${BENCH_SAMPLES:-1000000}
mkdir -p "$data"
cd "$data"

in=pprof-$n.folded
pb=pprof-$n.pb.gz
if [ ! -s "$in" ]; then
	awk -v n="$n" 'BEGIN {
		pre = "runtime.goexit;runtime.main;main.main;main.run;server.Serve;server.handle;server.dispatch;api.Call;api.decode;codec.Read;codec.parse;codec.field;codec.value;codec.number"
		for (i = 0; i < n; i++) {
			s = pre; x = i
			for (d = 0; d < 6; d++) { s = s ";digit" d "_" (x % 10); x = int(x / 10) }
			print s, (i * 7) % 13 + 1
		}
	}' > "$in.tmp" && mv "$in.tmp" "$in"
fi

echo "machine: $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB, $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1)"
echo "date: $(date -u +%Y-%m-%dT%H:%MZ)   samples: $n   load: $(cut -d' ' -f1-3 /proc/loadavg)"

report() { # label
	awk -v l="$1" -F': ' '
		/Elapsed \(wall clock\)/ { t = $2 }
		/User time/ { u = $2 }
		/System time/ { s = $2 }
		/Maximum resident set size/ { r = $2 }
		END { printf "%-28s wall %s  user %ss  sys %ss  peak RSS %.1f MB\n", l, t, u, s, r / 1024 }' .time
}

/usr/bin/time -v "$bin/sfconv" -q "$in" -o "$pb" 2>.time
report "collapsed -> pprof (write)"
# issue #18: at most 150 MB for 1M distinct samples, on every core (the
# parts of a parallel read are held until merged) and on one
/usr/bin/time -v "$bin/sfconv" -q -j 1 "$in" -o "j1-$pb" 2>.time
report "collapsed -> pprof (-j 1)"
cmp -s "$pb" "j1-$pb" || { echo "bench: -j 1 output differs" >&2; exit 1; }
rm -f "j1-$pb"
echo "pprof file: $(stat -c %s "$pb") bytes gzip'd, $(gzip -dc "$pb" | wc -c) bytes of protobuf"

/usr/bin/time -v "$bin/sfconv" -q "$pb" -o pprof-$n.out.folded 2>.time
report "pprof -> collapsed (read)"
lines=$(wc -l < pprof-$n.out.folded)
echo "collapsed output: $lines lines (expected $n)"
[ "$lines" -eq "$n" ] || { echo "bench: wrong number of stacks" >&2; exit 1; }
