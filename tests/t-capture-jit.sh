# sfcapture names JIT code from the target's perf map (sampler-core/
# jitmap.c), ahead of a module whose range merely spans the JIT heap, and
# believes the map only when it is a regular file owned by the target's
# user or root (not a symlink, not a FIFO, bounded); control bytes in a
# name are shown as \xNN.
. "$TOP/tests/lib.sh"
. "$TOP/tests/capture-lib.sh"
capture_setup capture-jit

# node --perf-basic-prof: JS functions named in >= 80% of the main
# thread's samples (node's own module spans its JIT heap: it maps part of
# its text far above the rest)
if have node; then
	cat >fib.js <<'JS'
function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
function outer() {
	let s = 0, t = Date.now();
	while (Date.now() - t < 300) s += fib(20);
	console.log("READY");
	for (;;) s += fib(25);
}
outer();
JS
	start_target node --perf-basic-prof fib.js || fail capture-jit-node-start "target not ready"
	timeout 60 "$SFCAPTURE" -q -p $TPID -d 1 -o node.json 2>node.err
	res=$(python3 - node.json $TPID <<'PY'
import json, os, sys
sys.path.insert(0, os.path.join(os.environ["TOP"], "tests"))
import capjson
d = json.load(open(sys.argv[1]))
props, rows = capjson.load(sys.argv[1])
main = [i for i, t in enumerate(d["threads"]) if t["tid"] == int(sys.argv[2])]
ms = [r for r, s in zip(rows, d["samples"]) if main and s[1] == main[0]]
# node names JS code "JS:*fib /path/fib.js:1:13" (optimized) or "JS:~fib"
named = [r for r in ms if any(f.startswith("JS:") and "fib" in f
                              for f in r[1].split(";"))]
print("%d %d" % (len(named), len(ms)))
PY
)
	rm -f /tmp/perf-$TPID.map
	stop_target
	set -- $res
	if [ "${2:-0}" -gt 0 ] && [ $(($1 * 100)) -ge $(($2 * 80)) ]; then
		pass capture-jit-node
	else
		fail capture-jit-node "JS frames in ${1:-?} of ${2:-?} main-thread samples: $(head -n 2 node.err)"
	fi
else
	skip capture-jit-node "node not installed"
fi

[ "$(uname -m)" = x86_64 ] || { skip capture-jit-planted "the JIT fixture is x86_64 code"; exit 0; }
[ "$(id -u)" -eq 0 ] || { skip capture-jit-planted "needs root to plant maps owned by another user"; exit 0; }

# plant MAPKIND: replace the target's map, capture, check the jit thread's
# leaf and the warnings
plant() { # NAME MAP-MAKER WANT-LEAF-PATTERN WANT-WARNING
	start_target ./target_nofp -j || { fail "$1" "target not ready"; return; }
	map=/tmp/perf-$TPID.map
	i=0
	while ! [ -s $map ] && [ $i -lt 400 ]; do i=$((i + 1)); sleep 0.025; done
	addr=$(cut -d' ' -f1 $map)
	rm -f $map
	$2 $map $addr
	# the spinning jit thread may get no sample at all on a loaded
	# machine (its stops come late and are missed): try again then
	for try in 1 2 3; do
		timeout 60 "$SFCAPTURE" -p $TPID -d 0.3 --to collapsed -o "$1.txt" 2>"$1.err"
		rc=$?
		leaf=$(awk '$1 ~ /^jit;|;jit_thread;/ { sub(/ [0-9]+$/, ""); n = split($0, f, ";"); print f[n]; exit }' "$1.txt")
		[ -n "$leaf" ] && break
	done
	rm -f $map
	stop_target
	nw=$(grep -c "$4" "$1.err")
	if [ $rc -ne 124 ] && [ $rc -ne 2 ] && printf '%s\n' "$leaf" | grep -q "$3" &&
	   { [ -z "$4" ] || [ "$nw" = 1 ]; }; then
		pass "$1"
	else
		fail "$1" "rc $rc, leaf '$leaf', $nw warnings '$4': $(grep -v 'samples taken\|stopped per\|wrote' "$1.err" | head -n 2)"
	fi
}
owned_nobody() { echo "$2 2 planted_name" >$1; chown 65534 $1; }
plant capture-jit-other-owner owned_nobody '^\[unknown\] (0x' "perf-[0-9]*.map' ignored (owned by uid 65534"
fifo() { mkfifo $1; }
plant capture-jit-fifo fifo '^\[unknown\] (0x' "ignored (not a regular file)"
to_zero() { ln -s /dev/zero $1; }
plant capture-jit-symlink to_zero '^\[unknown\] (0x' "ignored (a symbolic link)"
# control bytes: an OSC title sequence in a name never reaches a
# terminal raw (collapsed stacks write ";" in a name as ":")
evil() { printf '%s 2 evil\033]0;owned\007name\n' $2 >$1; }
plant capture-jit-control-bytes evil '^evil\\x1b\]0[;:]owned\\x07name$' ""
if grep -q "$(printf '\033')" capture-jit-control-bytes.txt; then
	fail capture-jit-control-bytes-raw "a raw ESC byte in the output"
else
	pass capture-jit-control-bytes-raw
fi

# a jitdump (./jit-PID.dump, mapped by the runtime as perf's spec asks)
# names JIT code too; one owned by another user is ignored with a
# warning.  The code page sits right above the mapped dump, and libdwfl
# takes it for part of the dump's "module" (an anonymous mapping after a
# file's is its .bss): the unwinder must still treat it as JIT code and
# find the caller at [sp], jit_thread, not end the stack [truncated].
jitdump() { # NAME CHOWN WANT-LEAF WANT-WARNING
	start_target ./target_nofp -J || { fail "$1" "target not ready"; return; }
	[ -n "$2" ] && chown "$2" jit-$TPID.dump
	for try in 1 2 3; do
		timeout 60 "$SFCAPTURE" -p $TPID -d 0.3 --to collapsed -o "$1.txt" 2>"$1.err"
		line=$(awk '/jit_spin|\(0x/ && !/;cpu_|;main;/ { sub(/ [0-9]+$/, ""); print; exit }' "$1.txt")
		[ -n "$line" ] && break
	done
	rm -f jit-$TPID.dump
	stop_target
	leaf=${line##*;}
	caller=$(printf '%s\n' "$line" | awk -F';' '{ print $(NF - 1) }')
	nw=$(grep -c "$4" "$1.err")
	if printf '%s\n' "$leaf" | grep -q "$3" && [ "$caller" = jit_thread ] &&
	   { [ -z "$4" ] || [ "$nw" = 1 ]; }; then
		pass "$1"
	else
		fail "$1" "stack '$line', $nw warnings '$4'"
	fi
}
jitdump capture-jitdump "" '^jit_spin_dump$' ""
jitdump capture-jitdump-other-owner 65534 '^\[unknown\]' "jit-[0-9]*.dump' ignored (owned by uid 65534"
