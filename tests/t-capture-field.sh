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
