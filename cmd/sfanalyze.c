/* sfanalyze - reports from sampled call stacks: call tree, flat table,
 * call graph, diff. */
#include "cli.h"
#include "opt.h"
#include "analyze.h"

#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum report { R_TREE, R_FLAT, R_CALLGRAPH, R_DIFF, R_SAMPLE };

enum {
	K_TREE = CLI_KEY, K_FLAT, K_CALLGRAPH, K_DIFF, K_JSON, K_INVERTED,
	K_MIN_PERCENT, K_DEPTH, K_SORT, K_NO_NORMALIZE, K_THRESHOLD,
	K_TIMESTAMPS, K_THREAD_IDS, K_THREAD, K_PER_THREAD,
	K_FOCUS, K_IGNORE, K_HIDE, K_COLLAPSE_RECURSION, K_SAMPLE, K_SAMPLE_MIN,
	/* also the pprof reader's option */
	K_SAMPLE_TYPE = CLI_FORMAT_KEY
};

static const struct cli_opt opts[] = {
	CLI_OPT_HEADING("Reports:"),
	{ "tree", K_TREE, NULL, "top-down call tree from the bottom of the stack\n"
	  "(the default)" },
	{ "flat", K_FLAT, NULL, "one row per function: self, self %, cumulative\n"
	  "%, total, total % (sb-sprof's flat report)" },
	{ "callgraph", K_CALLGRAPH, NULL, "call graph with caller/callee times (Racket\n"
	  "profile/analyzer semantics)" },
	{ "diff", K_DIFF, NULL, "compare BASE inputs with NEW inputs, separated\n"
	  "by '--': per-function self and total, change;\n"
	  "with --tree, the tree of NEW with each node's\n"
	  "change (--inverted, --min-percent, --depth apply)" },
	{ "sample", K_SAMPLE, NULL, "the report macOS sample prints: per thread its\n"
	  "call tree, then top of stack, binary images (the\n"
	  "sample format of docs/formats.md; no filters)" },
	{ "json", K_JSON, NULL, "JSON instead of text" },
	CLI_OPT_HEADING("Report options:"),
	{ "inverted", K_INVERTED, NULL, "tree: bottom-up (callers of each leaf function)" },
	{ "min-percent", K_MIN_PERCENT, "P", "tree: hide nodes below P% of the whole (the text\n"
	  "says how many and how much)" },
	{ "depth", K_DEPTH, "N", "tree: show N levels below the root" },
	{ "sample-min", K_SAMPLE_MIN, "N|P%", "sample: hide nodes with fewer than N samples,\n"
	  "or under P% of their thread's (default 1%)" },
	{ "sort", K_SORT, "self|total", "flat: sort column (default self)" },
	{ "no-normalize", K_NO_NORMALIZE, NULL, "diff: compare raw weights, not shares of each\n"
	  "side's total" },
	{ "threshold", K_THRESHOLD, "P", "diff: flag functions whose total share grew by\n"
	  "more than P percentage points" },
	CLI_OPT_HEADING("Samples and weights:"),
	{ "sample-type", K_SAMPLE_TYPE, "T", "weigh samples by sample type T (a name like cpu\n"
	  "or an index; default: the input's default type);\n"
	  "a pprof input also takes T as its default type" },
	{ "timestamps", K_TIMESTAMPS, NULL, "weigh each sample by the midpoint rule on its\n"
	  "timestamps (ns), per thread, instead of its\n"
	  "weight; a thread with one sample is dropped" },
	{ "thread-ids", K_THREAD_IDS, "auto|tid|order", "call-graph thread ids: tids, or 0,1,2... in order\n"
	  "of first sample (auto: tids when all are known,\n"
	  "distinct and below 1024)" },
	CLI_OPT_HEADING("Filters (every report):"),
	{ "thread", K_THREAD, "ID|NAME", "keep samples of this thread (tid, name or\n"
	  "name-tid; repeatable)" },
	{ "per-thread", K_PER_THREAD, NULL, "one report per thread (JSON: an object keyed by\n"
	  "thread)" },
	{ "focus", K_FOCUS, "REGEX", "keep samples with a frame matching REGEX" },
	{ "ignore", K_IGNORE, "REGEX", "drop samples with a frame matching REGEX" },
	{ "hide", K_HIDE, "REGEX", "remove matching frames from stacks" },
	{ "collapse-recursion", K_COLLAPSE_RECURSION, NULL, "merge runs of one function (A;A;A -> A)" },
	CLI_OPT_HEADING("Other:"),
	{ "output", 'o', "FILE", "write FILE instead of standard output" },
	{ "quiet", 'q', NULL, "no warnings on standard error" },
	{ "help", 'h', NULL, "this help" },
	{ "version", 'V', NULL, "the version" },
	CLI_OPT_END
};

