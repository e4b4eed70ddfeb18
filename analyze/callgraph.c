/*
 * callgraph.c - the call graph of Racket's profile/analyzer, exactly as
 * docs/analyze.md, section "Call graph", defines it.
 *
 * Speed with exactness: weights are integers (view units).  One walk
 * over the view samples (samples folded by stack and thread), in
 * processing order, creates the edges a stack names for the first time,
 * in occurrence order (an N x N table of edge ids when there are few
 * functions, else a hash map, whose slots for the next samples' edges are
 * asked for while this one is walked) and adds their sums; the stacks
 * come to it made, with the functions' counts and sums, in blocks that a
 * second thread makes ahead when there are two jobs (cgstacks.c).
 * (Looking edges up once per view node instead was tried: where nearly
 * every view node is an edge of its own, as on the timeline of
 * docs/PERFORMANCE.md, session 13, it saved nothing.)  The caller
 * and callee times, w / count per occurrence, are kept exactly as 128-bit
 * integers over one common denominator, the lcm of the counts met so far
 * (raised, and the sums scaled up, when a new count does not divide it);
 * should a sum or the denominator overflow, they are recomputed with a
 * list of integer sums per divisor instead (exact for any value).  The
 * ordering of docs/analyze.md, call graph 5 and 7, and the output then run
 * on those 128-bit numerators (one denominator: comparing two times is
 * comparing two integers), with GMP rationals only where a value needs
 * more: the per-divisor sums, node sums that would overflow, and the exact
 * ratios of 5.2's cycle case.
 */
#include "analyze.h"
#include "an_internal.h"
#include "cg_internal.h"
#include "hash.h"

#include <gmp.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define UNSET UINT32_MAX

struct bucket {
	uint32_t k, next;
	sf_an_w sum;
};

/* Functions up to this many (with *) get a direct table of edge ids. */
#define CG_DIRECT 1024

struct acc {
	struct sf_an_cg *g;
	struct bucket *b;
	size_t nb, capb;
	/* slow sums: per edge the heads of its caller and callee bucket
	 * lists (0 = none), apart from the edges, which the fast sums keep
	 * small */
	uint32_t *bh;
	size_t capbh;
	struct sf_idx pairs;      /* (from, to) -> edge */
	uint32_t *etab;           /* from * nnodes + to -> edge + 1, or NULL */
	bool slow;                /* bucket sums */
	bool overflow;            /* a fast sum overflowed: redo them slow */
	sf_an_w den;              /* fast: sums are in units of 1 / den */
	sf_an_w w, wden;          /* fast: the sample's weight, w * den */
	sf_an_w *per;             /* per[k] = den / k, 0 if k does not divide */
	uint32_t maxk;
};

static int bucket_add(struct acc *a, uint32_t *head, uint32_t k, sf_an_w w)
{
	for (uint32_t i = *head; i; i = a->b[i].next) {
		if (a->b[i].k == k) {
			a->b[i].sum += w;
			return 0;
		}
	}
	if (sf_grow(&a->b, &a->capb, a->nb + 1, sizeof(*a->b)))
		return -1;
	a->b[a->nb] = (struct bucket){ k, *head, w };
	*head = (uint32_t)a->nb++;
	return 0;
}

/* Give edge e times of its own, both `base` (see struct edge).  -1 when
 * out of memory. */
static int split_new(struct sf_an_cg *g, uint32_t e, sf_an_w base)
{
	if (g->nsplit >= UINT32_MAX - 1 ||
	    sf_grow(&g->split, &g->capsplit, g->nsplit + 1, sizeof(*g->split)))
		return -1;
	g->split[g->nsplit] = (struct etimes){ base, base };
	g->edges[e].split = (uint32_t)++g->nsplit;
	return 0;
}

static int edge_new(struct acc *a, uint32_t from, uint32_t to, uint32_t *out)
{
	struct sf_an_cg *g = a->g;

	/* millions of edges: a mapping reserved at once for the most the
	 * view can name (sf_an__cg_walk), else one that grows in place,
	 * where realloc would copy them and fault in the new pages while the
	 * old are held */
	if (sf_big_grow(&g->edges, &g->edges_cap,
			(g->nedges + 1) * sizeof(*g->edges)))
		return -1;
	if (g->nedges >= UINT32_MAX / 2 - 1)
		return -1;
	if (g->wide) {
		if (sf_grow(&g->wtotal, &g->capwtotal, g->nedges + 1,
			    sizeof(*g->wtotal)))
			return -1;
		g->wtotal[g->nedges] = 0;
	}
	if (a->slow) {
		if (sf_grow(&a->bh, &a->capbh, 2 * (g->nedges + 1),
			    sizeof(*a->bh)))
			return -1;
		a->bh[2 * g->nedges] = a->bh[2 * g->nedges + 1] = 0;
	}
	memset(&g->edges[g->nedges], 0, sizeof(struct edge));
	g->edges[g->nedges].from = from;
	g->edges[g->nedges].to = to;
	/* the slow sums keep every edge's divisor-1 part */
	if (a->slow && split_new(g, (uint32_t)g->nedges, 0))
		return -1;
	/* the adjacency's list lengths, counted here rather than in a pass
	 * over the 64-byte edges afterwards (cgadj.c) */
	g->out_start[from + 1]++;
	g->in_start[to + 1]++;
	*out = (uint32_t)g->nedges++;
	return 0;
}

