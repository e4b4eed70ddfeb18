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
	fail capture-cmd-stdout-own "status $rc, $(cmp plain.out own.out 2>&1 | head -n 1) $(grep -v "^ \|^$" own.err | head -n 3)"; fi
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
# the tracer's own seize fails (EPERM) while sfcapture holds the thread:
# it tries again until it holds it
i=0
while [ $i -lt 50 ]; do
	./tracer $TPID > tracer.out 2>&1 & tr=$!
	j=0
	while ! grep -q SEIZED tracer.out && kill -0 $tr 2>/dev/null && [ $j -lt 400 ]; do
		sleep 0.025; j=$((j + 1)); done
	grep -q SEIZED tracer.out && break
	wait $tr 2>/dev/null; i=$((i + 1))
done
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
# (in a process group of its own whose parent is in another group of the
# session, as a shell with job control starts it: in an orphaned group,
# which the test runner's may be, the kernel stops no one on SIGTSTP)
python3 -c 'import os, sys; os.setpgid(0, 0); os.execv(sys.argv[1], sys.argv[1:])' \
	"$SFCAPTURE" -F 500 -p $TPID -d 120 -o tstp.json > /dev/null 2> tstp.err & cp=$!
sleep 1
bad=0 why=
for i in 1 2 3 4 5; do
	kill -TSTP $cp
	# a bound, not a timing: wait for sfcapture to stop itself
	j=0
	while [ "$(state_of $cp)" != T ] && [ $j -lt 2400 ]; do sleep 0.025; j=$((j + 1)); done
	[ "$(state_of $cp)" = T ] || { bad=$((bad + 1)); why="sfcapture did not stop"; }
	w=$(target_runs $TPID) || { bad=$((bad + 1)); why="$w (sfcapture in $(state_of $cp), wchan $(cat /proc/$cp/wchan))"; }
	kill -CONT $cp
	sleep 0.2
done
kill -INT $cp; wait $cp; rc=$?
n=$(nsamples tstp.json)
[ $bad -eq 0 ] && pass capture-tstp-releases || fail capture-tstp-releases "$bad of 5: $why; $(head -n 3 tstp.err)"
if [ $rc -eq 0 ] && [ "$n" -gt 0 ]; then pass capture-tstp-resumes; else
	fail capture-tstp-resumes "status $rc, $n samples: $(head -n 2 tstp.err)"; fi
stop_target

# --- honest counts.  Per thread, samples taken and missed are in the
# capture (capture.taken:TID, capture.missed:TID): the taken count is the
# thread's samples, the missed ones add up to capture.missed, and no
# thread is due more samples than there were ticks (run and skipped).
# The spinning thread's samples are "running" (sfcapture's own stop is
# never its state).
start_target ./target_nofp || fail capture-counts-start "target not ready"
timeout 120 "$SFCAPTURE" -q -p $TPID -d 2 -o counts.json
timeout 120 "$SFCAPTURE" -p $TPID -d 1 -o counts2.json > counts.report 2>/dev/null
stop_target
PYTHONPATH=$TOP/tests python3 - counts.json > counts.check <<'PY'
import json, sys, collections
from capjson import load
d = json.load(open(sys.argv[1]))
props, rows = load(sys.argv[1])
per = collections.Counter(d["threads"][s[1]]["tid"] for s in d["samples"])
taken = {int(k.split(":")[1]): int(v) for k, v in props.items() if k.startswith("capture.taken:")}
missed = {int(k.split(":")[1]): int(v) for k, v in props.items() if k.startswith("capture.missed:")}
ticks = int(props["capture.ticks"]) + int(props["capture.ticks_skipped"])
bad = [t for t in per if taken.get(t) != per[t]] + [t for t in taken if t not in missed]
bad += [t for t in taken if taken[t] + missed.get(t, 0) > ticks]
print("taken", "ok" if taken and not bad else "per-thread taken differs from the samples: %s" % bad[:3])
print("missed", "ok" if sum(missed.values()) == int(props["capture.missed"]) else
      "sum of per-thread missed %d, capture.missed %s" % (sum(missed.values()), props["capture.missed"]))
cpu = [r for r in rows if r[0] == "cpu"]
run = sum(1 for r in cpu if r[2].get("state") == "running")
print("spin", "ok" if cpu and run * 100 >= 98 * len(cpu) else "%d of %d cpu samples running: %s" % (run, len(cpu), collections.Counter(r[2].get("state") for r in cpu)))
PY
for k in taken missed spin; do
	v=$(sed -n "s/^$k //p" counts.check)
	[ "$v" = ok ] && pass capture-counts-$k || fail capture-counts-$k "${v:-no result}"
