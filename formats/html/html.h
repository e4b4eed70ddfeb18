/*
 * html.h - internal to the HTML report: fmt_html.c writes the page,
 * html_callgraph.c draws its call-graph view.
 */
#ifndef SF_HTML_H
#define SF_HTML_H

#include "profile.h"

/* The call-graph picture of p weighed by its default sample type, as
 * SVG text into *svg_text (malloc'ed, the caller frees it), or NULL
 * with a warning when Graphviz cannot be loaded or the graph is too big
 * to lay out even at a 10% cut, and NULL for a comparison.  0, or a
 * negative sf_code with ctx->err set. */
int sf_html__callgraph(const struct sf_profile *p, struct sf_ctx *ctx,
		       char **svg_text);

#endif
