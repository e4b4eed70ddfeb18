/* t_fold.c - fold counts and exact folding in the model (profile.h),
 * also after sf_profile_trim_keep gave the samples' index up (and after
 * a stack room reserved then): expected counts and sums worked out by
 * hand in the comments. */
#include "unit.h"
#include "profile.h"

#include <math.h>
#include <stdlib.h>

static struct sf_profile *mk(struct sf_ctx *ctx, bool agg, bool exact,
			     sf_stack_id *a, sf_stack_id *b,
			     sf_thread_idx *t1, sf_thread_idx *t2)
{
	struct sf_profile *p;
	sf_frame_id f, g;
	uint32_t ty;

	if (sf_profile_new(&p, ctx))
		return NULL;
	sf_profile_set_aggregate(p, agg);
	sf_profile_set_fold_exact(p, exact);
	sf_profile_sample_type(p, ctx, "samples", "count", &ty);
	sf_profile_frame_named(p, ctx, "f", 1, NULL, &f);
	sf_profile_frame_named(p, ctx, "g", 1, NULL, &g);
	sf_profile_stack_push(p, ctx, SF_STACK_EMPTY, f, a);
	sf_profile_stack_push(p, ctx, *a, g, b);
	sf_profile_thread(p, ctx, SF_NO_ID, 1, NULL, t1);
	sf_profile_thread(p, ctx, SF_NO_ID, 2, NULL, t2);
	return p;
}

static int add(struct sf_profile *p, struct sf_ctx *ctx, sf_stack_id s,
	       sf_thread_idx t, double w, uint32_t *hint)
{
	if (hint)
		return sf_profile_add_sample_hint(p, ctx, s, t, 0, SF_NO_TIME,
						  &w, hint);
	return sf_profile_add_sample(p, ctx, s, t, 0, SF_NO_TIME, &w);
}

/* Is address a in a mapping of this process? */
static bool mapped(const void *a)
{
	FILE *f = fopen("/proc/self/maps", "re");
	unsigned long lo, hi, x = (unsigned long)(uintptr_t)a;
	char line[512];
	bool in = false;

	while (f && !in && fgets(line, sizeof(line), f))
		in = sscanf(line, "%lx-%lx", &lo, &hi) == 2 && lo <= x &&
		     x < hi;
	if (f)
		fclose(f);
	return in;
}

static uint64_t count_sum(const struct sf_profile *p)
{
	uint64_t n = 0;

	for (size_t i = 0; i < p->d.nsamples; i++)
		n += sf_sample_count(p, i);
	return n;
}

