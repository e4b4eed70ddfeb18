#!/bin/sh
# bench/svg-prefix.sh OLD_BINDIR NEW_BINDIR [RUNS] - the flame graph of
# issue #30's 400,000-sample timeline (8 threads of one process, nearly
# every sample a stack of its own) with and without a root frame per
# thread or process (issue #26): CPU time (perf stat task-clock), each
# command RUNS times (default 5), the commands alternating so that load
# from other work falls on all alike; min and median of each.  OLD has no
# --pid-prefix for svg: its rows are the default graph, and the way to a
# per-thread graph before, a collapsed round trip.  Needs perf.
set -eu
. "$(dirname "$0")/timeline-lib.sh"

set -- \
	"old svg|$old/sfconv -q $f --to svg" \
	"new svg|$new/sfconv -q $f --to svg" \
	"new svg --pid-prefix|$new/sfconv -q $f --to svg --pid-prefix" \
	"new svg --thread-prefix|$new/sfconv -q $f --to svg --thread-prefix" \
	"old collapsed --thread-prefix, then svg|$old/sfconv -q $f --to collapsed --thread-prefix | $old/sfconv -q --from collapsed --to svg"
rm -f times.*
for r in $(seq "$n"); do
	i=0
	for c in "$@"; do
		i=$((i + 1))
		tc "${c#*|}" >> times.$i
	done
done
i=0
for c in "$@"; do
	i=$((i + 1))
	printf '%-40s %s\n' "${c%%|*}" "$(minmed < times.$i)"
done
rm -f times.*
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
