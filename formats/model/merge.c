/* merge.c - merging one profile into another (the model's tables are
 * interned again in the source's order, so merging the parts of one
 * input in order gives the ids reading it whole gives). */
#include "profile_int.h"

#include <stdlib.h>
#include <string.h>

/* ----- merging ----- */

bool sf_profile_sums_exact(const struct sf_profile *p, double *total)
{
	*total = p->in->weights_total;
	return !p->in->weights_inexact;
}

static int merge_str(struct sf_profile *dst, struct sf_ctx *ctx,
		     const char *s, const char **out)
{
	*out = NULL;
	if (s && !(*out = sf_profile_str(dst, ctx, s)))
		return ctx->err.code;
	return 0;
}

static int merge_meta(struct sf_profile *dst, const struct sf_profile *src,
		      struct sf_ctx *ctx)
{
	const struct sf_meta *m = &src->d.meta;
	struct sf_meta *d = &dst->d.meta;
	int rc;

	for (size_t i = 0; i < m->nprops; i++)
		if ((rc = sf_profile_set_prop(dst, ctx, m->props[i].key,
					      m->props[i].value)))
			return rc;
	if (!d->period_type.type && m->period_type.type &&
	    ((rc = merge_str(dst, ctx, m->period_type.type,
			     &d->period_type.type)) ||
	     (rc = merge_str(dst, ctx, m->period_type.unit,
			     &d->period_type.unit))))
		return rc;
	if (!d->period)
		d->period = m->period;
	if (d->start_time == SF_NO_TIME)
		d->start_time = m->start_time;
	if (d->duration == SF_NO_TIME)
		d->duration = m->duration;
	return 0;
}

/* Room in dst's stack and sample arrays for all of src's, exactly: the
 * arrays doubled one by one would reach twice what a merge of a large
 * part needs (the parallel read merges parts of half a file). */
static int merge_reserve(struct sf_profile *dst, const struct sf_profile *src)
{
	struct sf_profile_internal *in = dst->in;
	size_t ns = dst->d.nstacks + src->d.nstacks;
	size_t nn = dst->d.nsamples + src->d.nsamples, nt = dst->d.ntypes;

	if (in->cap_stacks < ns &&
	    sf_profile__nodes_resize(&dst->d.stacks, &in->cap_stacks, ns,
				     sizeof(*dst->d.stacks)))
		return -1;
	if (in->kin && in->cap_kin < ns &&
	    sf_profile__nodes_resize(&in->kin, &in->cap_kin, ns,
				     sizeof(*in->kin)))
		return -1;
	if (nt && src->d.nsamples && in->cap_samples < nn &&
	    sf_profile__samples_resize(dst, nn))
		return -1;
	return 0;
}

int sf_profile_merge(struct sf_profile *dst, const struct sf_profile *src,
		     struct sf_ctx *ctx)
{
	return sf_profile__merge_placed(dst, src, ctx, NULL, NULL, 0);
}

#define PLACE_DEAD INT64_MIN