int main(void)
{
	struct sf_ctx ctx;
	sf_stack_id a, b;
	sf_thread_idx t1, t2;
	struct sf_profile *p;
	const double big = 9007199254740992.0;   /* 2^53 */

	sf_ctx_init(&ctx);

	/* unfolded: every sample is its own, count 1, no counts array */
	p = mk(&ctx, false, false, &a, &b, &t1, &t2);
	for (int i = 0; i < 5; i++)
		add(p, &ctx, a, t1, 1, NULL);
	CHECK("unfolded-nsamples", p->d.nsamples == 5);
	CHECK("unfolded-count-1", !p->d.counts && sf_sample_count(p, 4) == 1);
	CHECK("unfolded-nadded", p->d.nadded == 5);
	sf_profile_free(p);

	/* aggregated: 1000 samples over 3 keys (a/t1, b/t1, b/no thread)
	 * -> 3 samples; i % 3 picks the key, so 334 + 333 + 333 */
	p = mk(&ctx, true, true, &a, &b, &t1, &t2);
	for (int i = 0; i < 1000; i++) {
		if (i % 3 == 0)
			add(p, &ctx, a, t1, 2, NULL);
		else if (i % 3 == 1)
			add(p, &ctx, b, t1, 1, NULL);
		else
			add(p, &ctx, b, SF_NO_THREAD, 0.5, NULL);
	}
	CHECK("folded-nsamples", p->d.nsamples == 3);
	CHECK("folded-counts", sf_sample_count(p, 0) == 334 &&
				       sf_sample_count(p, 1) == 333 &&
				       sf_sample_count(p, 2) == 333);
	CHECK("folded-weights", sf_weight(p, 0, 0) == 668 &&
					sf_weight(p, 1, 0) == 333 &&
					sf_weight(p, 2, 0) == 166.5);
	CHECK("folded-nadded", p->d.nadded == 1000 && count_sum(p) == 1000);
	sf_profile_free(p);

	/* exact folding, hashed key (a thread): 2^53 + 1 is not a double,
	 * so the 1 becomes a second sample of the key; the next 1 folds
	 * into that newest sample (1 + 1 = 2 is exact) */
	p = mk(&ctx, true, true, &a, &b, &t1, &t2);
	add(p, &ctx, a, t1, big, NULL);
	add(p, &ctx, a, t1, 1, NULL);
	add(p, &ctx, a, t1, 1, NULL);
	CHECK("exact-hash-nsamples", p->d.nsamples == 2);
	CHECK("exact-hash-weights", sf_weight(p, 0, 0) == big &&
					    sf_weight(p, 1, 0) == 2);
	CHECK("exact-hash-counts", sf_sample_count(p, 0) == 1 &&
					   sf_sample_count(p, 1) == 2);
	sf_profile_free(p);

	/* the same on the by-stack path (no thread, no labels) */
	p = mk(&ctx, true, true, &a, &b, &t1, &t2);
	add(p, &ctx, b, SF_NO_THREAD, big, NULL);
	add(p, &ctx, b, SF_NO_THREAD, 1, NULL);
	add(p, &ctx, b, SF_NO_THREAD, 1, NULL);
	CHECK("exact-stack-nsamples", p->d.nsamples == 2);
	CHECK("exact-stack-weights", sf_weight(p, 0, 0) == big &&
					     sf_weight(p, 1, 0) == 2);
	sf_profile_free(p);

	/* 0.1 + 0.2 is not exact in double: two samples; without exact
	 * folding they fold (to the rounded 0.30000000000000004) */
	p = mk(&ctx, true, true, &a, &b, &t1, &t2);
	add(p, &ctx, a, t2, 0.1, NULL);
	add(p, &ctx, a, t2, 0.2, NULL);
	CHECK("exact-fraction-kept", p->d.nsamples == 2);
	sf_profile_free(p);
	p = mk(&ctx, true, false, &a, &b, &t1, &t2);
	add(p, &ctx, a, t2, 0.1, NULL);
	add(p, &ctx, a, t2, 0.2, NULL);
	add(p, &ctx, a, t2, big, NULL);
	add(p, &ctx, a, t2, 1, NULL);
	CHECK("inexact-folds", p->d.nsamples == 1 &&
				       sf_sample_count(p, 0) == 4);
	sf_profile_free(p);

	/* a negative weight stops exact folding for good: 3 samples of one
	 * key, then 2 more of it stay separate (5 samples) */
	p = mk(&ctx, true, true, &a, &b, &t1, &t2);
	add(p, &ctx, a, t1, 1, NULL);
	add(p, &ctx, a, t1, 1, NULL);
	add(p, &ctx, a, t1, -1, NULL);
	add(p, &ctx, a, t1, 1, NULL);
	add(p, &ctx, a, t1, 1, NULL);
	CHECK("negative-stops-folding", p->d.nsamples == 4 &&
						sf_sample_count(p, 0) == 2 &&
						count_sum(p) == 5);
	sf_profile_free(p);

	/* hints: the same samples as with sf_profile_add_sample; a stale
	 * or foreign hint is checked, not trusted */
	p = mk(&ctx, true, true, &a, &b, &t1, &t2);
	{
		/* s0 = a/t1, s1 = b/t2; then 1 + 2^53 is inexact, so s2 is
		 * a second a/t1 sample, and the old hint 0 must lead to s2 */
		uint32_t ha = UINT32_MAX, hb = UINT32_MAX, stale = 0;
		add(p, &ctx, a, t1, 1, &ha);     /* s0 = 1 */
		add(p, &ctx, b, t2, 1, &hb);     /* s1 = 1 */
		add(p, &ctx, b, t2, 1, &hb);     /* s1 = 2 */
		add(p, &ctx, b, t2, 1, &ha);     /* a's hint for b: s1 = 3 */
		add(p, &ctx, a, t1, big, &hb);   /* b's hint for a: s2 */
		add(p, &ctx, a, t1, 2, &stale);  /* s2 = 2^53 + 2 */
		CHECK("hint-nsamples", p->d.nsamples == 3);
		CHECK("hint-weights", sf_weight(p, 0, 0) == 1 &&
					      sf_weight(p, 1, 0) == 3 &&
					      sf_weight(p, 2, 0) == big + 2);
		CHECK("hint-counts", sf_sample_count(p, 0) == 1 &&
					     sf_sample_count(p, 1) == 3 &&
					     sf_sample_count(p, 2) == 2);
		CHECK("hint-updated", ha == 1 && hb == 2 && stale == 2);
	}
	sf_profile_free(p);

	/* the samples' index by stack given up to the context when loading
	 * ends (sf_profile_trim_keep) and rebuilt by the next sample: the
	 * samples after it fold as if it had stayed.  b/t1 = 1 (s0), b/t2 =
	 * 1 (s1, hashed: b's first key is t1's), a/t1 = 2^53 (s2), then
	 * 1 + 2^53 is inexact: s3 = a/t1 1.  After the trim: b/t1 + 4 ->
	 * s0 = 5, b/t2 + 2 -> s1 = 3, a/t1 + 1 -> s3 = 2 (the newest of
	 * the key), a/t2 -> s4 = 7 */
	p = mk(&ctx, true, true, &a, &b, &t1, &t2);
	add(p, &ctx, b, t1, 1, NULL);
	add(p, &ctx, b, t2, 1, NULL);
	add(p, &ctx, a, t1, big, NULL);
	add(p, &ctx, a, t1, 1, NULL);
	sf_profile_trim_keep(p, &ctx);
	add(p, &ctx, b, t1, 4, NULL);
	add(p, &ctx, b, t2, 2, NULL);
	add(p, &ctx, a, t1, 1, NULL);
	add(p, &ctx, a, t2, 7, NULL);
	CHECK("trimmed-refold-nsamples", p->d.nsamples == 5);
	CHECK("trimmed-refold-weights", sf_weight(p, 0, 0) == 5 &&
						sf_weight(p, 1, 0) == 3 &&
						sf_weight(p, 2, 0) == big &&
						sf_weight(p, 3, 0) == 2 &&
						sf_weight(p, 4, 0) == 7);
	CHECK("trimmed-refold-counts", sf_sample_count(p, 0) == 2 &&
					       sf_sample_count(p, 3) == 2 &&
					       count_sum(p) == 8);
	sf_big_drop(&ctx);
	sf_profile_free(p);

	/* after the trim, a stack pushed and a room reserved for more (as
	 * a reader reading on would): the room reserves no samples' index,
	 * which the next sample's rebuilt one would replace and leave
	 * mapped after the profile is freed; the samples fold as if no trim
	 * had been.  a/t1 = 1 (s0); trim; c under b; a/t1 + 2 -> s0 = 3,
	 * c/t1 -> s1 = 1 */
	p = mk(&ctx, true, true, &a, &b, &t1, &t2);
	add(p, &ctx, a, t1, 1, NULL);
	sf_profile_trim_keep(p, &ctx);
	sf_big_drop(&ctx);
	{
		sf_frame_id h;
		sf_stack_id c = 0;
		struct sf_stack_room rm;
		bool ok = !sf_profile_frame_named(p, &ctx, "h", 1, NULL, &h) &&
			  !sf_profile_stack_push(p, &ctx, b, h, &c);
		/* -1 under AddressSanitizer: no room, the arrays grow */
		void *room = sf_profile_stack_room(p, 1 << 20, &rm) ? NULL :
			     rm.mem[2];
		add(p, &ctx, a, t1, 2, NULL);
		add(p, &ctx, c, t1, 1, NULL);
		CHECK("trimmed-room-refold", ok && p->d.nsamples == 2 &&
		      sf_weight(p, 0, 0) == 3 && sf_weight(p, 1, 0) == 1 &&
		      sf_sample_count(p, 0) == 2 && count_sum(p) == 3);
		sf_profile_free(p);
		CHECK("trimmed-room-freed", !room || !mapped(room));
	}

	/* unfolded with a hint: appends */
	p = mk(&ctx, false, false, &a, &b, &t1, &t2);
	{
		uint32_t h = UINT32_MAX;
		add(p, &ctx, a, t1, 1, &h);
		add(p, &ctx, a, t1, 1, &h);
		CHECK("hint-unfolded", p->d.nsamples == 2);
	}
	sf_profile_free(p);

	sf_ctx_free(&ctx);
	return unit_failed;
}
