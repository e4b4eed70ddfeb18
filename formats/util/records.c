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
