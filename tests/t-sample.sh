# macOS sample call-graph reader: hand-written report, expectations derived
# by hand from inferno-collapse-sample's rules (a stack per leaf with the
# leaf's count, module`function without ".dylib", Rust hash removed,
# waiting leaves such as __ulock_wait dropped), malformed input.
. "$TOP/tests/lib.sh"
IN=$FIX/sample/basic.sample.txt
T7='Thread_7   DispatchQueue_1: com.apple.main-thread'

printf '%s\n' "$T7;libdyld\`start;app\`helper 4" \
	"$T7;libdyld\`start;app\`main;app\`work 4" \
	'Thread_8;libsystem_pthread`thread_start 3' > want.txt
$SFCONV -q "$IN" > got.txt 2>&1   # detected by content
expect_same sample-default want.txt got.txt

# --no-modules; --keep-self adds main's own sample (7 - 4 - 2 = 1)
printf '%s\n' "$T7;start;helper 4" "$T7;start;main 1" "$T7;start;main;work 4" \
	'Thread_8;thread_start 3' > want.txt
$SFCONV -q --from sample --no-modules --keep-self "$IN" > got.txt 2>&1
expect_same sample-no-modules-keep-self want.txt got.txt

# threads (tid from Thread_N, pid from the Process: line) and the interval
$SFCONV -q "$IN" --to json > m.json
if python3 - m.json <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
assert {(t.get("pid"), t.get("tid")) for t in m["threads"]} == {(42, 7), (42, 8)}, m["threads"]
assert m["meta"].get("period") == 1000000, m["meta"]
f = [x for x in m["frames"] if x["name"] == "app`main"][0]
assert (f.get("module"), f.get("address"), f.get("file"), f.get("line")) == ("app", "0x2000", "main.c", 12), f
PY
then pass sample-model; else fail sample-model "threads, interval or frame location not kept"; fi

# malformed: odd indentation, a skipped level, no call graph
sed 's/^    +   ! 4 work/    +  ! 4 work/' "$IN" > odd.txt
expect_error sample-odd-indent 1 '^sfconv: odd.txt:9: odd indentation' $SFCONV --from sample odd.txt
sed 's/^    +   6 main/    +       6 main/; s/^    +   7 main/    +       7 main/' "$IN" > skip.txt
expect_error sample-skipped-level 1 '^sfconv: skip.txt:8: call graph line skips' $SFCONV --from sample skip.txt
printf 'Analysis of sampling x (pid 1) every 1 millisecond\n' > nograph.txt
expect_error sample-no-call-graph 1 "^sfconv: nograph.txt:1: no 'Call graph:' line up to the end" $SFCONV nograph.txt

# --- writer.  writer-want.sample.txt is computed by hand from
# writer-in.json with the layout of macOS sample's report: per thread (most
# samples first) "COUNT Thread_TID   name  (R% running, B% blocked)", the
# share from the `state` label (main: 8 of 12 running = 67%), children by
# count, tree marks as sample draws them (a column holds a mark under an
# ancestor that has later siblings: '+' for the thread list, then '!' ...
# by the number of branching nodes above); every frame in >= 5 stacks
# (thread_start 14; main, poll 9 + 3, start 12; spin 5 + 6; work 8; most
# first, then by name); own samples per function >= 5 (poll 3 + 9, spin
# 6 + 5); images by path, the range and build id from the image:PATH
# property.
WIN=$FIX/sample/writer-in.json
$SFCONV -q "$WIN" --to sample > w.txt
expect_same sample-writer-golden "$FIX/sample/writer-want.sample.txt" w.txt
$SFCONV -q "$WIN" -o w2.sample.txt && expect_same sample-writer-extension w.txt w2.sample.txt

# pruning: --sample-min 5 hides main's poll (3 < 5), so work has no later
# sibling and spin's line has no mark; 40% of each thread hides worker's
# spin (5 < 5.6) and main's poll (3 < 4.8)
$SFCONV -q "$WIN" --to sample --sample-min 5 > p5.txt
if grep -qx 'Pruned:          1 call graph node hidden (3 samples, counted in their callers), those under 5 samples' p5.txt &&
   grep -qx '            6 spin  (in srv)  \[0x500\]' p5.txt && ! grep -q '3 poll' p5.txt; then
	pass sample-writer-prune-count; else fail sample-writer-prune-count "$(sed -n '1,20p' p5.txt)"; fi
