# Sample lines: thread field forms, order, errors.
. "$TOP/tests/lib.sh"

# thread field: TID, TID:NAME, :NAME, bare NAME (read as :NAME), empty
printf '7\t1\ta\n7:main\t2\ta;b\n:solo\t1\tc\nsolo\t1\tc\n\t0.5\t\n' > t.tsv
$SFCONV t.tsv --to lines > out.tsv
printf '7\t1\ta\n7:main\t2\ta;b\n:solo\t1\tc\n:solo\t1\tc\n\t0.5\t\n' > want.tsv
expect_same lines-thread-forms want.tsv out.tsv
# the two "solo" spellings are one thread; 7 and 7:main are two
$SFCONV t.tsv --to json | python3 -c '
import json,sys; d=json.load(sys.stdin)
got=sorted(str((t.get("tid"), t.get("name"))) for t in d["threads"])
want=sorted(str(x) for x in [(7,None),(7,"main"),(None,"solo")])
assert got == want, got
print("ok")' > th.out 2>&1
grep -qx ok th.out && pass lines-thread-identity || fail lines-thread-identity "$(cat th.out)"

# collapsed from lines sums per stack across threads (hand-computed)
printf 'a 1\na;b 2\nc 2\n' > want.folded
printf ' 0.5\n' >> want.folded
LC_ALL=C sort want.folded > want.sorted
$SFCONV t.tsv -q --to collapsed > got.folded
expect_same lines-to-collapsed want.sorted got.folded

printf '1\t1\ta\n1\tx\tb\n' > badw.tsv
expect_error lines-bad-weight 1 "^sfconv: badw.tsv:2: expected a non-negative number as WEIGHT, found 'x'" $SFCONV --from lines badw.tsv
printf '1\t1\ta\n1 1 b\n' > badf.tsv
expect_error lines-missing-tab 1 '^sfconv: badf.tsv:2: expected THREAD<TAB>WEIGHT<TAB>STACK' $SFCONV --from lines badf.tsv
# TID<TAB>WEIGHT with no stack field is an empty-stack sample (Racket's
# analyzer reads it so); the empty stack is the empty collapsed line
printf '7\t2\n7\t1\ta;b\n8\t0.5\n' > nostack.tsv
$SFCONV nostack.tsv -q --to collapsed > nostack.out
printf ' 2.5\na;b 1\n' > nostack.want
expect_same lines-no-stack-field nostack.want nostack.out
$SFCONV --from lines nostack.tsv --to lines > nostack.lines
printf '7\t2\t\n7\t1\ta;b\n8\t0.5\t\n' > nostack.lwant
expect_same lines-no-stack-field-kept nostack.lwant nostack.lines
printf '99999999999999999999\t1\ta\n' > badt.tsv
expect_error lines-thread-overflow 1 '^sfconv: badt.tsv:1: thread id out of range' $SFCONV --from lines badt.tsv
# detection: sample lines are recognised without --from
printf '1\t1\ta;b\n' | $SFCONV --to lines > det.out
printf '1\t1\ta;b\n' > det.want
expect_same lines-detected det.want det.out
