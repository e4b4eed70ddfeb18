# The native JSON reader's chains (json_fast.c, fold_chain): a run of
# stack nodes, each the child of the element just before it when that
# one made a new node, goes to the model at once
# (sf_profile_stack_chain).  A document built here to take every turn
# of it: 1,600 blocks, each a head under the root ([0, f1] or [0, f2]:
# every head after the first two repeats a node) and under it a chain
# of 70 nodes, longer than a run's 64; the chain's first frame is
# f(3 + b % 400), so blocks 400 and later repeat a whole chain (each
# node found by a lookup), and the first 400 make new nodes.  The
# expected output is worked out from that construction, not from a
# run: 400 stacks, each taken by 4 blocks, and 2 + 400 x 70 nodes.
# Every run is compared at -j1, -j2, -j2 waiting for the thread that
# parses the pairs ahead (the stacks section is over its 1 MiB), and
# yajl alone, as are the errors inside a chain: its depth past
# --max-depth (the model's message, which names no line), a frame that
# does not exist (the node's line); and a second input whose chain
# continues a node of the first's.
. "$TOP/tests/lib.sh"
. "$TOP/tests/json-lib.sh"

# a document's lines up to its stacks section's '[': frames f0 ... f599
doc_head() {
	awk 'BEGIN {
	printf "{\"format\":\"sftools-profile\",\"version\":1,\n"
	printf "\"sample_types\":[{\"type\":\"samples\",\"unit\":\"count\"}],\n"
	printf "\"threads\":[],\n\"frames\":["
	for (f = 0; f < 600; f++)
		printf "%s\n{\"name\":\"f%d\"}", f ? "," : "", f
	printf "],\n\"stacks\":["
	}'
}

blocks=1600
{ doc_head; awk -v B=$blocks -v L=70 'BEGIN {
	n = 0
	for (b = 0; b < B; b++) {
		printf "%s\n[0,%d]", b ? "," : "", 1 + b % 2
		n++
		for (k = 1; k <= L; k++) {
			printf ",\n[%d,%d]", n, k == 1 ? 3 + b % 400 : 3 + k
			n++
		}
		leaf[b] = n
	}
	printf "],\n\"label_sets\":[],\n\"samples\":["
	for (b = 0; b < B; b++)
		printf "%s\n[%d,null,null,0,1]", b ? "," : "", leaf[b]
	printf "]}\n"
}'; } > chain.json
# the expected stacks: one per b % 400, its frames root first
awk 'BEGIN {
	for (r = 0; r < 400; r++) {
		s = "f" (1 + r % 2) ";f" (3 + r)
		for (k = 2; k <= 70; k++)
			s = s ";f" (3 + k)
		print s " 4"
	}
}' | LC_ALL=C sort > want.folded
s0=$(($(grep -n '^"stacks":\[' chain.json | cut -d: -f1) + 1))
s1=$(($(grep -n '^"label_sets":' chain.json | cut -d: -f1) - 1))
# the thread starts for a section of 1 MiB or more (json_ahead.c)
sb=$(sed -n "${s0},${s1}p" chain.json | wc -c)
[ "$sb" -gt 1200000 ] ||
	{ fail json-chain-gen "a stacks section of only $sb bytes"; exit 0; }

# ---- the model: the stack nodes the json writer writes back
if json_same json-chain-json chain.json --to json; then
	nodes=$(awk '/^"stacks":\[/ { on = 1; next } on && /^"/ { exit }
		on { n++ } END { print n + 0 }' j1.out)
	[ "$nodes" = 28002 ] && pass json-chain-nodes ||
		fail json-chain-nodes "$nodes stack nodes, not 2 + 400 x 70"
fi
# ---- the stacks and their samples
if json_same json-chain-collapsed chain.json --to collapsed; then
	LC_ALL=C sort j1.out > got.folded
	expect_same json-chain-collapsed-want want.folded got.folded
fi

# ---- errors inside a chain: the first node deeper than --max-depth 40
# (block 0's 40th chain node, at depth 41, a run of 64 cut short), and
# a frame out of range as block 5's 30th chain node
if json_same json-chain-depth chain.json --to collapsed --max-depth 40; then
	grep -q "^sfconv: chain.json: stack deeper than the limit of 40 " \
		j1.err && pass json-chain-depth-message ||
		fail json-chain-depth-message "$(head -n 1 j1.err)"
fi
line=$((s0 + 5 * 71 + 30))
awk -v L=$line 'NR == L { sub(/,[0-9]+\]/, ",600]") } 1' chain.json > bad.json
if json_same json-chain-frame bad.json --to collapsed; then
	grep -q "^sfconv: bad.json:$line: " j1.err &&
		pass json-chain-frame-line ||
		fail json-chain-frame-line "not line $line: $(head -n 1 j1.err)"
fi

# ---- a second input read into the same profile after the first: its
# chain hangs under a node it found (not made) that is the newest of
# the first input's -- block 399's leaf, f2;f402;f5;...;f73 -- so the
# run of 80 new nodes below it (two runs: 64, then 16) continues a tree
# whose ids and child lists the first input made, through a map of the
# file's stacks that is not the identity.  Worked out: the first
# input's 400 stacks, and that path with f500 ... f579 under it, once.
{ doc_head; awk 'BEGIN {
	printf "\n[0,2],\n[1,402]"
	for (k = 2; k <= 70; k++)
		printf ",\n[%d,%d]", k, 3 + k
	for (j = 0; j < 80; j++)
		printf ",\n[%d,%d]", 71 + j, 500 + j
	printf "],\n\"label_sets\":[],\n\"samples\":[\n[151,null,null,0,1]]}\n"
}'; } > ext.json
{
	cat want.folded
	awk 'BEGIN { s = "f2;f402"
		for (k = 2; k <= 70; k++) s = s ";f" (3 + k)
		for (j = 0; j < 80; j++) s = s ";f" (500 + j)
		print s " 1" }'
} | LC_ALL=C sort > want2.folded
# the fast path reads ext.json whole (SF_JSON_STRICT makes leaving it an
# error), so its stacks go through the runs
if SF_JSON_STRICT=1 $SFCONV -q -j1 chain.json ext.json --to collapsed \
	> strict.out 2> strict.err; then
	pass json-chain-second-strict
