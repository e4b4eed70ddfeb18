# tier: slow
# sfcapture at server scale and exact unwinding.  Reused samples (a thread
# that has not run since a proven snapshot, counted again without being
# stopped) are checked against real stops; 200 and 1,000 threads keep
# every thread and its chain; the red zone below sp is copied (a target
# spinning in an epilogue after "pop %rbp" unwinds to its thread's root);
# threads that live microseconds never show a stale frame.  Only structure
# is asserted (chains, threads, taken + missed = scheduled), never timing:
# these tests must hold on a machine as busy as it gets.
. "$TOP/tests/lib.sh"
. "$TOP/tests/capture-lib.sh"
capture_setup capture-scale

# prop FILE KEY: a capture.* property of a native JSON capture
prop() {
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(dict(d["meta"].get("properties", [])).get(sys.argv[2], ""))' "$1" "$2"
}

# --- reuse is exact: each reusable sample is also really stopped, and its
# stack must be the one reuse would have counted.  So is a read without a
# stop: each sleeping thread read that way is then stopped too, and when
# schedstat shows it did not run in between, the two stacks must be one
# (the first tick reads all 21 sleeping threads; the frame-pointer build
# needs rbp for most of its chains, which such a read does not have: those
# threads must be stopped instead, never given a shorter stack)
start_target ./target_nofp -n 20 || fail capture-reuse-start "target not ready"
timeout 60 "$SFCAPTURE" -q -p $TPID -d 1 --verify-reuse -o verify.json
rc=$?
v=$(prop verify.json capture.reuse_verified); m=$(prop verify.json capture.reuse_mismatch)
if [ $rc -eq 0 ] && [ "${v:-0}" -gt 0 ] && [ "$m" = 0 ]; then pass capture-reuse-exact; else
	fail capture-reuse-exact "status $rc, $v reusable samples equal to a real stop, $m differ"; fi
v=$(prop verify.json capture.stopless_verified); m=$(prop verify.json capture.stopless_mismatch)
if [ $rc -eq 0 ] && [ "${v:-0}" -gt 0 ] && [ "$m" = 0 ]; then pass capture-stopless-exact; else
	fail capture-stopless-exact "status $rc, $v stopless reads equal to a real stop, $m differ"; fi
stop_target
start_target ./target_fp -n 20 || fail capture-reuse-fp-start "target not ready"
timeout 60 "$SFCAPTURE" -q -p $TPID -d 1 --verify-reuse -o verify-fp.json
rc=$?
m=$(prop verify-fp.json capture.stopless_mismatch); m2=$(prop verify-fp.json capture.reuse_mismatch)
if [ $rc -eq 0 ] && [ "$m" = 0 ] && [ "$m2" = 0 ]; then pass capture-stopless-exact-fp; else
	fail capture-stopless-exact-fp "status $rc, $m stopless reads and $m2 reused samples differ from a real stop"; fi
stop_target
start_target ./target_nofp -n 20 || fail capture-reuse-start "target not ready"

# --- reused samples carry label reused=1, have the chains of real stops,
# and a capture without reuse (the fallback where schedstat is missing)
# has the same stacks per thread
timeout 60 "$SFCAPTURE" -q -p $TPID -d 1 -o reuse.json
timeout 60 "$SFCAPTURE" -q -p $TPID -d 1 --no-reuse -o noreuse.json
python3 - reuse.json noreuse.json > reuse.check <<'PY'
import json, sys
def load(path):
    d = json.load(open(path))
    sets = [dict(s) for s in d["label_sets"]]
    frames = [f["name"] for f in d["frames"]]
    stacks = d["stacks"]
    def chain(i):
        out = []
        while i:
            parent, frame = stacks[i - 1][0], stacks[i - 1][1]
            out.append(frames[frame])
            i = parent
        return tuple(reversed(out))
    by = {}
    for s in d["samples"]:
        lab = sets[s[3] - 1] if s[3] else {}
        name = d["threads"][s[1]]["name"]
        by.setdefault(name, []).append((chain(s[0]), lab.get("reused") == "1"))
    return d, by
