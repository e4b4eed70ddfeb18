# tests/lib.sh - sourced by every tests/t-*.sh.
#
# Results are lines on stdout: "PASS: name", "FAIL: name: why",
# "SKIP: name: why".  $SF_BIN holds the programs, $TOP the source tree,
# $SHARED the shared fixtures (may be absent), $SF_TMP a fresh directory.
set -u
SF_BIN=${SF_BIN:-$TOP/bin}
SF_TMP=${SF_TMP:-$(mktemp -d)}
SFCONV=$SF_BIN/sfconv
SFANALYZE=$SF_BIN/sfanalyze
SFCAPTURE=$SF_BIN/sfcapture
FIX=$TOP/tests/fixtures
PEERS=$SHARED/fixtures/peers
cd "$SF_TMP" || exit 1

# SF_CASE=PATTERN (tests/run.sh): only results whose name matches the
# shell pattern are printed, so one case can be rerun and read alone
case_wanted() { # NAME: true when SF_CASE is unset or matches NAME
	[ -z "${SF_CASE:-}" ] && return 0
	case $1 in $SF_CASE|case-$SF_CASE) return 0 ;; esac
	return 1
}
pass() { case_wanted "$1" && echo "PASS: $1"; return 0; }
fail() { case_wanted "$1" && echo "FAIL: $1: $2"; return 0; }
skip() { case_wanted "$1" && echo "SKIP: $1: $2"; return 0; }

# expect_same NAME EXPECTED_FILE ACTUAL_FILE: byte equality, diff on failure
expect_same() {
	if cmp -s "$2" "$3"; then pass "$1"; else
		fail "$1" "output differs from $(basename "$2")"
		diff -u "$2" "$3" | head -n 20
	fi
}

# expect_status NAME CODE CMD...: exit status equals CODE
expect_status() {
	name=$1; want=$2; shift 2
	"$@" >"$SF_TMP/.out" 2>"$SF_TMP/.err"
	got=$?
	if [ "$got" -eq "$want" ]; then pass "$name"; else
		fail "$name" "exit status $got, expected $want"
		head -n 5 "$SF_TMP/.err"
	fi
}

# expect_error NAME CODE REGEX CMD...: fails with CODE and one stderr line
# matching REGEX (extended), and no crash
expect_error() {
	name=$1; want=$2; re=$3; shift 3
	"$@" >"$SF_TMP/.out" 2>"$SF_TMP/.err"
	got=$?
	lines=$(grep -c . "$SF_TMP/.err")
	if [ "$got" -ne "$want" ]; then
		fail "$name" "exit status $got, expected $want"; head -n 5 "$SF_TMP/.err"
	elif ! grep -Eq -- "$re" "$SF_TMP/.err"; then
		fail "$name" "message does not match /$re/: $(head -n 2 "$SF_TMP/.err")"
	elif [ "$lines" -ne 1 ]; then
		fail "$name" "expected one message line, got $lines"; head -n 5 "$SF_TMP/.err"
	else pass "$name"; fi
}

have() { command -v "$1" >/dev/null 2>&1; }
have_peers() { [ -d "$PEERS" ]; }

# need_playwright: playwright-core (npm) in $TOP/build/npm, installed on
# first use for the tests that drive Chromium; false (log in
# $SF_TMP/npm.log) when npm cannot install it
need_playwright() {
	[ -f "$TOP/build/npm/node_modules/playwright-core/package.json" ] && return 0
	have npm || { echo "npm is missing" > "$SF_TMP/npm.log"; return 1; }
	mkdir -p "$TOP/build/npm"
	(cd "$TOP/build/npm" && npm install --prefix "$TOP/build/npm" --no-audit \
		--no-fund --loglevel=error playwright-core) > "$SF_TMP/npm.log" 2>&1
}

# need_chromium NAME: headless Chromium, node and playwright-core are all
# there (CHROMIUM set; SF_CHROMIUM overrides /usr/bin/chromium); else one
# "SKIP: NAME: why" line and false
need_chromium() {
	CHROMIUM=${SF_CHROMIUM:-/usr/bin/chromium}
	if [ ! -x "$CHROMIUM" ]; then
		skip "$1" "no $CHROMIUM (Debian package chromium; scripts/install-deps.sh test installs it)"
		return 1
	fi
	if ! have node || ! have npm; then
		skip "$1" "node and npm are needed to run playwright-core"
		return 1
	fi
	if ! need_playwright; then
		skip "$1" "cannot npm install playwright-core: $(tail -n 1 "$SF_TMP/npm.log")"
		return 1
	fi
}
