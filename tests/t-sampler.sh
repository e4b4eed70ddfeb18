# Apple Sampler traces: hand-made files (binary ints from python3) for every
# rule of docs/formats.md (section sampler), expected outputs derived by hand.
. "$TOP/tests/lib.sh"

if ! have python3; then
	skip sampler-all "python3 is needed to write binary test files"
	exit 0
fi

# gen.py writes the test files.  Helpers follow the grammar:
#   sym(id, name, lib)     TAB int32 TAB int32 TAB name TAB lib TAB lib2 LF
#   rec(frames)            TAB int32 1 0 1, count, frame ids (leaf first) LF
cat > gen.py <<'PY'
import struct, sys
be = lambda x: struct.pack('>I', x)
HEAD = b'@supersamplerV1.0\n@symboltableV1.1\n'
END = b'@end\n'
def sym(i, name, lib=b'', lib2=None, unk=0):
    return (b'\t' + be(i) + b'\t' + be(unk) + b'\t' + name + b'\t' + lib +
            b'\t' + (lib if lib2 is None else lib2) + b'\n')
def rec(frames, words=(1, 0, 1), count=None):
    n = len(frames) if count is None else count
    return (b'\t' + b''.join(be(w) for w in words) + be(n) +
            b''.join(be(f) for f in frames) + b'\n')
def thr(t):
    return b'@threadV1.0\t' + t + b'\n'
def put(name, data):
    open(name, 'wb').write(data)

MAIN, OBJC, WORK, LEAF, BIG = 0x220A, 0x00010009, 0x0A090A09, 0x40404040, 0x2209
syms = (sym(0x2122, b'Thread_2122', b'Thread_2122') +
        sym(0x2123, b'Thread_2123', b'Thread_2123') +
        sym(MAIN, b'main', b'/usr/lib/libSystem.B.dylib') +
        sym(OBJC, b'@objc_msgSend', b'/usr/lib/libobjc.A.dylib', unk=7) +
        sym(WORK, b'work', b'') +
        sym(LEAF, b'leaf', b'') +
        sym(BIG, b'N' * 5000, b''))
blocks = (thr(b'2122') +
          rec([LEAF] + [WORK] * 6 + [OBJC, MAIN]) +   # 9 frames: count is TAB
          rec([LEAF] + [WORK] * 8 + [MAIN]) +         # 10 frames: count is LF
          rec([]) +                                   # empty stack
          rec([MAIN]) + rec([MAIN]) +
          rec([BIG, MAIN]) +
          thr(b'2123'))                               # a block with no records
put('valid.trace', HEAD + syms + END + blocks + END)
put('seed.trace', HEAD + syms + blocks + END)         # seed dialect

# malformed
base = HEAD + sym(0x2122, b'Thread_2122', b'Thread_2122') + sym(0x2200, b'f') + END
full = base + thr(b'2122') + rec([0x2200, 0x2200, 0x2200]) + END
cut = len(base) + len(thr(b'2122')) + 1 + 16 + 6   # inside the 2nd frame id
put('trunc.trace', full[:cut])
open('trunc.off', 'w').write(str(cut))
good = base + thr(b'2122') + rec([0x2200])
put('unknown-id.trace', good + rec([0x2200, 0x99]) + END)
open('unknown-id.off', 'w').write(str(len(good) + 1 + 16 + 4))
put('huge.trace', base + thr(b'2122') + rec([0x2200], count=0x40000000) + END)
put('no-end.trace', base + thr(b'2122') + rec([0x2200]))
put('no-end-symtab.trace', HEAD + sym(0x2200, b'f'))
put('nil-tid.trace', base + thr(b'NIL') + rec([0x2200]) + END)
put('long-tid.trace', base + thr(b'12345') + rec([0x2200]) + END)
put('no-lf.trace', base + thr(b'2122') + rec([0x2200])[:-1] + b'X' + END)
put('bad-magic.trace', b'@supersamplerV2.0\n' + base[18:])