/* key: { from, to } */
static bool edge_eq(const void *ctx, uint32_t id, const void *key)
{
	const struct sf_an_cg *g = ctx;
	const uint32_t *k = key;

	return g->edges[id].from == k[0] && g->edges[id].to == k[1];
}

/* The edge from -> to (h its hash, when there is no direct table),
 * created if this is its first occurrence. */
static inline int edge_get(struct acc *a, uint32_t from, uint32_t to,
			   uint64_t h, uint32_t *out)
{
	if (a->etab) {
		uint32_t *slot = &a->etab[(size_t)from * a->g->nnodes + to];
		if (*slot) {
			*out = *slot - 1;
			return 0;
		}
		if (edge_new(a, from, to, out))
			return -1;
		*slot = *out + 1;
		return 0;
	}
	uint32_t key[2] = { from, to };
	if (sf_idx_find(&a->pairs, h, edge_eq, a->g, key, out))
		return 0;
	if (edge_new(a, from, to, out) || !sf_idx_insert(&a->pairs, h, *out))
		return -1;
	return 0;
}

static sf_an_w gcd_w(sf_an_w x, sf_an_w y)
{
	while (y) {
		sf_an_w t = x % y;
		x = y;
		y = t;
	}
	return x;
}

/* Fast sums: make k divide the common denominator (scaling the sums made
 * so far).  False when the denominator or a sum would overflow. */
static bool den_admit(struct acc *a, uint32_t k)
{
	struct sf_an_cg *g = a->g;
	sf_an_w f = (sf_an_w)k / gcd_w(a->den, k), nden;

	/* keep the denominator well inside 128 bits, so that the sums have
	 * room for the weights */
	if (__builtin_mul_overflow(a->den, f, &nden) ||
	    nden > ((sf_an_w)1 << 96))
		return false;
	/* the other edges' times are total * den: they follow */
	for (size_t i = 0; i < g->nsplit; i++) {
		struct etimes *x = &g->split[i];
		if (__builtin_mul_overflow(x->caller, f, &x->caller) ||
		    __builtin_mul_overflow(x->callee, f, &x->callee))
			return false;
	}
	a->den = nden;
	if (__builtin_mul_overflow(a->w, nden, &a->wden))
		return false;
	for (uint32_t j = 1; j <= a->maxk; j++)
		a->per[j] = nden % j ? 0 : nden / j;
	return true;
}

/* sum += w / k */
__attribute__((always_inline))
static inline int time_add(struct acc *a, sf_an_w *sum, uint32_t *head,
			   uint32_t k, sf_an_w w)
{
	if (a->slow) {
		if (k == 1) {
			*sum += w;
			return 0;
		}
		return bucket_add(a, head, k, w);
	}
	sf_an_w t;
	if (a->overflow)
		return 0;
	if (k == 1) {
		/* no recursion: w * den, made once per sample */
		if (__builtin_add_overflow(*sum, a->wden, sum))
			a->overflow = true;
		return 0;
	}
	if ((!a->per[k] && !den_admit(a, k)) ||
	    __builtin_mul_overflow(w, a->per[k], &t) ||
	    __builtin_add_overflow(*sum, t, sum))
		a->overflow = true;
	return 0;
}

/* One occurrence of edge e in the sample with stamp `st`. */
__attribute__((always_inline))
static inline int occur(struct acc *a, uint32_t e, uint32_t st, sf_an_w w,
			uint32_t kcaller, uint32_t kcallee, bool totals)
{
	struct sf_an_cg *g = a->g;
	struct edge *x = &g->edges[e];
	struct etimes *t;

	if (totals && x->stamp != st) {
		x->stamp = st;
		if (g->wide)
			g->wtotal[e] += w;
		else
			x->total += (int64_t)w;
	}
	if (!x->split) {
		/* a function's count is the same wherever it is in the
		 * stack, so every occurrence of an edge in one sample has
		 * the same counts, and the first with a count other than 1
		 * is the edge's first in this sample: its times so far are
		 * the earlier samples' total */
		sf_an_w base;
		if (kcaller == 1 && kcallee == 1)
			return 0;
		if (a->overflow)
			return 0;
		if (__builtin_mul_overflow(edge_total(g, e) - w, a->den,
					   &base)) {
			a->overflow = true;
			return 0;
		}
		if (split_new(g, e, base))
			return -1;
	}
	t = &g->split[x->split - 1];
	/* caller_time is divided by the callee's count, callee_time by the
	 * caller's count (docs/analyze.md, call graph 3 step 6, 9.1) */
	if (time_add(a, &t->caller, a->bh + 2 * (size_t)e, kcaller, w))
		return -1;
	return time_add(a, &t->callee, a->bh + 2 * (size_t)e + 1, kcallee,
			w);
}

