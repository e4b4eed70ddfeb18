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
