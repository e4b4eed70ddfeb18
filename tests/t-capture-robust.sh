# tier: slow
# sfcapture never leaves the target stopped or traced, whatever happens:
# Ctrl-C (SIGINT), SIGTERM, SIGHUP, SIGKILL of sfcapture mid-capture, the
# target exiting, threads created and joined during the capture, a target
# already stopped with SIGSTOP, and a corrupt stack.  Also the documented
# observer effect: epoll_wait returns EINTR once per sample.
. "$TOP/tests/lib.sh"
. "$TOP/tests/capture-lib.sh"
capture_setup capture-robust

# SIGINT, SIGTERM, SIGHUP: exit 0, output written, target running
start_target ./target_nofp || fail capture-signal-start "target not ready"
for sig in INT TERM HUP; do
	"$SFCAPTURE" -q -p $TPID -d 30 -o sig.$sig.json &
	cp=$!
	sleep 0.7
	kill -$sig $cp
	wait $cp; rc=$?
	n=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["samples"]))' sig.$sig.json 2>/dev/null)
	if [ $rc -eq 0 ] && [ "${n:-0}" -gt 0 ]; then pass capture-sig$sig-output; else
		fail capture-sig$sig-output "status $rc, ${n:-no} samples"; fi
	why=$(target_runs $TPID) && pass capture-sig$sig-target-runs || fail capture-sig$sig-target-runs "$why"
done

# SIGKILL at random moments of a back-to-back capture (1000 Hz, so most
# kills land while threads are seized): the kernel must release them all
bad=0
for i in 1 2 3 4 5 6 7 8 9 10 11 12; do
	"$SFCAPTURE" -q -F 1000 -p $TPID -o kill.json &
	cp=$!
	sleep 0.$(( (i * 37) % 30 + 5 ))
	kill -9 $cp; wait $cp 2>/dev/null
	why=$(target_runs $TPID) || { bad=$((bad + 1)); echo "run $i: $why"; }
	if [ ! -d /proc/$TPID ]; then
		wait $TPID; echo "run $i: the target ended with status $?"; break
	fi
done
[ $bad -eq 0 ] && pass capture-sigkill-target-runs || fail capture-sigkill-target-runs "$bad of 12 runs left the target stopped or traced"
ls -a | grep -q '^\.kill\.json' && fail capture-sigkill-no-temp "temporary file left" || pass capture-sigkill-no-temp
# the target still works: it answers SIGUSR1
kill -USR1 $TPID; wait $TPID 2>/dev/null
grep -q '^EINTR' "$TOUT" && pass capture-target-alive-after-kills || fail capture-target-alive-after-kills "no answer to SIGUSR1"
TPID=

# a command started by sfcapture is read as soon as its exec is done: the
# close-on-exec pipe tells sfcapture of the exec before the kernel has
# mapped the new program, and reading that half-built memory map failed
# ("Exec format error") in about one start in 60 on a loaded machine
nfail=0 why=
for i in $(seq 1 40); do
	timeout 30 "$SFCAPTURE" -q -d 0.05 --to lines -o launch.lines -- sh -c 'exec sleep 0.2' > /dev/null 2> launch.err ||
		{ nfail=$((nfail + 1)); why=$(head -n 1 launch.err); }
done
[ $nfail -eq 0 ] && pass capture-launch-during-exec || fail capture-launch-during-exec "$nfail of 40 starts failed: $why"

# a target that exits mid-capture ends the capture cleanly
# (5 s: on a loaded machine sfcapture may start a second after READY)
start_target ./target_nofp -e 5 || fail capture-exit-start "target not ready"
timeout 120 "$SFCAPTURE" -p $TPID -d 60 --to lines -o exit.lines 2> exit.err
rc=$?
n=$(wc -l < exit.lines 2>/dev/null || echo 0)
if [ $rc -eq 0 ] && [ "$n" -gt 0 ] && grep -q 'target exited' exit.err; then pass capture-target-exits; else
	fail capture-target-exits "status $rc, $n samples: $(head -n 2 exit.err)"; fi
stop_target