$SFCONV -q "$WIN" --to sample --sample-min 40% > p40.txt
grep -qx "Pruned:          2 call graph nodes hidden (8 samples, counted in their callers), those under 40% of their thread's samples" p40.txt &&
	pass sample-writer-prune-percent || fail sample-writer-prune-percent "$(sed -n '1,8p' p40.txt)"
expect_error sample-writer-prune-bad 2 "sample-min needs a count or a percentage" $SFCONV -q "$WIN" --to sample --sample-min x

# round trips: our reader reads a file of this writer exactly (the thread
# line is the thread, inner nodes keep their own samples, no waiting
# leaf is dropped), so per thread the stacks are those of the input; on
# the golden input and on random profiles whose names hold blanks and
# parentheses
python3 - <<'PY'
import json, random
r = random.Random(14)
names = ['main', 'read', 'poll', '__GI___poll', 'operator()(int, char)',
         '[unknown] (libc.so.6+0x1f)', 'std::vector<int>::push_back(int&&)',
         'thread', 'f(x) const', 'a:b', 'x%y']
mods = [None, '/usr/lib/libc.so.6', '/srv/bin/srv', 'libfoo.dylib']
for n, (nthreads, nstacks) in enumerate([(3, 40), (12, 300)]):
    frames = []
    for i in range(30):
        f = {'name': r.choice(names) + ('' if i < len(names) else str(i))}
        m = r.choice(mods)
        if m: f['module'] = m
        if r.random() < 0.7: f['address'] = hex(r.randrange(1, 1 << 40))
        frames.append(f)
    stacks = []
    for k in range(nstacks):
        parent = 0 if k < 5 or r.random() < 0.1 else r.randrange(1, k + 1)
        stacks.append([parent, r.randrange(len(frames))])
    threads = [{'pid': 9, 'tid': 1000 + t, 'name': 'w %d' % t} for t in range(nthreads)]
    samples = [[r.randrange(1, nstacks + 1), r.randrange(nthreads), None,
                r.choice([1, 2]), r.randrange(1, 20)] for _ in range(nstacks * 2)]
    json.dump({'format': 'sftools-profile', 'version': 1,
               'sample_types': [{'type': 'samples', 'unit': 'count'}],
               'threads': threads, 'frames': frames, 'stacks': stacks,
               'label_sets': [[['state', 'running']], [['state', 'sleeping']]],
               'samples': samples}, open('rand%d.json' % n, 'w'))
PY
for f in "$WIN" rand0.json rand1.json; do
	b=$(basename "$f" .json)
	$SFCONV -q --thread-prefix "$f" | LC_ALL=C sort > "$b.want"
	$SFCONV -q "$f" --to sample | $SFCONV -q --from sample --thread-prefix | LC_ALL=C sort > "$b.got"
	expect_same "sample-writer-roundtrip-$b" "$b.want" "$b.got"
done

# FlameGraph's stackcollapse-sample.awk reads the written file to the same
# stacks.  FlameGraph is not packaged in Debian or npm: the test runs the
# script from $FLAMEGRAPH_DIR when it is there.  MODULES=0 gives names
# without modules; the thread line becomes "Thread_TID.NAME" (the script
# joins the first two words); lines of count 0 are inner nodes without
# own samples.
AWKS=${FLAMEGRAPH_DIR:-}/stackcollapse-sample.awk
if [ -n "${FLAMEGRAPH_DIR:-}" ] && [ -f "$AWKS" ]; then
	$SFCONV -q --thread-prefix "$WIN" | LC_ALL=C sort > fg.want
	awk -f "$AWKS" MODULES=0 w.txt |
		awk '$NF != 0' | sed 's/^Thread_\([0-9]*\)\.\([^;]*\);/\2-\1;/' | LC_ALL=C sort > fg.got
	expect_same sample-writer-flamegraph-awk fg.want fg.got
else
	skip sample-writer-flamegraph-awk "set FLAMEGRAPH_DIR to a FlameGraph checkout (stackcollapse-sample.awk)"
fi

