/*
 * cgorder.c - the call graph's node order, docs/analyze.md, call graph 5:
 * discovery (5.1), the linear order that breaks cycles (5.2), layers
 * (5.3, 5.4) and the final order (5.5), on the 128-bit numerators over
 * the common denominator that the walk (callgraph.c) left, with GMP
 * rationals where a sum would overflow and for the exact ratios of 5.2's
 * cycle case.  Then the build's last steps in order: the adjacency lists
 * the order reads, the order, the lists' sorts (7, cgadj.c), which with
 * two jobs run beside the order's 5.2 on a second thread (as 5.1's
 * discovery runs beside its sums).  The
 * build's whole (sf_an_cg_build) is here too, so that the walk's file
 * never calls this one, which calls it for the exact times.
 */
#include "analyze.h"
#include "an_internal.h"
#include "cg_internal.h"
#include "msort.h"

#include <gmp.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct ordkey {
	uint32_t node, layer, pos;
	sf_an_w total;
};

/* x goes before y in the order of 5.5: by layer, then by decreasing
 * total, then later in L first (pos is unique, so this is a total order
 * and any sort gives the same result) */
static inline bool ord_before(const struct ordkey *x, const struct ordkey *y,
			      const void *unused)
{
	if (x->layer != y->layer)
		return x->layer < y->layer;
	if (x->total != y->total)
		return x->total > y->total;
	return x->pos > y->pos;
}

/* With its comparison inline (msort.h): qsort, a call per comparison and
 * a generic copy of each 32-byte key, ran 16 ms on one thread after the
 * order on the timeline of docs/PERFORMANCE.md (session 25). */
SF_MSORT_DEFINE(ord_sort, struct ordkey, void, ord_before)

/* What 5.2's updates touch of a node, in half a cache line: its in and
 * out, its heap slot, whether it is still in W, whether its in/out is not
 * finite, and whether it waits to be a sink (1) or a source (2).  in and
 * out are the numerators over g->den while every node's fits in 64 bits
 * ("narrow"), else their doubles, the sums being 128-bit numerators or
 * rationals in struct osum.  A removed node's neighbours are scattered,
 * and these were eight arrays, each a cache miss of its own per update;
 * then a 64-byte line with 128-bit sums and their doubles, 3.2 MB on the
 * 50,000 nodes of the timeline of docs/PERFORMANCE.md, more than a
 * core's L2; 1.6 MB in 32 bytes. */
union osv {
	int64_t n;
	double d;
};

struct onode {
	union osv in, out;
	uint32_t at;        /* heap slot, UINT32_MAX if none */
	bool inw, nonfin;
	unsigned char pend;
} __attribute__((aligned(32)));

/* The heap of 5.2's cycle case: W's nodes by in/out as doubles, least
 * first; a non-finite quotient keys as INFINITY and is counted apart.
 * Each slot holds its key beside its node, so that a sift compares keys
 * it loads from the heap alone (a node's key in an array by node was a
 * second, scattered load per comparison), and a slot has four children,
 * whose keys are 32 adjacent bytes: half the levels of a binary heap.
 *
 * A key only rises when a node's out falls, and falls when its in
 * falls.  A slot's key is a lower bound of its node's in/out, not always
 * the value: a rise leaves it (the doubles fall with the exact sums, so
 * the bound holds), and the heap's top is brought up to date before it
 * is read (rh_top), sinking while it is stale.  Half of 5.2's updates
 * are rises, and each sank its node through the heap, most of them to
 * no use: the node left W, or rose again, before it came near the top. */
struct rheap {
	double *k;          /* by slot */
	uint32_t *h;        /* by slot: the node */
	struct onode *nd;   /* the nodes' slots */
	size_t n;
	bool narrow;        /* nd's in/out are the 64-bit sums */
};

static inline void rh_put(struct rheap *q, size_t i, uint32_t node, double k)
{
	q->k[i] = k;
	q->h[i] = node;
	q->nd[node].at = (uint32_t)i;
}

/* node, with key k, into slot i or where the heap order puts it from
 * there */
