# perf script reader: hand-written input with hand-derived expectations
# (stackcollapse-perf.pl's rules), a real `perf record -g` + `perf script`
# of a program compiled here, detection and malformed input.
. "$TOP/tests/lib.sh"

IN=$FIX/perf/basic.perf

# Expected outputs, derived by hand from stackcollapse-perf.pl's rules:
# root frame = comm (blanks -> '_'), "+0x.." offsets and argument lists
# removed, quotes removed, [unknown] -> [dso basename], "a->b" -> a;b_[i],
# weight = the period, only the first event type (cycles) kept.
want() { # OPTION-LINE-ROOT-SUFFIXES...
	printf '%s\n' "$@" > want.txt
}
check() { # NAME OPTIONS...
	name=$1; shift
	$SFCONV -q --from perf "$@" "$IN" > got.txt 2> err.txt ||
		{ fail "$name" "exit $?: $(head -n 1 err.txt)"; return; }
	expect_same "$name" want.txt got.txt
}

want 'V8_WorkerThread;[unknown];[libc.so.6];LazyCompile:foos 3000' \
     'app;main;inner;outer_inl_[i] 2000' \
     'app;main;std::vector<int>::push_back;native_safe_halt 1000'
check perf-default
want 'V8_WorkerThread-100;[unknown];[libc.so.6];LazyCompile:foos 3000' \
     'app-100;main;inner;outer_inl_[i] 2000' \
     'app-100;main;std::vector<int>::push_back;native_safe_halt 1000'
check perf-pid --pid
want 'V8_WorkerThread-100/102;[unknown];[libc.so.6];LazyCompile:foos 3000' \
     'app-100/101;main;inner;outer_inl_[i] 2000' \
     'app-100/101;main;std::vector<int>::push_back;native_safe_halt 1000'
check perf-tid --tid
want 'V8_WorkerThread;[unknown];[libc.so.6];LazyCompile:foos 3000' \
     'app;main;inner;outer_inl_[i] 2000' \
     'app;main;std::vector<int>::push_back;native_safe_halt_[k] 1000'
check perf-kernel --kernel
want 'V8_WorkerThread;[unknown];[libc.so.6];LazyCompile:foos_[j] 3000' \
     'app;main;inner;outer_inl_[i] 2000' \
     'app;main;std::vector<int>::push_back;native_safe_halt 1000'
check perf-jit --jit
want 'V8_WorkerThread;[unknown];[libc.so.6];LazyCompile:foos_[j] 3000' \
     'app;main;inner;outer_inl_[i] 2000' \
     'app;main;std::vector<int>::push_back;native_safe_halt_[k] 1000'
check perf-all --all
want 'V8_WorkerThread;[unknown <7f20>];[libc.so.6 <7f10>];LazyCompile:foos 3000' \
     'app;main;inner;outer_inl_[i] 2000' \
     'app;main;std::vector<int>::push_back;native_safe_halt 1000'
check perf-addrs --addrs
want 'app;main 500'
check perf-event-filter --event-filter instructions
want '[unknown];[libc.so.6];LazyCompile:foos 3000' \
     'main;inner;outer_inl_[i] 2000' \
     'main;std::vector<int>::push_back;native_safe_halt 1000'
check perf-no-comm --no-comm

# detected without --from, through gzip too
gzip -c "$IN" > in.perf.gz
$SFCONV -q in.perf.gz > got.txt 2>&1
want 'V8_WorkerThread;[unknown];[libc.so.6];LazyCompile:foos 3000' \
     'app;main;inner;outer_inl_[i] 2000' \
     'app;main;std::vector<int>::push_back;native_safe_halt 1000'
expect_same perf-detect-gzip want.txt got.txt

