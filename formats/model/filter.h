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

#include <regex.h>

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

/*
 * Transforms of the stacks, the Firefox Profiler's and the HTML report's
 * (which applies the same ones in the page), each given as POSIX regular
 * expressions (compiled by the caller, REG_NOSUB) matched unanchored
 * against frame names (library: module paths).  Applied to each stack
 * from its root (outermost caller) to its leaf, in this order per frame:
 *   drop      --ignore: a sample with a matching frame is dropped
 *   merge     --merge-function: a matching frame is removed from the
 *             stack; its time goes to its caller
 *   library   --merge-library: every frame whose module matches is
 *             removed the same way
 *   focus     --focus-function: only samples with a matching frame are
 *             kept, and their stacks start at the outermost one (the
 *             frames above it are removed)
 *   recursion --collapse-recursion: a frame called by a frame of the
 *             same name is merged into it (A;A;A -> A), after the steps
 *             above (so A;B;A with B merged is A)
 * The profile is rebuilt (sf_profile_merge's tables, in the same order,
 * with the new stacks; samples that become equal fold together when the
 * profile aggregates); nadded counts the samples kept.
 */
struct sf_transform {
	const regex_t *drop, *merge, *library, *focus;
	size_t ndrop, nmerge, nlibrary, nfocus;
	bool collapse_recursion;
};

/* Any transform to apply? */
bool sf_transform_any(const struct sf_transform *t);

/* Apply `t` to p in place.  A regular expression that matches no frame
 * adds the warning "--OPTION 'RE' matches no frame" (with `texts`, the
 * expressions as typed, in drop, merge, library, focus order; NULL: no
 * warnings).  0 or a negative sf_code with ctx->err set. */
int sf_profile_transform(struct sf_profile *p, const struct sf_transform *t,
			 const char *const *texts, struct sf_ctx *ctx);

/* What sfconv and sfanalyze both apply to a loaded profile, from their
 * --tag, --tag-ignore, --granularity options and the transforms. */
struct sf_select {
	const struct sf_tag *keep;
	size_t nkeep;
	const struct sf_tag *drop;
	size_t ndrop;
	int granularity;   /* enum sf_granularity */
	struct sf_transform xf;
	const char *const *xf_texts;   /* see sf_profile_transform */
};

/* sf_profile_filter_tags, then sf_profile_granularity, then
 * sf_profile_transform.  A selector that matches no sample adds the
 * warning "--tag 'KEY=VALUE' matches no sample" (or --tag-ignore) to
 * ctx: the program says so, and goes on with what is left. */
int sf_profile_select(struct sf_profile *p, const struct sf_select *s,
		      struct sf_ctx *ctx);

#ifdef __cplusplus
}
#endif
#endif
