# Output safety: a named output appears whole or not at all (temporary
# file + rename), on errors, full disks and SIGINT/SIGTERM; every write and
# the final close are checked; a closed pipe ends quietly.  I/O faults are
# injected with tests/fault/inject.c (LD_PRELOAD).  docs/RELIABILITY.md.
. "$TOP/tests/lib.sh"

FIX=$TOP/tests/fixtures
CORPUS=$TOP/tests/fuzz/corpus

# A large input: 40,000 samples over 200 names, fixed seed (output of
# several write buffers, more than a pipe holds).
python3 - <<'P'
import random
r = random.Random(9)
with open('big.folded', 'w') as f:
    for i in range(40000):
        n = r.randrange(1, 30)
        f.write(';'.join('fn%d' % r.randrange(200) for _ in range(n)))
        f.write(' %d\n' % r.randrange(1, 100))
P

head -n 20000 big.folded > mid.folded

# no_leftovers NAME DIR BASE: neither BASE nor a temporary .BASE.* in DIR
no_leftovers() {
	left=$(ls -a "$2" | grep -e "^$3\$" -e "^\.$3\." | head -n 3)
	if [ -z "$left" ]; then pass "$1"; else fail "$1" "left behind: $left"; fi
}

# ---------------------------------------------------------------------
# Named output goes through a temporary file in the same directory.
mkdir -p outdir
$SFCONV big.folded -t lines -o outdir/ok.lines 2>/dev/null
st=$?
ls -a outdir | grep -q '^\.ok\.lines\.' && fail named-output-no-temp "temporary file kept" ||
	{ [ $st -eq 0 ] && [ -s outdir/ok.lines ] && pass named-output-no-temp ||
	  fail named-output-no-temp "status $st"; }
# an unwritable directory: cannot create, exit 3, one line
mkdir -p ro && chmod 555 ro
if [ "$(id -u)" -ne 0 ]; then
	expect_error output-dir-not-writable 3 '^sfconv: ro/x.folded: cannot create' \
		$SFCONV "$FIX/collapsed/handmade.folded" -o ro/x.folded
else
	skip output-dir-not-writable "running as root: permissions do not apply"
fi
chmod 755 ro
# a failing conversion leaves an existing file untouched
printf 'keep me\n' > outdir/old.folded
printf 'a;b x\n' > bad.folded
$SFCONV bad.folded -o outdir/old.folded 2>/dev/null
printf 'keep me\n' > keep.want
expect_same error-keeps-old-output keep.want outdir/old.folded
no_leftovers error-no-temp outdir .old.folded.never

# ---------------------------------------------------------------------
# EPIPE: the reader goes away; sfconv ends quietly with status 0.
for to in collapsed lines json; do
	{ $SFCONV big.folded -t $to 2>pipe.err; echo $? > pipe.st; } | head -n 1 > /dev/null
	st=$(cat pipe.st)
	if [ "$st" -eq 0 ] && [ ! -s pipe.err ]; then pass "epipe-quiet-$to"
	else fail "epipe-quiet-$to" "status $st, stderr: $(head -n 2 pipe.err)"; fi
done

# ---------------------------------------------------------------------
# Full disk.  /dev/full for standard output; a 1 MiB tmpfs for a named
# file when this system lets us mount one; `ulimit -f` otherwise too.
expect_error full-disk-stdout 3 '^sfconv: -: write error: No space left on device$' \
	sh -c "exec $SFCONV big.folded > /dev/full"
mkdir -p small
if mount -t tmpfs -o size=1m sftools-test small 2>/dev/null; then
	expect_error full-disk-tmpfs 3 '^sfconv: small/out.lines: write error: No space left on device$' \
		$SFCONV big.folded -t lines -o small/out.lines
	no_leftovers full-disk-tmpfs-no-file small out.lines
	umount small
else
	skip full-disk-tmpfs "cannot mount a tmpfs here (not root or no privilege)"
