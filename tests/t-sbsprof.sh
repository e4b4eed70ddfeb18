# sb-sprof sample dumps ("sbsprof-samples 1", docs/formats.md, section
# sbsprof): hand-written dumps, expected outputs derived by hand.
. "$TOP/tests/lib.sh"

T=$(printf '\t')
# A time-mode dump: escapes in a thread name and a path, every frame kind,
# an N frame, a name with ';' (collapsed writes ':'), leaf-first frames.
cat > a.sbsprof <<EOF
sbsprof-samples 1
@lisp${T}SBCL 2.2.9.debian
@mode${T}time
@sample-interval${T}0.001
@trace-count${T}5
@unique-trace-count${T}3
@sample-count${T}4
@thread${T}0${T}main thread
@thread${T}1${T}w\\\\1\\tx
@source${T}FOO${T}/tmp/a\\tb.lisp
0${T}2${T}L 0x1a FOO${T}F 0x7f00 foreign function main
0${T}2${T}L 0x1a FOO${T}F 0x7f00 foreign function main
1${T}3${T}N 0x0 ${T}L 0x2 (FLET X :IN "SYS:SRC;CODE;EVAL.LISP")${T}A 0x10 SB-VM::ALLOC-TRAMP
0${T}1${T}C 0x99 #<code id=1 [2] FOO>
@end
EOF
cat > a.want <<'EOF'
main thread-0;#<code id=1 [2] FOO> 1
main thread-0;foreign function main;FOO 2
w\1 x-1;SB-VM::ALLOC-TRAMP;(FLET X :IN "SYS:SRC:CODE:EVAL.LISP");<unknown> 1
EOF
$SFCONV --thread-prefix a.sbsprof > a.out 2> a.err
expect_same sbsprof-collapsed-per-thread a.want a.out
grep warning a.err && fail sbsprof-no-warnings "$(cat a.err)" || pass sbsprof-no-warnings

$SFCONV a.sbsprof --to json > a.json 2>/dev/null
check_json() { # NAME FIXED-STRING
	grep -qF -- "$2" a.json && pass "$1" || fail "$1" "JSON lacks $2"
}
check_json sbsprof-kind-lisp-and-source '{"name":"FOO","file":"/tmp/a\tb.lisp","kind":"lisp"}'
check_json sbsprof-kind-foreign '{"name":"foreign function main","kind":"foreign"}'
check_json sbsprof-kind-unknown '{"name":"<unknown>","kind":"unknown"}'
check_json sbsprof-kind-assembler '{"name":"SB-VM::ALLOC-TRAMP","kind":"assembler"}'
check_json sbsprof-kind-code '{"name":"#<code id=1 [2] FOO>","kind":"code"}'
check_json sbsprof-time-period '"period_type":{"type":"wall","unit":"nanoseconds"},"period":1000000'
check_json sbsprof-sample-type '"sample_types":[{"type":"samples","unit":"count"}]'
check_json sbsprof-thread-escapes '{"tid":1,"name":"w\\1\tx"}'
check_json sbsprof-props '["sbsprof.lisp","SBCL 2.2.9.debian"]'

# cpu mode: period type cpu; alloc mode: a count of allocations, no period
sed 's/^@mode.time$/@mode	cpu/' a.sbsprof > cpu.sbsprof
$SFCONV cpu.sbsprof --to json 2>/dev/null | grep -qF '"period_type":{"type":"cpu","unit":"nanoseconds"},"period":1000000' &&
	pass sbsprof-cpu-period || fail sbsprof-cpu-period "no cpu period type"
sed 's/^@mode.time$/@mode	alloc/' a.sbsprof > alloc.sbsprof
$SFCONV alloc.sbsprof --to json > alloc.json 2>/dev/null
if grep -qF '"sample_types":[{"type":"alloc","unit":"count"}]' alloc.json &&
   ! grep -q period_type alloc.json; then
	pass sbsprof-alloc-not-time
else
	fail sbsprof-alloc-not-time "alloc mode must be ('alloc','count') without a period"
fi

# the writer: same dump back (pcs are not kept: 0x0), grouped by thread
cat > w.want <<EOF
sbsprof-samples 1
@lisp${T}SBCL 2.2.9.debian
@mode${T}time
@sample-interval${T}0.001
@trace-count${T}5
@unique-trace-count${T}3
@sample-count${T}4
@thread${T}0${T}main thread
@thread${T}1${T}w\\\\1\\tx
@source${T}FOO${T}/tmp/a\\tb.lisp
0${T}2${T}L 0x0 FOO${T}F 0x0 foreign function main
0${T}2${T}L 0x0 FOO${T}F 0x0 foreign function main
0${T}1${T}C 0x0 #<code id=1 [2] FOO>
1${T}3${T}N 0x0 ${T}L 0x0 (FLET X :IN "SYS:SRC;CODE;EVAL.LISP")${T}A 0x0 SB-VM::ALLOC-TRAMP
@end
EOF
$SFCONV a.sbsprof --to sbsprof > w.out 2>/dev/null
expect_same sbsprof-writer w.want w.out

