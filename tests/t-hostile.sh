# Hostile inputs (issue "hostile inputs and hostile neighbours"): names
# with a NUL are refused where they are, never cut; numbers out of range
# are refused or saturated with a warning; bad UTF-8 never makes an SVG
# that XML parsers refuse.  Every hostile file is made here.
. "$TOP/tests/lib.sh"

# no_output NAME FILE: the failed conversion left no output file
no_output() {
	if [ -e "$2" ]; then fail "$1" "output file $2 left behind"
	else pass "$1"; fi
}

# ---------------------------------------------------------------------
# 1. A NUL inside a name.  The model's names are C strings, so the
# readers refuse it with its position instead of cutting the name there
# ("parse\u0000args" must not become "parse").
printf '{"nodes":[{"id":1,"callFrame":{"functionName":"(root)"},"children":[2]},\n{"id":2,"callFrame":{"functionName":"parse\\u0000args"}}],\n"startTime":0,"endTime":1,"samples":[2],"timeDeltas":[1]}\n' \
	> nul.cpuprofile
expect_error nul-cpuprofile 1 '^sfconv: nul\.cpuprofile:2: .*NUL' \
	$SFCONV nul.cpuprofile -o nul1.folded
no_output nul-cpuprofile-no-output nul1.folded

printf '{"$schema":"https://www.speedscope.app/file-format-schema.json",\n"shared":{"frames":[{"name":"a"},\n{"name":"parse\\u0000args"}]},\n"profiles":[{"type":"sampled","name":"x","unit":"none","startValue":0,"endValue":1,"samples":[[0,1]],"weights":[1]}]}\n' \
	> nul.speedscope.json
expect_error nul-speedscope 1 '^sfconv: nul\.speedscope\.json:3: .*NUL' \
	$SFCONV nul.speedscope.json -o nul2.folded
no_output nul-speedscope-no-output nul2.folded

# \u0100 is not a NUL and stays
printf '{"nodes":[{"id":1,"callFrame":{"functionName":"(root)"},"children":[2]},{"id":2,"callFrame":{"functionName":"x\\u0100y"}}],"startTime":0,"endTime":1,"samples":[2],"timeDeltas":[1]}' \
	> u100.cpuprofile
printf 'x\304\200y 1\n' > u100.want
$SFCONV u100.cpuprofile -t collapsed -o u100.folded 2>/dev/null
expect_same not-nul-kept u100.want u100.folded

if have python3; then
	# Sampler: symbol names are TAB-separated text; the NUL is at byte
	# len(HEAD) + 13 (TAB, id, TAB, word, TAB, "pa")
	python3 - <<'PY'
import struct
be = lambda x: struct.pack('>I', x)
HEAD = b'@supersamplerV1.0\n@symboltableV1.1\n'
sym = b'\t' + be(0x2200) + b'\t' + be(0) + b'\tpa\x00rse\t\t\n'
rec = b'\t' + be(1) + be(0) + be(1) + be(1) + be(0x2200) + b'\n'
open('nul.trace', 'wb').write(HEAD + sym + b'@end\n@threadV1.0\t2122\n' +
                              rec + b'@end\n')
open('nul.off', 'w').write(str(len(HEAD) + 13))
PY
	expect_error nul-sampler 1 \
		"^sfconv: nul\\.trace: byte $(cat nul.off): .*NUL" \
		$SFCONV nul.trace -o nul3.folded
	no_output nul-sampler-no-output nul3.folded
else
	skip nul-sampler "python3 is needed to write a binary Sampler file"
fi

# ---------------------------------------------------------------------
# 2. Numbers out of range.  pprof values are int64: a weight beyond it is
# written as INT64_MAX with a warning (it was written as 0, and the stack
# vanished).  Read back, INT64_MAX is the double 2^63, which python
# prints as 9.223372036854776e+18.
printf 'a;b 99999999999999999999\nc 1\n' > big.folded
$SFCONV big.folded -o big.pb.gz 2>big.err
if grep -q 'warning: pprof values are int64' big.err; then
	pass pprof-saturate-warns
else
	fail pprof-saturate-warns "no warning: $(head -n 2 big.err)"
fi
printf 'a;b 9.223372036854776e+18\nc 1\n' > big.want
$SFCONV big.pb.gz -t collapsed -o big.back 2>/dev/null
expect_same pprof-saturate-value big.want big.back

