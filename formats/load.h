/*
 * load.h - the load stage: from input files to one profile.
 *
 * sf_load opens each input (a file, or standard input for "-" or no input
 * at all), chooses its format (the one given, else by content, else by the
 * file name's extension: sf_format_detect), reads it, and merges every
 * input into one new profile.  It is what sfconv and sfanalyze do before
 * anything else; sf_load_inputs is the same over inputs already open (a
 * memory buffer, as the fuzz targets read).
 *
 * What the context brings: the input limits (ctx->limits) and the format
 * options (sf_ctx_set_opt) apply to every input; warnings of every input
 * accumulate in ctx.
 *
 * Merging: input number i (0, 1, ...) is read after
 * sf_profile_begin_input(p, i), so the threads of different inputs stay
 * apart even when their ids are equal.  Inputs are opened one at a time
 * and each is closed before the next is opened.
 *
 * Errors: the first failure ends the load and returns its negative
 * sf_code; ctx->err names the input (its path, "-" for standard input)
 * unless the reader already named a position in it.  Nothing is returned
 * and nothing leaks: *out is set only on success.
 */
#ifndef SF_LOAD_H
#define SF_LOAD_H

#include "format.h"

#ifdef __cplusplus
extern "C" {
#endif

struct sf_select;

struct sf_load_options {
	const struct sf_format *from; /* every input's format; NULL: detect
				       * each input's */
	bool aggregate;   /* fold equal samples as they are read
			   * (sf_profile_set_aggregate): when the writer or
			   * the analysis needs no sample order */
	bool fold_exact;  /* with aggregate: fold only exact weight sums
			   * (sf_profile_set_fold_exact) */
	bool drop_zero;   /* leave out samples whose weights are all zero
			   * (sf_profile_set_drop_zero): for a writer that
			   * folds samples (!needs_order) and for reports */
	const struct sf_select *select; /* NULL, or the samples to keep
					 * and frames to relabel once all
					 * inputs are read (filter.h) */
};

/* Read the files paths[0..n) into a new profile *out, which the caller
 * frees with sf_profile_free.  "-" is standard input; n == 0 reads
 * standard input.  `opt` NULL: detect each format, no folding. */
int sf_load(struct sf_profile **out, struct sf_ctx *ctx,
	    char *const *paths, size_t n, const struct sf_load_options *opt);

/* The same over inputs the caller opened (sf_input_open, sf_input_mem)
 * and still owns: they are read in order, not closed.  An input's name
 * (sf_input_name) stands for its path in detection and messages. */
int sf_load_inputs(struct sf_profile **out, struct sf_ctx *ctx,
		   struct sf_input *const *inputs, size_t n,
		   const struct sf_load_options *opt);

#ifdef __cplusplus
}
#endif
/* Read one input into `p`, with `fmt` or detection when NULL; in parts
 * on several threads when the format can split (sf_read_parallel). */
int sf_read(struct sf_profile *p, const struct sf_format *fmt,
	    struct sf_input *in, struct sf_ctx *ctx);

#endif
