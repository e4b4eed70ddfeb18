# tier: slow
# Reading a file on several threads (SF_JOBS, sf_read_parallel) gives the
# bytes reading it on one gives: every fixture (and every peer fixture of
# the formats that split), read by 2, 3 and 7 threads (cut into 16
# chunks a thread, fewer where there are fewer records, which a thread
# that is done takes from another as it runs), converted to collapsed,
# sample lines and JSON and analysed; an error in a later part
# names the absolute line; standard input and gzip still read.
. "$TOP/tests/lib.sh"

files=$(find "$FIX" -type f \( -name '*.folded' -o -name '*.tsv' \
	-o -name '*.perf' -o -name '*.txt' \) | sort)
if have_peers; then
	files="$files $(find "$PEERS" -type f \( -name '*.folded' \
		-o -name '*.collapsed' -o -name '*perf*.txt' -o -name '*.perf' \
		\) 2>/dev/null | sort)"
fi
n=0; bad=
for f in $files; do
	[ -s "$f" ] || continue
	for to in collapsed lines json; do
		SF_JOBS=1 $SFCONV -q --to $to "$f" > one.out 2> one.err
		s1=$?
		for j in 2 3 7; do
			SF_SPLIT_MIN=0 SF_JOBS=$j $SFCONV -q --to $to "$f" \
				> par.out 2> par.err
			s2=$?
			n=$((n + 1))
			if [ $s1 -ne $s2 ] || ! cmp -s one.out par.out ||
			   ! cmp -s one.err par.err; then
				bad="$bad $(basename "$f"):$to:j$j"
			fi
		done
	done
	SF_JOBS=1 $SFANALYZE --callgraph "$f" > one.out 2>&1
	SF_SPLIT_MIN=0 SF_JOBS=3 $SFANALYZE --callgraph "$f" > par.out 2>&1
	cmp -s one.out par.out || bad="$bad $(basename "$f"):callgraph"
done
if [ -z "$bad" ] && [ $n -gt 0 ]; then pass "parallel-fixtures ($n conversions)"
else fail parallel-fixtures "differs:$bad"; fi

# an input that folds: many repeats of few stacks, cut mid-file
awk 'BEGIN { for (i = 0; i < 3000; i++) printf "main;f%d;g %d\n", i % 7, i % 5 + 1 }' > rep.folded
SF_JOBS=1 $SFCONV --to collapsed rep.folded > one.out
SF_SPLIT_MIN=0 SF_JOBS=4 $SFCONV --to collapsed rep.folded > par.out
# hand-computed: f0 takes i = 0, 7, 14, ...: weights (i % 5 + 1)
awk 'BEGIN { for (i = 0; i < 3000; i++) w[i % 7] += i % 5 + 1;
	for (k = 0; k < 7; k++) printf "main;f%d;g %d\n", k, w[k] }' > want.out
expect_same parallel-folds-like-serial want.out par.out
expect_same parallel-folds-one-vs-four one.out par.out

# an error in the last part: the absolute line
awk 'BEGIN { for (i = 1; i < 2000; i++) print "a;b 1"; print "broken" }' > err.folded
expect_error parallel-error-line 1 '^sfconv: err.folded:2000: expected' \
	env SF_SPLIT_MIN=0 SF_JOBS=4 $SFCONV --to collapsed err.folded

# standard input and gzip read as one stream, same bytes
gzip -c rep.folded > rep.folded.gz
SF_SPLIT_MIN=0 SF_JOBS=4 $SFCONV --to collapsed rep.folded.gz > gz.out
expect_same parallel-gzip-input one.out gz.out
cat rep.folded | SF_SPLIT_MIN=0 SF_JOBS=4 $SFCONV --from collapsed --to collapsed > stdin.out
expect_same parallel-stdin-input one.out stdin.out