static void usage(const struct cli_getopt *g)
{
	printf(
"Usage: sfanalyze [REPORT] [OPTIONS] [INPUT...]\n"
"       sfanalyze --diff [--tree] [OPTIONS] BASE... -- NEW...\n"
"Print a report from sampled call stacks.  INPUTs are read like sfconv\n"
"reads them (any input format, detected or --from, gzip, '-' or nothing\n"
"for standard input); several inputs merge into one profile.\n");
	cli_getopt_help(g, stdout);
	printf(
"\n"
"REGEX is a POSIX extended regular expression matched against frame names\n"
"(unanchored); --focus, --ignore and --hide are repeatable.\n"
"\n"
"Exit status: 0 success, 1 bad input, 2 usage error, 3 I/O error.\n"
"See sfanalyze(1) and docs/analyze.md.\n");
}

struct opts {
	enum report report;
	const char *outpath;
	bool json, per_thread;
	bool saw_tree, diff_tree;   /* --diff --tree: differential tree */
	struct sf_an_filter filter;
	struct sf_an_tree_opts tree;
	struct sf_an_flat_opts flat;
	struct sf_an_diff_opts diff;
	const char *sample_type;
	const char *sample_min;
};

struct regexes {
	regex_t *focus, *ignore, *hide;
	size_t nfocus, nignore, nhide;
};

static int add_regex(regex_t **list, size_t *n, const char *re)
{
	regex_t *nl = realloc(*list, (*n + 1) * sizeof(**list));
	int e;

	if (!nl)
		return EXIT_IO;
	*list = nl;
	if ((e = regcomp(&nl[*n], re, REG_EXTENDED | REG_NOSUB))) {
		char buf[256];
		regerror(e, &nl[*n], buf, sizeof(buf));
		cli_msg("bad regular expression '%s': %s", re, buf);
		return EXIT_USAGE;
	}
	(*n)++;
	return 0;
}

static int pick_type(const struct sf_profile *p, const char *want,
		     uint32_t *out)
{
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
	cli_msg("--sample-type '%s': the input has no such sample type", want);
	return EXIT_USAGE;
}

/* One report of view v. */
static int report(struct sf_output *o, const struct sf_an_view *v,
		  const struct opts *op, struct sf_ctx *ctx)
{
	struct sf_an_cg *g;
	int rc;

	switch (op->report) {
	case R_FLAT:
		return sf_an_flat(o, v, &op->flat, ctx);
	case R_CALLGRAPH:
		if ((rc = sf_an_cg_build(&g, v, ctx)))
			return rc;
		rc = op->json ? sf_an_cg_json(o, g) : sf_an_cg_text(o, g);
		sf_an_cg_free(g);
		return rc;
	default:
		return sf_an_tree(o, v, &op->tree, ctx);
	}
}

static int run(struct sf_output *o, struct sf_profile *p, struct opts *op,
	       struct sf_ctx *ctx)
{
	struct sf_an_view *v;
	int rc;

	if (!op->per_thread) {
		if ((rc = sf_an_view_build(&v, p, &op->filter, NULL, ctx)))
			return rc;
		rc = report(o, v, op, ctx);
		if (op->json)
			sf_output_putc(o, '\n');
		sf_an_view_free(v);
		return rc;
	}
	struct sf_an_thread *th;
	size_t n;
	if ((rc = sf_an_threads(&th, &n, p, &op->filter, ctx)))
		return rc;
	if (op->json)
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
		if (op->json) {
			sf_output_puts(o, i ? ",\n" : "\n");
			sf_an_put_json_str(o, key);
			sf_output_putc(o, ':');
		} else {
			sf_output_printf(o, "%s== thread %s (id %lld) ==\n",
					 i ? "\n" : "", key,
					 (long long)th[i].id);
		}
		if ((rc = sf_an_view_build(&v, p, &op->filter, &th[i].id,
					   ctx)))
			break;
		rc = report(o, v, op, ctx);
		sf_an_view_free(v);
	}
	if (op->json && !rc)
		sf_output_puts(o, "}\n");
	free(th);
	return rc;
}

static int load(struct sf_ctx *ctx, const struct sf_format *from, char **in,
		int n, bool aggregate, struct sf_profile **p)
{
	if (cli_load(ctx, from, in, n, aggregate, p)) {
		cli_warnings(ctx);
		return cli_fail(ctx);
	}
	return 0;
}

static int bad_value(const char *name, const char *val)
{
	cli_msg("option '--%s': bad value '%s'", name, val);
	return EXIT_USAGE;
}

/* One option of the table (not -h, -V, or an input). */
static int option(struct opts *op, int c, const char *val, const char **threads,
		  struct regexes *re)
{
	char *end;