r, rb = load(sys.argv[1])
n, nb = load(sys.argv[2])
props = lambda d: dict(d["meta"].get("properties", []))
reused = sum(1 for v in rb.values() for _, x in v if x)
print("labelled", "ok" if reused > 0 and str(reused) == props(r)["capture.reused"] else "%d labelled, prop %s" % (reused, props(r)["capture.reused"]))
print("fallback", "ok" if props(n)["capture.reuse"] == "off" and props(n)["capture.reused"] == "0" and not any(x for v in nb.values() for _, x in v) else props(n))
# blocked threads: the stacks of reused samples are stacks that real stops
# (of this capture or of the capture without reuse) give
bad = []
for th in ("sleep", "read", "cond", "idle", "main"):
    real = {c for c, x in rb.get(th, []) if not x} | {c for c, _ in nb.get(th, [])}
    for c, x in rb.get(th, []):
        if x and c not in real:
            bad.append("%s: %s" % (th, ";".join(c)))
print("same-stacks", "ok" if not bad else bad[:3])
PY
for k in labelled fallback same-stacks; do
	v=$(sed -n "s/^$k //p" reuse.check)
	[ "$v" = ok ] && pass capture-reuse-$k || fail capture-reuse-$k "${v:-no result}"
done
timeout 60 "$SFCAPTURE" -q -p $TPID -d 0.5 --no-reuse --to lines -o noreuse.lines
expect_chain capture-noreuse-idle noreuse.lines idle "idle_thread;idle_blocker"
expect_chain capture-noreuse-cpu noreuse.lines cpu "cpu_thread;cpu_recurse;cpu_leaf"
why=$(target_runs $TPID) && pass capture-reuse-target-runs || fail capture-reuse-target-runs "$why"
stop_target