# a name with LF cannot end a node line early: LF and CR become blanks
cat > lf.json <<'J'
{"format":"sftools-profile","version":1,"sample_types":[{"type":"samples","unit":"count"}],
 "threads":[{"tid":3,"name":"t\nx"}],"frames":[{"name":"a\nb"},{"name":"c\rd"}],
 "stacks":[[0,0],[1,1]],"samples":[[2,0,null,0,2]]}
J
printf 't x-3;a b;c d 2\n' > lf.want
$SFCONV -q lf.json --to sample | $SFCONV -q --from sample --thread-prefix > lf.got
expect_same sample-writer-newline-in-name lf.want lf.got

# sfanalyze --sample prints the same report from any saved profile
# (pruned at 1% by default, as at the end of a capture)
$SFANALYZE -q --sample --sample-min 0 "$WIN" > a0.txt
expect_same sfanalyze-sample-golden "$FIX/sample/writer-want.sample.txt" a0.txt
$SFANALYZE -q --sample --sample-min 5 "$WIN" > a5.txt
expect_same sfanalyze-sample-min p5.txt a5.txt
expect_error sfanalyze-sample-no-filters 2 "^sfanalyze: --sample takes no filter" $SFANALYZE --sample --thread 100 "$WIN"

# our own report reads back its module base names as written: ')' and
# blanks inside, ".dylib" kept (issue 32: read -> write -> read stable)
cat > mod.json <<'J'
{"format":"sftools-profile","version":1,"sample_types":[{"type":"samples","unit":"count"}],
 "threads":[{"tid":3,"name":"t"}],
 "frames":[{"name":"a","module":"/opt/my app [x]/lib (1).so","address":"0x10"},
  {"name":"b","module":"/opt/libz.dylib.dylib","address":"0x20"},
  {"name":"c) d"}],
 "stacks":[[0,0],[1,1],[2,2]],"samples":[[3,0,null,0,2]]}
J
# (a ')' in a name without a module makes no module)
printf '"module":"lib (1).so"\n"module":"libz.dylib.dylib"\n' > mod.want
$SFCONV -q mod.json --to sample > mod1.txt
$SFCONV -q --from sample mod1.txt --to sample > mod2.txt
$SFCONV -q --from sample mod2.txt --to sample > mod3.txt
$SFCONV -q --from sample mod3.txt --to json | grep -o '"module":"[^"]*"' > mod.got
expect_same sample-module-names-kept mod.want mod.got
expect_same sample-reread-stable mod2.txt mod3.txt

# a name holding "  [0x" is no address unless hex digits and ']' end the
# line (or come before the "  FILE:LINE" the writer puts after one): the
# reader cut "f  [0xlwo" to "f" (issue 32, crash-a4d1e602... in
# tests/fuzz/crashes/roundtrip-sample/)
cat > hexname.json <<'J'
{"format":"sftools-profile","version":1,"sample_types":[{"type":"samples","unit":"count"}],
 "threads":[{"tid":3,"name":"t"}],
 "frames":[{"name":"f  [0xlwo"},{"name":"g  [0x1f]","address":"0x30"},
  {"name":"h  [0x2] x","module":"m","address":"0x40","file":"h.c","line":9}],
 "stacks":[[0,0],[1,1],[2,2]],"samples":[[3,0,null,0,2]]}
J
printf '%s\n' '"f  [0xlwo" - - -' '"g  [0x1f]" 0x30 - -' '"h  [0x2] x" 0x40 m h.c:9' > hexname.want
$SFCONV -q hexname.json --to sample > hex1.txt
$SFCONV -q --from sample hex1.txt --to sample > hex2.txt
$SFCONV -q --from sample hex2.txt --to json > hex2.json
python3 - hex2.json > hexname.got <<'PY2'
import json, sys
m = json.load(open(sys.argv[1]))
for f in m["frames"]:
    if f["name"].startswith("Thread_"):
        continue
    src = "%s:%d" % (f["file"], f["line"]) if "file" in f else "-"
    print('"%s" %s %s %s' % (f["name"], f.get("address", "-"), f.get("module", "-"), src))
