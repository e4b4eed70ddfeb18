/*
 * cgreport.c - what --callgraph prints for one view: the text or JSON
 * report (whole, or the --peek node view), Graphviz dot, or the picture.
 */
#include "analyze.h"
#include "an_internal.h"

#include <stdio.h>
#include <string.h>

int sf_an_cg_report(struct sf_output *o, struct sf_an_view *v,
		    const struct sf_an_cg_report *r, struct sf_ctx *ctx)
{
	struct sf_an_cg_opts cg = r->cg;
	struct sf_an_dot_opts dot = r->dot;
	struct sf_an_cg *g;
	int rc;

	cg.raw = dot.raw = r->raw;
	if ((rc = sf_an__cg_walk(&g, v, false, ctx)))
		return rc;
	/* read: their memory (57 MB on the timeline of docs/PERFORMANCE.md)
	 * goes to the adjacency, which would otherwise take fresh pages */
	sf_an_view_drop_stacks(v, ctx);
	if ((rc = sf_an__cg_finish(g, ctx)))
		return rc;
	for (size_t i = 0; i < cg.npeek; i++) {
		if (sf_an_cg_count_matches(g, &cg.peek[i], 1))
			continue;
		const char *re = r->peek_text ? r->peek_text[i] : "";
		char kind[300];
		snprintf(kind, sizeof(kind), "peek-no-match:%s", re);
		sf_warn(ctx, kind, "--peek '%s' matches no function", re);
	}
	if (r->render) {
		struct sf_output *m;
		if (!(rc = sf_output_mem(&m, ctx))) {
			size_t len;
			rc = sf_an_cg_dot(m, g, &dot, ctx);
			sf_output_putc(m, 0);
			if (!rc)
				rc = sf_an_dot_render(o,
						      sf_output_mem_data(m, &len),
						      r->render, ctx);
			sf_output_abort(m);
		}
	} else if (r->dot_text) {
		rc = sf_an_cg_dot(o, g, &dot, ctx);
	} else {
		rc = r->json ? sf_an_cg_json(o, g, &cg) :
			       sf_an_cg_text(o, g, &cg, ctx);
	}
	sf_an_cg_free(g);
	return rc;
}

const char *sf_an_render_format(const char *path)
{
	static const char *const fmts[] = { "svg", "png", "pdf", NULL };
	const char *dot = path ? strrchr(path, '.') : NULL;

	if (!dot)
		return NULL;
	for (size_t i = 0; fmts[i]; i++)
		if (!strcmp(dot + 1, fmts[i]))
			return fmts[i];
	return NULL;
}
