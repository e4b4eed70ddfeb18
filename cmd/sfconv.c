/* sfconv - convert sampled call stacks between formats. */
#include "cli.h"
#include "opt.h"
#include "diff.h"
#include "load.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { K_MERGE = CLI_KEY, K_DIFF, K_BASE, K_NORMALIZE, K_STRIP_HEX, K_LIST };

static const struct cli_opt opts[] = {
	{ "output", 'o', "FILE", "write FILE (via a temporary file, renamed when\n"
	  "complete); '-' is standard output" },
	{ "to", 't', "FORMAT", "output format (default: by the -o extension, else\n"
	  "collapsed)" },
	{ "gzip", 'z', NULL, "compress the output (implied by -o NAME.gz)" },
	{ "merge", K_MERGE, NULL, "merge all inputs into one profile (the default\n"
	  "for several inputs; with one input a no-op)" },
	{ "diff", K_DIFF, "BASE NEW", "compare two profiles: a differential profile\n"
	  "(flame graph with -o X.svg; default output\n"
	  "difffolded: 'stack BASE NEW' lines)" },
	{ "base", K_BASE, "FILE", "a BASE input of a comparison (repeatable); the\n"
	  "INPUTs are then the NEW side" },
	{ "normalize", K_NORMALIZE, NULL, "comparison: scale BASE to NEW's total\n"
	  "(difffolded.pl -n)" },
	{ "strip-hex", K_STRIP_HEX, NULL, "comparison: write 0x1234 in names as 0x..." },
	CLI_OPTS_SELECT,
	CLI_OPTS_XF_CONV,
	{ "quiet", 'q', NULL, "no warnings or notes on standard error" },
	{ "list-formats", K_LIST, NULL, "list the formats, their extensions and whether\n"
	  "they read (r) and write (w)" },
	{ "help", 'h', NULL, "this help" },
	{ "version", 'V', NULL, "the version" },
	CLI_OPT_END
};

static void usage(const struct cli_getopt *g)
{
	printf(
"Usage: sfconv [OPTIONS] [INPUT...] [-o OUTPUT]\n"
"Convert sampled call stacks between formats.  With no INPUT, or '-', read\n"
"standard input; with no -o, write standard output.  Several inputs merge\n"
"into one profile (their threads are kept apart).  Gzip input is inflated\n"
"transparently.\n"
"\n");
	cli_getopt_help(g, stdout);
	printf(
"\n"
"Exit status: 0 success, 1 bad input, 2 usage error, 3 I/O error (read,\n"
"write, full disk).  A closed output pipe ends quietly with status 0.\n"
"See sfconv(1) and docs/formats.md.\n");
}

static void list_formats(void)
{
	const struct sf_format *const *t = sf_formats();

	for (size_t i = 0; t[i]; i++) {
		char ext[256] = "";
		size_t n = 0;
		for (size_t j = 0; t[i]->extensions && t[i]->extensions[j];
		     j++)
			n += (size_t)snprintf(ext + n, sizeof(ext) - n, "%s%s",
					      j ? "," : "",
					      t[i]->extensions[j]);
		printf("%-14s %c%c  %-36s %s\n", t[i]->name,
		       t[i]->read ? 'r' : '-', t[i]->write ? 'w' : '-',
		       ext[0] ? ext : "-", t[i]->description);
	}
}

/* Say once what the output format cannot hold. */
static void note_losses(const struct sf_profile *p, const struct sf_format *to)
{
	char what[256];
	unsigned lost;

	/* a pass over every sample and frame (2 ms of a timeline's 400,000
	 * samples): not made for a note that would not be shown */
	if (cli_quiet || !(lost = sf_save_losses(to, p)))
		return;
	sf_save_losses_text(what, sizeof(what), lost);
	fprintf(stderr, "%s: note: %s output drops %s\n", cli_prog, to->name,
		what);
}

