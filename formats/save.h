/*
 * save.h - the save stage: from a profile to a file.
 *
 * Two steps, because a program needs the writer before it reads: whether
 * the writer keeps sample order decides whether the load may fold samples
 * (sf_load_options.aggregate = !sf_save_needs_order(...)), and a wrong
 * --to must fail before a long read.
 *
 *   sf_save_pick  chooses the writer: `to` by name, else the extension of
 *                 `path` (a trailing ".gz" also compresses), else, for a
 *                 path that is a device or a FIFO (/dev/null), collapsed,
 *                 else `fallback` when there is no path or it is "-".
 *   sf_save       writes: a named output goes to a temporary file in the
 *                 same directory, renamed into place when complete and
 *                 removed on any error (io.h, sf_output_commit), so an
 *                 error never leaves a partial file or clobbers an old
 *                 one; "-" or NULL is standard output.
 *
 * What a writer drops: sf_save_losses compares what the profile holds
 * (threads, timestamps, non-unit weights, several sample types, inline
 * marks, locations, labels) with the writer's caps and returns what would
 * be lost as a set of enum sf_caps; sf_save_losses_text words it for a
 * note.  The library says nothing itself: the program decides whether and
 * how to tell the user.
 *
 * Errors: 0 or a negative sf_code with ctx->err set: SF_EUSAGE for an
 * unknown or read-only --to format or a path whose format cannot be told;
 * from sf_save the writer's error, or SF_EIO/SF_EPIPE from the output
 * (with the output's name as the source when the writer named none).
 */
#ifndef SF_SAVE_H
#define SF_SAVE_H

#include "format.h"

#ifdef __cplusplus
extern "C" {
#endif

struct sf_save {
	const struct sf_format *format; /* the writer */
	const char *path;   /* NULL or "-": standard output.  Not copied: it
			     * must live as long as the struct; a program
			     * may set it after sf_save_pick (sfcapture names
			     * its default file once it knows the pid) */
	bool gzip;          /* compress the output */
};

/* Choose the writer for `path` (see the top of this file) into *out.
 * `to`: a format name, or NULL; `fallback`: the format name when neither
 * `to` nor `path` gives one (must name a writer); `gzip`: compress even
 * without ".gz". */
int sf_save_pick(struct sf_save *out, struct sf_ctx *ctx, const char *path,
		 const char *to, const char *fallback, bool gzip);

/* Does the writer need the samples in order (so the load must not fold
 * them)?  Its needs_order, or its order_option among the options given
 * (svg with --flamechart). */
bool sf_save_needs_order(const struct sf_save *s, const struct sf_ctx *ctx);

/* Write `p` with s->format to s->path and commit it; on error nothing is
 * left at s->path (an existing file there is kept as it was). */
int sf_save(const struct sf_save *s, const struct sf_profile *p,
	    struct sf_ctx *ctx);

/* What writing `p` with `to` would drop: a set of enum sf_caps, 0 for
 * nothing.  A comparison's two sample types (sf_diff_types) are what a
 * writer with SF_CAP_DIFF draws: nothing is dropped then. */
unsigned sf_save_losses(const struct sf_format *to,
			const struct sf_profile *p);

/* Words for `lost` ("threads, timestamps, weights") into buf, NUL-
 * terminated and truncated to `size`; returns the length it needed. */
size_t sf_save_losses_text(char *buf, size_t size, unsigned lost);

#ifdef __cplusplus
}
#endif
#endif