# --- scale: THREADS threads at HZ for SECS: every thread present, each
# thread's chain in >= 95% of its samples, and samples taken plus missed
# make threads x ticks (the count of ticks is fixed by the schedule, not
# by the load: a late tick is counted, filled or missed)
# scale NAME HZ SECS TARGET-ARGS...
scale() {
	name=$1 hz=$2 secs=$3; shift 3
	start_target ./target_nofp "$@" || { fail $name-start "target not ready"; return; }
	nth=$(ls /proc/$TPID/task | wc -l)
	timeout 120 "$SFCAPTURE" -p $TPID -F $hz -d $secs --to lines -o $name.lines 2> $name.err
	rc=$?
	[ $rc -eq 0 ] && pass $name-exit || fail $name-exit "status $rc: $(head -n 2 $name.err)"
	seen=$(cut -f1 $name.lines | sort -u | wc -l)
	[ "$seen" -eq "$nth" ] && pass $name-every-thread || fail $name-every-thread "$seen of $nth threads have samples"
	bad=$(awk -F '\t' '
	BEGIN { want["idle"] = "idle_thread;idle_blocker"; want["busy"] = "busy_thread;busy_leaf"
		want["cpu"] = "cpu_thread;cpu_recurse;cpu_leaf"; want["read"] = "read_thread;read_blocker"
		want["sleep"] = "sleep_thread;sleep_blocker"; want["cond"] = "cond_thread;cond_blocker"
		want["epoll"] = "epoll_thread;epoll_blocker"; want["main"] = "main;main_wait" }
	{
		name = $1; sub(/^[0-9]*:/, "", name)
		if (!(name in want)) { other[$1]++; next }
		total[$1]++
		nc = split(want[name], w, ";"); n = split($3, f, ";"); j = 1
		for (i = 1; i <= n && j <= nc; i++) if (f[i] == w[j]) j++
		if (j > nc) ok[$1]++
	}
	END {
		for (t in other) print t
		for (t in total) if (ok[t] * 100 < 95 * total[t]) print t ":" ok[t] + 0 "/" total[t]
	}' $name.lines | head -n 5)
	[ -z "$bad" ] && pass $name-chains || fail $name-chains "threads below 95%: $bad"
	taken=$(sed -n 's/.*: \([0-9]*\) samples taken.*/\1/p' $name.err)
	missed=$(sed -n 's/.*, \([0-9]*\) missed.*/\1/p' $name.err)
	n=$(wc -l < $name.lines)
	ticks=$(awk -v h=$hz -v s=$secs 'BEGIN { printf "%d", h * s }')
	all=$((${taken:-0} + ${missed:-0}))
	if [ "${taken:-x}" = "$n" ] && [ $all -ge $((nth * (ticks - 1))) ] && [ $all -le $((nth * (ticks + 1))) ]; then
		pass $name-count; else
		fail $name-count "$n written, ${taken:-?} taken + ${missed:-?} missed, expected $nth x $ticks ticks (+-1)"; fi
	why=$(target_runs $TPID) && pass $name-target-runs || fail $name-target-runs "$why"
	stop_target
}
# 200 threads, 10 of them CPU-bound (cpu + 9 busy), the rest blocked
scale capture-200 100 2 -n 185 -b 9
# 1,000 threads
scale capture-1000 10 2 -n 990 -b 4

# --- catch-up: the first tick must read every thread (a stop, or a read
# of a sleeping thread without one), and with 1,000 threads at 100 Hz it
# overruns the ticks after it.  Those ticks are paid where it is exact
# (reused=catchup: a stop that held the thread at the tick's time;
# reused=1: a thread proven not to have run since its last stop or
# stopless read), the rest counted missed.  Checked by structure only: every
# catch-up sample is at a scheduled tick time and has the stack of the
# real stop of its thread just before or just after it; every reused
# sample has its thread's last real stop's stack; the labels match the
# counts; and when the first tick ran past the third tick's time (half
# of the threads' first stops came after it), the second tick, skipped,
# is not lost whole: it has catch-up or reused samples.  How many depends on the load; that there are some
# does not (hundreds of blocked threads were stopped after that time).
start_target ./target_nofp -n 990 -b 4 || fail capture-catchup-start "target not ready"
nth=$(ls /proc/$TPID/task | wc -l)
timeout 120 "$SFCAPTURE" -p $TPID -F 100 -d 0.5 -o catchup.json 2> catchup.err
rc=$?
[ $rc -eq 0 ] && pass capture-catchup-exit || fail capture-catchup-exit "status $rc: $(head -n 2 catchup.err)"
python3 - catchup.json > catchup.check <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
props = dict(d["meta"].get("properties", []))
per = round(1e9 / float(props["capture.hz"]))
sets = [dict(s) for s in d["label_sets"]]
by = {}
for s in d["samples"]:
    how = sets[s[3] - 1].get("reused", "") if s[3] else ""
    by.setdefault(s[1], []).append((s[2], how, s[0]))
n = bad = n1 = bad1 = 0
firsts = []
at_tick1 = 0
ex = ""
for th, xs in by.items():
    xs.sort()
    real = [(t, st) for t, how, st in xs if how == ""]
    if real:
        firsts.append(real[0][0])
    last = None
    for t, how, st in xs:
        if how == "":
            last = st
        elif how == "1":
            n1 += 1
            at_tick1 += t == per
            if st != last:
                bad1 += 1
        elif how == "catchup":
            n += 1
            at_tick1 += t == per
            near = [r for r in real if r[0] <= t][-1:] + [r for r in real if r[0] > t][:1]
            if t % per or not any(r[1] == st for r in near):
                bad += 1
                ex = ex or "thread %d at %d ns" % (th, t)
print("exact", "ok" if not bad else "%d of %d catch-up samples not at a tick or not a neighbouring stop's stack (%s)" % (bad, n, ex))
print("reused", "ok" if not bad1 else "%d of %d reused samples not the last stop's stack" % (bad1, n1))
print("counted", "ok" if str(n) == props.get("capture.catchup") else "%d labelled, property %s" % (n, props.get("capture.catchup")))
# a thread's first real stop is the first tick's (a late one keeps that
# tick's time); when half of them came after 2 periods, the first tick
# ran that long and the tick at 1 period was skipped
firsts.sort()
first_late = firsts and firsts[len(firsts) // 2] >= 2 * per
print("first", ("ok" if at_tick1 else "tick 1 lost whole") if first_late else "skip")
PY
for k in exact reused counted; do
	v=$(sed -n "s/^$k //p" catchup.check)
	[ "$v" = ok ] && pass capture-catchup-$k || fail capture-catchup-$k "${v:-no result}"
done
v=$(sed -n "s/^first //p" catchup.check)
case $v in
ok) pass capture-catchup-first-tick ;;
skip) skip capture-catchup-first-tick "the first tick did not run past the second tick's time" ;;
*) fail capture-catchup-first-tick "${v:-no result}" ;;
esac
taken=$(sed -n 's/.*: \([0-9]*\) samples taken.*/\1/p' catchup.err)
missed=$(sed -n 's/.*, \([0-9]*\) missed.*/\1/p' catchup.err)
all=$((${taken:-0} + ${missed:-0}))
if [ $all -ge $((nth * 49)) ] && [ $all -le $((nth * 51)) ]; then pass capture-catchup-count; else
	fail capture-catchup-count "${taken:-?} taken + ${missed:-?} missed, expected $nth x 50 ticks (+-1)"; fi