# threads created and joined during the capture are sampled: each sample
# of a churn thread is exact (its child side of clone3 before start_thread
# runs, or a chain from __clone3;start_thread, nothing unknown or
# truncated); most show churn_thread;churn_work (it sleeps 20 ms of its
# life; on a loaded machine a new thread may wait long at its first
# instruction, so not 95%)
start_target ./target_nofp -x -C || fail capture-churn-start "target not ready"
timeout 60 "$SFCAPTURE" -q -p $TPID -d 3 --to lines -o churn.lines
rc=$?
set -- $(chain_share churn.lines churn "churn_thread;churn_work")
ntid=$(awk -F '\t' '$1 ~ /:churn$/ { sub(/:.*/, "", $1); print $1 }' churn.lines | sort -u | wc -l)
inexact=$(awk -F '\t' '$1 ~ /:churn$/ && ($3 ~ /\[(truncated|unknown)/ || ($3 != "__clone3" && $3 !~ /^__clone3;start_thread(;|$)/))' churn.lines | sort | uniq -c | sort -rn | head -n 2)
if [ $rc -eq 0 ] && [ "$2" -gt 0 ] && [ "$1" -ge 50 ] && [ -z "$inexact" ] && [ "$ntid" -ge 3 ]; then pass capture-thread-churn; else
	fail capture-thread-churn "status $rc, $2 churn samples ($1% in churn_work) from $ntid threads; inexact: $inexact"; fi
# main spends its time in pthread_join or pthread_create; inside the
# parent's side of clone3 the unwinder may stop (glibc's CFI there), so
# 80% rather than 95%
set -- $(chain_share churn.lines $TPID "main;main_wait;churn_loop")
[ "$2" -gt 0 ] && [ "$1" -ge 80 ] && pass capture-churn-main || fail capture-churn-main "$1% of $2 main samples show main;main_wait;churn_loop"
why=$(target_runs $TPID) && pass capture-churn-target-runs || fail capture-churn-target-runs "$why"
stop_target

# a corrupt stack: no crash, no hang, a truncated stack and a warning; the
# other threads are still right
for build in fp nofp; do
	start_target ./target_$build -c || fail capture-corrupt-start "target not ready"
	timeout 60 "$SFCAPTURE" -p $TPID -d 1 --to lines -o corrupt.lines 2> corrupt.err
	rc=$?
	c=$(awk -F '\t' '$1 ~ /:corrupt$/ && $3 ~ /^\[truncated\];.*corrupt_leaf$/' corrupt.lines | wc -l)
	if [ $rc -eq 0 ] && [ "$c" -gt 0 ] && grep -q 'warning: .*truncated' corrupt.err; then
		pass capture-corrupt-$build; else
		fail capture-corrupt-$build "status $rc, $c truncated corrupt stacks: $(head -n 3 corrupt.err)"; fi
	expect_chain capture-corrupt-$build-others corrupt.lines read "read_thread;read_blocker"
	timeout 60 "$SFCAPTURE" -q -p $TPID -d 0.5 --unwind=fp --to lines -o corrupt-fp.lines
	rc=$?
	[ $rc -eq 0 ] && grep -q ':corrupt' corrupt-fp.lines && pass capture-corrupt-$build-fp-walker || fail capture-corrupt-$build-fp-walker "status $rc"
	stop_target
done

# a thread in uninterruptible sleep (the parent side of vfork, state D)
# cannot be stopped: it must not hold up the others, its samples are
# counted missed (or, for the ticks before a stop that came, taken from
# that stop), and it is not left traced once its wait ends
start_target ./target_nofp -v || fail capture-dstate-start "target not ready"
timeout 30 "$SFCAPTURE" -p $TPID -d 1 --to lines -o dstate.lines 2> dstate.err
rc=$?
# (the threads sampled from their last stop: the cpu and epoll threads
# are stopped at every tick and on a loaded machine miss ticks anyway)
low=$(for th in main sleep read cond; do
	n=$(awk -F '\t' -v th=$th '{ sub(/^[0-9]*:/, "", $1) } $1 == th' dstate.lines | wc -l)
	[ "$n" -ge 50 ] || echo "$th:$n"
done)
if [ $rc -eq 0 ] && [ -z "$low" ] && grep -q 'did not stop within' dstate.err &&
   { ! grep -q ' 0 missed' dstate.err || grep -Eq '[1-9][0-9]* from stops that came late' dstate.err; }; then pass capture-dstate-no-stall; else
	fail capture-dstate-no-stall "status $rc, threads with few samples: ${low:-none}: $(head -n 2 dstate.err)"; fi
