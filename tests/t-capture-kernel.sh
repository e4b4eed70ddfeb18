# sfcapture's kernel side of blocked samples (sampler-core/kernel.c): the
# system call as label syscall=NAME, the fd and what it is, the futex
# address, the wait channel and, as root, the kernel stack above the user
# frames as NAME_[k] (stackcollapse-perf.pl --kernel).  Expected values
# come from /proc as the test reads it (readlink of the target's fd) and
# from the kernel's own function names for these waits; without root the
# kernel stack is absent and one warning says why.
. "$TOP/tests/lib.sh"
. "$TOP/tests/capture-lib.sh"
capture_setup capture-kernel

check_kernel() { # JSON PID: per blocked thread, its labels and frames
	python3 - "$1" "$2" <<'PY'
import os, sys
sys.path.insert(0, os.path.join(os.environ["TOP"], "tests"))
import capjson
props, rows = capjson.load(sys.argv[1])
pid = sys.argv[2]
# thread -> (syscall, kernel frames that must appear in some sample,
# label checks)
want = {
    "read": ("read", {"pipe_read_[k]", "anon_pipe_read_[k]"}),
    "sleep": ("clock_nanosleep", {"hrtimer_nanosleep_[k]",
                                  "do_nanosleep_[k]"}),
    "cond": ("futex", {"futex_wait_[k]", "futex_wait_queue_[k]",
                       "futex_wait_queue_me_[k]"}),
}
bad = []
for th, (sc, kf) in want.items():
    # the thread never leaves its wait: every sample found asleep names
    # the call (a stop's detach wakes it for a moment: a later tick may
    # find it running back into the call, with no kernel side to read)
    mine = [r for r in rows if r[0] == th and r[2]["state"] == "sleeping"]
    if not mine:
        bad.append("%s: no samples" % th)
        continue
    lab = [r for r in mine if r[2].get("syscall") == sc]
    if len(lab) != len(mine):
        other = [str(sorted(r[2].items())) for r in mine if r not in lab]
        bad.append("%s: %d of %d samples syscall=%s (others %s)" %
                   (th, len(lab), len(mine), sc, sorted(set(map(str, other)))))
    frames = [r[1].split(";") for r in lab]
    # kernel frames above every user frame, and one of the wait's
    if not any(kf & set(f) for f in frames):
        bad.append("%s: no kernel frame of %s in %s" %
                   (th, sorted(kf), frames[:1]))
    for f in frames:
        k = [i for i, x in enumerate(f) if x.endswith("_[k]")]
        if k and k != list(range(k[0], len(f))):
            bad.append("%s: a user frame above a kernel frame: %s" % (th, f))
            break
    if th == "read":
        for r in lab:
            fd = r[2].get("fd")
            tgt = r[2].get("fd.target")
            real = os.readlink("/proc/%s/fd/%s" % (pid, fd)) if fd else None
            if not real or not real.startswith("pipe:[") or tgt != real:
                bad.append("read: fd %s described %r, /proc says %r" %
                           (fd, tgt, real))
                break
    if th == "cond":
        # the futex word of the condition variable: an address in the
        # target's data (a number, not a file descriptor)
        if any(not r[2].get("futex", "").startswith("0x") or "fd" in r[2]
               for r in lab):
            bad.append("cond: futex address missing: %s" % lab[0][2])
print("\n".join(bad))
PY
}

if [ "$(id -u)" -ne 0 ]; then
	skip capture-kernel-root "needs root for kernel stacks"
else
	start_target ./target_fp || fail capture-kernel-start "target not ready"
	timeout 60 "$SFCAPTURE" -q -p $TPID -d 0.5 -o k.json 2>k.err
	out=$(check_kernel k.json $TPID)
	stop_target
	[ -z "$out" ] && pass capture-kernel-root || fail capture-kernel-root "$out"
	# the labels are tags in every report
	# (only the cond thread waits in futex)
	"$SFCONV" --tag syscall=futex --to collapsed -o - k.json >fx.txt 2>fx.err
	if [ -s fx.txt ] && ! grep -v ';cond_blocker;' fx.txt | grep -q . &&
	   grep -q ';futex_wait[a-z_]*_\[k\]' fx.txt; then
		pass capture-kernel-tag
	else
		fail capture-kernel-tag "$(head -n 3 fx.txt fx.err)"
	fi
fi

# a thread blocked in recv on a TCP socket: the socket and its two ends,
# as the program's own getsockname/getpeername give them
if have python3; then
	start_target python3 -c '
import socket
l = socket.socket(); l.bind(("127.0.0.1", 0)); l.listen()
s = socket.socket(); s.connect(l.getsockname()); c, _ = l.accept()
print("%s:%d->%s:%d" % (s.getsockname() + s.getpeername()))
print("READY", flush=True)
s.recv(1)' || fail capture-kernel-socket-start "target not ready"
	want=$(head -n 1 "$TOUT")
	timeout 60 "$SFCAPTURE" -q -p $TPID -d 0.3 -o sock.json 2>sock.err
	stop_target
	got=$(python3 - sock.json <<'PY'
import os, sys
sys.path.insert(0, os.path.join(os.environ["TOP"], "tests"))
import capjson
props, rows = capjson.load(sys.argv[1])
print(sorted({"%s %s" % (r[2].get("syscall"), r[2].get("fd.target", ""))
              for r in rows})[0])
PY
)
	case $got in
	"recvfrom socket:["*"] tcp $want") pass capture-kernel-socket ;;
	*) fail capture-kernel-socket "got '$got', want recvfrom on tcp $want" ;;
	esac
else
	skip capture-kernel-socket "no python3"
fi

# without root: no kernel stack, one warning that says why; the labels
# are still there (/proc/PID/task/TID/syscall and wchan need only ptrace)
if [ "$(id -u)" -eq 0 ] && have setpriv; then
	setpriv --reuid=65534 --regid=65534 --clear-groups sleep 60 &
	sp=$!
	ALL_TARGETS="$ALL_TARGETS $sp"
	# wait until it is the sleep (not setpriv) and asleep
	i=0
	while [ "$(readlink /proc/$sp/exe)" != "$(readlink -f "$(command -v sleep)")" ] ||
	      ! grep -q '^State:.S' /proc/$sp/status; do
		i=$((i + 1)); [ $i -gt 400 ] && break; sleep 0.025
	done
	setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$SFCAPTURE" -p $sp -d 0.3 --to json -o - >nr.json 2>nr.err
	kill $sp 2>/dev/null; wait $sp 2>/dev/null
	n=$(grep -c 'kernel stacks are not captured.*needs root' nr.err)
	res=$(python3 - nr.json <<'PY'
import os, sys
sys.path.insert(0, os.path.join(os.environ["TOP"], "tests"))
import capjson
props, rows = capjson.load(sys.argv[1])
k = [r for r in rows if "_[k]" in r[1]]
s = [r for r in rows if r[2].get("syscall") == "clock_nanosleep"]
print("ok" if rows and not k and len(s) == len(rows) else
      "%d rows, %d with kernel frames, %d syscall=clock_nanosleep" %
      (len(rows), len(k), len(s)))
PY
)
	if [ "$n" = 1 ] && [ "$res" = ok ]; then
		pass capture-kernel-nonroot
	else
		fail capture-kernel-nonroot "warnings $n, $res: $(head -n 3 nr.err)"
	fi
else
	skip capture-kernel-nonroot "needs root to run as another user, and setpriv"
fi
