# The stack transforms every program applies after loading
# (formats/model/filter.h, sf_profile_transform): --merge-function,
# --merge-library, --focus-function, and sfconv's --ignore and
# --collapse-recursion.  Expected stacks are hand-computed from the
# definitions (docs/formats.md, "Transforms").
. "$TOP/tests/lib.sh"

printf 'main;a;b 3\nmain;a;c 1\nmain;d 4\nmain;e;b 2\nmain;r;r;r;x 2\nmain;r;q;r 1\n' > t.folded

# xf NAME EXPECTED OPTIONS...: sfconv's collapsed output equals EXPECTED
# (lines separated by '|')
xf() {
	name=$1; want=$2; shift 2
	printf '%s\n' "$want" | tr '|' '\n' > "$name.want"
	$SFCONV t.folded "$@" > "$name.got" 2>"$name.err"
	expect_same "transform-$name" "$name.want" "$name.got"
}
xf merge 'main;b 3|main;c 1|main;d 4|main;e;b 2|main;r;q;r 1|main;r;r;r;x 2' --merge-function '^a$'
# merging b into a and e charges its time to them as self time
xf merge-leaf 'main;a 4|main;d 4|main;e 2|main;r;q;r 1|main;r;r;r;x 2' --merge-function '^(b|c)$'
xf focus 'a;b 3|a;c 1|e;b 2' --focus-function '^(a|e)$'
# the outermost match is the new root; inner ones stay
xf focus-outermost 'r;q;r 1|r;r;r;x 2' --focus-function '^r$'
xf ignore 'main;a;b 3|main;a;c 1|main;e;b 2|main;r;q;r 1|main;r;r;r;x 2' --ignore '^d$'
xf recursion 'main;a;b 3|main;a;c 1|main;d 4|main;e;b 2|main;r;q;r 1|main;r;x 2' --collapse-recursion
# merge first, then recursion: r;q;r is r;r, then r
xf merge-then-recursion 'main;a;b 3|main;a;c 1|main;d 4|main;e;b 2|main;r 1|main;r;x 2' --collapse-recursion --merge-function '^q$'
# samples that become one stack fold: a and e merged, b under main 5
xf merge-folds 'main;b 5|main;c 1|main;d 4|main;r;q;r 1|main;r;r;r;x 2' --merge-function '^(a|e)$'

# a library: perf script frames carry modules (tests/fixtures/perf/libm.perf:
# main;compute;sin and main;compute;sin;cos, in libm.so)
$SFCONV --from perf "$FIX/perf/libm.perf" --merge-library 'libm' > lib.got 2>/dev/null
printf 'prog;main;compute 2\n' > lib.want
expect_same transform-merge-library lib.want lib.got

# every report honours them: sfanalyze's flat table after a merge
$SFANALYZE --flat --raw --merge-function '^a$' t.folded > flat.txt 2>&1
# b: self 5 (3 under a, 2 under e), a gone
if grep -Eq '^ *1 +5 .* b$' flat.txt && ! grep -Eq ' a$' flat.txt; then
	pass transform-sfanalyze-flat
else
	fail transform-sfanalyze-flat "$(cat flat.txt)"
fi
# a writer that keeps threads keeps them through a transform
printf '1:main\t1\ta;b\n2:worker\t3\ta;c\n' > th.lines
$SFCONV --from lines th.lines --merge-function '^a$' --to lines > th.got 2>/dev/null
printf '1:main\t1\tb\n2:worker\t3\tc\n' > th.want
expect_same transform-keeps-threads th.want th.got

# a pattern that matches nothing: one warning, output still written
expect_status transform-no-match-status 0 $SFCONV t.folded --focus-function '^nothing$'
if grep -q "focus-function '^nothing\$' matches no frame" "$SF_TMP/.err"; then
	pass transform-no-match-warning
else
	fail transform-no-match-warning "$(cat "$SF_TMP/.err")"
fi
expect_error transform-bad-regex 2 "bad regular expression" $SFCONV t.folded --merge-function '('
