/*
 * filter.h - transforms of a loaded profile that every program applies
 * the same way: keep or drop samples by label (--tag, --tag-ignore), and
 * the granularity of frames (--granularity).
 *
 * Both work in place on a profile whose loading is over: no sample or
 * frame may be added afterwards (the fold and frame indexes are not
 * updated).  Both return 0 or a negative sf_code with ctx->err set.
 */
#ifndef SF_FILTER_H
#define SF_FILTER_H

#include "profile.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One selector KEY=VALUE.  A sample matches it when its label KEY has
 * exactly the value VALUE (pprof labels, a capture's "state", Sampler
 * record words).  The key "thread" also matches the sample's thread by
 * name, by "name-tid" label or by tid (as --thread selects threads), so
 * thread=worker works on every input that names threads. */
struct sf_tag {
	const char *key, *value;
};

/* Split "KEY=VALUE" at the first '=' (s is modified); SF_EUSAGE with a
 * message naming `opt` when there is no '=' or the key is empty. */
int sf_tag_parse(struct sf_tag *out, char *s, const char *opt,
		 struct sf_ctx *ctx);

#define SF_TAG_MAX 64   /* selectors in one filter, keep and drop */

/* Keep the samples that match, for every key named by `keep`, one of that
 * key's selectors (values of one key are alternatives, keys must all
 * hold: state=running thread=main is both), and match none of `drop`.
 * No keep selectors: every sample passes that step.  Samples are removed
 * from p->d.samples (weights and fold counts with them, order kept) and
 * p->d.nadded becomes the number of input samples kept.  `matched`, if not
 * NULL, gets nkeep + ndrop counts: how many input samples (fold counts
 * included) each selector matched before filtering, so a caller can say
 * which selector matched nothing. */
int sf_profile_filter_tags(struct sf_profile *p, const struct sf_tag *keep,
			   size_t nkeep, const struct sf_tag *drop,
			   size_t ndrop, uint64_t *matched,
			   struct sf_ctx *ctx);

enum sf_granularity {
	SF_GRAN_FUNCTIONS,   /* frames are functions (names): no change */
	SF_GRAN_LINES,       /* "name file:line" */
	SF_GRAN_ADDRESSES,   /* "name 0xaddr" */
};

/* Parse "functions", "lines" or "addresses"; -1 if none. */
int sf_granularity_parse(const char *s);

/* Rename every frame that has the detail `g` asks for (a source
 * position, an address) so that frames differing in it are different
 * functions for the analyses and writers that go by name, labelled as
 * pprof -lines and -addresses label them: "name file:line" (the file as
 * recorded; "name file" when the line is unknown, "name :line" when the
 * file is) or "name 0x1a2b".  Frames without the detail keep their name.
 * SF_EUSAGE when no frame of the profile has it ("the input has no line
 * numbers").  *renamed (may be NULL) gets the number of frames
 * renamed. */
int sf_profile_granularity(struct sf_profile *p, enum sf_granularity g,
			   size_t *renamed, struct sf_ctx *ctx);

/* What sfconv and sfanalyze both apply to a loaded profile, from their
 * --tag, --tag-ignore and --granularity options. */
struct sf_select {
	const struct sf_tag *keep;
	size_t nkeep;
	const struct sf_tag *drop;
	size_t ndrop;
	int granularity;   /* enum sf_granularity */
};

/* sf_profile_filter_tags, then sf_profile_granularity.  A selector that
 * matches no sample adds the warning "--tag 'KEY=VALUE' matches no
 * sample" (or --tag-ignore) to ctx: the program says so, and goes on
 * with what is left. */
int sf_profile_select(struct sf_profile *p, const struct sf_select *s,
		      struct sf_ctx *ctx);

#ifdef __cplusplus
}
#endif
#endif