# the model keeps threads (pid, tid, comm with its blank), times, the
# period as weight and the frame kind, module and address
$SFCONV -q "$IN" --to json > model.json
if python3 - model.json <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
th = {(t.get("pid"), t.get("tid"), t.get("name")) for t in m["threads"]}
assert th == {(100, 101, "app"), (100, 102, "V8 WorkerThread")}, th
assert m["sample_types"] == [{"type": "cycles", "unit": "events"}], m["sample_types"]
times = sorted(s[2] for s in m["samples"])
assert times == [10000001000, 10000002000, 10000004000], times
assert sorted(s[4] for s in m["samples"]) == [1000, 2000, 3000]
k = [f for f in m["frames"] if f["name"] == "native_safe_halt"][0]
assert k.get("kind") == "kernel" and k.get("module") == "[kernel.kallsyms]", k
assert k.get("address") == "0xffffffff8103ce3b", k
inl = [f for f in m["frames"] if f["name"] == "outer_inl_[i]"][0]
assert inl.get("inline"), inl
PY
then pass perf-model; else fail perf-model "threads/time/weights/kinds not kept"; fi

# threads taking turns, one of them renamed by exec and back, two with
# a two-word comm and tids one a prefix of the other: each event's
# thread is (tid, comm) as printed, whatever came just before
ev() { # COMM TID TIME
	printf '%s\n' "$1 $2 1.00000$3: 1000 cycles:" \
		'	ffffffff81000001 a+0x1 ([kernel.kallsyms])' ''
}
{ ev perf-exec 7 1; ev other 8 2; ev app 7 3; ev other 8 4; ev app 7 5
  ev other 8 6; ev perf-exec 7 7; ev 'V8 W' 9/1 8; ev 'V8 W' 9/12 9
  ev 'V8 W' 9/1 8; ev 'V8 W' 9/12 9; } > exec.perf
$SFCONV -q exec.perf --to json > exec.json
if python3 - exec.json <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
th = [(t.get("pid"), t.get("tid"), t.get("name")) for t in m["threads"]]
assert th == [(None, 7, "perf-exec"), (None, 8, "other"), (None, 7, "app"),
              (9, 1, "V8 W"), (9, 12, "V8 W")], th
got = [s[1] for s in m["samples"]]
assert got == [0, 1, 2, 1, 2, 1, 0, 3, 4, 3, 4], got
PY
then pass perf-thread-renamed; else fail perf-thread-renamed "wrong thread"; fi

# 70 threads of one comm taking turns, as perf prints them (the comm
# padded: "python3  7000  1.000: ..."), some as pid/tid: more than the
# reader keeps event-line prefixes for, so lines are read from a kept
# prefix and parsed again in turn; each event's thread is its own
for r in 1 2; do
	for t in $(seq 0 69); do
		if [ $((t % 7)) -eq 3 ]; then id="9/$((7000 + t))"; else id=$((7000 + t)); fi
		printf 'python3  %s  %d.%06d: 1000 cycles:\n\tffff f+0x1 (m)\n\n' \
			"$id" "$r" "$t"
	done
done > turns.perf
$SFCONV -q turns.perf --to json > turns.json
if python3 - turns.json <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
th = [(t.get("pid"), t.get("tid"), t.get("name")) for t in m["threads"]]
want = [(9 if t % 7 == 3 else None, 7000 + t, "python3") for t in range(70)]
assert th == want, th
got = [s[1] for s in m["samples"]]
assert got == list(range(70)) * 2, got
PY
then pass perf-threads-padded-comm; else fail perf-threads-padded-comm "wrong thread"; fi

