/*
 * records.h - how many records (samples, lines) a writer whose format
 * holds sample counts writes for each sample of the model: Sampler traces
 * V8 .cpuprofile and sb-sprof dumps (sf_records_plan, strict, here).  The
 * rule "which weight counts samples" and the lenient count the macOS
 * `sample` report prints (sf_records_count) are the model's (counts.h).
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

#include "counts.h"
#include "format.h"

/* The option writers that use this declare (help included). */
#define SF_RECORDS_OPTION                                                 \
	{ "period", "N", "sampler, cpuprofile, sbsprof: one record per N "  \
	  "units of weight (when the weights are not sample counts)" }

/* How many records each sample becomes: with --period N the default
 * type's weight divided by N; else the weight of a ("samples", "count")
 * type the input counted; else a type divided by the profile's period in
 * the same unit; else, for an input that counted its samples (perf,
 * pprof, captures: anything but collapsed, lines and difffolded), one
 * record per sample (sf_sample_count).  Otherwise SF_EUSAGE with a message
 * naming `what` ("Sampler records") and --period.  SF_ELIMIT when the
 * samples would make more records in all than ctx->limits.max_records
 * (--max-records): a count is what the input claims. */
int sf_records_plan(const struct sf_profile *p, struct sf_ctx *ctx,
		    const char *what, struct sf_records *out);

#endif
