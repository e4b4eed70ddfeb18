# DTrace aggregation reader: what the model keeps.  The collapsed outputs
# and the errors are golden cases (tests/cases/dtrace-*).
. "$TOP/tests/lib.sh"
IN=$FIX/dtrace/basic.dtrace

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
