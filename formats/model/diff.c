/*
 * diff.c - build a differential profile (see diff.h).
 *
 * Both inputs' stack trees are mapped node by node into the result's tree
 * (a parent always has a smaller id than its children, so one pass in id
 * order maps every node after its parent), then each input's samples are
 * summed per result stack and written as one two-valued sample per stack.
 */
#include "diff.h"
#include "chars.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

char *sf_diff_strip_hex(const char *s, size_t n, size_t *outlen)
{
	/* "0xH" (3 bytes) becomes "0x..." (5): at most 5/3 longer */
	char *r = sf_malloc(n / 3 * 5 + 6);
	size_t o = 0;

	if (!r)
		return NULL;
	for (size_t i = 0; i < n;) {
		if (s[i] == '0' && i + 2 < n && s[i + 1] == 'x' &&
		    sf_is_hex(s[i + 2])) {
			i += 2;
			while (i < n && sf_is_hex(s[i]))
				i++;
			memcpy(r + o, "0x...", 5);
			o += 5;
		} else {
			r[o++] = s[i++];
		}
	}
	r[o] = 0;
	*outlen = o;
	return r;
}

bool sf_diff_types(const struct sf_profile *p, uint32_t *base,
		   uint32_t *new_)
{
	const char *d = sf_profile_prop(p, "diff");
	bool hb = false, hn = false;

	if (!d || strcmp(d, "1"))
		return false;
	for (uint32_t t = 0; t < p->d.ntypes; t++) {
		if (!hb && !strcmp(p->d.types[t].type, "base")) {
			*base = t;
			hb = true;
		} else if (!hn && !strcmp(p->d.types[t].type, "new")) {
			*new_ = t;
			hn = true;
		}
	}
	return hb && hn;
}

/* Per result stack: its weight in base and new, and whether a sample of
 * either has it. */
struct acc {
	struct acc_stack {
		double w[2];
		bool used;
	} *s;
	size_t cap;
};

/* Room for the stacks [0, n); the new ones start at zero. */
static int acc_grow(struct acc *a, size_t n, struct sf_ctx *ctx)
{
	size_t old = a->cap;

	if (sf_grow(&a->s, &a->cap, n, sizeof(*a->s)))
		return sf_error_nomem(ctx);
	memset(a->s + old, 0, (a->cap - old) * sizeof(*a->s));
	return 0;
}

static uint32_t default_type(const struct sf_profile *p)
{
	if (!p->d.ntypes)
		return 0;
	return p->d.meta.default_type < p->d.ntypes ?
	       p->d.meta.default_type : (uint32_t)p->d.ntypes - 1;
}

/* Map input `in`'s frames and stacks into `r` and add its weights to
 * column `k` of the accumulator.  With `names_only` a frame is its name
 * alone, so stacks that print alike (one function from two modules) are
 * one stack, as in difffolded.pl's folded text. */
static int add_input(struct sf_profile *r, struct sf_ctx *ctx,
		     const struct sf_profile *in, int k, bool strip_hex,
		     bool names_only, struct acc *a, double *total)
{
	sf_frame_id *fmap = NULL;
	sf_stack_id *smap = NULL;
	int rc = 0;
	uint32_t t = default_type(in);

	*total = 0;
	fmap = sf_malloc((in->d.nframes ? in->d.nframes : 1) * sizeof(*fmap));
	smap = sf_malloc((in->d.nstacks ? in->d.nstacks : 1) * sizeof(*smap));
	if (!fmap || !smap) {
		rc = sf_error_nomem(ctx);
		goto out;
	}
	for (size_t i = 0; i < in->d.nframes; i++) {
		struct sf_frame f = in->d.frames[i];
		char *stripped = NULL;
		if (names_only) {
			sf_frame_init(&f);
			f.name = in->d.frames[i].name;
		}
		if (strip_hex) {
			size_t len;
			stripped = sf_diff_strip_hex(f.name, strlen(f.name),
						     &len);
			if (!stripped) {
				rc = sf_error_nomem(ctx);
				goto out;
			}
			f.name = stripped;
		}
		rc = sf_profile_frame(r, ctx, &f, &fmap[i]);
		free(stripped);
		if (rc)
			goto out;
	}
	smap[0] = SF_STACK_EMPTY;
	for (size_t i = 1; i < in->d.nstacks; i++) {
		const struct sf_stack_node *n = &in->d.stacks[i];
		if ((rc = sf_profile_stack_push(r, ctx, smap[n->parent],
						fmap[n->frame], &smap[i])))
			goto out;
	}
	if ((rc = acc_grow(a, r->d.nstacks, ctx)))
		goto out;
	for (size_t i = 0; i < in->d.nsamples; i++) {
		sf_stack_id s = smap[in->d.samples[i].stack];
		double w = in->d.ntypes ? sf_weight(in, i, t) : 1;
		a->s[s].w[k] += w;
		a->s[s].used = true;
		*total += w;
	}
out:
	free(fmap);
	free(smap);
	return rc;
}

