# sfcapture merges CPython frames into native stacks (sampler-core/
# python.c): each _PyEval_EvalFrameDefault frame is replaced by the Python
# frames it ran, "qualname (file:line)".  tests/fixtures/capture/pywork.py
# runs one thread per kind of work (CPU in a nested pair of functions,
# time.sleep, a lock wait, a socket recv) and prints what its own
# sys._current_frames() sees for each thread; that is the expected chain.
# Run under Debian's python3 and each pyenv build present.
. "$TOP/tests/lib.sh"
. "$TOP/tests/capture-lib.sh"
capture_setup capture-python

check_py() { # JSON TARGET-OUTPUT: each thread's Python chain in >= 90%
	PYTHONPATH=$TOP/tests python3 - "$1" "$2" <<'PY'
import json, sys
from capjson import frames
d = json.load(open(sys.argv[1]))
want = {}
for line in open(sys.argv[2]):
    if line.startswith("CHAIN "):
        _, tid, name, chain = line.rstrip("\n").split(" ", 3)
        want[int(tid)] = (name, chain.split(";"))
def strip_line(f):  # "q (file:line)" -> "q (file)"
    head, _, tail = f.rpartition(":")
    return head + ")" if tail.rstrip(")").isdigit() else f
bad = []
got = {}
for tid, c in frames(sys.argv[1]):
    if tid in want:
        got.setdefault(tid, []).append(
            [f["name"] for f in c if f.get("kind") == "python"])
for tid, (name, exp) in want.items():
    rows = got.get(tid, [])
    if name == "cpu":
        # it runs: the functions must match, the lines move, and the
        # leaf is cpu_outer or the cpu_inner it calls, whichever the
        # target's own look happened to see (its chain ends at either)
        se = [strip_line(f) for f in exp]
        base = se[:se.index(next(f for f in se
                                 if f.startswith("cpu_outer "))) + 1] \
            if any(f.startswith("cpu_outer ") for f in se) else se
        ok = [r for r in rows
              if [strip_line(f) for f in r][:len(base)] == base and
              all(strip_line(f).startswith("cpu_inner ")
                  for f in r[len(base):]) and len(r) <= len(base) + 1]
    else:
        ok = [r for r in rows if r == exp]
    if not rows or len(ok) * 10 < len(rows) * 9:
        bad.append("%s: %d of %d samples show %s; e.g. %s" %
                   (name, len(ok), len(rows), exp[-2:],
                    rows[0][-2:] if rows else None))
n = int(d["meta"].get("properties") and dict(d["meta"]["properties"]).get(
    "capture.python_samples", "0") or 0)
if n == 0:
    bad.append("capture.python_samples is 0")
print("\n".join(bad))
PY
}

pys=""
[ -x /usr/bin/python3 ] && pys=/usr/bin/python3
for v in 3.11 3.12 3.13; do
	for p in "${PYENV_ROOT:-$HOME/.pyenv}"/versions/$v.*/bin/python3; do
		[ -x "$p" ] && pys="$pys $p"
	done
done
[ -n "$pys" ] || { skip capture-python "no CPython 3.11+ found"; exit 0; }
for py in $pys; do
	ver=$("$py" -c 'import sys; print("%d.%d.%d" % sys.version_info[:3])' 2>/dev/null)
	case $ver in 3.1[1-9].*) ;; *) continue ;; esac
	name=capture-python-$ver
	start_target "$py" "$CAPFIX/pywork.py" || { fail $name "target not ready"; continue; }
	timeout 60 "$SFCAPTURE" -p $TPID -d 0.5 -o py-$ver.json >py-$ver.out 2>py-$ver.err
	out=$(check_py py-$ver.json "$TOUT")
	stop_target
	[ -z "$out" ] && pass $name || fail $name "$out $(grep -i python py-$ver.err | head -n 2)"
	# the summary says how many samples had Python frames
	grep -q "^sfcapture: [1-9][0-9]* of [0-9]* samples had Python frames$" py-$ver.err &&
		pass $name-summary || fail $name-summary "$(tail -n 3 py-$ver.err)"
done

# --no-python: the interpreter's frames stay
py=${pys%% *}
start_target "$py" "$CAPFIX/pywork.py" || fail capture-python-off-start "target not ready"
timeout 60 "$SFCAPTURE" -q --no-python -p $TPID -d 0.2 --to collapsed -o off.txt
stop_target
if grep -q '_PyEval_EvalFrameDefault' off.txt && ! grep -q '\.py:[0-9]*)' off.txt; then
	pass capture-python-off
else
	fail capture-python-off "$(head -c 300 off.txt)"
fi

# an interpreter older than 3.11 (no Py_Version): its frames stay as they
# are, nothing is guessed
old=$(ls "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.10.*/bin/python3 2>/dev/null | head -n 1)
if [ -n "$old" ] && [ -x "$old" ]; then
	start_target "$old" -c 'import time
print("READY", flush=True)
time.sleep(100)' || fail capture-python-old-start "target not ready"
	timeout 60 "$SFCAPTURE" -p $TPID -d 0.2 --to collapsed -o old.txt 2>old.err
	stop_target
	if grep -q '_PyEval_EvalFrameDefault' old.txt && ! grep -q '\.py:[0-9]*)' old.txt &&
	   ! grep -q 'Python frames' old.err; then
		pass capture-python-old
	else
		fail capture-python-old "$(head -c 300 old.txt) $(grep -i python old.err)"
	fi
else
	skip capture-python-old "no CPython 3.10 to try"
fi