else
	fail json-chain-second-strict "$(head -n 1 strict.err)"
fi
if json_same json-chain-second chain.json ext.json --to collapsed; then
	LC_ALL=C sort j1.out > got2.folded
	expect_same json-chain-second-want want2.folded got2.folded
fi

# ---- runs of consecutive parents that are not chains, beside chains:
# each of 1,500 blocks is a head under the root,
# a chain of 60 nodes (blocks 700 on repeat one), then 5 nodes under the
# chain's nodes 1 to 5 ([h+1, g], [h+2, g], ...: consecutive parents,
# none the element just before, so no chain), each a sample, as is the
# chain's leaf.  Read once with the frames' map the identity and once
# with a frame written twice first (the map moved).  Worked out
# by awk from the document itself: each node's path is its parent's
# path and its frame's name.
seg_doc() { # DUP: 1 = the frames section starts with "f0" twice
	awk -v D="$1" -v B=1500 -v L=60 'BEGIN {
	printf "{\"format\":\"sftools-profile\",\"version\":1,\n"
	printf "\"sample_types\":[{\"type\":\"samples\",\"unit\":\"count\"}],\n"
	printf "\"threads\":[],\n\"frames\":["
	if (D) printf "\n{\"name\":\"f0\"},"
	for (f = 0; f < 800; f++)
		printf "%s\n{\"name\":\"f%d\"}", f ? "," : "", f
	printf "],\n\"stacks\":["
	n = 0; ns = 0
	for (b = 0; b < B; b++) {
		printf "%s\n[0,%d]", b ? "," : "", D + b % 2
		h = ++n
		for (k = 1; k <= L; k++) {
			printf ",\n[%d,%d]", n, D + (k == 1 ? 3 + b % 700 : 3 + k)
			n++
		}
		leaf[ns++] = n
		for (j = 1; j <= 5; j++) {
			printf ",\n[%d,%d]", h + j, D + 790 + j
			leaf[ns++] = ++n
		}
	}
	printf "],\n\"label_sets\":[],\n\"samples\":["
	for (s = 0; s < ns; s++)
		printf "%s\n[%d,null,null,0,1]", s ? "," : "", leaf[s]
	printf "]}\n"
	}'
}
# the folded stacks of a document of this test's shape: frames one a
# line, stacks [parent, frame] one a line, samples [stack, ...] of
# weight 1 (file indexes; stack 0 is the root)
seg_want() {
	awk '/^"frames":\[/ { sec = "f"; next } /^"stacks":\[/ { sec = "s"; next }
	/^"samples":\[/ { sec = "x"; next } /^"/ { sec = ""; next }
	sec == "f" && match($0, /"name":"[^"]*"/) {
		name[nf++] = substr($0, RSTART + 8, RLENGTH - 9) }
	sec == "s" && match($0, /\[[0-9]+,[0-9]+\]/) {
		split(substr($0, RSTART + 1, RLENGTH - 2), v, ",")
		++ns; path[ns] = (v[1] ? path[v[1]] ";" : "") name[v[2]] }
	sec == "x" && match($0, /\[[0-9]+,/) {
		w[path[substr($0, RSTART + 1, RLENGTH - 2)]]++ }
	END { for (p in w) print p " " w[p] }' "$1" | LC_ALL=C sort
}
for dup in 0 1; do
	seg_doc $dup > seg$dup.json
	seg_want seg$dup.json > seg$dup.want
	n=$(wc -l < seg$dup.want)
	[ "$n" = 4200 ] || fail json-chain-seg$dup-want "$n stacks, not 700 + 3500"
	if json_same json-chain-seg$dup seg$dup.json --to collapsed; then
		LC_ALL=C sort j1.out > seg$dup.got
		expect_same json-chain-seg$dup-want seg$dup.want seg$dup.got
	fi
done
