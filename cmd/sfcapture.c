/* sfcapture - sample every thread of a live process, running and blocked
 * alike, and write the stacks in any format sfconv writes.  The engine is
 * sampler-core/capture.h; this is its command line, progress and report. */
#include "cli.h"
#include "opt.h"
#include "analyze.h"
#include "capture.h"

#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile int stop_flag;

enum {
	K_THREADS = CLI_KEY, K_ON_CPU, K_ALL_STOP, K_UNWIND, K_STACK_BYTES,
	K_STACK_FRAMES, K_LINES, K_NO_DEMANGLE, K_NO_REUSE, K_VERIFY_REUSE,
	K_NO_BOOST, K_NO_PEEK, K_NO_PERF, K_CHILDREN, K_NO_CHILDREN,
	K_NO_PYTHON, K_VERIFY_SYMBOLS
};

static const struct cli_opt opts[] = {
	{ "pid", 'p', "PID,...", "processes to sample (repeatable)" },
	{ "children", K_CHILDREN, NULL, "also sample the processes they start, and\n"
	  "theirs (the default with -- CMD)" },
	{ "no-children", K_NO_CHILDREN, NULL, "with -- CMD, sample CMD's own process only" },
	{ "frequency", 'F', "HZ", "samples per second per thread (default 100)" },
	{ "duration", 'd', "SECS", "stop after SECS seconds (fractions allowed)" },
	{ "output", 'o', "FILE", "output file; '-' is standard output (default\n"
	  "sfcapture-PID.json.gz: native JSON, lossless)" },
	{ "to", 't', "FORMAT", "output format (default: by the -o extension)" },
	{ "gzip", 'z', NULL, "compress the output (implied by -o NAME.gz)" },
	{ "threads", K_THREADS, "TID,...", "sample only these threads" },
	{ "on-cpu", K_ON_CPU, NULL, "keep only samples of running threads (state R)" },
	{ "all-stop", K_ALL_STOP, NULL, "stop all threads, then sample them (consistent\n"
	  "snapshot; the whole process pauses longer)" },
	{ "unwind", K_UNWIND, "dwarf|fp", "DWARF CFI through libdw (default) or frame\n"
	  "pointers (fast, loses callers of leaf and libc\nframes)" },
	{ "stack-bytes", K_STACK_BYTES, "N", "stack copied per sample (default 32K, max 256K)" },
	{ "stack-frames", K_STACK_FRAMES, "N", "frames kept per stack (default 512)" },
	{ "lines", K_LINES, NULL, "add source file and line to frames (slower)" },
	{ "no-demangle", K_NO_DEMANGLE, NULL, "keep C++ names mangled" },
	{ "no-python", K_NO_PYTHON, NULL, "keep _PyEval_EvalFrameDefault frames instead of\n"
	  "the Python functions they ran (CPython 3.11+)" },
	{ "no-reuse", K_NO_REUSE, NULL, "stop every thread at every sample, even one that\n"
	  "has not run since its last (label reused=1) or\nsleeps (implies --no-peek)" },
	{ "no-peek", K_NO_PEEK, NULL, "stop a sleeping thread that ran since its last\n"
	  "sample, rather than read it where it sleeps\n(label stopless=1)" },
	{ "no-perf", K_NO_PERF, NULL, "stop a running thread rather than sample it with\n"
	  "a perf event (label stopless=perf)" },
	{ "no-boost", K_NO_BOOST, NULL, "do not raise the sampling thread to SCHED_FIFO 1\n"
	  "or nice -10 (done when permitted: root or CAP_SYS_NICE)" },
	{ "verify-reuse", K_VERIFY_REUSE, NULL, "stop such threads anyway and count reused and\n"
	  "stopless stacks that would differ (audit;\ncapture.reuse_*, capture.stopless_* props)" },
	{ "verify-symbols", K_VERIFY_SYMBOLS, NULL, "name every address with libdwfl's symbol search\n"
	  "too and count the names that would differ (audit;\ncapture.symbols_* props)" },
	{ "quiet", 'q', NULL, "no progress, summary, report or warnings" },
	{ "help", 'h', NULL, "this help" },
	{ "version", 'V', NULL, "the version" },
	CLI_OPT_END
};