	switch (c) {
	case K_TREE:
		op->saw_tree = true;
		if (op->report == R_DIFF)
			op->diff_tree = true;
		else
			op->report = R_TREE;
		return 0;
	case K_FLAT:
		op->report = R_FLAT;
		return 0;
	case K_CALLGRAPH:
		op->report = R_CALLGRAPH;
		return 0;
	case K_SAMPLE:
		op->report = R_SAMPLE;
		return 0;
	case K_SAMPLE_MIN:
		op->sample_min = val;
		return 0;
	case K_DIFF:
		op->report = R_DIFF;
		op->diff_tree = op->saw_tree;
		return 0;
	case K_JSON:
		op->json = true;
		return 0;
	case K_INVERTED:
		op->tree.inverted = true;
		return 0;
	case K_PER_THREAD:
		op->per_thread = true;
		return 0;
	case K_COLLAPSE_RECURSION:
		op->filter.collapse_recursion = true;
		return 0;
	case K_TIMESTAMPS:
		op->filter.timestamps = true;
		return 0;
	case K_NO_NORMALIZE:
		op->diff.normalize = false;
		return 0;
	case 'q':
		cli_quiet = 1;
		return 0;
	case 'o':
		op->outpath = val;
		return 0;
	case K_MIN_PERCENT:
		op->tree.min_percent = strtod(val, &end);
		if (*end || end == val || !(op->tree.min_percent >= 0) ||
		    op->tree.min_percent > 100)
			return bad_value("min-percent", val);
		return 0;
	case K_THRESHOLD:
		op->diff.threshold = strtod(val, &end);
		if (*end || end == val || !(op->diff.threshold >= 0))
			return bad_value("threshold", val);
		return 0;
	case K_DEPTH: {
		unsigned long d = strtoul(val, &end, 10);
		if (*end || end == val || !d || d > UINT32_MAX || val[0] == '-')
			return bad_value("depth", val);
		op->tree.max_depth = (uint32_t)d;
		return 0;
	}
	case K_SORT:
		if (!strcmp(val, "total"))
			op->flat.by_total = true;
		else if (!strcmp(val, "self"))
			op->flat.by_total = false;
		else
			return bad_value("sort", val);
		return 0;
	case K_THREAD_IDS:
		if (!strcmp(val, "auto"))
			op->filter.tids = SF_AN_TIDS_AUTO;
		else if (!strcmp(val, "tid"))
			op->filter.tids = SF_AN_TIDS_TID;
		else if (!strcmp(val, "order"))
			op->filter.tids = SF_AN_TIDS_ORDER;
		else
			return bad_value("thread-ids", val);
		return 0;
	case K_SAMPLE_TYPE:
		/* the option parser gave it to the pprof reader too */
		op->sample_type = val;
		return 0;
	case K_THREAD:
		threads[op->filter.nthreads++] = val;
		return 0;
	case K_FOCUS:
		return add_regex(&re->focus, &re->nfocus, val);
	case K_IGNORE:
		return add_regex(&re->ignore, &re->nignore, val);
	case K_HIDE:
		return add_regex(&re->hide, &re->nhide, val);
	default:
		return EXIT_USAGE;
	}
}

