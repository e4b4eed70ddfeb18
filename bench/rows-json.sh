# bench/rows-json.sh - the native json reader on a timeline document (every
# sample kept with its own line), sourced by bench/run.sh (uses its
# gen/row/floor_row, $mb, $bin, $top; cwd bench/data).  At BENCH_MB=1024:
# 48 million samples from bench/gen_stacks.c (depth up to 8, 50,000
# distinct stacks, 4 threads), about 870 MB of json.  json -> collapsed
# folds as it reads (bounded memory); json -> json keeps every sample
# (O(samples)).  The reader's layout fast path (docs/formats.md) is
# measured next to SF_JSON_SLOW=1 (yajl's event parser only) and the
# floors, `wc -l` and `cat`, on the same file in the same run; the last
# column of a reader row is its time over cat's.
n=$((48000000 * mb / 1024))
[ -x gen_stacks ] || cc -O2 -o gen_stacks "$top/bench/gen_stacks.c"
gen "lines-$n-d8.samples.tsv" ./gen_stacks "$n" 2000 8 1 50000
gen "timeline-$n.json" "$bin/sfconv" -q "lines-$n-d8.samples.tsv" --to json
echo "-- timeline json: $n samples, $(stat -c %s "timeline-$n.json") bytes"
floor_row "wc -l (timeline json)" "timeline-$n.json" "wc -l timeline-$n.json"
floor_row "cat > /dev/null (timeline json)" "timeline-$n.json" "cat timeline-$n.json"
cat_s=$(cat .floor)
row "sfconv json (timeline) -> collapsed" "timeline-$n.json" "$cat_s" "$bin/sfconv -q timeline-$n.json --to collapsed"
row "  the same, yajl only (SF_JSON_SLOW=1)" "timeline-$n.json" "$cat_s" "SF_JSON_SLOW=1 $bin/sfconv -q timeline-$n.json --to collapsed"
row "sfconv json (timeline) -> json" "timeline-$n.json" "$cat_s" "$bin/sfconv -q timeline-$n.json --to json"
row "  the same, yajl only (SF_JSON_SLOW=1)" "timeline-$n.json" "$cat_s" "SF_JSON_SLOW=1 $bin/sfconv -q timeline-$n.json --to json"
