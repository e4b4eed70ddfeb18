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

/* The plan's choice of weight and divisor, before the bound on the
 * records it makes (sf_records_plan). */
static int choose(const struct sf_profile *p, struct sf_ctx *ctx,
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
		*out = (struct sf_records){ sf_records_default_type(p), v, false };
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

int sf_records_plan(const struct sf_profile *p, struct sf_ctx *ctx,
		    const char *what, struct sf_records *out)
{
	int rc = choose(p, ctx, what, out);
	double total = 0, max = (double)ctx->limits.max_records;

	if (rc)
		return rc;
	/* a count is what the input claims: a few bytes of pprof or JSON
	 * can claim 10^12 samples, which a writer that repeats samples
	 * would turn into terabytes.  Refuse before anything is written. */
	for (size_t i = 0; i < p->d.nsamples && total <= max; i++) {
		double r = sf_records_of(p, out, i);
		if (r > 0)
			total += r;
	}
	if (total > max)
		return sf_error(ctx, SF_ELIMIT, NULL, 0,
				"the samples would make more than %llu %s "
				"(--max-records%s)",
				(unsigned long long)ctx->limits.max_records,
				what, sf_ctx_opt(ctx, "period") ?
				"; or a larger --period" : "; or --period N");
	return 0;
}
