#!/bin/sh
# same-output.sh OLD_BINDIR NEW_BINDIR [FIXTURE_DIR...]
#
# Proves that two builds give the same bytes: every input under the
# fixture directories (default tests/fixtures, and $SHARED/fixtures/peers
# when present) that the OLD sfconv reads is converted by both builds to
# every format they write, with -j1 and -j2, and reported by both
# sfanalyze builds (--tree, --flat, --callgraph, --sample, each with
# --json too).  Inputs OLD refuses must be refused by NEW with the same
# message.  Prints one line per difference and a count; exits 1 when
# anything differs.
#
# Use it for a change that must not change behaviour (a move of files, a
# refactor, a speed-up):
#     git worktree add /tmp/old HEAD~3 && make -C /tmp/old
#     scripts/same-output.sh /tmp/old/bin bin
#
# For a change of compressor, SAME_INFLATE="pprof" (writers, by name)
# compares those writers' outputs inflated (gzip -dc), and the new
# build's -j1 and -j2 bytes with each other.
set -u
old=${1:?usage: same-output.sh OLD_BINDIR NEW_BINDIR [FIXTURE_DIR...]}
new=${2:?usage: same-output.sh OLD_BINDIR NEW_BINDIR [FIXTURE_DIR...]}
shift 2
top=$(cd "$(dirname "$0")/.." && pwd)
shared=${SHARED:-$top/../shared}
if [ $# -eq 0 ]; then
	set -- "$top/tests/fixtures"
	[ -d "$shared/fixtures/peers" ] && set -- "$@" "$shared/fixtures/peers"
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
writers=$("$old/sfconv" --list-formats | awk '$2 ~ /w/ {print $1}')
inputs=0 compared=0 differ=0

same() { # WHAT FILE1 FILE2
	compared=$((compared + 1))
	cmp -s "$2" "$3" && return 0
	differ=$((differ + 1))
	echo "differs: $1"
}

run() { # BIN ARGS... -> stdout+status in $tmp/o.BIN, stderr in $tmp/e.BIN
	tag=$1; shift
	"$@" > "$tmp/o.$tag" 2> "$tmp/e.$tag"
	echo "status $?" > "$tmp/s.$tag"
	cat "$tmp/s.$tag" >> "$tmp/o.$tag"
	# the program name differs only by path
	sed -i "s|$old/||g; s|$new/||g" "$tmp/e.$tag"
}

inflate() { # TAG: $tmp/o.TAG's gzip stream inflated, its status line kept
	head -c -"$(wc -c < "$tmp/s.$1")" "$tmp/o.$1" | gzip -dc > "$tmp/i.$1" 2>&1
	cat "$tmp/i.$1" "$tmp/s.$1" > "$tmp/o.$1"
}

find "$@" -type f ! -name '*.md' ! -name '*.tsv' ! -name '*.c' ! -name '*.cc' \
	! -name '*.expected' | LC_ALL=C sort > "$tmp/list"
while IFS= read -r f; do
	"$old/sfconv" -q "$f" --to json > /dev/null 2>&1 || {
		run a "$old/sfconv" -q "$f" --to json
		run b "$new/sfconv" -q "$f" --to json
		same "refusal of $f" "$tmp/e.a" "$tmp/e.b"
		continue
	}
	inputs=$((inputs + 1))
	for w in $writers; do
		for j in 1 2; do
			run a "$old/sfconv" -q -j$j "$f" --to "$w" -o -
			run b "$new/sfconv" -q -j$j "$f" --to "$w" -o -
			case " ${SAME_INFLATE-} " in
			*" $w "*)
				cp "$tmp/o.b" "$tmp/g.$j"
				inflate a; inflate b ;;
			esac
			same "sfconv -j$j --to $w $f" "$tmp/o.a" "$tmp/o.b"
		done
		case " ${SAME_INFLATE-} " in
		*" $w "*) same "new -j1 and -j2 --to $w $f" "$tmp/g.1" "$tmp/g.2" ;;
		esac
	done
	for r in --tree --flat --callgraph --sample; do
		for js in "" --json; do
			run a "$old/sfanalyze" $r $js "$f"
			run b "$new/sfanalyze" $r $js "$f"
			same "sfanalyze $r $js $f" "$tmp/o.a" "$tmp/o.b"
			same "sfanalyze $r $js $f (stderr)" "$tmp/e.a" "$tmp/e.b"
		done
	done
done < "$tmp/list"
echo "$inputs inputs, $compared outputs compared, $differ differ"
[ "$differ" -eq 0 ]
