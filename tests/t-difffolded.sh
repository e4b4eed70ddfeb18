# Differential profiles (sfconv --diff / --base) and the difffolded format.
. "$TOP/tests/lib.sh"

# inferno-diff-folded's expected outputs (== difffolded.pl).  Their line
# order is Rust hash order, ours is sorted: compare sorted lines.
DF=$PEERS/inferno/diff-folded
peer() { # NAME OPTIONS BEFORE RESULT
	if [ ! -d "$DF" ]; then skip "$1" "no peer fixtures at $DF"; return; fi
	$SFCONV $2 --diff "$DF/$3" "$DF/after.txt" > "$1.out" 2>"$1.err" ||
		{ fail "$1" "sfconv failed: $(head -n 1 "$1.err")"; return; }
	LC_ALL=C sort "$DF/results/$4" > "$1.want"
	LC_ALL=C sort "$1.out" > "$1.sorted"
	expect_same "$1" "$1.want" "$1.sorted"
	# and ours is sorted bytewise already
	cmp -s "$1.out" "$1.sorted" && pass "$1-sorted" || fail "$1-sorted" "output not sorted"
}
peer difffolded-peer-default "" before.txt default.txt
peer difffolded-peer-normalize --normalize before.txt normalize.txt
peer difffolded-peer-strip-hex --strip-hex before.txt strip_hex.txt
peer difffolded-peer-fractionals "" before_fractionals.txt fractionals.txt

# a peer result reads back as difffolded (detected by content) and writes
# the same lines
if [ -d "$DF" ]; then
	$SFCONV "$DF/results/default.txt" --to difffolded > rt.out
	LC_ALL=C sort "$DF/results/default.txt" > rt.want
	expect_same difffolded-read-back rt.want rt.out
else skip difffolded-read-back "no peer fixtures"; fi

# hand-computed: a doubled, b removed, c added
printf 'main;a 2\nmain;b 3\n' > base.folded
printf 'main;a 4\nmain;c 1\n' > new.folded
$SFCONV --diff base.folded new.folded > abc.out
printf 'main;a 2 4\nmain;b 3 0\nmain;c 0 1\n' > abc.want
expect_same difffolded-added-removed-doubled abc.want abc.out
# the same with -o NAME.difffolded and --to
$SFCONV --diff base.folded new.folded -o abc.difffolded
expect_same difffolded-by-extension abc.want abc.difffolded

# identical inputs: every change is zero
printf 'main;a;b 3\nmain;a;c 1\nmain;d 4\n' > same.folded
$SFCONV --diff same.folded same.folded > same.out
printf 'main;a;b 3 3\nmain;a;c 1 1\nmain;d 4 4\n' > same.want
expect_same difffolded-identical-zero-change same.want same.out

# normalisation: base total 10, new total 20, base doubled
printf 'main;a 5\nmain;b 5\n' > nb.folded
printf 'main;a 10\nmain;b 6\nmain;c 4\n' > nn.folded
$SFCONV --diff nb.folded nn.folded --normalize > norm.out
printf 'main;a 10 10\nmain;b 10 6\nmain;c 0 4\n' > norm.want
expect_same difffolded-normalize norm.want norm.out
# scale 4/3, truncated as difffolded.pl's int(): 1 -> 1, 2 -> 2
printf 'x 1\ny 2\n' > nb2.folded
printf 'x 2\ny 2\n' > nn2.folded
$SFCONV --diff nb2.folded nn2.folded --normalize > norm2.out
printf 'x 1 2\ny 2 2\n' > norm2.want
expect_same difffolded-normalize-truncates norm2.want norm2.out
# equal totals: nothing to scale
$SFCONV --diff same.folded same.folded --normalize > norm3.out
expect_same difffolded-normalize-equal-totals same.want norm3.out

# --strip-hex merges stacks that differ only in addresses
printf 'main;0xdeadBEEF;f 1\n' > h1.folded
printf 'main;0x1234;f 2\n' > h2.folded
$SFCONV --diff h1.folded h2.folded --strip-hex > hex.out
printf 'main;0x...;f 1 2\n' > hex.want
expect_same difffolded-strip-hex hex.want hex.out

