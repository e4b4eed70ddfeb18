/* report.c - one report of a profile, whole or per thread, or the
 * comparison of two: the dispatch sfanalyze's options choose. */
#include "analyze.h"
#include "format.h"

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

	if (!strcmp(name, "collapse") || !strcmp(name, "no-collapse")) {
		/* a flag: no value */
		r->tree.chains = name[0] == 'c' ? SF_AN_CHAINS_ALWAYS :
						  SF_AN_CHAINS_NEVER;
		return 0;
	} else if (!strcmp(name, "min-percent")) {
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
	} else if (!strcmp(name, "sample-min")) {
		/* the sample writer checks the value when it runs */
		if (sf_ctx_set_opt(ctx, "sample-min", value))
			return sf_error_nomem(ctx);
		return 0;
	} else if (!strcmp(name, "top")) {
		unsigned long long t = strtoull(value, &end, 10);
		ok = t && value[0] != '-';
		r->flat.top = r->diff.top = (size_t)t;
	} else if (!strcmp(name, "node-fraction") ||
		   !strcmp(name, "edge-fraction")) {
		double f = strtod(value, &end);
		ok = f >= 0 && f <= 1;
		*(name[0] == 'n' ? &r->cgr.dot.node_fraction :
				   &r->cgr.dot.edge_fraction) = f;
	}
	if (end && (*end || end == value))
		ok = false;
	if (!ok)
		return sf_error(ctx, SF_EUSAGE, NULL, 0,
				"option '--%s': bad value '%s'", name, value);
	return 0;
}

int sf_an_report_check(const struct sf_an_report_opts *r, struct sf_ctx *ctx)
{
	const struct sf_an_filter *f = &r->filter;

	if (r->kind == SF_AN_SAMPLE &&
	    (r->json || r->per_thread || f->nthreads || f->nfocus ||
	     f->nignore || f->nhide || f->timestamps))
		return sf_error(ctx, SF_EUSAGE, NULL, 0, "--sample takes no "
				"filter, --json, --per-thread, --diff or "
				"--timestamps (it reports every thread)");
	if (r->per_process && r->per_thread)
		return sf_error(ctx, SF_EUSAGE, NULL, 0, "give --per-process "
				"or --per-thread, not both");
	if (r->per_process && f->nthreads)
		return sf_error(ctx, SF_EUSAGE, NULL, 0, "--per-process "
				"takes no --thread (it selects the threads "
				"of each process)");
	if (r->kind == SF_AN_SAMPLE && r->per_process)
		return sf_error(ctx, SF_EUSAGE, NULL, 0, "--sample takes no "
				"--per-process (it reports every thread)");
	if ((r->per_thread || r->per_process) &&
	    (r->kind == SF_AN_DIFF || r->cgr.render))
		return sf_error(ctx, SF_EUSAGE, NULL, 0, r->cgr.render ?
				"a rendered call graph is one picture: "
				"--per-thread takes --dot" :
				"--diff does not take --per-thread");
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
	char have[400] = "";
	for (size_t i = 0, n = 0; i < p->d.ntypes && n < sizeof(have); i++)
		n += (size_t)snprintf(have + n, sizeof(have) - n, "%s%s (%s)",
				      i ? ", " : "", p->d.types[i].type,
				      p->d.types[i].unit);
	return sf_error(ctx, SF_EUSAGE, NULL, 0, "--sample-type '%s': the "
			"input has no such sample type; it has %s", want,
			have);
}

