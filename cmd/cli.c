/* cli.c - shared command-line plumbing for sfconv, sfanalyze, sfcapture. */
#include "cli.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *cli_prog = "sftools";
int cli_quiet;
volatile int cli_interrupted;

void cli_msg(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", cli_prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int cli_fail(struct sf_ctx *ctx)
{
	char buf[1024];

	switch (ctx->err.code) {
	case SF_EPIPE:
		return EXIT_OK;
	case SF_OK:
		return EXIT_OK;
	default:
		break;
	}
	sf_error_format(&ctx->err, buf, sizeof(buf));
	cli_msg("%s", buf);
	switch (ctx->err.code) {
	case SF_EINPUT:
	case SF_ELIMIT:
		return EXIT_INPUT;
	case SF_EUSAGE:
	case SF_EUNSUP:
		return EXIT_USAGE;
	case SF_EINTR:
		return 128 + SIGINT;
	default:
		return EXIT_IO;
	}
}

void cli_warnings(struct sf_ctx *ctx)
{
	if (cli_quiet)
		return;
	for (size_t i = 0; i < ctx->nwarnings; i++) {
		const struct sf_warning *w = &ctx->warnings[i];
		if (w->count > 1)
			fprintf(stderr, "%s: warning: %s (%llu times)\n",
				cli_prog, w->first,
				(unsigned long long)w->count);
		else
			fprintf(stderr, "%s: warning: %s\n", cli_prog,
				w->first);
	}
}

int cli_close_stdout(const char *outpath)
{
	if (outpath && strcmp(outpath, "-"))
		return EXIT_OK;
	/* a delayed write error (NFS, a quota) shows up only at close;
	 * EBADF: standard output was closed before we started */
	if (close(1) && errno != EBADF && errno != EINTR) {
		cli_msg("-: write error: %s", strerror(errno));
		return EXIT_IO;
	}
	return EXIT_OK;
}

static void on_signal(int sig)
{
	sf_output_signal_cleanup();
	signal(sig, SIG_DFL);
	raise(sig);
}

void cli_signals_call(void (*handler)(int))
{
	struct sigaction sa;

	/* no SA_RESTART: a wait in progress wakes up */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

void cli_signals(void)
{
	cli_signals_call(on_signal);
	/* past `ulimit -f` a write fails with EFBIG (exit 3, temporary file
	 * removed) instead of the signal killing us with the file left */
	signal(SIGXFSZ, SIG_IGN);
}

int cli_refuse_terminal(const struct sf_save *s)
{
	if ((s->format->binary || s->gzip) &&
	    (!s->path || !strcmp(s->path, "-")) && isatty(1)) {
		cli_msg("refusing to write %s output to a terminal; use -o "
			"or a pipe", s->gzip ? "compressed" : s->format->name);
		return EXIT_USAGE;
	}
	return EXIT_OK;
}
