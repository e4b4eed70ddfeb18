/*
 * html_callgraph.c - the HTML page's call-graph view: the picture
 * sfanalyze --callgraph -o X.svg draws (analyze's call graph, Graphviz's
 * dot layout, pprof's pruning), as SVG text the page embeds.
 */
#include "html.h"
#include "analyze.h"
#include "diff.h"

#include <stdlib.h>
#include <string.h>

/* Graphviz's dot layout takes minutes on a graph of a thousand nodes and
 * thousands of edges (a deep recursive profile passes pprof's 0.5% cut
 * with that many): the page's picture raises the cut until the graph is
 * at most this big, and goes without it when even 10% leaves more. */
#define CG_MAX_NODES 150
#define CG_MAX_EDGES 400

/* Nodes and edges of dot text as sf_an_cg_dot writes it. */
static void dot_size(const char *d, size_t n, size_t *nodes, size_t *edges)
{
	*nodes = *edges = 0;
	for (size_t i = 0; i < n; i++) {
		if ((i == 0 || d[i - 1] == '\n') && d[i] == 'N')
			++*nodes;
		if (d[i] == '-' && i + 1 < n && d[i + 1] == '>')
			++*edges;
	}
	*nodes -= *edges;   /* an edge line starts with N too */
}

int sf_html__callgraph(const struct sf_profile *p, struct sf_ctx *ctx,
			char **svg_text)
{
	static const double cut[] = { SF_AN_DOT_NODE_FRACTION, 0.02, 0.05,
				      0.1 };
	struct sf_an_report_opts r = {
		.kind = sf_an_report_by_name("callgraph"),
		.filter.type = p->d.meta.default_type,
		.cgr = { .dot_text = true,
			 .dot = { .edge_fraction = SF_AN_DOT_EDGE_FRACTION } },
		.tree.min_percent = -1,
	};
	struct sf_output *dot = NULL, *svg = NULL;
	size_t n = 0, nodes = 0, edges = 0;
	const char *d = NULL;
	int rc = 0;

	*svg_text = NULL;
	if (sf_diff_types(p, &(uint32_t){ 0 }, &(uint32_t){ 0 }) ||
	    !p->d.ntypes)
		return 0;
	for (size_t k = 0; k < sizeof(cut) / sizeof(cut[0]); k++) {
		sf_output_abort(dot);
		r.cgr.dot.node_fraction = cut[k];
		if ((rc = sf_output_mem(&dot, ctx)) ||
		    (rc = sf_an_report(dot, p, NULL, &r, ctx)))
			goto out;
		sf_output_putc(dot, 0);
		d = sf_output_mem_data(dot, &n);
		dot_size(d, n, &nodes, &edges);
		if (nodes <= CG_MAX_NODES && edges <= CG_MAX_EDGES)
			break;
	}
	if (nodes > CG_MAX_NODES || edges > CG_MAX_EDGES) {
		sf_warn(ctx, "html-callgraph", "html: no call graph view: %zu "
			"functions and %zu calls over 10%% of the total, too "
			"many to lay out (sfanalyze --callgraph -o X.svg "
			"draws them)", nodes, edges);
		goto out;
	}
	if (sf_output_failed(dot)) {
		rc = sf_error_nomem(ctx);
		goto out;
	}
	if ((rc = sf_output_mem(&svg, ctx)))
		goto out;
	rc = sf_an_dot_render(svg, d, "svg", ctx);
	if (rc == SF_EUNSUP || rc == SF_EIO) {
		/* Graphviz cannot be loaded (into memory, no write fails):
		 * the page goes without it */
		sf_warn(ctx, "html-callgraph", "html: no call graph view: %s",
			ctx->err.msg);
		memset(&ctx->err, 0, sizeof(ctx->err));
		rc = 0;
	} else if (!rc) {
		const char *t = sf_output_mem_data(svg, &n);
		if (sf_output_failed(svg) || !(*svg_text = strndup(t, n)))
			rc = sf_error_nomem(ctx);
	}
out:
	sf_output_abort(dot);
	sf_output_abort(svg);
	return rc;
}
