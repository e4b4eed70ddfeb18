#!/bin/sh
# Install the Debian packages a step needs, if any is missing.
#   install-deps.sh build   compile the library and programs
#   install-deps.sh test    what the test suite uses (optional tools whose
#                           absence makes a test skip are tried, not required)
#   install-deps.sh fuzz    clang with libFuzzer
#   install-deps.sh bench   what bench/*.sh run besides the programs
# Uses apt-get (through sudo when not root).  Never downloads anything
# else.
set -u
kind=${1:-build}
build="pkg-config binutils zlib1g-dev libisal-dev libjson-c-dev libyajl-dev libxml2-dev libxxhash-dev libgmp-dev libdw-dev libelf-dev libgraphviz-dev xxd"
# test tools: required ones first, optional ones after the '|'
test_req="python3 gzip"
test_opt="${SF_TEST_PACKAGES-python3-jsonschema libxml2-utils graphviz sbcl racket golang-go golang-github-google-pprof-dev chromium nodejs npm linux-perf g++ elfutils valgrind libdevel-nytprof-perl}"
fuzz="clang libclang-rt-14-dev"
# GNU time for peak RSS; perl runs FlameGraph's stackcollapse-perf.pl, which
# no Debian package ships: git fetches it at bench time (bench/perf-collapse.sh)
bench="time perl git gzip"

# A package whose program is already on PATH from elsewhere (Node.js and
# npm are often installed outside Debian) is not asked for: apt-get would
# fight the existing installation.
command_of() {
	case $1 in
	nodejs) echo node ;;
	npm) echo npm ;;
	*) echo "" ;;
	esac
}

missing() {
	for p in "$@"; do
		c=$(command_of "$p")
		[ -n "$c" ] && command -v "$c" >/dev/null 2>&1 && continue
		dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q 'install ok installed' || echo "$p"
	done
}

apt() {
	if [ "$(id -u)" = 0 ]; then
		DEBIAN_FRONTEND=noninteractive apt-get "$@"
	elif command -v sudo >/dev/null 2>&1; then
		sudo DEBIAN_FRONTEND=noninteractive apt-get "$@"
	else
		echo "install-deps: not root and no sudo: cannot run apt-get $*" >&2
		return 1
	fi
}

updated=
install() {
	want=$(missing "$@")
	[ -n "$want" ] || return 0
	if [ -z "$updated" ]; then
		apt update -qq >/dev/null 2>&1 || true
		updated=1
	fi
	echo "install-deps: installing:" $want >&2
	apt install -y -qq --no-install-recommends $want >/dev/null
}

case $kind in
build)
	install $build || { echo "install-deps: cannot install build packages: $(missing $build)" >&2; exit 1; } ;;
test)
	install $build $test_req || exit 1
	for p in $test_opt; do
		install "$p" || echo "install-deps: optional package $p not installed; tests that need it will skip" >&2
	done ;;
fuzz)
	install $fuzz || exit 1 ;;
bench)
	install $build $bench || exit 1 ;;
*)
	echo "usage: install-deps.sh build|test|fuzz|bench" >&2; exit 2 ;;
esac
exit 0