# leniencies
put('lower.trace', HEAD + sym(0x212a, b'Thread_212A') + sym(0x2200, b'f') +
    END + thr(b'212a') + rec([0x2200]) + END)
put('repeat.trace', base + thr(b'2122') + rec([0x2200]) + thr(b'2122') +
    rec([0x2200]) + END)
put('nosym.trace', HEAD + sym(0x2200, b'f') + END + thr(b'2999') +
    rec([0x2200]) + END)
put('words.trace', base + thr(b'2122') + rec([0x2200], words=(1, 0, 2)) +
    rec([0x2200]) + END)
put('dup.trace', HEAD + sym(0x2200, b'first') + sym(0x2200, b'second') + END +
    thr(b'2122') + rec([0x2200]) + END)
put('end-no-lf.trace', full[:-1])
put('trailing.trace', full + b'garbage\x00\x01')
put('lib2.trace', HEAD + sym(0x2200, b'f', b'/a', b'/b') + END + thr(b'2122') +
    rec([0x2200]) + END)

# what the writer must emit for "main;work 2" + "main 1" (no threads):
# one synthetic thread 0x2122, then symbols in order of first appearance
# (leaf first: work 0x2123, main 0x2124), records repeated by weight
put('writer.expected', HEAD +
    sym(0x2122, b'Thread_2122', b'Thread_2122') +
    sym(0x2123, b'work') + sym(0x2124, b'main') + END +
    thr(b'2122') + rec([0x2123, 0x2124]) * 2 + rec([0x2124]) + END)
PY
python3 gen.py || { fail sampler-generate "gen.py failed"; exit 0; }

# --- valid files: collapsed stacks per thread, derived from gen.py by hand
N5000=$(python3 -c 'print("N"*5000)')
{
	printf 'Thread_2122-8482 1\n'
	printf 'Thread_2122-8482;main 2\n'
	printf 'Thread_2122-8482;main;@objc_msgSend;work;work;work;work;work;work;leaf 1\n'
	printf 'Thread_2122-8482;main;%s 1\n' "$N5000"
	printf 'Thread_2122-8482;main;work;work;work;work;work;work;work;work;leaf 1\n'
} > valid.want
$SFCONV --thread-prefix valid.trace > valid.out 2> valid.err
expect_same sampler-valid-binary-fields valid.want valid.out
grep warning valid.err && fail sampler-valid-no-warnings "$(head -n 2 valid.err)" || pass sampler-valid-no-warnings
$SFCONV --thread-prefix seed.trace > seed.out 2> seed.err
expect_same sampler-seed-dialect valid.want seed.out
grep warning seed.err && fail sampler-seed-quiet "$(head -n 2 seed.err)" || pass sampler-seed-quiet

# detection by content, not extension; modules, aux and the empty block
cp valid.trace valid.bin
$SFCONV valid.bin --to json > valid.json 2>/dev/null
if grep -q '"name":"Thread_2123"' valid.json &&
   grep -q '{"name":"@objc_msgSend","module":"/usr/lib/libobjc.A.dylib","aux":7}' valid.json &&
   grep -q '"tid":8483' valid.json; then
	pass sampler-json-fields
else
	fail sampler-json-fields "thread 2123, module or aux missing from JSON"
fi

# --- malformed input: one line with the byte offset, exit 1, no output
expect_error sampler-truncated-record 1 "^sfconv: trunc.trace: byte $(cat trunc.off): truncated record" \
	$SFCONV trunc.trace -o never.folded
[ -e never.folded ] && fail sampler-no-partial-output "never.folded left" || pass sampler-no-partial-output
expect_error sampler-unknown-frame-id 1 "^sfconv: unknown-id.trace: byte $(cat unknown-id.off): frame id 0x00000099 is not in the symbol table" \
	$SFCONV unknown-id.trace
expect_error sampler-huge-count 1 "^sfconv: huge.trace: byte [0-9]+: record frame count 1073741824 exceeds" \
	$SFCONV huge.trace
