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
# 4. Output files.  -o over an existing file keeps its permission bits and
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