int sf_diff_build(struct sf_profile **out, struct sf_ctx *ctx,
		  const struct sf_profile *base, const struct sf_profile *new_,
		  const struct sf_diff_options *opt)
{
	struct sf_diff_options none = { 0 };
	struct sf_profile *r = NULL;
	struct acc a = { 0 };
	const char *unit = "count";
	double tb, tn;
	uint32_t ib, in_;
	int rc;

	if (!opt)
		opt = &none;
	if (new_->d.ntypes)
		unit = new_->d.types[default_type(new_)].unit;
	if (base->d.ntypes && new_->d.ntypes) {
		const char *ub = base->d.types[default_type(base)].unit;
		if (strcmp(ub, unit))
			return sf_error(ctx, SF_EINPUT, NULL, 0,
					"cannot compare '%s' (base) with '%s' "
					"(new): the units differ", ub, unit);
	}
	if ((rc = sf_profile_new(&r, ctx)))
		return rc;
	sf_profile_set_aggregate(r, true);
	if ((rc = sf_profile_sample_type(r, ctx, "base", unit, &ib)) ||
	    (rc = sf_profile_sample_type(r, ctx, "new", unit, &in_)))
		goto fail;
	r->d.meta.default_type = in_;
	r->d.meta.source_format = new_->d.meta.source_format ?
		sf_profile_str(r, ctx, new_->d.meta.source_format) : NULL;
	if ((rc = sf_profile_set_prop(r, ctx, "diff", "1")))
		goto fail;
	/* difffolded.pl -n truncates each folded line's scaled count: the
	 * lines are the stacks' text, so stacks are folded by name first */
	if ((rc = add_input(r, ctx, base, 0, opt->strip_hex, opt->normalize,
			    &a, &tb)) ||
	    (rc = add_input(r, ctx, new_, 1, opt->strip_hex, opt->normalize,
			    &a, &tn)))
		goto fail;
	if (opt->normalize && tb != tn && tb > 0) {
		/* difffolded.pl: int($count * $total2 / $total1) */
		for (size_t s = 0; s < r->d.nstacks && s < a.cap; s++)
			a.s[s].w[0] = trunc(a.s[s].w[0] * tn / tb);
		if ((rc = sf_profile_set_prop(r, ctx, "diff.normalized",
					      "1")))
			goto fail;
	}
	for (size_t s = 0; s < r->d.nstacks && s < a.cap; s++) {
		if (!a.s[s].used)
			continue;
		double w[2];
		w[ib] = a.s[s].w[0];
		w[in_] = a.s[s].w[1];
		if ((rc = sf_profile_add_sample(r, ctx, (sf_stack_id)s,
						SF_NO_THREAD, 0, SF_NO_TIME,
						w)))
			goto fail;
	}
	free(a.s);
	*out = r;
	return 0;
fail:
	free(a.s);
	sf_profile_free(r);
	return rc;
}