# perf script read in chunks (formats/parallel.c): each job's thread
# reads a run of chunks, and a thread that is done takes the upper half
# of the chunks another has not reached as a part of its own.
# SF_SPLIT_STEAL=1 makes the reader of chunk 0 wait at its end until the
# other threads ran out of work, so they take every other chunk of its
# run (the parts [0,1) [1,2) [2,4) [4,8) ... of 16 chunks a job),
# whatever the timing.  6,000 events (every 50th followed by a second
# blank line, where a cut may fall) weigh their period, leaf f(i % 5)
# under g(i % 7) under main: the sums by hand, as stackcollapse-perf.pl
# adds periods, and -j1's bytes at -j2, -j3 and -j8.
awk 'BEGIN { for (i = 0; i < 6000; i++) {
	printf "app 10/10 %d.%06d: %d cpu-clock:ppp: \n", 1 + int(i / 1000), i % 1000, 1000 * (1 + i % 4)
	printf "\t%x f%d (/bin/app)\n\t%x g%d (/bin/app)\n\t400 main (/bin/app)\n\n", 500 + i % 5, i % 5, 600 + i % 7, i % 7
	if (i % 50 == 49) print "" } }' > steal.perf
awk 'BEGIN { for (i = 0; i < 6000; i++) w["app;main;g" i % 7 ";f" i % 5] += 1000 * (1 + i % 4)
	for (k in w) print k, w[k] }' | LC_ALL=C sort > want.out
bad=
SF_JOBS=1 $SFCONV -q --from perf steal.perf > one.out || bad="$bad j1-exit"
cmp -s want.out one.out || bad="$bad j1-sums"
for j in 2 3 8; do
	SF_SPLIT_MIN=0 SF_SPLIT_STEAL=1 SF_JOBS=$j $SFCONV -q --from perf \
		steal.perf > par.out 2> par.err || bad="$bad j$j-exit"
	cmp -s one.out par.out || bad="$bad j$j"
	[ -s par.err ] && bad="$bad j$j-stderr"
	SF_SPLIT_MIN=0 SF_SPLIT_STEAL=1 SF_JOBS=$j $SFCONV -q --from perf \
		--to lines steal.perf > par.out
	SF_JOBS=1 $SFCONV -q --from perf --to lines steal.perf > one.lines
	cmp -s one.lines par.out || bad="$bad j$j-lines"
done
if [ -z "$bad" ]; then pass parallel-perf-chunks-taken
else fail parallel-perf-chunks-taken "differs:$bad"; fi

# -j N / --jobs N: the option gives what SF_JOBS gives, and overrides it
bad=; n=0
for f in $files; do
	[ -s "$f" ] || continue
	SF_SPLIT_MIN=0 SF_JOBS=2 $SFCONV -q -j 1 "$f" > one.out 2>&1
	SF_SPLIT_MIN=0 SF_JOBS=1 $SFCONV -q -j 2 "$f" > par.out 2>&1
	cmp -s one.out par.out || bad="$bad $(basename "$f")"
	SF_SPLIT_MIN=0 $SFANALYZE --jobs 1 --flat "$f" > one.out 2>&1
	SF_SPLIT_MIN=0 $SFANALYZE --jobs=2 --flat "$f" > par.out 2>&1
	cmp -s one.out par.out || bad="$bad $(basename "$f"):flat"
	n=$((n + 1))
done
if [ -z "$bad" ] && [ $n -gt 0 ]; then pass "parallel-jobs-option ($n files)"
else fail parallel-jobs-option "-j 1 and -j 2 differ:$bad"; fi
expect_error parallel-jobs-zero 2 "^sfconv: option '--jobs' needs a number" \
	$SFCONV -j 0 rep.folded
expect_error parallel-jobs-too-many 2 "^sfanalyze: option '--jobs' needs a number" \
	$SFANALYZE --jobs 65 --flat rep.folded
# the threads are really started or not: count the clone calls (-j 4:
# the main thread reads the first part, three more threads the others)
if have strace && strace -f -qq -e trace=none true 2>/dev/null; then
	threads() {
		SF_SPLIT_MIN=0 strace -f -qq -e trace=clone,clone3 -o st.out \
			"$@" > /dev/null 2>&1
		grep -c clone st.out
	}
	t1=$(SF_JOBS=4 threads $SFCONV -j 1 rep.folded)
	t4=$(SF_JOBS=1 threads $SFCONV -j 4 rep.folded)
	# three more (a sanitizer's own threads are in both counts)
	if [ $((t4 - t1)) -eq 3 ]; then pass parallel-jobs-threads
	else fail parallel-jobs-threads "clone calls: -j 1 $t1, -j 4 $t4 (want 3 more)"; fi
else
	skip parallel-jobs-threads "strace cannot trace here"
