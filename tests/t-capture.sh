# sfcapture on a live target: call chains on builds with and without frame
# pointers, sample counts, thread names and states, filters, output
# formats, launching a command, and clear errors.  Expected chains come
# from tests/fixtures/capture/target.c (its own noinline functions only;
# libc-internal names are never required).
. "$TOP/tests/lib.sh"
. "$TOP/tests/capture-lib.sh"
capture_setup capture

for build in fp nofp; do
	start_target ./target_$build || { fail capture-$build-start "target not ready"; continue; }
	# 100 Hz x 2 s x 6 threads (main, cpu, sleep, read, cond, epoll)
	timeout 60 "$SFCAPTURE" -p $TPID -d 2 --to lines -o out.$build.lines 2> out.$build.err
	rc=$?
	[ $rc -eq 0 ] && pass capture-$build-exit || fail capture-$build-exit "exit status $rc"
	expect_chain capture-$build-cpu out.$build.lines cpu \
		"cpu_thread;cpu_recurse;cpu_recurse;cpu_recurse;cpu_recurse;cpu_recurse;cpu_recurse;cpu_recurse;cpu_leaf"
	expect_chain capture-$build-sleep out.$build.lines sleep "sleep_thread;sleep_blocker"
	expect_chain capture-$build-read out.$build.lines read "read_thread;read_blocker"
	expect_chain capture-$build-cond out.$build.lines cond "cond_thread;cond_blocker"
	expect_chain capture-$build-epoll out.$build.lines epoll "epoll_thread;epoll_blocker"
	expect_chain capture-$build-main out.$build.lines main "main;main_wait"
	# the spinning thread's leaf is cpu_leaf, right under exactly 7
	# cpu_recurse (callers of a frameless leaf must not be lost)
	n7=$(awk -F '\t' '$1 ~ /:cpu$/ { n = split($3, f, ";"); c = 0
		for (i = 1; i <= n; i++) c += f[i] == "cpu_recurse"
		if (f[n] == "cpu_leaf" && c == 7) ok++; t++ }
		END { print (t && ok * 100 >= 95 * t) ? "yes" : ok "/" t }' out.$build.lines)
	[ "$n7" = yes ] && pass capture-$build-cpu-depth || fail capture-$build-cpu-depth "$n7 cpu stacks end cpu_recurse x7;cpu_leaf"
	# samples taken plus samples counted as missed (ticks that came too
	# late on a loaded machine and threads that did not stop in time)
	# make threads x ticks: the schedule fixes the ticks, the load only
	# moves samples from taken to missed, so nothing here depends on it
	n=$(wc -l < out.$build.lines)
	missed=$(sed -n 's/.*, \([0-9]*\) missed.*/\1/p' out.$build.err)
	taken=$(sed -n 's/.*: \([0-9]*\) samples taken.*/\1/p' out.$build.err)
	all=$((${taken:-0} + ${missed:-0}))
	if [ "${taken:-x}" = "$n" ] && [ "$n" -gt 0 ] && [ "$all" -ge $((6 * 199)) ] && [ "$all" -le $((6 * 201)) ]; then
		pass capture-$build-count; else
		fail capture-$build-count "$n samples written ($taken taken) + ${missed:-?} missed, expected 6 threads x 200 ticks (+-1)"; fi
	why=$(target_runs $TPID) && pass capture-$build-target-runs || fail capture-$build-target-runs "$why"
	stop_target
done

# thread names, states and times in the native JSON
start_target ./target_nofp || fail capture-json-start "target not ready"
timeout 60 "$SFCAPTURE" -q -p $TPID -d 0.5 -o cap.json
python3 - cap.json "$TPID" > json.check <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
pid = int(sys.argv[2])
names = {t["name"] for t in d["threads"]}
print("names", "ok" if {"main", "cpu", "sleep", "read", "cond", "epoll"} <= names else sorted(names))
print("pids", "ok" if all(t["pid"] == pid for t in d["threads"]) else "bad")
sets = [dict(s) for s in d["label_sets"]]
def state(smp):
    i = smp[3]
    return sets[i - 1].get("state") if i else None
by = {}
for s in d["samples"]:
    by.setdefault(d["threads"][s[1]]["name"], []).append(state(s))
cpu = by.get("cpu", [])
blocked = by.get("read", []) + by.get("cond", []) + by.get("sleep", [])
print("cpu-running", "ok" if cpu and cpu.count("running") >= 0.9 * len(cpu) else cpu[:5])
print("blocked-sleeping", "ok" if blocked and blocked.count("sleeping") >= 0.95 * len(blocked) else blocked[:5])
times = [s[2] for s in d["samples"]]
print("times", "ok" if times and all(t is not None and t >= 0 for t in times) and times == sorted(times) else "bad")
PY
for k in names pids cpu-running blocked-sleeping times; do
	v=$(sed -n "s/^$k //p" json.check)
	[ "$v" = ok ] && pass capture-json-$k || fail capture-json-$k "${v:-no result}"
done