# xctrace: <tid>, <pid> and <sample-time> become int64; a value beyond it
# is refused on its line (it was undefined behaviour)
X=$FIX/xctrace/basic.xml
for t in 'tid:>16</tid>:>99999999999999999999</tid>' \
	 'pid:>5</pid>:>1e30</pid>' \
	 'time:>1000000</sample-time>:>-9223372036854775809</sample-time>' \
	 'time-inf:>1000000</sample-time>:>inf</sample-time>'; do
	n=${t%%:*}; r=${t#*:}
	sed "s:$r:" "$X" > "x-$n.xctrace.xml"
	expect_error "xctrace-range-$n" 1 \
		"^sfconv: x-$n\\.xctrace\\.xml:4: number .* out of range" \
		$SFCONV "x-$n.xctrace.xml" -o "x-$n.folded"
	no_output "xctrace-range-$n-no-output" "x-$n.folded"
done

# .cpuprofile time deltas are int64 microseconds: samples whose weights
# add up beyond that are refused, never cast (a fuzz finding: a perf
# period of 2.5e51 ns was undefined behaviour in the writer)
printf 'a;b 5e60\n' > long.folded
$SFCONV --from collapsed long.folded -o long.json 2>/dev/null
sed 's/"sample_types":\[[^]]*\]/"sample_types":[{"type":"cpu","unit":"nanoseconds"}]/' \
	long.json > long-ns.json
expect_error cpuprofile-span-refused 1 \
	'^sfconv: long\.cpuprofile: the samples would last 5e\+57 microseconds' \
	$SFCONV -q long-ns.json -o long.cpuprofile
no_output cpuprofile-span-no-output long.cpuprofile

# an empty or blank xctrace file says so (not "Extra content at the end
# of the document")
: > empty.xctrace.xml
expect_error xctrace-empty 1 '^sfconv: empty\.xctrace\.xml: empty input' \
	$SFCONV empty.xctrace.xml -o empty.folded
printf '\n  \n' > blank.xctrace.xml
expect_error xctrace-blank 1 '^sfconv: blank\.xctrace\.xml: empty input' \
	$SFCONV blank.xctrace.xml -o blank.folded

# ---------------------------------------------------------------------
# 3. Invalid UTF-8 in names: an overlong '/' (C0 AF), a lone FF, a
# surrogate (ED A0 80).  Formats that carry bytes keep them (see
# t-reliability.sh); the SVG replaces them with U+FFFD, says so, and
# stays well-formed XML.
printf 'a\377b;c\300\257;\355\240\200x 1\nok;\303\251 2\n' > utf8.folded
$SFCONV utf8.folded -o utf8.svg 2>utf8.err
if ! have xmllint; then
	skip svg-bad-utf8-wellformed "xmllint missing (libxml2-utils)"
elif xmllint --noout utf8.svg 2>xml.err; then
	pass svg-bad-utf8-wellformed
else
	fail svg-bad-utf8-wellformed "$(head -n 2 xml.err)"
fi
grep -q 'warning: names with invalid UTF-8' utf8.err &&
	pass svg-bad-utf8-warns || fail svg-bad-utf8-warns "no warning"
# C0 AF is two bytes that are no character: two U+FFFD, as a browser
# decodes it
grep -q "<title>c$(printf '\357\277\275\357\277\275') (" utf8.svg &&
	pass svg-overlong-replaced ||
	fail svg-overlong-replaced "C0 AF not shown as two U+FFFD"
grep -q "<title>$(printf '\303\251') (" utf8.svg &&
	pass svg-valid-utf8-kept || fail svg-valid-utf8-kept "é was changed"

# ---------------------------------------------------------------------
# 4. Memory without bound.  Small files that expand: each is refused by a
# limit with one line naming it, before the memory is committed.  A
# sanitizer build sets no budget and cannot start under ulimit -v (ASan
# reserves terabytes of address space): there only the depth check runs.
capped="ulimit -v 524288;"
sh -c "$capped exec $SFCONV --version" >/dev/null 2>&1 || capped=
if have python3; then
	# pprof.py N_LINES REFS SAMPLES: a profile whose location 1 has
	# N_LINES inline lines; each of SAMPLES samples names it REFS times
	# under a root location of its own (so their stacks share nothing)
	cat > pprof.py <<'PY'
import gzip, sys
def varint(v):
    out = bytearray()
    while True:
        b = v & 0x7f; v >>= 7
        if v: out.append(b | 0x80)
        else: out.append(b); return bytes(out)
def ld(f, b): return varint(f << 3 | 2) + varint(len(b)) + b
def vi(f, v): return varint(f << 3) + varint(v)
nlines, refs, nsamples = map(int, sys.argv[1:4])
body = ld(1, vi(1, 1) + vi(2, 2))                     # bytes 0-5
for k in range(nsamples):                             # the first at byte 6
    body += ld(2, ld(1, b'\x01' * refs + varint(k + 2)) + ld(2, b'\x01'))
body += ld(4, vi(1, 1) + b''.join(ld(4, vi(1, 1) + vi(2, i + 1))
                                  for i in range(nlines)))
for k in range(nsamples):
    body += ld(4, vi(1, k + 2) + ld(4, vi(1, 1) + vi(2, 5000 + k)))
body += ld(5, vi(1, 1) + vi(2, 3))
body += b''.join(ld(6, s) for s in [b'', b'samples', b'count', b'f'])
sys.stdout.buffer.write(gzip.compress(body, 9))
PY
	# 4,096 inline lines named 2,000,000 times: 8G frames from 10 KB.
	# --max-depth is checked before the stack is built, so this fails
	# at once within 512 MiB of address space
	python3 pprof.py 4096 2000000 1 > depth.pb.gz
	expect_error pprof-depth-before-memory 1 \
		'^sfconv: depth\.pb\.gz: byte 6: sample has more than 1048576 frames \(--max-depth\)$' \
		sh -c "$capped exec $SFCONV depth.pb.gz -o depth.folded"
	no_output pprof-depth-no-output depth.folded
fi
if ! have python3; then
	skip memory-bombs "python3 is needed to write the inputs"
elif [ -z "$capped" ]; then
	skip memory-budget "$SFCONV does not start under ulimit -v (sanitizer build: no budget)"
else
	# 20 samples of 1,024,001 frames each, all different: about 80 MB
	# of model each, from 6 KB; the budget stops it
	python3 pprof.py 4096 250 20 > budget.pb.gz
	expect_error pprof-max-memory 1 \
		'^sfconv: budget\.pb\.gz: .*out of memory: more than the memory limit of 512M \(--max-memory\)$' \
		$SFCONV --max-memory 512M budget.pb.gz -o budget.folded
	no_output pprof-max-memory-no-output budget.folded

	# a .cpuprofile.gz of 40M empty arrays: 120 MB of JSON in 120 KB,
	# a json-c tree of several GB if it were built.  In a member the
	# reader does not know ("extra") they are checked and dropped: the
	# file reads under a small budget (it was refused by the tree check)
	python3 -c 'import gzip, sys
sys.stdout.buffer.write(gzip.compress(b"{\"nodes\":[{\"id\":1,\"callFrame\":"
    b"{\"functionName\":\"(root)\"},\"children\":[2]},{\"id\":2,"
    b"\"callFrame\":{\"functionName\":\"a\"}}],\"extra\":[" +
    b"[],"*40000000 + b"[]],\"samples\":[2,2],\"timeDeltas\":[1,1]}", 9))' \
	> tree.cpuprofile.gz
	printf 'a 2\n' > tree.want
	expect_status cpuprofile-unknown-member-dropped 0 \
		$SFCONV -q --max-memory 64M tree.cpuprofile.gz -o tree.folded
	expect_same cpuprofile-unknown-member-read tree.want tree.folded
	# a key with an escape might spell one the reader knows, so that
	# member still goes to json-c's tree: checked against the budget as
	# it grows, with the true message (it used to be "unexpected data
	# after the JSON document" under a cap)
	python3 -c 'import gzip, sys
sys.stdout.buffer.write(gzip.compress(b"{\"nodes\":[],\"ext\\u0072a\":[" +
    b"[],"*40000000 + b"[]],\"samples\":[],\"timeDeltas\":[]}", 9))' \
	> tree2.cpuprofile.gz
	expect_error cpuprofile-tree-max-memory 1 \
		'^sfconv: tree2\.cpuprofile\.gz:1: the JSON tree outgrows the memory limit: [0-9]+ MiB in use, limit 256 MiB \(--max-memory\)$' \
		$SFCONV --max-memory 256M tree2.cpuprofile.gz -o tree2.json
	# under ulimit -v the lower limit is the budget
	expect_error cpuprofile-tree-ulimit 1 \
		'^sfconv: tree2\.cpuprofile\.gz:1: the JSON tree outgrows the memory limit: [0-9]+ MiB in use, limit 500 MiB' \
		sh -c "ulimit -v 512000; exec $SFCONV tree2.cpuprofile.gz -o tree2.json"
	no_output cpuprofile-tree-no-output tree2.json
	rm -f tree.cpuprofile.gz tree2.cpuprofile.gz

	# an endless line (300 MB, no LF) with --max-line 128M on one
	# thread: the buffer grows by moving pages, not by copying them, so
	# 200 MB of address space is enough for the --max-line message (it
	# needed about twice --max-line)
	head -c 300000000 /dev/zero | tr '\0' a > endless.txt
	expect_error endless-line-bounded 1 \
		'^sfconv: endless\.txt:1: line longer than 134217728 bytes \(--max-line\)$' \
		sh -c "ulimit -v 204800; exec $SFCONV -j1 --from collapsed --max-line 128M endless.txt -o endless.folded"
	rm -f endless.txt
fi

# pprof messages name the byte of the field at fault (they said byte 0):
# a comment (field 13, at byte 6) naming string 50 of 3
printf '\n\004\010\001\020\002\150\062\062\000\062\001a\062\001b' > comment.pb
expect_error pprof-comment-offset 1 \
	'^sfconv: comment\.pb: byte 6: string index 50 out of range' \
	$SFCONV --from pprof comment.pb -o comment.json

# a text that is no sample report names the line where the reader
# stopped: the end
printf 'Sampling process 1\nnothing else\n' > none.sample.txt
expect_error sample-no-call-graph-line 1 \
	"^sfconv: none\\.sample\\.txt:2: no 'Call graph:' line up to the end" \
	$SFCONV --from sample none.sample.txt -o none.json

# ---------------------------------------------------------------------
# 5. Output files.  -o over an existing file keeps its permission bits and
# group; a name of NAME_MAX bytes works (the ".NAME.XXXXXX" temporary name
# used to overflow it); a SIGKILL during the write leaves nothing where
# the file system has O_TMPFILE.
mkdir -p out
printf 'a;b 1\n' > out/in.folded
printf 'old\n' > out/keep.folded
chmod 600 out/keep.folded
grp=
if [ "$(id -u)" -eq 0 ] && getent group nogroup >/dev/null; then
	chgrp nogroup out/keep.folded && grp=nogroup
fi
want=$(stat -c '%a %G' out/keep.folded)
$SFCONV out/in.folded -t collapsed -o out/keep.folded
got=$(stat -c '%a %G' out/keep.folded)
if [ "$got" = "$want" ] && cmp -s out/in.folded out/keep.folded; then
	pass output-keeps-mode${grp:+-and-group}
else
	fail output-keeps-mode${grp:+-and-group} "was '$want', now '$got'"
fi
# a new file gets 0666 less the umask
(umask 027; $SFCONV out/in.folded -t collapsed -o out/new.folded)
[ "$(stat -c %a out/new.folded)" = 640 ] && pass output-new-file-umask ||
	fail output-new-file-umask "mode $(stat -c %a out/new.folded)"

# long names: 250 and 255 (NAME_MAX) bytes
for len in 250 255; do
	n=$(printf "%${len}s" '' | tr ' ' n)
	if $SFCONV out/in.folded -t collapsed -o "out/$n" 2>long.err &&
	   cmp -s out/in.folded "out/$n"; then
		pass "output-name-$len-bytes"
	else
		fail "output-name-$len-bytes" "$(head -n 1 long.err)"
	fi
	rm -f "out/$n"
done

# the fault-injection shim (tests/fault/inject.c) raises SIGKILL at a
# chosen write, and can make O_TMPFILE fail as on a file system without it
if ! cc -O2 -shared -fPIC -o inject.so "$TOP/tests/fault/inject.c" -ldl 2>inject.err; then
	skip output-sigkill "cannot build the LD_PRELOAD shim: $(head -n 1 inject.err)"
	exit 0
fi
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
export ASAN_OPTIONS
# 60,000 lines: several writes of the 256 KiB output buffer
awk 'BEGIN { for (i = 0; i < 60000; i++) printf "main;f%d;g%d %d\n", i, i % 7, i + 1 }' \
	> big.folded
# only_input NAME DIR: DIR holds nothing but in.folded (no output, no
# temporary file of any name)
only_input() {
	left=$(ls -A "$2" | grep -v '^in\.folded$' | head -n 3)
	if [ -z "$left" ]; then pass "$1"; else fail "$1" "left behind: $left"; fi
}
rm -rf kill && mkdir kill && cp big.folded kill/in.folded
tmpfile_ok=$(python3 -c 'import os,sys
try: os.close(os.open(sys.argv[1], os.O_TMPFILE | os.O_WRONLY, 0o600)); print(1)
except OSError: pass' kill 2>/dev/null)
for at in write:3 fsync:1; do
	SF_FAULT="signal:$at:KILL" LD_PRELOAD=$SF_TMP/inject.so \
		$SFCONV kill/in.folded -t lines -o kill/out.lines 2>/dev/null
	st=$?
	[ $st -eq 137 ] || fail "sigkill-$at-status" "status $st, expected 137"
	if [ -n "$tmpfile_ok" ]; then
		only_input "sigkill-at-$at-leaves-nothing" kill
	else
		skip "sigkill-at-$at-leaves-nothing" "no O_TMPFILE on this file system"
	fi
	rm -f kill/.out.lines.* kill/out.lines
done
# without O_TMPFILE the temporary file is named .BASE.XXXXXX (BASE cut to
# fit NAME_MAX), as docs/RELIABILITY.md says; SIGKILL leaves that one
SF_FAULT="signal:write:3:KILL,notmpfile" LD_PRELOAD=$SF_TMP/inject.so \
	$SFCONV kill/in.folded -t lines -o kill/out.lines 2>/dev/null
left=$(ls -A kill | grep -v '^in\.folded$')
case $left in
.out.lines.??????) pass sigkill-no-tmpfile-leaves-named-temp ;;
*) fail sigkill-no-tmpfile-leaves-named-temp "left: '$left'" ;;
esac
rm -f kill/.out.lines.*
n=$(printf "%255s" '' | tr ' ' n)
if SF_FAULT=notmpfile LD_PRELOAD=$SF_TMP/inject.so \
	$SFCONV out/in.folded -t collapsed -o "out/$n" 2>long.err &&
   cmp -s out/in.folded "out/$n"; then
	pass output-name-255-bytes-no-tmpfile
