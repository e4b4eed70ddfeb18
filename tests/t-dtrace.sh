# DTrace aggregation reader: hand-written input, expectations derived by
# hand from stackcollapse.pl's rules (offsets and C++ argument lists after
# "::" removed, Java "a->b" -> a;b_[i], ';' -> ':', header up to the first
# blank line skipped), malformed input.
. "$TOP/tests/lib.sh"
IN=$FIX/dtrace/basic.dtrace

printf '%s\n' 'app`main 3' 'app`main;app`Foo::bar;libc.so.1`memcpy 5' \
	'app`main;libjvm.so`Lcom/x/Y:;z_[i] 2' > want.txt
$SFCONV -q "$IN" > got.txt 2>&1   # detected by content
expect_same dtrace-default want.txt got.txt

# --includeoffset keeps offsets except on the leaf (and where the C++
# argument list is cut)
printf '%s\n' 'app`main 3' 'app`main+0x10;app`Foo::bar;libc.so.1`memcpy 5' \
	'app`main+0x10;libjvm.so`Lcom/x/Y:;z 2' > want.txt
$SFCONV -q --from dtrace --includeoffset "$IN" > got.txt 2>&1
expect_same dtrace-includeoffset want.txt got.txt

# the module is kept apart too; counts are weights
$SFCONV -q "$IN" --to json > m.json
if python3 - m.json <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
f = [x for x in m["frames"] if x["name"] == "libc.so.1`memcpy"][0]
assert f.get("module") == "libc.so.1", f
assert sorted(s[4] for s in m["samples"]) == [2, 3, 5]
PY
then pass dtrace-model; else fail dtrace-model "module or counts not kept"; fi

# malformed: a stack without its count line, a NUL byte
printf 'CPU ID\n\n  a`b+0x1\n  a`c+0x2\n' > trunc.dtrace
expect_error dtrace-no-count 1 '^sfconv: trunc.dtrace:3: the stack starting here has no count' \
	$SFCONV --from dtrace trunc.dtrace
printf 'CPU ID\n\n  a`b\000+0x1\n  1\n' > nul.dtrace
expect_error dtrace-nul 1 '^sfconv: nul.dtrace:3: NUL byte' $SFCONV --from dtrace nul.dtrace