# with the limit raised the count is believed, but frames are read in
# chunks: the input ends long before 4 GiB would have been allocated
expect_error sampler-huge-count-raised-limit 1 "^sfconv: huge.trace: byte [0-9]+: truncated record" \
	$SFCONV --max-depth 2000000000 huge.trace
expect_error sampler-missing-end 1 "^sfconv: no-end.trace: byte [0-9]+: missing final '@end'" \
	$SFCONV no-end.trace
expect_error sampler-missing-end-in-symtab 1 "^sfconv: no-end-symtab.trace: byte [0-9]+: missing final '@end'" \
	$SFCONV no-end-symtab.trace
expect_error sampler-thread-id-nil 1 "^sfconv: nil-tid.trace: byte [0-9]+: expected a thread id of exactly 4 hex digits" \
	$SFCONV nil-tid.trace
expect_error sampler-thread-id-12345 1 "^sfconv: long-tid.trace: byte [0-9]+: expected a thread id of exactly 4 hex digits" \
	$SFCONV long-tid.trace
expect_error sampler-record-without-lf 1 "^sfconv: no-lf.trace: byte [0-9]+: expected LF after the 1 frame ids" \
	$SFCONV no-lf.trace
expect_error sampler-bad-magic 1 "^sfconv: bad-magic.trace: byte 14: expected '@supersamplerV1.0'" \
	$SFCONV --from sampler bad-magic.trace

# --- leniencies: accepted, each with its warning (lowercase: quietly)
$SFCONV --thread-prefix lower.trace > lower.out 2> lower.err
printf 'Thread_212A-8490;f 1\n' > lower.want
expect_same sampler-lowercase-tid lower.want lower.out
grep warning lower.err && fail sampler-lowercase-quiet "$(cat lower.err)" || pass sampler-lowercase-quiet

# check_warn NAME FILE WANT_FILE REGEX: output as wanted and a warning
check_warn() {
	$SFCONV --thread-prefix "$2" > "$1.out" 2> "$1.err"
	rc=$?
	if [ $rc -ne 0 ]; then fail "$1" "exit $rc: $(head -n 1 "$1.err")"
	elif ! cmp -s "$3" "$1.out"; then fail "$1" "output differs"; diff "$3" "$1.out" | head -n 5
	elif ! grep -Eq "^sfconv: warning: .*$4" "$1.err"; then fail "$1" "no warning /$4/: $(cat "$1.err")"
	else pass "$1"; fi
}
printf 'Thread_2122-8482;f 2\n' > repeat.want
check_warn sampler-repeated-block repeat.trace repeat.want 'more than one block; merged'
printf 'Thread_2999-10649;f 1\n' > nosym.want
check_warn sampler-thread-not-in-symtab nosym.trace nosym.want 'not in the symbol table; named Thread_2999'
printf 'Thread_2122-8482;f 2\n' > words.want
check_warn sampler-record-words words.trace words.want "record words '1 0 2'"
printf 'Thread_2122-8482;first 1\n' > dup.want
check_warn sampler-duplicate-symbol dup.trace dup.want 'defined twice; the first wins'
printf 'Thread_2122-8482;f;f;f 1\n' > full.want
check_warn sampler-end-without-lf end-no-lf.trace full.want "final '@end' has no LF"
check_warn sampler-trailing-bytes trailing.trace full.want "data after the final '@end' ignored"
printf 'Thread_2122-8482;f 1\n' > lib2.want
check_warn sampler-library2-differs lib2.trace lib2.want "second library '/b'"

# record words survive a round trip as a label
$SFCONV words.trace --to json 2>/dev/null | grep -q '\["sampler.words","1 0 2"\]' &&
	pass sampler-words-label || fail sampler-words-label "label missing from JSON"
$SFCONV words.trace -o words2.trace 2>/dev/null
python3 - <<'PY' && pass sampler-words-written || fail sampler-words-written "record words not kept"
import struct
d = open('words2.trace', 'rb').read()
i = d.index(b'@threadV1.0\t2122\n') + 17
assert d[i:i + 17] == b'\t' + struct.pack('>IIII', 1, 0, 2, 1), d[i:i + 17]
PY

