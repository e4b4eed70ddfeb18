# sfcapture on real programs (issue: the program owns its stdout and exit
# status; nothing is lost when a debugger attaches or sfcapture is
# suspended; honest per-thread counts).  All structural: no timing.
. "$TOP/tests/lib.sh"
. "$TOP/tests/capture-lib.sh"
capture_setup capture-field

# --- the command's standard output is its own: byte-identical with and
# without sfcapture (the report goes to the terminal or standard error)
seq 100000 > plain.out
timeout 120 "$SFCAPTURE" -o own.json -- sh -c 'seq 100000' > own.out 2> own.err
rc=$?
if [ $rc -eq 0 ] && cmp -s plain.out own.out; then pass capture-cmd-stdout-own; else
	fail capture-cmd-stdout-own "status $rc, $(cmp plain.out own.out 2>&1 | head -n 1)"; fi
# and when the command runs long enough to be sampled, the report is
# still not on its standard output
timeout 120 "$SFCAPTURE" -o own2.json -- sh -c 'sleep 0.5; seq 1000' > own2.out 2> own2.err
seq 1000 > plain2.out
if cmp -s plain2.out own2.out && ! grep -q 'Analysis of sampling' own2.out; then
	pass capture-cmd-report-not-stdout; else
	fail capture-cmd-report-not-stdout "$(head -c 200 own2.out)"; fi

# --- the command's exit status, as a shell gives it, and how it ended
expect_status capture-cmd-status-3 3 timeout 120 "$SFCAPTURE" -q -o st3.json -- sh -c 'exit 3'
timeout 120 "$SFCAPTURE" -o segv.json -- sh -c 'sleep 0.3; kill -SEGV $$' > /dev/null 2> segv.err
rc=$?
if [ $rc -eq 139 ] && grep -q "killed by signal 11" segv.err; then pass capture-cmd-status-segv; else
	fail capture-cmd-status-segv "status $rc: $(grep -v '^ \|^$' segv.err | tail -n 2)"; fi
timeout 120 "$SFCAPTURE" -o st5.json -- sh -c 'sleep 0.3; exit 5' > /dev/null 2> st5.err
rc=$?
if [ $rc -eq 5 ] && grep -q "exited with status 5" st5.err && [ -s st5.json ]; then
	pass capture-cmd-status-5-output; else fail capture-cmd-status-5-output "status $rc"; fi

# --- another tracer attaching mid-capture ends the capture early, keeps
# every sample so far, says why in one line, exits 0.  Deterministic:
# with --no-reuse --no-peek --no-perf every thread is stopped at every
# tick, so the first tick after the tracer's seize meets it.
nsamples() { python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["samples"]))' "$1" 2>/dev/null || echo 0; }
start_target ./target_nofp || fail capture-tracer-start "target not ready"
timeout 120 "$SFCAPTURE" -p $TPID -d 60 --no-reuse --no-peek --no-perf -o tr.json > /dev/null 2> tr.err & cp=$!
# (a bound: the capture must have begun before the tracer comes, else it
# rightly refuses to start)
sleep 1.5
./tracer $TPID > tracer.out 2>&1 & tr=$!
wait $cp; rc=$?
n=$(nsamples tr.json)
if [ $rc -eq 0 ] && [ "$n" -gt 0 ] &&
	grep -q "ended early after .*: another tracer, process $tr (tracer), attached to thread $TPID" tr.err; then
	pass capture-tracer-ends-early; else
	fail capture-tracer-ends-early "status $rc, $n samples: $(grep -v '^ \|^$' tr.err | head -n 3)"; fi
kill $tr 2>/dev/null; wait $tr 2>/dev/null
why=$(target_runs $TPID) && pass capture-tracer-target-runs || fail capture-tracer-target-runs "$why"
stop_target

# --- gdb attaching mid-capture (and detaching): the capture keeps its
# samples, exits 0, and leaves no thread stopped
if have gdb; then
	start_target ./target_nofp || fail capture-gdb-start "target not ready"
	timeout 120 "$SFCAPTURE" -p $TPID -d 6 -o gdb.json > /dev/null 2> gdb.err & cp=$!
	sleep 1.5
	timeout 60 gdb -p $TPID -batch -ex 'info threads' > gdb.out 2>&1
	wait $cp; rc=$?
	n=$(nsamples gdb.json)
	if [ $rc -eq 0 ] && [ "$n" -gt 0 ]; then pass capture-gdb-keeps-samples; else
		fail capture-gdb-keeps-samples "status $rc, $n samples: $(grep -v '^ \|^$' gdb.err | head -n 3)"; fi
	why=$(target_runs $TPID) && pass capture-gdb-target-runs || fail capture-gdb-target-runs "$why"
	stop_target
else
	skip capture-gdb "no gdb"
fi

# --- SIGTSTP of sfcapture (Ctrl-Z): every thread of the target is
# released before sfcapture stops; SIGCONT resumes the capture
# state_of PID: the state letter of /proc/PID/stat
state_of() { sed 's/.*) \(.\).*/\1/' /proc/$1/stat 2>/dev/null; }
start_target ./target_nofp || fail capture-tstp-start "target not ready"
"$SFCAPTURE" -q -F 1000 -p $TPID -d 60 -o tstp.json > /dev/null 2> tstp.err & cp=$!
sleep 1
bad=0 why=
for i in 1 2 3 4 5; do
	kill -TSTP $cp
	# a bound, not a timing: wait for sfcapture to stop itself
	j=0
	while [ "$(state_of $cp)" != T ] && [ $j -lt 400 ]; do sleep 0.025; j=$((j + 1)); done
	[ "$(state_of $cp)" = T ] || { bad=$((bad + 1)); why="sfcapture did not stop"; }
	w=$(target_runs $TPID) || { bad=$((bad + 1)); why="$w (sfcapture in $(state_of $cp), wchan $(cat /proc/$cp/wchan))"; }
	kill -CONT $cp
	sleep 0.2
done
kill -INT $cp; wait $cp; rc=$?
n=$(nsamples tstp.json)
[ $bad -eq 0 ] && pass capture-tstp-releases || fail capture-tstp-releases "$bad of 5: $why"
if [ $rc -eq 0 ] && [ "$n" -gt 0 ]; then pass capture-tstp-resumes; else
	fail capture-tstp-resumes "status $rc, $n samples: $(head -n 2 tstp.err)"; fi
stop_target
