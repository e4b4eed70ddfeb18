/* sfanalyze - reports from sampled call stacks: call tree, flat table,
 * call graph, diff. */
#include "cli.h"
#include "analyze.h"

#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum report { R_TREE, R_FLAT, R_CALLGRAPH, R_DIFF };

static void usage(FILE *f)
{
	fprintf(f,
"Usage: sfanalyze [REPORT] [OPTIONS] [INPUT...]\n"
"       sfanalyze --diff [--tree] [OPTIONS] BASE... -- NEW...\n"
"Print a report from sampled call stacks.  INPUTs are read like sfconv\n"
"reads them (any input format, detected or --from, gzip, '-' or nothing\n"
"for standard input); several inputs merge into one profile.\n"
"\n"
"Reports:\n"
"      --tree             top-down call tree from the bottom of the stack\n"
"                         (the default)\n"
"      --flat             one row per function: self, self %%, cumulative\n"
"                         %%, total, total %% (sb-sprof's flat report)\n"
"      --callgraph        call graph with caller/callee times (Racket\n"
"                         profile/analyzer semantics)\n"
"      --diff             compare BASE inputs with NEW inputs, separated\n"
"                         by '--': per-function self and total, change;\n"
"                         with --tree, the tree of NEW with each node's\n"
"                         change (--inverted, --min-percent, --depth apply)\n"
"      --json             JSON instead of text\n"
"\n"
"Report options:\n"
"      --inverted         tree: bottom-up (callers of each leaf function)\n"
"      --min-percent P    tree: hide nodes below P%% of the whole (the text\n"
"                         says how many and how much)\n"
"      --depth N          tree: show N levels below the root\n"
"      --sort self|total  flat: sort column (default self)\n"
"      --no-normalize     diff: compare raw weights, not shares of each\n"
"                         side's total\n"
"      --threshold P      diff: flag functions whose total share grew by\n"
"                         more than P percentage points\n"
"\n"
"Samples and weights:\n"
"      --sample-type T    weigh samples by sample type T (a name like cpu\n"
"                         or an index; default: the input's default type)\n"
"      --timestamps       weigh each sample by the midpoint rule on its\n"
"                         timestamps (ns), per thread, instead of its\n"
"                         weight; a thread with one sample is dropped\n"
"      --thread-ids auto|tid|order\n"
"                         call-graph thread ids: tids, or 0,1,2... in order\n"
"                         of first sample (auto: tids when all are known,\n"
"                         distinct and below 1024)\n"
"\n"
"Filters (every report):\n"
"      --thread ID|NAME   keep samples of this thread (tid, name or\n"
"                         name-tid; repeatable)\n"
"      --per-thread       one report per thread (JSON: an object keyed by\n"
"                         thread)\n"
"      --focus REGEX      keep samples with a frame matching REGEX\n"
"      --ignore REGEX     drop samples with a frame matching REGEX\n"
"      --hide REGEX       remove matching frames from stacks\n"
"      --collapse-recursion\n"
"                         merge runs of one function (A;A;A -> A)\n"
"  REGEX is a POSIX extended regular expression matched against frame\n"
"  names (unanchored); --focus, --ignore and --hide are repeatable.\n"
"\n"
"Other:\n"
"  -o, --output FILE      write FILE instead of standard output\n"
"  -f, --from FORMAT      input format (default: detect)\n"
"  -q, --quiet            no warnings on standard error\n"
"  -h, --help             this help\n"
"  -V, --version          the version\n"
"\n");
	cli_common_help(f, true, false);
	fprintf(f,
"\n"
"Exit status: 0 success, 1 bad input, 2 usage error, 3 I/O error.\n"
"See sfanalyze(1) and docs/analyze.md.\n");
}

