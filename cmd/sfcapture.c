/* sfcapture - sample every thread of a live process (wall-clock: running
 * and blocked threads alike) and write the stacks in any format sfconv
 * writes.  The engine is sampler-core/capture.h; this file parses the
 * command line, starts a command when asked, shows progress and writes. */
#include "cli.h"
#include "opt.h"
#include "capture.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
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
	{ "quiet", 'q', NULL, "no progress, summary, report or warnings" },
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

static int parse_tids(const char *s, pid_t **out, size_t *n)
{
	size_t cap = 1;

	for (const char *q = s; *q; q++)
		cap += *q == ',';
	if (!(*out = calloc(cap, sizeof(pid_t))))
		return -1;
	*n = 0;
	while (*s) {
		char *end;
		long v = strtol(s, &end, 10);
		if (end == s || v <= 0 || (*end && *end != ','))
			return -1;
		(*out)[(*n)++] = (pid_t)v;
		s = *end ? end + 1 : end;
	}
	return *n ? 0 : -1;
}

/* Start CMD; returns its pid, or -1 after a message.  The exec is
 * confirmed through a close-on-exec pipe, so a missing command is an error
 * here rather than an empty capture. */
static pid_t launch(char **argv)
{
	int pfd[2], err = 0;
	pid_t pid;

	if (pipe2(pfd, O_CLOEXEC) < 0) {
		cli_msg("cannot create a pipe: %s", strerror(errno));
		return -1;
	}
	fflush(NULL);
	if ((pid = fork()) < 0) {
		cli_msg("cannot fork: %s", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		sigset_t none;
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		signal(SIGPIPE, SIG_DFL);
		close(pfd[0]);
		execvp(argv[0], argv);
		err = errno;
		if (write(pfd[1], &err, sizeof(err)) < 0)
			_exit(127);
		_exit(127);
	}
	close(pfd[1]);
	ssize_t n;
	while ((n = read(pfd[0], &err, sizeof(err))) < 0 && errno == EINTR)
		;
	close(pfd[0]);
	if (n == (ssize_t)sizeof(err)) {
		cli_msg("cannot run '%s': %s", argv[0], strerror(err));
		waitpid(pid, NULL, 0);
		return -1;
	}
	return pid;
}

/* Stop a command we started that outlived the capture. */
static void end_child(pid_t pid, const struct sfc_stats *st)
{
	int status;

	if (st->child_status_valid)
		return;
	kill(pid, SIGTERM);
	for (int i = 0; i < 200; i++) {
		pid_t w = waitpid(pid, &status, WNOHANG);
		if (w == pid || (w < 0 && errno != EINTR))
			return;
		struct timespec ts = { 0, 10000000 };
		nanosleep(&ts, NULL);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
}

/* The report macOS `sample` prints, made by the `sample` writer: to
 * standard output, or to standard error when the capture itself went
 * there.  Nodes under 1% of their thread's samples are hidden unless
 * --sample-min says otherwise. */
static int report(const struct sf_profile *p, struct sf_ctx *ctx,
		  bool to_stderr)
{
	const struct sf_format *f = sf_format_by_name("sample");
	struct sf_output *o = NULL;
	size_t n;
	int rc;

	if (!sf_ctx_opt(ctx, "sample-min") &&
	    (rc = sf_ctx_set_opt(ctx, "sample-min", "1%")))
		return rc;
	if ((rc = sf_output_mem(&o, ctx)) || (rc = f->write(p, o, ctx))) {
		sf_output_abort(o);
		return rc;
	}
	const char *text = sf_output_mem_data(o, &n);
	FILE *to = to_stderr ? stderr : stdout;
	fputc('\n', to);
	fwrite(text, 1, n, to);
	sf_output_abort(o);
	return fflush(to) ? sf_error(ctx, SF_EIO, "-", 0, "write error") : 0;
}

static int positive(const char *a, const char *v, double *out)
{
	char *end;

	errno = 0;
	*out = v ? strtod(v, &end) : 0;
	if (!v || errno || end == v || *end || !(*out > 0) || *out > 1e9) {
		cli_msg("option '%s' needs a positive number", a);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct sf_ctx ctx;
	struct cli_getopt g;
	struct sfc_options o;
	const char *outpath = NULL, *to = NULL, *val;
	char **cmd = NULL, defpath[64];
	pid_t *tids = NULL;
	bool gzip = false, launched = false;
	double v;
	int status = EXIT_OK, rc, c;
	struct sfc_session *s = NULL;
	struct sf_profile *p = NULL;
	struct sf_output *out = NULL;

	cli_prog = "sfcapture";
	sf_ctx_init(&ctx);
	sfc_options_init(&o);
	if (cli_getopt_init(&g, opts, CLI_WRITE, &ctx)) {
		status = EXIT_USAGE;
		goto done;
	}
	while ((c = cli_getopt_next(&g, argc, argv, &val)) != -1) {
		const char *a = argv[g.optind - 1];
		switch (c) {
		case CLI_ARG:
			cli_msg("unexpected argument '%s' (a command to run "
				"goes after '--')", val);
			goto usage_error;
		case 'h':
			usage(&g);
			goto done;
		case 'V':
			printf("sfcapture (sftools) %s\n", SF_VERSION);
			goto done;
		case 'p':
			if (positive(a, val, &v) || v != (pid_t)v)
				goto usage_error;
			o.pid = (pid_t)v;
			break;
		case 'F':
			if (positive(a, val, &v))
				goto usage_error;
			o.hz = v;
			break;
		case 'd':
			if (positive(a, val, &v))
				goto usage_error;
			o.duration_ns = (int64_t)(v * 1e9);
			break;
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
		case K_THREADS:
			if (parse_tids(val, &tids, &o.ntids)) {
				cli_msg("option '--threads' needs thread ids "
					"separated by commas");
				goto usage_error;
			}
			o.tids = tids;
			break;
		case K_STACK_BYTES: {
			char *end;
			unsigned long long n = strtoull(val, &end, 10);
			if (*end == 'k' || *end == 'K')
				n <<= 10, end++;
			if (*end || n < 4096 || n > 256 * 1024) {
				cli_msg("option '--stack-bytes' needs a size "
					"from 4K to 256K");
				goto usage_error;
			}
			o.stack_bytes = (size_t)n;
			break;
		}
		case K_STACK_FRAMES:
			if (positive("--stack-frames", val, &v) || v > 65536)
				goto usage_error;
			o.max_frames = (unsigned)v;
			break;
		case K_UNWIND:
			if (!strcmp(val, "fp"))
				o.unwind = SFC_UNWIND_FP;
			else if (!strcmp(val, "dwarf"))
				o.unwind = SFC_UNWIND_DWARF;
			else {
				cli_msg("option '--unwind' needs 'dwarf' or "
					"'fp'");
				goto usage_error;
			}
			break;
		case K_ON_CPU:
			o.on_cpu = true;
			break;
		case K_ALL_STOP:
			o.all_stop = true;
			break;
		case K_LINES:
			o.source_lines = true;
			break;
		case K_NO_DEMANGLE:
			o.no_demangle = true;
			break;
		default:
			goto usage_error;
		}
	}
	if (g.optind < argc && !strcmp(argv[g.optind - 1], "--"))
		cmd = argv + g.optind;
	else if (g.optind > 1 && !strcmp(argv[g.optind - 1], "--")) {
		cli_msg("'--' needs a command to run");
		goto usage_error;
	}
	if (!o.pid == !cmd) {
		cli_msg(o.pid ? "give either -p PID or -- CMD, not both"
			      : "nothing to sample: give -p PID or -- CMD "
				"(see --help)");
		goto usage_error;
	}

	const struct sf_format *fmt = NULL;
	if (to) {
		fmt = sf_format_by_name(to);
		if (!fmt || !fmt->write) {
			cli_msg("unknown output format '%s' "
				"(sfconv --list-formats shows the formats)", to);
			goto usage_error;
		}
	} else if (outpath && strcmp(outpath, "-")) {
		if (!(fmt = sf_format_by_path(outpath, true))) {
			cli_msg("cannot tell the output format from '%s'; "
				"use --to", outpath);
			goto usage_error;
		}
	} else if (!outpath) {
		/* the default output keeps everything: tids, names, states,
		 * times, modules */
		fmt = sf_format_by_name("json");
		gzip = true;
	} else {
		fmt = sf_format_by_name("collapsed");
	}
	if (outpath) {
		size_t l = strlen(outpath);
		if (l > 3 && !strcmp(outpath + l - 3, ".gz"))
			gzip = true;
	}
	if ((fmt->binary || gzip) && outpath && !strcmp(outpath, "-") &&
	    isatty(1)) {
		cli_msg("refusing to write %s output to a terminal; use -o "
			"or a pipe", gzip ? "compressed" : fmt->name);
		goto usage_error;
	}

	/* SIGINT/SIGTERM/SIGHUP end the capture (no SA_RESTART, so waits
	 * wake up); the output is still written */
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	if (cmd) {
		if ((o.pid = launch(cmd)) < 0) {
			status = EXIT_INPUT;
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
		end_child(o.pid, st);
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
		outpath = defpath;
	}
	if ((rc = sf_profile_new(&p, &ctx)))
		goto fail;
	sf_profile_set_aggregate(p, !fmt->needs_order);
	if ((rc = sfc_emit(s, &ctx, p)))
		goto fail;
	p->d.meta.source_format = sf_profile_str(p, &ctx, "sfcapture");
	if ((rc = sf_output_open(&out, &ctx, outpath, gzip)))
		goto fail;
	if ((rc = fmt->write(p, out, &ctx))) {
		if (!ctx.err.source[0])
			snprintf(ctx.err.source, sizeof(ctx.err.source), "%s",
				 sf_output_name(out));
		sf_output_abort(out);
		goto fail;
	}
	if ((rc = sf_output_commit(out, &ctx)))
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
			fmt->name);
		if ((rc = report(p, &ctx, !strcmp(outpath, "-"))))
			goto fail;
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
		end_child(o.pid, &(struct sfc_stats){ 0 });
	sfc_close(s);
	sf_profile_free(p);
	sf_ctx_free(&ctx);
	cli_getopt_free(&g);
	free(tids);
	return status;
}