done
# the report says, per thread, what it missed, and the total, in its header
if grep -q '^Missed:          [0-9]* of [0-9]* samples due' counts.report; then
	pass capture-counts-report; else fail capture-counts-report "$(sed -n 1,8p counts.report)"; fi

# --- a process whose main thread called pthread_exit is not a zombie
# while its other thread runs: sampled, through that thread
cc -O2 -g -pthread -o pexit "$CAPFIX/pexit.c" || fail capture-pthread-exit "cannot build pexit.c"
start_target ./pexit || fail capture-pthread-exit-start "target not ready"
timeout 120 "$SFCAPTURE" -q -p $TPID -d 0.5 --to lines -o pexit.lines 2> pexit.err
rc=$?
if [ $rc -eq 0 ] && grep -q ';worker;pause\(;[^;]*_\[k\]\)*$' pexit.lines; then pass capture-pthread-exit; else
	fail capture-pthread-exit "status $rc: $(head -n 2 pexit.err) $(head -n 2 pexit.lines 2>/dev/null)"; fi
stop_target

# --- refusals name the fix: another user's process needs root or
# CAP_SYS_PTRACE (run as nobody against a process of ours)
if [ "$(id -u)" = 0 ] && have setpriv; then
	sleep 60 & sl=$!
	setpriv --reuid=65534 --regid=65534 --clear-groups "$SFCAPTURE" -p $sl -d 0.2 -o /dev/null > /dev/null 2> perm.err
	rc=$?
	kill $sl; wait $sl 2>/dev/null
	if [ $rc -eq 1 ] && [ "$(grep -c . perm.err)" = 1 ] && grep -q 'as root, or with CAP_SYS_PTRACE' perm.err; then
		pass capture-refusal-names-fix; else fail capture-refusal-names-fix "status $rc: $(head -n 2 perm.err)"; fi
else
	skip capture-refusal-names-fix "needs root and setpriv to run as another user"
fi

# --- several processes: -p A -p B and -p A,B; each sample keeps its
# process (the thread's pid in the capture) and thread
cc -O2 -g -o forker "$CAPFIX/forker.c" || fail capture-procs "cannot build forker.c"
start_target ./target_nofp || fail capture-procs-start "target not ready"
PA=$TPID; TPID=
start_target ./target_nofp || fail capture-procs-start "target not ready"
PB=$TPID
pid_check() {  # FILE PIDS...: every pid has samples, each thread keeps its pid
	f=$1; shift
	python3 - "$f" "$@" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
want = {int(x) for x in sys.argv[2:]}
have = {}
for s in d["samples"]:
    t = d["threads"][s[1]]
    have.setdefault(t["pid"], set()).add(t["tid"])
# every wanted process has samples, and its main thread (tid == pid) is
# filed under its own pid
mains = {t["tid"]: t["pid"] for t in d["threads"] if t["tid"] in want}
bad = [t for t, p in mains.items() if p != t]
print("ok" if want <= set(have) and not bad else "pids with samples %s, wanted %s, main threads filed elsewhere %s" % (sorted(have), sorted(want), bad))
PY
}
timeout 120 "$SFCAPTURE" -q -p $PA -p $PB -d 0.5 -o twop.json
v=$(pid_check twop.json $PA $PB)
[ "$v" = ok ] && pass capture-procs-repeat || fail capture-procs-repeat "$v"
# the sample report groups threads by process: one "Process:" line per
# pid, and each target's main thread (Thread_PID) under its own pid's
$SFANALYZE -q --sample twop.json > twop.sample
awk -v a=$PA -v b=$PB '
/^Process: .* samples$/ { match($0, /\[[0-9]+\]/); cur = substr($0, RSTART + 1, RLENGTH - 2); np++ }
/^    [0-9]+ Thread_[0-9]+/ { split($2, t, "_"); if (t[2] == a || t[2] == b) { if (t[2] != cur) bad = 1; seen[t[2]] = 1 } }
END { exit !(np == 2 && seen[a] && seen[b] && !bad) }' twop.sample &&
	pass capture-procs-sample-report || fail capture-procs-sample-report "$(grep -E '^(Process: |    [0-9]+ Thread_)' twop.sample | head -n 12)"
timeout 120 "$SFCAPTURE" -q -p $PA,$PB -d 0.5 --to lines -o twoc.lines
na=$(grep -c "^$PA:main	" twoc.lines); nb=$(grep -c "^$PB:main	" twoc.lines)
if [ "$na" -gt 0 ] && [ "$nb" -gt 0 ]; then pass capture-procs-comma; else
	fail capture-procs-comma "$na samples of $PA's main thread, $nb of $PB's"; fi
