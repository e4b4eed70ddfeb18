/* report.c - the table of reports (each with its options and how they
 * fill the typed fields), and one report of a profile, whole or per
 * thread or per process, or the comparison of two: the dispatch
 * sfanalyze's options choose. */
#include "analyze.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the call graph's row: its JSON, dot and pictures end their own lines */
static int callgraph(struct sf_output *o, struct sf_an_view *v,
		     const struct sf_an_report_opts *r, struct sf_ctx *ctx);

static int bad_value(const char *name, const char *value,
		     struct sf_ctx *ctx)
{
	return sf_error(ctx, SF_EUSAGE, NULL, 0,
			"option '--%s': bad value '%s'", name, value);
}

/* A number from lo to hi into *out: nothing after it, not NaN. */
static int in_range(const char *name, const char *value, double lo,
		    double hi, double *out, struct sf_ctx *ctx)
{
	char *end;
	double v = strtod(value, &end);

	if (end == value || *end || !(v >= lo && v <= hi))
		return bad_value(name, value, ctx);
	*out = v;
	return 0;
}

static int one_of(const char *name, const char *value,
		  const char *const *words, int *out, struct sf_ctx *ctx)
{
	for (int i = 0; words[i]; i++) {
		if (!strcmp(value, words[i])) {
			*out = i;
			return 0;
		}
	}
	return bad_value(name, value, ctx);
}

/* A positive integer no larger than max: no sign, nothing after it. */
static int positive(const char *name, const char *value,
		    unsigned long long max, unsigned long long *out,
		    struct sf_ctx *ctx)
{
	char *end;

	*out = strtoull(value, &end, 10);
	if (!*out || *out > max || value[0] == '-' || end == value || *end)
		return bad_value(name, value, ctx);
	return 0;
}

/* ----- each report's options ----- */

static int set_inverted(struct sf_an_report_opts *r, const char *name,
			const char *value, struct sf_ctx *ctx)
{
	r->tree.inverted = true;
	return 0;
}

static int set_min_percent(struct sf_an_report_opts *r, const char *name,
			   const char *value, struct sf_ctx *ctx)
{
	return in_range(name, value, 0, 100, &r->tree.min_percent, ctx);
}

static int set_depth(struct sf_an_report_opts *r, const char *name,
		     const char *value, struct sf_ctx *ctx)
{
	unsigned long long d;
	int rc;

	if ((rc = positive(name, value, UINT32_MAX, &d, ctx)))
		return rc;
	r->tree.max_depth = (uint32_t)d;
	return 0;
}

static int set_chains(struct sf_an_report_opts *r, const char *name,
		      const char *value, struct sf_ctx *ctx)
{
	/* --collapse or --no-collapse */
	r->tree.chains = name[0] == 'c' ? SF_AN_CHAINS_ALWAYS :
					  SF_AN_CHAINS_NEVER;
	return 0;
}

static int set_sort(struct sf_an_report_opts *r, const char *name,
		    const char *value, struct sf_ctx *ctx)
{
	static const char *const sorts[] = { "self", "total", NULL };
	int w = 0, rc;

	if ((rc = one_of(name, value, sorts, &w, ctx)))
		return rc;
	r->flat.by_total = w == 1;
	return 0;
}

static int set_top(struct sf_an_report_opts *r, const char *name,
		   const char *value, struct sf_ctx *ctx)
{
	unsigned long long t;
	int rc;

	if ((rc = positive(name, value, SIZE_MAX, &t, ctx)))
		return rc;
	r->flat.top = r->diff.top = (size_t)t;
	return 0;
}

static int set_dot(struct sf_an_report_opts *r, const char *name,
		   const char *value, struct sf_ctx *ctx)
{
	sf_an_report_pick(r, sf_an_report_by_name("callgraph"));
	r->cgr.dot_text = true;
	return 0;
}

static int set_fraction(struct sf_an_report_opts *r, const char *name,
			const char *value, struct sf_ctx *ctx)
{
	/* --node-fraction or --edge-fraction */
	return in_range(name, value, 0, 1, name[0] == 'n' ?
			&r->cgr.dot.node_fraction :
			&r->cgr.dot.edge_fraction, ctx);
}

static int set_no_normalize(struct sf_an_report_opts *r, const char *name,
			    const char *value, struct sf_ctx *ctx)
{
	r->diff.normalize = false;
	return 0;
}

static int set_threshold(struct sf_an_report_opts *r, const char *name,
			 const char *value, struct sf_ctx *ctx)
{
	return in_range(name, value, 0, HUGE_VAL, &r->diff.threshold, ctx);
}

static int set_sample_min(struct sf_an_report_opts *r, const char *name,
			  const char *value, struct sf_ctx *ctx)
{
	return sf_an_sample_min(&r->sample, value, ctx);
}

