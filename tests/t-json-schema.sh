# The native JSON output validates against docs/profile.schema.json, and the
# reader rejects documents that break it with a message naming the member.
. "$TOP/tests/lib.sh"

py=
for p in python3 /usr/bin/python3; do
	if $p -c 'import jsonschema' 2>/dev/null; then py=$p; break; fi
done
if [ -z "$py" ]; then
	skip json-schema-validates "no python3 jsonschema module (Debian python3-jsonschema)"
else
	python3 "$TOP/tests/gen_stacks.py" lines 5 300 > in.tsv
	$SFCONV in.tsv -o out.json
	cat > v.py <<'PY'
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
doc = json.load(open(sys.argv[2]))
jsonschema.validate(doc, schema, cls=jsonschema.Draft202012Validator)
# the schema must also reject a broken document
bad = dict(doc); bad["version"] = 2
try:
    jsonschema.validate(bad, schema, cls=jsonschema.Draft202012Validator)
    sys.exit("schema accepted version 2")
except jsonschema.ValidationError:
    pass
PY
	if $py v.py "$TOP/docs/profile.schema.json" out.json; then pass json-schema-validates
	else fail json-schema-validates "output does not match docs/profile.schema.json"; fi
	# frames with offsets (a sample report's "+ N")
	$SFCONV "$FIX/sample/offsets.sample.txt" -o off.json
	if grep -q '"offset":20' off.json && $py v.py "$TOP/docs/profile.schema.json" off.json; then
		pass json-schema-validates-offsets
	else fail json-schema-validates-offsets "offsets missing or not in docs/profile.schema.json"; fi
fi

hdr='{"format":"sftools-profile","version":1,"sample_types":[{"type":"samples","unit":"count"}],"threads":[],"frames":[{"name":"a"}]'
printf '%s,"stacks":[[0,0]],"samples":[[5,null,null,0,1]]}\n' "$hdr" > badstack.json
expect_error json-stack-out-of-range 1 '^sfconv: badstack.json:1: samples\[0\]: ' $SFCONV badstack.json
printf '%s,"stacks":[[1,0]],"samples":[]}\n' "$hdr" > cycle.json
expect_error json-parent-not-before 1 'stacks\[0\]: expected \[parent, frame\]' $SFCONV cycle.json
printf '%s,"stacks":[[0,0]],"samples":[[1,null,null,0]]}\n' "$hdr" > noweight.json
expect_error json-missing-weight 1 'samples\[0\]: expected \[stack, thread' $SFCONV noweight.json
printf '{"format":"sftools-profile","version":2}\n' > v2.json
expect_error json-version 1 'unsupported version' $SFCONV v2.json
printf '%s,"stacks":[[0,0]],\n"samples":[[1,null,null,0,1]\n' "$hdr" > trunc.json
expect_error json-truncated 1 '^sfconv: trunc.json:[0-9]+: truncated JSON' $SFCONV trunc.json
printf '%s,"stacks":[[0,0]],\n"samples":[[1,null,null,0,1]]} x\n' "$hdr" > trail.json
expect_error json-trailing-data 1 'trail.json:2: unexpected data after' $SFCONV trail.json
printf '{"format":"sftools-profile",\n\n "version": 1,, }\n' > syntax.json
expect_error json-syntax-line 1 '^sfconv: syntax.json:3: invalid JSON' $SFCONV --from json syntax.json
# nesting beyond --max-nesting is refused, not recursed into
python3 -c 'print("{\"format\":\"sftools-profile\",\"x\":" + "["*600 + "]"*600 + "}")' > deep.json
expect_error json-nesting-limit 1 'invalid JSON' $SFCONV deep.json
printf '%s' "$hdr" | sed 's/{"name":"a"}/{"name":"a","offset":-1}/' > badoff.json
printf ',"stacks":[[0,0]],"samples":[[1,null,null,0,1]]}\n' >> badoff.json
expect_error json-offset-negative 1 'frames\[0\]: offset: expected an integer' $SFCONV badoff.json
