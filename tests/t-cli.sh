# Command-line behaviour shared by the programs: --help, --version, man
# pages, exit codes, pipes, output safety (make install: t-install.sh).
. "$TOP/tests/lib.sh"

for prog in sfconv sfanalyze sfcapture; do
	"$SF_BIN/$prog" --help > help.out 2> help.err
	rc=$?
	if [ $rc -eq 0 ] && grep -qi usage help.out && [ ! -s help.err ]; then
		pass "$prog-help"
	else
		fail "$prog-help" "status $rc, stderr: $(head -c 200 help.err)"
	fi
	if [ -f "$TOP/docs/$prog.1" ]; then
		if MANWIDTH=80 man -l "$TOP/docs/$prog.1" 2>man.err | grep -q "$prog"; then
			if [ -s man.err ]; then fail "$prog-man-page" "$(head -n 3 man.err)"; else pass "$prog-man-page"; fi
		else
			fail "$prog-man-page" "man -l does not render docs/$prog.1"
		fi
	else
		fail "$prog-man-page" "docs/$prog.1 is missing"
	fi
done

$SFCONV --help > h.out
grep -q 'Exit status: 0 success, 1 bad input, 2 usage error, 3 I/O error' h.out &&
	pass sfconv-help-lists-exit-codes || fail sfconv-help-lists-exit-codes "exit codes missing from --help"
grep -q -- '--thread-prefix' h.out && pass sfconv-help-lists-format-options ||
	fail sfconv-help-lists-format-options "format options missing from --help"
$SFCONV --version | grep -Eq '^sfconv \(sftools\) [0-9]+\.[0-9]+' && pass sfconv-version || fail sfconv-version "bad --version"

# a closed pipe ends quietly with status 0
python3 "$TOP/tests/gen_stacks.py" lines 3 200000 > big.tsv
$SFCONV big.tsv --to lines 2>pipe.err | head -n 1 > /dev/null
st=$?
[ ! -s pipe.err ] && pass sfconv-epipe-quiet || fail sfconv-epipe-quiet "stderr: $(head -c 200 pipe.err)"
bash -c "set -o pipefail; $SFCONV big.tsv --to lines | head -n 1 >/dev/null" 2>/dev/null
[ $? -eq 0 ] && pass sfconv-epipe-status || fail sfconv-epipe-status "non-zero status on a closed pipe"

# a write error (full disk) is exit 3 with one message
if [ -w /dev/full ]; then
	expect_error sfconv-full-disk 3 '^sfconv: -: write error: No space left on device' sh -c "$SFCONV big.tsv --to lines > /dev/full"
else
	skip sfconv-full-disk "no /dev/full"
fi

# an existing output is replaced atomically: on error the old file stays
printf 'old 1\n' > keep.folded
printf 'x\n' | $SFCONV --from collapsed -o keep.folded 2>/dev/null
printf 'old 1\n' > keep.want
expect_same sfconv-error-keeps-old-output keep.want keep.folded

# binary/compressed output is refused on a terminal (needs a pty: script)
if have script; then
	script -qc "$SFCONV --gzip $FIX/collapsed/handmade.folded" /dev/null > tty.out 2>&1
	grep -q 'refusing to write compressed output to a terminal' tty.out &&
		pass sfconv-refuses-terminal || fail sfconv-refuses-terminal "$(head -c 200 tty.out)"
else
	skip sfconv-refuses-terminal "no script(1)"
fi

# writing to a device or FIFO writes to it (never renames over it)
if [ -c /dev/null ]; then
	$SFCONV "$FIX/collapsed/handmade.folded" -o /dev/null
	if [ -c /dev/null ]; then pass sfconv-dev-null-stays-device
	else fail sfconv-dev-null-stays-device "/dev/null is no longer a device"; mknod -m 666 /dev/null c 1 3 2>/dev/null; fi
fi
mkfifo fifo && { cat fifo > fifo.out & }
$SFCONV "$FIX/collapsed/handmade.folded" -o fifo
wait
expect_same sfconv-fifo-output "$FIX/collapsed/handmade.expected" fifo.out

# no two formats claim the same extension (-o x.trace must mean one thing)
dups=$($SFCONV --list-formats | awk '{ n = split($3, e, ","); for (i = 1; i <= n; i++) if (e[i] != "-") print e[i] }' | sort | uniq -d)
[ -z "$dups" ] && pass extensions-unique || fail extensions-unique "claimed twice: $dups"