# --- writer: the grammar byte for byte
printf 'main;work 2\nmain 1\n' > w.folded
$SFCONV --from collapsed --period 1 w.folded -o w.trace 2>/dev/null
expect_same sampler-writer-exact writer.expected w.trace

# round trips of writer output are byte-identical: sampler -> json ->
# sampler, sampler -> sampler, on a file with binary-looking ids
$SFCONV valid.trace -o rt1.trace 2>/dev/null
$SFCONV rt1.trace -o rt1.json 2>/dev/null
$SFCONV rt1.json -o rt2.trace 2>/dev/null
expect_same sampler-roundtrip-json rt1.trace rt2.trace
$SFCONV rt1.trace -o rt3.trace 2>/dev/null
expect_same sampler-roundtrip-sampler rt1.trace rt3.trace
$SFCONV --thread-prefix rt1.trace > rt1.out 2>/dev/null
expect_same sampler-roundtrip-same-stacks valid.want rt1.out
python3 -c "import sys; sys.exit(0 if b'@threadV1.0\t2123\n@end\n' in open('rt1.trace','rb').read() else 1)" &&
	pass sampler-empty-block-written || fail sampler-empty-block-written "thread 2123 lost"

# more than 233 symbols: ids reach 0x220A (an LF byte) and still read back
python3 -c "
for i in range(300): print('main;f%d 1' % i)" > many.folded
$SFCONV --from collapsed --period 1 many.folded -o many.trace 2>/dev/null
$SFCONV many.trace > many.out 2>/dev/null
LC_ALL=C sort many.folded > many.want
expect_same sampler-id-0x220a-roundtrip many.want many.out

# non-integer weights: rounded records, with a warning
printf 'a;b 2.6\n' > frac.folded
$SFCONV --from collapsed --period 1 frac.folded -o frac.trace 2> frac.err
$SFCONV frac.trace > frac.out 2>/dev/null
printf 'a;b 3\n' > frac.want
expect_same sampler-weights-rounded frac.want frac.out
grep -q 'warning: .*rounded' frac.err && pass sampler-weights-rounded-warning ||
	fail sampler-weights-rounded-warning "no warning: $(cat frac.err)"

# TAB and LF in names: LF -> '/', TAB -> ' ', with a warning
cat > tab.json <<'J'
{"format":"sftools-profile","version":1,"sample_types":[{"type":"samples","unit":"count"}],
 "threads":[{"tid":5,"name":"w\tx"}],"frames":[{"name":"a\tb\nc","module":"/lib\n"}],
 "stacks":[[0,0]],"samples":[[1,0,null,0,1]]}
J
$SFCONV tab.json -o tab.trace 2> tab.err
$SFCONV --thread-prefix tab.trace > tab.out 2>/dev/null
printf 'w x-5;a b/c 1\n' > tab.want   # tid 5 fits the 16-bit field: kept
expect_same sampler-names-sanitised tab.want tab.out
grep -q "warning: names with TAB or LF" tab.err && pass sampler-names-sanitised-warning ||
	fail sampler-names-sanitised-warning "no warning: $(cat tab.err)"

# a 5,000-frame record: frame ids cross several 1024-id read chunks
python3 -c "print(';'.join('f%d' % (i % 700) for i in range(5000)) + ' 2')" > deep.folded
$SFCONV --from collapsed --period 1 deep.folded -o deep.trace 2>/dev/null
$SFCONV deep.trace > deep.out 2>/dev/null
expect_same sampler-deep-record deep.folded deep.out

# weights that are not sample counts (a collapsed file of nanoseconds) are
# never expanded into one record per unit: refused up front, no file left
# behind; --period N writes one record per N units (2004008 / 1000000 ->
# 2 records of main;b, read back as weight 2)
printf 'main;b 2004008\n' > ns.folded
expect_error sampler-uncounted-refused 2 'not sample counts.*--period N' \
	$SFCONV ns.folded -o ns.trace
