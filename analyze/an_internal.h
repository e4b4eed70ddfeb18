/* an_internal.h - shared between the files of analyze/. */
#ifndef SF_AN_INTERNAL_H
#define SF_AN_INTERNAL_H

#include "analyze.h"

/* Per view function: self weight and total (each sample once, however
 * often the function recurses), into arrays of v->nfuncs; *noframes gets
 * the weight of empty stacks. */
int sf_an__func_totals(const struct sf_an_view *v, sf_an_w *self,
		       sf_an_w *total, sf_an_w *noframes, struct sf_ctx *ctx);

#endif
