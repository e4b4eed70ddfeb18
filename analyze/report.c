/* report.c - one report of a profile, whole or per thread, or the
 * comparison of two: the dispatch sfanalyze's options choose. */
#include "analyze.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int one_of(const char *value, const char *const *words, int *out)
{
	for (int i = 0; words[i]; i++) {
		if (!strcmp(value, words[i])) {
			*out = i;
			return 0;
		}
	}
	return -1;
}

int sf_an_report_set(struct sf_an_report_opts *r, const char *name,
		     const char *value, struct sf_ctx *ctx)
{
	static const char *const sorts[] = { "self", "total", NULL };
	/* in the order of enum sf_an_tids */
	static const char *const tids[] = { "auto", "tid", "order", NULL };
	char *end = NULL;
	bool ok = false;
	int w;

	if (!strcmp(name, "min-percent")) {
		r->tree.min_percent = strtod(value, &end);
		ok = !(r->tree.min_percent > 100) &&
		     r->tree.min_percent >= 0;
	} else if (!strcmp(name, "threshold")) {
		r->diff.threshold = strtod(value, &end);
		ok = r->diff.threshold >= 0;
	} else if (!strcmp(name, "depth")) {
		unsigned long d = strtoul(value, &end, 10);
		ok = d && d <= UINT32_MAX && value[0] != '-';
		r->tree.max_depth = (uint32_t)d;
	} else if (!strcmp(name, "sort")) {
		if ((ok = !one_of(value, sorts, &w)))
			r->flat.by_total = w == 1;
	} else if (!strcmp(name, "thread-ids")) {
		ok = !one_of(value, tids, &r->filter.tids);
	}
	if (end && (*end || end == value))
		ok = false;
	if (!ok)
		return sf_error(ctx, SF_EUSAGE, NULL, 0,
				"option '--%s': bad value '%s'", name, value);
	return 0;
}

int sf_an_sample_type(uint32_t *out, const struct sf_profile *p,
		      const char *want, struct sf_ctx *ctx)
{
	char *end;
	unsigned long v;

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
	v = strtoul(want, &end, 10);
	if (*want && !*end && v < p->d.ntypes) {
		*out = (uint32_t)v;
		return 0;
	}
	return sf_error(ctx, SF_EUSAGE, NULL, 0, "--sample-type '%s': the "
			"input has no such sample type", want);
}

/* One report of view v. */
static int one(struct sf_output *o, const struct sf_an_view *v,
	       const struct sf_an_report_opts *r, struct sf_ctx *ctx)
{
	struct sf_an_cg *g;
	int rc;

	switch (r->kind) {
	case SF_AN_FLAT:
		return sf_an_flat(o, v, &r->flat, ctx);
	case SF_AN_CALLGRAPH:
		if ((rc = sf_an_cg_build(&g, v, ctx)))
			return rc;
		rc = r->json ? sf_an_cg_json(o, g) : sf_an_cg_text(o, g);
		sf_an_cg_free(g);
		return rc;
	default:
		return sf_an_tree(o, v, &r->tree, ctx);
	}
}

static int per_thread(struct sf_output *o, const struct sf_profile *p,
		      const struct sf_an_report_opts *r, struct sf_ctx *ctx)
{
	struct sf_an_thread *th;
	struct sf_an_view *v;
	size_t n;
	int rc;

	if ((rc = sf_an_threads(&th, &n, p, &r->filter, ctx)))
		return rc;
	if (r->json)
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
		if (r->json) {
			sf_output_puts(o, i ? ",\n" : "\n");
			sf_an_put_json_str(o, key);
			sf_output_putc(o, ':');
		} else {
			sf_output_printf(o, "%s== thread %s (id %lld) ==\n",
					 i ? "\n" : "", key,
					 (long long)th[i].id);
		}
		if ((rc = sf_an_view_build(&v, p, &r->filter, &th[i].id, ctx)))
			break;
		rc = one(o, v, r, ctx);
		sf_an_view_free(v);
	}
	if (r->json && !rc)
		sf_output_puts(o, "}\n");
	free(th);
	return rc;
}

static int diff(struct sf_output *o, const struct sf_profile *p,
		const struct sf_profile *cur,
		const struct sf_an_report_opts *r, struct sf_ctx *ctx)
{
	struct sf_an_view *vb = NULL, *vn = NULL;
	struct sf_an_filter fn = r->filter;
	int rc;

	fn.type = r->new_type;
	rc = sf_an_view_build(&vb, p, &r->filter, NULL, ctx);
	if (!rc)
		rc = sf_an_view_build(&vn, cur, &fn, NULL, ctx);
	if (!rc)
		rc = r->diff_tree ? sf_an_diff_tree(o, vb, vn, &r->diff,
						    &r->tree, ctx) :
				    sf_an_diff(o, vb, vn, &r->diff, ctx);
	if (!rc && r->json)
		sf_output_putc(o, '\n');
	sf_an_view_free(vb);
	sf_an_view_free(vn);
	return rc;
}

int sf_an_report(struct sf_output *o, const struct sf_profile *p,
		 const struct sf_profile *cur,
		 const struct sf_an_report_opts *r, struct sf_ctx *ctx)
{
	struct sf_an_view *v;
	int rc;

	if (r->kind == SF_AN_DIFF)
		return diff(o, p, cur, r, ctx);
	if (r->per_thread)
		return per_thread(o, p, r, ctx);
	if ((rc = sf_an_view_build(&v, p, &r->filter, NULL, ctx)))
		return rc;
	rc = one(o, v, r, ctx);
	if (r->json)
		sf_output_putc(o, '\n');
	sf_an_view_free(v);
	return rc;
}
