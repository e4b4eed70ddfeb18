/*
 * diff.h - a differential profile from two profiles (BASE and NEW), the
 * model behind FlameGraph's difffolded.pl and differential flame graphs.
 *
 * The result is a new aggregated profile with
 *   - two sample types: ("base", UNIT) and ("new", UNIT), index 0 and 1,
 *     where UNIT is the unit of NEW's default sample type; the default
 *     type is "new";
 *   - every frame of both inputs re-interned (all fields kept), stacks
 *     rebuilt in the result's own prefix tree;
 *   - one sample per distinct stack, no threads, no labels, no time:
 *     threads and labels of the inputs are merged away;
 *   - meta prop "diff" = "1" (writers use it to draw a differential
 *     graph), and "diff.normalized" = "1" when `normalize` scaled BASE.
 *
 * Each input contributes the weights of its own default sample type.
 * The units must agree (comparing bytes with samples makes no sense):
 * otherwise SF_EINPUT.
 *
 * Options, as difffolded.pl:
 *   normalize  scale every BASE weight by total(NEW) / total(BASE) and
 *              truncate it to an integer ("-n"; the truncation is
 *              difffolded.pl's and inferno's: int(w * new / base), per
 *              folded line, so frames are taken by name alone: stacks
 *              that print alike are one);
 *   strip_hex  replace every "0x" followed by hex digits in frame names by
 *              "0x..." ("-s"), so addresses that move between runs do not
 *              split stacks.
 *
 * Ownership: *out is a new profile for the caller to sf_profile_free();
 * `base` and `new_` are only read.  Errors: SF_ENOMEM, SF_EINPUT, SF_ELIMIT
 * (stack depth), with ctx->err set.
 */
#ifndef SF_DIFF_H
#define SF_DIFF_H

#include "profile.h"

#ifdef __cplusplus
extern "C" {
#endif

struct sf_diff_options {
	bool normalize;
	bool strip_hex;
};

int sf_diff_build(struct sf_profile **out, struct sf_ctx *ctx,
		  const struct sf_profile *base, const struct sf_profile *new_,
		  const struct sf_diff_options *opt);

/* The indices of the "base" and "new" sample types of a differential
 * profile (prop "diff" set and both types present).  Returns false for
 * any other profile. */
bool sf_diff_types(const struct sf_profile *p, uint32_t *base,
		   uint32_t *new_);

/* Rewrite "0x[0-9a-fA-F]+" runs as "0x..." from `s` (length n) into a
 * malloc'ed string; NULL on allocation failure.  *outlen gets its
 * length. */
char *sf_diff_strip_hex(const char *s, size_t n, size_t *outlen);

#ifdef __cplusplus
}
#endif
#endif
