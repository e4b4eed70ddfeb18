# xctrace export XML reader: a hand-written time-profile table using id=
# and ref= back-references, expectations derived by hand (1 per row, as
# inferno-collapse-xctrace counts; rows with <sentinel/> skipped), the
# model's weights, threads and locations, malformed XML.
. "$TOP/tests/lib.sh"
IN=$FIX/xctrace/basic.xml

printf '%s\n' 'main 1' 'main;leaf&co 2' > want.txt
$SFCONV -q "$IN" > got.txt 2>&1   # detected by content
expect_same xctrace-default want.txt got.txt
gzip -c "$IN" > in.xml.gz
$SFCONV -q in.xml.gz > got.txt 2>&1
expect_same xctrace-gzip want.txt got.txt

$SFCONV -q "$IN" --to json > m.json
if python3 - m.json <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
assert m["threads"] == [{"pid": 5, "tid": 16, "name": "main"}], m["threads"]
assert m["sample_types"][1] == {"type": "cpu", "unit": "nanoseconds"}
assert sorted(s[5] for s in m["samples"]) == [1000000, 1000000, 2000000]
assert sorted(s[2] for s in m["samples"]) == [1000000, 2000000, 3000000]
f = [x for x in m["frames"] if x["name"] == "leaf&co"][0]
assert (f["module"], f["file"], f["line"], f["address"]) == ("/bin/app", "/src/a.c", 12, "0x1010"), f
PY
then pass xctrace-model; else fail xctrace-model "weights, time, thread or location lost"; fi

# malformed: a ref to an unknown id, broken XML, too deep nesting
sed 's/<backtrace ref="7"\/>/<backtrace ref="99"\/>/' "$IN" > badref.xml
expect_error xctrace-bad-ref 1 '^sfconv: badref.xml:5: <backtrace ref="99"/> names no earlier backtrace' \
	$SFCONV --from xctrace badref.xml
head -n 5 "$IN" | sed 's/<\/row>$//' > broken.xml
expect_error xctrace-broken-xml 1 '^sfconv: broken.xml:[0-9]+: malformed XML' $SFCONV --from xctrace broken.xml
expect_error xctrace-nesting 1 'nested deeper than 3' $SFCONV --from xctrace --max-nesting 3 "$IN"
printf '<?xml version="1.0"?>\n<other/>\n' > other.xml
expect_error xctrace-wrong-root 1 '^sfconv: other.xml:2: expected <trace-query-result>' $SFCONV --from xctrace other.xml

# hostile XML: entity expansion bombs and external entities are refused
{
	echo '<?xml version="1.0"?>'
	echo '<!DOCTYPE l [ <!ENTITY a "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa">'
	prev=a
	for n in b c d e f g h i j; do
		printf ' <!ENTITY %s "' $n
		for k in 1 2 3 4 5 6 7 8 9 10; do printf '&%s;' $prev; done
		printf '">\n'
		prev=$n
	done
	echo ']>'
	echo '<trace-query-result><node><row><backtrace id="1"><frame id="2" name="&j;"/></backtrace></row></node></trace-query-result>'
} > bomb.xml
expect_error xctrace-entity-bomb 1 '^sfconv: bomb.xml:[0-9]+: malformed XML' $SFCONV --from xctrace bomb.xml
printf '%s\n' '<?xml version="1.0"?>' '<!DOCTYPE x [ <!ENTITY e SYSTEM "file:///etc/passwd"> ]>' \
	'<trace-query-result><node><row><backtrace id="1"><frame id="2" name="a&e;"/></backtrace></row></node></trace-query-result>' > xxe.xml
expect_error xctrace-external-entity 1 '^sfconv: xxe.xml:3: malformed XML: .*external entity' $SFCONV --from xctrace xxe.xml
