# sfcapture's output side: the lossless default file (native JSON,
# gzip'd), Sampler output that says what it drops, and the `sample`
# report at the end of a capture.  Structure only, never counts: the
# expected threads and names come from /proc of the live target
# (tests/fixtures/capture/target.c: main, cpu, sleep, read, cond, epoll).
. "$TOP/tests/lib.sh"
. "$TOP/tests/capture-lib.sh"
capture_setup capture-output
if ! have python3; then skip capture-output "python3 is needed"; exit 0; fi

start_target ./target_nofp || { fail capture-output-start "target not ready"; exit 0; }
# what /proc says: "tid name" per thread (the target's threads live
# until it is killed)
for t in /proc/$TPID/task/*; do echo "${t##*/} $(cat "$t/comm")"; done | sort > proc.threads
# where target_nofp is mapped (lowest start, highest end), as the kernel
# says, and its build id as readelf says
exe=$(readlink /proc/$TPID/exe)
maprange=$(awk -v f="$exe" '$6 == f { split($1, r, "-"); if (!lo) lo = r[1]; hi = r[2] } END { print "0x" lo " 0x" hi }' /proc/$TPID/maps)
buildid=$(readelf -n "$exe" 2>/dev/null | sed -n 's/^ *Build ID: *//p')

# no -o: sfcapture-PID.json.gz, and the report on standard output
mkdir -p def && (cd def && timeout 60 "$SFCAPTURE" -p $TPID -d 0.3 > report.txt 2> err.txt)
rc=$?
f=def/sfcapture-$TPID.json.gz
if [ $rc -eq 0 ] && [ -f "$f" ] && [ "$(od -An -tx1 -N2 "$f" | tr -d ' ')" = 1f8b ]; then
	pass capture-default-name; else fail capture-default-name "status $rc, $(ls def): $(cat def/err.txt)"; fi
$SFCONV -q "$f" --to json > def.json
python3 - def.json proc.threads $TPID <<'PY' && pass capture-default-lossless || fail capture-default-lossless "see above"
import json, sys
m = json.load(open(sys.argv[1]))
pid = int(sys.argv[3])
proc = {int(l.split(' ', 1)[0]): l.split(' ', 1)[1].rstrip('\n') for l in open(sys.argv[2])}
got = {t['tid']: t.get('name') for t in m['threads']}
assert got == proc, ('threads', got, proc)
assert all(t.get('pid') == pid for t in m['threads']), m['threads']
sets = m.get('label_sets', [])
states = {dict(s).get('state') for s in sets}
assert states and None not in states, ('state labels', sets)
assert 'running' in states and 'sleeping' in states, states
assert m['samples'], 'no samples'
for s in m['samples']:
    assert s[2] is not None, ('sample without time', s)
    assert s[3] > 0, ('sample without state', s)
mods = {f.get('module') for f in m['frames']}
assert any(x and x.endswith('/target_nofp') for x in mods), mods
assert any(x and '/libc' in x for x in mods), mods
assert m['meta'].get('start_time') and m['meta'].get('duration'), m['meta']
assert dict(m['meta']['properties']).get('capture.pid') == str(pid)
PY

# the report: macOS sample's layout, one tree per thread named by its
# tid and name, with the running/blocked share; read by the sample reader
if grep -q '^Call graph:$' def/report.txt && grep -q "^    [0-9]* Thread_[0-9]*   cpu  (\([0-9]* missed; \)\{0,1\}[0-9]*% running, [0-9]*% blocked)$" def/report.txt &&
   grep -q '^Sort by top of stack, same collapsed (when >= 5):$' def/report.txt &&
   grep -q '^Binary Images:$' def/report.txt && grep -q ' target_nofp (?) <[0-9a-f?]*> /.*/target_nofp$' def/report.txt; then
	pass capture-report-layout; else fail capture-report-layout "$(head -n 20 def/report.txt)"; fi
# Binary Images: the load range the kernel shows and readelf's build id
img=$(grep ' target_nofp (?) <' def/report.txt | awk '{print $1, $3, $6}')
if [ -n "$buildid" ] && [ "$img" = "$maprange <$buildid>" ]; then
	pass capture-report-images; else fail capture-report-images "'$img', expected '$maprange <$buildid>'"; fi