# One table of options per program (cmd/opt.h): --help is generated from
# it, so every long option is listed once, each one listed is accepted by
# the parser, -h is --help, and an unknown option is one line and status 2.
for prog in sfconv sfanalyze sfcapture; do
	"$SF_BIN/$prog" --help > opts.help
	# the option column: "  -o, --output FILE", "      --tree", and the
	# aliases shown as "(also --reverse)"
	sed -n -e 's/^  \(-[A-Za-z0-9], \|    \)--\([a-z][a-z0-9-]*\).*/\2/p' \
		-e 's/^ *(also \(.*\))$/\1/p' opts.help |
		tr ',' '\n' | sed 's/^ *--//' > opts.names
	dups=$(sort opts.names | uniq -d | tr '\n' ' ')
	n=$(wc -l < opts.names)
	if [ "$n" -lt 5 ]; then
		fail "$prog-help-options-once" "only $n options found in --help"
	elif [ -n "$dups" ]; then
		fail "$prog-help-options-once" "listed more than once: $dups"
	else
		pass "$prog-help-options-once"
	fi
	# each option, with as many arguments as its help names, then -V
	# (which ends the program before it does anything): the parser must
	# know it and take its arguments
	bad=
	while read -r name; do
		line=$(grep -E -- "^  (-., |    )--$name( |\$)" opts.help | head -n 1)
		arg=${line#*--$name}
		arg=$(echo "$arg" | sed 's/  .*//; s/^ //')
		set --
		case $arg in
		'') ;;
		'['*) ;;
		*) for w in $arg; do set -- "$@" 1; done ;;
		esac
		"$SF_BIN/$prog" "--$name" "$@" -V < /dev/null > opt.out 2> opt.err
		st=$?
		if [ $st -ge 128 ] || grep -Eq "unknown option|takes no argument|needs an argument|needs two files" opt.err; then
			bad="$bad --$name($st: $(head -c 80 opt.err))"
		fi
	done < opts.names
	[ -z "$bad" ] && pass "$prog-table-options-accepted" ||
		fail "$prog-table-options-accepted" "$bad"
	"$SF_BIN/$prog" -h > opts.h 2> opts.h.err
	if [ $? -eq 0 ] && [ ! -s opts.h.err ] && cmp -s opts.h opts.help; then
		pass "$prog-short-h"
	else
		fail "$prog-short-h" "-h differs from --help or fails"
	fi
	expect_error "$prog-unknown-option" 2 "^$prog: unknown option '--no-such-option'" \
		"$SF_BIN/$prog" --no-such-option
done

# libxml2 and libgvc are loaded on first use (formats/base/dynlib.h):
# a run that writes no SVG, reads no xctrace and draws no graph does not
# load them; the runs that need them do.  The dynamic linker's own trace
# (LD_DEBUG=files) says which files a process loaded.
loaded() { # LIB CMD...: did the process load a file named LIB*?
	lib=$1; shift
	LD_DEBUG=files "$@" > /dev/null 2> ld.trace
	grep -q "file=$lib" ld.trace
}
fx=$TOP/tests/fixtures
for lib in libxml2 libgvc; do
	if loaded $lib $SFCONV --version; then
		fail lazy-$lib-version "sfconv --version loaded $lib"
	elif loaded $lib $SFCONV "$fx/collapsed/handmade.folded" --to pprof; then
		fail lazy-$lib-convert "a conversion to pprof loaded $lib"
	elif loaded $lib $SFANALYZE --callgraph "$fx/collapsed/handmade.folded"; then
		fail lazy-$lib-callgraph "sfanalyze --callgraph (text) loaded $lib"
	else
		pass lazy-$lib-not-at-start
	fi
done
loaded libxml2 $SFCONV "$fx/collapsed/handmade.folded" --to svg &&
	pass lazy-libxml2-svg || fail lazy-libxml2-svg "--to svg did not load libxml2"
loaded libxml2 $SFCONV "$fx/xctrace/basic.xml" --to collapsed &&
	pass lazy-libxml2-xctrace || fail lazy-libxml2-xctrace "the xctrace reader did not load libxml2"
loaded libgvc $SFANALYZE --callgraph -o pic.svg "$fx/collapsed/handmade.folded" &&
	[ -s pic.svg ] && pass lazy-libgvc-picture ||
	fail lazy-libgvc-picture "--callgraph -o pic.svg did not load libgvc"
