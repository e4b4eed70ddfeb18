/* records.c - see records.h. */
#include "records.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Readers whose weights are the user's numbers, not counted samples. */
static bool uncounted_source(const struct sf_profile *p)
{
	static const char *const src[] = { "collapsed", "lines",
					   "difffolded", NULL };
	const char *s = p->d.meta.source_format;

	for (int i = 0; s && src[i]; i++)
		if (!strcmp(s, src[i]))
			return true;
	return false;
}

/* The default type; the last one when it is unset; 0 without types. */
static uint32_t default_type(const struct sf_profile *p)
{
	return p->d.meta.default_type < p->d.ntypes ?
	       p->d.meta.default_type :
	       (uint32_t)(p->d.ntypes ? p->d.ntypes - 1 : 0);
}

bool sf_records_count(const struct sf_profile *p,
		      const char *const *counted, struct sf_records *out)
{
	uint32_t dflt = default_type(p);

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

int sf_records_plan(const struct sf_profile *p, struct sf_ctx *ctx,
		    const char *what, struct sf_records *out)
{
	static const char *const samples[] = { "samples", NULL };
	const char *per = sf_ctx_opt(ctx, "period");

	if (per) {
		char *end;
		double v = strtod(per, &end);
		if (*end || end == per || !(v > 0) || v > 1e300)
			return sf_error(ctx, SF_EUSAGE, NULL, 0, "--period "
					"expects a positive number, not '%s'",
					per);
		*out = (struct sf_records){ default_type(p), v, false };
		return 0;
	}
	if (!p->d.ntypes) {
		*out = (struct sf_records){ 0, 1, false };
		return 0;
	}
	if (!uncounted_source(p)) {
		/* a sample the input counted is one record */
		if (!sf_records_count(p, samples, out))
			out->per_sample = true;
		return 0;
	}
	return sf_error(ctx, SF_EUSAGE, NULL, 0,
			"the weights of this %s input are not sample counts, "
			"so they cannot be written as %s: give --period N to "
			"write one record per N units of weight",
			p->d.meta.source_format ? p->d.meta.source_format :
			"profile", what);
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
