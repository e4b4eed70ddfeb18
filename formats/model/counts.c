/* counts.c - see counts.h. */
#include "counts.h"

#include <math.h>
#include <string.h>

/* The default type; the last one when it is unset; 0 without types. */
uint32_t sf_records_default_type(const struct sf_profile *p)
{
	return p->d.meta.default_type < p->d.ntypes ?
	       p->d.meta.default_type :
	       (uint32_t)(p->d.ntypes ? p->d.ntypes - 1 : 0);
}

bool sf_records_count(const struct sf_profile *p,
		      const char *const *counted, struct sf_records *out)
{
	uint32_t dflt = sf_records_default_type(p);

	*out = (struct sf_records){ dflt, 1, false };
	for (size_t i = 0; i < p->d.ntypes; i++) {
		if (strcmp(p->d.types[i].unit, "count"))
			continue;
		for (size_t k = 0; counted[k]; k++)
			if (!strcmp(p->d.types[i].type, counted[k])) {
				out->type = (uint32_t)i;
				return true;
			}
	}
	if (p->d.ntypes && p->d.meta.period > 0 &&
	    p->d.meta.period_type.unit &&
	    !strcmp(p->d.meta.period_type.unit, p->d.types[dflt].unit)) {
		out->div = p->d.meta.period;
		return true;
	}
	return false;
}

double sf_records_of(const struct sf_profile *p, const struct sf_records *r,
		     size_t i)
{
	if (r->per_sample)
		return (double)sf_sample_count(p, i);
	return p->d.ntypes ? sf_weight(p, i, r->type) / r->div : 1;
}

int sf_records_whole(const struct sf_profile *p, struct sf_ctx *ctx,
		     const struct sf_records *r, size_t i, double max,
		     const char *what, uint64_t *out, bool *rounded)
{
	double x = sf_records_of(p, r, i);

	if (!(x >= 0) || x > max)
		return sf_error(ctx, SF_ELIMIT, NULL, 0,
				"sample %zu: weight %g cannot be written as "
				"%s", i, x, what);
	double rx = nearbyint(x);
	*rounded |= rx != x;
	*out = (uint64_t)rx;
	return 0;
}

int sf_weights_nonneg(const struct sf_profile *p, struct sf_ctx *ctx,
		      uint32_t type, const char *what)
{
	unsigned long long n = 0;
	bool folded = false;

	if (type >= p->d.ntypes)
		return 0;
	for (size_t i = 0; i < p->d.nsamples; i++) {
		double w = sf_weight(p, i, type);
		uint64_t c = sf_sample_count(p, i);
		/* while no sample so far stands for more than one, sample i
		 * is raw sample i + 1; after a negative weight exact folding
		 * folds nothing (profile.h), so the counts before i say
		 * which it was.  Otherwise a later raw sample may have folded
		 * into an earlier one, and the count says nothing of where
		 * this one was read. */
		folded |= c > 1;
		n += c;
		if (w >= 0 && !isinf(w))
			continue;
		if (!folded || (p->d.fold_exact && c == 1))
			return sf_error(ctx, SF_ELIMIT, NULL, 0,
					"sample %llu: weight %g cannot be "
					"written as %s (json and pprof keep "
					"negative weights)", n, w, what);
		sf_stack_id s = p->d.samples[i].stack;
		return sf_error(ctx, SF_ELIMIT, NULL, 0,
				"%s%s: weight %g (%llu sample%s summed) cannot "
				"be written as %s (json and pprof keep "
				"negative weights)",
				s ? "the stack ending in " : "the empty stack",
				s ? p->d.frames[p->d.stacks[s].frame].name : "",
				w, (unsigned long long)c, c == 1 ? "" : "s",
				what);
	}
	return 0;
}
