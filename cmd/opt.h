/*
 * opt.h - one table of options per program.  getopt_long parses it and
 * --help is generated from it, so every option is declared once, with its
 * help next to it, and can never be listed twice or described differently
 * from what it does.
 *
 * A program declares `static const struct cli_opt opts[]`:
 *
 *     { "output", 'o', "FILE", "write to FILE ('-': standard output)" },
 *     { "inverted", K_INVERTED, NULL, "leaves at the bottom" },
 *     { "reverse", K_INVERTED, NULL, NULL },        alias of --inverted
 *     CLI_OPT_HEADING("Reports:"),
 *     CLI_OPT_END
 *
 * and loops over cli_getopt_next().  Besides its own table a program takes
 * the options every reading or writing program shares (the `sets` given to
 * cli_getopt_init): with CLI_READ `--from`/`-f`, the input limits
 * (`--max-depth` ...) and every format's read options; with CLI_WRITE every
 * format's write options.  Those are handled here (limits and format
 * options are stored in the context, --from in g->from) and never returned
 * to the program.
 *
 * A program option may not take the name of a format option in its sets
 * (the format would never see its value) unless its key is from
 * CLI_FORMAT_KEY up: then it is that option, declared once, with the program's help (sfanalyze
 * --sample-type weighs the analyses by a type and also tells the pprof
 * reader which type is the default).  A format option that several formats
 * declare (`--inferno` for perf and sample) is one option whose help joins
 * theirs.
 *
 * Positional arguments come back in order (key CLI_ARG), so a program can
 * tell where each stood relative to its options; `--` ends the options and
 * the rest are argv[g->optind ...].
 */
#ifndef SF_CLI_OPT_H
#define SF_CLI_OPT_H

#include "format.h"

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>

struct cli_opt {
	const char *name; /* long name without dashes */
	int key;          /* short letter, or a code from CLI_KEY up;
			   * an alias repeats its option's key */
	const char *arg;  /* NULL: a flag; else the argument's name in
			   * --help; a leading '[' makes it optional and then
			   * it is given only as --name=VALUE */
	const char *help; /* NULL: an alias of the earlier entry with the
			   * same key, shown on that entry's line; may hold
			   * '\n' to break lines */
};

#define CLI_KEY 256                 /* first key free for a program */
#define CLI_FORMAT_KEY 0x8000       /* keys from here: the program's option
				     * is also the format option of the
				     * same name; its value is stored in
				     * the context for the formats too */
#define CLI_OPT_HEADING(text) { NULL, 0, NULL, text }
#define CLI_OPT_END { NULL, 0, NULL, NULL }

enum { CLI_ARG = 1 };               /* key of a positional argument */
enum cli_opt_sets { CLI_READ = 1u << 0, CLI_WRITE = 1u << 1 };

struct cli_getopt {
	/* results the program reads */
	const struct sf_format *from; /* --from, or NULL */
	int optind;                   /* after -1: the first argument
				       * after `--` */
	bool dashdash;                /* after -1: the options ended at a
				       * `--` (not at the end of argv);
				       * calling again parses on from
				       * argv[optind] */
	/* private */
	const struct cli_opt *opts;
	unsigned sets;
	struct sf_ctx *ctx;
	struct option *longopts;
	char *shortopts;
	size_t nformat;               /* format options, after the program's */
	const struct sf_option **format;
};

/* Build the parser for `opts` plus the shared options in `sets`.  Returns
 * 0, or -1 after printing a message when the tables name an option twice
 * (a program's own option shadowing a format's, or a key from
 * CLI_FORMAT_KEY on an option no format declares) or memory runs out;
 * the program then exits with EXIT_USAGE. */
int cli_getopt_init(struct cli_getopt *g, const struct cli_opt *opts,
		    unsigned sets, struct sf_ctx *ctx);
/* The next option of the program's own table: returns its key and sets
 * *arg to its argument (NULL for a flag); CLI_ARG with *arg a positional
 * argument; -1 at the end; '?' after printing a usage error ("sfconv:
 * unknown option '--x' (see --help)", a bad limit, an unknown --from
 * format). */
int cli_getopt_next(struct cli_getopt *g, int argc, char **argv,
		    const char **arg);
/* The long name of the program's option `key` (its first entry), or
 * NULL: for a program that hands option values on by name. */
const char *cli_getopt_name(const struct cli_getopt *g, int key);
/* The option part of --help: the program's table, then the shared
 * options of its sets, each option once. */
void cli_getopt_help(const struct cli_getopt *g, FILE *f);
void cli_getopt_free(struct cli_getopt *g);

/* sfanalyze's option table, malloc'ed (NULL when memory runs out): a
 * "Reports:" heading, a row per report of analyze's table (keys
 * key_report + its index), the nmid entries of `mid`, each report's
 * options under "Report options:" (keys key_option + 0, 1, ... in table
 * order), then `rest` up to and with its CLI_OPT_END. */
struct cli_opt *cli_report_options(const struct cli_opt *mid, size_t nmid,
				   const struct cli_opt *rest, int key_report,
				   int key_option);

#endif
