# End to end with a real SBCL: profile a recursive function and two worker
# threads with sb-sprof in :time mode, export with
# contrib/sbcl/sb-sprof-export.lisp, convert to Sampler and collapsed
# stacks, and check sample counts and per-function self counts against
# sb-sprof's own flat report printed in the same run.
. "$TOP/tests/lib.sh"

if ! have sbcl; then
	skip sbcl-end-to-end "sbcl is not installed (scripts/install-deps.sh test installs the Debian package sbcl)"
	exit 0
fi
if ! have python3; then
	skip sbcl-end-to-end "python3 is needed to parse sb-sprof's report"
	exit 0
fi

cat > work.lisp <<'EOF'
(defun fib (n) (if (< n 2) n (+ (fib (- n 1)) (fib (- n 2)))))
(defun spin-a (n)
  (let ((s 0)) (dotimes (i n s) (setf s (logand (+ s (* i i)) #xffffff)))))
(defun spin-b (n)
  (let ((s 0)) (dotimes (i n s) (setf s (logxor s (* i 3))))))
EOF
cat > drive.lisp <<EOF
(require :sb-sprof)
(load "$TOP/contrib/sbcl/sb-sprof-export.lisp")
(load (compile-file "work.lisp" :output-file "$SF_TMP/work.fasl"))
(sb-sprof:start-profiling :mode :time :sample-interval 0.002 :threads :all)
(let ((a (sb-thread:make-thread (lambda () (spin-a 40000000)) :name "worker-a"))
      (b (sb-thread:make-thread (lambda () (spin-b 40000000)) :name "worker-b")))
  (dotimes (i 10) (fib 31))
  (sb-thread:join-thread a)
  (sb-thread:join-thread b))
(sb-sprof:stop-profiling)
;; export, report (which must still see the samples), export again
(sb-sprof-export:write-samples "$SF_TMP/dump1.sbsprof")
(with-open-file (out "$SF_TMP/report.txt" :direction :output :if-exists :supersede)
  (sb-sprof:report :type :flat :max 100000 :stream out))
(sb-sprof-export:write-samples "$SF_TMP/dump2.sbsprof")
EOF
if ! sbcl --non-interactive --no-sysinit --no-userinit --load drive.lisp > sbcl.log 2>&1; then
	fail sbcl-profile-and-export "sbcl failed: $(tail -n 5 sbcl.log)"
	exit 0
fi
pass sbcl-profile-and-export

expect_same sbcl-export-twice-same dump1.sbsprof dump2.sbsprof

# sb-sprof's numbers, from its own report
python3 - > report.counts <<'PY'
import re
n = None; rows = []; elsewhere = 0
for line in open('report.txt'):
    m = re.match(r'Number of samples:\s+(\d+)', line)
    if m: n = int(m.group(1))
    m = re.match(r'\s*\d+\s+(\d+)\s+[\d.]+\s+\d+\s+[\d.]+\s+\d+\s+[\d.]+\s+\S+\s+(.*)$', line)
    if m and int(m.group(1)) > 0: rows.append((int(m.group(1)), m.group(2)))
    m = re.match(r'\s+(\d+)\s+[\d.]+\s+elsewhere', line)
    if m: elsewhere = int(m.group(1))
print('total', n)
print('elsewhere', elsewhere)
# every trace in the vector counts once: as its leaf's self count, or as
# "elsewhere" when the leaf has no node
print('lines', sum(c for c, f in rows) + elsewhere)
for c, f in rows:
    # collapsed stacks write ';' in names as ':'
    print('self', c, f.replace(';', ':'))
PY
total=$(sed -n 's/^total //p' report.counts)
if [ -z "$total" ] || [ "$total" = None ] || [ "$total" -eq 0 ]; then
	fail sbcl-report-has-samples "report after export shows no samples: $(head -n 3 report.txt)"
	exit 0
fi
pass sbcl-report-has-samples

# "Number of samples" in the report is the runtime's trace counter, which
# the dump keeps as @trace-count.  (A sample that lands while profiling
# stops can make the vector one trace longer than the counter, so the
# per-line totals below are checked against the report's rows instead.)
traces=$(sed -n 's/^@trace-count\t//p' dump1.sbsprof)
[ "$traces" = "$total" ] && pass sbcl-trace-count-header ||
	fail sbcl-trace-count-header "@trace-count $traces, report $total"

lines=$(sed -n 's/^lines //p' report.counts)
dumped=$(sed -n 's/^@sample-count\t//p' dump1.sbsprof)
[ "$dumped" = "$lines" ] && pass sbcl-sample-count-header ||
	fail sbcl-sample-count-header "@sample-count $dumped, report rows sum to $lines"

# to Sampler and to collapsed stacks
if $SFCONV dump1.sbsprof -o dump.trace 2> conv.err; then
	pass sbcl-to-sampler
else
	fail sbcl-to-sampler "$(cat conv.err)"
fi
$SFCONV dump1.sbsprof > dump.folded 2>/dev/null
$SFCONV dump.trace > trace.folded 2>/dev/null
expect_same sbcl-sampler-same-stacks dump.folded trace.folded

# per-function self counts: leaf frame of each collapsed line
python3 - dump.folded trace.folded > self.check <<'PY'
import sys
want = {}; total = None; elsewhere = 0
for line in open('report.counts'):
    k, rest = line.rstrip('\n').split(' ', 1)
    if k == 'lines': total = int(rest)
    elif k == 'total': pass
    elif k == 'elsewhere': elsewhere = int(rest)
    else:
        c, f = rest.split(' ', 1)
        want[f] = want.get(f, 0) + int(c)
for path in sys.argv[1:]:
    got = {}; n = 0
    for line in open(path):
        stack, c = line.rstrip('\n').rsplit(' ', 1)
        leaf = stack.split(';')[-1]
        got[leaf] = got.get(leaf, 0) + int(c); n += int(c)
    unknown = got.pop('<unknown>', 0)
    print('%s total %s' % (path, 'ok' if n == total else 'bad %d != %d' % (n, total)))
    print('%s elsewhere %s' % (path, 'ok' if unknown == elsewhere else
                                'bad %d != %d' % (unknown, elsewhere)))
    bad = ['%s: %d != %d' % (f, got.get(f, 0), c) for f, c in want.items()
           if got.get(f, 0) != c]
    extra = [f for f in got if f not in want]
    print('%s self %s' % (path, 'ok' if not bad and not extra else
                           'bad ' + '; '.join(bad + ['extra ' + e for e in extra])))
    hot = max(want, key=lambda f: want[f])
    # ties allowed: the report's hottest is (one of) ours
    print('%s hottest %s' % (path, 'ok' if got.get(hot, 0) == max(got.values())
                             else 'bad report says ' + hot))
PY
for f in dump.folded trace.folded; do
	for what in total elsewhere self hottest; do
		r=$(sed -n "s/^$f $what //p" self.check)
		[ "$r" = ok ] && pass "sbcl-$what-$f" || fail "sbcl-$what-$f" "$r"
	done
done

# the workload's functions are there, in their threads
$SFCONV --thread-prefix dump1.sbsprof > tp.folded 2>/dev/null
if grep -q ';FIB ' tp.folded && grep -q '^worker-a-[0-9]*;.*;SPIN-A ' tp.folded &&
   grep -q '^worker-b-[0-9]*;.*;SPIN-B ' tp.folded &&
   ! grep -q '^worker-a-[0-9]*;.*SPIN-B' tp.folded &&
   ! grep -q '^main thread-[0-9]*;.*SPIN-' tp.folded; then
	pass sbcl-functions-in-threads
else
	fail sbcl-functions-in-threads "FIB, SPIN-A, SPIN-B not in their threads"
fi

# sbsprof -> Sampler -> sbsprof: the same stacks per thread
$SFCONV dump.trace --to sbsprof > back.sbsprof 2>/dev/null
$SFCONV --thread-prefix back.sbsprof > back.folded 2>/dev/null
expect_same sbcl-sbsprof-sampler-sbsprof tp.folded back.folded
