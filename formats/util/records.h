/*
 * records.h - how many records (samples, lines) a writer whose format
 * holds sample counts writes for each sample of the model: Sampler traces
 * V8 .cpuprofile and sb-sprof dumps (sf_records_plan, strict), macOS
 * `sample` call graphs (sf_records_count, lenient: counts are printed, not
 * repeated).  The one home of the rule "which weight counts samples".
 *
 * A weight is a number of samples only where the input counted samples:
 * a ("samples", "count") type read from perf, pprof, a capture, a trace.
 * Collapsed stacks, sample lines and difffolded weights are whatever the
 * user summed (nanoseconds, bytes), and repeating a sample 2,004,008
 * times is never what was meant: without --period such a profile is
 * refused up front, before anything is written.
 */
#ifndef SF_RECORDS_H
#define SF_RECORDS_H

#include "format.h"

/* The option writers that use this declare (help included). */
#define SF_RECORDS_OPTION                                                 \
	{ "period", "N", "sampler, cpuprofile, sbsprof: one record per N "  \
	  "units of weight (when the weights are not sample counts)" }

struct sf_records {
	uint32_t type;     /* the weight counted ... */
	double div;        /* ... divided by this */
	bool per_sample;   /* or: each sample is its fold count of records */
};

/* How many records each sample becomes: with --period N the default
 * type's weight divided by N; else the weight of a ("samples", "count")
 * type the input counted; else a type divided by the profile's period in
 * the same unit; else, for an input that counted its samples (perf,
 * pprof, captures: anything but collapsed, lines and difffolded), one
 * record per sample (sf_sample_count).  Otherwise SF_EUSAGE with a message
 * naming `what` ("Sampler records") and --period. */
int sf_records_plan(const struct sf_profile *p, struct sf_ctx *ctx,
		    const char *what, struct sf_records *out);
/* The lenient rule: the first type named in `counted` (a NULL-terminated
 * list such as { "samples", NULL }) whose unit is "count"; else the
 * default type, divided by the profile's period when the period is in
 * that type's unit (pprof CPU nanoseconds / period = samples); else the
 * default type's weight as it is.  A profile without types gives type 0,
 * div 1.  Never per_sample.  Returns true when a counted type or the
 * period was found, false when the weight is taken as it is. */
bool sf_records_count(const struct sf_profile *p,
		      const char *const *counted, struct sf_records *out);
/* The records of sample i under `r` (may be fractional: round it); 1 in a
 * profile without types. */
double sf_records_of(const struct sf_profile *p, const struct sf_records *r,
		     size_t i);
/* The records of sample i under `r` as a whole number: rounded to the
 * nearest, *rounded set when it was not whole.  SF_ELIMIT, naming the
 * sample and `what` ("a number of Sampler records"), when it is negative,
 * NaN or above `max`. */
int sf_records_whole(const struct sf_profile *p, struct sf_ctx *ctx,
		     const struct sf_records *r, size_t i, double max,
		     const char *what, uint64_t *out, bool *rounded);

#endif