/* After the fast sums: whether the times kept nowhere, total * den, fit
 * (weights are never negative, so the largest total decides; every sum
 * of the same weights overflows exactly when it would) */
static bool derived_fit(const struct acc *a)
{
	const struct sf_an_cg *g = a->g;
	sf_an_w m = 0, p;

	if (!__builtin_mul_overflow(g->total_time, a->den, &p))
		return true;
	for (size_t e = 0; e < g->nedges; e++)
		if (!g->edges[e].split && edge_total(g, (uint32_t)e) > m)
			m = edge_total(g, (uint32_t)e);
	return !__builtin_mul_overflow(m, a->den, &p);
}

static void mpz_set_w(mpz_t z, sf_an_w v)
{
	unsigned __int128 u = v < 0 ? -(unsigned __int128)v :
			      (unsigned __int128)v;
	uint64_t limbs[2] = { (uint64_t)u, (uint64_t)(u >> 64) };

	mpz_import(z, 2, -1, sizeof(uint64_t), 0, 0, limbs);
	if (v < 0)
		mpz_neg(z, z);
}

static void rational(mpq_t q, sf_an_w one, const struct bucket *b,
		     uint32_t head, mpq_t tmp)
{
	mpz_set_w(mpq_numref(q), one);
	mpz_set_ui(mpq_denref(q), 1);
	for (uint32_t i = head; i; i = b[i].next) {
		mpz_set_w(mpq_numref(tmp), b[i].sum);
		mpz_set_ui(mpq_denref(tmp), b[i].k);
		mpq_canonicalize(tmp);
		mpq_add(q, q, tmp);
	}
}

void sf_an__cg_rational(mpq_t q, sf_an_w sum, sf_an_w den)
{
	mpz_set_w(mpq_numref(q), sum);
	mpz_set_w(mpq_denref(q), den);
	mpq_canonicalize(q);
}

/* The edges' times as GMP rationals, from the bucket sums `b` with their
 * lists' heads `bh` (slow sums) or, with b NULL, from the numerators over
 * g->den. */
static int mpq_edges(struct sf_an_cg *g, const struct bucket *b,
		     const uint32_t *bh)
{
	mpq_t tmp;

	g->caller = malloc((g->nedges ? g->nedges : 1) * sizeof(mpq_t));
	g->callee = malloc((g->nedges ? g->nedges : 1) * sizeof(mpq_t));
	if (!g->caller || !g->callee) {
		free(g->caller);
		free(g->callee);
		g->caller = g->callee = NULL;
		return -1;
	}
	mpq_init(tmp);
	for (size_t e = 0; e < g->nedges; e++) {
		mpq_init(g->caller[e]);
		mpq_init(g->callee[e]);
		sf_an_w cr = time_num(g, (uint32_t)e, false);
		sf_an_w ce = time_num(g, (uint32_t)e, true);
		if (b) {
			rational(g->caller[e], cr, b, bh[2 * e], tmp);
			rational(g->callee[e], ce, b, bh[2 * e + 1], tmp);
		} else {
			sf_an__cg_rational(g->caller[e], cr, g->den);
			sf_an__cg_rational(g->callee[e], ce, g->den);
		}
	}
	mpq_clear(tmp);
	return 0;
}

void sf_an_cg_free(struct sf_an_cg *g)
{
	if (!g)
		return;
	if (g->caller) {
		for (size_t e = 0; e < g->nedges; e++) {
			mpq_clear(g->caller[e]);
			mpq_clear(g->callee[e]);
		}
	}
	for (size_t n = 0; g->nodes && n < g->nnodes; n++)
		free(g->nodes[n].tids);
	free(g->caller);
	free(g->callee);
	free(g->nodes);
	sf_big_free(g->edges, g->edges_cap);
	free(g->wtotal);
	free(g->split);
	free(g->thread_time);
	free(g->out_start);
	free(g->out_edges);
	free(g->in_start);
	free(g->in_edges);
	free(g->out_to);
	free(g->in_from);
	free(g->out_t);
	free(g->in_t);
	free(g->order);
	free(g->index);
	free(g);
}