/* the filter's option, for every report but `whole` ones */
static int set_thread_ids(struct sf_an_report_opts *r, const char *name,
			  const char *value, struct sf_ctx *ctx)
{
	/* in the order of enum sf_an_tids */
	static const char *const tids[] = { "auto", "tid", "order", NULL };

	return one_of(name, value, tids, &r->filter.tids, ctx);
}

int sf_an_report_check(const struct sf_an_report_opts *r, struct sf_ctx *ctx)
{
	const struct sf_an_filter *f = &r->filter;

	if (r->kind->whole &&
	    (r->json || r->per_thread || f->nthreads || f->nfocus ||
	     f->nignore || f->nhide || f->timestamps))
		return sf_error(ctx, SF_EUSAGE, NULL, 0, "--%s takes no "
				"filter, --json, --per-thread, --diff or "
				"--timestamps (it reports every thread)",
				r->kind->name);
	if (r->per_process && r->per_thread)
		return sf_error(ctx, SF_EUSAGE, NULL, 0, "give --per-process "
				"or --per-thread, not both");
	if (r->per_process && f->nthreads)
		return sf_error(ctx, SF_EUSAGE, NULL, 0, "--per-process "
				"takes no --thread (it selects the threads "
				"of each process)");
	if (r->kind->whole && r->per_process)
		return sf_error(ctx, SF_EUSAGE, NULL, 0, "--%s takes no "
				"--per-process (it reports every thread)",
				r->kind->name);
	if ((r->per_thread || r->per_process) &&
	    (r->kind->two_inputs || r->cgr.render))
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
		if (!r->kind->takes_kept)
			sf_big_drop(ctx);
		rc = r->kind->of_view(o, v, r, ctx);
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
		if (!r->kind->takes_kept)
			sf_big_drop(ctx);
		rc = r->kind->of_view(o, v, r, ctx);
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
	if (r->kind->of_profile)
		return r->kind->of_profile(o, p, cur, r, ctx);
	if (r->per_thread)
		return per_thread(o, p, r, ctx);
	if (r->per_process)
		return per_process(o, p, r, ctx);
	if ((rc = sf_an_view_build(&v, p, &r->filter, NULL, ctx)))
		return rc;
	if (r->droppable == p)
		sf_profile_drop_stacks(r->droppable,
				       r->kind->takes_kept ? ctx : NULL);
	/* the view's scratch, kept for a report that takes it */
	if (!r->kind->takes_kept)
		sf_big_drop(ctx);
	rc = r->kind->of_view(o, v, r, ctx);
	/* a JSON document ends its line; dot and pictures are their own */
	if (r->json && !(r->kind->of_view == callgraph &&
			 (r->cgr.dot_text || r->cgr.render)))
		sf_output_putc(o, '\n');
	sf_an_view_free(v);
	return rc;
}

bool sf_an_report_one_view(const struct sf_an_report_opts *r)
{
	return r->kind->of_view && !r->per_thread && !r->per_process;
}

bool sf_an_report_drops_zero(const struct sf_an_report_opts *r)
{
	return !r->filter.timestamps && !r->kind->keeps_zero;
}

/* ----- the table ----- */

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

static int tree(struct sf_output *o, struct sf_an_view *v,
		const struct sf_an_report_opts *r, struct sf_ctx *ctx)
{
	return sf_an_tree(o, v, &r->tree, ctx);
}

static int flat(struct sf_output *o, struct sf_an_view *v,
		const struct sf_an_report_opts *r, struct sf_ctx *ctx)
{
	return sf_an_flat(o, v, &r->flat, ctx);
}

static int callgraph(struct sf_output *o, struct sf_an_view *v,
		     const struct sf_an_report_opts *r, struct sf_ctx *ctx)
{
	return sf_an_cg_report(o, v, &r->cgr, ctx);
}

static int sample(struct sf_output *o, const struct sf_profile *p,
		  const struct sf_profile *cur,
		  const struct sf_an_report_opts *r, struct sf_ctx *ctx)
{
	return sf_an_sample(o, p, &r->sample, ctx);
}

static void tree_defaults(struct sf_an_report_opts *r)
{
	r->tree.min_percent = -1;   /* the text or JSON default */
}

static void callgraph_defaults(struct sf_an_report_opts *r)
{
	r->cgr.dot = (struct sf_an_dot_opts){
		.node_fraction = SF_AN_DOT_NODE_FRACTION,
		.edge_fraction = SF_AN_DOT_EDGE_FRACTION };
}

static void diff_defaults(struct sf_an_report_opts *r)
{
	r->diff.normalize = true;
}

static void sample_defaults(struct sf_an_report_opts *r)
{
	r->sample = (struct sf_an_sample_opts){
		.min_percent = SF_AN_SAMPLE_MIN_PERCENT };
}

