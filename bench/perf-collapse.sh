#!/bin/sh
# Throughput of `sfconv --from perf X` (perf script text -> collapsed).
# Builds a ~1 GB input by repeating FlameGraph's example-perf-stacks
# (from the shared peer fixtures) and reports the CPU time (user+sys; the
# wall time is also printed but depends on the machine's load) and MB/s.
#   sh bench/perf-collapse.sh [SIZE_MB]   (default 1024)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
shared=${SHARED:-$top/../shared}
src=$shared/fixtures/peers/FlameGraph/example-perf-stacks.txt.gz
size_mb=${1:-1024}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
[ -f "$src" ] || { echo "perf-collapse: $src missing" >&2; exit 0; }
gzip -dc "$src" > "$tmp/one.txt"
echo >> "$tmp/one.txt"
one=$(wc -c < "$tmp/one.txt")
n=$(( size_mb * 1048576 / one + 1 ))
i=0
while [ $i -lt $n ]; do cat "$tmp/one.txt"; i=$((i + 1)); done > "$tmp/big.txt"
bytes=$(wc -c < "$tmp/big.txt")
cat "$tmp/big.txt" > /dev/null   # warm the page cache
for opts in "" "--tid --all"; do
	/usr/bin/time -f "%e %U %S" -o "$tmp/t" "$top/bin/sfconv" -q --from perf \
		$opts "$tmp/big.txt" > "$tmp/out"
	read -r wall user sys < "$tmp/t"
	echo "perf -> collapsed ${opts:-(defaults)}: $bytes bytes, cpu $(echo "$user + $sys" | bc) s" \
	     "($(echo "scale=0; $bytes / 1048576 / ($user + $sys)" | bc) MB/s), wall $wall s," \
	     "$(wc -l < "$tmp/out") output lines"
done
