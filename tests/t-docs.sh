# docs/ stands alone and stays true: no file of the repository names a
# path outside it (peer fixtures are read through $SHARED, never named),
# and the worked examples of docs/formats.md (Sampler trace, sbsprof dump)
# and docs/analyze.md (call graph 10.1) give what the documents say.
. "$TOP/tests/lib.sh"

# --- no path outside the repository -------------------------------------
# The patterns are split so that this file does not match itself.
w='/wo''rk/'; s='shared/sp''ec'
m='sp''ec/(sampler|callgraph|sbsprof-samples|capture)\.md'
if have git && git -C "$TOP" rev-parse --git-dir >/dev/null 2>&1; then
	files=$(git -C "$TOP" ls-files)
else
	files=$(cd "$TOP" && find . -path ./build -prune -o -path ./bin -prune \
		-o -type f -print)
fi
hits=$(cd "$TOP" && printf '%s\n' "$files" |
	while IFS= read -r f; do [ -f "$f" ] && printf '%s\0' "$f"; done |
	xargs -0 grep -n -I -E "$w|$s|$m" 2>/dev/null)
if [ -z "$hits" ]; then pass docs-no-outside-paths; else
	fail docs-no-outside-paths "$(printf '%s\n' "$hits" | head -n 1)"
	printf '%s\n' "$hits" | head -n 10
fi

if ! have python3; then
	skip docs-examples "python3 is needed to read the examples out of docs/"
	exit 0
fi

# --- the worked examples --------------------------------------------------
# docs.py MARKER FILE [N]: the Nth (default 1) block of 4-space indented
# lines after the first line containing MARKER, unindented; runs of two or
# more spaces and the TAB sign of the sbsprof example become TABs unless
# the mode says "raw".
cat > docs.py <<'EOF'
import re, sys
marker, path = sys.argv[1], sys.argv[2]
n = int(sys.argv[3]) if len(sys.argv) > 3 else 1
mode = sys.argv[4] if len(sys.argv) > 4 else "tabs"
lines = open(path, encoding="utf-8").read().split("\n")
i = next(k for k, l in enumerate(lines) if marker in l)
blocks, cur = [], None
for l in lines[i + 1:]:
    if l.startswith("    "):
        cur = cur if cur is not None else []
        cur.append(l[4:])
    elif cur is not None:
        blocks.append(cur); cur = None
        if len(blocks) == n:
            break
out = blocks[n - 1]
if mode == "tabs":
    out = [re.sub(r" {2,}", "\t", l).replace("(empty stack)", "") for l in out]
elif mode == "arrows":
    out = [l.replace("\u2192|", "\t") for l in out]
sys.stdout.write("\n".join(out) + "\n")
EOF

# Sampler: the annotated dump, rebuilt byte by byte, is what sfconv writes.
python3 docs.py 'A profile of two threads, as sample lines' \
	"$TOP/docs/formats.md" > ex.lines
python3 docs.py 'A profile of two threads, as sample lines' \
	"$TOP/docs/formats.md" 2 raw > annot.txt
python3 - annot.txt > annot.trace <<'EOF'
import re, sys
out = b""
for l in open(sys.argv[1]):
    m = re.match(r"([0-9a-f]{3})  (.*)$", l.rstrip("\n"))
    if not m or int(m.group(1), 16) != len(out):
        sys.exit("bad offset or line: " + l)
    for t in re.findall(r"'[^']*'|\[[0-9a-f]{8}\]|TAB|LF", m.group(2)):
        out += (b"\t" if t == "TAB" else b"\n" if t == "LF" else
                int(t[1:-1], 16).to_bytes(4, "big") if t[0] == "[" else
                t[1:-1].encode())
sys.stdout.buffer.write(out)
EOF
if [ $? -ne 0 ] || [ ! -s annot.trace ]; then
	fail docs-sampler-example "docs/formats.md: the annotated dump does not parse"
elif $SFCONV ex.lines -o ex.trace 2>/dev/null; then
	expect_same docs-sampler-example annot.trace ex.trace
else
	fail docs-sampler-example "sfconv could not write the example"
fi

# sbsprof: the dump of the example reads as the sample lines shown.
python3 docs.py 'A dump of a `cpu` session' "$TOP/docs/formats.md" 1 arrows \
	> run.sbsprof
python3 docs.py '`sfconv run.sbsprof -t lines` gives' "$TOP/docs/formats.md" \
	1 arrows > want.lines
if $SFCONV -q run.sbsprof -t lines > got.lines; then
	expect_same docs-sbsprof-example want.lines got.lines
else
	fail docs-sbsprof-example "sfconv could not read the example dump"
fi

# Call graph 10.1: the text report shown, and the node order and star
# lists derived by hand in the text.
python3 docs.py '10.1 A small profile, by hand' "$TOP/docs/analyze.md" \
	> cg.lines
python3 - "$TOP/docs/analyze.md" > want.txt <<'EOF'
import sys
s = open(sys.argv[1], encoding="utf-8").read()
i = s.index("`sfanalyze --callgraph` on these lines prints exactly this:")
a = s.index("```\n", i) + 4
sys.stdout.write(s[a:s.index("```", a)])
EOF
if $SFANALYZE --callgraph cg.lines > got.txt; then
	expect_same docs-callgraph-example-text want.txt got.txt
else
	fail docs-callgraph-example-text "sfanalyze failed"
fi
order=$($SFANALYZE --callgraph --json cg.lines | python3 -c '
import json, sys
d = json.load(sys.stdin)
ids = lambda l: ",".join(e["id"] or "*" for e in l)
print(",".join(n["id"] for n in d["nodes"]), ids(d["star_node"]["callers"]),
      ids(d["star_node"]["callees"]), d["total_time"], d["sample_number"])')
want='main,idle,run,log,step idle,log,step idle,main 10 5'
if [ "$order" = "$want" ]; then pass docs-callgraph-example-order; else
	fail docs-callgraph-example-order "got '$order', derived by hand '$want'"
fi