static void rh_fix(struct rheap *q, size_t i, uint32_t node, double k)
{
	while (i && q->k[(i - 1) / 4] > k) {
		size_t p = (i - 1) / 4;
		rh_put(q, i, q->h[p], q->k[p]);
		i = p;
	}
	for (;;) {
		size_t c = 4 * i + 1, m = c;
		if (c >= q->n)
			break;
		for (size_t j = c + 1; j < c + 4 && j < q->n; j++)
			if (q->k[j] < q->k[m])
				m = j;
		if (!(q->k[m] < k))
			break;
		rh_put(q, i, q->h[m], q->k[m]);
		i = m;
	}
	rh_put(q, i, node, k);
}

/* x's in/out as a double, from the sums (the common denominator
 * cancels) or their doubles: either way it falls when in falls and rises
 * when out falls, as the heap's bounds need */
static inline double on_ratio(bool narrow, const struct onode *x)
{
	return narrow ? (double)x->in.n / (double)x->out.n :
			x->in.d / x->out.d;
}

/* x's in/out as a key */
static inline double on_key(const struct rheap *q, const struct onode *x)
{
	double v = on_ratio(q->narrow, x);

	return isfinite(v) ? v : INFINITY;
}

/* x's key after its in or out changed, counting it in *nnf while it is
 * not finite */
static inline double on_rekey(const struct rheap *q, struct onode *x,
			      size_t *nnf)
{
	double v = on_ratio(q->narrow, x);
	bool f = !isfinite(v);

	if (f != x->nonfin) {
		x->nonfin = f;
		*nnf = f ? *nnf + 1 : *nnf - 1;
	}
	return f ? INFINITY : v;
}

/* add node with its key */
static void rh_add(struct rheap *q, uint32_t node, size_t *nnf)
{
	struct onode *x = &q->nd[node];

	x->at = (uint32_t)q->n++;
	rh_fix(q, x->at, node, on_rekey(q, x, nnf));
}

/* node's in fell: its key falls, below its slot's only sometimes */
static void rh_fall(struct rheap *q, uint32_t node, size_t *nnf)
{
	struct onode *x = &q->nd[node];
	double k = on_rekey(q, x, nnf);

	if (k < q->k[x->at])
		rh_fix(q, x->at, node, k);
}

/* the top's key made its node's, sinking each stale one */
static void rh_top(struct rheap *q)
{
	double k;

	while (q->n && (k = on_key(q, &q->nd[q->h[0]])) > q->k[0])
		rh_fix(q, 0, q->h[0], k);
}

static void rh_out(struct rheap *q, uint32_t node, size_t *nnf)
{
	struct onode *x = &q->nd[node];
	size_t i = x->at;

	if (x->nonfin) {
		x->nonfin = false;
		(*nnf)--;
	}
	x->at = UINT32_MAX;
	if (i != --q->n)
		rh_fix(q, i, q->h[q->n], q->k[q->n]);
}