# sbsprof -> sampler -> sbsprof keeps the stacks of every thread
$SFCONV a.sbsprof -o a.trace 2>/dev/null
$SFCONV a.trace --to sbsprof > b.sbsprof 2>/dev/null
$SFCONV --thread-prefix b.sbsprof > b.out 2>/dev/null
# TAB in a thread name cannot be written to Sampler: it became a space,
# which collapsed output writes for TAB anyway
expect_same sbsprof-sampler-roundtrip a.want b.out

# malformed dumps: file:line, exit 1
# the writer repeats a sample as lines by the rule of the Sampler writer:
# a collapsed weight (nanoseconds here) is refused up front, no file left
# behind; --period N writes one line per N units (2004008 / 1000000 -> 2);
# perf counted its samples: cxx.perf has 5 cpu-clock events, so 5 lines,
# where the weights (nanoseconds) used to become millions of lines
printf 'main;b 2004008\n' > ns.folded
expect_error sbsprof-uncounted-refused 2 'not sample counts.*--period N' \
	$SFCONV ns.folded -o ns.sbsprof
[ -e ns.sbsprof ] && fail sbsprof-uncounted-no-output "ns.sbsprof left behind" ||
	pass sbsprof-uncounted-no-output
got=$($SFCONV ns.folded --period 1000000 --to sbsprof 2>/dev/null | grep -c '^0	2	L 0x0 b	L 0x0 main$')
[ "$got" = 2 ] && pass sbsprof-period-scales || fail sbsprof-period-scales "$got lines of main;b, want 2"
got=$($SFCONV "$FIX/pprof/cxx.perf" --to sbsprof 2>/dev/null | sed -n 's/^@sample-count	//p')
[ "$got" = 5 ] && pass sbsprof-perf-one-line-per-sample ||
	fail sbsprof-perf-one-line-per-sample "@sample-count ${got:-missing}, want 5"

head -n 13 a.sbsprof > trunc.sbsprof
expect_error sbsprof-truncated 1 "^sfconv: trunc.sbsprof:14: missing '@end'" $SFCONV trunc.sbsprof
sed 's/^@sample-count.4$/@sample-count	9/' a.sbsprof > count.sbsprof
expect_error sbsprof-count-mismatch 1 "^sfconv: count.sbsprof:[0-9]+: 4 sample lines but @sample-count says 9" $SFCONV count.sbsprof
printf 'sbsprof-samples 1\n@thread\t0\tm\n1\t1\tL 0x1 F\n@end\n' > thr.sbsprof
expect_error sbsprof-undeclared-thread 1 "^sfconv: thr.sbsprof:3: thread number not declared" $SFCONV thr.sbsprof
printf 'sbsprof-samples 1\n@thread\t0\tm\n0\t1\tX 0x1 F\n@end\n' > kind.sbsprof
expect_error sbsprof-bad-kind 1 "^sfconv: kind.sbsprof:3: expected a frame 'K 0xHEX NAME'" $SFCONV kind.sbsprof
printf 'sbsprof-samples 1\n@thread\t0\tm\n0\t1\tL 0xAB F\n@end\n' > hex.sbsprof
expect_error sbsprof-uppercase-hex 1 "^sfconv: hex.sbsprof:3: expected a frame" $SFCONV hex.sbsprof
printf 'sbsprof-samples 1\n@thread\t0\tm\n0\t2\tL 0x1 F\n@end\n' > n.sbsprof
expect_error sbsprof-frame-count 1 "^sfconv: n.sbsprof:3: the frame count does not match" $SFCONV n.sbsprof
printf 'sbsprof-samples 2\n@end\n' > v2.sbsprof
expect_error sbsprof-version 1 "^sfconv: v2.sbsprof:1: expected 'sbsprof-samples 1'" $SFCONV --from sbsprof v2.sbsprof
printf 'sbsprof-samples 1\n@mode\tfast\n@end\n' > mode.sbsprof
expect_error sbsprof-bad-mode 1 "^sfconv: mode.sbsprof:2: @mode must be cpu, time or alloc" $SFCONV mode.sbsprof

# sb-sprof repeats a trace by its hit count; the reports count those hits
# as samples, as sb-sprof's "Total" does: a.sbsprof holds 4 sample lines
# (one run of 2 equal lines), so 4 samples, not 3 records
$SFANALYZE --flat a.sbsprof > cnt.out 2>&1
if head -n 1 cnt.out | grep -q ' in 4 samples'; then pass sbsprof-report-counts-samples
else fail sbsprof-report-counts-samples "$(head -n 1 cnt.out)"; fi