int main(int argc, char **argv)
{
	struct sf_ctx ctx;
	struct cli_getopt g;
	struct opts op = { 0 };
	const char *outpath, *val;
	char **inputs = calloc((size_t)argc + 1, sizeof(char *));
	const char **threads = calloc((size_t)argc + 1, sizeof(char *));
	struct regexes re = { 0 };
	int ninputs = 0, nsplit = -1, status = EXIT_OK, c;
	struct sf_profile *p = NULL, *p2 = NULL;
	struct sf_output *o = NULL;

	cli_prog = "sfanalyze";
	cli_fold_exact = true;
	sf_ctx_init(&ctx);
	ctx.interrupted = &cli_interrupted;
	if (cli_getopt_init(&g, opts, CLI_READ, &ctx)) {
		status = EXIT_USAGE;
		goto out;
	}
	if (!inputs || !threads) {
		status = EXIT_IO;
		goto out;
	}
	op.diff.normalize = true;
	for (;;) {
		c = cli_getopt_next(&g, argc, argv, &val);
		if (c == -1) {
			/* the first `--` after --diff splits BASE from NEW
			 * and options go on; any other ends them */
			if (g.dashdash && op.report == R_DIFF && nsplit < 0) {
				nsplit = ninputs;
				continue;
			}
			break;
		}
		if (c == CLI_ARG) {
			inputs[ninputs++] = (char *)val;
		} else if (c == 'h') {
			usage(&g);
			goto out;
		} else if (c == 'V') {
			printf("sfanalyze (sftools) %s\n", SF_VERSION);
			goto out;
		} else if ((status = option(&op, c, val, threads, &re))) {
			goto out;
		}
	}
	for (int i = g.optind; i < argc; i++)
		inputs[ninputs++] = argv[i];
	outpath = op.outpath;
	op.tree.json = op.flat.json = op.diff.json = op.json;
	op.filter.threads = threads;
	op.filter.focus = re.focus;
	op.filter.nfocus = re.nfocus;
	op.filter.ignore = re.ignore;
	op.filter.nignore = re.nignore;
	op.filter.hide = re.hide;
	op.filter.nhide = re.nhide;
	if (op.report == R_SAMPLE &&
	    (op.json || op.per_thread || op.filter.nthreads || re.nfocus ||
	     re.nignore || re.nhide || op.filter.timestamps)) {
		cli_msg("--sample takes no filter, --json, --per-thread or "
			"--timestamps (it reports every thread)");
		status = EXIT_USAGE;
		goto out;
	}
	if (op.report == R_DIFF) {
		if (nsplit < 1 || nsplit >= ninputs) {
			cli_msg("--diff needs BASE... -- NEW... (at least one "
				"input on each side)");
			status = EXIT_USAGE;
			goto out;
		}
		if (op.per_thread) {
			cli_msg("--diff does not take --per-thread");
			status = EXIT_USAGE;
			goto out;
		}
	}

	cli_signals();
	/* Fold equal (stack, thread, labels) at load time, exactly (see
	 * profile.h): every report reads the folded view anyway and takes the
	 * raw sample count from the fold counts, so memory follows unique
	 * stacks, not samples.  --timestamps needs each sample's time.
	 * SF_ANALYZE_NO_FOLD=1 loads unfolded (the tests compare both). */
	const char *nofold = getenv("SF_ANALYZE_NO_FOLD");
	bool aggregate = !op.filter.timestamps &&
			 !(nofold && !strcmp(nofold, "1"));
	if (op.report == R_DIFF) {
		if ((status = load(&ctx, g.from, inputs, nsplit, aggregate,
				   &p)) ||
		    (status = load(&ctx, g.from, inputs + nsplit,
				   ninputs - nsplit, aggregate, &p2)))
			goto out;
	} else if ((status = load(&ctx, g.from, inputs, ninputs, aggregate,
				  &p))) {
		goto out;
	}
	/* loading is over: the analyses only read */
	sf_profile_trim(p);
	if (p2)
		sf_profile_trim(p2);
	if ((status = pick_type(p, op.sample_type, &op.filter.type)))
		goto out;
	if (sf_output_open(&o, &ctx, outpath, false)) {
		status = cli_fail(&ctx);
		goto out;
	}
	int rc;
	if (op.report == R_DIFF) {
		struct sf_an_view *vb = NULL, *vn = NULL;
		struct sf_an_filter f2 = op.filter;
		if ((status = pick_type(p2, op.sample_type, &f2.type))) {
			sf_output_abort(o);
			goto out;
		}
		rc = sf_an_view_build(&vb, p, &op.filter, NULL, &ctx);
		if (!rc)
			rc = sf_an_view_build(&vn, p2, &f2, NULL, &ctx);
		if (!rc)
			rc = op.diff_tree ? sf_an_diff_tree(o, vb, vn, &op.diff,
							    &op.tree, &ctx) :
					    sf_an_diff(o, vb, vn, &op.diff, &ctx);
		if (!rc && op.json)
			sf_output_putc(o, '\n');
		sf_an_view_free(vb);
		sf_an_view_free(vn);
	} else if (op.report == R_SAMPLE) {
		/* the sample writer's report, pruned as sfcapture's */
		rc = sf_ctx_set_opt(&ctx, "sample-min",
				    op.sample_min ? op.sample_min : "1%");
		if (!rc)
			rc = sf_format_by_name("sample")->write(p, o, &ctx);
	} else {
		rc = run(o, p, &op, &ctx);
	}
	if (rc) {
		if (!ctx.err.source[0] && ctx.err.code == SF_EIO)
			snprintf(ctx.err.source, sizeof(ctx.err.source), "%s",
				 sf_output_name(o));
		sf_output_abort(o);
	} else {
		rc = sf_output_commit(o, &ctx);
	}
	cli_warnings(&ctx);
	status = rc ? cli_fail(&ctx) : EXIT_OK;
	if (!rc)
		status = cli_close_stdout(outpath);
out:
	sf_profile_free(p);
	sf_profile_free(p2);
	for (size_t k = 0; k < re.nfocus; k++)
		regfree(&re.focus[k]);
	for (size_t k = 0; k < re.nignore; k++)
		regfree(&re.ignore[k]);
	for (size_t k = 0; k < re.nhide; k++)
		regfree(&re.hide[k]);
	free(re.focus);
	free(re.ignore);
	free(re.hide);
	free(threads);
	sf_ctx_free(&ctx);
	cli_getopt_free(&g);
	free(inputs);
	return status;
}
