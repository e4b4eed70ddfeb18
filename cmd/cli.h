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

#endif
