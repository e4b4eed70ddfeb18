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

static int parse_size(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s)
		return -1;
	switch (*end) {
	case 'k': case 'K': v <<= 10; end++; break;
	case 'm': case 'M': v <<= 20; end++; break;
	case 'g': case 'G': v <<= 30; end++; break;
	default: break;
	}
	if (*end || !v)
		return -1;
	*out = v;
	return 0;
}

/* --name=value or --name value */
static const char *opt_arg(const char *name, int argc, char **argv, int *i,
			   bool *matched)
{
	const char *a = argv[*i];
	size_t n = strlen(name);

	*matched = false;
	if (strncmp(a, "--", 2) || strncmp(a + 2, name, n))
		return NULL;
	if (a[2 + n] == '=') {
		*matched = true;
		return a + 3 + n;
	}
	if (a[2 + n])
		return NULL;
	*matched = true;
	if (*i + 1 >= argc)
		return NULL;
	return argv[++*i];
}

static const struct {
	const char *name;
	size_t off;
	const char *help;
} limits[] = {
	{ "max-depth", offsetof(struct sf_limits, max_depth),
	  "frames in one stack (default 1048576)" },
	{ "max-name", offsetof(struct sf_limits, max_name),
	  "bytes in one frame name (default 1M)" },
	{ "max-nesting", offsetof(struct sf_limits, max_nesting),
	  "JSON/XML nesting depth (default 512)" },
	{ "max-line", offsetof(struct sf_limits, max_line),
	  "bytes in one text line (default 256M)" },
	{ "max-decompressed", offsetof(struct sf_limits, max_decompressed),
	  "bytes of decompressed input (default 64G)" },
};

/* Is `name` an option some format declares?  Returns its arg name via
 * *arg (NULL for a flag) and the name its value is stored under via
 * *store (the option's own, or for an alias its option's). */
static bool format_option(const char *name, const char **arg,
			  const char **store)
{
	const struct sf_format *const *t = sf_formats();

	for (size_t i = 0; t[i]; i++) {
		const struct sf_option *lists[2] = { t[i]->read_options,
						     t[i]->write_options };
		for (int l = 0; l < 2; l++) {
			for (const struct sf_option *o = lists[l];
			     o && o->name; o++) {
				if (!strcmp(o->name, name)) {
					*arg = o->arg;
					*store = sf_option_canonical(o)->name;
					return true;
				}
			}
		}
	}
	return false;
}

int cli_common_option(struct sf_ctx *ctx, struct cli_common *c, int argc,
		      char **argv, int *i)
{
	const char *a = argv[*i];
	const char *v = NULL;
	bool m;

	if (!strcmp(a, "-f") || (v = opt_arg("from", argc, argv, i, &m), m)) {
		if (!strcmp(a, "-f"))
			v = *i + 1 < argc ? argv[++*i] : NULL;
		if (!v) {
			cli_msg("option '%s' needs a format name", a);
			return -1;
		}
		c->from = v;
		if (!(c->from_fmt = sf_format_by_name(v)) ||
		    !c->from_fmt->read) {
			cli_msg("unknown input format '%s' "
				"(--list-formats shows the formats)", v);
			return -1;
		}
		return 1;
	}
	for (size_t k = 0; k < sizeof(limits) / sizeof(limits[0]); k++) {
		v = opt_arg(limits[k].name, argc, argv, i, &m);
		if (!m)
			continue;
		uint64_t n;
		if (!v || parse_size(v, &n)) {
			cli_msg("option '--%s' needs a positive size "
				"(e.g. 4096, 64K, 2G)", limits[k].name);
			return -1;
		}
		*(uint64_t *)((char *)&ctx->limits + limits[k].off) = n;
		return 1;
	}
	if (!strncmp(a, "--", 2) && a[2]) {
		char name[64];
		const char *eq = strchr(a + 2, '=');
		size_t n = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
		const char *arg, *store;
		if (n >= sizeof(name))
			return 0;
		memcpy(name, a + 2, n);
		name[n] = 0;
		if (!format_option(name, &arg, &store))
			return 0;
		if (!arg) {
			if (eq) {
				cli_msg("option '--%s' takes no argument",
					name);
				return -1;
			}
			sf_ctx_set_opt(ctx, store, "1");
			return 1;
		}
		v = eq ? eq + 1 : (*i + 1 < argc ? argv[++*i] : NULL);
		if (!v) {
			cli_msg("option '--%s' needs %s", name, arg);
			return -1;
		}
		sf_ctx_set_opt(ctx, store, v);
		return 1;
	}
	return 0;
}

void cli_common_help(FILE *f, bool read_opts, bool write_opts)
{
	const struct sf_format *const *t = sf_formats();

	fprintf(f, "Input limits (a bigger input is refused with a message):\n");
	for (size_t k = 0; k < sizeof(limits) / sizeof(limits[0]); k++)
		fprintf(f, "      --%-18s %s\n", limits[k].name,
			limits[k].help);
	fprintf(f, "\nFormat options:\n");
	for (size_t i = 0; t[i]; i++) {
		const struct sf_option *lists[2] = {
			read_opts ? t[i]->read_options : NULL,
			write_opts ? t[i]->write_options : NULL };
		for (int l = 0; l < 2; l++) {
			for (const struct sf_option *o = lists[l];
			     o && o->name; o++) {
				char left[64];
				if (!o->help)
					continue;
				snprintf(left, sizeof(left), "%s%s%s", o->name,
					 o->arg ? " " : "",
					 o->arg ? o->arg : "");
				fprintf(f, "      --%-18s %s\n", left, o->help);
				for (const struct sf_option *a = o + 1;
				     a->name && !a->help; a++)
					fprintf(f, "      %-20s (also --%s)\n",
						"", a->name);
			}
		}
	}
}

int cli_load(struct sf_ctx *ctx, struct cli_common *c, char **inputs,
	     int n, bool aggregate, struct sf_profile **out)
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
		const struct sf_format *fmt = c->from_fmt;
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