why=$(target_runs $TPID) && pass capture-catchup-target-runs || fail capture-catchup-target-runs "$why"
stop_target

# --- the red zone: epi_spin spins after "pop %rbp"; its caller's rbp is
# saved 8 bytes below sp.  Its stacks must reach the same root as the
# read thread's (whatever libc's names: the frames above read_thread).
# The target is stopped (SIGSTOP) first: its spinning thread then stays at
# that instruction and reaches a ptrace stop without waiting for a CPU,
# however loaded the machine.
for build in fp nofp; do
	if [ "$(uname -m)" != x86_64 ]; then skip capture-redzone-$build "x86_64 fixture"; continue; fi
	start_target ./target_$build -E || { fail capture-redzone-$build "target not ready"; continue; }
	kill -STOP $TPID
	timeout 60 "$SFCAPTURE" -q -p $TPID -d 1 --to lines -o epi.$build.lines
	kill -CONT $TPID
	stop_target
	root=$(awk -F '\t' '$1 ~ /:read$/ { sub(/;read_thread;.*/, "", $3); print $3; exit }' epi.$build.lines)
	set -- $(awk -F '\t' -v want="$root;epi_thread;epi_spin" '$1 ~ /:epi$/ { t++; if ($3 == want) ok++ }
		END { print ok + 0, t + 0 }' epi.$build.lines)
	if [ -n "$root" ] && [ "$2" -gt 0 ] && [ $(($1 * 100)) -ge $(($2 * 95)) ]; then pass capture-redzone-$build; else
		fail capture-redzone-$build "$1 of $2 epi stacks are $root;epi_thread;epi_spin: $(awk -F '\t' '$1 ~ /:epi$/ { print $3; exit }' epi.$build.lines)"; fi
done

# --- running threads sampled without a stop (a perf event armed for one
# sample; label stopless=perf), used while fewer threads run than there
# are CPUs.  target_nofp has one spinning thread: its samples, perf's or a
# stop's, are all the real chain (exactly 7 cpu_recurse), in state
# running.  Needs perf events (root here); elsewhere the count may be 0
# and that check is skipped.  --no-perf gives none.  target_nofp -E -C
# spins only in epi_spin, where its caller's rbp lies in the red zone,
# which perf does not copy: such a sample must be refused, never kept
# shorter, so every epi sample is the full chain, from a stop.
if [ "$(uname -m)" = x86_64 ]; then
	start_target ./target_nofp || fail capture-perf-start "target not ready"
	timeout 60 "$SFCAPTURE" -q -p $TPID -d 1 -o perf.json
	timeout 60 "$SFCAPTURE" -q -p $TPID -d 0.3 --no-perf -o noperf.json
	why=$(target_runs $TPID) && pass capture-perf-target-runs || fail capture-perf-target-runs "$why"
	stop_target
	start_target ./target_nofp -E -C || fail capture-perf-epi-start "target not ready"
	timeout 60 "$SFCAPTURE" -q -p $TPID -d 1 -o perf-epi.json
	stop_target
	PYTHONPATH=$TOP/tests python3 - perf.json noperf.json perf-epi.json > perf.check <<'PY'
import sys
from capjson import load
props, rows = load(sys.argv[1])
perf = [r for r in rows if r[2].get("stopless") == "perf"]
cpu = [r for r in rows if r[0] == "cpu"]
bad = [r[1] for r in cpu if not r[1].endswith(";cpu_thread" + ";cpu_recurse" * 7 + ";cpu_leaf")]
print("count", len(perf), props.get("capture.stopless_perf"), props.get("capture.perf_armed"))
print("running", "ok" if all(r[2].get("state") == "running" and r[0] == "cpu" for r in perf) else "a perf sample not of the running thread")
print("chains", "ok" if cpu and not bad else "%d of %d cpu samples wrong: %s" % (len(bad), len(cpu), bad[:2]))
nprops, nrows = load(sys.argv[2])
print("off", "ok" if nprops.get("capture.stopless_perf") == "0" and
      not any(r[2].get("stopless") == "perf" for r in nrows) else "perf samples with --no-perf")
eprops, erows = load(sys.argv[3])
epi = [r for r in erows if r[0] == "epi"]
ebad = [r for r in epi if r[2].get("stopless") == "perf" or not r[1].endswith(";start_thread;epi_thread;epi_spin")]
print("redzone", "ok" if epi and not ebad else "%d of %d epi samples wrong or from perf: %s" % (len(ebad), len(epi), [r[1] for r in ebad[:2]]))
PY
	# the perf path is, by design, unused while as many of the target's
	# threads are runnable as there are CPUs (a busy machine), and a
	# thread waiting for a CPU gives no sample in time: the count may be
	# 0 whatever the code does.  What holds under any load: the labels
	# agree with the property, and samples come only from armed events.
	set -- $(sed -n 's/^count //p' perf.check)
	if [ "${1:-x}" != "${2:-y}" ] || [ "${1:-0}" -gt "${3:-0}" ]; then
		fail capture-perf-count "${1:-?} samples labelled stopless=perf, property ${2:-?}, ${3:-?} events armed"
	elif [ "$1" -gt 0 ]; then pass capture-perf-count
	elif [ "$(id -u)" != 0 ]; then skip capture-perf-count "no perf samples: perf events refused to a non-root user here"
	else skip capture-perf-count "no perf samples: ${3:-0} events armed, none sampled in time (the machine is busy)"; fi
	for k in running chains off redzone; do
		v=$(sed -n "s/^$k //p" perf.check)
		[ "$v" = ok ] && pass capture-perf-$k || fail capture-perf-$k "${v:-no result}"
	done
else
	skip capture-perf "x86_64 fixture"
fi

# --- threads that live a few microseconds (many samples land inside
# clone or thread exit): no frame outside the real chain, no stale stack
# data read as frames, nothing [truncated].  One [unknown] is the truth:
# a leaf inside the vDSO below its __vdso_* entry is in a static helper
# the vDSO has no symbol for (on a VM with a paravirtual clock, the
# clock read that clock_gettime makes; the main thread loops on it).
start_target ./target_nofp -X -C || fail capture-churn-fast-start "target not ready"
timeout 60 "$SFCAPTURE" -q -p $TPID -d 2 --to lines -o fast.lines
rc=$?
nm target_nofp | awk '$2 ~ /^[tT]$/ { print $3 }' | sort -u > own.syms
# churn_scan FILE PID [skipmain]: "BAD KIDS MAIN MAIN-IN-CHURN_LOOP
# examples" for the churn target's samples in a --to lines FILE
churn_scan() {
	awk -F '\t' -v pid=$2 -v skipmain="${3-}" '
	FILENAME == "own.syms" { own[$1] = 1; next }
	{
		tid = $1; sub(/:.*/, "", tid)
		if (skipmain && tid == pid) next
		st = $3
		if (st ~ /;__vdso_[a-z_]+;\[unknown\] \(\[vdso: [0-9]+\]\+0x[0-9a-f]+\)$/)
			sub(/;\[unknown\] \(\[vdso: [0-9]+\]\+0x[0-9a-f]+\)$/, "", st)
		if (st ~ /\[truncated\]|\[unknown\]/) { bad++; if (bad <= 3) ex = ex " | " $0; next }
		if (tid == pid) { main++; if (st ~ /;main;main_wait;churn_loop(;|$)/) mok++; next }
		if ($1 ~ /:(sleep|read|cond|epoll)$/) next
		kids++
		n = split(st, f, ";")
		for (i = 1; i <= n; i++)
			if ((f[i] in own) && f[i] != "churn_fast" && f[i] != "churn_spin") { bad++; if (bad <= 3) ex = ex " | " $0; next }
	}
	END { printf "%d %d %d %d%s\n", bad, kids, main, mok, ex }' own.syms "$1"
}
res=$(churn_scan fast.lines $TPID)
set -- $res
# Whether the sampler meets a thread of a few microseconds alive depends
# on how fast it is: the plain build samples one in most ticks, the
# sanitizer build (several times slower) almost never.  With none there
# is nothing to check: skipped, not passed, and never failed for it.
if [ $rc -eq 0 ] && [ "$1" -eq 0 ] && [ "$2" -eq 0 ] && [ "$3" -gt 0 ] && [ $(($4 * 100)) -ge $(($3 * 95)) ]; then
	skip capture-churn-fast-no-stale "no sample of a short-lived thread was taken (the sampler met none alive): nothing to check"
elif [ $rc -eq 0 ] && [ "$1" -eq 0 ] && [ "$2" -gt 0 ] && [ "$3" -gt 0 ] && [ $(($4 * 100)) -ge $(($3 * 95)) ]; then
	pass capture-churn-fast-no-stale; else
	fail capture-churn-fast-no-stale "status $rc, $1 bad of $2 short-lived thread samples, $4 of $3 main samples in churn_loop: $*"; fi
why=$(target_runs $TPID) && pass capture-churn-fast-target-runs || fail capture-churn-fast-target-runs "$why"

# --- the same churn just after an exec, every sample a real stop: the
# first modules of the new image are read while the dynamic linker still
# looks for libc (a long LD_LIBRARY_PATH of missing directories keeps it
# looking for a while), so the first threads start in a libc we have not
# reported.  A pc in no module must make the engine read the map again
# before unwinding: guessed from the clone child's registers, the caller
# was the new thread's dtv, a heap address ("[unknown] (0x5555...)").
# The main thread is left out: before main it runs in the dynamic linker,
# whose _start ends in [truncated] (no CFI marks it outermost); and so is
# the shell's sleep (--no-children: its frames are rightly [unknown]).
norand=; setarch "$(uname -m)" -R true 2>/dev/null && norand="setarch $(uname -m) -R"
SFT_LLP=$(awk 'BEGIN { for (i = 1; i <= 6000; i++) printf "%s/nx/%d", (i > 1 ? ":" : ""), i }') \
timeout 120 $norand "$SFCAPTURE" -q --no-reuse --no-children -d 2 --to lines -o fast-exec.lines -- \
	sh -c 'sleep 0.3; LD_LIBRARY_PATH=$SFT_LLP; export LD_LIBRARY_PATH; exec ./target_nofp -X -C -e 60' > /dev/null
rc=$?
# the target's id: its main thread's, the one that runs main_wait
xpid=$(awk -F '\t' '$3 ~ /;main;main_wait;/ { sub(/:.*/, "", $1); print $1; exit }' fast-exec.lines)
res=$(churn_scan fast-exec.lines "$xpid" skipmain)
set -- ${res:-1 0 0 0 no lines read}
if [ $rc -eq 0 ] && [ -n "$xpid" ] && [ "$1" -eq 0 ] && [ "$2" -eq 0 ]; then
	skip capture-exec-churn-no-stale "no sample of a thread other than main was taken after the exec: nothing to check"
elif [ $rc -eq 0 ] && [ -n "$xpid" ] && [ "$1" -eq 0 ] && [ "$2" -gt 0 ]; then
	pass capture-exec-churn-no-stale; else
	fail capture-exec-churn-no-stale "status $rc, $1 bad of $2 thread samples after an exec: $*"; fi
stop_target

# --- bad input: a zombie process (one line, non-zero exit): "sleep 0"
# ends and its parent, now "sleep 20", never reaps it
sh -c 'sleep 0 & echo $! > zombie.pid; exec sleep 20' > /dev/null 2>&1 &
zparent=$!
sleep 0.3
zp=$(cat zombie.pid 2>/dev/null)
if [ -n "$zp" ] && grep -q '^State:.*Z' /proc/$zp/status 2>/dev/null; then
	expect_error capture-zombie 1 "^sfcapture: process $zp has exited \\(zombie\\)$" timeout 20 "$SFCAPTURE" -p $zp -d 1 -o z.json
	[ -e z.json ] && fail capture-zombie-no-output "z.json written" || pass capture-zombie-no-output
else
	skip capture-zombie "could not make a zombie process"
fi
kill $zparent 2>/dev/null
wait $zparent 2>/dev/null || :