[ -e ns.trace ] && fail sampler-uncounted-no-output "ns.trace left behind" ||
	pass sampler-uncounted-no-output
$SFCONV ns.folded --period 1000000 -o ns.trace 2>/dev/null
$SFCONV ns.trace > ns.out 2>/dev/null
printf 'main;b 2\n' > ns.want
expect_same sampler-period-scales ns.want ns.out
# the cpuprofile writer refuses the same way (one shared rule)
expect_error cpuprofile-uncounted-refused 2 'not sample counts.*--period N' \
	$SFCONV -q ns.folded -o ns.cpuprofile
# perf counted its samples: one record per sample, no --period needed
# (basic.perf: cycles samples of 1000, 3000 and 2000 events, the
# instructions one filtered out: 3 records, not 6000)
$SFCONV "$FIX/perf/basic.perf" -o perf.trace 2>/dev/null
want=3
got=$($SFCONV perf.trace --to collapsed 2>/dev/null | awk '{s += $NF} END {print s}')
[ -n "$want" ] && [ "$want" = "$got" ] && pass sampler-perf-one-record-per-sample ||
	fail sampler-perf-one-record-per-sample "$got records for $want samples"
# thread ids: kept when they fit the 16-bit field (2122 = 0x084A, 8482 =
# 0x2122), mapped to the lowest free id from 0x2122 up when not (123456 ->
# 0x2123, as 0x2122 is taken), the mapping stated on stderr and kept in the
# thread symbol's library field, so the reader restores the real id
cat > tid.json <<'J'
{"format":"sftools-profile","version":1,"sample_types":[{"type":"samples","unit":"count"}],
 "threads":[{"pid":7,"tid":2122,"name":"main"},{"pid":7,"tid":123456,"name":"w1"},{"pid":7,"tid":8482,"name":"w2"}],
 "frames":[{"name":"a","module":"/lib/x.so"},{"name":"b","file":"b.c","line":3}],
 "stacks":[[0,0],[1,1]],"label_sets":[[["state","running"]]],
 "samples":[[1,0,5,1,1],[2,1,null,0,1],[1,2,null,0,2]]}
J
$SFCONV tid.json -o tid.trace 2> tid.err
python3 - <<'PY' && pass sampler-tid-fields || fail sampler-tid-fields "thread blocks or symbols not as computed"
import struct
d = open('tid.trace', 'rb').read()
def sym(i, name, lib):
    return b'\t' + struct.pack('>I', i) + b'\t' + struct.pack('>I', 0) + b'\t' + name + b'\t' + lib + b'\t' + lib + b'\n'
assert sym(0x084A, b'main', b'main') in d
assert sym(0x2123, b'w1', b'tid=123456') in d
assert sym(0x2122, b'w2', b'w2') in d
for t in (b'084A', b'2123', b'2122'):
    assert b'@threadV1.0\t' + t + b'\n' in d, t
# frame symbols from max(0x2122 + 3 blocks, highest thread id + 1)
assert sym(0x2125, b'a', b'/lib/x.so') in d
PY
printf 'main-2122;a 1\nw1-123456;a;b 1\nw2-8482;a 2\n' > tid.want
$SFCONV --thread-prefix tid.trace > tid.out 2>/dev/null
expect_same sampler-tid-read-back tid.want tid.out
grep -q "warning: 1 thread id did not fit Sampler's 16-bit thread field and was replaced (the thread's symbol says tid=ID): 123456 as 2123$" tid.err &&
	pass sampler-tid-mapping-stated || fail sampler-tid-mapping-stated "$(cat tid.err)"
grep -q "warning: Sampler output drops timestamps, process ids, source files and lines, sample labels (state)$" tid.err &&
	pass sampler-says-what-it-drops || fail sampler-says-what-it-drops "$(cat tid.err)"
$SFCONV tid.trace -o tid2.trace 2>/dev/null
expect_same sampler-tid-roundtrip-bytes tid.trace tid2.trace
