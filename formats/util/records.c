/* records.c - see records.h. */
#include "records.h"

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

int sf_records_plan(const struct sf_profile *p, struct sf_ctx *ctx,
		    const char *what, struct sf_records *out)
{
	uint32_t *type = &out->type;
	double *div = &out->div;

	const char *per = sf_ctx_opt(ctx, "period");
	uint32_t dflt = p->d.meta.default_type < p->d.ntypes ?
			p->d.meta.default_type :
			(uint32_t)(p->d.ntypes ? p->d.ntypes - 1 : 0);

	*type = dflt;
	*div = 1;
	out->per_sample = false;
	if (per) {
		char *end;
		double v = strtod(per, &end);
		if (*end || end == per || !(v > 0) || v > 1e300)
			return sf_error(ctx, SF_EUSAGE, NULL, 0, "--period "
					"expects a positive number, not '%s'",
					per);
		*div = v;
		return 0;
	}
	if (!p->d.ntypes)
		return 0;
	if (!uncounted_source(p)) {
		for (size_t i = 0; i < p->d.ntypes; i++)
			if (!strcmp(p->d.types[i].type, "samples") &&
			    !strcmp(p->d.types[i].unit, "count")) {
				*type = (uint32_t)i;
				return 0;
			}
		if (p->d.meta.period > 0 && p->d.meta.period_type.unit &&
		    !strcmp(p->d.meta.period_type.unit,
			    p->d.types[dflt].unit)) {
			*div = p->d.meta.period;
			return 0;
		}
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
