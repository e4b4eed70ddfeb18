/* sfcapture - sample every thread of a live process, running and blocked
 * alike, and write the stacks in any format sfconv writes.  The engine is
 * sampler-core/capture.h; this is its command line, progress and report. */
#include "cli.h"
#include "opt.h"
#include "capture.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile int stop_flag;

enum {
	K_THREADS = CLI_KEY, K_ON_CPU, K_ALL_STOP, K_UNWIND, K_STACK_BYTES,
	K_STACK_FRAMES, K_LINES, K_NO_DEMANGLE
};

static const struct cli_opt opts[] = {
	{ "pid", 'p', "PID", "process to sample" },
	{ "frequency", 'F', "HZ", "samples per second per thread (default 100)" },
	{ "duration", 'd', "SECS", "stop after SECS seconds (fractions allowed)" },
	{ "output", 'o', "FILE", "output file; '-' is standard output (default\n"
	  "sfcapture-PID.trace, Sampler format)" },
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
	{ "quiet", 'q', NULL, "no progress, summary or warnings" },
	{ "help", 'h', NULL, "this help" },
	{ "version", 'V', NULL, "the version" },
	CLI_OPT_END
};

static void usage(const struct cli_getopt *g)
{
	printf(
"Usage: sfcapture -p PID [OPTIONS]\n"
"       sfcapture [OPTIONS] -- CMD [ARGS...]\n"
"Sample the call stacks of every thread of a running process (or of CMD,\n"
"started here) at a fixed rate, running and blocked threads alike, until\n"
"Ctrl-C, the end of -d, or the exit of the target.  The target is stopped\n"
"one thread at a time for a few microseconds per sample and never left\n"
"stopped or traced.\n"
"\n");
	cli_getopt_help(g, stdout);
	printf(
"\n"
"Each sample records the thread (id and name), the time, the thread's\n"
"state read from /proc before stopping it (label \"state\": running,\n"
"sleeping, disk-wait, ...) and the frames.  Every sample interrupts the\n"
"blocked system calls of the threads: most restart, but epoll_wait and a\n"
"few others return EINTR to the program once per sample (see\n"
"sfcapture(1)).  With -- CMD, a command still running at the end of -d\n"
"is sent SIGTERM.\n"
"\n"
"Exit status: 0 success, 1 the target cannot be sampled (no such process,\n"
"permission, another tracer), 2 usage error, 3 I/O error.\n"
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

struct hot {
	sf_stack_id stack;
	double w;
};

static int hot_cmp(const void *a, const void *b)
{
	const struct hot *x = a, *y = b;

	if (x->w != y->w)
		return x->w < y->w ? 1 : -1;
	return x->stack < y->stack ? -1 : x->stack > y->stack;
}

/* The three stacks with the most samples, leaf first. */
static void hottest(const struct sf_profile *p)
{
	double *by = calloc(p->d.nstacks, sizeof(double)), total = 0;
	struct hot top[3] = { { 0, 0 }, { 0, 0 }, { 0, 0 } };
	sf_frame_id *fr;

	if (!by)
		return;
	for (size_t i = 0; i < p->d.nsamples; i++) {
		double w = sf_weight(p, i, p->d.meta.default_type);
		by[p->d.samples[i].stack] += w;
		total += w;
	}
	for (size_t i = 1; i < p->d.nstacks; i++) {
		struct hot h = { (sf_stack_id)i, by[i] };
		if (h.w <= 0 || hot_cmp(&h, &top[2]) > 0)
			continue;
		top[2] = h;
		qsort(top, 3, sizeof(top[0]), hot_cmp);
	}
	free(by);
	if (!top[0].w)
		return;
	fprintf(stderr, "%s: hottest stacks:\n", cli_prog);
	for (int k = 0; k < 3 && top[k].w > 0; k++) {
		uint32_t d = p->d.stacks[top[k].stack].depth;
		if (!(fr = calloc(d ? d : 1, sizeof(*fr))))
			return;
		sf_profile_stack_frames(p, top[k].stack, fr);
		fprintf(stderr, "  %6.0f %5.1f%%  ", top[k].w,
			100 * top[k].w / total);
		for (uint32_t j = 0; j < d && j < 8; j++)
			fprintf(stderr, "%s%s", j ? " <- " : "",
				p->d.frames[fr[d - 1 - j]].name);
		fprintf(stderr, "%s\n", d > 8 ? " <- ..." : "");
		free(fr);
	}
}

int main(int argc, char **argv)
{
	struct sf_ctx ctx;
	struct cli_getopt g;
	struct sfc_options o;
	const char *outpath = NULL, *to = NULL, *val;
	char **cmd = NULL, defpath[64];
	bool gzip = false, launched = false;
	int status = EXIT_OK, rc, c;
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
		case 'p': case 'F': case 'd': case K_THREADS: case K_ON_CPU:
		case K_ALL_STOP: case K_UNWIND: case K_STACK_BYTES:
		case K_STACK_FRAMES: case K_LINES: case K_NO_DEMANGLE:
			if (sfc_options_set(&o, &ctx, cli_getopt_name(&g, c),
					    val)) {
				status = cli_fail(&ctx);
				goto done;
			}
			break;
		default:
			goto usage_error;
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

	/* the default file is a Sampler trace, like macOS sample's; "-o -"
	 * with no --to writes collapsed text */
	struct sf_save save;
	if (sf_save_pick(&save, &ctx, outpath, to,
			 outpath ? "collapsed" : "sampler", gzip)) {
		status = cli_fail(&ctx);
		goto done;
	}
	if (outpath && (status = cli_refuse_terminal(&save)))
		goto done;

	/* a signal ends the capture; the output is still written */
	cli_signals_call(on_stop);

	if (cmd) {
		if (sfc_launch(&o.pid, &ctx, cmd)) {
			status = cli_fail(&ctx);
			goto done;
		}
		o.is_child = true;
		launched = true;
	}
	if ((rc = sfc_open(&s, &ctx, &o))) {
		int st;
		if (launched && waitpid(o.pid, &st, WNOHANG) == o.pid) {
			/* the command ended before the first sample */
			cli_msg("'%s' exited before the first sample", cmd[0]);
			launched = false;
			status = EXIT_INPUT;
		} else {
			status = cli_fail(&ctx);
		}
		goto done;
	}
	int shown = 0;
	bool tty = isatty(2) && !cli_quiet;
	rc = sfc_run(s, &ctx, &stop_flag, tty ? progress : NULL, &shown);
	if (shown)
		fprintf(stderr, "\r\033[K");
	const struct sfc_stats *st = sfc_stats(s);
	if (launched)
		sfc_end_child(o.pid, st->child_status_valid);
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
		snprintf(defpath, sizeof(defpath), "sfcapture-%d.trace",
			 (int)o.pid);
		save.path = outpath = defpath;
	}
	if ((rc = sf_profile_new(&p, &ctx)))
		goto fail;
	sf_profile_set_aggregate(p, !save.format->needs_order);
	if ((rc = sfc_emit(s, &ctx, p)))
		goto fail;
	p->d.meta.source_format = sf_profile_str(p, &ctx, "sfcapture");
	if ((rc = sf_save(&save, p, &ctx)))
		goto fail;
	cli_warnings(&ctx);
	if (!cli_quiet) {
		int64_t med, p99;
		sfc_stop_time(s, &med, &p99);
		if (st->target_exited)
			cli_msg("the target exited after %.2f s",
				(double)st->elapsed_ns / 1e9);
		cli_msg("%" PRIu64 " samples taken, %" PRIu64 " missed, "
			"from %u threads in %.2f s", st->samples, st->missed,
			st->threads_seen, (double)st->elapsed_ns / 1e9);
		cli_msg("target stopped per sample: median %.0f us, p99 "
			"%.0f us", (double)med / 1e3, (double)p99 / 1e3);
		cli_msg("wrote %s (%s)", strcmp(outpath, "-") ? outpath
						       : "standard output",
			save.format->name);
		hottest(p);
	}
	if (cli_close_stdout(outpath))
		status = EXIT_IO;
	goto done;
usage_error:
	status = EXIT_USAGE;
	goto done;
fail:
	cli_warnings(&ctx);
	status = cli_fail(&ctx);
done:
	if (launched && !s)
		sfc_end_child(o.pid, false);
	sfc_close(s);
	sf_profile_free(p);
	sf_ctx_free(&ctx);
	cli_getopt_free(&g);
	free((void *)o.tids);
	return status;
}
