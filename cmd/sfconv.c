/* sfconv - convert sampled call stacks between formats. */
#include "cli.h"
#include "opt.h"
#include "diff.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* Say once what the target format cannot hold. */
static void note_losses(const struct sf_profile *p,
			const struct sf_format *to)
{
	char what[256] = "";
	size_t n = 0;
	bool threads = false, weights = false, inl = false, labels = false;
	bool locs = false;
	uint32_t t = p->d.meta.default_type;

	if (cli_quiet)
		return;
	for (size_t i = 0; i < p->d.nsamples; i++) {
		if (p->d.samples[i].thread != SF_NO_THREAD)
			threads = true;
		if (p->d.samples[i].labels)
			labels = true;
		if (p->d.ntypes && t < p->d.ntypes && sf_weight(p, i, t) != 1)
			weights = true;
	}
	for (size_t i = 0; i < p->d.nframes; i++) {
		if (p->d.frames[i].flags & SF_FRAME_INLINE)
			inl = true;
		if (p->d.frames[i].module || p->d.frames[i].file ||
		    p->d.frames[i].address != SF_NO_ADDR)
			locs = true;
	}
#define LOSS(cond, cap, word)                                              \
	if ((cond) && !(to->caps & (cap)))                                 \
		n += (size_t)snprintf(what + n, sizeof(what) - n, "%s%s",   \
				      n ? ", " : "", word)
	LOSS(threads && p->d.nthreads > 0, SF_CAP_THREADS, "threads");
	LOSS(p->d.has_time, SF_CAP_TIME, "timestamps");
	LOSS(weights, SF_CAP_WEIGHTS, "weights");
	LOSS(p->d.ntypes > 1, SF_CAP_TYPES, "extra sample types");
	LOSS(inl, SF_CAP_INLINE, "inline marks");
	LOSS(locs, SF_CAP_LOCATIONS, "modules, files and addresses");
	LOSS(labels, SF_CAP_LABELS, "sample labels");
#undef LOSS
	if (n)
		fprintf(stderr, "%s: note: %s output drops %s\n", cli_prog,
			to->name, what);
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
	bool diff = false;
	struct sf_diff_options dopt = { 0 };

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
			/* BASE is the option's argument, NEW the next word */
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
		default:
			status = EXIT_USAGE;
			goto out;
		}
	}
	/* after `--` every word is an input */
	for (int i = g.optind; i < argc; i++)
		inputs[ninputs++] = argv[i];

	const struct sf_format *out_fmt = NULL;
	if (to) {
		out_fmt = sf_format_by_name(to);
		if (!out_fmt || !out_fmt->write) {
			cli_msg("unknown output format '%s' "
				"(--list-formats shows the formats)", to);
			status = EXIT_USAGE;
			goto out;
		}
	} else if (outpath && strcmp(outpath, "-")) {
		struct stat st;
		out_fmt = sf_format_by_path(outpath, true);
		if (!out_fmt && !stat(outpath, &st) && !S_ISREG(st.st_mode))
			out_fmt = sf_format_by_name("collapsed"); /* /dev/null,
								   * a FIFO */
		if (!out_fmt) {
			cli_msg("cannot tell the output format from '%s'; "
				"use --to", outpath);
			status = EXIT_USAGE;
			goto out;
		}
	} else {
		out_fmt = sf_format_by_name(diff ? "difffolded" : "collapsed");
	}
	if ((dopt.normalize || dopt.strip_hex) && !diff) {
		cli_msg("--normalize and --strip-hex need a comparison "
			"(--diff BASE NEW or --base FILE)");
		{ status = EXIT_USAGE; goto out; }
	}
	if (diff && !ninputs) {
		cli_msg("--base needs the NEW inputs too (or use --diff "
			"BASE NEW)");
		{ status = EXIT_USAGE; goto out; }
	}
	if (outpath) {
		size_t l = strlen(outpath);
		if (l > 3 && !strcmp(outpath + l - 3, ".gz"))
			gzip = true;
	}
	if ((out_fmt->binary || gzip) && (!outpath || !strcmp(outpath, "-")) &&
	    isatty(1)) {
		cli_msg("refusing to write %s output to a terminal; use -o "
			"or a pipe", gzip ? "compressed" : out_fmt->name);
		status = EXIT_USAGE;
		goto out;
	}

	cli_signals();
	if (diff) {
		struct sf_profile *pb = NULL, *pn = NULL;
		rc = cli_load(&ctx, g.from, bases, nbases, true, &pb);
		if (!rc)
			rc = cli_load(&ctx, g.from, inputs, ninputs, true,
				      &pn);
		if (!rc)
			rc = sf_diff_build(&p, &ctx, pb, pn, &dopt);
		sf_profile_free(pb);
		sf_profile_free(pn);
	} else {
		rc = cli_load(&ctx, g.from, inputs, ninputs,
			      !out_fmt->needs_order, &p);
	}
	if (rc) {
		cli_warnings(&ctx);
		status = cli_fail(&ctx);
		goto out;
	}
	/* a comparison's two types are what svg and difffolded draw */
	uint32_t tb, tn;
	if (!sf_diff_types(p, &tb, &tn) || (strcmp(out_fmt->name, "svg") &&
					     strcmp(out_fmt->name,
						    "difffolded")))
		note_losses(p, out_fmt);
	struct sf_output *o;
	if ((rc = sf_output_open(&o, &ctx, outpath, gzip))) {
		status = cli_fail(&ctx);
		goto out;
	}
	rc = out_fmt->write(p, o, &ctx);
	if (rc) {
		if (!ctx.err.source[0])
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
	sf_ctx_free(&ctx);
	cli_getopt_free(&g);
	free(inputs);
	free(bases);
	return status;
}