static void usage(const struct cli_getopt *g)
{
	printf(
"Usage: sfcapture -p PID[,PID...] [OPTIONS]\n"
"       sfcapture [OPTIONS] -- CMD [ARGS...]\n"
"Sample the call stacks of every thread of a running process (or of CMD,\n"
"started here) at a fixed rate, running and blocked threads alike, until\n"
"Ctrl-C, the end of -d, or the exit of the target.  A thread that has not\n"
"run since its last sample is counted again from its last stack (label\n"
"reused=1, see --no-reuse); one asleep in a system call is read where it\n"
"sleeps (label stopless=1, see --no-peek); any other is stopped for a few\n"
"microseconds while its registers and stack are copied.\n"
"The target is never left stopped or traced.\n"
"\n");
	cli_getopt_help(g, stdout);
	printf(
"\n"
"Each sample records the thread (id and name), the time, the thread's\n"
"state read from /proc before stopping it (label \"state\": running,\n"
"sleeping, disk-wait, ...) and the frames.  A stop interrupts a blocked\n"
"system call: most restart, but epoll_wait and a few others return EINTR\n"
"to the program (see sfcapture(1)); threads read where they sleep see\n"
"nothing.  With -- CMD, a command still running at the end of -d\n"
"is sent SIGTERM.\n"
"\n"
"Exit status: 0 success, 1 the target cannot be sampled (no such process,\n"
"permission, another tracer), 2 usage error, 3 I/O error.  With -- CMD,\n"
"once the capture succeeded, CMD's own status (128+N when signal N\n"
"killed it; 0 when sfcapture ended it at the end of -d), and the report\n"
"goes to the terminal (or standard error), never to CMD's output.\n"
"See sfcapture(1).\n");
}

static void on_stop(int sig)
{
	stop_flag = 1;
}

static void progress(const struct sfc_stats *st, void *arg)
{
	fprintf(stderr, "\r%s: %.1f s, %" PRIu64 " samples, %u threads, "
		"stop %.0f us/sample\033[K", cli_prog,
		(double)st->elapsed_ns / 1e9, st->samples, st->threads_now,
		(double)st->stop_ns_last / 1e3);
	*(int *)arg = 1;
}

/* The report macOS `sample` prints (analyze/sample.c), to `to`.  Nodes
 * under 1% of their thread's samples are hidden, unless --sample-min
 * says otherwise. */
static int report(const struct sf_profile *p, struct sf_ctx *ctx, FILE *to)
{
	struct sf_an_sample_opts opt = {
		.min_percent = SF_AN_SAMPLE_MIN_PERCENT };
	/* the user's --sample-min, as the command line stored it */
	const char *min = sf_ctx_opt(ctx, "sample-min");
	struct sf_output *o = NULL;
	size_t n;
	int rc;

	if ((min && (rc = sf_an_sample_min(&opt, min, ctx))) ||
	    (rc = sf_output_mem(&o, ctx)) ||
	    (rc = sf_an_sample(o, p, &opt, ctx))) {
		sf_output_abort(o);
		return rc;
	}
	const char *text = sf_output_mem_data(o, &n);
	fputc('\n', to);
	fwrite(text, 1, n, to);
	sf_output_abort(o);
	return fflush(to) ? sf_error(ctx, SF_EIO, "-", 0, "write error") : 0;
}

/* Where the report goes: standard output, unless the capture went there
 * or the command we started owns it (sfcapture -- CMD): then the
 * terminal, else standard error.  *opened when it must be closed. */
static FILE *report_to(bool launched, const char *outpath, bool *opened)
{
	FILE *f;

	*opened = false;
	if (!launched)
		return strcmp(outpath, "-") ? stdout : stderr;
	if ((f = fopen("/dev/tty", "we"))) {
		*opened = true;
		return f;
	}
	return stderr;
}

