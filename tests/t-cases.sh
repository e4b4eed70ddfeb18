# Golden CLI cases (zstd's tests/cli-tests, elfutils' testrun_compare):
# each directory tests/cases/NAME/ holds
#   cmd     the commands, run by sh in a fresh empty directory with
#           $SFCONV $SFANALYZE $SFCAPTURE, $FIX (tests/fixtures) and $CASE
#           (this case's directory, for inputs kept beside cmd)
#   stdout  what they must print on standard output
#   stderr  (optional) what they must print on standard error; when
#           absent, standard error is not compared
#   exit    (optional) the exit status of the last command; default 0
# and any input files the case needs.  The first comment lines of cmd say
# where the expected output comes from (a peer, a spec, a hand
# computation): never from a run of sftools pasted back.
#
# SF_CASE=NAME (a shell pattern) runs only the matching cases;
# SF_REGEN=1 writes what the commands print as the new expected files,
# for a change of output made on purpose: review `git diff tests/cases`
# before committing it.
. "$TOP/tests/lib.sh"

cases=$TOP/tests/cases
n=0
for dir in "$cases"/*/; do
	dir=${dir%/}
	name=$(basename "$dir")
	[ -f "$dir/cmd" ] || continue
	case_wanted "$name" || continue
	n=$((n + 1))
	work=$SF_TMP/case-$name
	mkdir -p "$work"
	(cd "$work" && CASE=$dir FIX=$FIX SFCONV=$SFCONV SFANALYZE=$SFANALYZE \
		SFCAPTURE=$SFCAPTURE sh "$dir/cmd" > "$work/.stdout" 2> "$work/.stderr"
	 echo $? > "$work/.exit")
	want_exit=0
	[ -f "$dir/exit" ] && want_exit=$(cat "$dir/exit")
	if [ "${SF_REGEN:-}" = 1 ]; then
		cp "$work/.stdout" "$dir/stdout"
		[ -f "$dir/stderr" ] && cp "$work/.stderr" "$dir/stderr"
		if [ "$(cat "$work/.exit")" != 0 ] || [ -f "$dir/exit" ]; then
			cp "$work/.exit" "$dir/exit"
		fi
		pass "case-$name"
		continue
	fi
	if [ "$(cat "$work/.exit")" != "$want_exit" ]; then
		fail "case-$name" "exit status $(cat "$work/.exit"), expected $want_exit: $(head -n 2 "$work/.stderr")"
	elif ! cmp -s "$dir/stdout" "$work/.stdout"; then
		fail "case-$name" "standard output differs from tests/cases/$name/stdout"
		diff -u "$dir/stdout" "$work/.stdout" | head -n 20
	elif [ -f "$dir/stderr" ] && ! cmp -s "$dir/stderr" "$work/.stderr"; then
		fail "case-$name" "standard error differs from tests/cases/$name/stderr"
		diff -u "$dir/stderr" "$work/.stderr" | head -n 20
	else
		pass "case-$name"
	fi
done
[ "$n" -gt 0 ] || [ -n "${SF_CASE:-}" ] || fail cases "no case found under tests/cases"
