# tests/pprof_tool.sh - sourced by tests that check our output with the
# real pprof: sets PPROF (empty when it cannot be had), why_no_pprof, and
# pp (runs pprof quietly).
# The real pprof, built from Debian's golang-go and
# golang-github-google-pprof-dev, cached under build/tools/.
PPROF=
pprof_src=/usr/share/gocode/src/github.com/google/pprof
tools=$TOP/build/tools
if [ -x "$tools/pprof" ]; then
	PPROF=$tools/pprof
elif have go && [ -d "$pprof_src" ]; then
	mkdir -p "$tools"
	if GOPATH=/usr/share/gocode GO111MODULE=off GOFLAGS= \
	   GOCACHE="$tools/gocache" HOME="$SF_TMP" \
	   go build -o "$tools/pprof.$$" github.com/google/pprof \
	   >"$SF_TMP/go.log" 2>&1 && mv "$tools/pprof.$$" "$tools/pprof"; then
		PPROF=$tools/pprof
	else
		rm -f "$tools/pprof.$$"
		echo "go build of pprof failed:"; head -n 5 "$SF_TMP/go.log"
	fi
fi
why_no_pprof="the pprof tool is not available (install golang-go and golang-github-google-pprof-dev: scripts/install-deps.sh test)"
pp() { HOME=$SF_TMP PPROF_TMPDIR=$SF_TMP "$PPROF" "$@" 2>/dev/null; }