# several files per side: --base FILE (repeatable), the inputs are NEW
printf 'main;a 1\n' > b1.folded
printf 'main;a 2\nmain;b 1\n' > b2.folded
printf 'main;a 1\n' > n1.folded
printf 'main;b 5\n' > n2.folded
$SFCONV --base b1.folded --base b2.folded n1.folded n2.folded > multi.out
printf 'main;a 3 1\nmain;b 1 5\n' > multi.want
expect_same difffolded-several-files multi.want multi.out

# the NEW side written as plain collapsed stacks
$SFCONV --diff base.folded new.folded --to collapsed > newonly.out 2>/dev/null
printf 'main;a 4\nmain;b 0\nmain;c 1\n' > newonly.want
expect_same difffolded-to-collapsed-new newonly.want newonly.out

# errors
printf 'a;b 1 2\na;b 3\n' > bad.difffolded
expect_error difffolded-bad-line 1 '^sfconv: bad.difffolded:2: expected' $SFCONV --from difffolded bad.difffolded
expect_error difffolded-needs-diff 2 'difffolded output needs two profiles' $SFCONV same.folded --to difffolded
expect_error difffolded-normalize-alone 2 'need a comparison' $SFCONV same.folded --normalize
expect_error difffolded-diff-one-arg 2 "needs two files" $SFCONV --diff same.folded
expect_error difffolded-missing-base 3 "nope.folded" $SFCONV --diff nope.folded same.folded
if [ -d "$DF" ]; then
	expect_error difffolded-peer-bad-before 1 'bad_before.txt:3: expected' $SFCONV --from collapsed --diff "$DF/bad_before.txt" "$DF/after.txt"
else skip difffolded-peer-bad-before "no peer fixtures"; fi

# the differential profile survives the native JSON (types, default, prop)
$SFCONV --diff base.folded new.folded -o abc.json
$SFCONV abc.json --to difffolded > abc-json.out
expect_same difffolded-through-json abc.want abc-json.out

# --normalize truncates per folded line, as difffolded.pl -n does on the
# folded text: _Py_Dealloc@plt of two libraries is one line.  BASE (perf):
# main;_Py_Dealloc@plt 4 from liba + 4 from libb, main 3: total 11;
# NEW: main;_Py_Dealloc@plt 3, main 4: total 7.  By hand:
# main;_Py_Dealloc@plt 4 + 4 = 8 -> int(8 * 7 / 11) = 5 (truncating
# each library's 4 apart gives 2 + 2 = 4); main: int(3 * 7 / 11) = 1.
printf '%s\n' 'python3 1 [0] 1.0: 4 cycles:' '	10 _Py_Dealloc@plt (/usr/lib/liba.so)' \
	'	20 main (/usr/bin/python3)' '' \
	'python3 1 [0] 2.0: 4 cycles:' '	30 _Py_Dealloc@plt (/usr/lib/libb.so)' \
	'	20 main (/usr/bin/python3)' '' \
	'python3 1 [0] 3.0: 3 cycles:' '	20 main (/usr/bin/python3)' '' > nb.perf
printf '%s\n' 'python3 1 [0] 1.0: 3 cycles:' '	10 _Py_Dealloc@plt (/usr/lib/liba.so)' \
	'	20 main (/usr/bin/python3)' '' \
	'python3 1 [0] 3.0: 4 cycles:' '	20 main (/usr/bin/python3)' '' > nn.perf
$SFCONV -q --diff nb.perf nn.perf --normalize > nrm.out 2>&1
printf 'python3;main 1 4\npython3;main;_Py_Dealloc@plt 5 3\n' > nrm.want
expect_same difffolded-normalize-per-line nrm.want nrm.out
# --normalize after --diff is an option, not BASE
$SFCONV -q --diff --normalize nb.perf nn.perf > nrm2.out 2>&1
expect_same difffolded-normalize-after-diff nrm.want nrm2.out
expect_error difffolded-diff-one-file 2 "^sfconv: option '--diff' needs two files" \
	$SFCONV --diff --normalize nb.perf