static int cmp_u32_asc(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

static int cmp_u32_desc(const void *a, const void *b)
{
	return cmp_u32_asc(b, a);
}

/* 5.1's in or out of every node: numerators over g->den while the edges'
 * times are, in 64 bits while every node's fits (nd's in or out), else in
 * 128 (w); else rationals (q). */
struct osum {
	struct onode *nd;
	bool out;
	sf_an_w *w;
	mpq_t *q;
	double den;         /* g->den as a double, made once */
};

static inline int64_t *os_n(const struct osum *s, uint32_t n)
{
	return s->out ? &s->nd[n].out.n : &s->nd[n].in.n;
}

/* s[n] while it is a numerator */
static inline sf_an_w os_w(const struct osum *s, uint32_t n)
{
	return s->w ? s->w[n] : *os_n(s, n);
}

/* s[n] += or -= the callee or caller time of edge e, at entry i of the
 * out or in lists */
static inline void os_add(const struct sf_an_cg *g, struct osum *s,
			  uint32_t n, uint32_t e, uint32_t i, bool callee,
			  bool sub)
{
	if (s->q) {
		mpq_t *t = callee ? g->callee : g->caller;
		if (sub)
			mpq_sub(s->q[n], s->q[n], t[e]);
		else
			mpq_add(s->q[n], s->q[n], t[e]);
	} else {
		sf_an_w t = entry_time(g, callee ? g->out_t : g->in_t, i, e,
				       callee);
		if (s->w)
			s->w[n] += sub ? -t : t;
		else    /* t fits: no partial sum passes the whole */
			*os_n(s, n) += sub ? -(int64_t)t : (int64_t)t;
	}
}

static inline bool os_zero(const struct osum *s, uint32_t n)
{
	return s->q ? !mpq_sgn(s->q[n]) : !os_w(s, n);
}

/* A 128-bit integer as the nearest double: in 64 bits when it fits,
 * the same value without a call to convert 128 bits (two per update of
 * 5.2, 7.5 million on the timeline of docs/PERFORMANCE.md) */
static inline double w_double(sf_an_w v)
{
	return v >= INT64_MIN && v <= INT64_MAX ? (double)(int64_t)v :
						  (double)v;
}

/* near s[n], where the sums are not narrow: only to narrow the
 * candidates of an exact choice */
static inline double os_d(const struct osum *s, uint32_t n)
{
	return s->q ? mpq_get_d(s->q[n]) : w_double(s->w[n]) / s->den;
}

/* r = in[n] / out[n] exactly (out[n] is not 0) */
static void os_ratio(mpq_t r, const struct osum *in, const struct osum *out,
		     uint32_t n)
{
	if (in->q) {
		mpq_div(r, in->q[n], out->q[n]);
		return;
	}
	/* the common denominator cancels */
	sf_an__cg_rational(r, os_w(in, n), os_w(out, n));
}

/* 5.2 step 3's sources: of the candidates cand[0..nc) (discovery
 * indexes, sorted here), those of the least ratio, exactly, in reverse W
 * order, into srcs; their number */
static size_t least(uint32_t *srcs, uint32_t *cand, size_t nc,
		    const uint32_t *disc, const struct osum *in,
		    const struct osum *out, mpq_t best, mpq_t r)
{
	size_t ns = 0;

	/* the doubles kept every node whose ratio may be the least: one
	 * is, with no exact look (30,666 of the 35,843 cycle cases of the
	 * timeline of docs/PERFORMANCE.md have one candidate) */
	if (nc == 1) {
		srcs[0] = disc[cand[0]];
		return 1;
	}
	for (size_t j = 0; j < nc; j++) {
		os_ratio(r, in, out, disc[cand[j]]);
		if (!j || mpq_cmp(r, best) < 0)
			mpq_set(best, r);
	}
	/* in reverse W order: lower discovery index first */
	qsort(cand, nc, sizeof(*cand), cmp_u32_asc);
	for (size_t j = 0; j < nc; j++) {
		os_ratio(r, in, out, disc[cand[j]]);
		if (mpq_equal(r, best))
			srcs[ns++] = disc[cand[j]];
	}
	return ns;
}

/* in and out of every node (5.1) into nd (zeroed), as numerators when
 * every sum fits, so that no partial sum of 5.2's subtractions can
 * overflow (the times are never negative, as the weights are not: the
 * view refuses them, so a partial sum lies between 0 and the whole, and
 * the sums of the magnitudes, which two more arrays kept, are the sums
 * themselves): in 64 bits if they fit there (then so does every time
 * added), else in 128; else the edges' times become rationals and so do
 * the sums.  The 128-bit sums are made again from the start (a pass over
 * the edges, about 20 ms on the timeline of docs/PERFORMANCE.md), only
 * when a 64-bit one overflowed. */
static int os_init(struct sf_an_cg *g, struct onode *nd, struct osum *in,
		   struct osum *out)
{
	size_t N = g->nnodes;

	*in = (struct osum){ nd, false, NULL, NULL, w_double(g->den) };
	*out = (struct osum){ nd, true, NULL, NULL, in->den };
	if (!g->caller) {
		bool over = false;
		for (size_t e = 0; e < g->nedges && !over; e++) {
			const struct edge *x = &g->edges[e];
			/* the ends' lines are scattered: ask ahead */
			if (e + 16 < g->nedges) {
				__builtin_prefetch(&nd[x[16].to], 1);
				__builtin_prefetch(&nd[x[16].from], 1);
			}
			if (x->from == x->to || x->from == STAR ||
			    x->to == STAR)
				continue;
			sf_an_w ce = time_num(g, (uint32_t)e, true);
			sf_an_w cr = time_num(g, (uint32_t)e, false);
			over = ce > INT64_MAX || cr > INT64_MAX ||
			       __builtin_add_overflow(nd[x->to].in.n,
						      (int64_t)ce,
						      &nd[x->to].in.n) ||
			       __builtin_add_overflow(nd[x->from].out.n,
						      (int64_t)cr,
						      &nd[x->from].out.n);
		}
		if (!over)
			return 0;
		in->w = calloc(N, sizeof(*in->w));
		out->w = calloc(N, sizeof(*out->w));
		if (!in->w || !out->w)
			return -1;
		over = false;
		for (size_t e = 0; e < g->nedges && !over; e++) {
			const struct edge *x = &g->edges[e];
			if (x->from == x->to || x->from == STAR ||
			    x->to == STAR)
				continue;
			sf_an_w ce = time_num(g, (uint32_t)e, true);
			sf_an_w cr = time_num(g, (uint32_t)e, false);
			over = __builtin_add_overflow(in->w[x->to], ce,
						      &in->w[x->to]) ||
			       __builtin_add_overflow(out->w[x->from], cr,
						      &out->w[x->from]);
		}
		if (!over)
			return 0;
		free(in->w);
		free(out->w);
		in->w = out->w = NULL;
		if (sf_an__cg_mpq_edges(g))
			return -1;
	}
	in->q = malloc(N * sizeof(*in->q));
	out->q = malloc(N * sizeof(*out->q));
	if (!in->q || !out->q) {
		free(in->q);
		free(out->q);
		in->q = out->q = NULL;
		return -1;
	}
	for (size_t n = 0; n < N; n++) {
		mpq_init(in->q[n]);
		mpq_init(out->q[n]);
	}
	for (size_t e = 0; e < g->nedges; e++) {
		const struct edge *x = &g->edges[e];
		if (x->from == x->to || x->from == STAR || x->to == STAR)
			continue;
		os_add(g, in, x->to, (uint32_t)e, 0, true, false);
		os_add(g, out, x->from, (uint32_t)e, 0, false, false);
	}
	return 0;
}

static void os_free(struct osum *s, size_t N)
{
	if (s->q)
		for (size_t n = 0; n < N; n++)
			mpq_clear(s->q[n]);
	free(s->q);
	free(s->w);
}

/* The entries [from, to) of a list (the other ends in `other`) whose
 * other end is still in W, into idx; their number.  Half of 5.2's 7.5
 * million entries on the timeline of docs/PERFORMANCE.md meet a node no
 * longer in W, each its own scattered line, with no pattern a branch
 * predictor could learn: without a branch the loads of a whole list are
 * in flight at once, and the updates that follow find the lines in L1.
 * (* is never in W.) */
static uint32_t live(uint32_t *idx, const struct onode *nd,
		     const uint32_t *other, uint32_t from, uint32_t to)
{
	uint32_t k = 0;

	for (uint32_t i = from; i < to; i++) {
		idx[k] = i;
		k += nd[other[i]].inw;
	}
	return k;
}

/* 5.1's two parts, which share nothing: in and out of every node
 * (os_init, task 0) and the discovery (task 1), on two threads when there
 * are two jobs */
struct first {
	struct sf_an_cg *g;
	struct onode *on;
	struct osum *in, *out;
	uint32_t *disc, *queue;
	bool *seen;
	size_t nd;            /* discovered */
	int rc;               /* os_init's */
};

static void first_task(void *arg, size_t k)
{
	struct first *f = arg;
	const struct sf_an_cg *g = f->g;
	size_t qh = 0, qt = 0;

	if (!k) {
		memset(f->on, 0, g->nnodes * sizeof(*f->on));
		f->rc = os_init(f->g, f->on, f->in, f->out);
		return;
	}
	/* BFS from *, callees newest first */
	f->queue[qt++] = STAR;
	f->seen[STAR] = true;
	while (qh < qt) {
		uint32_t n = f->queue[qh++];
		if (n != STAR)
			f->disc[f->nd++] = n;
		for (uint32_t i = g->out_start[n]; i < g->out_start[n + 1]; i++) {
			uint32_t y = g->out_to[i];
			if (!f->seen[y]) {
				f->seen[y] = true;
				f->queue[qt++] = y;
			}
		}
	}
}

/* The order into g->order and g->index; with a sorter (two jobs) the
 * lists are sorted beside it (7), and *sorted says so. */
static int order_nodes(struct sf_an_cg *g, struct sf_ctx *ctx, bool *sorted)
{
	size_t N = g->nnodes;
	uint32_t *disc = malloc(N * sizeof(*disc));
	uint32_t *queue = malloc((N + 1) * sizeof(*queue));
	bool *seen = calloc(N, sizeof(*seen));
	/* aligned: each node in one cache line, two a line */
	struct onode *on = aligned_alloc(64, (N + 1) / 2 * 2 * sizeof(*on));
	uint32_t *cand = malloc(N * sizeof(*cand));
	uint32_t *stk = malloc((4 * N + 4) * sizeof(*stk));
	uint32_t *didx = malloc(N * sizeof(*didx));
	uint32_t *pk = malloc(N * sizeof(*pk)), *pr = malloc(N * sizeof(*pr));
	uint32_t *left = malloc(N * sizeof(*left));
	uint32_t *sinks = malloc(N * sizeof(*sinks));   /* per round */
	uint32_t *right = malloc(N * sizeof(*right));
	uint32_t *srcs = malloc(N * sizeof(*srcs));
	uint32_t *pos = malloc(N * sizeof(*pos));
	uint32_t *layer = calloc(N, sizeof(*layer));
	double *rd = malloc(N * sizeof(*rd));
	struct osum in = { 0 }, out = { 0 };
	/* and room for the sort's N / 2 more */
	struct ordkey *keys = malloc((N + N / 2 + 1) * sizeof(*keys));
	struct sf_an__cg_sorter *sorter = NULL;
	struct first f = { g, on, &in, &out, disc, queue, seen, 0, 0 };
	mpq_t best, r;
	size_t nd, nleft = 0, nright = 0;
	bool narrow;
	int rc = 0;

	mpq_init(best);
	mpq_init(r);
	if (!disc || !queue || !seen || !on || !cand || !stk || !didx ||
	    !pk || !pr || !left || !sinks || !right || !srcs || !pos ||
	    !layer || !rd || !keys) {
		rc = sf_error_nomem(ctx);
		goto done;
	}
	/* 5.1: in/out and the discovery */
	sf_run_tasks(sf_jobs(ctx), 2, first_task, &f);
	nd = f.nd;
	if (f.rc) {
		rc = sf_error_nomem(ctx);
		goto done;
	}
	/* discovery read the out lists in creation order: from here on a
	 * node's lists are read once, when it leaves W, and then again only
	 * as sets (the layers), so they can be sorted meanwhile */
	sorter = sf_an__cg_sorter_new(g, sf_jobs(ctx));
	/* in/out (os_init): without self-edges and * edges; in by
	 * callee_time, out by caller_time; their doubles where they are not
	 * narrow */
	narrow = !in.w && !in.q;
	for (size_t n = 1; !narrow && n < N; n++) {
		on[n].in.d = os_d(&in, (uint32_t)n);
		on[n].out.d = os_d(&out, (uint32_t)n);
	}

	/* 5.2 linear order.  Each round's sinks and sources are the nodes
	 * whose out or in reached zero since the last round (kept in pk and
	 * pr by discovery index, sorted into W order), and the cycle case
	 * takes its candidates from a heap on in/out as doubles, so a round
	 * costs what it removes and touches, not |W|. */
	{
	struct rheap q = { rd, queue, on, 0, narrow };
	size_t nrem = nd, npk = 0, npr = 0, nnf = 0;

	for (size_t d = 0; d < nd; d++) {
		uint32_t n = disc[d];
		didx[n] = (uint32_t)d;
		on[n].inw = true;
		on[n].at = UINT32_MAX;
		if (os_zero(&out, n)) {
			on[n].pend |= 1;
			pk[npk++] = (uint32_t)d;
		}
		if (os_zero(&in, n)) {
			on[n].pend |= 2;
			pr[npr++] = (uint32_t)d;
		}
		rh_add(&q, n, &nnf);
	}
	while (nrem) {
		size_t nsinks = 0, nsrcs = 0;
		if (sf_interrupted(ctx)) {
			rc = sf_error(ctx, SF_EINTR, NULL, 0, "interrupted");
			goto done;
		}
		/* W is reverse discovery order: higher index first */
		qsort(pk, npk, sizeof(*pk), cmp_u32_desc);
		for (size_t j = 0; j < npk; j++) {
			uint32_t n = disc[pk[j]];
			on[n].pend &= ~1;
			sinks[nsinks++] = n;
			on[n].inw = false;
			rh_out(&q, n, &nnf);
		}
		npk = 0;
		qsort(pr, npr, sizeof(*pr), cmp_u32_desc);
		for (size_t j = 0; j < npr; j++) {
			uint32_t n = disc[pr[j]];
			on[n].pend &= ~2;
			if (on[n].inw)
				srcs[nsrcs++] = n;
		}
		npr = 0;
		if (!nsinks && !nsrcs) {
			/* all on cycles: minimal in/out, exactly; doubles
			 * only narrow the candidates (any non-finite one is
			 * a candidate: then look at all of W) */
			double mind;
			rh_top(&q);
			mind = q.n ? q.k[0] : INFINITY;
			double lim = mind + fabs(mind) * 1e-9 + 1e-300;
			size_t nc = 0, sp = 0;
			if (nnf) {
				for (size_t d = 0; d < nd; d++) {
					uint32_t n = disc[d];
					double v;
					if (!on[n].inw)
						continue;
					v = on_ratio(narrow, &on[n]);
					if (!(v <= lim) && isfinite(v))
						continue;
					cand[nc++] = (uint32_t)d;
				}
			} else if (q.n) {
				stk[sp++] = 0;
				while (sp) {
					uint32_t i = stk[--sp];
					if (i >= q.n || !(q.k[i] <= lim))
						continue;
					/* below a stale slot there may be
					 * candidates all the same */
					if (on_key(&q, &on[q.h[i]]) <= lim)
						cand[nc++] = didx[q.h[i]];
					for (uint32_t c = 1; c <= 4; c++)
						stk[sp++] = 4 * i + c;
				}
			}
			nsrcs = least(srcs, cand, nc, disc, &in, &out, best,
				      r);
		}
		for (size_t i = 0; i < nsrcs; i++) {
			on[srcs[i]].inw = false;
			rh_out(&q, srcs[i], &nnf);
		}
		nrem -= nsinks + nsrcs;
		for (size_t pass = 0; pass < 2; pass++) {
			uint32_t *list = pass ? sinks : srcs;
			size_t cnt = pass ? nsinks : nsrcs;
			for (size_t j = 0; j < cnt; j++) {
				uint32_t n = list[j], k;
				k = live(stk, on, g->out_to, g->out_start[n],
					 g->out_start[n + 1]);
				for (uint32_t l = 0; l < k; l++) {
					uint32_t i = stk[l];
					uint32_t y = g->out_to[i];
					os_add(g, &in, y, g->out_edges[i], i, true,
					       true);
					if (!narrow)
						on[y].in.d = os_d(&in, y);
					if (os_zero(&in, y) &&
					    !(on[y].pend & 2)) {
						on[y].pend |= 2;
						pr[npr++] = didx[y];
					}
					rh_fall(&q, y, &nnf);
				}
				k = live(stk, on, g->in_from, g->in_start[n],
					 g->in_start[n + 1]);
				for (uint32_t l = 0; l < k; l++) {
					uint32_t i = stk[l];
					uint32_t x = g->in_from[i];
					os_add(g, &out, x, g->in_edges[i], i, false,
					       true);
					if (!narrow)
						on[x].out.d = os_d(&out, x);
					if (os_zero(&out, x) &&
					    !(on[x].pend & 1)) {
						on[x].pend |= 1;
						pk[npk++] = didx[x];
					}
					(void)on_rekey(&q, &on[x], &nnf);
				}
			}
		}
		for (size_t j = 0; sorter && j < nsrcs + nsinks; j++)
			sf_an__cg_sorter_give(sorter, j < nsrcs ? srcs[j] :
						      sinks[j - nsrcs]);
		memcpy(left + nleft, srcs, nsrcs * sizeof(*srcs));
		nleft += nsrcs;
		/* RIGHT = SINKS + RIGHT: collect rounds, reverse at the end */
		for (size_t j = nsinks; j-- > 0;)
			right[nright++] = sinks[j];
	}
	}
	if (sorter) {
		sf_an__cg_sorter_end(sorter, true);
		sorter = NULL;
		*sorted = true;
	}
	/* L = LEFT + RIGHT; right[] holds RIGHT reversed */
	for (size_t i = 0; i < nleft; i++)
		pos[left[i]] = (uint32_t)i;
	for (size_t i = 0; i < nright; i++)
		pos[right[nright - 1 - i]] = (uint32_t)(nleft + i);

	/* 5.3/5.4 layers, in L order */
	{
		uint32_t *L = queue;   /* reuse */
		for (size_t n = 1; n < N; n++)
			L[pos[n]] = (uint32_t)n;
		for (size_t i = 0; i < nd; i++) {
			uint32_t y = L[i];
			uint32_t ly = 0;
			for (uint32_t j = g->in_start[y]; j < g->in_start[y + 1];
			     j++) {
				uint32_t x = g->in_from[j];
				if (x == STAR || x == y || pos[x] >= pos[y])
					continue;
				if (layer[x] + 1 > ly)
					ly = layer[x] + 1;
			}
			layer[y] = ly;
		}
	}
	/* 5.5 */
	for (size_t n = 1; n < N; n++)
		keys[n - 1] = (struct ordkey){ (uint32_t)n, layer[n], pos[n],
					       g->nodes[n].total };
	ord_sort(keys, N - 1, keys + N, NULL);
	for (size_t i = 0; i + 1 < N; i++) {
		g->order[i] = keys[i].node;
		g->index[keys[i].node] = (uint32_t)(i + 1);
	}
done:
	if (sorter)
		sf_an__cg_sorter_end(sorter, false);
	os_free(&in, N);
	os_free(&out, N);
	mpq_clear(best);
	mpq_clear(r);
	free(disc);
	free(queue);
	free(seen);
	free(on);
	free(cand);
	free(stk);
	free(didx);
	free(pk);
	free(pr);
	free(left);
	free(sinks);
	free(right);
	free(srcs);
	free(pos);
	free(layer);
	free(rd);
	free(keys);
	return rc;
}

int sf_an__cg_finish(struct sf_an_cg *g, struct sf_ctx *ctx)
{
	bool sorted = false;
	int rc = 0;

	/* adjacency, newest created first */
	if (sf_an__cg_adjacency(g, ctx))
		rc = sf_error_nomem(ctx);
	else if (!(rc = order_nodes(g, ctx, &sorted)) && !sorted &&
		 /* 7: sort real nodes' lists; * keeps newest-first */
		 sf_an__cg_sort(g, sf_jobs(ctx)))
		rc = sf_error_nomem(ctx);
	if (rc)
		sf_an_cg_free(g);
	return rc;
}

int sf_an__cg_build(struct sf_an_cg **out, const struct sf_an_view *v,
		    bool slow, struct sf_ctx *ctx)
{
	int rc = sf_an__cg_walk(out, v, slow, ctx);

	if (!rc && (rc = sf_an__cg_finish(*out, ctx)))
		*out = NULL;
	return rc;
}

int sf_an_cg_build(struct sf_an_cg **out, const struct sf_an_view *v,
		   struct sf_ctx *ctx)
{
	return sf_an__cg_build(out, v, false, ctx);
}