else
	fail output-name-255-bytes-no-tmpfile "$(head -n 1 long.err)"
fi

# A mapped input that another process cuts short while it is read (the
# native JSON, perf.data and perf script readers map regular files)
# raises SIGBUS: one line, exit 1, no output left.  The shim cuts the
# file to half its size right after it is mapped, so the moment is
# always the same.
rm -rf cut && mkdir cut
awk 'BEGIN { for (i = 0; i < 5000; i++) printf "main;f%d 1\n", i }' > cut.folded
$SFCONV cut.folded -t json -o cut/in.json 2>/dev/null
expect_error mapped-input-cut-short 1 \
	'^sfconv: an input file was cut short while it was read \(SIGBUS\)$' \
	env ASAN_OPTIONS="$ASAN_OPTIONS:handle_sigbus=0" SF_FAULT=cutmapped \
	LD_PRELOAD="$SF_TMP/inject.so" $SFCONV cut/in.json -t collapsed \
	-o cut/out.folded
left=$(ls -A cut | grep -v '^in\.json$' | head -n 3)
if [ -z "$left" ]; then pass mapped-input-cut-short-no-output
else fail mapped-input-cut-short-no-output "left behind: $left"; fi
# the perf script reader reads a regular file where it is mapped too
# (sf_input_view): the same line when it is cut short
awk 'BEGIN { for (i = 0; i < 2000; i++)
	printf "app %d %d.000001: 1 cycles:\n\tffff f%d+0x1 (m)\n\n", i % 7, i, i }' \
	> cut/in.perf
