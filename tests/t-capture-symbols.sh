# sfcapture symbolization: a stripped binary gives "[unknown]
# (module+0xOFFSET)" at the right offsets, C++ names are demangled (or
# not, with --no-demangle), JIT code is named from /tmp/perf-PID.map, and
# --lines adds file and line.  Offsets and lines are checked against nm and
# the source, not against sfcapture's own output.
. "$TOP/tests/lib.sh"
. "$TOP/tests/capture-lib.sh"
capture_setup capture-symbols

# stripped: the target's own functions are not in .dynsym, so they show as
# module+offset; the offset of read_thread's call site must fall inside
# read_blocker's caller read_thread according to the unstripped symbols
if have strip && have nm; then
	strip --strip-all -o target_stripped target_nofp
	start_target ./target_stripped || fail capture-stripped-start "target not ready"
	timeout 60 "$SFCAPTURE" -q -p $TPID -d 0.5 --to lines -o stripped.lines
	stop_target
	# read thread: ...;start_thread;[unknown] (target_stripped+0xA);[unknown] (target_stripped+0xB);read
	line=$(awk -F '\t' '$1 ~ /:read$/ { print $3; exit }' stripped.lines)
	offs=$(echo "$line" | tr ';' '\n' | sed -n 's/^\[unknown\] (target_stripped+0x\([0-9a-f]*\))$/\1/p')
	set -- $offs
	if [ $# -eq 2 ]; then
		# root first: read_thread's call site, then read_blocker's
		in_sym() { # OFFSET(hex) NAME: inside NAME per nm -S
			set -- $1 $(nm -S target_nofp | awk -v n="$2" '$4 == n { print $1, $2; exit }')
			[ $# -eq 3 ] && [ $((0x$1)) -ge $((0x$2)) ] && [ $((0x$1)) -lt $((0x$2 + 0x$3)) ]
		}
		if in_sym $1 read_thread && in_sym $2 read_blocker; then pass capture-stripped-offsets; else
			fail capture-stripped-offsets "offsets $1 $2 not in read_thread, read_blocker: $line"; fi
	else
		fail capture-stripped-offsets "expected 2 unknown target frames: $line"
	fi
else
	skip capture-stripped-offsets "strip or nm missing"
fi

# C++ names
if have c++; then
	c++ -O2 -g -o cxx_target "$CAPFIX/cxx_target.cc"
	start_target ./cxx_target || fail capture-cxx-start "target not ready"
	timeout 60 "$SFCAPTURE" -q -p $TPID -d 0.3 --to lines -o cxx.lines
	timeout 60 "$SFCAPTURE" -q -p $TPID -d 0.3 --no-demangle --to lines -o cxx-raw.lines
	stop_target
	grep -q ';main;sftest::Spinner::spin(int)$' cxx.lines && pass capture-cxx-demangle ||
		fail capture-cxx-demangle "$(head -n 1 cxx.lines)"
	grep -q ';main;_ZN6sftest7Spinner4spinEi$' cxx-raw.lines && pass capture-cxx-no-demangle ||
		fail capture-cxx-no-demangle "$(head -n 1 cxx-raw.lines)"
else
	skip capture-cxx-demangle "no C++ compiler"
fi

# JIT code named from /tmp/perf-PID.map, callers found past it
if [ "$(uname -m)" = x86_64 ]; then
	start_target ./target_nofp -j || fail capture-jit-start "target not ready"
	timeout 60 "$SFCAPTURE" -q -p $TPID -d 0.5 --to lines -o jit.lines
	rm -f /tmp/perf-$TPID.map
	stop_target
	expect_chain capture-jit-perf-map jit.lines jit "jit_thread;jit_spin"
else
	skip capture-jit-perf-map "the JIT fixture is x86_64 code"
fi

# an always-inline function is a frame of its own, marked inline, above
# the function it was inlined into (the chain is the source's:
# main -> spin_outer -> mix_inlined, which the compiler must inline)
cc -O2 -g -o inline_target "$CAPFIX/inline_target.c" || fail capture-inline "cannot build"
start_target ./inline_target || fail capture-inline-start "target not ready"
timeout 60 "$SFCAPTURE" -q -p $TPID -d 0.3 -o inl.json
stop_target
got=$(PYTHONPATH=$TOP/tests python3 - inl.json <<'PY'
import sys
from capjson import frames
rows = [c for _, c in frames(sys.argv[1])]
ok = [c for c in rows if len(c) >= 3 and
      [f["name"] for f in c[-3:]] == ["main", "spin_outer", "mix_inlined"] and
      c[-1].get("inline") and c[-1].get("kind") == "inline" and
      not c[-2].get("inline")]
print("%d %d" % (len(ok), len(rows)))
PY
)
set -- $got
if [ "${2:-0}" -gt 0 ] && [ $(($1 * 100)) -ge $(($2 * 95)) ]; then pass capture-inline; else
	fail capture-inline "main;spin_outer;mix_inlined (inline) in ${1:-?} of ${2:-?} samples"; fi

# --lines: read_blocker's frame is the read() call in target.c
start_target ./target_nofp || fail capture-lines-start "target not ready"
timeout 60 "$SFCAPTURE" -q -p $TPID -d 0.2 --lines -o lines.json
stop_target
want=$(grep -n 'if (read(pipefd\[0\], &c, 1) == 0)' "$CAPFIX/target.c" | cut -d: -f1)
got=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(" ".join(sorted({"%s:%s" % (f.get("file", "").split("/")[-1], f.get("line")) for f in d["frames"] if f["name"] == "read_blocker"})))' lines.json)
[ "$got" = "target.c:$want" ] && pass capture-source-lines || fail capture-source-lines "read_blocker at '$got', expected target.c:$want"

# a target that execs another program: modules are reloaded and the new
# program's stacks are right
# (without address randomization both images load at the same addresses,
# so stale modules would name the new program's frames wrongly).  The
# capture ends the program (-d, then SIGTERM): a program that ended on
# its own after a second got no samples at all on a loaded machine, where
# reloading the modules after the exec takes about that long.
norand=; setarch "$(uname -m)" -R true 2>/dev/null && norand="setarch $(uname -m) -R"
timeout 120 $norand "$SFCAPTURE" -q -d 4 --to lines -o exec.lines -- sh -c 'sleep 0.3; exec ./target_nofp -e 60' > /dev/null
rc=$?
[ $rc -eq 0 ] && pass capture-exec-status || fail capture-exec-status "status $rc"
# (its threads start during the capture: see "unstarted" in capture-lib.sh)
expect_chain capture-exec-cpu exec.lines cpu "cpu_thread;cpu_recurse;cpu_recurse;cpu_leaf" unstarted
expect_chain capture-exec-read exec.lines read "read_thread;read_blocker" unstarted

# Every sample a real stop (--no-reuse), just after the exec: the dynamic
# linker is still mapping libc when the first threads are sampled, and a
# pc in a library not reported yet must make the engine read the memory
# map again before unwinding, not end the stack in "[unknown] (0x0)".
timeout 120 $norand "$SFCAPTURE" -q --no-reuse -d 4 --to lines -o exec-nr.lines -- sh -c 'sleep 0.3; exec ./target_nofp -e 60' > /dev/null
bad=$(awk -F '\t' '{n=$1; sub(/^[0-9]*:/,"",n)} n=="read" && $3 ~ /\[(truncated|unknown)/' exec-nr.lines | sort | uniq -c | sort -rn | head -n 3)
n=$(awk -F '\t' '{n=$1; sub(/^[0-9]*:/,"",n)} n=="read"' exec-nr.lines | wc -l)
[ "$n" -gt 0 ] && [ -z "$bad" ] && pass capture-exec-read-real-stops ||
	fail capture-exec-read-real-stops "$n samples of thread read; not fully unwound: $bad"

# The symbol index (sampler-core/symidx.c) names every address as
# libdwfl's own search does: a build followed into its compilers (cc1
# runs once per file, each run a process of its own mapping the same
# files, so one index serves several), every address named both ways
# (--verify-symbols counts the answers that differ).
for i in 1 2 3; do cp "$CAPFIX/target.c" sym$i.c; done
timeout 300 "$SFCAPTURE" -q --verify-symbols -o verify-sym.json -- sh -c \
	'for f in sym1 sym2 sym3; do cc -O2 -g -c $f.c -o $f.o || exit 1; done'
rc=$?
set -- $(python3 - verify-sym.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
p = dict(d["meta"].get("properties", []))
# processes that sampled code of cc1 (the frames keep their module)
cc1 = sum(1 for f in d["frames"] if f.get("module", "").endswith("/cc1"))
print(p.get("capture.symbols_verified", "-"), p.get("capture.symbols_mismatch", "-"),
      len(p.get("capture.pids", "").split(",")), cc1)
PY
)
if [ $rc -eq 0 ] && [ $# -eq 4 ] && [ "$1" -gt 0 ] && [ "$2" -eq 0 ] && [ "$3" -ge 4 ]; then
	pass capture-symidx-as-libdwfl
	echo "# $1 addresses named, in $3 processes; $4 frames of cc1"
else
	fail capture-symidx-as-libdwfl "status $rc; verified, differing, processes, cc1 frames: $*"
fi