sleep 2.2   # the vfork child exits: the D thread runs again
why=$(target_runs $TPID) && pass capture-dstate-target-runs || fail capture-dstate-target-runs "$why"
# a stop that comes after its deadline is used, not only released: the
# vfork child exits every 2 s, so within 4.5 s the D thread leaves its
# wait at least once while its stop is pending, and that stop becomes a
# sample (its caller is in rdi there, CFA = sp: unwound to the end).
# The ticks that found it still pending (about 2 s of them) are paid
# from that stop too, with the label reused=late: no user code ran in
# between, so each has the stop's chain.
timeout 60 "$SFCAPTURE" -p $TPID -d 4.5 -o late.json 2> late.err
rc=$?
"$SFCONV" late.json --to lines -o late.lines
late=$(sed -n 's/.*, \([0-9]*\) from stops that came late.*/\1/p' late.err)
vf=$(awk -F '\t' '$1 ~ /:vfork$/' late.lines | wc -l)
vbad=$(awk -F '\t' '$1 ~ /:vfork$/ && $3 !~ /^__clone3;start_thread;vfork_thread;vfork_blocker;/' late.lines | sort | uniq -c | head -n 2)
if [ $rc -eq 0 ] && [ "${late:-0}" -gt 0 ] && [ "$vf" -gt 0 ] && [ -z "$vbad" ]; then pass capture-late-stop-used; else
	fail capture-late-stop-used "status $rc, ${late:-?} late, $vf vfork samples: $vbad $(grep 'samples taken' late.err)"; fi
# paid ticks: labelled reused=late, each the stack of a real stop of its
# own thread (the late stop it was paid from is recorded unlabelled; on a
# loaded machine threads other than vfork are paid late too), some on the
# vfork thread with its chain, and fewer than the summary's late count
# (which counts the late stops too)
paid=$(python3 - late.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
sets = [dict(s) for s in d["label_sets"]]
frames = [f["name"] for f in d["frames"]]
def chain(i):
    out = []
    while i:
        out.append(frames[d["stacks"][i - 1][1]]); i = d["stacks"][i - 1][0]
    return ";".join(reversed(out))
real = set()
for s in d["samples"]:
    if not s[3] or "reused" not in sets[s[3] - 1]:
        real.add((s[1], s[0]))
n = bad = vf = 0
for s in d["samples"]:
    if not s[3] or sets[s[3] - 1].get("reused") != "late":
        continue
    n += 1
    if (s[1], s[0]) not in real:
        bad += 1
    elif d["threads"][s[1]]["name"] == "vfork":
        vf += 1
        if not chain(s[0]).startswith("__clone3;start_thread;vfork_thread;vfork_blocker;"):
            bad += 1
print(n, bad, vf)
PY
)
set -- $paid
if [ "${1:-0}" -gt 0 ] && [ "${2:-1}" -eq 0 ] && [ "${3:-0}" -gt 0 ] && [ "$1" -lt "${late:-0}" ]; then pass capture-late-ticks-paid; else
	fail capture-late-ticks-paid "${1:-?} samples labelled reused=late (${3:-?} of the vfork thread), ${2:-?} not a real stop's stack of their thread, ${late:-?} late in the summary"; fi
why=$(target_runs $TPID) && pass capture-late-target-runs || fail capture-late-target-runs "$why"
stop_target

