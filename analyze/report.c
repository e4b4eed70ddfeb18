/*
 * report.c - one sfanalyze report of a loaded profile: which analysis,
 * per thread or whole, text, JSON, dot or a rendered picture.  The program
 * only parses options into a struct sf_an_report and opens files.
 */
#include "analyze.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int sf_an_pick_type(uint32_t *out, const struct sf_profile *p,
		    const char *want, struct sf_ctx *ctx)
{
	char have[400];
	size_t n = 0;

	if (!want) {
		*out = p->d.meta.default_type < p->d.ntypes ?
			       p->d.meta.default_type : 0;
		return 0;
	}
	for (size_t i = 0; i < p->d.ntypes; i++) {
		if (!strcmp(p->d.types[i].type, want)) {
			*out = (uint32_t)i;
			return 0;
		}
	}
	char *end;
	unsigned long v = strtoul(want, &end, 10);
	if (*want && !*end && v < p->d.ntypes) {
		*out = (uint32_t)v;
		return 0;
	}
	have[0] = 0;
	for (size_t i = 0; i < p->d.ntypes && n < sizeof(have); i++)
		n += (size_t)snprintf(have + n, sizeof(have) - n, "%s%s (%s)",
				      i ? ", " : "", p->d.types[i].type,
				      p->d.types[i].unit);
	return sf_error(ctx, SF_EUSAGE, NULL, 0,
			"--sample-type '%s': the input has no such sample "
			"type; it has %s", want,
			p->d.ntypes ? have : "none");
}

/* The call-graph reports of one view. */
static int callgraph(struct sf_output *o, const struct sf_an_view *v,
		     struct sf_an_report *r, struct sf_ctx *ctx)
{
	struct sf_an_cg *g;
	int rc;

	if ((rc = sf_an_cg_build(&g, v, ctx)))
		return rc;
	if (r->cg.npeek)
		r->peek_matches += sf_an_cg_count_matches(g, r->cg.peek,
							  r->cg.npeek);
	if (r->render) {
		struct sf_output *m;
		if (!(rc = sf_output_mem(&m, ctx))) {
			size_t len;
			rc = sf_an_cg_dot(m, g, &r->dot, ctx);
			sf_output_putc(m, 0);
			if (!rc)
				rc = sf_an_dot_render(o,
						      sf_output_mem_data(m, &len),
						      r->render, ctx);
			sf_output_abort(m);
		}
	} else if (r->dot_text) {
		rc = sf_an_cg_dot(o, g, &r->dot, ctx);
	} else {
		rc = r->json ? sf_an_cg_json(o, g, &r->cg) :
			       sf_an_cg_text(o, g, &r->cg);
	}
	sf_an_cg_free(g);
	return rc;
}

static int one(struct sf_output *o, const struct sf_an_view *v,
	       struct sf_an_report *r, struct sf_ctx *ctx)
{
	switch (r->kind) {
	case SF_AN_REPORT_FLAT:
		return sf_an_flat(o, v, &r->flat, ctx);
	case SF_AN_REPORT_CALLGRAPH:
		return callgraph(o, v, r, ctx);
	default:
		return sf_an_tree(o, v, &r->tree, ctx);
	}
}

int sf_an_report_run(struct sf_output *o, const struct sf_profile *p,
		     struct sf_an_report *r, struct sf_ctx *ctx)
{
	struct sf_an_view *v;
	int rc;

	r->tree.json = r->flat.json = r->json;
	r->tree.raw = r->flat.raw = r->cg.raw = r->dot.raw = r->raw;
	r->peek_matches = 0;
	if (r->render && r->per_thread)
		return sf_error(ctx, SF_EUSAGE, NULL, 0,
				"a rendered call graph is one picture: "
				"--per-thread needs --dot");
	if (!r->per_thread) {
		if ((rc = sf_an_view_build(&v, p, &r->filter, NULL, ctx)))
			return rc;
		rc = one(o, v, r, ctx);
		if (r->json && !r->dot_text && !r->render)
			sf_output_putc(o, '\n');
		sf_an_view_free(v);
		return rc;
	}
	struct sf_an_thread *th;
	size_t n;
	bool json = r->json && !r->dot_text;
	if ((rc = sf_an_threads(&th, &n, p, &r->filter, ctx)))
		return rc;
	if (json)
		sf_output_putc(o, '{');
	for (size_t i = 0; i < n && !rc; i++) {
		char key[160];
		/* labels can repeat (two inputs, same tid): number repeats */
		int dup = 1;
		for (size_t j = 0; j < i; j++)
			if (!strcmp(th[j].label, th[i].label))
				dup++;
		if (dup > 1)
			snprintf(key, sizeof(key), "%s (%d)", th[i].label, dup);
		else
			snprintf(key, sizeof(key), "%s", th[i].label);
		if (json) {
			sf_output_puts(o, i ? ",\n" : "\n");
			sf_an_put_json_str(o, key);
			sf_output_putc(o, ':');
		} else if (!r->dot_text) {
			sf_output_printf(o, "%s== thread %s (id %lld) ==\n",
					 i ? "\n" : "", key,
					 (long long)th[i].id);
		}
		if ((rc = sf_an_view_build(&v, p, &r->filter, &th[i].id, ctx)))
			break;
		rc = one(o, v, r, ctx);
		sf_an_view_free(v);
	}
	if (json && !rc)
		sf_output_puts(o, "}\n");
	free(th);
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
