/*
 * format.h - one table of formats.
 *
 * Each format lives in formats/fmt_<name>.c (a format of several files in
 * a sub-folder of its own, formats/DIR/fmt_<name>.c) and defines one
 *
 *     const struct sf_format sf_format_<name> = { ... };
 *
 * The build collects every such definition into the table (see the
 * Makefile rule for build/table.gen.h), so adding a format is adding a
 * file.  A format may read, write or both.
 *
 * Choosing a format (sf_format_detect): `--from NAME`, else the content
 * probe with the highest score, else the file extension.  Probes look at the
 * first bytes of the decompressed input (at most SF_PROBE_BYTES) and return
 * a confidence 0..100: 100 for a magic line ("@supersamplerV1.0"), ~50 for a
 * strong structural match, ~10 for "could be".  Output: `--to NAME`, else
 * the extension of `-o`.
 *
 * Options: a format lists the command-line options it understands; the
 * programs accept the union of all formats' options and store them in the
 * context (sf_ctx_opt).  Names are long-option names without dashes.
 */
#ifndef SF_FORMAT_H
#define SF_FORMAT_H

#include "profile.h"
#include "io.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SF_PROBE_BYTES 65536

struct sf_option {
	const char *name;     /* "pid", "thread-prefix", "sample-type" */
	const char *arg;      /* NULL for a flag, else the argument's name */
	const char *help;     /* NULL: another spelling of the nearest
			       * earlier entry of the same list that has a
			       * help; its value is stored under that
			       * entry's name */
};

/* The entry `o` stands for: itself, or for an alias (help NULL) the
 * nearest earlier entry with a help. */
static inline const struct sf_option *sf_option_canonical(
	const struct sf_option *o)
{
	while (!o->help)
		o--;
	return o;
}

/* What a writer can hold, so the program can say what a conversion drops. */
enum sf_caps {
	SF_CAP_THREADS = 1u << 0,
	SF_CAP_TIME = 1u << 1,      /* timestamps / sample order */
	SF_CAP_WEIGHTS = 1u << 2,   /* non-unit weights */
	SF_CAP_TYPES = 1u << 3,     /* several sample types */
	SF_CAP_INLINE = 1u << 4,
	SF_CAP_LOCATIONS = 1u << 5, /* module, file, line, address */
	SF_CAP_LABELS = 1u << 6,
	SF_CAP_ORDER = 1u << 7,     /* keeps samples in order (timeline) */
	SF_CAP_DIFF = 1u << 8,      /* draws a comparison's base and new
				     * sample types (sf_diff_types) */
};

struct sf_format {
	const char *name;         /* --from/--to word */
	const char *description;  /* one line for --list-formats */
	const char *const *extensions; /* NULL-terminated, with the dot; a
					* trailing '*' matches a prefix
					* ("callgrind.out.*") */
	/* Confidence 0..100 that `data` starts an input of this format. */
	int (*probe)(const unsigned char *data, size_t size);
	/* Read all of `in` into `p` (which may already hold samples from
	 * earlier inputs: merge). */
	int (*read)(struct sf_profile *p, struct sf_input *in,
		    struct sf_ctx *ctx);
	/* Write `p` to `out`. */
	int (*write)(const struct sf_profile *p, struct sf_output *out,
		     struct sf_ctx *ctx);
	unsigned caps;            /* enum sf_caps of the writer */
	bool binary;              /* output is binary: refuse a terminal */
	bool needs_order;         /* writer needs samples in order (so the
				   * reader must not aggregate).  A writer
				   * without it folds samples into stacks
				   * with weights: it is given no sample
				   * whose weights are all zero
				   * (sf_load_options.drop_zero); one with it
				   * writes each sample, zero ones too */
	const char *order_option; /* NULL, or a write option (a flag) under
				   * which the writer needs samples in order
				   * too (svg's "flamechart": samples in
				   * time order); ask sf_save_needs_order */
	bool takes_kept;          /* the writer takes the buffer the context
				   * keeps (sf_big_take: the stack tree's
				   * child lists, sf_profile_trim_keep) and
				   * frees what it leaves (sf_big_drop);
				   * sf_save frees it before any other
				   * writer, which would hold it unused */
	int priority;             /* detection tie-break: higher first */
	const struct sf_option *read_options;  /* {NULL}-terminated or NULL */
	const struct sf_option *write_options;
	/* For a reader whose records are independent (a text format where
	 * a line or a blank-line-separated block is one sample): the offset
	 * of the first record that starts at or after `pos` in data[0..size)
	 * (size if none).  With it, sf_read may cut a large file there and
	 * read the parts on several threads (see sf_read_parallel).  NULL:
	 * always read as one stream. */
	size_t (*split)(const char *data, size_t size, size_t pos);
};

/* The table, sorted by name; terminated by NULL. */
const struct sf_format *const *sf_formats(void);
const struct sf_format *sf_format_by_name(const char *name);
/* By the extension of `path` (longest match wins); NULL if none. */
const struct sf_format *sf_format_by_path(const char *path, bool for_write);

/* Choose the input format of `in`: by content, else by `path`'s
 * extension.  SF_EINPUT with a message naming the input if neither works. */
int sf_format_detect(const struct sf_format **out, struct sf_input *in,
		     struct sf_ctx *ctx, const char *path);

/*
 * Reading on several threads.  When `fmt` has a split function, the input
 * is a regular uncompressed file (sf_input_map) of at least
 * SF_SPLIT_MIN bytes and more than one job is allowed, the file is cut
 * into chunks at record starts (16 per job, none under SF_SPLIT_MIN / 8),
 * each job's thread reads a run of them by fmt->read into its own
 * profile, and the parts are merged into `p` in input order
 * (sf_profile_merge), so the model is the one reading the whole file
 * gives.  A thread that is done takes the upper half of the chunks
 * another part has not reached, as a part of its own, when that part's
 * reader asks at its chunks' ends (sf_read_part_stop, base/sf.h), so a thread
 * on a busier core reads less; a reader that does not ask keeps its run.  `p` is not touched until every part is read,
 * and the driver reads the whole input serially instead (returning 1)
 * when it cannot promise the serial read's result: a part failed or
 * warned (the reader may have judged a line by state an earlier part
 * sets, and messages hold line numbers), parts set a property
 * differently (perf's first event type), or some weight or sum is not an
 * exact integer (folding in another order could round differently).  So
 * an error is the serial read's, with its absolute line.
 *
 * Jobs: sf_jobs(ctx) (base/sf.h).  The variable SF_SPLIT_MIN overrides
 * the minimum size (tests use 0 to cut tiny inputs).  Returns 1 when it
 * did not read the input into `p` (the caller reads it serially), else 0
 * or a negative code.
 */
#define SF_SPLIT_MIN ((size_t)8 << 20)
int sf_read_parallel(struct sf_profile *p, const struct sf_format *fmt,
		     struct sf_input *in, struct sf_ctx *ctx);

#ifdef __cplusplus
}
#endif
#endif
