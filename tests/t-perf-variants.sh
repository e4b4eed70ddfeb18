# perf script in the shapes perf writes it: side-band PERF_RECORD_* lines
# (--show-task-events, --show-mmap-events, --show-switch-events), --header
# with a "# cmdline" over several lines, -F field lists, --inline,
# +srcline, several events.  Each is detected by content (no --from), read
# to what stackcollapse-perf.pl makes of it, with the sample type of its
# event, and the same on any number of jobs.
#
# The committed fixtures tests/fixtures/perf/real-*.perf are cut from real
# `perf script` runs (perf 6.1); their .folded files are the output of
# FlameGraph's stackcollapse-perf.pl (commit 41fee1f) on them, checked by
# hand (real-events: 7 cpu-clock samples of 250000 ns, the PERF_RECORD
# lines make no stack; real-fields-nodso: frames without "(dso)" are not
# frames to the perl, so 3 samples of "sh" weigh 1 each).  The second part
# records here with perf (skipped when perf cannot record) and compares
# with stackcollapse-perf.pl when FLAMEGRAPH_DIR names a FlameGraph
# checkout (no Debian package ships it).
. "$TOP/tests/lib.sh"

for f in real-events real-header real-fields-dso real-fields-nodso; do
	$SFCONV -q "$FIX/perf/$f.perf" > got.txt 2> err.txt ||
		{ fail "perf-variant-$f" "exit $?: $(head -n 1 err.txt)"; continue; }
	expect_same "perf-variant-$f" "$FIX/perf/$f.folded" got.txt
	for j in 2 3 5; do
		SF_SPLIT_MIN=0 $SFCONV -q -j $j "$FIX/perf/$f.perf" > par.txt 2>&1
		cmp -s got.txt par.txt ||
			fail "perf-variant-$f-j$j" "-j $j differs from -j 1"
	done
done

# the sample type and unit come from the event, not from the PERF_RECORD
# line before it: 7 samples of 250000 ns of cpu-clock are 1.75 ms
$SFANALYZE --flat "$FIX/perf/real-events.perf" > flat.txt 2>&1
if head -n 1 flat.txt | grep -q '^Flat profile (cpu-clock, nanoseconds): total 1.75ms in 7 samples'; then
	pass perf-variant-type-from-event
else
	fail perf-variant-type-from-event "$(head -n 1 flat.txt)"
fi

# a file of side-band records only, then samples: the first part of a
# parallel read holds no sample (its types must not decide anything)
{
	for i in $(seq 1 40); do
		printf 'sh 10 1.%06d: PERF_RECORD_MMAP2 10/10: [0x1(0x2) @ 0 00:00 0 0]: r-xp /bin/sh\n' "$i"
	done
	for i in $(seq 1 40); do
		printf 'sh 10 2.%06d: 100 cpu-clock:\n\t1 f (/bin/sh)\n\n' "$i"
	done
} > side.perf
SF_JOBS=1 $SFCONV -q --to json side.perf > one.json
bad=
for j in 2 3 4 8 16; do
	SF_SPLIT_MIN=0 SF_JOBS=$j $SFCONV -q --to json side.perf > par.json
	cmp -s one.json par.json || bad="$bad j$j"
done
if [ -z "$bad" ] && grep -q '"type": *"cpu-clock", *"unit": *"nanoseconds"' one.json; then
	pass perf-variant-side-band-first
else
	fail perf-variant-side-band-first "differs:$bad; $(grep -o '"sample_types"[^]]*' one.json)"
fi

