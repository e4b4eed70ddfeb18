# The native JSON reader's second thread (json_ahead.c): with -j2 a
# thread parses the "stacks" section ahead of the reader into [parent,
# frame] pairs, and a "samples" section of 1 MiB or more into their
# values.  Whatever it does, the model and every message must be
# those of -j1 and of the yajl-only reader (SF_JSON_SLOW=1), with the
# line of the element at fault.  SF_JSON_AHEAD=wait makes the reader wait
# for each of the thread's blocks, so the pairs path is taken whatever the
# timing; the plain -j2 runs check the path where the reader may pass the
# thread.  The document is bench/gen_timeline.c's (a timeline of 20,000
# samples, 3.7 MB of stack nodes, several hundred of the thread's blocks),
# in every pass: under the sanitizers its runs took seconds each until
# the model stopped reallocating two arrays at every new string (a
# realloc to the same size copies under AddressSanitizer).
. "$TOP/tests/lib.sh"
. "$TOP/tests/json-lib.sh"

if ! have cc; then
	skip json-ahead "cc is missing (to build bench/gen_timeline.c)"
	exit 0
fi
nsamples=20000
cc -O2 -o gen_timeline "$TOP/bench/gen_timeline.c" 2> gen.err &&
	./gen_timeline $nsamples 3 25 1 > tl.json ||
	{ fail json-ahead-gen "$(head -n 1 gen.err)"; exit 0; }
# the stacks section's lines, one element a line: its first and last
s0=$(($(grep -n '^"stacks":\[' tl.json | cut -d: -f1) + 1))
s1=$(($(grep -n '^"label_sets":' tl.json | cut -d: -f1) - 1))
# the thread starts for a section of 1 MiB or more (json_ahead.c)
sb=$(sed -n "${s0},${s1}p" tl.json | wc -c)
[ "$sb" -gt 1200000 ] ||
	{ fail json-ahead-gen "a stacks section of only $sb bytes"; exit 0; }

# ---- the whole document: the model (written back as json), collapsed
json_same json-ahead-json tl.json --to json
json_same json-ahead-collapsed tl.json --to collapsed
# every sample its own leaf node (gen_timeline.c), weight 1 each
n=$(awk '{ s += $NF } END { print s }' j1.out)
[ "$n" = $nsamples ] && pass json-ahead-collapsed-count ||
	fail json-ahead-collapsed-count "collapsed weights sum to $n, not $nsamples"

# ---- one stack line changed, at a quarter, half, three quarters and
# the end of the section: errors name that line, and an element the
# thread does not take (a space, a sign) is read as without the thread
for at in 1 2 3 4; do
	case $at in
	1) line=$((s0 + (s1 - s0) / 4)) ;;
	2) line=$((s0 + (s1 - s0) / 2)) ;;
	3) line=$((s0 + (s1 - s0) * 3 / 4)) ;;
	4) line=$s1 ;;
	esac
	sep=,
	[ $line -eq $s1 ] && sep=
	for bad in frame parent syntax zero three big space sign; do
		case $bad in
		frame) el='[1,999999]' ;;      # no such frame
		parent) el='[999999,1]' ;;     # a parent after the node
		syntax) el='[1,x]' ;;
		zero) el='[01,1]' ;;           # not JSON
		three) el='[1,1,1]' ;;
		big) el='[4294967296,1]' ;;    # past 32 bits
		space) el='[1, 2]' ;;          # valid: main;_start
		sign) el='[-0,1]' ;;           # valid: node 0
		esac
		awk -v L=$line -v E="$el$sep" 'NR == L { print E; next } 1' \
			tl.json > bad.json
		json_same json-ahead-$at-$bad bad.json --to collapsed
		case $bad in space|sign) continue ;; esac
		if grep -q "^sfconv: bad.json:$line: " j1.err; then
			pass json-ahead-$at-$bad-line
		else
			fail json-ahead-$at-$bad-line "not line $line: $(head -n 1 j1.err)"
		fi
	done
done

# ---- the samples section read ahead: a document whose "samples" section
# is over the thread's 1 MiB (60,000 samples of depth 3: 1.6 MB of them,
# the last section), whole and with one sample line changed at half and
# at the end of the section
./gen_timeline 60000 3 3 1 > sm.json ||
	{ fail json-ahead-samples-gen "gen_timeline failed"; exit 0; }
m0=$(($(grep -n '^"samples":\[' sm.json | cut -d: -f1) + 1))
m1=$(($(wc -l < sm.json)))
mb=$(sed -n "${m0},${m1}p" sm.json | wc -c)
[ "$mb" -gt 1200000 ] ||
	{ fail json-ahead-samples-gen "a samples section of only $mb bytes"; exit 0; }
json_same json-ahead-samples-json sm.json --to json
json_same json-ahead-samples-collapsed sm.json --to collapsed
n=$(awk '{ s += $NF } END { print s }' j1.out)
[ "$n" = 60000 ] && pass json-ahead-samples-count ||
	fail json-ahead-samples-count "collapsed weights sum to $n, not 60000"
for at in 2 4; do
	case $at in
	2) line=$((m0 + (m1 - m0) / 2)); sep=, ;;
	4) line=$m1; sep=']}' ;;
	esac
	for bad in stack thread syntax four nullw space sign; do
		case $bad in
		stack) el='[999999,1,5,0,1]' ;;  # no such stack
		thread) el='[3,99,5,0,1]' ;;     # no such thread
		syntax) el='[3,x,5,0,1]' ;;
		four) el='[3,1,5,0]' ;;          # no weight
		nullw) el='[3,1,5,0,null]' ;;    # a null weight
		space) el='[3, 1,5,0,1]' ;;      # valid
		sign) el='[-0,1,5,0,1]' ;;       # valid: the empty stack
		esac
		awk -v L=$line -v E="$el$sep" 'NR == L { print E; next } 1' \
			sm.json > bad.json
		json_same json-ahead-samples-$at-$bad bad.json --to collapsed
		case $bad in space|sign) continue ;; esac
		if grep -q "^sfconv: bad.json:$line: " j1.err; then
			pass json-ahead-samples-$at-$bad-line
		else
			fail json-ahead-samples-$at-$bad-line "not line $line: $(head -n 1 j1.err)"
		fi
	done
done