# A regular file is read where it is mapped (sf_input_view), a pipe
# through the buffer: the same lines either way, whole or in parts, with
# the mapped window (SF_VIEW_WINDOW) of the reader's size or of one page,
# which lines cross and a long line outgrows.  Files of exactly two
# pages whose last line has no LF (the byte after it is then in the page
# of zeroes after the file's), with LF and with CRLF endings, one ending
# in a lone CR, and one with a line of 9,000 bytes; each against the same
# bytes from a pipe.
view_case() { # NAME EOL LASTEOL (lf, crlf, cr or none) [LONG]
	awk -v eol="$2" -v last="$3" -v long="${4:-0}" 'function nl(w) {
		return w == "lf" ? "\n" : w == "crlf" ? "\r\n" : w == "cr" ? "\r" : "" }
	BEGIN { e = nl(eol)
		y = ""
		for (i = 0; i < long; i++)
			y = y "y"
		# (concatenated: a mawk sprintf holds 8 KiB at most)
		for (i = 0; i < 40; i++)
			t = t sprintf("app %d %d.5: 1 cycles:%s\tffff f%d", i % 3,
				      i, e, i % 5) (i == 7 ? y : "") "+0x1 (m)" e e
		head = t sprintf("app 1 99.5: 1 cycles:%s\tffff g", e)
		tail = "+0x1 (m)" nl(last)
		pad = 8192 * (1 + int(long / 8192) + 1) - length(head) - length(tail)
		x = ""
		for (i = 0; i < pad; i++)
			x = x "x"
		printf "%s%s%s", head, x, tail }' > "view-$1.perf"
	size=$(wc -c < "view-$1.perf")
	# perl's rules drop a last event without a blank line, inferno's
	# keep it: the last line is read in the second run of each three
	for w in "" 4096; do
		SF_VIEW_WINDOW=$w $SFCONV -q -j1 "view-$1.perf" -t collapsed
		SF_VIEW_WINDOW=$w $SFCONV -q -j1 --inferno "view-$1.perf" -t collapsed
		SF_VIEW_WINDOW=$w SF_SPLIT_MIN=1024 $SFCONV -q -j3 "view-$1.perf" \
			-t collapsed
	done > "view-$1.file.txt" 2>&1
	for w in "" 4096; do
		cat "view-$1.perf" | $SFCONV -q -j1 - -t collapsed
		cat "view-$1.perf" | $SFCONV -q -j1 --inferno - -t collapsed
		cat "view-$1.perf" | $SFCONV -q -j1 - -t collapsed
	done > "view-$1.pipe.txt" 2>&1
	if [ $((size % 8192)) -eq 0 ] && grep -q '^app;gxx*' "view-$1.pipe.txt" &&
	   cmp -s "view-$1.file.txt" "view-$1.pipe.txt"; then
		pass "perf-view-$1"
	else
		fail "perf-view-$1" "size $size; $(diff "view-$1.file.txt" "view-$1.pipe.txt" | head -n 3)"
	fi
}
view_case lf-no-last-lf lf none
view_case crlf-no-last-lf crlf none
view_case lf-last-cr lf cr
view_case long-line lf none 9000

# time words of every length the reader takes in one go (up to 7 digits
# each side) and longer: nanoseconds, the fraction cut at 9 digits
printf 'app 1 %s: 1 cycles:\n\tffff f+0x1 (m)\n\n' 5.5 1234567.1234567 \
	12345678.123456789 0000000000012.000001 98765.1234567891234 3. \
	> times.perf
$SFCONV -q times.perf --to json > times.json
if python3 - times.json <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
got = [s[2] for s in m["samples"]]
want = [5500000000, 1234567123456700, 12345678123456789, 12000001000,
        98765123456789, 3000000000]
assert got == want, got
PY
then pass perf-time-words; else fail perf-time-words "wrong times"; fi

# tracepoint events print their payload after the event name: no period
# and no event type for the script (weight 1, nothing filtered)
printf '%s\n' \
 'perf 123 [000] 1.500000: sched:sched_switch: prev_comm=perf prev_pid=123 ==> next_comm=swapper/0 next_pid=0' \
 '	ffffffff81a2b3c4 __schedule+0x2c4 ([kernel.kallsyms])' \
 '	ffffffff81a2b8e0 schedule+0x40 ([kernel.kallsyms])' '' \
 'perf 123 [000] 1.600000: sched:sched_switch: prev_comm=perf prev_pid=123 ==> next_comm=kworker next_pid=9' \
 '	ffffffff81a2b8e0 schedule+0x40 ([kernel.kallsyms])' '' > tp.perf
printf '%s\n' 'perf;schedule_[k] 1' 'perf;schedule_[k];__schedule_[k] 1' > want.txt
$SFCONV -q tp.perf --kernel > got.txt 2>&1
expect_same perf-tracepoint want.txt got.txt