int sf_profile__merge_placed(struct sf_profile *dst,
			     const struct sf_profile *src, struct sf_ctx *ctx,
			     sf_place_fn place, void *arg, int64_t root)
{
	const struct sf_profile_data *s = &src->d;
	uint32_t *tmap = NULL, *fmap = NULL, *smap = NULL, *thmap = NULL;
	uint32_t *lmap = NULL;
	int64_t *state = NULL;
	double *w = NULL;
	bool had_types = dst->d.ntypes > 0;
	int rc = 0;

	if (!(tmap = sf_calloc(s->ntypes + 1, sizeof(*tmap))) ||
	    !(fmap = sf_calloc(s->nframes + 1, sizeof(*fmap))) ||
	    !(smap = sf_calloc(s->nstacks, sizeof(*smap))) ||
	    !(thmap = sf_calloc(s->nthreads + 1, sizeof(*thmap))) ||
	    !(lmap = sf_calloc(s->nlabel_sets, sizeof(*lmap))) ||
	    (place && !(state = sf_calloc(s->nstacks, sizeof(*state))))) {
		rc = sf_error_nomem(ctx);
		goto out;
	}
	/* each table in src's order: what src made first comes first, so
	 * merging the parts of one input in order gives the ids reading it
	 * whole gives */
	for (size_t i = 0; i < s->ntypes; i++)
		if ((rc = sf_profile_sample_type(dst, ctx, s->types[i].type,
						 s->types[i].unit, &tmap[i])))
			goto out;
	if (!had_types && s->ntypes)
		dst->d.meta.default_type = tmap[s->meta.default_type <
						s->ntypes ?
						s->meta.default_type : 0];
	if (merge_reserve(dst, src)) {
		rc = sf_error_nomem(ctx);
		goto out;
	}
	for (size_t i = 0; i < s->nframes; i++)
		if ((rc = sf_profile_frame(dst, ctx, &s->frames[i], &fmap[i])))
			goto out;
	for (size_t i = 1; i < s->nstacks && !place; i++)
		if ((rc = sf_profile_stack_push(dst, ctx,
						smap[s->stacks[i].parent],
						fmap[s->stacks[i].frame],
						&smap[i])))
			goto out;
	if (place)
		state[0] = root;
	for (size_t i = 1; i < s->nstacks && place; i++) {
		int64_t ps = state[s->stacks[i].parent], st = ps;
		sf_stack_id id;
		if (ps == PLACE_DEAD) {
			state[i] = PLACE_DEAD;
			continue;
		}
		enum sf_place how = place(arg, src, (sf_stack_id)i, dst, &st);
		switch (how) {
		case SF_PLACE_KEEP:
		case SF_PLACE_ROOT:
			if ((rc = sf_profile_stack_push(dst, ctx,
					how == SF_PLACE_KEEP && ps > 0 ?
					(sf_stack_id)ps : SF_STACK_EMPTY,
					fmap[s->stacks[i].frame], &id)))
				goto out;
			state[i] = id;
			break;
		case SF_PLACE_SKIP:
			state[i] = ps;
			break;
		case SF_PLACE_DROP:
			state[i] = PLACE_DEAD;
			break;
		case SF_PLACE_WAIT:
			state[i] = st < 0 && st != PLACE_DEAD ? st : -1;
			break;
		}
	}
	for (size_t i = 0; i < s->nthreads; i++) {
		/* a rebuilt profile keeps each thread's input */
		if (place)
			sf_profile_begin_input(dst, s->threads[i].input);
		if ((rc = sf_profile_thread(dst, ctx, s->threads[i].pid,
					    s->threads[i].tid,
					    s->threads[i].name, &thmap[i])))
			goto out;
	}
	if (place)
		sf_profile_begin_input(dst, s->input);
	for (size_t i = 1; i < s->nlabel_sets; i++)
		if ((rc = sf_profile_labels(dst, ctx, s->label_sets[i].labels,
					    s->label_sets[i].n, &lmap[i])))
			goto out;
	if ((rc = merge_meta(dst, src, ctx)))
		goto out;
	if (s->nsamples && !(w = sf_calloc(dst->d.ntypes, sizeof(*w)))) {
		rc = sf_error_nomem(ctx);
		goto out;
	}
	for (size_t i = 0; i < s->nsamples; i++) {
		const struct sf_sample *x = &s->samples[i];
		size_t nt = dst->d.ntypes;
		memset(w, 0, nt * sizeof(*w));
		for (size_t t = 0; t < s->ntypes; t++)
			w[tmap[t]] = sf_weight(src, i, (uint32_t)t);
		sf_thread_idx th = x->thread == SF_NO_THREAD ?
					   SF_NO_THREAD : thmap[x->thread];
		if (place && state[x->stack] < 0)
			continue;
		sf_stack_id to = place ? (sf_stack_id)state[x->stack] :
					 smap[x->stack];
		if ((rc = sf_profile__add_sample(dst, ctx, to, th,
						 lmap[x->labels], x->time, w,
						 NULL,
						 sf_sample_count(src, i))))
			goto out;
	}
	/* the folded sums added above count into dst's total already */
	dst->in->weights_inexact |= src->in->weights_inexact;
	dst->d.has_time |= s->has_time;
out:
	free(tmap);
	free(fmap);
	free(smap);
	free(thmap);
	free(lmap);
	free(state);
	free(w);
	return rc;
}

int sf_profile_merge_into_empty(struct sf_profile *dst,
				struct sf_profile *src, struct sf_ctx *ctx)
{
	const struct sf_profile_data *d = &dst->d;
	const struct sf_meta *m = &d->meta;

	if (d->nframes || d->nstacks != 1 || d->nthreads || d->nsamples ||
	    d->nlabel_sets != 1 || d->has_time || m->nprops ||
	    m->period_type.type || m->period || m->start_time != SF_NO_TIME ||
	    m->duration != SF_NO_TIME || d->ntypes > src->d.ntypes ||
	    (d->ntypes && m->default_type != src->d.meta.default_type) ||
	    d->aggregated != src->d.aggregated ||
	    d->fold_exact != src->d.fold_exact || d->input != src->d.input)
		return 1;
	for (size_t i = 0; i < d->ntypes; i++)
		if (strcmp(d->types[i].type, src->d.types[i].type) ||
		    strcmp(d->types[i].unit, src->d.types[i].unit))
			return 1;
	/* merging into dst would intern src's tables in src's order, so
	 * every id would be src's: swap, and keep dst's source format */
	struct sf_profile old = *dst;
	const char *fmt = m->source_format;
	*dst = *src;
	*src = old;
	dst->d.meta.source_format = fmt ? sf_profile_str(dst, ctx, fmt) : NULL;
	sf_profile_free(src);   /* frees the shell: src came from the heap */
	return fmt && !dst->d.meta.source_format ? ctx->err.code : 0;
}
