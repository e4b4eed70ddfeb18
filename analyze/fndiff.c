/*
 * fndiff.c - per-function comparison of two views (issue #10).
 *
 * Functions are matched by name.  For each: self and total in BASE and
 * NEW (raw weights, each side in its own sample type), and delta = the
 * change of total: normalised (default), the change of its share of each
 * side's whole weight (new_total / NEW - base_total / BASE, a fraction);
 * raw, new_total - base_total.  Rows sort by |delta| decreasing, then
 * name.  With a threshold P, a row is a regression when its total share
 * grew by more than P percentage points (normalised) or its total grew by
 * more than P percent of the base total (raw; from 0 to anything counts).
 */
#include "analyze.h"
#include "an_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct drow {
	const char *name;
	double bs, ns, bt, nt;        /* as doubles, for delta and text */
	sf_an_w bsw, nsw, btw, ntw;   /* exact, for JSON */
	bool inb, inn;
	double delta;
};

struct side {
	const struct sf_an_view *v;
	sf_an_w *self, *total;
	uint32_t *order;   /* functions sorted by name */
};

static int cmp_delta(const void *a, const void *b)
{
	const struct drow *x = a, *y = b;
	double dx = fabs(x->delta), dy = fabs(y->delta);

	if (dx != dy)
		return dx > dy ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int side_init(struct side *s, const struct sf_an_view *v,
		     struct sf_ctx *ctx)
{
	sf_an_w nf;
	size_t n = v->nfuncs + 1;

	s->v = v;
	s->self = malloc(n * sizeof(*s->self));
	s->total = malloc(n * sizeof(*s->total));
	s->order = malloc(n * sizeof(*s->order));
	if (!s->self || !s->total || !s->order)
		return sf_error_nomem(ctx);
	for (size_t i = 0; i < v->nfuncs; i++)
		s->order[i] = (uint32_t)i;
	qsort_r(s->order, v->nfuncs, sizeof(*s->order), sf_an__cmp_name,
		(void *)v);
	return sf_an__func_totals(v, s->self, s->total, &nf, ctx);
}

static void side_free(struct side *s)
{
	free(s->self);
	free(s->total);
	free(s->order);
}

int sf_an_diff(struct sf_output *o, const struct sf_an_view *base,
	       const struct sf_an_view *cur,
	       const struct sf_an_diff_opts *opt, struct sf_ctx *ctx)
{
	struct side b = { 0 }, n = { 0 };
	struct drow *rows = NULL;
	size_t nr = 0, i = 0, j = 0;
	int rc;

	if ((rc = side_init(&b, base, ctx)) || (rc = side_init(&n, cur, ctx)))
		goto done;
	rows = calloc(base->nfuncs + cur->nfuncs + 1, sizeof(*rows));
	if (!rows) {
		rc = sf_error_nomem(ctx);
		goto done;
	}
	double BT = sf_an_double(base->total, base->exp);
	double NT = sf_an_double(cur->total, cur->exp);
	while (i < base->nfuncs || j < cur->nfuncs) {
		const char *bn = i < base->nfuncs ? base->names[b.order[i]] :
						    NULL;
		const char *nn = j < cur->nfuncs ? cur->names[n.order[j]] :
						   NULL;
		int c = !bn ? 1 : !nn ? -1 : strcmp(bn, nn);
		struct drow *r = &rows[nr++];
		if (c <= 0) {
			uint32_t f = b.order[i++];
			r->name = bn;
			r->inb = true;
			r->bsw = b.self[f];
			r->btw = b.total[f];
		}
		if (c >= 0) {
			uint32_t f = n.order[j++];
			r->name = nn;
			r->inn = true;
			r->nsw = n.self[f];
			r->ntw = n.total[f];
		}
		r->bs = sf_an_double(r->bsw, base->exp);
		r->bt = sf_an_double(r->btw, base->exp);
		r->ns = sf_an_double(r->nsw, cur->exp);
		r->nt = sf_an_double(r->ntw, cur->exp);
		if (opt->normalize)
			r->delta = (NT != 0 ? r->nt / NT : 0) -
				   (BT != 0 ? r->bt / BT : 0);
		else
			r->delta = r->nt - r->bt;
	}
	qsort(rows, nr, sizeof(*rows), cmp_delta);
	bool thr = opt->threshold > 0;
	size_t nreg = 0;
	if (opt->json) {
		sf_output_putc(o, '{');
		sf_an__put_json_diff_kind(o, base, cur);
		sf_output_puts(o, ",\"base_total\":");
		sf_an_put_w(o, base->total, base->exp);
		sf_output_puts(o, ",\"new_total\":");
		sf_an_put_w(o, cur->total, cur->exp);
		sf_output_puts(o, ",\"functions\":[");
	} else {
		char b1[64], b2[64];
		sf_an_fmt_unit(b1, sizeof(b1), BT, base->unit, opt->raw);
		sf_an_fmt_unit(b2, sizeof(b2), NT, cur->unit, opt->raw);
		sf_output_printf(o, "Diff (%s, %s -> %s, %s): base total %s, "
				    "new total %s; delta = %s\n",
				 base->type, base->unit, cur->type, cur->unit,
				 b1, b2,
				 opt->normalize ? "change of total share "
						  "(percentage points)" :
						  "change of total");
		sf_output_printf(o, "%12s %12s %12s %12s %12s %9s  Function\n",
				 "Base self", "New self", "Base total",
				 "New total", "Delta", "Change");
	}
	for (size_t k = 0; k < nr; k++) {
		struct drow *r = &rows[k];
		bool reg = false;
		if (thr) {
			if (opt->normalize)
				reg = r->delta * 100 > opt->threshold;
			else
				reg = r->bt > 0 ?
					      (r->nt - r->bt) / r->bt * 100 >
						      opt->threshold :
					      r->nt > 0;
		}
		nreg += reg;
		if (opt->top && k >= opt->top)
			continue;
		if (opt->json) {
			sf_output_puts(o, k ? ",\n{\"name\":" : "\n{\"name\":");
			sf_an_put_json_str(o, r->name);
			sf_output_puts(o, ",\"base_self\":");
			sf_an_put_w(o, r->bsw, base->exp);
			sf_output_puts(o, ",\"new_self\":");
			sf_an_put_w(o, r->nsw, cur->exp);
			sf_output_puts(o, ",\"base_total\":");
			sf_an_put_w(o, r->btw, base->exp);
			sf_output_puts(o, ",\"new_total\":");
			sf_an_put_w(o, r->ntw, cur->exp);
			sf_output_puts(o, ",\"delta\":");
			sf_output_num(o, r->delta);
			if (thr)
				sf_output_puts(o, reg ? ",\"regression\":true" :
						  ",\"regression\":false");
			sf_output_putc(o, '}');
			continue;
		}
		char c1[64], c2[64], c3[64], c4[64], c5[64], c6[64];
		sf_an_fmt_unit(c1, sizeof(c1), r->bs, base->unit, opt->raw);
		sf_an_fmt_unit(c2, sizeof(c2), r->ns, cur->unit, opt->raw);
		sf_an_fmt_unit(c3, sizeof(c3), r->bt, base->unit, opt->raw);
		sf_an_fmt_unit(c4, sizeof(c4), r->nt, cur->unit, opt->raw);
		if (opt->normalize)
			snprintf(c5, sizeof(c5), "%+.2f", r->delta * 100);
		else
			sf_an_fmt_unit(c5, sizeof(c5), r->delta, cur->unit,
				       opt->raw);
		if (!r->inb)
			snprintf(c6, sizeof(c6), "new");
		else if (!r->inn)
			snprintf(c6, sizeof(c6), "gone");
		else {
			double bshare = opt->normalize && BT ? r->bt / BT : r->bt;
			double nshare = opt->normalize && NT ? r->nt / NT : r->nt;
			if (bshare != 0)
				snprintf(c6, sizeof(c6), "%+.1f%%",
					 (nshare - bshare) / bshare * 100);
			else
				snprintf(c6, sizeof(c6), "%s",
					 nshare != 0 ? "new" : "0%");
		}
		sf_output_printf(o, "%12s %12s %12s %12s %12s %9s  ", c1, c2,
				 c3, c4, c5, c6);
		for (const char *s = r->name; *s; s++)
			sf_output_putc(o, (unsigned char)*s < 0x20 ? ' ' : *s);
		sf_output_puts(o, reg ? "  <- REGRESSION\n" : "\n");
	}
	if (opt->json)
		sf_output_puts(o, "]}");
	else if (thr)
		sf_output_printf(o, "%zu regression%s above %g%s\n", nreg,
				 nreg == 1 ? "" : "s", opt->threshold,
				 opt->normalize ? " percentage points" : "%");
done:
	free(rows);
	side_free(&b);
	side_free(&n);
	return rc;
}
