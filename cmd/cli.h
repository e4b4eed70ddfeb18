/*
 * cli.h - what the three programs share: reading inputs into one profile,
 * messages and exit codes (the options they share are in opt.h).  Only
 * cmd/ prints and exits.
 *
 * Exit codes (listed in every --help and man page):
 *   0 success, 1 bad input, 2 usage error, 3 I/O error (read, write,
 *   full disk, out of memory).
 */
#ifndef SF_CLI_H
#define SF_CLI_H

#include "format.h"
#include "filter.h"

#include <stdbool.h>

enum { EXIT_OK = 0, EXIT_INPUT = 1, EXIT_USAGE = 2, EXIT_IO = 3 };

extern const char *cli_prog;
extern int cli_quiet;
extern volatile int cli_interrupted;

/* "prog: msg" on stderr. */
void cli_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Print ctx->err as "prog: SOURCE:LINE: msg" and return the exit code for
 * it (0 after EPIPE, which ends quietly). */
int cli_fail(struct sf_ctx *ctx);
/* Print each counted warning once ("... (N times)"), unless quiet. */
void cli_warnings(struct sf_ctx *ctx);
/* When `outpath` is standard output (NULL or "-"), close it and check it
 * (after the last write to it): prints the error and returns EXIT_IO.
 * Otherwise, or when all is well, EXIT_OK. */
int cli_close_stdout(const char *outpath);
/* SIGINT/SIGTERM/SIGHUP remove a temporary output file and end the
 * program; SIGPIPE is ignored so a closed pipe shows up as EPIPE, and
 * SIGXFSZ so that passing `ulimit -f` is a write error (EFBIG). */
void cli_signals(void);

/* Aggregated loads fold only exact sums (sf_profile_set_fold_exact):
 * sfanalyze sets it, its analyses sum exactly. */
extern bool cli_fold_exact;
/* Read `inputs` (or stdin when n == 0) into *out, as format `from` or
 * detected when NULL; aggregate if asked. */
int cli_load(struct sf_ctx *ctx, const struct sf_format *from,
	     char **inputs, int n, bool aggregate, struct sf_profile **out);

/* --tag, --tag-ignore, --granularity: sfconv and sfanalyze select
 * samples the same way (sf_profile_select, formats/model/filter.h), so
 * both tables include these entries and hand their keys to
 * cli_select_option. */
enum { CLI_K_TAG = 0x4000, CLI_K_TAG_IGNORE, CLI_K_GRANULARITY };
#define CLI_OPTS_SELECT                                                    \
	{ "tag", CLI_K_TAG, "KEY=VALUE",                                   \
	  "keep samples whose label KEY is VALUE (a capture's\n"            \
	  "state, pprof labels; thread=NAME|TID: the thread);\n"            \
	  "repeatable: values of one key are alternatives,\n"               \
	  "different keys must all hold" },                                \
	{ "tag-ignore", CLI_K_TAG_IGNORE, "KEY=VALUE",                     \
	  "drop samples whose label KEY is VALUE (repeatable)" },          \
	{ "granularity", CLI_K_GRANULARITY, "functions|lines|addresses",   \
	  "a function is its name (the default), its name\n"               \
	  "and source line, or its name and address" }

struct cli_select {
	struct sf_select sel;     /* what sf_profile_select takes */
	struct sf_tag *keep, *drop;
};
/* Record option `key` (one of CLI_OPTS_SELECT's) with its argument
 * (split in place).  Returns 0, or an exit status after a message. */
int cli_select_option(struct cli_select *s, int key, char *val,
		      struct sf_ctx *ctx);
void cli_select_free(struct cli_select *s);

#endif