/* ----- 5: node order ----- */

struct ordkey {
	uint32_t node, layer, pos;
	sf_an_w total;
};

static int cmp_ord(const void *a, const void *b)
{
	const struct ordkey *x = a, *y = b;

	if (x->layer != y->layer)
		return x->layer < y->layer ? -1 : 1;
	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	return (x->pos < y->pos) - (x->pos > y->pos);   /* later in L first */
}

/* What 5.2's updates touch of a node, in one cache line: its in and out
 * (numerators over g->den while they are not rationals), their doubles,
 * its heap slot, whether it is still in W, whether its in/out is not
 * finite, and whether it waits to be a sink (1) or a source (2).  A
 * removed node's neighbours are scattered, and these were eight arrays,
 * each a cache miss of its own per update. */
struct onode {
	sf_an_w in, out;
	double ind, outd;
	uint32_t at;        /* heap slot, UINT32_MAX if none */
	bool inw, nonfin;
	unsigned char pend;
} __attribute__((aligned(64)));

/* The heap of 5.2's cycle case: W's nodes by in/out as doubles, least
 * first; a non-finite quotient keys as INFINITY and is counted apart.
 * The keys stay an array of their own: a sift compares the keys of the
 * nodes on its path, and 8 bytes a node stay in the core's cache. */
struct rheap {
	uint32_t *h;        /* nodes */
	double *k;          /* by node */
	struct onode *nd;   /* the nodes' slots */
	size_t n;
};

static void rh_put(struct rheap *q, size_t i, uint32_t node)
{
	q->h[i] = node;
	q->nd[node].at = (uint32_t)i;
}

static void rh_fix(struct rheap *q, size_t i)
{
	uint32_t node = q->h[i];
	double k = q->k[node];

	while (i && q->k[q->h[(i - 1) / 2]] > k) {
		rh_put(q, i, q->h[(i - 1) / 2]);
		i = (i - 1) / 2;
	}
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= q->n)
			break;
		if (c + 1 < q->n && q->k[q->h[c + 1]] < q->k[q->h[c]])
			c++;
		if (!(q->k[q->h[c]] < k))
			break;
		rh_put(q, i, q->h[c]);
		i = c;
	}
	rh_put(q, i, node);
}

