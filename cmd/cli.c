/* cli.c - shared command-line plumbing for sfconv, sfanalyze, sfcapture. */
#include "cli.h"
#include "analyze.h"
#include "diff.h"

#include <errno.h>
#include <malloc.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
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

/* The address-space cap cli_memory_budget set, or 0. */
static uint64_t cli_budget;

/* A size as the options take it: "3G", "1536M", "12345". */
static void size_text(char *buf, size_t n, uint64_t v)
{
	static const char suf[] = "GMK";
	for (int i = 0; i < 3; i++) {
		uint64_t unit = 1ull << (30 - 10 * i);
		if (v >= unit && v % unit == 0) {
			snprintf(buf, n, "%llu%c", (unsigned long long)(v / unit),
				 suf[i]);
			return;
		}
	}
	snprintf(buf, n, "%llu", (unsigned long long)v);
}

static bool cli_budget_ulimit;   /* cli_budget is ulimit -v's, lower */

void cli_memory_budget(struct sf_ctx *ctx)
{
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
	(void)ctx;
#else
	struct rlimit rl;
	uint64_t want = ctx->limits.max_memory;

	if (getrlimit(RLIMIT_AS, &rl))
		return;
	/* options may end twice (sfanalyze --diff A -- B): a cap set here
	 * before is not a ulimit -v */
	bool ours = cli_budget && !cli_budget_ulimit &&
		    rl.rlim_cur == (rlim_t)cli_budget;
	if (!ours && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur <= want) {
		/* a lower ulimit -v is the budget the readers check */
		ctx->limits.max_memory = cli_budget = rl.rlim_cur;
		cli_budget_ulimit = true;
		return;
	}
	rl.rlim_cur = (rlim_t)want;
	if (!setrlimit(RLIMIT_AS, &rl))
		cli_budget = want;
#endif
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
	if (ctx->err.code == SF_ENOMEM && cli_budget) {
		char num[32];
		size_text(num, sizeof(num), cli_budget);
		cli_msg("%s: more than the memory limit of %s (%s)", buf, num,
			cli_budget_ulimit ? "ulimit -v" : "--max-memory");
	} else {
		cli_msg("%s", buf);
	}
	if (ctx->err.code == SF_ENOMEM && cli_budget)
		return EXIT_INPUT;      /* a limit, as the others */
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

/* A mapped input that another process cuts short raises SIGBUS on the
 * first read past its new end.  Say so in one line, remove the output's
 * temporary file, and exit as for bad input, instead of dying with a
 * core. */
static void on_sigbus(int sig)
{
	static const char msg[] = ": an input file was cut short while it was "
				  "read (SIGBUS)\n";
	static int taken;

	/* several reader threads may fault at once: the first says so and
	 * exits, which ends the others waiting here */
	if (__atomic_exchange_n(&taken, 1, __ATOMIC_SEQ_CST))
		for (;;)
			pause();
	sf_output_signal_cleanup();
	/* nothing to do if stderr is gone */
	if (write(2, cli_prog, strlen(cli_prog)) > 0)
		(void)!write(2, msg, sizeof(msg) - 1);
	_exit(EXIT_INPUT);
}

void cli_signals(void)
{
	struct sigaction sa;

	cli_signals_call(on_signal);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigbus;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, NULL);
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

/* A transform's expression into list k (drop, merge, library, focus),
 * and its text at its place among the texts, which are in list order. */
static int select_regex(struct cli_select *s, int k, const char *val)
{
	size_t at = 0;
	int rc;

	for (int j = 0; j <= k; j++)
		at += s->nre[j];
	const char **nt = sf_reallocarray(s->texts, s->ntexts + 1,
					  sizeof(*nt));
	if (!nt)
		return EXIT_IO;
	s->texts = nt;
	if ((rc = cli_regex_add(&s->re[k], &s->nre[k], val)))
		return rc;
	memmove(nt + at + 1, nt + at, (s->ntexts - at) * sizeof(*nt));
	nt[at] = val;
	s->ntexts++;
	struct sf_transform *x = &s->sel.xf;
	x->drop = s->re[0];
	x->ndrop = s->nre[0];
	x->merge = s->re[1];
	x->nmerge = s->nre[1];
	x->library = s->re[2];
	x->nlibrary = s->nre[2];
	x->focus = s->re[3];
	x->nfocus = s->nre[3];
	s->sel.xf_texts = s->texts;
	return 0;
}

int cli_select_option(struct cli_select *s, int key, char *val,
		      struct sf_ctx *ctx)
{
	bool keep = key == CLI_K_TAG;
	struct sf_tag **list = keep ? &s->keep : &s->drop;
	size_t *n = keep ? &s->sel.nkeep : &s->sel.ndrop;

	if (key == CLI_K_COLLAPSE_RECURSION) {
		s->sel.xf.collapse_recursion = true;
		return 0;
	}
	if (key >= CLI_K_MERGE_FUNCTION && key <= CLI_K_IGNORE)
		return select_regex(s, key == CLI_K_IGNORE ? 0 :
				    key - CLI_K_MERGE_FUNCTION + 1, val);
	if (key == CLI_K_GRANULARITY) {
		if ((s->sel.granularity = sf_granularity_parse(val)) >= 0)
			return 0;
		cli_msg("option '--granularity': bad value '%s' (functions, "
			"lines or addresses)", val);
		return EXIT_USAGE;
	}
	struct sf_tag *nl = sf_reallocarray(*list, *n + 1, sizeof(**list));
	if (!nl)
		return EXIT_IO;
	*list = nl;
	if (sf_tag_parse(&nl[*n], val, keep ? "--tag" : "--tag-ignore", ctx))
		return cli_fail(ctx);
	(*n)++;
	s->sel.keep = s->keep;
	s->sel.drop = s->drop;
	return 0;
}

void cli_select_free(struct cli_select *s)
{
	free(s->keep);
	free(s->drop);
	for (int k = 0; k < 4; k++)
		cli_regex_free(s->re[k], s->nre[k]);
	free(s->texts);
}

int cli_regex_add(regex_t **list, size_t *n, const char *re)
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

void cli_regex_free(regex_t *list, size_t n)
{
	for (size_t k = 0; k < n; k++)
		regfree(&list[k]);
	free(list);
}

void cli_keep_heap(void)
{
	/* the arrays only loading needs (the stack index, the readers'
	 * caches) are freed before the view and the analyses allocate
	 * theirs, which then reuse those pages instead of faulting in fresh
	 * ones, and growing arrays skip a mmap/mremap/munmap each: a third
	 * of the CPU time of --callgraph on 20,000 random stacks */
	mallopt(M_MMAP_THRESHOLD, 256 << 20);
	mallopt(M_TRIM_THRESHOLD, 256 << 20);
	/* the break grows 32 MB at a time, so sf_heap_advise marks most
	 * of the heap for huge pages before anything writes it */
	mallopt(M_TOP_PAD, 32 << 20);
	free(malloc(1));
	sf_heap_advise();
}

int cli_write_html(struct sf_output *o, struct sf_profile *p,
		   struct sf_profile *p2, uint32_t type, uint32_t new_type,
		   struct sf_ctx *ctx)
{
	const struct sf_format *html = sf_format_by_name("html");
	struct sf_profile *d = NULL;
	int rc;

	p->d.meta.default_type = type;
	if (!p2)
		return html->write(p, o, ctx);
	p2->d.meta.default_type = new_type;
	if ((rc = sf_diff_build(&d, ctx, p, p2,
				&(struct sf_diff_options){ 0 })))
		return rc;
	rc = html->write(d, o, ctx);
	sf_profile_free(d);
	return rc;
}

/* ----- sfcapture -- CMD: Ctrl-Z, and how the command ended ----- */

volatile int cli_tstp_flag;

static void on_tstp(int sig)
{
	cli_tstp_flag = 1;
}

void cli_tstp_catch(void)
{
	struct sigaction sa;

	/* no SA_RESTART: the wait for the next tick wakes up */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_tstp;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTSTP, &sa, NULL);
}

void cli_tstp_suspend(void *arg)
{
	cli_tstp_flag = 0;
	signal(SIGTSTP, SIG_DFL);
	raise(SIGTSTP);
	/* here after SIGCONT */
	cli_tstp_catch();
}

int cli_child_status(const char *cmd, int st, bool ended)
{
	if (cli_quiet)
		return ended ? EXIT_OK : WIFEXITED(st) ? WEXITSTATUS(st)
			     : WIFSIGNALED(st) ? 128 + WTERMSIG(st) : EXIT_OK;
	if (ended) {
		cli_msg("'%s' was still running at the end of the capture: "
			"ended with SIGTERM", cmd);
		return EXIT_OK;
	}
	if (WIFEXITED(st)) {
		cli_msg("'%s' exited with status %d", cmd, WEXITSTATUS(st));
		return WEXITSTATUS(st);
	}
	if (WIFSIGNALED(st)) {
		int sig = WTERMSIG(st);
		cli_msg("'%s' was killed by signal %d (%s)%s", cmd, sig,
			strsignal(sig), WCOREDUMP(st) ? ", core dumped" : "");
		return 128 + sig;
	}
	return EXIT_OK;
}

void cli_say(const char *text, void *arg)
{
	cli_msg("%s", text);
}
