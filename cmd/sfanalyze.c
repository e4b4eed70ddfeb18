/* sfanalyze - reports from sampled call stacks: the reports of analyze's
 * table (call tree, flat table, call graph, diff, macOS sample). */
#include "cli.h"
#include "opt.h"
#include "analyze.h"
#include "load.h"

#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
	K_JSON = CLI_KEY, K_TIMESTAMPS, K_THREAD_IDS, K_THREAD, K_PER_THREAD,
	K_PER_PROCESS, K_FOCUS, K_IGNORE, K_HIDE, K_PEEK, K_COLLAPSE_RECURSION,
	K_RAW, K_HTML,
	/* the reports of analyze's table, then their options, by index
	 * (below 0x1000, where the parser's own keys start: cmd/opt.c) */
	K_REPORT = CLI_KEY + 0x100, K_REPORT_OPTION = CLI_KEY + 0x200,
	K_REPORT_END = CLI_KEY + 0x300,
	/* also the pprof reader's option */
	K_SAMPLE_TYPE = CLI_FORMAT_KEY
};

/* The table is made at start (cli_report_options): a "Reports:" heading,
 * a row per report of sf_an_reports(), these, then each report's options
 * under "Report options:", then the rest. */
static const struct cli_opt opts_reports[] = {
	{ "html", K_HTML, NULL, "the HTML report of sfconv -o X.html (with --diff:\n"
	  "the differential one), to -o FILE; the filters\n"
	  "are then the transforms (--merge-function ...)" },
	{ "peek", K_PEEK, "REGEX", "the call graph's node view: callers and callees\n"
	  "of each function matching REGEX (repeatable)" },
	{ "json", K_JSON, NULL, "JSON instead of text (exact numbers, with units)" },
	{ "raw", K_RAW, NULL, "text: exact numbers, not scaled units (675224100,\n"
	  "not 675.22ms)" },
};

static const struct cli_opt opts_rest[] = {
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
	{ "per-process", K_PER_PROCESS, NULL, "one report per process, its threads together\n"
	  "(JSON: an object keyed by COMM-PID)" },
	{ "focus", K_FOCUS, "REGEX", "keep samples with a frame matching REGEX (POSIX\n"
	  "extended, unanchored; this and the next two\n"
	  "are repeatable)" },
	{ "ignore", K_IGNORE, "REGEX", "drop samples with a frame matching REGEX" },
	{ "hide", K_HIDE, "REGEX", "remove matching frames from stacks" },
	{ "collapse-recursion", K_COLLAPSE_RECURSION, NULL, "merge runs of one function (A;A;A -> A)" },
	CLI_OPTS_SELECT,
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
"Exit status: 0 success, 1 bad input, 2 usage error, 3 I/O error.\n"
"See sfanalyze(1) and docs/analyze.md.\n");
}

struct opts {
	struct sf_an_report_opts r;
	const char *outpath, *sample_type;
	const char **threads;       /* --thread, argc long */
	const char **peek_text;     /* --peek as typed, argc long */
	regex_t *re[4];             /* --focus, --ignore, --hide, --peek */
	size_t nre[4];
	struct cli_select sel;      /* --tag, --tag-ignore, --granularity */
	bool html;                  /* --html */
};

