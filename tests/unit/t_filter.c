/* t_filter.c - --tag / --tag-ignore and --granularity on the model
 * (formats/model/filter.c); expected samples worked out by hand below. */
#include "unit.h"
#include "filter.h"

#include <stdlib.h>

/* Samples (weight = their number, so the kept set reads off the sum):
 *   1: thread main-1, state=running
 *   2: thread main-1, state=sleeping
 *   3: thread worker-2, state=running
 *   4: thread worker-2, no labels
 *   5: thread worker-2, state=running   (folds into 3: count 2, weight 8)
 * aggregated, so sample 5 folds into 3. */
static struct sf_profile *mk(struct sf_ctx *ctx)
{
	struct sf_profile *p;
	sf_frame_id f;
	sf_stack_id s;
	sf_thread_idx tm, tw;
	sf_labels_id run, sleep;
	uint32_t ty;
	struct sf_label lr = { "state", "running" };
	struct sf_label ls = { "state", "sleeping" };
	struct sf_frame fr;

	if (sf_profile_new(&p, ctx))
		return NULL;
	sf_profile_set_aggregate(p, true);
	sf_profile_sample_type(p, ctx, "samples", "count", &ty);
	sf_frame_init(&fr);
	fr.name = "f";
	fr.file = "f.c";
	fr.line = 12;
	fr.address = 0x1a2b;
	sf_profile_frame(p, ctx, &fr, &f);
	sf_profile_stack_push(p, ctx, SF_STACK_EMPTY, f, &s);
	sf_profile_thread(p, ctx, 7, 1, "main", &tm);
	sf_profile_thread(p, ctx, 7, 2, "worker", &tw);
	sf_profile_labels(p, ctx, &lr, 1, &run);
	sf_profile_labels(p, ctx, &ls, 1, &sleep);
	double w[] = { 1, 2, 3, 4, 5 };
	sf_profile_add_sample(p, ctx, s, tm, run, SF_NO_TIME, &w[0]);
	sf_profile_add_sample(p, ctx, s, tm, sleep, SF_NO_TIME, &w[1]);
	sf_profile_add_sample(p, ctx, s, tw, run, SF_NO_TIME, &w[2]);
	sf_profile_add_sample(p, ctx, s, tw, 0, SF_NO_TIME, &w[3]);
	sf_profile_add_sample(p, ctx, s, tw, run, SF_NO_TIME, &w[4]);
	return p;
}

static double wsum(const struct sf_profile *p)
{
	double t = 0;

	for (size_t i = 0; i < p->d.nsamples; i++)
		t += sf_weight(p, i, 0);
	return t;
}

int main(void)
{
	struct sf_ctx ctx;
	struct sf_profile *p;
	uint64_t m[4];
	char a1[] = "state=running", a2[] = "thread=worker", a3[] = "nokey";
	char a4[] = "=x", a5[] = "thread=main-1", a6[] = "thread=2";
	struct sf_tag t[3];

	sf_ctx_init(&ctx);
	CHECK("tag-parse", !sf_tag_parse(&t[0], a1, "--tag", &ctx) &&
			   !strcmp(t[0].key, "state") &&
			   !strcmp(t[0].value, "running"));
	CHECK("tag-parse-no-eq",
	      sf_tag_parse(&t[1], a3, "--tag", &ctx) == SF_EUSAGE &&
	      strstr(ctx.err.msg, "KEY=VALUE"));
	sf_ctx_free(&ctx);
	sf_ctx_init(&ctx);
	CHECK("tag-parse-empty-key",
	      sf_tag_parse(&t[1], a4, "--tag", &ctx) == SF_EUSAGE);
	sf_ctx_free(&ctx);
	sf_ctx_init(&ctx);

	/* state=running: samples 1, 3, 5 -> 1 + 3 + 5 = 9, input count 3 */
	p = mk(&ctx);
	CHECK("tag-keep", !sf_profile_filter_tags(p, t, 1, NULL, 0, m, &ctx) &&
			  wsum(p) == 9 && p->d.nadded == 3 && m[0] == 3);
	sf_profile_free(p);

	/* state=running and thread=worker: 3, 5 -> 8 (count 2, one
	 * folded sample) */
	sf_tag_parse(&t[1], a2, "--tag", &ctx);
	p = mk(&ctx);
	CHECK("tag-keep-and", !sf_profile_filter_tags(p, t, 2, NULL, 0, m,
						      &ctx) &&
			      wsum(p) == 8 && p->d.nsamples == 1 &&
			      p->d.nadded == 2 && m[0] == 3 && m[1] == 3);
	sf_profile_free(p);

	/* --tag-ignore state=running: 2, 4 -> 6 */
	p = mk(&ctx);
	CHECK("tag-ignore", !sf_profile_filter_tags(p, NULL, 0, t, 1, m,
						    &ctx) &&
			    wsum(p) == 6 && m[0] == 3);
	sf_profile_free(p);

	/* thread by name-tid and by tid are alternatives of one key:
	 * thread=main-1 or thread=2 -> everything, 15 */
	sf_tag_parse(&t[0], a5, "--tag", &ctx);
	sf_tag_parse(&t[1], a6, "--tag", &ctx);
	p = mk(&ctx);
	CHECK("tag-thread-or", !sf_profile_filter_tags(p, t, 2, NULL, 0, m,
						       &ctx) &&
			       wsum(p) == 15 && m[0] == 2 && m[1] == 3);
	sf_profile_free(p);

	/* a selector that matches nothing: count 0, nothing kept */
	char a7[] = "state=disk-wait";
	sf_tag_parse(&t[0], a7, "--tag", &ctx);
	p = mk(&ctx);
	CHECK("tag-no-match", !sf_profile_filter_tags(p, t, 1, NULL, 0, m,
						      &ctx) &&
			      p->d.nsamples == 0 && m[0] == 0);
	sf_profile_free(p);

	/* granularity */
	size_t n;
	p = mk(&ctx);
	CHECK("gran-lines", !sf_profile_granularity(p, SF_GRAN_LINES, &n,
						    &ctx) && n == 1 &&
			    !strcmp(p->d.frames[0].name, "f f.c:12"));
	sf_profile_free(p);
	p = mk(&ctx);
	CHECK("gran-addresses", !sf_profile_granularity(p, SF_GRAN_ADDRESSES,
							&n, &ctx) &&
				!strcmp(p->d.frames[0].name, "f 0x1a2b"));
	p->d.frames[0].line = 0;
	p->d.frames[0].file = NULL;
	CHECK("gran-no-lines",
	      sf_profile_granularity(p, SF_GRAN_LINES, &n, &ctx) ==
			      SF_EUSAGE &&
	      strstr(ctx.err.msg, "no line numbers"));
	sf_profile_free(p);
	CHECK("gran-parse", sf_granularity_parse("lines") == SF_GRAN_LINES &&
			    sf_granularity_parse("bogus") == -1);
	sf_ctx_free(&ctx);
	return unit_failed;
}
