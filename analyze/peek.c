/*
 * peek.c - `--peek`: which call-graph nodes a set of regexes selects.  The
 * node view itself is the call-graph text report restricted to them
 * (sf_an_cg_opts.peek), so peek shows exactly the times --callgraph does.
 */
#include "analyze.h"

size_t sf_an_cg_count_matches(const struct sf_an_cg *g, const regex_t *re,
			      size_t n)
{
	struct sf_an_cg_info info;
	size_t hits = 0;

	sf_an_cg_info(g, &info);
	for (size_t i = 1; i <= info.nnodes; i++) {
		struct sf_an_cg_node x;
		sf_an_cg_node(g, i, &x);
		for (size_t k = 0; k < n; k++) {
			if (!regexec(&re[k], x.name, 0, NULL, 0)) {
				hits++;
				break;
			}
		}
	}
	return hits;
}
