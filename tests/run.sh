#!/bin/sh
# Run every test and print, last, "N passed, N failed[, N skipped]".
#
# Tests are tests/t-*.sh scripts (which source tests/lib.sh) and the unit
# programs built from tests/unit/t_*.c.  Each prints lines
#   PASS: name   |   FAIL: name: why   |   SKIP: name: why
# A script or program that exits non-zero without printing a FAIL line is
# counted as one failure.
#
# Passes: SF_PASSES="label:bindir:unitdir[:tier] ..." runs everything
# once per pass (CI: plain, then ASan+UBSan); otherwise one pass with
# $SF_BIN and $SF_UNIT.  unitdir is BUILD/tests: its parent holds the
# pass's objects ($SF_BUILD).
#
# Choosing what runs:
#   SF_TESTS="t-foo.sh t_bar"  only these scripts and unit programs
#   SF_CASE=NAME               one case by its result name (a shell
#                              pattern): the golden case tests/cases/NAME
#                              if there is one, else the scripts that
#                              name it, printing only its results
#   SF_TIER=fast|slow|all      a script whose header has the line
#                              "# tier: slow" is in the slow tier (long
#                              captures, browsers, large inputs); `make
#                              check` runs both tiers, `make test-fast`
#                              the fast one.  A pass's own tier (the
#                              fourth field of SF_PASSES) wins.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
passes=${SF_PASSES:-"plain:${SF_BIN:-$top/bin}:${SF_UNIT:-$top/build/tests}"}
log=$(mktemp)
trap 'rm -f "$log"' EXIT
export SHARED=${SHARED:-$top/../shared}
# the sanitizer pass: third-party caches that are never freed (see the file)
export LSAN_OPTIONS="${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=$top/tests/lsan.supp:print_suppressions=0"
export TOP=$top

# SF_CASE: the golden case, or the scripts whose text names the case
if [ -n "${SF_CASE:-}" ] && [ -z "${SF_TESTS:-}" ]; then
	export SF_CASE
	SF_TESTS=t-cases.sh
	fixed=${SF_CASE%%[*?[]*}   # the pattern's literal start
	for t in "$top"/tests/t-*.sh; do
		grep -qF -- "$fixed" "$t" && SF_TESTS="$SF_TESTS $(basename "$t")"
	done
	for u in "$top"/tests/unit/t_*.c; do
		grep -qF -- "$fixed" "$u" && SF_TESTS="$SF_TESTS $(basename "$u" .c)"
	done
fi

selected() {
	[ -z "${SF_TESTS:-}" ] && return 0
	for want in $SF_TESTS; do [ "$want" = "$1" ] && return 0; done
	return 1
}

# in_tier SCRIPT TIER: the script belongs to TIER (fast, slow or all)
in_tier() {
	[ "$2" = all ] && return 0
	if grep -q '^# tier: slow$' "$1"; then [ "$2" = slow ]; else [ "$2" = fast ]; fi
}

run_one() { # label name command...
	label=$1; name=$2; shift 2
	out=$(mktemp)
	"$@" >"$out" 2>&1
	rc=$?
	if [ -n "${SF_CASE:-}" ]; then
		# the unit programs print every result: keep the case's
		awk -v pat="$SF_CASE" '
			function glob2re(g,  r) { r = g; gsub(/[.+^$(){}|\\]/, "\\\\&", r)
				gsub(/\*/, ".*", r); gsub(/\?/, ".", r); return "^(case-)?" r "$" }
			/^(PASS|FAIL|SKIP): / { n = $2; sub(/:$/, "", n)
				if (n !~ glob2re(pat)) next }
			{ print }' "$out" > "$out.case" && mv "$out.case" "$out"
	fi
	sed -n -e "s/^\(PASS\|FAIL\|SKIP\): /\1: [$label] $name: /p" "$out" >>"$log"
	grep -E '^(PASS|FAIL|SKIP): ' "$out" | sed "s/^/[$label] $name: /" | grep -E 'FAIL|SKIP' || true
	if [ $rc -ne 0 ] && ! grep -q '^FAIL: ' "$out"; then
		echo "FAIL: [$label] $name: exited with status $rc" >>"$log"
		echo "[$label] $name: exited with status $rc; last output:"
		tail -n 15 "$out" | sed 's/^/    /'
	fi
	if grep -q '^FAIL: ' "$out"; then
		grep -v -E '^(PASS|SKIP): ' "$out" | tail -n 40 | sed 's/^/    /'
	fi
	rm -f "$out"
}

for pass in $passes; do
	label=${pass%%:*}; rest=${pass#*:}
	export SF_BIN=${rest%%:*}
	unit=${rest#*:}
	tier=${SF_TIER:-all}
	case $unit in *:*) tier=${unit#*:}; unit=${unit%%:*} ;; esac
	export SF_PASS=$label
	export SF_BUILD=${unit%/tests}   # the pass's objects (t-layers.sh)
	for t in "$top"/tests/t-*.sh; do
		n=$(basename "$t")
		selected "$n" || continue
		in_tier "$t" "$tier" || continue
		tmp=$(mktemp -d)
		run_one "$label" "$n" env TMPDIR="$tmp" SF_TMP="$tmp" sh "$t"
		rm -rf "$tmp"
	done
	for u in "$unit"/t_*; do
		[ -x "$u" ] || continue
		n=$(basename "$u")
		selected "$n" || continue
		[ "$tier" = slow ] && continue
		run_one "$label" "$n" "$u"
	done
done

p=$(grep -c '^PASS: ' "$log")
f=$(grep -c '^FAIL: ' "$log")
s=$(grep -c '^SKIP: ' "$log")
if [ "$f" -ne 0 ]; then
	echo "failures:"
	grep '^FAIL: ' "$log" | sed 's/^/  /'
fi
if [ "$s" -ne 0 ]; then
	echo "skipped:"
	grep '^SKIP: ' "$log" | sed 's/^SKIP: /  /' | sort | uniq -c | sort -rn | head -n 20
fi
if [ "$s" -ne 0 ]; then
	echo "$p passed, $f failed, $s skipped"
else
	echo "$p passed, $f failed"
fi
[ "$f" -eq 0 ]