/* One report of view v. */
static int one(struct sf_output *o, const struct sf_an_view *v,
	       const struct sf_an_report_opts *r, struct sf_ctx *ctx)
{
	switch (r->kind) {
	case SF_AN_FLAT:
		return sf_an_flat(o, v, &r->flat, ctx);
	case SF_AN_CALLGRAPH:
		return sf_an_cg_report(o, v, &r->cgr, ctx);
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
		} else if (!r->cgr.dot_text) {
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

/* One report per process: the threads of each pid (in the order of their
 * first thread's call-graph id) through the thread filter. */
static int per_process(struct sf_output *o, const struct sf_profile *p,
		       const struct sf_an_report_opts *r, struct sf_ctx *ctx)
{
	struct sf_an_thread *th;
	struct sf_an_view *v;
	size_t n, done = 0;
	int rc;

	if ((rc = sf_an_threads(&th, &n, p, &r->filter, ctx)))
		return rc;
	char (*sel)[160] = sf_calloc(n ? n : 1, sizeof(*sel));
	const char **ptr = sf_calloc(n ? n : 1, sizeof(*ptr));
	bool *used = sf_calloc(n ? n : 1, sizeof(*used));
	if (!sel || !ptr || !used) {
		rc = sf_error_nomem(ctx);
		goto out;
	}
	if (r->json)
		sf_output_putc(o, '{');
	for (size_t i = 0; i < n && !rc; i++) {
		if (used[i] || th[i].idx == SF_NO_THREAD)
			continue;
		int64_t pid = p->d.threads[th[i].idx].pid;
		size_t ns = 0;
		/* this process's threads, by the label the filter knows */
		for (size_t j = i; j < n; j++) {
			if (used[j] || th[j].idx == SF_NO_THREAD ||
			    p->d.threads[th[j].idx].pid != pid)
				continue;
			used[j] = true;
			snprintf(sel[ns], sizeof(sel[ns]), "%s", th[j].label);
			ptr[ns] = sel[ns];
			ns++;
		}
		char key[160];
		if (pid == SF_NO_ID)
			snprintf(key, sizeof(key), "(no process)");
		else
			sf_process_label(p, &p->d.threads[th[i].idx], key,
					 sizeof(key));
		if (r->json) {
			sf_output_puts(o, done ? ",\n" : "\n");
			sf_an_put_json_str(o, key);
			sf_output_putc(o, ':');
		} else if (!r->cgr.dot_text) {
			sf_output_printf(o, "%s== process %s ==\n",
					 done ? "\n" : "", key);
		}
		done++;
		struct sf_an_filter f = r->filter;
		f.threads = ptr;
		f.nthreads = ns;
		if ((rc = sf_an_view_build(&v, p, &f, NULL, ctx)))
			break;
		rc = one(o, v, r, ctx);
		sf_an_view_free(v);
	}
	if (r->json && !rc)
		sf_output_puts(o, "}\n");
out:
	free(sel);
	free(ptr);
	free(used);
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
		 const struct sf_an_report_opts *ro, struct sf_ctx *ctx)
{
	struct sf_an_report_opts rr = *ro, *r = &rr;
	struct sf_an_view *v;
	int rc;

	/* json and raw hold for every part of the report */
	rr.tree.json = rr.flat.json = rr.diff.json = rr.cgr.json = ro->json;
	rr.tree.raw = rr.flat.raw = rr.diff.raw = rr.cgr.raw = ro->raw;
	if (r->kind == SF_AN_DIFF)
		return diff(o, p, cur, r, ctx);
	if (r->kind == SF_AN_SAMPLE) {
		/* pruned as sfcapture's report unless --sample-min says */
		if (!sf_ctx_opt(ctx, "sample-min") &&
		    sf_ctx_set_opt(ctx, "sample-min", "1%"))
			return sf_error_nomem(ctx);
		return sf_format_by_name("sample")->write(p, o, ctx);
	}
	if (r->per_thread)
		return per_thread(o, p, r, ctx);
	if (r->per_process)
		return per_process(o, p, r, ctx);
	if ((rc = sf_an_view_build(&v, p, &r->filter, NULL, ctx)))
		return rc;
	rc = one(o, v, r, ctx);
	/* a JSON document ends its line; dot and pictures are their own */
	if (r->json && !(r->kind == SF_AN_CALLGRAPH &&
			 (r->cgr.dot_text || r->cgr.render)))
		sf_output_putc(o, '\n');
	sf_an_view_free(v);
	return rc;
}

bool sf_an_report_drops_zero(const struct sf_an_report_opts *r)
{
	return !r->filter.timestamps && r->kind != SF_AN_CALLGRAPH;
}
