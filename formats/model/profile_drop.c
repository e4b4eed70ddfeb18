/* profile_drop.c - a profile's stack tree and samples given up early, by
 * a caller that has read them into something of its own (sfanalyze's
 * view) and keeps the profile only for its strings; and the two arrays
 * sf_profile_trim_keep gives up the same way. */
#include "profile_int.h"

#include <stdlib.h>

void sf_profile__keep_kin(struct sf_profile *p, struct sf_ctx *ctx)
{
	struct sf_profile_internal *in = p->in;

	sf_big_keep_used(ctx, in->kin, in->cap_kin * sizeof(*in->kin),
			 p->d.nstacks * sizeof(*in->kin));
	in->kin = NULL;
	in->cap_kin = 0;
	in->stacks_trimmed = true;
}

void sf_profile__keep_agg(struct sf_profile *p, struct sf_ctx *ctx)
{
	struct sf_profile_internal *in = p->in;

	sf_big_keep_used(ctx, in->agg_stack,
			 in->cap_agg_stack * sizeof(*in->agg_stack),
			 p->d.nstacks * sizeof(*in->agg_stack));
	in->agg_stack = NULL;
	in->cap_agg_stack = 0;
}

void sf_profile_drop_stacks(struct sf_profile *p, struct sf_ctx *ctx)
{
	if (!p)
		return;
	struct sf_profile_internal *in = p->in;

	/* the large arrays are mappings whose pages are faulted in: kept
	 * in ctx, so that the next stage's large buffer takes them instead
	 * of fresh pages, which the kernel would zero: their written parts
	 * (the rooms were reserved for more), joined by sf_big_keep; on
	 * the timeline of docs/PERFORMANCE.md about 100 MB.  The child
	 * lists are there unless sf_profile_trim gave them back. */
	sf_profile__keep_kin(p, ctx);
	sf_big_keep_used(ctx, p->d.stacks,
			 in->cap_stacks * sizeof(*p->d.stacks),
			 p->d.nstacks * sizeof(*p->d.stacks));
	sf_profile__keep_agg(p, ctx);
	p->d.stacks = NULL;
	p->d.nstacks = in->cap_stacks = 0;
	in->max_depth = 0;
	sf_idx_free(&in->stacks);
	sf_idx_free(&in->agg);
	free(in->last_frames);
	free(in->last_nodes);
	in->last_frames = NULL;
	in->last_nodes = NULL;
	in->last_n = in->cap_last = 0;
	/* the samples' arrays are mappings of their own (samples.c), kept
	 * the same way: 16 MB more on that timeline, the rest of the room
	 * the call graph's edges need */
	sf_profile__samples_keep(p, ctx);
	p->d.nsamples = 0;
}
