# Sample lines: thread identity in the model.  Thread field forms, order,
# collapsed output, detection and errors are golden cases
# (tests/cases/lines-*).
. "$TOP/tests/lib.sh"

# the two "solo" spellings are one thread; 7 and 7:main are two
printf '7\t1\ta\n7:main\t2\ta;b\n:solo\t1\tc\nsolo\t1\tc\n\t0.5\t\n' > t.tsv
$SFCONV t.tsv --to json | python3 -c '
import json,sys; d=json.load(sys.stdin)
got=sorted(str((t.get("tid"), t.get("name"))) for t in d["threads"])
want=sorted(str(x) for x in [(7,None),(7,"main"),(None,"solo")])
assert got == want, got
print("ok")' > th.out 2>&1
grep -qx ok th.out && pass lines-thread-identity || fail lines-thread-identity "$(cat th.out)"
