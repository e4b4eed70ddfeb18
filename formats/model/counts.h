/*
 * counts.h - how many samples a sample of the model stands for, where a
 * report or a file counts samples (macOS `sample` call graphs, Sampler
 * traces, V8 .cpuprofile, sb-sprof dumps): the one home of the rule
 * "which weight counts samples".
 *
 * A weight is a number of samples only where the input counted samples:
 * a ("samples", "count") type read from perf, pprof, a capture, a trace.
 * Elsewhere the rule falls back on the period (pprof CPU nanoseconds /
 * period = samples) or takes the weight as it is.  The writers that must
 * refuse weights that are no counts add their own strict plan with
 * --period (formats/util/records.h).
 */
#ifndef SF_COUNTS_H
#define SF_COUNTS_H

#include "profile.h"

#ifdef __cplusplus
extern "C" {
#endif

struct sf_records {
	uint32_t type;     /* the weight counted ... */
	double div;        /* ... divided by this */
	bool per_sample;   /* or: each sample is its fold count of records */
};

/* The default type; the last one when it is unset; 0 without types. */
uint32_t sf_records_default_type(const struct sf_profile *p);

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

/* SF_ELIMIT, naming the first sample (counted as read, from 1; where
 * samples folded before it, which leaves no number true, its stack's
 * innermost frame and how many were summed) whose weight of `type` is
 * negative or not finite, for a writer whose counts
 * cannot be below 0 (`what`: "a collapsed count"); 0 when there is none.
 * Its readers refuse such a count, so writing one would give a file
 * that cannot be read back. */
int sf_weights_nonneg(const struct sf_profile *p, struct sf_ctx *ctx,
		      uint32_t type, const char *what);

#ifdef __cplusplus
}
#endif
#endif