int main(int argc, char **argv)
{
	struct sf_ctx ctx;
	struct cli_getopt g;
	const char *outpath = NULL, *to = NULL, *val;
	bool gzip = false;
	char **inputs = calloc((size_t)argc, sizeof(char *));
	int ninputs = 0, rc, c, status = EXIT_OK;
	struct sf_profile *p = NULL;
	char **bases = calloc((size_t)argc, sizeof(char *));
	int nbases = 0;
	bool diff = false, base_at_set = false;
	int base_at = 0;   /* with base_at_set: inputs[base_at] is BASE */
	struct sf_diff_options dopt = { 0 };
	struct cli_select sel = { 0 };

	cli_prog = "sfconv";
	sf_ctx_init(&ctx);
	ctx.interrupted = &cli_interrupted;
	if (cli_getopt_init(&g, opts, CLI_READ | CLI_WRITE, &ctx)) {
		status = EXIT_USAGE;
		goto out;
	}
	if (!inputs || !bases) {
		status = EXIT_IO;
		goto out;
	}
	while ((c = cli_getopt_next(&g, argc, argv, &val)) != -1) {
		switch (c) {
		case CLI_ARG:
			inputs[ninputs++] = (char *)val;
			break;
		case 'h':
			usage(&g);
			goto out;
		case 'V':
			printf("sfconv (sftools) %s\n", SF_VERSION);
			goto out;
		case K_LIST:
			list_formats();
			goto out;
		case 'o':
			outpath = val;
			break;
		case 't':
			to = val;
			break;
		case 'z':
			gzip = true;
			break;
		case 'q':
			cli_quiet = 1;
			break;
		case K_MERGE:
			/* several inputs always merge */
			break;
		case K_DIFF:
			/* BASE is the option's argument, NEW the next word;
			 * an option there ("--diff --normalize A B") is read
			 * as one, and BASE is then the next plain word */
			if (val[0] == '-' && val[1] && !base_at_set) {
				optind--;
				base_at = ninputs;
				base_at_set = true;
				diff = true;
				break;
			}
			if (optind >= argc) {
				cli_msg("option '--diff' needs two files, "
					"BASE and NEW");
				status = EXIT_USAGE;
				goto out;
			}
			bases[nbases++] = (char *)val;
			inputs[ninputs++] = argv[optind++];
			diff = true;
			break;
		case K_BASE:
			bases[nbases++] = (char *)val;
			diff = true;
			break;
		case K_NORMALIZE:
			dopt.normalize = true;
			break;
		case K_STRIP_HEX:
			dopt.strip_hex = true;
			break;
		case CLI_K_TAG: case CLI_K_TAG_IGNORE: case CLI_K_GRANULARITY:
		case CLI_K_MERGE_FUNCTION: case CLI_K_MERGE_LIBRARY:
		case CLI_K_FOCUS_FUNCTION: case CLI_K_IGNORE:
		case CLI_K_COLLAPSE_RECURSION:
			if ((status = cli_select_option(&sel, c, (char *)val,
							&ctx)))
				goto out;
			break;
		default:
			status = EXIT_USAGE;
			goto out;
		}
	}
	/* after `--` every word is an input */
	for (int i = g.optind; i < argc; i++)
		inputs[ninputs++] = argv[i];
	if (base_at_set) {
		if (ninputs - base_at < 2) {
			cli_msg("option '--diff' needs two files, BASE and NEW");
			status = EXIT_USAGE;
			goto out;
		}
		bases[nbases++] = inputs[base_at];
		memmove(inputs + base_at, inputs + base_at + 1,
			(size_t)(ninputs - base_at - 1) * sizeof(*inputs));
		ninputs--;
	}

	struct sf_save save;
	if (sf_save_pick(&save, &ctx, outpath, to,
			 diff ? "difffolded" : "collapsed", gzip)) {
		status = cli_fail(&ctx);
		goto out;
	}
	if ((dopt.normalize || dopt.strip_hex) && !diff) {
		cli_msg("--normalize and --strip-hex need a comparison "
			"(--diff BASE NEW or --base FILE)");
		status = EXIT_USAGE;
		goto out;
	}
	if (diff && !ninputs) {
		cli_msg("--base needs the NEW inputs too (or use --diff "
			"BASE NEW)");
		status = EXIT_USAGE;
		goto out;
	}
	if ((status = cli_refuse_terminal(&save)))
		goto out;

	cli_signals();
	/* a writer that folds samples is given no all-zero sample (it
	 * would only print as a 0 line); one that writes each sample keeps
	 * them (format.h, needs_order) */
	struct sf_load_options lo = { .from = g.from, .aggregate = true,
				      .drop_zero = !save.format->needs_order,
				      .select = &sel.sel };
	if (diff) {
		struct sf_profile *pb = NULL, *pn = NULL;
		rc = sf_load(&pb, &ctx, bases, (size_t)nbases, &lo);
		if (!rc)
			rc = sf_load(&pn, &ctx, inputs, (size_t)ninputs, &lo);
		if (!rc)
			rc = sf_diff_build(&p, &ctx, pb, pn, &dopt);
		sf_profile_free(pb);
		sf_profile_free(pn);
	} else {
		lo.aggregate = !sf_save_needs_order(&save, &ctx);
		/* a reader's large buffers (the JSON reader's map of the
		 * file's stacks) kept for a writer that takes them */
		ctx.keep_given = save.format->takes_kept;
		rc = sf_load(&p, &ctx, inputs, (size_t)ninputs, &lo);
	}
	if (rc) {
		cli_warnings(&ctx);
		status = cli_fail(&ctx);
		goto out;
	}
	note_losses(p, save.format);
	/* the stack tree's index is for adding stacks: its memory goes back
	 * before the writer takes its own, and the child lists' pages are
	 * kept for the writer to use again */
	sf_profile_trim_keep(p, &ctx);
	rc = sf_save(&save, p, &ctx);
	cli_warnings(&ctx);
	status = rc ? cli_fail(&ctx) : cli_close_stdout(outpath);
out:
	sf_profile_free(p);
	cli_select_free(&sel);
	sf_ctx_free(&ctx);
	cli_getopt_free(&g);
	free(inputs);
	free(bases);
	return status;
}