# the report is what sfanalyze --sample prints of the saved capture (the
# same analysis, pruned at 1% of each thread's samples by default), and
# --sample-min sets its limit: a million samples hides every node
{ echo; $SFANALYZE -q --sample "$f"; } > def.expected
expect_same capture-report-is-sfanalyze-sample def.expected def/report.txt
mkdir -p big && (cd big && timeout 60 "$SFCAPTURE" -p $TPID -d 0.2 --sample-min 1000000 -o big.json > report.txt 2> err.txt)
{ echo; $SFANALYZE -q --sample --sample-min 1000000 big/big.json; } > big.expected
expect_same capture-report-sample-min big.expected big/report.txt
grep -q '^Pruned: .* those under 1000000 samples$' big/report.txt &&
	pass capture-report-sample-min-pruned ||
	fail capture-report-sample-min-pruned "$(sed -n '/^Pruned/p; /^Call graph/q' big/report.txt)"
n=$(grep -c '^    [0-9]* Thread_' def/report.txt)
[ "$n" -eq "$(wc -l < proc.threads)" ] && pass capture-report-every-thread || fail capture-report-every-thread "$n thread trees"
$SFCONV -q --from sample --thread-prefix def/report.txt > report.folded
grep -q '^cpu-[0-9]*;.*cpu_thread;cpu_recurse;.*;cpu_leaf [0-9]*$' report.folded &&
	grep -q '^read-[0-9]*;.*read_thread;read_blocker' report.folded &&
	pass capture-report-reads-back || fail capture-report-reads-back "$(head -n 5 report.folded)"
# "+ N" on frames as sample prints them: the offset of the address into
# its function, i.e. the frame's address less the symbol's value that nm
# gives (target_nofp is not relocated, so both are link-time addresses);
# and in the report after the module, as "(in target_nofp) + N  [0xA]"
nm target_nofp | awk '$2 ~ /^[tT]$/ { print $3, $1 }' > nofp.syms
python3 - def.json nofp.syms def/report.txt <<'PY' && pass capture-frame-offset || fail capture-frame-offset "see above"
import json, re, sys
m = json.load(open(sys.argv[1]))
syms = {}
for l in open(sys.argv[2]):
    name, value = l.split()
    syms.setdefault(name, int(value, 16))
own = [f for f in m['frames'] if (f.get('module') or '').endswith('/target_nofp')
       and f['name'] in syms and not f.get('inline')]
assert own, 'no frame of a target_nofp function'
for f in own:
    want = int(f['address'], 16) - syms[f['name']]
    assert f.get('offset') == want, (f, want)
# the report shows the nodes over 1% of their thread: those it shows
lines = re.findall(r' (\S+)  \(in target_nofp\) \+ (\d+)  \[0x([0-9a-f]+)\]',
                   open(sys.argv[3]).read())
lines = [x for x in lines if x[0] in syms]
assert lines, 'no "(in target_nofp) + N" in the report'
for name, off, addr in lines:
    assert int(off) == int(addr, 16) - syms[name], (name, off, addr)
PY
# -o -: the capture on standard output, so the report on standard error
timeout 60 "$SFCAPTURE" -p $TPID -d 0.2 --to collapsed -o - > out.folded 2> out.err
grep -q '^Call graph:$' out.err && ! grep -q 'Call graph' out.folded && grep -q 'cpu_leaf' out.folded &&
	pass capture-report-stderr-with-stdout-output || fail capture-report-stderr-with-stdout-output "$(head -n 3 out.err)"
# -q: no report
timeout 60 "$SFCAPTURE" -q -p $TPID -d 0.1 -o q.json > q.out 2>&1
[ ! -s q.out ] && pass capture-quiet-no-report || fail capture-quiet-no-report "$(head -n 3 q.out)"

# Sampler output: says what it drops; thread ids that fit 16 bits are
# kept, larger ones mapped and restored from the trace (t-sampler.sh):
# either way the real ids read back
timeout 60 "$SFCAPTURE" -p $TPID -d 0.2 -o x.trace > /dev/null 2> trace.err
# (samples counted again without a stop carry the label reused=1 too,
# when the target's threads were idle between two ticks, and samples of
# sleeping threads read without a stop the label stopless=1; blocked
# threads the kernel side: syscall, wchan, fd, fd.target, futex labels
# and, as root, frames of kind kernel; inlined functions: inline marks)
grep -Eq "warning: Sampler output drops timestamps, process ids, addresses, (inline marks, )?(frame kinds, )?sample labels \(state(, (stopless|reused|syscall|wchan|fd|fd\.target|futex))*\)$" trace.err &&
	pass capture-sampler-says-dropped || fail capture-sampler-says-dropped "$(cat trace.err)"
$SFCONV -q x.trace --to json | python3 -c "
import json, sys
m = json.load(sys.stdin)
want = {int(l.split(' ', 1)[0]): l.split(' ', 1)[1].rstrip('\n') for l in open('proc.threads')}
got = {t['tid']: t.get('name') for t in m['threads']}
assert got == want, (got, want)
" && pass capture-sampler-real-tids || fail capture-sampler-real-tids "thread ids or names differ from /proc"
stop_target