# Java inlining chains in a JIT map, both rule sets: ';' -> ':', the
# leading L of Lpkg/Class dropped for comm "java", _[j] on the outer frame,
# _[i] on the inlined ones
printf 'java 1/2 [0] 1.0: 5 cycles:\n\t7f00 Lcom/a/B;.run->Lcom/a/C;.inl->Lcom/a/D;.deep+0x10 (/tmp/perf-1.map)\n\t7f10 main (/usr/bin/java)\n\n' > inl.perf
printf '%s\n' 'java;main;com/a/B:.run_[j];com/a/C:.inl_[i];com/a/D:.deep_[i] 5' > want.txt
$SFCONV -q --from perf --jit inl.perf > got.txt 2>&1
expect_same perf-java-inline want.txt got.txt
$SFCONV -q --from perf --jit --inferno inl.perf > got.txt 2>&1
expect_same perf-java-inline-inferno want.txt got.txt

# malformed input: one message with file and line, exit 1
printf '\tdeadbeef main (/bin/x)\n\n' > orphan.perf
expect_error perf-no-event-line 1 '^sfconv: orphan.perf:1: expected a perf script event line' \
	$SFCONV --from perf orphan.perf
printf 'app 1 [0] 1.0: 1 cycles:\n\t4004a0 ma\000in (/bin/x)\n\n' > nul.perf
expect_error perf-nul-byte 1 '^sfconv: nul.perf:2: NUL byte' $SFCONV --from perf nul.perf -o never.folded
[ -e never.folded ] && fail perf-no-partial-output "output left behind" || pass perf-no-partial-output
# a NUL in an unindented event line is refused too (it cut "pr\0og" to
# "pr" with exit 0), as in an indented one
printf 'pr\000og 1 [0] 1.0: 1 cycles:\n\t4004a0 main (/bin/x)\n\n' > nul2.perf
expect_error perf-nul-byte-event-line 1 '^sfconv: nul2.perf:1: NUL byte' $SFCONV --from perf nul2.perf -o never.folded
printf '  pr\000og 1 [0] 1.0: 1 cycles:\n\t4004a0 main (/bin/x)\n\n' > nul3.perf
expect_error perf-nul-byte-indented-event-line 1 '^sfconv: nul3.perf:1: NUL byte' $SFCONV --from perf nul3.perf -o never.folded
# after event lines whose prefix (comm, pid) and tail (period, event)
# are kept, a line starting with the same prefix and time but a NUL in
# its tail, or one more byte and a NUL, is still checked for it
for t in in:'cyc\000les:' after:'cycles:\000'; do
	printf 'app 1 1.0: 1 cycles:\n\t4004a0 main (/bin/x)\n\n' > nul4.perf
	printf 'app 1 1.1: 1 cycles:\n\t4004a0 main (/bin/x)\n\n' >> nul4.perf
	printf "app 1 1.2: 1 ${t#*:}\\n\\t4004a0 main (/bin/x)\\n\\n" >> nul4.perf
	expect_error "perf-nul-byte-kept-prefix-${t%%:*}" 1 \
		'^sfconv: nul4.perf:7: NUL byte' $SFCONV --from perf nul4.perf
done

# a real profile: perf record -g of a program compiled here
if ! have perf || ! have cc; then
	skip perf-real "perf or cc not installed (scripts/install-deps.sh test installs linux-perf)"
	exit 0
fi
cat > prog.c <<'EOF'
#include <stdio.h>
__attribute__((noinline)) double sf_leaf(int n)
{ double s = 0; for (int i = 1; i < n; i++) s += 1.0 / i; return s; }
__attribute__((noinline)) double sf_middle(int n) { double r = sf_leaf(n); return r * 2; }
__attribute__((noinline)) double sf_outer(int n)
{ double s = 0; for (int k = 0; k < 400; k++) s += sf_middle(n); return s; }
int main(void) { printf("%f\n", sf_outer(200000)); return 0; }
EOF
if ! cc -O1 -g -fno-omit-frame-pointer -o prog prog.c; then
	fail perf-real "cannot compile the test program"; exit 0