fi

# The lines of a folded file's --callgraph entries, counted from its
# stacks: a node's lines are its callers, itself and its callees, the *
# node is not listed, so 2 lines per edge less one per edge with *, one
# per function, and a separator between functions.
cg_entries() {
	awk '{ n = split($1, f, ";"); fn[f[1]] = 1; e["*>" f[1]] = 1
		e[f[n] ">*"] = 1
		for (k = 2; k <= n; k++) { fn[f[k]] = 1; e[f[k-1] ">" f[k]] = 1 } }
	     END { for (x in e) { E++; if (x ~ /\*/) S++ }; for (x in fn) F++
		print 2 * E - S + F + F - 1 }' "$1"
}

# The call graph's text report is formatted in chunks of about 16,384
# lines on two threads (analyze/cgprint.c), its adjacency and sorts
# one direction per thread (callgraph.c): a graph of some 4,000 functions
# and 120,000 edges is cut into more chunks than there are buffers, and every
# report must be the bytes of one job.  The entries are counted against
# the input (cg_entries).
awk 'BEGIN { s = 1; for (i = 0; i < 40000; i++) { d = 2 + i % 6; line = "main"
	for (k = 0; k < d; k++) { s = (s * 69069 + 1) % 4294967296
		line = line ";f" int(s / 65536) % 4000 }
	print line, 1 + i % 3 } }' > big.folded
cg_entries big.folded > big.want
bad=
$SFANALYZE -q -j 1 --callgraph big.folded > cg1.out
lines=$(($(wc -l < cg1.out) - 10))   # 9 lines above, a rule below
[ "$lines" = "$(cat big.want)" ] || bad="$bad entries:$lines:$(cat big.want)"
[ "$lines" -gt $((4 * 16384)) ] || bad="$bad too-small"
for j in 2 3; do
	$SFANALYZE -q -j $j --callgraph big.folded > cgj.out
	cmp -s cg1.out cgj.out || bad="$bad text:j$j"
	SF_JOBS=$j $SFANALYZE -q --callgraph big.folded > cgj.out
	cmp -s cg1.out cgj.out || bad="$bad text:SF_JOBS=$j"
done
$SFANALYZE -q -j 1 --callgraph --json big.folded > cg1.out
$SFANALYZE -q -j 2 --callgraph --json big.folded > cgj.out
cmp -s cg1.out cgj.out || bad="$bad json"
$SFANALYZE -q -j 1 --callgraph --peek '^f1' big.folded > cg1.out
$SFANALYZE -q -j 2 --callgraph --peek '^f1' big.folded > cgj.out
cmp -s cg1.out cgj.out || bad="$bad peek"
if [ -z "$bad" ]; then pass parallel-callgraph
else fail parallel-callgraph "differs:$bad"; fi

# A node with more than 16,384 lines is a chunk of its own, written
# straight out when its turn comes: here a and b have 17,000 callees each
# (after main's chunk of some 3,000 lines, before the chunks of the rest),
# and the report at -j2 and -j3 must still be the bytes of one job.
awk 'BEGIN { for (k = 0; k < 17000; k++) { print "main;a;x" k, 1
		print "main;b;y" k, 1 }
	for (k = 0; k < 3000; k++) print "main;c" k ";d" k, 1 }' > hub.folded
cg_entries hub.folded > hub.want
bad=
$SFANALYZE -q -j 1 --callgraph hub.folded > cg1.out
lines=$(($(wc -l < cg1.out) - 10))
[ "$lines" = "$(cat hub.want)" ] || bad="$bad entries:$lines:$(cat hub.want)"
for j in 2 3; do
	$SFANALYZE -q -j $j --callgraph hub.folded > cgj.out
	cmp -s cg1.out cgj.out || bad="$bad text:j$j"
done
if [ -z "$bad" ]; then pass parallel-callgraph-large-node
else fail parallel-callgraph-large-node "differs:$bad"; fi