stop_target; TPID=$PA; stop_target

# --- process trees: -- CMD follows every process CMD starts (a fork, and
# a fork that execs the program again): their functions and every pid
timeout 120 "$SFCAPTURE" -q -o tree.json -- ./forker > tree.out
rc=$?
pids=$(sed -n 's/^PID //p' tree.out)
v=$(pid_check tree.json $pids)
PYTHONPATH=$TOP/tests python3 - tree.json > tree.check <<'PY'
import sys
from capjson import load
props, rows = load(sys.argv[1])
got = {f for r in rows for f in r[1].split(";")}
want = {"parent_wait", "fork_child_work", "exec_child_work"}
print("ok" if want <= got else "missing %s" % sorted(want - got))
PY
if [ $rc -eq 0 ] && [ "$(echo $pids | wc -w)" = 3 ] && [ "$v" = ok ]; then pass capture-tree-pids; else
	fail capture-tree-pids "status $rc, pids '$pids': $v"; fi
[ "$(cat tree.check)" = ok ] && pass capture-tree-functions || fail capture-tree-functions "$(cat tree.check)"
# -p PID --children: the same for a running tree (its children exist
# already, and keep spinning through the capture)
start_target ./forker x 30 || fail capture-children-start "target not ready"
timeout 120 "$SFCAPTURE" -q -p $TPID --children -d 0.5 -o kids.json
pids=$(sed -n 's/^PID //p' "$TOUT")
v=$(pid_check kids.json $pids)
[ "$(echo $pids | wc -w)" = 3 ] && [ "$v" = ok ] && pass capture-children-pids || fail capture-children-pids "pids '$pids': $v"
kill $pids 2>/dev/null
stop_target
# grouped by process: collapsed with --pid-prefix roots each stack at
# COMM-PID, as stackcollapse-perf.pl --pid does
pids=$(sed -n 's/^PID //p' tree.out)
$SFCONV -q tree.json --to collapsed --pid-prefix -o tree.folded
roots=$(cut -d';' -f1 tree.folded | sort -u | tr '\n' ' ')
okr=1
for p in $pids; do echo " $roots" | grep -q "[a-z]*-$p " || okr=0; done
[ $okr = 1 ] && [ "$(echo $roots | wc -w)" = 3 ] && pass capture-tree-pid-prefix || fail capture-tree-pid-prefix "roots '$roots', pids '$pids'"
# and sfanalyze --per-process: one report per process, its functions
# under its own heading
$SFANALYZE --per-process tree.json > tree.rep 2> tree.rep.err
ok=$(awk -v pids="$pids" '
	BEGIN { n = split(pids, p, /[ \n]+/) }
	/^== process / { cur = $3; sub(/.*-/, "", cur); heads[cur] = 1; next }
	/parent_wait/ { fn[cur] = fn[cur] " parent_wait" }
	/fork_child_work/ { fn[cur] = fn[cur] " fork" }
	/exec_child_work/ { fn[cur] = fn[cur] " exec" }
	END {
		bad = 0; par = 0; fk = 0; ex = 0
		for (i = 1; i <= n; i++) if (p[i] != "" && !(p[i] in heads)) bad++
		for (k in fn) { par += (fn[k] ~ /parent_wait/); fk += (fn[k] ~ /fork/); ex += (fn[k] ~ /exec/)
			if ((fn[k] ~ /parent_wait/) + (fn[k] ~ /fork/) + (fn[k] ~ /exec/) != 1) bad++ }
		print (bad || par != 1 || fk != 1 || ex != 1) ? "headings " length(heads) ", functions " par " " fk " " ex : "ok"
	}' tree.rep)
[ "$ok" = ok ] && pass capture-tree-per-process || fail capture-tree-per-process "$ok: $(head -n 3 tree.rep.err)"

# --- the sample report's "Total number in stack" section, as macOS
# sample fills it: every frame (function at one address) seen in 5 or
# more stacks, a recursive frame counted each time, most first, then by
# name, as "        COUNT   NAME  (in MODULE)  [0xADDR]".  Expected
# values computed here from the capture's stacks.
$SFCONV -q tree.json --to sample -o tree.sample
PYTHONPATH=$TOP/tests python3 - tree.json tree.sample > total.check <<'PY'
import json, sys, collections, os
d = json.load(open(sys.argv[1]))
cnt = collections.Counter()
for s in d["samples"]:
    i, w = s[0], s[4] if len(s) > 4 else 1
    while i:
        parent, f = d["stacks"][i - 1]
        cnt[f] += w
        i = parent
want = []
# ties: by name, then module (base name), then address (none last), as
# the writer orders them so that a read back keeps the order
def tie(f):
    fr = d["frames"][f]
    a = fr.get("address")
    return (fr["name"].encode(), os.path.basename(fr.get("module") or "").encode(),
            int(a, 16) if a else 1 << 64, f)
for f, c in sorted(cnt.items(), key=lambda x: (-x[1],) + tie(x[0])):
    if c < 5:
        continue
    fr = d["frames"][f]
    # as sample prints a frame: "(in MODULE)" where there is a module,
    # then "+ OFFSET" into the function where known, "[0xADDR]" (and
    # "FILE:LINE") where there is an address: kernel frames have a module
    # and no address, Python frames neither
    line = "        %-8d%s" % (c, fr["name"] or "???")
    if fr.get("module"):
        line += "  (in %s)" % os.path.basename(fr["module"])
        if "offset" in fr:
            line += " + %d" % fr["offset"]
    if fr.get("address"):
        line += "  [%s]" % fr["address"]
        if fr.get("file") and fr.get("line"):
            line += "  %s:%d" % (fr["file"], fr["line"])
    want.append(line)
text = open(sys.argv[2]).read().split("\n")
a = text.index("Total number in stack (recursive counted multiple, when >=5):")
got = []
for line in text[a + 1:]:
    if not line:
        break
    got.append(line)
print("ok" if got == want else "got %d lines, want %d; first difference: %s" %
      (len(got), len(want), next(((g, w) for g, w in zip(got, want) if g != w), None)))
PY
[ "$(cat total.check)" = ok ] && pass capture-sample-total-in-stack || fail capture-sample-total-in-stack "$(cat total.check)"

# --- the header lines macOS sample prints about the process (Path, Code
# Type, Parent Process, OS Version, Physical footprint and its peak), in
# the real report's order and columns (peer fixture: sample of rg)
real=$PEERS/inferno/collapse-sample/sample.txt
if have_peers && [ -r "$real" ]; then
	keys='^(Path|Code Type|Parent Process|OS Version|Physical footprint|Physical footprint \(peak\)):  *'
	grep -oE "$keys" "$real" > hdr.want
	sed -n '/^----$/q;p' tree.sample | grep -oE "$keys" > hdr.got
	if [ -s hdr.want ] && cmp -s hdr.want hdr.got &&
		grep -q "^Path:            /.*/forker$" tree.sample &&
		grep -q '^Physical footprint:         [0-9.]*[KMG]$' tree.sample; then
		pass capture-sample-header; else
		fail capture-sample-header "$(diff hdr.want hdr.got | head -n 5)"; fi
else
	skip capture-sample-header "no peer fixture inferno/collapse-sample/sample.txt"
fi

# --- perf_event_open refused (as under kernel.perf_event_paranoid 3 or a
# container's seccomp profile; here a seccomp filter on sfcapture alone,
# so the machine's setting is left alone): the spinning thread is stopped
# instead, and one warning says so, naming kernel.perf_event_paranoid and
# its current value.  perf is only tried on x86_64, for a running thread
# while fewer threads run than there are CPUs.
if [ "$(uname -m)" != x86_64 ] || [ "$(nproc)" -lt 2 ] ||
	[ ! -r /proc/sys/kernel/perf_event_paranoid ]; then
	skip capture-perf-refused "needs x86_64, two CPUs and /proc/sys/kernel/perf_event_paranoid"
elif ! cc -O2 -o noperf "$CAPFIX/noperf.c" || ! ./noperf true; then
	skip capture-perf-refused "cannot install a seccomp filter here"
else
	lvl=$(cat /proc/sys/kernel/perf_event_paranoid)
	start_target ./target_nofp || fail capture-perf-refused-start "target not ready"
	./noperf timeout 120 "$SFCAPTURE" -p $TPID -d 0.5 -o noperf.json > /dev/null 2> noperf.err
	rc=$?
	stop_target
	n=$(grep -c 'warning: perf_event_open refused' noperf.err)
	sp=$(python3 -c 'import json,sys; print(dict(json.load(open(sys.argv[1]))["meta"]["properties"]).get("capture.stopless_perf"))' noperf.json 2>/dev/null)
	if [ $rc -eq 0 ] && [ "$n" = 1 ] && [ "$sp" = 0 ] && [ "$(nsamples noperf.json)" -gt 0 ] &&
		grep -q "warning: perf_event_open refused (Permission denied).*kernel\.perf_event_paranoid is $lvl\b.*stopped with ptrace" noperf.err; then
		pass capture-perf-refused; else
		fail capture-perf-refused "status $rc, $n warnings, stopless_perf $sp: $(head -n 3 noperf.err)"; fi
fi