fi
if ! perf record -q -g -o perf.data ./prog > /dev/null 2> rec.err ||
   ! perf script -i perf.data > real.perf 2> script.err || [ ! -s real.perf ]; then
	skip perf-real "perf record/script not allowed here: $(head -n 1 rec.err)"
	exit 0
fi
$SFCONV -q real.perf > real.folded 2> err.txt
if grep -Eq '^prog;(.*;)?main;sf_outer;(sf_middle;)?sf_leaf [0-9]+$' real.folded; then
	pass perf-real-chain
else
	fail perf-real-chain "no prog;...;main;sf_outer;sf_middle;sf_leaf line: $(head -n 3 real.folded)"
fi
# the weights add up to the periods perf script printed
want_total=$(awk '/^[^ \t#]/ && / [0-9]+ [^ ]+:[ \t]*$/ { for (i = NF; i > 0; i--) if ($i ~ /^[0-9]+$/) { s += $i; break } } END { print s + 0 }' real.perf)
got_total=$(awk '{ s += $NF } END { print s + 0 }' real.folded)
if [ "$want_total" = "$got_total" ] && [ "$got_total" != 0 ]; then
	pass perf-real-weights
else
	fail perf-real-weights "total $got_total, perf script periods add to $want_total"
fi

# Repeated records: after the first, a record whose stack text was seen
# before is taken whole from the record cache (rec_skip_seen).  Variants of
# the same stack that must not be mistaken for it: a CRLF copy, a copy with
# a comment line inside, a copy under comm "java" (its frames are tidied
# differently), a copy ended by the next event line instead of a blank
# line (perl drops it), a copy with one more frame, a copy whose event is
# filtered out, and a final copy without the closing blank line (perl
# drops it too).  Expectations by hand from stackcollapse-perf.pl's rules.
ev() { printf '%s 100 1.%06d: 1 cycles:\n' "$1" "$2"; }
ev2() { printf '%s 100 1.%06d: 1 instructions:\n' "$1" "$2"; }
st() { printf '\t1 Lcom/x/Y;.run(I)V (/tmp/perf-1.map)\n\t2 main (/bin/app)\n'; }
{
	ev app 1; st; echo
	ev app 2; st; echo
	ev app 3; st | sed 's/$/\r/'; printf '\r\n'
	ev app 4; printf '\t1 Lcom/x/Y;.run(I)V (/tmp/perf-1.map)\n# note\n\t2 main (/bin/app)\n\n'
	ev java 5; st; echo
	ev java 6; st; echo
	ev app 7; st
	ev app 8; printf '\t0 leaf (/bin/app)\n'; st; echo
	ev2 app 9; st; echo
	ev app 10; st; echo
	ev app 11; st
} > rep.perf
want 'app;main;Lcom/x/Y:.run 5' \
     'app;main;Lcom/x/Y:.run;leaf 1' \
     'java;main;com/x/Y:.run 2'
$SFCONV -q --from perf rep.perf > got.txt 2> err.txt || fail perf-record-cache "exit $?"
expect_same perf-record-cache want.txt got.txt
# The guess: in input that repeats its records in order, the record that
# followed the previous one last time is tried first, by comparing its
# text with the input.  Each variant below follows L, whose successor so
# far is S, so each is compared with S first and must not pass for it:
# every line CRLF, one more frame (S is a prefix of it), comm java, a
# CRLF blank line after it, ended by an event line (perl drops it), and
# no blank line at the end of the input (dropped too).  An "L S" pair
# between variants makes S the guess again.  By hand: L 12 times, S 8,
# the longer stack and the java one once each.
lf() { printf '\t0 leaf (/bin/app)\n'; st; }
{
	ev app 1; lf; echo; ev app 2; st; echo
	ev app 3; lf; echo; ev app 4; st | sed 's/$/\r/'; printf '\r\n'
	ev app 5; lf; echo; ev app 6; st; echo
	ev app 7; lf; echo; ev app 8; st; printf '\t3 start (/bin/app)\n\n'
	ev app 9; lf; echo; ev app 10; st; echo
	ev app 11; lf; echo; ev java 12; st; echo
	ev app 13; lf; echo; ev app 14; st; echo
	ev app 15; lf; echo; ev app 16; st; printf '\r\n'
	ev app 17; lf; echo; ev app 18; st; echo
	ev app 19; lf; echo; ev app 20; st
	ev app 21; lf; echo; ev app 22; st; echo
	ev app 23; lf; echo; ev app 24; st
} > guess.perf
want 'app;main;Lcom/x/Y:.run 8' \
     'app;main;Lcom/x/Y:.run;leaf 12' \
     'app;start;main;Lcom/x/Y:.run 1' \
     'java;main;com/x/Y:.run 1'