/* set node's key from ind/outd, adding it when absent */
static void rh_key(struct rheap *q, uint32_t node, size_t *nnf)
{
	struct onode *x = &q->nd[node];
	double v = x->ind / x->outd;
	bool f = !isfinite(v);

	if (f != x->nonfin) {
		x->nonfin = f;
		*nnf = f ? *nnf + 1 : *nnf - 1;
	}
	q->k[node] = f ? INFINITY : v;
	if (x->at == UINT32_MAX)
		rh_put(q, q->n++, node);
	rh_fix(q, x->at);
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
	if (i != --q->n) {
		rh_put(q, i, q->h[q->n]);
		rh_fix(q, i);
	}
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
 * times are (nd's in or out), else rationals (q). */
struct osum {
	struct onode *nd;
	bool out;
	mpq_t *q;
};

static inline sf_an_w *os_w(const struct osum *s, uint32_t n)
{
	return s->out ? &s->nd[n].out : &s->nd[n].in;
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
		*os_w(s, n) += sub ? -t : t;
	}
}

static inline int os_sgn(const struct osum *s, uint32_t n)
{
	if (s->q)
		return mpq_sgn(s->q[n]);
	sf_an_w w = *os_w(s, n);
	return (w > 0) - (w < 0);
}

/* A 128-bit integer as the nearest double: in 64 bits when it fits,
 * the same value without a call to convert 128 bits (two per update of
 * 5.2, 7.5 million on the timeline of docs/PERFORMANCE.md) */
static inline double w_double(sf_an_w v)
{
	return v >= INT64_MIN && v <= INT64_MAX ? (double)(int64_t)v :
						  (double)v;
}

/* near s[n]: only to narrow the candidates of an exact choice */
static inline double os_d(const struct sf_an_cg *g, const struct osum *s,
			  uint32_t n)
{
	return s->q ? mpq_get_d(s->q[n]) :
		      w_double(*os_w(s, n)) / w_double(g->den);
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
	sf_an__cg_rational(r, *os_w(in, n), *os_w(out, n));
}

/* in and out of every node (5.1) into nd (zeroed), as numerators when
 * every sum fits, so that no partial sum of 5.2's subtractions can
 * overflow (the times are never negative, as the weights are not: the
 * view refuses them, so a partial sum lies between 0 and the whole, and
 * the sums of the magnitudes, which two more arrays kept, are the sums
 * themselves); else the edges' times become rationals and so do the
 * sums. */
static int os_init(struct sf_an_cg *g, struct onode *nd, struct osum *in,
		   struct osum *out)
{
	size_t N = g->nnodes;

	*in = (struct osum){ nd, false, NULL };
	*out = (struct osum){ nd, true, NULL };
	if (!g->caller) {
		bool over = false;
		for (size_t e = 0; e < g->nedges && !over; e++) {
			const struct edge *x = &g->edges[e];
			if (x->from == x->to || x->from == STAR ||
			    x->to == STAR)
				continue;
			sf_an_w ce = time_num(g, (uint32_t)e, true);
			sf_an_w cr = time_num(g, (uint32_t)e, false);
			over = __builtin_add_overflow(nd[x->to].in, ce,
						      &nd[x->to].in) ||
			       __builtin_add_overflow(nd[x->from].out, cr,
						      &nd[x->from].out);
		}
		if (!over)
			return 0;
		if (mpq_edges(g, NULL, NULL))
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
}

/* 5.2's updates touch a node's struct onode and its heap key, both
 * scattered: ask for those of the entry a few ahead in the list */
static inline void ahead(const struct rheap *q, uint32_t n)
{
	__builtin_prefetch(&q->nd[n], 1);
	__builtin_prefetch(&q->k[n], 1);
}

static int order_nodes(struct sf_an_cg *g, struct sf_ctx *ctx)
{
	size_t N = g->nnodes;
	uint32_t *disc = malloc(N * sizeof(*disc));
	uint32_t *queue = malloc((N + 1) * sizeof(*queue));
	bool *seen = calloc(N, sizeof(*seen));
	/* aligned: each node's one cache line */
	struct onode *on = aligned_alloc(64, N * sizeof(*on));
	uint32_t *cand = malloc(N * sizeof(*cand));
	uint32_t *stk = malloc((2 * N + 2) * sizeof(*stk));
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
	struct ordkey *keys = malloc(N * sizeof(*keys));
	mpq_t best, r;
	size_t nd = 0, qh = 0, qt = 0, nleft = 0, nright = 0;
	int rc = 0;

	mpq_init(best);
	mpq_init(r);
	if (on)
		memset(on, 0, N * sizeof(*on));
	if (!disc || !queue || !seen || !on || !cand || !stk || !didx ||
	    !pk || !pr || !left || !sinks || !right || !srcs || !pos ||
	    !layer || !rd || !keys || os_init(g, on, &in, &out)) {
		rc = sf_error_nomem(ctx);
		goto done;
	}

	/* 5.1 discovery: BFS from *, callees newest first */
	queue[qt++] = STAR;
	seen[STAR] = true;
	while (qh < qt) {
		uint32_t n = queue[qh++];
		if (n != STAR)
			disc[nd++] = n;
		for (uint32_t i = g->out_start[n]; i < g->out_start[n + 1]; i++) {
			uint32_t y = g->out_to[i];
			if (!seen[y]) {
				seen[y] = true;
				queue[qt++] = y;
			}
		}
	}
	/* in/out (os_init): without self-edges and * edges; in by
	 * callee_time, out by caller_time */
	for (size_t n = 1; n < N; n++) {
		on[n].ind = os_d(g, &in, (uint32_t)n);
		on[n].outd = os_d(g, &out, (uint32_t)n);
	}

	/* 5.2 linear order.  Each round's sinks and sources are the nodes
	 * whose out or in reached zero since the last round (kept in pk and
	 * pr by discovery index, sorted into W order), and the cycle case
	 * takes its candidates from a heap on in/out as doubles, so a round
	 * costs what it removes and touches, not |W|. */
	{
	struct rheap q = { queue, rd, on, 0 };
	size_t nrem = nd, npk = 0, npr = 0, nnf = 0;

	for (size_t d = 0; d < nd; d++) {
		uint32_t n = disc[d];
		didx[n] = (uint32_t)d;
		on[n].inw = true;
		on[n].at = UINT32_MAX;
		if (!os_sgn(&out, n)) {
			on[n].pend |= 1;
			pk[npk++] = (uint32_t)d;
		}
		if (!os_sgn(&in, n)) {
			on[n].pend |= 2;
			pr[npr++] = (uint32_t)d;
		}
		rh_key(&q, n, &nnf);
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
			double mind = q.n ? q.k[q.h[0]] : INFINITY;
			double lim = mind + fabs(mind) * 1e-9 + 1e-300;
			size_t nc = 0, sp = 0;
			bool have = false;
			if (nnf) {
				for (size_t d = 0; d < nd; d++) {
					uint32_t n = disc[d];
					double v;
					if (!on[n].inw)
						continue;
					v = on[n].ind / on[n].outd;
					if (!(v <= lim) && isfinite(v))
						continue;
					cand[nc++] = (uint32_t)d;
				}
			} else if (q.n) {
				stk[sp++] = 0;
				while (sp) {
					uint32_t i = stk[--sp];
					if (i >= q.n || !(q.k[q.h[i]] <= lim))
						continue;
					cand[nc++] = didx[q.h[i]];
					stk[sp++] = 2 * i + 1;
					stk[sp++] = 2 * i + 2;
				}
			}
			for (size_t j = 0; j < nc; j++) {
				uint32_t n = disc[cand[j]];
				os_ratio(r, &in, &out, n);
				if (!have || mpq_cmp(r, best) < 0) {
					mpq_set(best, r);
					have = true;
				}
			}
			/* in reverse W order: lower discovery index first */
			qsort(cand, nc, sizeof(*cand), cmp_u32_asc);
			for (size_t j = 0; j < nc; j++) {
				uint32_t n = disc[cand[j]];
				os_ratio(r, &in, &out, n);
				if (mpq_equal(r, best))
					srcs[nsrcs++] = n;
			}
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
				uint32_t n = list[j];
				for (uint32_t i = g->out_start[n];
				     i < g->out_start[n + 1]; i++) {
					uint32_t e = g->out_edges[i];
					uint32_t y = g->out_to[i];
					if (i + 8 < g->out_start[n + 1])
						ahead(&q, g->out_to[i + 8]);
					if (y == STAR || !on[y].inw)
						continue;
					os_add(g, &in, y, e, i, true, true);
					on[y].ind = os_d(g, &in, y);
					if (!os_sgn(&in, y) &&
					    !(on[y].pend & 2)) {
						on[y].pend |= 2;
						pr[npr++] = didx[y];
					}
					rh_key(&q, y, &nnf);
				}
				for (uint32_t i = g->in_start[n];
				     i < g->in_start[n + 1]; i++) {
					uint32_t e = g->in_edges[i];
					uint32_t x = g->in_from[i];
					if (i + 8 < g->in_start[n + 1])
						ahead(&q, g->in_from[i + 8]);
					if (x == STAR || !on[x].inw)
						continue;
					os_add(g, &out, x, e, i, false, true);
					on[x].outd = os_d(g, &out, x);
					if (!os_sgn(&out, x) &&
					    !(on[x].pend & 1)) {
						on[x].pend |= 1;
						pk[npk++] = didx[x];
					}
					rh_key(&q, x, &nnf);
				}
			}
		}
		memcpy(left + nleft, srcs, nsrcs * sizeof(*srcs));
		nleft += nsrcs;
		/* RIGHT = SINKS + RIGHT: collect rounds, reverse at the end */
		for (size_t j = nsinks; j-- > 0;)
			right[nright++] = sinks[j];
	}
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
	qsort(keys, N - 1, sizeof(*keys), cmp_ord);
	for (size_t i = 0; i + 1 < N; i++) {
		g->order[i] = keys[i].node;
		g->index[keys[i].node] = (uint32_t)(i + 1);
	}
done:
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

/* A sample's stack as call graph nodes and the hashes of the edges it
 * names come in blocks made ahead of the walk (cgstacks.c).  The walk
 * has three of them in hand, so that its scattered loads are on their
 * way before they are needed: the hash map's slots of the edges two
 * samples ahead are asked for; the next sample's slots, there by then,
 * name the edges it meets again, which are asked for in turn; this
 * sample's edges are looked up and updated.  The loads depend on nothing
 * but the stacks, so the work is done in the same order without them. */
static void slots_ahead(const struct acc *a,
			const struct sf_an__cg_block *b, size_t j)
{
	const uint64_t *h = b->h + b->off[j] + j;
	uint32_t d = b->off[j + 1] - b->off[j];

	for (uint32_t i = 0; i <= d; i++)
		__builtin_prefetch(&a->pairs.slots[sf_idx_tag(h[i]) &
						   (a->pairs.cap - 1)]);
}

/* Each edge met again is a scattered load of its own after its slot's
 * (the first entry with its hash's tag is it but for a chance of about
 * one in 2^32) */
static void edges_ahead(const struct acc *a,
			const struct sf_an__cg_block *b, size_t j)
{
	const uint64_t *h = b->h + b->off[j] + j, *slot = a->pairs.slots;
	uint32_t d = b->off[j + 1] - b->off[j];
	size_t mask = a->pairs.cap - 1;

	for (uint32_t i = 0; i <= d; i++) {
		uint64_t tag = sf_idx_tag(h[i]);
		for (size_t k = tag & mask; slot[k]; k = (k + 1) & mask) {
			if ((slot[k] >> 32) == tag) {
				__builtin_prefetch(&a->g->edges[(uint32_t)
								slot[k]], 1);
				break;
			}
		}
	}
}

/* The walk of docs/analyze.md, call graph 3, over one block of samples:
 * the edges (created, their totals with `all`, their caller and callee
 * times).  Without `all` only the times (the slow sums after the fast
 * ones overflowed).  Returns 0 or SF_ENOMEM. */
static int walk_block(struct acc *a, const struct sf_an_view *v,
		      const struct sf_an__cg_block *b, bool all)
{
	bool ahead = b->h && a->pairs.cap;
	uint32_t e;

	for (size_t j = 0; ahead && j < 2 && j < b->n; j++)
		slots_ahead(a, b, j);
	for (size_t j = 0; j < b->n; j++) {
		uint32_t o = b->off[j], d = b->off[j + 1] - o;
		uint32_t st = b->si[j] + 1;
		const uint32_t *cgp = b->cgp + o, *cnt = b->cnt + o;
		const uint64_t *h = b->h ? b->h + o + j : NULL;
		sf_an_w w = v->samples[b->si[j]].w;

		if (ahead && j + 2 < b->n)
			slots_ahead(a, b, j + 2);
		if (ahead && j + 1 < b->n)
			edges_ahead(a, b, j + 1);
		a->w = w;
		if (!a->slow && !a->overflow &&
		    __builtin_mul_overflow(w, a->den, &a->wden))
			a->overflow = true;
		/* edge occurrences in the order of docs/analyze.md, call
		 * graph 3 step 6, which is also their creation order */
		if (edge_get(a, STAR, cgp[0], h ? h[0] : 0, &e) ||
		    occur(a, e, st, w, cnt[0], 1, all) ||
		    edge_get(a, cgp[d - 1], STAR, h ? h[d] : 0, &e) ||
		    occur(a, e, st, w, 1, cnt[d - 1], all))
			return SF_ENOMEM;
		for (uint32_t i = d - 1; i >= 1; i--)
			if (edge_get(a, cgp[i - 1], cgp[i], h ? h[i] : 0, &e) ||
			    occur(a, e, st, w, cnt[i], cnt[i - 1], all))
				return SF_ENOMEM;
	}
	return 0;
}

/* The walk over every block, in processing order; with `nodes` the
 * blocks' making adds the functions' sums.  Returns 0, SF_ENOMEM or
 * SF_EINTR; sets no error. */
static int walk_samples(struct acc *a, const struct sf_an_view *v,
			bool all, bool nodes, const struct sf_ctx *ctx)
{
	struct sf_an__cg_stacks *s;
	const struct sf_an__cg_block *b;
	int rc = 0;

	/* the hash map's fresh pages, cleared by the kernel at their first
	 * write: the walk writes them all within its first blocks */
	if (sf_an__cg_stacks_new(&s, a->g, v, nodes, !a->etab, sf_jobs(ctx),
				 a->pairs.bytes ? a->pairs.slots : NULL,
				 a->pairs.bytes))
		return SF_ENOMEM;
	while (!rc && (b = sf_an__cg_stacks_next(s, &rc)))
		rc = sf_interrupted(ctx) ? SF_EINTR : walk_block(a, v, b, all);
	sf_an__cg_stacks_free(s);
	return rc;
}

/* The most edges the view's samples can name: one per view node below the
 * root (caller -> callee, or * -> a root frame) and one per function (it
 * -> *, as a leaf), and never more than every pair of nodes.  The hash
 * map is made that large at once: doubling it as the edges come rehashed
 * every entry at each step (on the timeline of docs/PERFORMANCE.md, with
 * nearly an edge per view node, 9 % of the run), and the bound is a
 * table of at most 16 bytes per view node, beside the view's own. */
static size_t edges_bound(const struct sf_an_view *v)
{
	size_t n = v->nnodes + v->nfuncs;
	size_t f = v->nfuncs + 1;

	return f < ((size_t)1 << 31) / f && f * f < n ? f * f : n;
}

/* A walk's result as the context's error */
static int walk_error(struct sf_ctx *ctx, int rc)
{
	if (rc == SF_EINTR)
		return sf_error(ctx, SF_EINTR, NULL, 0, "interrupted");
	return rc ? sf_error_nomem(ctx) : 0;
}

int sf_an__cg_walk(struct sf_an_cg **out, const struct sf_an_view *v,
		   bool slow, struct sf_ctx *ctx)
{
	struct sf_an_cg *g = calloc(1, sizeof(*g));
	struct acc a = { .g = g, .slow = slow, .den = 1 };
	size_t N = v->nfuncs + 1;
	int rc = 0;

	if (!g)
		return sf_error_nomem(ctx);
	g->exp = v->exp;
	g->type = v->type;
	g->unit = v->unit;
	g->names = v->names;
	g->nnodes = N;
	g->nraw = v->nraw;
	g->max_id = v->max_id;
	g->total_time = v->total;
	g->wide = v->total > INT64_MAX;
	a.nb = 1;   /* bucket 0 means "none" */
	a.maxk = v->maxdepth;
	g->nodes = calloc(N, sizeof(*g->nodes));
	g->thread_time = calloc((size_t)(v->max_id + 1) + 1,
				sizeof(*g->thread_time));
	a.per = calloc((size_t)v->maxdepth + 2, sizeof(*a.per));
	g->order = malloc(N * sizeof(*g->order));
	g->index = calloc(N, sizeof(*g->index));
	g->out_start = calloc(N + 1, sizeof(uint32_t));
	g->in_start = calloc(N + 1, sizeof(uint32_t));
	if (N <= CG_DIRECT)
		a.etab = calloc(N * N, sizeof(*a.etab));
	if (!g->nodes || !g->thread_time || !a.per || !g->order || !g->index || !g->out_start ||
	    !g->in_start ||
	    (N <= CG_DIRECT && !a.etab) ||
	    (!a.etab && !sf_idx_reserve(&a.pairs, edges_bound(v))))
		goto enomem;
	/* the edges' room taken once, as address space: a page is touched
	 * when an edge is first written to it.  Grown by doubling instead,
	 * the array was moved six times on the timeline of
	 * docs/PERFORMANCE.md (mremap 4 -> 128 MB) and ended 8 MB larger
	 * than its 3.76 million edges.  Too small for a mapping of its own
	 * (or under AddressSanitizer) it grows as it goes.  Its first pages
	 * are those the caller kept (sfanalyze: the profile's stack tree,
	 * done with once the view is built), already faulted in, where
	 * fresh ones would be zeroed by the kernel; what is left of them
	 * is given back rather than held through the graph's peak. */
	(void)sf_big_reserve_kept(ctx, &g->edges, &g->edges_cap,
				  edges_bound(v) * sizeof(*g->edges));
	sf_big_drop(ctx);
	a.per[1] = 1;
	for (size_t n = 0; n < N; n++)
		g->nodes[n].lastthr = INT64_MIN;

	/* 3 */
	if ((rc = walk_error(ctx, walk_samples(&a, v, true, true, ctx))))
		goto fail;
	if (!a.slow && !a.overflow && !derived_fit(&a))
		a.overflow = true;
	if (a.overflow) {
		/* the slow sums keep every edge's times */
		for (size_t i = 0; i < g->nsplit; i++)
			g->split[i] = (struct etimes){ 0, 0 };
		for (size_t e = 0; e < g->nedges; e++)
			if (!g->edges[e].split &&
			    split_new(g, (uint32_t)e, 0))
				goto enomem;
		a.slow = true;
		a.capbh = 2 * g->nedges + 2;
		if (!(a.bh = calloc(a.capbh, sizeof(*a.bh))))
			goto enomem;
		if ((rc = walk_error(ctx, walk_samples(&a, v, false, false,
							  ctx))))
			goto fail;
	}
	g->slow = a.slow;
	g->nodes[STAR].total = g->total_time;
	/* the edges are found: the heap gives the look-up's memory (64 MB
	 * on the timeline) to the adjacency below, whose pages are then
	 * not new (a new page is zeroed: on a virtual machine about as
	 * long as it takes to fill it) */
	sf_idx_free(&a.pairs);
	free(a.etab);
	a.etab = NULL;

	/* exact edge times: the slow sums' become rationals now, the fast
	 * ones stay numerators over den (order_nodes may still turn them into
	 * rationals, should its sums overflow) */
	g->den = a.den;
	if (a.slow && mpq_edges(g, a.b, a.bh))
		goto enomem;
	goto done;
enomem:
	rc = sf_error_nomem(ctx);
fail:
	sf_an_cg_free(g);
	g = NULL;
done:
	free(a.b);
	free(a.bh);
	sf_idx_free(&a.pairs);
	free(a.etab);
	free(a.per);
	if (!rc)
		*out = g;
	return rc;
}

int sf_an__cg_finish(struct sf_an_cg *g, struct sf_ctx *ctx)
{
	int rc = 0;

	/* adjacency, newest created first */
	if (sf_an__cg_adjacency(g, sf_jobs(ctx)))
		rc = sf_error_nomem(ctx);
	else if (!(rc = order_nodes(g, ctx)) &&
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

bool sf_an__cg_slow(const struct sf_an_cg *g)
{
	return g->slow;
}