/* One option of the table (not -h, -V, or an input). */
static int option(struct opts *op, const struct cli_getopt *g, int c,
		  const char *val, struct sf_ctx *ctx)
{
	struct sf_an_report_opts *r = &op->r;

	if (c >= K_REPORT && c < K_REPORT_OPTION) {
		sf_an_report_pick(r, &sf_an_reports()[c - K_REPORT]);
		return 0;
	}
	if ((c >= K_REPORT_OPTION && c < K_REPORT_END) || c == K_THREAD_IDS)
		return sf_an_report_set(r, cli_getopt_name(g, c), val, ctx) ?
		       cli_fail(ctx) : 0;
	switch (c) {
	case K_JSON: r->json = true; return 0;
	case K_HTML: op->html = true; return 0;
	case K_RAW: r->raw = true; return 0;
	case K_PER_THREAD: r->per_thread = true; return 0;
	case K_PER_PROCESS: r->per_process = true; return 0;
	case K_COLLAPSE_RECURSION: r->filter.collapse_recursion = true; return 0;
	case K_TIMESTAMPS: r->filter.timestamps = true; return 0;
	case 'q': cli_quiet = 1; return 0;
	case 'o': op->outpath = val; return 0;
	/* the option parser gave it to the pprof reader too */
	case K_SAMPLE_TYPE: op->sample_type = val; return 0;
	case K_THREAD: op->threads[r->filter.nthreads++] = val; return 0;
	case K_PEEK:
		/* the call graph's node view */
		sf_an_report_pick(r, sf_an_report_by_name("callgraph"));
		op->peek_text[op->nre[3]] = val;
		/* fall through */
	case K_FOCUS: case K_IGNORE: case K_HIDE:
		return cli_regex_add(&op->re[c - K_FOCUS], &op->nre[c - K_FOCUS],
				 val);
	case CLI_K_TAG: case CLI_K_TAG_IGNORE: case CLI_K_GRANULARITY:
	case CLI_K_MERGE_FUNCTION: case CLI_K_MERGE_LIBRARY:
	case CLI_K_FOCUS_FUNCTION:
		return cli_select_option(&op->sel, c, (char *)val, ctx);
	default: return EXIT_USAGE;
	}
}

/* Parse argv into op and the inputs; *nsplit: where NEW starts (--diff). */
static int parse(struct opts *op, struct cli_getopt *g, int argc, char **argv,
		 char **inputs, int *ninputs, int *nsplit, struct sf_ctx *ctx)
{
	const char *val;
	int c, status;

	for (;;) {
		c = cli_getopt_next(g, argc, argv, &val);
		if (c == -1) {
			/* the first `--` after --diff splits BASE from NEW
			 * and options go on; any other ends them */
			if (g->dashdash && op->r.kind->two_inputs &&
			    *nsplit < 0) {
				*nsplit = *ninputs;
				continue;
			}
			break;
		}
		if (c == CLI_ARG) {
			inputs[(*ninputs)++] = (char *)val;
		} else if (c == 'h' || c == 'V') {
			c == 'h' ? usage(g) : (void)printf("sfanalyze (sftools) "
							   "%s\n", SF_VERSION);
			return -1;
		} else if ((status = option(op, g, c, val, ctx))) {
			return status;
		}
	}
	for (int i = g->optind; i < argc; i++)
		inputs[(*ninputs)++] = argv[i];
	return 0;
}

