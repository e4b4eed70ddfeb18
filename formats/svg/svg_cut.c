/*
 * svg_cut.c - how wide the graph is and which frames are too narrow to
 * draw: --total, --minwidth and --max-frames, on the inclusive weights of
 * either graph builder (svg_graph.c's whole graph, svg_drawn.c's drawn
 * frames).
 */
#include "svg.h"

#include <stdlib.h>
#include <string.h>

#define XPAD 10

static int desc_cmp(const void *a_, const void *b_)
{
	double a = *(const double *)a_, b = *(const double *)b_;

	return a > b ? -1 : a < b;
}

/*
 * What v[k] would be once v[0..n) is sorted by desc_cmp (k < n; v is
 * reordered): a selection with a three-way partition (runs of equal
 * widths are common), O(n) where sorting every node's width was 5.6 % of
 * `sfconv --to svg` of a 400,000-sample timeline.  Small or hard
 * ranges are sorted.  Weights are finite, so values that compare equal
 * are the same double except 0 and -0: which of those a sort puts at k
 * depends on the order they came in, so for a zero result the caller
 * sorts the widths in their first order, as before.
 */
static double kth_widest(double *v, size_t n, size_t k)
{
	size_t lo = 0, hi = n;

	for (int round = 0; hi - lo > 16 && round < 64; round++) {
		double a = v[lo], b = v[lo + (hi - lo) / 2], c = v[hi - 1];
		double p = a < b ? (b < c ? b : a < c ? c : a) :
				   (a < c ? a : b < c ? c : b);
		size_t lt = lo, i = lo, gt = hi;
		while (i < gt) {
			double x = v[i];
			if (x > p) {
				v[i++] = v[lt];
				v[lt++] = x;
			} else if (x < p) {
				v[i] = v[--gt];
				v[gt] = x;
			} else {
				i++;
			}
		}
		if (k < lt) {
			hi = lt;
		} else if (k >= gt) {
			lo = gt;
		} else {
			return p;
		}
	}
	qsort(v + lo, hi - lo, sizeof(*v), desc_cmp);
	return v[k];
}

/* --total: a larger sum than the samples' (g->total, so far), as
 * flamegraph.pl (a smaller one is ignored); the root's weight *root
 * spans it */
void sf_svg__graph_total(struct svg_graph *g, double *root,
			 const struct svg_opts *o, struct sf_ctx *ctx)
{
	if (o->total > g->total && !g->diff) {
		g->total = o->total;
		*root = o->total;
	} else if (o->total > 0 && o->total < g->total) {
		sf_warn(ctx, "svg-total", "--total is less than the samples' "
			"total, so ignored");
	}
}

int sf_svg__graph_cut(struct svg_graph *g, const struct svg_opts *o,
		      const double *w, size_t stride, size_t n,
		      double *scratch, double *scalep, double *minwp,
		      double *cutp)
{
	const char *base = (const char *)w;
	double scale = g->total > 0 ? (o->width - 2 * XPAD) / g->total : 0;
	double minw = o->minwidth_pct ?
		      o->minwidth / 100 * (o->width - 2 * XPAD) : o->minwidth;
	/* --max-frames: a frame is never wider than its caller, so keeping
	 * the frames wider than the (max+1)-th widest keeps a connected
	 * tree of at most max frames; it acts as a larger --minwidth */
	double cut = -1;

	*scalep = scale;
	*minwp = minw;
	*cutp = cut;
	g->minpx = minw;
	if (!o->max_frames || n <= o->max_frames || scale <= 0)
		return 0;
	double *ws = scratch ? scratch : malloc(n * sizeof(*ws));
	if (!ws)
		return -1;
	for (size_t i = 0; i < n; i++)
		memcpy(&ws[i], base + i * stride, sizeof(*ws));
	double kth = kth_widest(ws, n, o->max_frames);
	if (kth == 0) {
		for (size_t i = 0; i < n; i++)
			memcpy(&ws[i], base + i * stride, sizeof(*ws));
		qsort(ws, n, sizeof(*ws), desc_cmp);
		kth = ws[o->max_frames];
	}
	if (kth * scale >= minw) {
		*cutp = kth;
		g->minpx = kth * scale;
		g->capped = true;
	}
	if (ws != scratch)
		free(ws);
	return 0;
}