# --threads keeps only the listed threads; --on-cpu only running ones
cpu_tid=$(grep -l '^cpu$' /proc/$TPID/task/*/comm | head -n 1 | sed 's|.*/task/\([0-9]*\)/comm|\1|')
read_tid=$(grep -l '^read$' /proc/$TPID/task/*/comm | head -n 1 | sed 's|.*/task/\([0-9]*\)/comm|\1|')
timeout 60 "$SFCAPTURE" -q -p $TPID -d 0.5 --threads "$cpu_tid,$read_tid" --to lines -o thr.lines
others=$(cut -f1 thr.lines | sed 's/:.*//' | sort -u | grep -v -x -e "$cpu_tid" -e "$read_tid" | wc -l)
both=$(cut -f1 thr.lines | sed 's/:.*//' | sort -u | wc -l)
[ "$others" -eq 0 ] && [ "$both" -eq 2 ] && pass capture-threads-filter || fail capture-threads-filter "$both threads, $others not asked for"

# --on-cpu on a target no earlier capture touched: a blocked thread that
# a detach has just woken is runnable (state R) until it blocks again,
# which on a loaded machine can take a few ticks
stop_target
start_target ./target_nofp || fail capture-on-cpu-start "target not ready"
timeout 60 "$SFCAPTURE" -q -p $TPID -d 0.5 --on-cpu --to lines -o oncpu.lines
blocked=$(cut -f1 oncpu.lines | grep -c -E ':(read|cond|sleep)$')
cpu=$(cut -f1 oncpu.lines | grep -c ':cpu$')
[ "$blocked" -eq 0 ] && [ "$cpu" -gt 0 ] && pass capture-on-cpu || fail capture-on-cpu "$cpu cpu samples, $blocked of blocked threads"

# output through any writer: collapsed to stdout, and --all-stop
timeout 60 "$SFCAPTURE" -q -p $TPID -d 0.3 --all-stop --to collapsed -o - > all.folded
grep -q 'read_thread;read_blocker' all.folded && grep -q 'cpu_recurse;cpu_leaf ' all.folded &&
	pass capture-all-stop-collapsed || fail capture-all-stop-collapsed "$(head -n 3 all.folded)"
# frame-pointer unwinding works on the frame-pointer build's own frames
why=$(target_runs $TPID) && pass capture-target-runs-after-all-stop || fail capture-target-runs-after-all-stop "$why"
stop_target

start_target ./target_fp || fail capture-fp-start "target not ready"
timeout 60 "$SFCAPTURE" -q -p $TPID -d 0.5 --unwind=fp --to lines -o fpw.lines
expect_chain capture-unwind-fp-cpu fpw.lines cpu "cpu_thread;cpu_recurse;cpu_recurse;cpu_leaf"
stop_target

# the default output name, and a command started by sfcapture that exits
# by itself: the capture ends with the samples so far
timeout 60 "$SFCAPTURE" -d 20 -- ./target_nofp -e 1 > launch.out 2> launch.err
rc=$?
f=$(ls sfcapture-*.json.gz 2>/dev/null | head -n 1)
if [ $rc -eq 0 ] && [ -n "$f" ] && $SFCONV -q "$f" --to json | grep -q '"sftools-profile"' &&
	grep -q 'exited' launch.err && grep -q 'READY' launch.out; then
	pass capture-launch-exit; else fail capture-launch-exit "status $rc, file '$f': $(tail -n 3 launch.err)"; fi
# (the threads start during the capture: a tick that finds one created
# but not yet run is paid from its stop at __clone3, reused=late)
timeout 60 "$SFCAPTURE" -q -d 1 --to lines -o launch.lines -- ./target_nofp > /dev/null
expect_chain capture-launch-chains launch.lines cpu "cpu_thread;cpu_recurse;cpu_leaf" unstarted

# errors: one clear line each
expect_error capture-no-such-process 1 '^sfcapture: no such process: 999999999$' "$SFCAPTURE" -p 999999999 -d 1 -o x.json
expect_error capture-no-target 2 'give -p PID or -- CMD' "$SFCAPTURE" -d 1
expect_error capture-bad-format 2 "unknown output format 'nope'" "$SFCAPTURE" -p 1 --to nope
expect_error capture-bad-command 1 "cannot run 'no-such-cmd-xyz'" "$SFCAPTURE" -o x.json -- no-such-cmd-xyz
expect_error capture-bad-unwind 2 "'--unwind' needs" "$SFCAPTURE" -p 1 --unwind=magic
start_target ./target_nofp || fail capture-traced-start "target not ready"
./tracer $TPID > tracer.out 2>&1 & tr=$!
i=0; while ! grep -q SEIZED tracer.out && [ $i -lt 200 ]; do sleep 0.025; i=$((i+1)); done
expect_error capture-already-traced 1 "^sfcapture: cannot trace process [0-9]*: it is already traced by process $tr \\(tracer\\)" timeout 20 "$SFCAPTURE" -p $TPID -d 1 -o x.json
kill -9 $tr; wait $tr 2>/dev/null
[ -e x.json ] && fail capture-error-no-output "x.json written" || pass capture-error-no-output
stop_target