static const struct sf_an_report_option tree_opts[] = {
	{ "inverted", NULL, "tree: bottom-up (callers of each leaf function)",
	  set_inverted },
	{ "min-percent", "P", "tree: hide nodes below P% of the whole (the "
	  "text\nsays how many and how much; text default 0.5)",
	  set_min_percent },
	{ "depth", "N", "tree: show N levels below the root", set_depth },
	{ "collapse", NULL, "text tree: always join 4+ single-child frames\n"
	  "into 'A → … (N frames) → B' (default: over 60 lines)",
	  set_chains },
	{ "no-collapse", NULL, "text tree: never join them, a line per frame",
	  set_chains },
	{ NULL, NULL, NULL, NULL }
};

static const struct sf_an_report_option flat_opts[] = {
	{ "sort", "self|total", "flat: sort column (default self)", set_sort },
	{ "top", "N", "flat: the first N rows", set_top },
	{ NULL, NULL, NULL, NULL }
};

static const struct sf_an_report_option callgraph_opts[] = {
	{ "dot", NULL, "call graph: Graphviz dot (-o FILE.svg, .png or\n"
	  ".pdf draws it)", set_dot },
	{ "node-fraction", "F", "call-graph picture: leave out functions "
	  "below F\nof the total (default 0.005)", set_fraction },
	{ "edge-fraction", "F", "call-graph picture: leave out calls below F "
	  "of\nthe total (default 0.001)", set_fraction },
	{ NULL, NULL, NULL, NULL }
};

static const struct sf_an_report_option diff_opts[] = {
	{ "no-normalize", NULL, "diff: compare raw weights, not shares of "
	  "each\nside's total", set_no_normalize },
	{ "threshold", "P", "diff: flag functions whose total share grew "
	  "by\nmore than P percentage points", set_threshold },
	{ NULL, NULL, NULL, NULL }
};

static const struct sf_an_report_option sample_opts[] = {
	{ "sample-min", "N|P%", "sample: hide nodes with fewer than N "
	  "samples,\nor under P% of their thread's (default 1%)",
	  set_sample_min },
	{ NULL, NULL, NULL, NULL }
};

static const struct sf_an_report reports[] = {
	{ "tree", "top-down call tree from the bottom of the stack\n"
	  "(the default)", .of_view = tree, .defaults = tree_defaults,
	  .options = tree_opts, .takes_kept = true },
	{ "flat", "one row per function: self, self %, cumulative\n"
	  "%, total, total % (sb-sprof's flat report)", .of_view = flat,
	  .options = flat_opts },
	{ "callgraph", "call graph with caller/callee times (Racket\n"
	  "profile/analyzer semantics)", .of_view = callgraph,
	  .defaults = callgraph_defaults, .options = callgraph_opts,
	  .keeps_zero = true, .takes_kept = true },
	{ "diff", "compare BASE inputs with NEW inputs, separated\n"
	  "by '--': per-function self and total, change;\n"
	  "with --tree, the tree of NEW with each node's\n"
	  "change (--inverted, --min-percent, --depth apply)",
	  .of_profile = diff, .defaults = diff_defaults,
	  .options = diff_opts, .two_inputs = true },
	{ "sample", "the report macOS sample prints: per thread its\n"
	  "call tree, then top of stack, binary images (the\n"
	  "sample format of docs/formats.md; no filters)",
	  .of_profile = sample, .defaults = sample_defaults,
	  .options = sample_opts, .whole = true },
	{ .name = NULL }
};

const struct sf_an_report *sf_an_reports(void)
{
	return reports;
}

const struct sf_an_report *sf_an_report_by_name(const char *name)
{
	for (const struct sf_an_report *k = reports; k->name; k++)
		if (!strcmp(k->name, name))
			return k;
	return NULL;
}

void sf_an_report_defaults(struct sf_an_report_opts *r)
{
	r->kind = reports;
	for (const struct sf_an_report *k = reports; k->name; k++)
		if (k->defaults)
			k->defaults(r);
}

void sf_an_report_pick(struct sf_an_report_opts *r,
		       const struct sf_an_report *k)
{
	if (k->of_view == tree) {
		/* with --diff, before or after: the differential tree */
		r->diff_tree = true;
		if (r->kind && r->kind->two_inputs)
			return;
	}
	r->kind = k;
}

int sf_an_report_set(struct sf_an_report_opts *r, const char *name,
		     const char *value, struct sf_ctx *ctx)
{
	for (const struct sf_an_report *k = reports; k->name; k++)
		for (const struct sf_an_report_option *o = k->options;
		     o && o->name; o++)
			if (!strcmp(o->name, name))
				return o->set(r, name, value, ctx);
	if (!strcmp(name, "thread-ids"))
		return set_thread_ids(r, name, value, ctx);
	return bad_value(name, value ? value : "", ctx);
}

void sf_an_report_path(struct sf_an_report_opts *r, const char *path)
{
	if (r->kind->of_view == callgraph && !r->cgr.dot_text)
		r->cgr.render = sf_an_render_format(path);
}
