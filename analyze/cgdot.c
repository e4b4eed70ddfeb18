/*
 * cgdot.c - the call graph as a picture: Graphviz dot written from the
 * analysis result (sf_an_cg), and rendered to SVG, PNG or PDF through
 * Graphviz's library (libgvc).
 *
 * The picture follows pprof's: a node's font grows with its self weight,
 * its fill reddens with its total; an edge's width and layout weight grow
 * with the weight of the samples that pass through it.  Nodes and edges
 * below a fraction of the total are left out (pprof's -nodefraction and
 * -edgefraction), and the graph's label says how many.  Ranks come from
 * the analyzer's order (callgraph.md section 5): nodes are declared in that
 * order and an edge that goes back in it (recursion, a cycle) does not
 * constrain the ranking, so dot lays the graph out top to bottom in the
 * analyzer's layered order; those edges are drawn dashed.
 */
#include "analyze.h"
#include "an_internal.h"

#include "dynlib.h"

#include <graphviz/gvc.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* libgvc is loaded when a picture is first asked for (dynlib.h): it and
 * what it brings cost a few milliseconds of every start-up otherwise.
 * The soname is the one the build found (Makefile, GVC_SONAME). */
#ifndef SF_GVC_SONAME
#define SF_GVC_SONAME "libgvc.so.6"
#endif

#define GV_FUNCS(X)                                                         \
	X(gvContext) X(gvFreeContext) X(gvLayout) X(gvFreeLayout)           \
	X(gvRenderData) X(gvFreeRenderData)                                 \
	X(agmemread) X(agclose) X(agseterr) X(agseterrf)

static struct {
#define PTR(f) __typeof__(f) *f;
	GV_FUNCS(PTR)
#undef PTR
} gv;

static struct sf_dynlib gv_lib =
	SF_DYNLIB_INIT("Graphviz's libgvc", SF_GVC_SONAME, gv, GV_FUNCS);

#define gvContext (*gv.gvContext)
#define gvFreeContext (*gv.gvFreeContext)
#define gvLayout (*gv.gvLayout)
#define gvFreeLayout (*gv.gvFreeLayout)
#define gvRenderData (*gv.gvRenderData)
#define gvFreeRenderData (*gv.gvFreeRenderData)
#define agmemread (*gv.agmemread)
#define agclose (*gv.agclose)
#define agseterr (*gv.agseterr)
#define agseterrf (*gv.agseterrf)

/* A dot string body: quotes and backslashes escaped, control characters
 * as spaces (names come from any input). */
static void put_dot_str(struct sf_output *o, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			sf_output_putc(o, '\\');
		sf_output_putc(o, c < 0x20 ? ' ' : c);
	}
}

static double frac(sf_an_w part, sf_an_w whole)
{
	return whole > 0 ? (double)part / (double)whole : 0;
}

bool sf_an_dot_node_shown(const struct sf_an_cg_node *x,
			  const struct sf_an_cg_info *info,
			  const struct sf_an_dot_opts *opt)
{
	return frac(x->total, info->total_time) >= opt->node_fraction &&
	       x->total > 0;
}

bool sf_an_dot_edge_shown(const struct sf_an_cg_edge *e,
			  const struct sf_an_cg_info *info,
			  const struct sf_an_dot_opts *opt)
{
	return e->other && frac(e->total, info->total_time) >= opt->edge_fraction &&
	       e->total > 0;
}

struct dedge {
	size_t from, to;
	sf_an_w total;
};

