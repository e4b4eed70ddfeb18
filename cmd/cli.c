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
bool cli_fold_exact;
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

void cli_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	/* past `ulimit -f` a write fails with EFBIG (exit 3, temporary file
	 * removed) instead of the signal killing us with the file left */
	signal(SIGXFSZ, SIG_IGN);
}

int cli_load(struct sf_ctx *ctx, const struct sf_format *from,
	     char **inputs, int n, bool aggregate, struct sf_profile **out)
{
	struct sf_profile *p;
	int rc;
	char *stdin_only[] = { "-" };

	if ((rc = sf_profile_new(&p, ctx)))
		return rc;
	sf_profile_set_aggregate(p, aggregate);
	sf_profile_set_fold_exact(p, cli_fold_exact);
	if (n == 0) {
		inputs = stdin_only;
		n = 1;
	}
	for (int i = 0; i < n; i++) {
		struct sf_input *in;
		sf_profile_begin_input(p, (uint32_t)i);
		if ((rc = sf_input_open(&in, ctx, inputs[i])))
			break;
		const struct sf_format *fmt = from;
		if (!fmt && (rc = sf_format_detect(&fmt, in, ctx, inputs[i]))) {
			sf_input_close(in);
			break;
		}
		rc = sf_read(p, fmt, in, ctx);
		if (rc && !ctx->err.source[0])
			snprintf(ctx->err.source, sizeof(ctx->err.source),
				 "%s", sf_input_name(in));
		sf_input_close(in);
		if (rc)
			break;
	}
	if (rc) {
		sf_profile_free(p);
		return rc;
	}
	*out = p;
	return 0;
}
