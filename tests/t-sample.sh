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
expect_error sample-no-call-graph 1 "^sfconv: nograph.txt: no 'Call graph:'" $SFCONV nograph.txt