$SFCONV -q --from perf guess.perf > got.txt 2> err.txt || fail perf-record-guess "exit $?"
expect_same perf-record-guess want.txt got.txt
# Before the guess, the last record that began with the same first 24
# bytes (the leaf line) is tried.  A, B and A' below share a leaf line
# longer than that, so each is the candidate when another is in the
# input: B (other callers), A' (A and one more frame: A's text is a
# prefix of it), A with CRLF lines and A under comm java must not pass
# for the candidate either.  B and A in turns at the end: the candidate
# is always the other one, the guess right.  By hand: A 7 times (one of
# them CRLF), B 5, X 2, A' and the java one once each.
la() { printf '\t0 a_leaf_function_name (/bin/app)\n'; }
sa() { la; printf '\t2 main (/bin/app)\n'; }
sb() { la; printf '\t3 other (/bin/app)\n\t2 main (/bin/app)\n'; }
{
	ev app 1; sa; echo; ev app 2; printf '\t4 x (/bin/app)\n\n'
	ev app 3; sa; echo; ev app 4; sb; echo
	ev app 5; sa; echo; ev app 6; sa; printf '\t5 start (/bin/app)\n\n'
	ev app 7; sa | sed 's/$/\r/'; printf '\r\n'
	ev java 8; sa; echo; ev app 9; sb; echo
	ev app 10; printf '\t4 x (/bin/app)\n\n'; ev app 11; sb; echo
	ev app 12; sa; echo; ev app 13; sb; echo; ev app 14; sa; echo
	ev app 15; sb; echo; ev app 16; sa; echo
} > lead.perf
want 'app;main;a_leaf_function_name 7' \
     'app;main;other;a_leaf_function_name 5' \
     'app;start;main;a_leaf_function_name 1' \
     'app;x 2' \
     'java;main;a_leaf_function_name 1'
$SFCONV -q --from perf lead.perf > got.txt 2> err.txt || fail perf-record-lead "exit $?"
expect_same perf-record-lead want.txt got.txt
# split in two parts (each starts with empty caches): the same bytes
SF_SPLIT_MIN=0 $SFCONV -q -j2 --from perf lead.perf > got-j2.txt 2> err.txt ||
	fail perf-record-lead-j2 "exit $?"
expect_same perf-record-lead-j2 want.txt got-j2.txt
# the lines skipped whole still count: a warning after them names its line
{ cat rep.perf; echo; ev app 12; st; printf '\tnot a frame line\n\n'; } > rep-bad.perf
n=$(($(wc -l < rep.perf) + 5))
$SFCONV --from perf rep-bad.perf > /dev/null 2> err.txt
if grep -q "rep-bad.perf:$n:" err.txt; then pass perf-record-cache-lineno
else fail perf-record-cache-lineno "want line $n: $(head -n 1 err.txt)"; fi