fi
# past the file size limit: EFBIG, not death by SIGXFSZ with the temporary
# file left
sh -c "ulimit -f 200; exec $SFCONV big.folded -t lines -o fsize.lines" > /dev/null 2> fsize.err
st=$?
if [ $st -eq 3 ] && grep -q '^sfconv: fsize.lines: write error: File too large$' fsize.err; then
	pass file-size-limit
else
	fail file-size-limit "status $st: $(head -n 2 fsize.err)"
fi
no_leftovers file-size-limit-no-file . fsize.lines

# ---------------------------------------------------------------------
# Fault injection.
if ! cc -O2 -shared -fPIC -o inject.so "$TOP/tests/fault/inject.c" -ldl 2>inject.err; then
	skip fault-injection "cannot build the LD_PRELOAD shim: $(head -n 1 inject.err)"
	exit 0
fi
# ASan wants to be first in the library list; the shim only wraps libc
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
export ASAN_OPTIONS
fault() { # SPEC CMD...: run CMD with the shim
	spec=$1; shift
	SF_FAULT=$spec LD_PRELOAD=$SF_TMP/inject.so "$@"
}

# short reads and short writes, and one EINTR each: the same bytes
for f in "$FIX/collapsed/handmade.folded" "$CORPUS/lines/basic.lines" \
	 "$CORPUS/json/small.json" "$CORPUS/json/small.json.gz" mid.folded; do
	b=$(basename "$f")
	for to in json lines; do
		$SFCONV "$f" -t $to -o "normal.$to" 2>/dev/null
		fault shortread $SFCONV "$f" -t $to -o "short.$to" 2>/dev/null
		same=$(cmp -s "normal.$to" "short.$to" && echo y)
		[ "$same" = y ] && pass "short-reads-$b-$to" || fail "short-reads-$b-$to" "output differs"
	done
done
for f in "$FIX/collapsed/handmade.folded" "$CORPUS/json/small.json"; do
	b=$(basename "$f")
	$SFCONV "$f" -t json -o normal.json 2>/dev/null
	fault shortwrite $SFCONV "$f" -t json -o short.json 2>/dev/null
	cmp -s normal.json short.json && pass "short-writes-$b" || fail "short-writes-$b" "output differs"
	fault shortwrite $SFCONV "$f" -t json 2>/dev/null > short.json
	cmp -s normal.json short.json && pass "short-writes-stdout-$b" || fail "short-writes-stdout-$b" "output differs"
	fault read:1:EINTR,write:1:EINTR $SFCONV "$f" -t json -o eintr.json 2>/dev/null
	cmp -s normal.json eintr.json && pass "eintr-retried-$b" || fail "eintr-retried-$b" "output differs"
done
# a gzip output written in 1..7-byte pieces is the same gzip
$SFCONV mid.folded -z -o normal.folded.gz
fault shortwrite $SFCONV mid.folded -z -o short.folded.gz
cmp -s normal.folded.gz short.folded.gz && pass short-writes-gzip || fail short-writes-gzip "output differs"

# write failures: exit 3, a message naming the output, no file left
expect_error fault-enospc-first-write 3 '^sfconv: out.lines: write error: No space left on device$' \
	fault write:1+:ENOSPC $SFCONV big.folded -t lines -o out.lines
no_leftovers fault-enospc-first-write-no-file . out.lines
expect_error fault-enospc-later-write 3 '^sfconv: out.lines: write error: No space left on device$' \
	fault write:3+:ENOSPC $SFCONV big.folded -t lines -o out.lines
no_leftovers fault-enospc-later-write-no-file . out.lines
expect_error fault-eio-write-gzip 3 '^sfconv: out.json.gz: write error: Input/output error$' \
	fault write:2+:EIO $SFCONV big.folded -t json -o out.json.gz
no_leftovers fault-eio-write-gzip-no-file . out.json.gz
expect_error fault-close 3 '^sfconv: out.folded: write error: Input/output error$' \
	fault close:1:EIO $SFCONV big.folded -o out.folded
no_leftovers fault-close-no-file . out.folded
expect_error fault-fsync 3 '^sfconv: out.folded: write error: Input/output error$' \
	fault fsync:1:EIO $SFCONV big.folded -o out.folded