# the sampling thread runs at SCHED_FIFO priority 1 where it may (root),
# so that a loaded machine does not make its ticks late (nice -10 where
# only that is permitted); --no-boost keeps its scheduling.  Read from
# /proc while it samples (fields 41 policy, 40 rt_priority and 19 nice of
# stat).
# scheds CAPTURE-ARGS...: "POLICY PRIORITY NICE" the capture showed, one
# per line
scheds() {
	"$SFCAPTURE" -q -p $TPID -d 2 -o /dev/null --to collapsed "$@" &
	cp=$!
	while kill -0 $cp 2>/dev/null; do
		cat /proc/$cp/task/*/stat 2>/dev/null | sed 's/^.*) //' | awk '{ print $39, $38, $17 }'
		sleep 0.05
	done | sort -u
	wait $cp
}
if [ "$(id -u)" -ne 0 ]; then skip capture-boost "needs root (CAP_SYS_NICE)"; else
	start_target ./target_nofp || fail capture-boost-start "target not ready"
	# the nice value the tests run at (a CI job may run under nice):
	# the boost changes policy and priority, not nice, where it may
	n0=$(sed 's/^.*) //' /proc/self/stat | awk '{ print $17 }')
	b=$(scheds); nb=$(scheds --no-boost)
	echo "$b" | grep -qx -- "1 1 $n0" && pass capture-boost || fail capture-boost "policy, priority, nice seen: $(echo $b) (tests at nice $n0)"
	echo "$nb" | grep -qvx -- "0 0 $n0" && fail capture-no-boost "policy, priority, nice seen: $(echo $nb) (tests at nice $n0)" || pass capture-no-boost
	stop_target
fi

# a target stopped with SIGSTOP (Ctrl-Z) is sampled and stays stopped
start_target ./target_nofp || fail capture-stopped-start "target not ready"
kill -STOP $TPID
sleep 0.1
timeout 60 "$SFCAPTURE" -q -p $TPID -d 0.5 --to lines -o stopped.lines
rc=$?
running=0
for st in /proc/$TPID/task/*/status; do
	s=$(sed -n 's/^State:[[:space:]]*\(.\).*/\1/p' "$st")
	[ "$s" = T ] || running=$((running + 1))
done
if [ $rc -eq 0 ] && [ $running -eq 0 ] && [ -s stopped.lines ]; then pass capture-stopped-stays-stopped; else
	fail capture-stopped-stays-stopped "status $rc, $running threads not in T"; fi
grep -q 'read_thread;read_blocker' stopped.lines && pass capture-stopped-sampled || fail capture-stopped-sampled "no read stacks"
kill -CONT $TPID
sleep 0.1
why=$(target_runs $TPID) && pass capture-stopped-continues || fail capture-stopped-continues "$why"
stop_target

# observer effect (documented): each stop makes epoll_wait return EINTR
# (about once per stop: a stop that finds the thread between two
# epoll_wait calls interrupts nothing, and follows one that did, so at
# least half, at most all).  --no-peek stops the sleeping thread at every
# sample (each EINTR makes it run, so no sample can be reused); on a busy
# machine a stop that came late also pays the ticks it was pending for,
# and a tick skipped inside a stop gets that stop's stack (labels
# reused=late and reused=catchup): those samples are no stops of their
# own.
epoll_tid() { grep -l '^epoll$' /proc/$TPID/task/*/comm | sed 's|.*/task/\([0-9]*\)/comm|\1|'; }
start_target ./target_nofp || fail capture-eintr-start "target not ready"
timeout 60 "$SFCAPTURE" -q -p $TPID -d 1 --no-peek --threads "$(epoll_tid)" -o eintr.json
# samples, and those that are a stop of their own
set -- $(python3 - eintr.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
sets = [{}] + [dict(l) for l in d["label_sets"]]
n = sum(s[4] for s in d["samples"])
own = sum(s[4] for s in d["samples"] if "reused" not in sets[s[3]])
print(n, own)
PY
)
n=${1:-0} own=${2:-0}
kill -USR1 $TPID; wait $TPID 2>/dev/null
e=$(sed -n 's/^EINTR //p' "$TOUT")
if [ "$n" -gt 0 ] && [ "${e:-0}" -ge $((own / 2)) ] && [ "${e:-0}" -le $((n + 2)) ]; then pass capture-epoll-eintr-per-sample; else
	fail capture-epoll-eintr-per-sample "$n samples ($own of them stops of their own), ${e:-no} EINTR"; fi
# ... and by default it is read where it sleeps (stopless=1), then counted
# again while it has not run (reused=1): never interrupted, no EINTR at
# all, every sample with its chain.  (A busy machine changes nothing:
# the thread only runs when a stop wakes it.)
start_target ./target_nofp || fail capture-noeintr-start "target not ready"
timeout 60 "$SFCAPTURE" -q -p $TPID -d 1 --threads "$(epoll_tid)" -o noeintr.json
kill -USR1 $TPID; wait $TPID 2>/dev/null
e=$(sed -n 's/^EINTR //p' "$TOUT")
PYTHONPATH=$TOP/tests python3 - noeintr.json > noeintr.check <<'PY'
import sys
from capjson import load
props, rows = load(sys.argv[1])
peeks = sum(1 for r in rows if r[2].get("stopless") == "1")
stops = sum(1 for r in rows if not r[2].get("stopless") and not r[2].get("reused"))
good = sum(1 for r in rows if "epoll_thread;epoll_blocker;epoll_wait" in r[1])
print(len(rows), peeks, stops, good, props.get("capture.stopless"))
PY
set -- $(cat noeintr.check)
if [ "${1:-0}" -gt 0 ] && [ "${2:-0}" -ge 1 ] && [ "${3:-x}" = 0 ] && [ "${4:-0}" = "$1" ] &&
	[ "${5:-x}" = "$2" ] && [ "${e:-x}" = 0 ]; then pass capture-epoll-stopless-no-eintr; else
	fail capture-epoll-stopless-no-eintr "${1:-?} samples, ${2:-?} stopless (property ${5:-?}), ${3:-?} stops, ${4:-?} with the chain, ${e:-no} EINTR"; fi
TPID=