int main(int argc, char **argv)
{
	struct sf_ctx ctx;
	struct cli_getopt g;
	struct sfc_options o;
	const char *outpath = NULL, *to = NULL, *val;
	char **cmd = NULL, defpath[64];
	bool gzip = false;
	int status = EXIT_OK, rc, c, cstatus = 0, cend = -1;
	struct sfc_session *s = NULL;
	struct sf_profile *p = NULL;

	cli_prog = "sfcapture";
	sf_ctx_init(&ctx);
	sfc_options_init(&o);
	if (cli_getopt_init(&g, opts, CLI_WRITE, &ctx)) {
		status = EXIT_USAGE;
		goto done;
	}
	while ((c = cli_getopt_next(&g, argc, argv, &val)) != -1) {
		switch (c) {
		case CLI_ARG:
			cli_msg("unexpected argument '%s' (a command to run "
				"goes after '--')", val);
			goto usage_error;
		case 'h': usage(&g); goto done;
		case 'V':
			printf("sfcapture (sftools) %s\n", SF_VERSION);
			goto done;
		case 'o': outpath = val; break;
		case 't': to = val; break;
		case 'z': gzip = true; break;
		case 'q': cli_quiet = 1; break;
		case '?': goto usage_error;
		default:
			/* the rest are the engine's, by their names */
			if (sfc_options_set(&o, &ctx, cli_getopt_name(&g, c),
					    val)) {
				status = cli_fail(&ctx);
				goto done;
			}
		}
	}
	if (g.dashdash && g.optind < argc)
		cmd = argv + g.optind;
	else if (g.dashdash) {
		cli_msg("'--' needs a command to run");
		goto usage_error;
	}
	if (!o.pid == !cmd) {
		cli_msg(o.pid ? "give either -p PID or -- CMD, not both"
			      : "nothing to sample: give -p PID or -- CMD "
				"(see --help)");
		goto usage_error;
	}

	/* the default file keeps everything (tids, names, states, times,
	 * modules): gzip'd native JSON; "-o -" with no --to writes collapsed
	 * text */
	struct sf_save save;
	if (sf_save_pick(&save, &ctx, outpath, to,
			 outpath ? "collapsed" : "json", gzip || !outpath)) {
		status = cli_fail(&ctx);
		goto done;
	}
	if (outpath && (status = cli_refuse_terminal(&save)))
		goto done;

	/* a signal ends the capture; the output is still written */
	cli_signals_call(on_stop);
	o.suspend = &cli_tstp_flag;
	o.on_suspend = cli_tstp_suspend;
	if ((rc = sfc_start(&s, &ctx, &o, cmd, &cstatus)) == 1) {
		cli_msg("'%s' exited before the first sample: nothing "
			"captured", cmd[0]);
		status = cli_child_status(cmd[0], cstatus, false);
		goto done;
	} else if (rc) {
		status = cli_fail(&ctx);
		goto done;
	}
	int shown = 0;
	bool tty = isatty(2) && !cli_quiet;
	cli_tstp_catch();
	rc = sfc_run(s, &ctx, &stop_flag, tty ? progress : NULL, &shown);
	signal(SIGTSTP, SIG_DFL);
	if (shown)
		fprintf(stderr, "\r\033[K");
	cend = sfc_end_command(s, &cstatus);
	if (rc) {
		cli_warnings(&ctx);
		status = cli_fail(&ctx);
		goto done;
	}
	/* from here a signal removes the temporary output and ends us */
	cli_signals();
	if (stop_flag)
		cli_interrupted = 0;

	if (!outpath) {
		snprintf(defpath, sizeof(defpath), "sfcapture-%d.json.gz",
			 (int)o.pid);
		save.path = outpath = defpath;
	}
	if ((rc = sf_profile_new(&p, &ctx)))
		goto fail;
	sf_profile_set_aggregate(p, !sf_save_needs_order(&save, &ctx));
	if ((rc = sfc_emit(s, &ctx, p)) || (rc = sf_save(&save, p, &ctx)))
		goto fail;
	cli_warnings(&ctx);
	if (!cli_quiet) {
		sfc_summary(s, p, cli_say, NULL);
		cli_msg("wrote %s (%s)", strcmp(outpath, "-") ? outpath
						       : "standard output",
			save.format->name);
		bool opened;
		FILE *rto = report_to(cmd != NULL, outpath, &opened);
		rc = report(p, &ctx, rto);
		if (opened)
			fclose(rto);
		if (rc)
			goto fail;
	}
	if (cli_close_stdout(outpath))
		status = EXIT_IO;
	/* the command's own status, once ours is a success */
	if (cend >= 0 && status == EXIT_OK)
		status = cli_child_status(cmd[0], cstatus, cend == 1);
	goto done;
usage_error:
	status = EXIT_USAGE;
	goto done;
fail:
	cli_warnings(&ctx);
	status = cli_fail(&ctx);
done:
	sfc_close(s);
	sf_profile_free(p);
	sf_ctx_free(&ctx);
	cli_getopt_free(&g);
	free((void *)o.tids);
	free((void *)o.pids);
	return status;
}