expect_error mapped-perf-script-cut-short 1 \
	'^sfconv: an input file was cut short while it was read \(SIGBUS\)$' \
	env ASAN_OPTIONS="$ASAN_OPTIONS:handle_sigbus=0" SF_FAULT=cutmapped \
	LD_PRELOAD="$SF_TMP/inject.so" $SFCONV -j1 cut/in.perf -t collapsed \
	-o cut/out.folded
left=$(ls -A cut | grep -v '^in\.json$' | grep -v '^in\.perf$' | head -n 3)
if [ -z "$left" ]; then pass mapped-perf-script-cut-short-no-output
else fail mapped-perf-script-cut-short-no-output "left behind: $left"; fi
# in parts on three threads, each part a range mapped on its own thread:
# the first mapping cuts the file to half before any part reads, so the
# third part, all past the half, always reads past the new end (a
# thread with the signal blocked would kill the process silently)
awk 'BEGIN { for (i = 0; i < 2000; i++)
	printf "app %d %d.000001: 1 cycles:\n\tffff f%d+0x1 (m)\n\n", i % 7, i, i }' \
	> cut/in.perf
expect_error mapped-perf-script-parts-cut-short 1 \
	'^sfconv: an input file was cut short while it was read \(SIGBUS\)$' \
	env ASAN_OPTIONS="$ASAN_OPTIONS:handle_sigbus=0" SF_FAULT=cutmapped \
	SF_SPLIT_MIN=1024 LD_PRELOAD="$SF_TMP/inject.so" $SFCONV -j3 \
	cut/in.perf -t collapsed -o cut/out.folded
