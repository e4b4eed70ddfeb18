# tests/capture-lib.sh - helpers for the live ptrace tests (sourced after
# tests/lib.sh by tests/t-capture*.sh).  The target is built here from
# tests/fixtures/capture/target.c, with and without frame pointers.
CAPFIX=$TOP/tests/fixtures/capture
TPID=

capture_setup() {
	if ! have cc; then
		skip "$1" "no C compiler to build the target"; exit 0
	fi
	cc -O2 -g -pthread -fno-omit-frame-pointer -o target_fp "$CAPFIX/target.c" &&
	cc -O2 -g -pthread -o target_nofp "$CAPFIX/target.c" &&
	cc -O2 -g -o tracer "$CAPFIX/tracer.c" || {
		fail "$1" "cannot build the capture target"; exit 0; }
	trap 'cleanup_targets' EXIT
	# ptrace permitted?  A short capture of a sleeping process tells.
	sleep 30 & probe=$!
	timeout 20 "$SFCAPTURE" -q -p $probe -d 0.05 -o probe.json 2>probe.err
	rc=$?
	kill $probe 2>/dev/null; wait $probe 2>/dev/null
	if [ $rc -ne 0 ] && grep -q 'permission denied\|already traced' probe.err; then
		skip "$1" "ptrace not permitted here: $(head -n 1 probe.err)"; exit 0
	fi
}

ALL_TARGETS=
# start_target BIN ARGS...: run the target, wait for its READY line;
# sets TPID
start_target() {
	out=tgt.$$.$(date +%s%N).out
	"$@" >"$out" 2>&1 &
	TPID=$!
	ALL_TARGETS="$ALL_TARGETS $TPID"
	i=0
	while ! grep -q READY "$out" 2>/dev/null; do
		i=$((i + 1))
		# a bound, not a timing: a thousand threads on a loaded
		# machine may take a while to settle
		[ $i -gt 4800 ] && { echo "target did not get ready"; return 1; }
		sleep 0.025
	done
	TOUT=$out
	return 0
}

stop_target() {
	[ -n "$TPID" ] && kill -9 "$TPID" 2>/dev/null
	wait "$TPID" 2>/dev/null
	TPID=
}

cleanup_targets() {
	for p in $ALL_TARGETS; do kill -9 "$p" 2>/dev/null; done
}

# target_runs PID: no thread traced or stopped, TracerPid 0 everywhere
target_runs() {
	for st in /proc/$1/task/*/status; do
		[ -r "$st" ] || continue
		s=$(sed -n 's/^State:[[:space:]]*\(.\).*/\1/p' "$st" 2>/dev/null)
		t=$(sed -n 's/^TracerPid:[[:space:]]*//p' "$st" 2>/dev/null)
		# a thread of a churning target may end between the two reads:
		# its status is gone, not a sign of a tracer left behind
		[ -n "$s" ] && [ -n "$t" ] || continue
		case $s in t|T) echo "$(basename "$(dirname "$st")") in state $s"; return 1 ;; esac
		[ "$t" = 0 ] || { echo "$(basename "$(dirname "$st")") traced by $t"; return 1; }
	done
	[ -d /proc/$1 ] || { echo "target $1 is gone"; return 1; }
	return 0
}

# chain_share FILE THREAD CHAIN: percentage (integer) of THREAD's samples
# in a --to lines FILE whose stack holds CHAIN (frames root first,
# separated by ';') in order, not necessarily adjacent; "0 0" when none.
# THREAD is a name, or a thread id when all digits.  With a 4th argument
# "unstarted", a stack that is exactly "__clone3" counts as showing CHAIN:
# a thread created during the capture is there, at the first instruction
# of its new stack, until it first gets a CPU (an exact stack).
# Prints "PERCENT COUNT".
chain_share() {
	awk -F '\t' -v th="$2" -v chain="$3" -v unstarted="${4:-}" '
	BEGIN { nc = split(chain, want, ";") }
	{
		name = $1; tid = $1; sub(/^[0-9]*:/, "", name); sub(/:.*/, "", tid)
		if (th ~ /^[0-9]+$/ ? tid != th : name != th) next
		total++
		if (unstarted && $3 == "__clone3") { ok++; next }
		n = split($3, f, ";"); j = 1
		for (i = 1; i <= n && j <= nc; i++) if (f[i] == want[j]) j++
		if (j > nc) ok++
	}
	END { if (!total) print "0 0"; else printf "%d %d\n", int(100 * ok / total), total }' "$1"
}

# expect_chain NAME FILE THREAD CHAIN [unstarted]: >= 95% of THREAD's
# samples show CHAIN (see chain_share for "unstarted")
expect_chain() {
	set -- "$1" "$2" "$3" "$4" $(chain_share "$2" "$3" "$4" "${5:-}")
	if [ "$6" -gt 0 ] && [ "$5" -ge 95 ]; then pass "$1"; else
		fail "$1" "$5% of $6 samples of thread $3 show $4"
		awk -F '\t' -v th="$3" '{n=$1; sub(/^[0-9]*:/,"",n)} n==th' "$2" | sort | uniq -c | sort -rn | head -n 3
	fi
}