int main(int argc, char **argv)
{
	struct sf_ctx ctx;
	struct cli_getopt g = { 0 };
	struct opts op = { 0 };
	struct cli_opt *table = cli_report_options(opts_reports,
		sizeof(opts_reports) / sizeof(*opts_reports), opts_rest,
		K_REPORT, K_REPORT_OPTION);
	struct sf_an_report_opts *r = &op.r;
	char **inputs = calloc((size_t)argc + 1, sizeof(char *));
	int ninputs = 0, nsplit = -1, status = EXIT_OK, rc;
	struct sf_profile *p = NULL, *p2 = NULL;
	struct sf_output *o = NULL;

	cli_keep_heap();
	cli_prog = "sfanalyze";
	sf_ctx_init(&ctx);
	sf_an_report_defaults(r);
	ctx.interrupted = &cli_interrupted;
	op.threads = calloc((size_t)argc + 1, sizeof(char *));
	op.peek_text = calloc((size_t)argc + 1, sizeof(char *));
	if ((status = !inputs || !op.threads || !op.peek_text || !table ?
		      EXIT_IO :
		      cli_getopt_init(&g, table, CLI_READ, &ctx) ? EXIT_USAGE : 0))
		goto out;
	if ((status = parse(&op, &g, argc, argv, inputs, &ninputs, &nsplit,
			    &ctx))) {
		status = status < 0 ? EXIT_OK : status;
		goto out;
	}
	r->cgr.cg.peek = op.re[3], r->cgr.cg.npeek = op.nre[3];
	r->cgr.peek_text = op.peek_text;
	sf_an_report_path(r, op.outpath);
	r->filter.threads = op.threads;
	r->filter.focus = op.re[0], r->filter.nfocus = op.nre[0];
	r->filter.ignore = op.re[1], r->filter.nignore = op.nre[1];
	r->filter.hide = op.re[2], r->filter.nhide = op.nre[2];
	if (op.html && (op.nre[0] || op.nre[1] || op.nre[2] || op.nre[3] ||
			r->filter.collapse_recursion || r->filter.nthreads ||
			r->filter.timestamps || r->per_thread ||
			/* the default report (the tree), or a comparison */
			(r->kind != sf_an_reports() && !r->kind->two_inputs))) {
		cli_msg("--html takes no other report and none of --focus, "
			"--ignore, --hide, --collapse-recursion, --thread, "
			"--timestamps, --per-thread, --peek (the page applies "
			"its own; --focus-function, --merge-function, --tag "
			"thread=NAME work before it)");
		status = EXIT_USAGE;
		goto out;
	}
	if ((r->kind->two_inputs && (nsplit < 1 || nsplit >= ninputs) &&
	     sf_error(&ctx, SF_EUSAGE, NULL, 0, "--diff needs BASE... -- "
		      "NEW... (at least one input on each side)")) ||
	    sf_an_report_check(r, &ctx)) {
		status = cli_fail(&ctx);
		goto out;
	}

	cli_signals();
	/* Folded at load time, exactly (docs/analyze.md); --timestamps
	 * needs each sample's time; SF_ANALYZE_NO_FOLD=1 loads unfolded. */
	const char *nofold = getenv("SF_ANALYZE_NO_FOLD");
	struct sf_load_options lo = {
		.from = g.from, .fold_exact = true, .select = &op.sel.sel,
		.drop_zero = sf_an_report_drops_zero(r),
		/* the page's tracks draw each timed sample */
		.aggregate = !r->filter.timestamps && !op.html &&
			     !(nofold && !strcmp(nofold, "1")),
	};
	if (!r->kind->two_inputs)
		nsplit = ninputs;
	bool drop = !op.html && sf_an_report_one_view(r);
	ctx.keep_given = drop;      /* the JSON reader's map: see below */
	rc = sf_load(&p, &ctx, inputs, (size_t)nsplit, &lo);
	if (!rc && r->kind->two_inputs)
		rc = sf_load(&p2, &ctx, inputs + nsplit,
			     (size_t)(ninputs - nsplit), &lo);
	if (rc) {
		cli_warnings(&ctx);
		status = cli_fail(&ctx);
		goto out;
	}
	/* loading is over: the analyses only read.  A report of one view
	 * builds it in the dead pages of the stack tree's child lists, the
	 * samples' index and the reader's map (80 MB on the timeline of
	 * docs/PERFORMANCE.md), then gives the stack tree up (sf_an_report) */
	drop ? sf_profile_trim_keep(p, &ctx) : sf_profile_trim(p);
	r->droppable = drop ? p : NULL;
	sf_profile_trim(p2);
	if (sf_an_sample_type(&r->filter.type, p, op.sample_type, &ctx) ||
	    (p2 && sf_an_sample_type(&r->new_type, p2, op.sample_type, &ctx)) ||
	    sf_output_open(&o, &ctx, op.outpath, false)) {
		status = cli_fail(&ctx);
		goto out;
	}
	if (op.html)
		rc = cli_write_html(o, p, p2, r->filter.type, r->new_type,
				    &ctx);
	else
		rc = sf_an_report(o, p, p2, r, &ctx);
	if (rc) {
		if (!ctx.err.source[0] && ctx.err.code == SF_EIO)
			snprintf(ctx.err.source, sizeof(ctx.err.source), "%s",
				 sf_output_name(o));
		sf_output_abort(o);
	} else {
		rc = sf_output_commit(o, &ctx);
	}
	cli_warnings(&ctx);
	status = rc ? cli_fail(&ctx) : cli_close_stdout(op.outpath);
out:
	sf_profile_free(p);
	sf_profile_free(p2);
	for (int l = 0; l < 4; l++)
		cli_regex_free(op.re[l], op.nre[l]);
	free(op.threads);
	free(op.peek_text);
	cli_select_free(&op.sel);
	sf_ctx_free(&ctx);
	cli_getopt_free(&g);
	free(table);
	free(inputs);
	return status;
}
