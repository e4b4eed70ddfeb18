# tier: slow
# Hostile input: truncation at every byte, gzip bombs, a million-frame
# stack, a 100 MB line, NUL and invalid UTF-8 in names, one-line errors
# with a position, counted warnings.  See docs/RELIABILITY.md.
. "$TOP/tests/lib.sh"

CORPUS=$TOP/tests/fuzz/corpus
readers=$($SFCONV --list-formats | awk '$2 ~ /^r/ {print $1}')

# crashed STATUS: killed by a signal or a sanitizer report (ASan exits 1
# too, so stderr is checked for its banner as well)
crashed() {
	[ "$1" -ge 128 ] && return 0
	grep -q -e 'ERROR: AddressSanitizer' -e 'runtime error:' \
		-e 'ERROR: LeakSanitizer' "$2" 2>/dev/null
}

# one_line_error FILE: stderr is one line "sfconv: ..." naming the input
one_line_error() { # errfile inputname
	[ "$(grep -c . "$1")" -eq 1 ] && grep -q "^sfconv: $2" "$1"
}

# same_big NAME EXPECTED ACTUAL: byte equality without printing a diff
same_big() {
	if cmp -s "$2" "$3"; then pass "$1"; else
		fail "$1" "$(cmp "$2" "$3" 2>&1 | head -c 200)"; fi
}

# ---------------------------------------------------------------------
# 1. Truncation at every byte offset of each small valid binary input.
# The list is built here: gzip'd copies of the text seeds (made now, by
# gzip) and every seed of a readable format that is not plain text (so
# binary formats added later are covered by their fuzz seeds).
mkdir -p trunc
for f in "$TOP"/tests/fixtures/collapsed/handmade.folded \
	 "$CORPUS"/lines/basic.lines "$CORPUS"/json/small.json; do
	case $f in *.folded) fmt=collapsed ;; *.lines) fmt=lines ;; *) fmt=json ;; esac
	gzip -n -c "$f" > "trunc/$fmt.$(basename "$f").gz"
