#!/bin/sh
# Run every test and print, last, "N passed, N failed[, N skipped]".
#
# Tests are tests/t-*.sh scripts (which source tests/lib.sh) and the unit
# programs built from tests/unit/t_*.c.  Each prints lines
#   PASS: name   |   FAIL: name: why   |   SKIP: name: why
# A script or program that exits non-zero without printing a FAIL line is
# counted as one failure.
#
# Passes: SF_PASSES="label:bindir:unitdir ..." runs everything once per
# pass (CI: plain, then ASan+UBSan); otherwise one pass with $SF_BIN and
# $SF_UNIT.  SF_TESTS="t-foo.sh t_bar" limits the run.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
passes=${SF_PASSES:-"plain:${SF_BIN:-$top/bin}:${SF_UNIT:-$top/build/tests}"}
log=$(mktemp)
trap 'rm -f "$log"' EXIT
export SHARED=${SHARED:-$top/../shared}
# the sanitizer pass: third-party caches that are never freed (see the file)
export LSAN_OPTIONS="${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=$top/tests/lsan.supp:print_suppressions=0"
export TOP=$top

selected() {
	[ -z "${SF_TESTS:-}" ] && return 0
	for want in $SF_TESTS; do [ "$want" = "$1" ] && return 0; done
	return 1
}

run_one() { # label name command...
	label=$1; name=$2; shift 2
	out=$(mktemp)
	"$@" >"$out" 2>&1
	rc=$?
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
	export SF_PASS=$label
	for t in "$top"/tests/t-*.sh; do
		n=$(basename "$t")
		selected "$n" || continue
		tmp=$(mktemp -d)
		run_one "$label" "$n" env TMPDIR="$tmp" SF_TMP="$tmp" sh "$t"
		rm -rf "$tmp"
	done
	for u in "$unit"/t_*; do
		[ -x "$u" ] || continue
		n=$(basename "$u")
		selected "$n" || continue
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