# An untyped first event ("250000 cpu-clock:pp<TAB>:": perl's event
# pattern does not match, so it weighs 1) before typed ones (250000 ns of
# cpu-clock each): the sample type is the typed events' (nanoseconds), not
# ("samples", "count"), or a writer that repeats a sample once per count
# writes 250,000 records per event (the fuzz finding kept in
# tests/fuzz/crashes/roundtrip-sbsprof/).
{
	printf 'app 10/10 1.000001:     250000 cpu-clock:pp\t: \n'
	printf '\t1 f (/bin/app)\n\t2 main (/bin/app)\n\n'
	printf 'app 10/10 1.000002:     250000 cpu-clock:ppp: \n'
	printf '\t3 g (/bin/app)\n\t2 main (/bin/app)\n\n'
	printf 'app 10/10 1.000003:     250000 cpu-clock:ppp: \n'
	printf '\t1 f (/bin/app)\n\t2 main (/bin/app)\n\n'
} > untyped.perf
want 'app;main;f 250001' 'app;main;g 250000'
$SFCONV -q untyped.perf > got.txt 2> err.txt || fail perf-untyped-first "exit $?"
expect_same perf-untyped-first want.txt got.txt
for j in 1 2; do
	SF_SPLIT_MIN=0 $SFCONV -q -j$j untyped.perf --to json > untyped-j$j.json ||
		fail perf-untyped-first-type "-j$j: exit $?"
done
if python3 - untyped-j1.json <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
assert m["sample_types"] == [{"type": "cpu-clock", "unit": "nanoseconds"}], m["sample_types"]
assert [s[4] for s in m["samples"]] == [1, 250000, 250000], m["samples"]
assert ["perf.event", "cpu-clock:ppp"] in m["meta"]["properties"], m["meta"]
PY
then pass perf-untyped-first-type; else fail perf-untyped-first-type "see above"; fi
expect_same perf-untyped-first-parallel untyped-j1.json untyped-j2.json
# one sb-sprof record per event read, as perf counted them
$SFCONV -q untyped.perf --to sbsprof > got.sbs 2> err.txt ||
	fail perf-untyped-first-sbsprof "exit $?: $(head -n 1 err.txt)"
n=$(grep -c '	L 0x2 main' got.sbs)
if [ "$n" = 3 ]; then pass perf-untyped-first-sbsprof
else fail perf-untyped-first-sbsprof "want 3 records, got $n"; fi

# --max-records bounds the records a writer makes by repeating samples:
# the 3 events are 3 records; 3 counted samples of 200 each are 600
for lim in 2:1 3:0; do
	$SFCONV -q untyped.perf --to sbsprof --max-records ${lim%:*} \
		> /dev/null 2> err.txt
	rc=$?
	if [ $rc = ${lim#*:} ]; then pass perf-max-records-${lim%:*}
	else fail perf-max-records-${lim%:*} "exit $rc: $(head -n 1 err.txt)"; fi
done
python3 - untyped-j1.json > counted.json <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
m["sample_types"] = [{"type": "samples", "unit": "count"}]
for s in m["samples"]:
    s[4] = 200
json.dump(m, sys.stdout)
PY
if $SFCONV -q counted.json --to sbsprof --max-records 599 > /dev/null 2> err.txt
then fail perf-max-records-counted "599 records allowed, 600 written"
elif grep -q 'more than 599 sb-sprof sample lines (--max-records' err.txt
then pass perf-max-records-counted
else fail perf-max-records-counted "$(head -n 1 err.txt)"; fi
$SFCONV -q counted.json --to sbsprof --max-records 600 > got.sbs 2> err.txt ||
	fail perf-max-records-counted-600 "exit $?: $(head -n 1 err.txt)"
n=$(grep -c '	L 0x2 main' got.sbs)
if [ "$n" = 600 ]; then pass perf-max-records-counted-600
else fail perf-max-records-counted-600 "want 600 records, got $n"; fi

# two such files: the second one's untyped event weighs 1 in the type the
# first made, as the script sums both files read as one stream
cp untyped.perf untyped2.perf
want 'app;main;f 500002' 'app;main;g 500000'
$SFCONV -q untyped.perf untyped2.perf > got.txt 2> err.txt ||
	fail perf-untyped-first-two "exit $?"
expect_same perf-untyped-first-two want.txt got.txt