PY2
expect_same sample-name-with-address-text hexname.want hexname.got
expect_same sample-name-with-address-text-stable hex1.txt hex2.txt
# an empty module is written "  (in )" and read back as one: read as none,
# the next report left it out and a "  (in x)" ending the name became the
# module (crash-3f4f9887... in tests/fuzz/crashes/roundtrip-sample/)
cat > emptymod.json <<'J'
{"format":"sftools-profile","version":1,"sample_types":[{"type":"samples","unit":"count"}],
 "threads":[{"tid":3,"name":"t"}],
 "frames":[{"name":"w  (in x)","module":""}],
 "stacks":[[0,0]],"samples":[[1,0,null,0,2]]}
J
$SFCONV -q emptymod.json --to sample > em1.txt
$SFCONV -q --from sample em1.txt --to sample > em2.txt
$SFCONV -q --from sample em2.txt --to json | grep -o '"name":"w[^}]*}' > em.got
printf '%s\n' '"name":"w  (in x)","module":""}' > em.want
expect_same sample-empty-module-kept em.want em.got
expect_same sample-empty-module-stable em1.txt em2.txt
# "  (in " is a module only when a ')' follows it: the reader cut a name
# "  (in val" to nothing (crash-5d3f21fa... in tests/fuzz/crashes/
# roundtrip-sample/)
printf '1:t\t2\t  (in val;bb\n1:t\t3\tx  (in y\n' > openin.lines
$SFCONV -q openin.lines --to sample > oi1.txt
$SFCONV -q --from sample oi1.txt --thread-prefix > oi.got
printf '%s\n' 't-1;  (in val;bb 2' 't-1;x  (in y 3' > oi.want
expect_same sample-name-with-open-in oi.want oi.got

# offsets: main is on the stack at two return addresses, "+ 20" and
# "+ 36"; the report keeps the two apart and prints the "+ N" that sample
# printed after the module (offsets-want.sample.txt written by hand with
# the writer's rules above; work is one frame, 6 + 4 = 10 in stacks)
OIN=$FIX/sample/offsets.sample.txt
$SFCONV -q "$OIN" --to sample > off.txt
expect_same sample-offsets-golden "$FIX/sample/offsets-want.sample.txt" off.txt
$SFCONV -q "$OIN" --to json > off.json
if python3 - off.json <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
got = sorted((f['name'], f.get('address'), f.get('offset')) for f in m['frames'] if 'module' in f)
assert got == [('app`main', '0x2014', 20), ('app`main', '0x2024', 36),
               ('app`work', '0x3005', 5), ('libdyld`start', '0x1001', 1)], got
PY
then pass sample-offsets-json; else fail sample-offsets-json "offsets not in the native JSON"; fi
# round trip sample -> json -> sample, and our report read back
$SFCONV -q --from json off.json --to sample > off2.txt
expect_same sample-offsets-json-roundtrip off.txt off2.txt
$SFCONV -q --from sample off.txt --to sample > off3.txt
expect_same sample-offsets-reread off.txt off3.txt
# --inferno keys stacks on their text: no addresses, no offsets
$SFCONV -q --inferno "$OIN" --to json > offi.json
grep -q '"offset"' offi.json && fail sample-offsets-inferno "$(grep -c offset offi.json) offsets kept" ||
	pass sample-offsets-inferno

# several processes: each one's threads under a "Process:" line with its
# command (the main thread's name), pid and samples, most samples first
# (procs-want.sample.txt by hand: helper 7 samples, app 3 + 2; app's
# two threads are one list, so Thread_10's lines carry the '+' mark)
$SFCONV -q "$FIX/sample/procs.json" --to sample > procs.txt
expect_same sample-processes-golden "$FIX/sample/procs-want.sample.txt" procs.txt
$SFANALYZE -q --sample --sample-min 0 "$FIX/sample/procs.json" > procs-a.txt
expect_same sfanalyze-sample-processes "$FIX/sample/procs-want.sample.txt" procs-a.txt
# read back: the threads keep their process
$SFCONV -q --from sample procs.txt --to json > procs-back.json
if python3 - procs-back.json <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
got = sorted((t.get('pid'), t.get('tid'), t.get('name')) for t in m['threads'])
assert got == [(10, 10, 'app'), (10, 11, 'worker'), (20, 20, 'helper')], got
PY
then pass sample-processes-reread; else fail sample-processes-reread "threads lost their process"; fi