done
for fmt in $readers; do
	for f in "$CORPUS/$fmt"/*; do
		[ -f "$f" ] || continue
		# binary: any byte outside TAB, LF, CR, printable ASCII, 0x80-0xff
		if [ "$(tr -d '\11\12\15\40-\176\200-\377' < "$f" | wc -c)" -gt 0 ]; then
			cp "$f" "trunc/$fmt.$(basename "$f")"
		fi
	done
done
ntrunc=0
for f in trunc/*; do
	fmt=$(basename "$f"); fmt=${fmt%%.*}
	size=$(wc -c < "$f")
	gz=0; [ "$(head -c 2 "$f" | od -An -tx1 | tr -d ' \n')" = 1f8b ] && gz=1
	# at most ~400 runs per file: every byte of small files, else a stride
	step=$(( size / 400 + 1 ))
	bad=""
	k=0
	while [ $k -lt "$size" ]; do
		head -c $k "$f" > cut
		$SFCONV --from "$fmt" -t json cut > cut.out 2> cut.err
		st=$?
		if crashed $st cut.err; then
			bad="offset $k: crashed (status $st): $(head -n 3 cut.err)"; break
		fi
		if [ $st -ne 0 ] && [ $st -ne 1 ]; then
			bad="offset $k: status $st: $(head -n 1 cut.err)"; break
		fi
		if [ $st -eq 1 ] && ! one_line_error cut.err cut; then
			bad="offset $k: not one 'sfconv: cut...' line: $(head -n 3 cut.err)"; break
		fi
		if [ $gz -eq 1 ] && [ $k -ge 2 ] && [ $st -eq 0 ]; then
			# gzip has a length and CRC trailer: no prefix is valid
			bad="offset $k: truncated gzip accepted"; break
		fi
		if [ $gz -eq 1 ] && [ $k -ge 10 ] && ! grep -q gzip cut.err; then
			bad="offset $k: message does not say gzip: $(cat cut.err)"; break
		fi
		if [ $st -eq 0 ] && ! $SFCONV --from json cut.out >/dev/null 2>&1; then
			# a prefix the format accepts must be a whole profile
			bad="offset $k: accepted prefix is not a valid profile"; break
		fi
		k=$((k + step))
	done
	ntrunc=$((ntrunc + 1))
	if [ -z "$bad" ]; then pass "truncate-every-byte-$(basename "$f")"
	else fail "truncate-every-byte-$(basename "$f")" "$bad"; fi
done
[ $ntrunc -ge 3 ] || fail truncate-list "only $ntrunc binary inputs found"

# the whole files still convert (the cut loop stops one byte short)
for f in trunc/*; do
	fmt=$(basename "$f"); fmt=${fmt%%.*}
	expect_status "truncate-whole-$(basename "$f")" 0 $SFCONV --from "$fmt" "$f"
done

# ---------------------------------------------------------------------
# 2. Gzip bombs.  One member "a;b 1\n", then 128 members of 64 MiB of
# zeros: 8 GiB out of ~8 MB.  Zeros hold no LF, so the default limits
# refuse the endless second line (--max-line, 256 MiB); a lower
# --max-decompressed refuses first.  In the plain pass this runs under
# `ulimit -v` 1 GiB (ASan reserves terabytes of address space, so the
# sanitizer builds check the messages without the memory limit).
printf 'a;b 1\n' | gzip -n > bomb.gz
head -c 67108864 /dev/zero | gzip -n -9 > m.gz
for i in 1 2 3 4 5 6 7; do cat m.gz m.gz > m2.gz; mv m2.gz m.gz; done
cat m.gz >> bomb.gz
rm -f m.gz
memlimit="ulimit -v 1048576;"
if ! sh -c "$memlimit exec $SFCONV --version" >/dev/null 2>&1; then
	memlimit=""   # a sanitizer build cannot start under the limit
	[ "$SF_PASS" = san ] || skip gzip-bomb-memory-limit "$SFCONV does not start under ulimit -v (sanitizer build?)"
fi
sh -c "$memlimit exec \"\$@\"" sh $SFCONV --max-decompressed 100M bomb.gz > bomb.out 2> bomb.err
st=$?
if [ $st -eq 1 ] && one_line_error bomb.err bomb.gz &&
   grep -q 'decompressed input exceeds 104857600 bytes (--max-decompressed)' bomb.err; then
	pass gzip-bomb-max-decompressed
else
	fail gzip-bomb-max-decompressed "status $st: $(head -n 2 bomb.err)"
fi
sh -c "$memlimit exec \"\$@\"" sh $SFCONV bomb.gz > bomb.out 2> bomb.err
st=$?
if [ $st -eq 1 ] && one_line_error bomb.err bomb.gz:2 &&
   grep -q 'line longer than 268435456 bytes (--max-line)' bomb.err; then
	pass gzip-bomb-default-limits${memlimit:+-under-1GiB}
else
	fail gzip-bomb-default-limits "status $st: $(head -n 2 bomb.err)"
fi
rm -f bomb.gz
# A JSON bomb: one string of 4 GiB.  json-c would build it in memory;
# every JSON string is capped at --max-name (1 MiB) before json-c sees it.
printf '{"format":"sftools-profile","version":1,"x":"' | gzip -n > jbomb.gz
head -c 67108864 /dev/zero | tr '\0' a | gzip -n -9 > ma.gz
for i in 1 2 3 4 5 6; do cat ma.gz ma.gz > m2.gz; mv m2.gz ma.gz; done
cat ma.gz >> jbomb.gz
rm -f ma.gz
sh -c "$memlimit exec \"\$@\"" sh $SFCONV jbomb.gz > bomb.out 2> bomb.err
st=$?
if [ $st -eq 1 ] && one_line_error bomb.err jbomb.gz:1 &&
   grep -q 'JSON string longer than 1048576 bytes (--max-name)' bomb.err; then
	pass gzip-bomb-json-string
else
	fail gzip-bomb-json-string "status $st: $(head -n 2 bomb.err)"
fi
rm -f jbomb.gz
# --max-decompressed also bounds a plain JSON document (json-c holds all
# of it): the 2nd seed is 161+ bytes
expect_error json-document-size 1 'small.json:1: JSON document larger than 100 bytes \(--max-decompressed\)' \
	$SFCONV --max-decompressed 100 "$CORPUS/json/small.json"

# ---------------------------------------------------------------------
# 3. Deep stacks.  A line of 1,000,000 frames is accepted (default
# --max-depth 1,048,576); writers and the JSON reader do not recurse.
python3 - <<'P'
def line(n):
    return ';'.join('f%d' % (i % 1000) for i in range(n)) + ' 1\n'
open('deep.folded', 'w').write(line(1000000))
open('limit.folded', 'w').write(line(1048576))
open('over.folded', 'w').write(line(1048577))
P
# one input line, so the sorted output is that line
$SFCONV deep.folded > deep.out 2> deep.err
same_big deep-stack-1e6-collapsed deep.folded deep.out
$SFCONV deep.folded -t json -o deep.json && $SFCONV deep.json > deep.back 2> deep.err
same_big deep-stack-1e6-json-round-trip deep.folded deep.back
$SFCONV deep.folded -t lines > deep.lines && $SFCONV deep.lines > deep.back2 2>deep.err
same_big deep-stack-1e6-lines-round-trip deep.folded deep.back2
$SFCONV limit.folded > deep.out 2> deep.err
same_big deep-stack-at-default-limit limit.folded deep.out
expect_error deep-stack-over-default-limit 1 \
	'^sfconv: over.folded:1: stack deeper than the limit of 1048576 frames \(--max-depth\)$' \
	$SFCONV over.folded
expect_error deep-stack-max-depth 1 \
	'^sfconv: deep.folded:1: stack deeper than the limit of 999999 frames \(--max-depth\)$' \
	$SFCONV --max-depth 999999 deep.folded
expect_error deep-stack-max-depth-json 1 \
	'^sfconv: deep.json: stack deeper than the limit of 1000 frames \(--max-depth\)$' \
	$SFCONV --max-depth 1000 deep.json
rm -f deep.* limit.folded over.folded

# ---------------------------------------------------------------------
# 4. A 100 MB line: 100 frames of 1,000,000 bytes (under --max-name,
# 1 MiB) and a count.  Accepted by default (--max-line 256 MiB), refused
# with a lower --max-line.
python3 - <<'P'
with open('long.folded', 'w') as f:
    f.write(';'.join('%02d' % i + 'x' * 999998 for i in range(100)) + ' 7\n')
P
$SFCONV long.folded > long.out 2> long.err
same_big long-line-100MB long.folded long.out
# (64 KiB of one line tell nothing about the format: --from for stdin)
$SFCONV --from collapsed < long.folded > long.out 2> long.err
same_big long-line-100MB-stdin long.folded long.out
expect_error long-line-max-line 1 \
	'^sfconv: long.folded:1: line longer than 52428800 bytes \(--max-line\)$' \
	$SFCONV --max-line 50M long.folded
expect_error long-name-max-name 1 \
	'^sfconv: long.folded:1: frame name of 1000000 bytes exceeds the limit of 999999 \(--max-name\)$' \
	$SFCONV --max-name 999999 long.folded
rm -f long.folded long.out
# the limit counts every line, also one that fits the read buffer
printf 'a;b 1\r\n' > short.folded
expect_status max-line-exact 0 $SFCONV --max-line 6 short.folded
expect_error max-line-short-line 1 '^sfconv: short.folded:1: line longer than 5 bytes' \
	$SFCONV --max-line 5 short.folded
# JSON nesting
python3 -c "print('{\"format\":\"sftools-profile\",\"x\":' + '[' * 600 + ']' * 600 + '}')" > nest.json
expect_error json-nesting 1 '^sfconv: nest.json:1: invalid JSON: nesting too deep' $SFCONV nest.json
expect_error json-nesting-option 1 '^sfconv: nest.json:1: invalid JSON: nesting too deep' \
	$SFCONV --max-nesting 10 "$CORPUS/json/small.json" nest.json
expect_status json-nesting-raised 1 $SFCONV --max-nesting 700 nest.json
grep -q 'nesting' "$SF_TMP/.err" && fail json-nesting-raised-message "still refused for nesting" ||
	pass json-nesting-raised-message

# ---------------------------------------------------------------------
# 5. Names with odd bytes.  Invalid UTF-8 is kept as bytes by collapsed
# and lines, and by JSON: json-c writes the bytes as they are and reads
# them back as they are, so the round trip is exact (a strict UTF-8 JSON
# parser would refuse such a file; docs/RELIABILITY.md).  A NUL byte in a
# text line is an error (names are C strings in the model).
printf 'a\377b;c\300\257;\355\240\200x 1\nok;\303\251 2\n' > utf8.folded
$SFCONV utf8.folded > utf8.out
expect_same invalid-utf8-collapsed utf8.folded utf8.out
$SFCONV utf8.folded -t json -o utf8.json && $SFCONV utf8.json > utf8.back
expect_same invalid-utf8-json-round-trip utf8.folded utf8.back
grep -q "$(printf 'a\377b')" utf8.json && pass invalid-utf8-json-keeps-bytes ||
	fail invalid-utf8-json-keeps-bytes "bytes not kept verbatim in JSON"
$SFCONV utf8.folded -t lines | $SFCONV --from lines > utf8.back2
expect_same invalid-utf8-lines-round-trip utf8.folded utf8.back2
printf 'a;b 1\na\000b 1\n' > nul.folded
expect_error nul-in-collapsed 1 '^sfconv: nul.folded:2: unexpected NUL byte' $SFCONV nul.folded
printf '1\t1\ta\000b\n' > nul.lines
expect_error nul-in-lines 1 '^sfconv: nul.lines:1: unexpected NUL byte' $SFCONV --from lines nul.lines

# ---------------------------------------------------------------------
# 6. Errors: one line, the file, and a line or byte offset.
printf 'a;b 1\nx y z\n' > e.folded
expect_error error-line-collapsed 1 '^sfconv: e.folded:2: expected' $SFCONV e.folded
printf '1\t1\ta\n1\tnope\ta\n' > e.lines
expect_error error-line-lines 1 "^sfconv: e.lines:2: expected a non-negative number as WEIGHT, found 'nope'" \
	$SFCONV --from lines e.lines
head -c 300 "$CORPUS/json/small.json" > e.json
expect_error error-line-json-truncated 1 '^sfconv: e.json:[0-9]+: truncated JSON' $SFCONV e.json
printf '{"format":"sftools-profile",\n"version":1,\n]' > e2.json
expect_error error-line-json-syntax 1 '^sfconv: e2.json:3: invalid JSON' $SFCONV e2.json
gzip -n -c "$CORPUS/json/small.json" | head -c 200 > e.json.gz
expect_error error-offset-gzip-truncated 1 '^sfconv: e.json.gz: byte [0-9]+: truncated gzip' \
	$SFCONV --from json e.json.gz
gzip -n -c "$TOP/tests/fixtures/collapsed/handmade.folded" > c.gz
size=$(wc -c < c.gz)
# flip a byte of the deflate data
{ head -c 12 c.gz; printf '\377\377\377\377'; tail -c $((size - 16)) c.gz; } > corrupt.gz
expect_error error-offset-gzip-corrupt 1 '^sfconv: corrupt.gz: byte [0-9]+: (corrupt|truncated) gzip' \
	$SFCONV --from collapsed corrupt.gz
# libxml2 gives some errors on two lines ("...encoding !" then "Bytes:
# 0xDC ..."), as it did for a random garbage.bin below: one line
printf '<?xml version="1.0"?>\n<trace-query-result>\334p\313</trace-query-result>\n' > badutf8.xml
$SFCONV --from xctrace badutf8.xml > g.out 2> g.err
st=$?
if [ $st -eq 1 ] && one_line_error g.err badutf8.xml && grep -q 'UTF-8.*Bytes: 0xDC' g.err; then
	pass xctrace-libxml2-error-one-line
else
	fail xctrace-libxml2-error-one-line "status $st: $(head -n 3 g.err)"
fi
# every reader: garbage gives one line naming the file, exit 1, no crash
head -c 4096 /dev/urandom > garbage.bin 2>/dev/null ||
	python3 -c "import sys; sys.stdout.buffer.write(bytes(range(256))*16)" > garbage.bin
for fmt in $readers; do
	$SFCONV --from "$fmt" garbage.bin > g.out 2> g.err
	st=$?
	if crashed $st g.err; then fail "garbage-$fmt" "crashed: $(head -n 3 g.err)"
	elif [ $st -eq 0 ]; then pass "garbage-$fmt (accepted)"
	elif [ $st -eq 1 ] && one_line_error g.err garbage.bin; then pass "garbage-$fmt"
	else fail "garbage-$fmt" "status $st: $(head -n 3 g.err)"; fi
done

# ---------------------------------------------------------------------
# 7. Warnings: one line per kind, with the count.  Two inputs that each
# have bytes after their gzip data warn twice: printed once, "(2 times)".
printf 'a;b 1\n' | gzip -n > w1.gz; printf 'junk' >> w1.gz
printf 'a;c 1\n' | gzip -n > w2.gz; printf 'junk' >> w2.gz
$SFCONV w1.gz w2.gz > w.out 2> w.err
st=$?
if [ $st -eq 0 ] && [ "$(grep -c . w.err)" -eq 1 ] &&
   grep -q '^sfconv: warning: w1.gz: trailing bytes after gzip data ignored (2 times)$' w.err; then
	pass warning-once-with-count
else
	fail warning-once-with-count "status $st: $(cat w.err)"
fi
printf 'a;b 1\na;c 1\n' > w.want
expect_same warning-output-kept w.want w.out
$SFCONV -q w1.gz w2.gz > w.out 2> w.err
[ -s w.err ] && fail warning-quiet "-q printed: $(cat w.err)" || pass warning-quiet
