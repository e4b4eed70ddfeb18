# bench/rows-callgraph.sh - issue #18 item 4, sourced by bench/run.sh:
# sfanalyze --callgraph against Racket's analyzer as processes (a fixed
# shape, 20,000 random samples; BENCH_MB does not scale it).
BENCH_RUNS=$runs SF_BIN=$bin sh "$top/bench/callgraph-racket.sh"