int sf_an_cg_dot(struct sf_output *o, const struct sf_an_cg *g,
		 const struct sf_an_dot_opts *opt, struct sf_ctx *ctx)
{
	struct sf_an_cg_info info;
	bool *shown;
	struct dedge *edges = NULL;
	sf_an_w maxself = 0, maxedge = 0;
	size_t nshown = 0, nedges = 0, cap = 0, edges_hidden = 0;
	char v1[64], v2[64];

	sf_an_cg_info(g, &info);
	if (!(shown = calloc(info.nnodes + 1, sizeof(*shown))))
		return sf_error_nomem(ctx);
	for (size_t i = 1; i <= info.nnodes; i++) {
		struct sf_an_cg_node x;
		sf_an_cg_node(g, i, &x);
		if ((shown[i] = sf_an_dot_node_shown(&x, &info, opt))) {
			nshown++;
			if (x.self > maxself)
				maxself = x.self;
		}
	}
	/* the edges between shown nodes, in the report's order */
	for (size_t i = 1; i <= info.nnodes; i++) {
		struct sf_an_cg_node x;
		if (!shown[i])
			continue;
		sf_an_cg_node(g, i, &x);
		for (size_t j = 0; j < x.ncallees; j++) {
			struct sf_an_cg_edge e;
			sf_an_cg_edge(g, i, true, j, &e);
			if (!e.other || !shown[e.other])
				continue;
			if (!sf_an_dot_edge_shown(&e, &info, opt)) {
				edges_hidden++;
				continue;
			}
			if (nedges == cap) {
				size_t nc = cap ? cap * 2 : 64;
				struct dedge *ne = sf_reallocarray(
					edges, nc, sizeof(*ne));
				if (!ne) {
					free(edges);
					free(shown);
					return sf_error_nomem(ctx);
				}
				edges = ne;
				cap = nc;
			}
			edges[nedges++] = (struct dedge){ i, e.other, e.total };
			if (e.total > maxedge)
				maxedge = e.total;
		}
	}

	sf_an_fmt_w(v1, sizeof(v1), info.total_time, info.exp, info.unit,
		    opt->raw);
	sf_output_puts(o, "digraph \"call graph\" {\n"
			  "graph [fontname=\"Helvetica\", labelloc=t, "
			  "label=\"Call graph (");
	put_dot_str(o, info.type);
	sf_output_puts(o, ", ");
	put_dot_str(o, info.unit);
	sf_output_printf(o, "): total %s in %llu samples\\l%zu of %zu nodes "
			    "(--node-fraction %g), %zu edges hidden "
			    "(--edge-fraction %g)\\l\"];\n",
			 v1, (unsigned long long)info.samples, nshown,
			 info.nnodes, opt->node_fraction, edges_hidden,
			 opt->edge_fraction);
	sf_output_puts(o, "node [shape=box, style=filled, "
			  "fontname=\"Helvetica\", color=\"#555555\"];\n"
			  "edge [fontname=\"Helvetica\", fontsize=9];\n");
	for (size_t i = 1; i <= info.nnodes; i++) {
		struct sf_an_cg_node x;
		if (!shown[i])
			continue;
		sf_an_cg_node(g, i, &x);
		double ft = frac(x.total, info.total_time);
		double fs = maxself > 0 ? sqrt(frac(x.self, maxself)) : 0;
		/* pprof: 8 points plus up to 40 by the square root of self */
		int font = 8 + (int)lround(40 * fs);
		int shade = 255 - (int)lround(200 * ft);
		sf_an_fmt_w(v1, sizeof(v1), x.self, info.exp, info.unit,
			    opt->raw);
		sf_an_fmt_w(v2, sizeof(v2), x.total, info.exp, info.unit,
			    opt->raw);
		sf_output_printf(o, "N%zu [label=\"", i);
		put_dot_str(o, x.name);
		sf_output_printf(o, "\\nself %s (%.1f%%)\\nof %s (%.1f%%)\", "
				    "tooltip=\"[%zu] ", v1,
				 100 * frac(x.self, info.total_time), v2,
				 100 * ft, i);
		put_dot_str(o, x.name);
		sf_output_printf(o, "\", fontsize=%d, "
				    "fillcolor=\"#ff%02x%02x\"];\n",
				 font, shade, shade);
	}
	for (size_t k = 0; k < nedges; k++) {
		const struct dedge *e = &edges[k];
		double fw = maxedge > 0 ? frac(e->total, maxedge) : 0;
		sf_an_fmt_w(v1, sizeof(v1), e->total, info.exp, info.unit,
			    opt->raw);
		sf_output_printf(o, "N%zu -> N%zu [label=\" %s\", "
				    "penwidth=%.2f, weight=%d", e->from, e->to,
				 v1, 1 + 4 * fw, 1 + (int)lround(99 * fw));
		if (e->to <= e->from)   /* back in the order: recursion */
			sf_output_puts(o, ", constraint=false, style=dashed, "
					  "color=\"#b03060\"");
		sf_output_puts(o, "];\n");
	}
	sf_output_puts(o, "}\n");
	free(edges);
	free(shown);
	return 0;
}

/* Graphviz reports errors through a callback; keep the last one for
 * ctx->err instead of letting it print. */
static char gv_msg[256];

static int gv_err(char *msg)
{
	size_t n;

	snprintf(gv_msg, sizeof(gv_msg), "%s", msg);
	n = strlen(gv_msg);
	while (n && (gv_msg[n - 1] == '\n' || gv_msg[n - 1] == ' '))
		gv_msg[--n] = 0;
	return 0;
}

int sf_an_dot_render(struct sf_output *o, const char *dot,
		     const char *format, struct sf_ctx *ctx)
{
	GVC_t *gvc;
	Agraph_t *gr;
	char *data = NULL;
	unsigned int len = 0;
	int rc;

	if ((rc = sf_dynlib_load(&gv_lib, ctx)))
		return rc;
	gv_msg[0] = 0;
	agseterr(AGERR);
	agseterrf(gv_err);
	if (!(gvc = gvContext()))
		return sf_error_nomem(ctx);
	if (!(gr = agmemread(dot))) {
		rc = sf_error(ctx, SF_EINPUT, NULL, 0,
			      "graphviz cannot read the graph: %s",
			      gv_msg[0] ? gv_msg : "syntax error");
		goto done;
	}
	if (gvLayout(gvc, gr, "dot")) {
		rc = sf_error(ctx, SF_EUNSUP, NULL, 0,
			      "graphviz: no 'dot' layout: %s",
			      gv_msg[0] ? gv_msg : "plugin missing");
		agclose(gr);
		goto done;
	}
	if (gvRenderData(gvc, gr, format, &data, &len)) {
		rc = sf_error(ctx, SF_EUNSUP, NULL, 0,
			      "graphviz cannot render '%s': %s", format,
			      gv_msg[0] ? gv_msg : "no such output plugin");
	} else {
		sf_output_write(o, data, len);
	}
	if (data)
		gvFreeRenderData(data);
	gvFreeLayout(gvc, gr);
	agclose(gr);
done:
	gvFreeContext(gvc);
	agseterrf(NULL);
	return rc;
}