struct opts {
	enum report report;
	bool json, per_thread;
	bool saw_tree, diff_tree;   /* --diff --tree: differential tree */
	struct sf_an_filter filter;
	struct sf_an_tree_opts tree;
	struct sf_an_flat_opts flat;
	struct sf_an_diff_opts diff;
	struct sf_an_cg_opts cg;
	const char *sample_type;
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
		rc = op->json ? sf_an_cg_json(o, g, &op->cg) :
				sf_an_cg_text(o, g, &op->cg);
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

static int load(struct sf_ctx *ctx, struct cli_common *common, char **in,
		int n, bool aggregate, struct sf_profile **p)
{
	if (cli_load(ctx, common, in, n, aggregate, p)) {
		cli_warnings(ctx);
		return cli_fail(ctx);
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct sf_ctx ctx;
	struct cli_common common = { 0 };
	struct opts op = { 0 };
	const char *outpath = NULL;
	char **inputs = calloc((size_t)argc + 1, sizeof(char *));
	const char **threads = calloc((size_t)argc + 1, sizeof(char *));
	regex_t *focus = NULL, *ignore = NULL, *hide = NULL;
	size_t nfocus = 0, nignore = 0, nhide = 0;
	int ninputs = 0, nsplit = -1, status = EXIT_OK, r;
	bool only_inputs = false;
	struct sf_profile *p = NULL, *p2 = NULL;
	struct sf_output *o = NULL;

	cli_prog = "sfanalyze";
	cli_fold_exact = true;
	sf_ctx_init(&ctx);
	ctx.interrupted = &cli_interrupted;
	if (!inputs || !threads) {
		status = EXIT_IO;
		goto out;
	}
	op.diff.normalize = true;
	op.tree.min_percent = -1;   /* the library's default */
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *val = NULL;
		char *end;
		if (only_inputs || a[0] != '-' || !strcmp(a, "-")) {
			inputs[ninputs++] = argv[i];
			continue;
		}
		/* --name=value and --name value */
#define ARG(name)                                                          \
	((!strcmp(a, "--" name) && i + 1 < argc && (val = argv[++i])) ||   \
	 (!strncmp(a, "--" name "=", sizeof(name) + 2) &&              \
	  (val = a + sizeof(name) + 2)))
		if (!strcmp(a, "--")) {
			if (op.report == R_DIFF && nsplit < 0)
				nsplit = ninputs;
			else
				only_inputs = true;
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			status = EXIT_OK;
			goto out;
		} else if (!strcmp(a, "-V") || !strcmp(a, "--version")) {
			printf("sfanalyze (sftools) %s\n", SF_VERSION);
			status = EXIT_OK;
			goto out;
		} else if (!strcmp(a, "--tree")) {
			op.saw_tree = true;
			if (op.report == R_DIFF)
				op.diff_tree = true;
			else
				op.report = R_TREE;
		} else if (!strcmp(a, "--flat")) {
			op.report = R_FLAT;
		} else if (!strcmp(a, "--callgraph")) {
			op.report = R_CALLGRAPH;
		} else if (!strcmp(a, "--diff")) {
			op.report = R_DIFF;
			op.diff_tree = op.saw_tree;
		} else if (!strcmp(a, "--json")) {
			op.json = true;
		} else if (!strcmp(a, "--inverted")) {
			op.tree.inverted = true;
		} else if (!strcmp(a, "--per-thread")) {
			op.per_thread = true;
		} else if (!strcmp(a, "--collapse-recursion")) {
			op.filter.collapse_recursion = true;
		} else if (!strcmp(a, "--timestamps")) {
			op.filter.timestamps = true;
		} else if (!strcmp(a, "--no-normalize")) {
			op.diff.normalize = false;
		} else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
			cli_quiet = 1;
		} else if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
			if (i + 1 >= argc)
				goto needs_arg;
			outpath = argv[++i];
		} else if (!strncmp(a, "--output=", 9)) {
			outpath = a + 9;
		} else if (ARG("min-percent")) {
			op.tree.min_percent = strtod(val, &end);
			if (*end || end == val || !(op.tree.min_percent >= 0) ||
			    op.tree.min_percent > 100)
				goto bad_value;
		} else if (ARG("threshold")) {
			op.diff.threshold = strtod(val, &end);
			if (*end || end == val || !(op.diff.threshold >= 0))
				goto bad_value;
		} else if (ARG("depth")) {
			unsigned long d = strtoul(val, &end, 10);
			if (*end || end == val || !d || d > UINT32_MAX ||
			    val[0] == '-')
				goto bad_value;
			op.tree.max_depth = (uint32_t)d;
		} else if (ARG("sort")) {
			if (!strcmp(val, "total"))
				op.flat.by_total = true;
			else if (!strcmp(val, "self"))
				op.flat.by_total = false;
			else
				goto bad_value;
		} else if (ARG("thread-ids")) {
			if (!strcmp(val, "auto"))
				op.filter.tids = SF_AN_TIDS_AUTO;
			else if (!strcmp(val, "tid"))
				op.filter.tids = SF_AN_TIDS_TID;
			else if (!strcmp(val, "order"))
				op.filter.tids = SF_AN_TIDS_ORDER;
			else
				goto bad_value;
		} else if (ARG("sample-type")) {
			op.sample_type = val;
			sf_ctx_set_opt(&ctx, "sample-type", val);
		} else if (ARG("thread")) {
			threads[op.filter.nthreads++] = val;
		} else if (ARG("focus")) {
			if ((r = add_regex(&focus, &nfocus, val))) {
				status = r;
				goto out;
			}
		} else if (ARG("ignore")) {
			if ((r = add_regex(&ignore, &nignore, val))) {
				status = r;
				goto out;
			}
		} else if (ARG("hide")) {
			if ((r = add_regex(&hide, &nhide, val))) {
				status = r;
				goto out;
			}
		} else {
			r = cli_common_option(&ctx, &common, argc, argv, &i);
			if (r < 0) {
				status = EXIT_USAGE;
				goto out;
			}
			if (r == 0) {
				const char *known[] = {
					"--min-percent", "--threshold",
					"--depth", "--sort", "--thread-ids",
					"--sample-type", "--thread", "--focus",
					"--ignore", "--hide", NULL };
				for (size_t k = 0; known[k]; k++)
					if (!strcmp(a, known[k]))
						goto needs_arg;
				cli_msg("unknown option '%s' (see --help)", a);
				status = EXIT_USAGE;
				goto out;
			}
		}
		continue;
#undef ARG
needs_arg:
		cli_msg("option '%s' needs an argument", a);
		status = EXIT_USAGE;
		goto out;
bad_value:
		cli_msg("option '%s': bad value '%s'", a, val);
		status = EXIT_USAGE;
		goto out;
	}
	op.tree.json = op.flat.json = op.diff.json = op.json;
	op.filter.threads = threads;
	op.filter.focus = focus;
	op.filter.nfocus = nfocus;
	op.filter.ignore = ignore;
	op.filter.nignore = nignore;
	op.filter.hide = hide;
	op.filter.nhide = nhide;
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
		if ((status = load(&ctx, &common, inputs, nsplit, aggregate,
				   &p)) ||
		    (status = load(&ctx, &common, inputs + nsplit,
				   ninputs - nsplit, aggregate, &p2)))
			goto out;
	} else if ((status = load(&ctx, &common, inputs, ninputs, aggregate,
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
	for (size_t k = 0; k < nfocus; k++)
		regfree(&focus[k]);
	for (size_t k = 0; k < nignore; k++)
		regfree(&ignore[k]);
	for (size_t k = 0; k < nhide; k++)
		regfree(&hide[k]);
	free(focus);
	free(ignore);
	free(hide);
	free(threads);
	sf_ctx_free(&ctx);
	free(inputs);
	return status;
}