# Property: the parallel reader never changes a result.  Every perf
# fixture (ours and the peers', gzip'd ones unpacked, up to 1 MB) read on
# 2 to 64 jobs with no minimum size: the cuts fall after blank lines
# throughout the file, so parts start at every kind of line that follows
# one (an event line, a PERF_RECORD line, a comment, another blank line, a
# frame line of a malformed record).  The lossless JSON (sample types
# included) must equal the one-job read's, and so must the messages.
# every kind of line after a blank line, where a part may start: an event,
# a PERF_RECORD line, a comment, another blank line, a frame line outside
# an event, an untyped event, an event of another type, an indented event
{
	for i in 1 2 3; do
		printf 'app 1 [0] %d.1: 100 cycles:\n\t1 f (/bin/a)\n\n' "$i"
		printf 'app 1 [0] %d.2: PERF_RECORD_COMM exec: app:1/1\n\n' "$i"
		printf '# a comment\napp 1 [0] %d.3: 200 cycles:\n\t2 g (/bin/a)\n\n' "$i"
		printf '\napp 1 [0] %d.4: 300 cycles:\n\t3 h (/bin/a)\n\n' "$i"
		printf '\t4 orphan (/bin/a)\n\n'
		printf 'app 1 [0] %d.5: \n\t5 u (/bin/a)\n\n' "$i"
		printf 'app 1 [0] %d.6: 7 instructions:\n\t6 v (/bin/a)\n\n' "$i"
		printf '  app 1 [0] %d.7: 400 cycles:\n\t7 w (/bin/a)\n\n' "$i"
	done
} > kinds.perf
pfiles=$(ls "$FIX"/perf/*.perf side.perf kinds.perf)
if have_peers; then
	k=0
	for f in $(find "$PEERS" -type f \( -name '*perf*.txt' -o -name '*.perf' \
		-o -name '*perf*.txt.gz' -o -name '*.perf.gz' \) | sort); do
		k=$((k + 1))
		case $f in
		*.gz) gzip -dc "$f" > peer$k.perf 2> /dev/null || continue ;;
		*) cp "$f" peer$k.perf ;;
		esac
		[ "$(wc -c < peer$k.perf)" -le 1048576 ] && pfiles="$pfiles peer$k.perf"
	done
fi
n=0; bad=
for f in $pfiles; do
	SF_JOBS=1 $SFCONV -q --from perf --to json "$f" > one.json 2> one.err
	s1=$?
	for j in 2 3 4 5 7 11 16 32 64; do
		SF_SPLIT_MIN=0 SF_JOBS=$j $SFCONV -q --from perf --to json "$f" > par.json 2> par.err
		s2=$?
		n=$((n + 1))
		if [ $s1 -ne $s2 ] || ! cmp -s one.json par.json || ! cmp -s one.err par.err; then
			bad="$bad $(basename "$f"):j$j"
		fi
	done
done
if [ -z "$bad" ] && [ $n -gt 0 ]; then pass "perf-split-property ($n reads)"
else fail perf-split-property "-j1 differs from:$bad"; fi

# stackcollapse-perf.pl reads a PERF_RECORD line as an untyped event and
# skips a filtered event's line before it reads the comm: the filtered
# event's stack is counted, weight 1, under the record line's process
# (and its pid/tid with --pid/--tid) until a blank line or a kept event.
# A blank line or frame lines right after the record count its process
# alone or with those frames, weight 1.  An indented record line is no
# event to the script.  --inferno does none of it.  Expected by hand
# from those rules.
{
	printf 'sh 20/21 [000] 1.000000: 250000 task-clock:\n\t1 f (/bin/sh)\n\t2 main (/bin/sh)\n\n'
	printf 'prog 10/11 [001] 1.000050: PERF_RECORD_MMAP2 10/11: [0x1(0x2) @ 0 00:00 0 0]: r-xp /bin/prog\n'
	printf 'sh 20/21 [000] 1.000100: 250000 cpu-clock:\n\t3 g (/bin/sh)\n\t4 main (/bin/sh)\n\n'
	printf 'prog 10/11 [001] 1.000150: PERF_RECORD_COMM: prog:10/11\n\n'
	printf 'sh 20/21 [000] 1.000200: 250000 cpu-clock:\n\t3 h (/bin/sh)\n\n'
	printf 'prog 10/11 [001] 1.000250: PERF_RECORD_EXIT(10:11):(10:11)\n'
	printf 'sh 20/21 [000] 1.000260: 250000 task-clock:\n\t5 k (/bin/sh)\n\n'
	# the record cache takes this stack (seen above) with its blank line
	printf 'ab 30/31 [001] 1.000270: PERF_RECORD_FORK(30:31):(30:31)\n'
	printf 'sh 20/21 [000] 1.000280: 250000 cpu-clock:\n\t1 f (/bin/sh)\n\t2 main (/bin/sh)\n\n'
	printf 'sh 20/21 [000] 1.000290: 250000 cpu-clock:\n\t6 m (/bin/sh)\n\n'
	printf '   cd 40/41 [001] 1.000295: PERF_RECORD_EXIT(40:41):(40:41)\n'
	printf 'sh 20/21 [000] 1.000296: 250000 cpu-clock:\n\t6 n (/bin/sh)\n\n'
	printf 'ef 50/51 [001] 1.000297: PERF_RECORD_COMM: ef:50/51\n\t7 z (/bin/sh)\n\n'
	# a one-frame stack on the event line is read as inferno does, as
	# a typed (filtered) event; the script sees no type there, so no
	# record names it (the script itself counts `sh 1`)
	printf 'gh 60/61 [001] 1.000298: PERF_RECORD_COMM: gh:60/61\n'
	printf 'sh 20/21 [000] 1.000299: 250000 cpu-clock:u:  ffffffff9b201293 sym (/bin/sh)\n\n'
	printf 'sh 20/21 [000] 1.0002991: 250000 cpu-clock:\n\t8 q (/bin/sh)\n\n'
	# an indented record line is nothing to the script: the record
	# before it still names the blank line
	printf 'ij 70/71 [001] 1.0002992: PERF_RECORD_COMM: ij:70/71\n'
	printf '   kl 80/81 [001] 1.0002993: PERF_RECORD_EXIT(80:81):(80:81)\n\n'
	printf 'sh 20/21 [000] 1.000300: 250000 task-clock:\n\t1 f (/bin/sh)\n\t2 main (/bin/sh)\n\n'
} > rec-comm.perf
printf 'ab;main;f 1\nef;z 1\nij 1\nprog 1\nprog;main;g 1\nsh;k 250000\nsh;main;f 500000\n' > rec-comm.want
printf 'ab-30/31;main;f 1\nef-50/51;z 1\nij-70/71 1\nprog-10/11 1\nprog-10/11;main;g 1\nsh-20/21;k 250000\nsh-20/21;main;f 500000\n' > rec-comm-tid.want
printf 'sh;k 250000\nsh;main;f 500000\n' > rec-comm-inferno.want
for v in "" "-tid:--tid" "-inferno:--inferno"; do
	name=${v%%:*} opt=${v#*:}
	[ -n "$v" ] || opt=
	# shellcheck disable=SC2086
	$SFCONV -q $opt --event-filter task-clock rec-comm.perf > got.txt 2> err.txt ||
		{ fail "perf-record-comm$name" "exit $?: $(head -n 1 err.txt)"; continue; }
	expect_same "perf-record-comm$name" "rec-comm$name.want" got.txt
	for j in 2 3; do
		# shellcheck disable=SC2086
		SF_SPLIT_MIN=0 $SFCONV -q -j $j $opt --event-filter task-clock rec-comm.perf > par.txt 2>&1
		cmp -s got.txt par.txt || fail "perf-record-comm$name-j$j" "-j $j differs from -j 1"
	done
done
# the first event decides the filter as well; the warning names the
# first record line counted, and how many were (5: lines 5, 10, 19, 31, 40)
$SFCONV rec-comm.perf > got.txt 2> err.txt
if cmp -s got.txt rec-comm.want &&
	grep -q 'rec-comm.perf:5: a PERF_RECORD line counted as a sample of weight 1 of its process (with the frames after it), as stackcollapse-perf.pl does (--inferno does not) (5 times)' err.txt; then
	pass perf-record-comm-warning
else
	fail perf-record-comm-warning "$(cat got.txt err.txt | tr '\n' '|')"
fi
# the sample made of a record line has its thread and time
$SFCONV -q --to json rec-comm.perf > rec.json 2>&1
if tr -d ' \n' < rec.json | grep -q '"threads":\[{"pid":20,"tid":21,"name":"sh"},{"pid":10,"tid":11,"name":"prog"}' &&
	tr -d ' \n' < rec.json | grep -q '\[[0-9]*,1,1000050000,0,1\]'; then
	pass perf-record-comm-thread-time
else
	fail perf-record-comm-thread-time "$(tr -d '\n' < rec.json | cut -c1-300)"
fi
# a record and a blank line first: the type is still the first event's
printf 'prog 10/11 [001] 1.000150: PERF_RECORD_COMM: prog:10/11\n\nsh 20/21 [000] 1.000200: 250000 cpu-clock:\n\t3 h (/bin/sh)\n\n' > rec-first.perf
$SFCONV -q rec-first.perf > got.txt 2>&1
$SFANALYZE -q --flat rec-first.perf > flat.txt 2>&1
if [ "$(cat got.txt)" = "$(printf 'prog 1\nsh;h 250000')" ] &&
	head -n 1 flat.txt | grep -q '^Flat profile (cpu-clock, nanoseconds): total 250us in 2 samples'; then
	pass perf-record-alone-first
else
	fail perf-record-alone-first "$(cat got.txt flat.txt | head -n 3 | tr '\n' '|')"
fi
# random files of side-band lines among samples of three event types
# (tests/gen_perf_script.py): -j2 and -j3 give -j1's bytes; with
# FLAMEGRAPH_DIR, so does stackcollapse-perf.pl, with --pid and --tid too
GSCP=
[ -n "${FLAMEGRAPH_DIR-}" ] && [ -f "$FLAMEGRAPH_DIR/stackcollapse-perf.pl" ] &&
	have perl && GSCP=$FLAMEGRAPH_DIR/stackcollapse-perf.pl
if have python3; then
	bad='' peer=''
	for seed in $(seq 1 60); do
		python3 "$TOP/tests/gen_perf_script.py" "$seed" > gen.perf
		for o in "" --pid --tid; do
			# shellcheck disable=SC2086
			$SFCONV -q $o gen.perf > gen1.txt 2>&1
			for j in 2 3; do
				# shellcheck disable=SC2086
				SF_SPLIT_MIN=0 $SFCONV -q -j $j $o gen.perf > genj.txt 2>&1
				cmp -s gen1.txt genj.txt || bad="$bad $seed$o-j$j"
			done
			[ -n "$GSCP" ] || continue
			# shellcheck disable=SC2086
			perl "$GSCP" $o gen.perf > genp.txt 2> /dev/null
			cmp -s genp.txt gen1.txt || peer="$peer $seed$o"
		done
	done
	if [ -z "$bad" ]; then
		pass perf-random-side-band-jobs
	else
		fail perf-random-side-band-jobs "-jN differs from -j1:$(echo "$bad" | cut -c1-200)"
	fi
	if [ -z "$GSCP" ]; then
		skip perf-random-side-band-peer "set FLAMEGRAPH_DIR to a FlameGraph checkout (stackcollapse-perf.pl)"
	elif [ -z "$peer" ]; then
		pass perf-random-side-band-peer
	else
		fail perf-random-side-band-peer "differs from stackcollapse-perf.pl:$(echo "$peer" | cut -c1-200)"
	fi
else
	skip perf-random-side-band "no python3"
fi

# ----- recorded here -----
if ! have perf || ! have cc; then
	skip perf-variants-recorded "perf or cc not installed (scripts/install-deps.sh test installs linux-perf)"
	exit 0
fi
cat > prog.c <<'EOF'
#include <stdio.h>
static inline double sf_inl(int i) { return 1.0 / i; }
__attribute__((noinline)) double sf_leaf(int n)
{ double s = 0; for (int i = 1; i < n; i++) s += sf_inl(i); return s; }
__attribute__((noinline)) double sf_middle(int n) { double r = sf_leaf(n); return r * 2; }
__attribute__((noinline)) double sf_outer(int n)
{ double s = 0; for (int k = 0; k < 300; k++) s += sf_middle(n); return s; }
int main(void) { printf("%f\n", sf_outer(200000)); return 0; }
EOF
if ! cc -O2 -g -fno-omit-frame-pointer -o prog prog.c; then
	fail perf-variants-recorded "cannot compile the test program"; exit 0
fi
# two runs under sh (fork, exec, exit), a command line over two lines,
# two events, context switches
if ! perf record -q -g -e cpu-clock,task-clock --switch-events -o perf.data \
	-- sh -c './prog
./prog' > /dev/null 2> rec.err; then
	skip perf-variants-recorded "perf record not allowed here: $(head -n 1 rec.err)"
	exit 0
fi
SCP= OLDSCP=
[ -n "${FLAMEGRAPH_DIR-}" ] && [ -f "$FLAMEGRAPH_DIR/stackcollapse-perf.pl" ] &&
	have perl && SCP=$FLAMEGRAPH_DIR/stackcollapse-perf.pl
# FlameGraph's script of 2016 counts one per event; since then it weighs
# each by the period perf prints, as sfconv does (perf here prints one)
if [ -n "$SCP" ] && ! grep -q 'period' "$SCP"; then
	OLDSCP=$SCP SCP=
fi
n=0
for v in "--show-task-events --show-mmap-events --show-switch-events --show-lost-events" \
	 "--header" "-F comm,tid,ip,sym,dso" "-F comm,pid,tid,time,ip,sym" \
	 "-F comm,tid,ip,sym,dso --show-mmap-events --show-task-events" \
	 "--inline" "-F +srcline" "--header --show-task-events --show-switch-events"; do
	n=$((n + 1))
	# shellcheck disable=SC2086
	if ! perf script -i perf.data $v > v$n.perf 2> /dev/null || [ ! -s v$n.perf ]; then
		fail "perf-variant-recorded-$n" "perf script $v failed"; continue
	fi
	if ! $SFCONV -q v$n.perf > v$n.folded 2> err.txt; then
		fail "perf-variant-recorded-$n" "perf script $v: $(head -n 1 err.txt)"; continue
	fi
	[ -s v$n.folded ] || { fail "perf-variant-recorded-$n" "perf script $v: no stack"; continue; }
	bad=
	for j in 2 3 7; do
		SF_SPLIT_MIN=0 $SFCONV -q -j $j v$n.perf > par.txt 2>&1
		cmp -s v$n.folded par.txt || bad="$bad j$j"
	done
	[ -z "$bad" ] || { fail "perf-variant-recorded-$n" "perf script $v: -j1 differs from$bad"; continue; }
	if [ -n "$SCP" ]; then
		perl "$SCP" v$n.perf > peer.txt 2> /dev/null
		expect_same "perf-variant-recorded-$n ($v)" peer.txt v$n.folded
	else
		pass "perf-variant-recorded-$n ($v: detected, -j1 = -jN)"
	fi
done
if [ -n "$OLDSCP" ]; then
	skip perf-variants-peer "$OLDSCP counts events, not perf's periods (a FlameGraph from before its period weights; the peer fixtures' is 41fee1f)"
elif [ -z "$SCP" ]; then
	skip perf-variants-peer "set FLAMEGRAPH_DIR to a FlameGraph checkout (stackcollapse-perf.pl)"
fi
# the first event is the type: cpu-clock in nanoseconds, whatever side-band
# lines come first
perf script -i perf.data --show-task-events --show-mmap-events > ev.perf 2> /dev/null
$SFANALYZE --flat ev.perf > flat.txt 2>&1
if head -n 1 flat.txt | grep -q '^Flat profile (cpu-clock, nanoseconds)'; then
	pass perf-variant-recorded-type
else
	fail perf-variant-recorded-type "$(head -n 1 flat.txt)"
fi