# cg_jobs_racket JOBS SEED SAMPLES FUNCTIONS DEPTH: gen_stacks's input of
# that seed and size (cg.samples.tsv); its text and JSON call graph at -j2
# and -j3 against -j1's bytes (cg1.out keeps -j1's JSON), then every value
# and order at SF_JOBS=JOBS against Racket's analyze-samples where it is
# installed; what differs is added to $bad
cg_jobs_racket() {
	jobs=$1; shift
	./gen_stacks "$2" "$3" "$4" "$1" 0 > cg.samples.tsv
	for fmt in "" --json; do
		$SFANALYZE -q -j 1 --callgraph $fmt cg.samples.tsv > cg1.out
		for j in 2 3; do
			$SFANALYZE -q -j $j --callgraph $fmt cg.samples.tsv > cgj.out
			cmp -s cg1.out cgj.out || bad="$bad ${fmt:-text}:j$j"
		done
	done
	if have racket &&
	   racket -l racket/base -l profile/analyzer -e '' >/dev/null 2>&1; then
		SF_JOBS=$jobs python3 "$TOP/tests/analyze/cg_racket.py" \
			"$SFANALYZE" "$TOP/bench/callgraph-racket.rkt" \
			./gen_stacks "$1" "$2" "$3" "$4" 0 > racket.out ||
			bad="$bad racket:$(head -c 200 racket.out)"
	fi
}

# The call graph walk's stacks are made in blocks of 1,024 samples, four
# in hand, by a helper thread beside the walk with two jobs or more, and
# by the walk's own thread whenever it is free to (analyze/cgstacks.c);
# the functions' sums are added as the blocks are made.  12,000 samples
# of 4 threads (processed thread by thread, so blocks change threads)
# over 1,500 functions (past the direct table of edge ids: through the
# hash map) with recursion, 12 blocks: -j1, -j2 and -j3 give the same
# bytes; each function's total and thread ids (decreasing, 4 of
# docs/analyze.md's call graph) counted from the input; every value and
# order against Racket's analyze-samples where it is installed.
if have cc && have python3 && cc -O2 -o gen_stacks "$TOP/bench/gen_stacks.c"; then
	bad=
	cg_jobs_racket 3 4 12000 1500 40
	awk -F'\t' '{ n = split($3, f, ";"); split("", seen)
		for (k = 1; k <= n; k++) if (!(f[k] in seen)) {
			seen[f[k]] = 1; tot[f[k]] += $2; th[f[k], $1] = 1 } }
	     END { for (x in tot) { s = x " " tot[x]
			for (t = 3; t >= 0; t--) if ((x, t) in th) s = s " " t
			print s } }' cg.samples.tsv | sort > blocks.want
	python3 -c '
import json, sys
for n in json.load(open(sys.argv[1]))["nodes"]:
    print(" ".join(str(x) for x in [n["id"], n["total"]] + n["thread_ids"]))
' cg1.out | sort > blocks.got
	cmp -s blocks.want blocks.got || bad="$bad totals-thread-ids"
	[ "$(wc -l < blocks.want)" -gt 1024 ] || bad="$bad too-few-functions"
	if [ -z "$bad" ]; then pass parallel-callgraph-blocks
	else fail parallel-callgraph-blocks "differs:$bad"; fi
else
	skip parallel-callgraph-blocks "cc or python3 is missing"
fi

# With two jobs the lists' sorts (docs/analyze.md, call graph 7) run on a
# second thread beside the node order's 5.2, each node's lists once 5.2
# is done with them, given in batches of 65,536 list entries
# (analyze/cgadj.c); the rest is sorted by both threads after 5.2.  A
# graph of some 13,000 functions and 90,000 list entries (more than a
# batch: below one no thread sorts beside the order), its lists at -j2 and -j3
# the bytes of -j1's; every value and every order (nodes and lists) at
# -j2 against Racket's analyze-samples where it is installed.
if have cc && have python3 && [ -x gen_stacks ]; then
	bad=
	cg_jobs_racket 2 6 10000 14000 48
	python3 -c '
import json, sys
n = json.load(open(sys.argv[1]))["nodes"]
print(sum(len(x["callers"]) + len(x["callees"]) for x in n))
' cg1.out > sorts.entries
	[ "$(cat sorts.entries)" -gt $((65536 + 16384)) ] ||
		bad="$bad too-few-entries:$(cat sorts.entries)"
	if [ -z "$bad" ]; then pass parallel-callgraph-sorts
	else fail parallel-callgraph-sorts "differs:$bad"; fi
else
	skip parallel-callgraph-sorts "cc or python3 is missing"
fi
