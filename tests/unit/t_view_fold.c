/* t_view_fold.c - the view folds samples on (thread, node): a thread's
 * samples that end at one view node become one, never two threads'
 * (analyze/view.c); expected samples worked out by hand below. */
#include "unit.h"
#include "analyze.h"

#include <stdlib.h>

/* Not aggregated, so the profile keeps all six samples (weight):
 *   1: tid 1, f      (1)
 *   2: tid 2, f      (2)
 *   3: tid 1, f;g    (4)
 *   4: tid 1, f      (8)
 *   5: tid 2, f      (16)
 *   6: tid 1, f;f    (32)
 * The view takes tid 1's samples first (thread ids 1 and 2, in order),
 * each thread's in input order. */
static struct sf_profile *mk(struct sf_ctx *ctx)
{
	struct sf_profile *p;
	sf_frame_id ff, fg;
	sf_stack_id sf, sfg, sff;
	sf_thread_idx t1, t2;
	uint32_t ty;
	struct sf_frame fr;

	if (sf_profile_new(&p, ctx))
		return NULL;
	sf_profile_sample_type(p, ctx, "samples", "count", &ty);
	sf_frame_init(&fr);
	fr.name = "f";
	sf_profile_frame(p, ctx, &fr, &ff);
	fr.name = "g";
	sf_profile_frame(p, ctx, &fr, &fg);
	sf_profile_stack_push(p, ctx, SF_STACK_EMPTY, ff, &sf);
	sf_profile_stack_push(p, ctx, sf, fg, &sfg);
	sf_profile_stack_push(p, ctx, sf, ff, &sff);
	sf_profile_thread(p, ctx, 7, 1, "main", &t1);
	sf_profile_thread(p, ctx, 7, 2, "worker", &t2);
	double w[] = { 1, 2, 4, 8, 16, 32 };
	sf_profile_add_sample(p, ctx, sf, t1, 0, SF_NO_TIME, &w[0]);
	sf_profile_add_sample(p, ctx, sf, t2, 0, SF_NO_TIME, &w[1]);
	sf_profile_add_sample(p, ctx, sfg, t1, 0, SF_NO_TIME, &w[2]);
	sf_profile_add_sample(p, ctx, sf, t1, 0, SF_NO_TIME, &w[3]);
	sf_profile_add_sample(p, ctx, sf, t2, 0, SF_NO_TIME, &w[4]);
	sf_profile_add_sample(p, ctx, sff, t1, 0, SF_NO_TIME, &w[5]);
	return p;
}

static bool is(const struct sf_an_view *v, size_t i, uint32_t node,
	       uint32_t thread, sf_an_w w)
{
	return i < v->nsamples && v->samples[i].node == node &&
	       v->samples[i].thread == thread && v->samples[i].w == w;
}

int main(void)
{
	struct sf_ctx ctx;
	struct sf_profile *p;
	struct sf_an_view *v = NULL;
	struct sf_an_filter f = { 0 };

	sf_ctx_init(&ctx);
	p = mk(&ctx);
	CHECK("view-fold-profile", p && p->d.nsamples == 6);

	/* nodes 1 f, 2 f;g, 3 f;f (made in that order).  tid 1: f 1 + 8,
	 * f;g 4, f;f 32; tid 2: f 2 + 16, apart from tid 1's f */
	CHECK("view-fold-build", !sf_an_view_build(&v, p, &f, NULL, &ctx));
	CHECK("view-fold-nodes", v && v->nnodes == 4 &&
				 v->nodes[2].parent == 1 &&
				 v->nodes[3].parent == 1);
	CHECK("view-fold-samples", v && v->nsamples == 4 &&
				   is(v, 0, 1, 0, 9) && is(v, 1, 2, 0, 4) &&
				   is(v, 2, 3, 0, 32) && is(v, 3, 1, 1, 18));
	sf_an_view_free(v);
	v = NULL;

	/* --collapse-recursion: f;f is node 1 too, so tid 1's f is
	 * 1 + 8 + 32 */
	f.collapse_recursion = true;
	CHECK("view-fold-collapse-build",
	      !sf_an_view_build(&v, p, &f, NULL, &ctx));
	CHECK("view-fold-collapse-samples",
	      v && v->nnodes == 3 && v->nsamples == 3 && is(v, 0, 1, 0, 41) &&
	      is(v, 1, 2, 0, 4) && is(v, 2, 1, 1, 18));
	sf_an_view_free(v);
	sf_profile_free(p);
	sf_ctx_free(&ctx);
	return unit_failed;
}
