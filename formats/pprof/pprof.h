/*
 * pprof.h - internal to the pprof format: fmt_pprof.c holds the format
 * entry, the probe and the reader; pprof_write.c the writer.
 */
#ifndef SF_PPROF_H
#define SF_PPROF_H

#include "format.h"

/* The format's `write` entry (contract: format.h, struct sf_format). */
int sf_pprof__write(const struct sf_profile *p, struct sf_output *out,
		    struct sf_ctx *ctx);

#endif