no_leftovers fault-fsync-no-file . out.folded
expect_error fault-enospc-stdout 3 '^sfconv: -: write error: No space left on device$' \
	sh -c "SF_FAULT=write:2+:ENOSPC LD_PRELOAD=$SF_TMP/inject.so exec $SFCONV big.folded -t lines > stdout.lines"
# the final close of standard output is checked too
expect_error fault-close-stdout 3 '^sfconv: -: write error: Input/output error$' \
	sh -c "SF_FAULT=close:1:EIO LD_PRELOAD=$SF_TMP/inject.so exec $SFCONV big.folded > stdout.folded"
expect_error fault-close-stdout-sfanalyze 3 '^sfanalyze: -: write error: Input/output error$' \
	sh -c "SF_FAULT=close:1:EIO LD_PRELOAD=$SF_TMP/inject.so exec $SFANALYZE --flat big.folded > stdout.flat"
# an EPIPE from a write ends quietly
fault write:1+:EPIPE $SFCONV big.folded > /dev/null 2> epipe.err
st=$?
[ $st -eq 0 ] && [ ! -s epipe.err ] && pass fault-epipe-quiet ||
	fail fault-epipe-quiet "status $st: $(head -n 1 epipe.err)"
# read failures: exit 3, a message naming the input
expect_error fault-read-error 3 '^sfconv: big.folded: read error: Input/output error$' \
	fault read:3+:EIO $SFCONV big.folded -o out.folded
no_leftovers fault-read-error-no-file . out.folded
expect_error fault-read-error-gzip 3 '^sfconv: normal.folded.gz: read error: Input/output error$' \
	fault read:2+:EIO $SFCONV normal.folded.gz -o out.folded
no_leftovers fault-read-error-gzip-no-file . out.folded

# ---------------------------------------------------------------------
# SIGINT and SIGTERM while the output is being written.  Deterministic:
# the shim raises the signal just before the 3rd write of the output.
for sig in INT TERM; do
	fault "signal:write:3:$sig" $SFCONV big.folded -t lines -o sig.lines 2> sig.err
	st=$?
	if [ $st -ge 128 ]; then pass "signal-$sig-during-write-status"
	else fail "signal-$sig-during-write-status" "status $st, expected death by signal"; fi
	no_leftovers "signal-$sig-during-write-no-file" . sig.lines
done
# A real SIGINT from outside, during a long conversion: writes are made
# slow (1..7 bytes each) so the temporary file is seen before the end;
# O_TMPFILE is made to fail so that the temporary file has a name.
# (env, not the shell function, so that $! is sfconv itself.)
env SF_FAULT=shortwrite,notmpfile LD_PRELOAD="$SF_TMP/inject.so" \
	$SFCONV big.folded -t lines -o slow.lines 2>/dev/null &
pid=$!
seen=""
i=0
while [ $i -lt 3000 ] && kill -0 $pid 2>/dev/null; do
	if ls -a | grep -q '^\.slow\.lines\.'; then seen=1; break; fi
	sleep 0.01
	i=$((i + 1))
done
if [ -n "$seen" ]; then
	kill -INT $pid
	wait $pid
	st=$?
	if [ $st -ge 128 ]; then pass sigint-external-status
	else fail sigint-external-status "status $st"; fi
	no_leftovers sigint-external-no-file . slow.lines
else
	kill $pid 2>/dev/null; wait $pid 2>/dev/null
	skip sigint-external "the temporary file was never seen"
fi
# SIGINT while still reading (input from a FIFO whose writer stays
# open): no output file exists yet and none appears
mkfifo in.fifo
{ cat big.folded; exec sleep 60; } > in.fifo &
wpid=$!
$SFCONV --from collapsed -t lines -o pipe.lines in.fifo 2>/dev/null &
pid=$!
sleep 1
kill -INT $pid 2>/dev/null
wait $pid
st=$?
kill $wpid 2>/dev/null
wait $wpid 2>/dev/null
[ $st -ge 128 ] && pass sigint-while-reading || fail sigint-while-reading "status $st"
no_leftovers sigint-while-reading-no-file . pipe.lines
