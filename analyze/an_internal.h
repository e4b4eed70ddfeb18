/* an_internal.h - shared between the files of analyze/. */
#ifndef SF_AN_INTERNAL_H
#define SF_AN_INTERNAL_H

#include "analyze.h"

#include <stdint.h>
#include <string.h>

/* Per view function: self weight and total (each sample once, however
 * often the function recurses), into arrays of v->nfuncs; *noframes gets
 * the weight of empty stacks. */
int sf_an__func_totals(const struct sf_an_view *v, sf_an_w *self,
		       sf_an_w *total, sf_an_w *noframes, struct sf_ctx *ctx);

/* n entries of `size` bytes for a stage after loading: from the pages ctx
 * keeps (sf_big_take) where it keeps that many, faulted in already, where
 * fresh ones would be cleared by the kernel; their bytes are not zeroes,
 * so every entry must be written before it is read.  *bytes is then
 * their size; else they are malloc'ed and *bytes is 0.  Free them with
 * sf_big_free(p, *bytes), or keep them again with sf_big_keep.  NULL when
 * out of memory. */
void *sf_an__big_array(size_t n, size_t size, size_t *bytes,
		       struct sf_ctx *ctx);

/* qsort_r comparator of function ids (uint32_t) by name in the view
 * `v` (a const struct sf_an_view *). */
int sf_an__cmp_name(const void *a, const void *b, void *v);

/* sf_an_cg_build, with `slow` forcing the bucket sums for the caller and
 * callee times (the fallback of the 128-bit sums over a common
 * denominator); for the tests, which check that both give the same
 * bytes.  sf_an__cg_slow: whether g's times came from the bucket sums. */
struct sf_an_cg;
int sf_an__cg_build(struct sf_an_cg **out, const struct sf_an_view *v,
		    bool slow, struct sf_ctx *ctx);
bool sf_an__cg_slow(const struct sf_an_cg *g);
/* sf_an__cg_build in its two halves, for the report, which drops the
 * view's stacks between them: the walk (docs/analyze.md, call graph 3:
 * the edges, their times, the nodes' sums) reads v; the rest (the
 * adjacency, the order, the sorts) reads only *g and what v keeps after
 * sf_an_view_drop_stacks.  Either frees the graph when it fails. */
int sf_an__cg_walk(struct sf_an_cg **out, const struct sf_an_view *v,
		   bool slow, struct sf_ctx *ctx);
int sf_an__cg_finish(struct sf_an_cg *g, struct sf_ctx *ctx);

/* Text output shared by the tree, diff-tree and call-graph reports. */
/* Write the decimal digits of u ending at `end` (at most 20 bytes before
 * it); returns where they begin.  Two at a time from a table: half the
 * divisions of one at a time, on the call graph's millions of lines. */
static inline char *sf_an__put_digits(char *end, uint64_t u)
{
	static const char d2[201] =
		"00010203040506070809101112131415161718192021222324"
		"25262728293031323334353637383940414243444546474849"
		"50515253545556575859606162636465666768697071727374"
		"75767778798081828384858687888990919293949596979899";

	while (u >= 100) {
		uint64_t r = u % 100;
		u /= 100;
		end -= 2;
		memcpy(end, d2 + 2 * r, 2);
	}
	if (u >= 10) {
		end -= 2;
		memcpy(end, d2 + 2 * u, 2);
	} else {
		*--end = (char)('0' + u);
	}
	return end;
}
/* part as a percentage of whole; 0 when whole is 0 (an empty profile). */
static inline double sf_an__pct(double part, double whole)
{
	return whole != 0 ? 100.0 * part / whole : 0.0;
}
/* A name on one text line: control characters become spaces. */
void sf_an__put_name(struct sf_output *o, const char *s);
/* The tree prefix for levels 1..d (pre holds the drawn prefix, plen[k]
 * its length at level k).  Beyond SF_AN_MAX_INDENT levels only the last
 * ones are drawn, after "[+N]", so a deep stack costs O(depth) bytes per
 * line, not O(depth^2) in all. */
#define SF_AN_MAX_INDENT 48
void sf_an__put_prefix(struct sf_output *o, const char *pre,
		       const size_t *plen, size_t d);
/* JSON members "type", "unit", "samples" of view v (no braces, no
 * leading comma): what a report's numbers are. */
void sf_an__put_json_kind(struct sf_output *o, const struct sf_an_view *v);
/* The same for a comparison: "type", "unit", "samples" of the NEW view
 * `cur` (the side a raw delta is in), then "base_type", "base_unit",
 * "base_samples" of `base`. */
void sf_an__put_json_diff_kind(struct sf_output *o,
			       const struct sf_an_view *base,
			       const struct sf_an_view *cur);

#endif
