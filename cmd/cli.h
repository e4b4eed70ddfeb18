/*
 * cli.h - what the three programs share: messages, exit codes and signals
 * (the options they share are in opt.h; loading and saving are the
 * library's, load.h and save.h).  Only cmd/ prints and exits.
 *
 * Exit codes (listed in every --help and man page):
 *   0 success, 1 bad input, 2 usage error, 3 I/O error (read, write,
 *   full disk, out of memory).
 */
#ifndef SF_CLI_H
#define SF_CLI_H

#include "format.h"
#include "save.h"
#include "filter.h"

#include <regex.h>
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
/* SIGINT/SIGTERM/SIGHUP call `handler` (a wait in progress returns EINTR)
 * and SIGPIPE is ignored: for a program that finishes its work when told
 * to stop (sfcapture writes what it sampled). */
void cli_signals_call(void (*handler)(int));

/* When `s` writes binary or compressed data to standard output and that
 * is a terminal, say so and return EXIT_USAGE; else EXIT_OK. */
int cli_refuse_terminal(const struct sf_save *s);

/* sfanalyze --html: the page of p weighed by sample type `type`, or with
 * p2 the page of their comparison (p2 weighed by new_type). */
int cli_write_html(struct sf_output *o, struct sf_profile *p,
		   struct sf_profile *p2, uint32_t type, uint32_t new_type,
		   struct sf_ctx *ctx);

/* --tag, --tag-ignore, --granularity: sfconv and sfanalyze select
 * samples the same way (sf_profile_select, formats/model/filter.h), so
 * both tables include these entries and hand their keys to
 * cli_select_option. */
enum {
	CLI_K_TAG = 0x4000, CLI_K_TAG_IGNORE, CLI_K_GRANULARITY,
	/* the transforms (sf_transform): every program */
	CLI_K_MERGE_FUNCTION, CLI_K_MERGE_LIBRARY, CLI_K_FOCUS_FUNCTION,
	/* sfconv's --ignore and --collapse-recursion (sfanalyze has its
	 * own, in its analyses' filter) */
	CLI_K_IGNORE, CLI_K_COLLAPSE_RECURSION
};
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
	  "and source line, or its name and address" },                    \
	{ "merge-function", CLI_K_MERGE_FUNCTION, "REGEX",                 \
	  "remove matching frames from every stack, their\n"               \
	  "time going to the caller (repeatable)" },                       \
	{ "merge-library", CLI_K_MERGE_LIBRARY, "REGEX",                   \
	  "remove the frames of modules matching REGEX the\n"              \
	  "same way (repeatable)" },                                       \
	{ "focus-function", CLI_K_FOCUS_FUNCTION, "REGEX",                 \
	  "keep samples with a matching frame, their stacks\n"             \
	  "starting at the outermost one (repeatable)" }
/* sfconv's: sfanalyze filters its analyses with its own options of
 * these names (docs/analyze.md) */
#define CLI_OPTS_XF_CONV                                                   \
	{ "ignore", CLI_K_IGNORE, "REGEX",                                 \
	  "drop samples with a frame matching REGEX\n"                     \
	  "(repeatable)" },                                                \
	{ "collapse-recursion", CLI_K_COLLAPSE_RECURSION, NULL,            \
	  "merge runs of one function (A;A;A -> A)" }

struct cli_select {
	struct sf_select sel;     /* what sf_profile_select takes */
	struct sf_tag *keep, *drop;
	regex_t *re[4];           /* drop, merge, library, focus */
	size_t nre[4];
	const char **texts;       /* the expressions as typed, in that
				   * order */
	size_t ntexts;
};
/* Record option `key` (one of CLI_OPTS_SELECT's) with its argument
 * (split in place).  Returns 0, or an exit status after a message. */
int cli_select_option(struct cli_select *s, int key, char *val,
		      struct sf_ctx *ctx);
void cli_select_free(struct cli_select *s);

/* Compile `re` (POSIX extended, no sub-matches) onto list[0..*n): 0,
 * EXIT_USAGE after a one-line message for a bad expression, EXIT_IO when
 * memory runs out.  cli_regex_free frees the list. */
int cli_regex_add(regex_t **list, size_t *n, const char *re);
void cli_regex_free(regex_t *list, size_t n);
/* Large allocations from the heap, kept when freed, for a program that
 * loads, then analyses, then exits: memory is held until exit. */
void cli_keep_heap(void);

/* Cap the address space at ctx->limits.max_memory (not under
 * AddressSanitizer, which reserves terabytes), so that an allocation past
 * it fails, and cli_fail's "out of memory" names --max-memory.  A lower
 * ulimit -v is kept and becomes ctx->limits.max_memory. */
void cli_memory_budget(struct sf_ctx *ctx);

/* sfcapture's Ctrl-Z: cli_tstp_catch() sets cli_tstp_flag on SIGTSTP
 * (without SA_RESTART, so a wait wakes up); the engine, once it has
 * released the target, calls cli_tstp_suspend(), which stops the program
 * for real and catches SIGTSTP again after SIGCONT. */
extern volatile int cli_tstp_flag;
void cli_tstp_catch(void);
void cli_tstp_suspend(void *arg);

/* How a command we started ended (wait status st), said in one message
 * unless quiet, and its exit status as a shell gives it (128+N for signal
 * N).  `ended`: we ended it (it outlived the capture), which is not the
 * command's failure: 0. */
int cli_child_status(const char *cmd, int st, bool ended);

/* A line of text as our message (a callback's form of cli_msg). */
void cli_say(const char *text, void *arg);

#endif
