/*
 * callgraph.c - the call graph of Racket's profile/analyzer, exactly as
 * docs/analyze.md, section "Call graph", defines it.
 *
 * Speed with exactness: weights are integers (view units).  Two walks
 * over the view samples (samples folded by stack and thread), in
 * processing order, on two threads when there are two jobs: one creates
 * the edges a stack names for the first time, in occurrence order (an
 * N x N table of edge ids when there are few functions, else a hash map,
 * whose slots for the next sample's edges are asked for while this one
 * is walked) and adds their sums; the other marks thread ids per function
 * and adds the functions' sums.
 * (Looking edges up once per view node instead was tried: where nearly
 * every view node is an edge of its own, as on the timeline of
 * docs/PERFORMANCE.md, session 13, it saved nothing.)  The caller
 * and callee times, w / count per occurrence, are kept exactly as 128-bit
 * integers over one common denominator, the lcm of the counts met so far
 * (raised, and the sums scaled up, when a new count does not divide it);
 * should a sum or the denominator overflow, they are recomputed with a
 * list of integer sums per divisor instead (exact for any value).  The
 * ordering of docs/analyze.md, call graph 5 and 7 (cgorder.c, cgadj.c),
 * and the output then run on those 128-bit numerators (one denominator:
 * comparing two times is comparing two integers), with GMP rationals only
 * where a value needs more: the per-divisor sums, node sums that would
 * overflow, and the exact ratios of 5.2's cycle case.
 */
#include "analyze.h"
#include "an_internal.h"
#include "cg_internal.h"
#include "hash.h"

#include <gmp.h>
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

int sf_an__cg_mpq_edges(struct sf_an_cg *g)
{
	return mpq_edges(g, NULL, NULL);
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

/* A sample's stack as call graph nodes and the hashes of the edges it
 * names, made one sample ahead of its use with the hash map's slots for
 * them asked for: each look-up is a scattered load that depends on
 * nothing but the stack, so the next sample's are on their way while this
 * one's edges are updated. */
struct path {
	uint32_t *cgp;      /* root first */
	uint64_t *h;        /* h[0]: * -> root; h[i]: cgp[i - 1] -> cgp[i];
			     * h[d]: leaf -> * */
	uint32_t d;
};

static void path_ahead(const struct acc *a, const struct sf_an_view *v,
		       uint32_t n, struct path *p)
{
	uint32_t d = v->nodes[n].depth;

	p->d = d;
	for (uint32_t m = n, i = d; m; m = v->nodes[m].parent)
		p->cgp[--i] = v->nodes[m].func + 1;
	if (a->etab)
		return;
	p->h[0] = sf_hash_u64(STAR, p->cgp[0]);
	for (uint32_t i = 1; i < d; i++)
		p->h[i] = sf_hash_u64(p->cgp[i - 1], p->cgp[i]);
	p->h[d] = sf_hash_u64(p->cgp[d - 1], STAR);
	for (uint32_t i = 0; a->pairs.cap && i <= d; i++)
		__builtin_prefetch(&a->pairs.slots[sf_idx_tag(p->h[i]) &
						   (a->pairs.cap - 1)]);
}

/* A function's count in the sample with stamp `stamp` (the edges' walk
 * keeps these apart from struct node, which the nodes' walk writes on
 * another thread). */
struct fcount {
	uint32_t stamp, cnt;
};

/* The walk of docs/analyze.md, call graph 3, over the view samples in
 * processing order: the edges (created, their totals with `all`, their
 * caller and callee times).  Without `all` only the times (the slow sums
 * after the fast ones overflowed).  The functions' sums are walk_nodes'.
 * Returns 0, SF_ENOMEM or SF_EINTR, and sets no error: it may run on
 * another thread than the context's. */
static int walk_samples(struct acc *a, const struct sf_an_view *v,
			struct path *pa, struct fcount *fc, bool all,
			const struct sf_ctx *ctx)
{
	uint32_t e, cur = 0;
	size_t have = SIZE_MAX;   /* the sample pa[cur] holds */

	for (size_t si = 0; si < v->nsamples; si++) {
		const struct sf_an_sample *s = &v->samples[si];
		uint32_t d, n = s->node;
		uint32_t st = (uint32_t)si + 1;
		sf_an_w w = s->w;

		if ((si & 0xffff) == 0 && sf_interrupted(ctx))
			return SF_EINTR;
		if (!n)
			continue;
		if (have != si)
			path_ahead(a, v, n, &pa[cur]);
		if (si + 1 < v->nsamples && v->samples[si + 1].node) {
			path_ahead(a, v, v->samples[si + 1].node, &pa[!cur]);
			have = si + 1;
		}
		/* the walk of path_ahead is a chain of dependent loads; a
		 * chain new to the view was numbered root to leaf, so a
		 * sample's chain mostly lies just below its leaf: ask for the
		 * one after next now */
		if (si + 2 < v->nsamples) {
			const char *q = (const char *)
					&v->nodes[v->samples[si + 2].node];
			for (int k = 0; k < 8; k++)
				__builtin_prefetch(q - 64 * k);
		}
		const uint32_t *cgp = pa[cur].cgp;
		const uint64_t *h = pa[cur].h;
		if (have == si + 1)
			cur = !cur;
		a->w = w;
		if (!a->slow && !a->overflow &&
		    __builtin_mul_overflow(w, a->den, &a->wden))
			a->overflow = true;
		d = v->nodes[n].depth;
		for (uint32_t i = 0; i < d; i++) {
			struct fcount *x = &fc[cgp[i]];
			if (x->stamp != st) {
				x->stamp = st;
				x->cnt = 1;
			} else {
				x->cnt++;
			}
		}
		uint32_t root = cgp[0], leaf = cgp[d - 1];
		/* edge occurrences in the order of docs/analyze.md, call graph 3 step 6,
		 * which is also their creation order */
		if (edge_get(a, STAR, root, h[0], &e) ||
		    occur(a, e, st, w, fc[root].cnt, 1, all) ||
		    edge_get(a, leaf, STAR, h[d], &e) ||
		    occur(a, e, st, w, 1, fc[leaf].cnt, all))
			return SF_ENOMEM;
		for (uint32_t i = d - 1; i >= 1; i--)
			if (edge_get(a, cgp[i - 1], cgp[i], h[i], &e) ||
			    occur(a, e, st, w, fc[cgp[i]].cnt,
				  fc[cgp[i - 1]].cnt, all))
				return SF_ENOMEM;
	}
	return 0;
}

/* The same walk for the functions: every thread's time, each function's
 * total (once per sample it is in), self time and thread ids (in
 * processing order).  It touches nothing walk_samples does, so the two
 * run on two threads.  Returns 0, SF_ENOMEM or SF_EINTR; sets no error. */
static int walk_nodes(struct sf_an_cg *g, const struct sf_an_view *v,
		      const struct sf_ctx *ctx)
{
	for (size_t si = 0; si < v->nsamples; si++) {
		const struct sf_an_sample *s = &v->samples[si];
		int64_t T = v->threads[s->thread].id;
		uint32_t st = (uint32_t)si + 1;
		sf_an_w w = s->w;

		if ((si & 0xffff) == 0 && sf_interrupted(ctx))
			return SF_EINTR;
		g->thread_time[T] += w;
		if (!s->node)
			continue;
		g->nodes[v->nodes[s->node].func + 1].self += w;
		for (uint32_t m = s->node; m; m = v->nodes[m].parent) {
			struct node *x = &g->nodes[v->nodes[m].func + 1];
			if (x->stamp == st)
				continue;
			x->stamp = st;
			x->total += w;
			if (x->lastthr == T)
				continue;
			if (x->ntids == x->captids) {
				uint32_t nc = x->captids ? x->captids * 2 : 2;
				int64_t *nt = sf_reallocarray(x->tids, nc,
							      sizeof(*nt));
				if (!nt)
					return SF_ENOMEM;
				x->tids = nt;
				x->captids = nc;
			}
			x->tids[x->ntids++] = T;
			x->lastthr = T;
		}
	}
	return 0;
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

/* The first walk: the edges' (task 0, on the calling thread) and the
 * functions' (task 1). */
struct walkjob {
	struct acc *a;
	const struct sf_an_view *v;
	struct path *pa;
	struct fcount *fc;
	const struct sf_ctx *ctx;
	int rc[2];
};

static void walk_task(void *arg, size_t k)
{
	struct walkjob *j = arg;

	j->rc[k] = k ? walk_nodes(j->a->g, j->v, j->ctx) :
		       walk_samples(j->a, j->v, j->pa, j->fc, true, j->ctx);
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
	uint32_t *cgp = NULL;
	struct fcount *fc = NULL;
	uint64_t *hs = NULL;
	struct path pa[2];
	struct walkjob wj = { &a, v, pa, NULL, ctx, { 0, 0 } };
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
	cgp = malloc(2 * ((size_t)v->maxdepth + 1) * sizeof(*cgp));
	hs = calloc(2 * ((size_t)v->maxdepth + 1), sizeof(*hs));
	wj.fc = fc = calloc(N, sizeof(*fc));
	pa[0] = (struct path){ cgp, hs, 0 };
	pa[1] = (struct path){ cgp ? cgp + v->maxdepth + 1 : NULL,
			       hs ? hs + v->maxdepth + 1 : NULL, 0 };
	a.per = calloc((size_t)v->maxdepth + 2, sizeof(*a.per));
	g->order = malloc(N * sizeof(*g->order));
	g->index = calloc(N, sizeof(*g->index));
	g->out_start = calloc(N + 1, sizeof(uint32_t));
	g->in_start = calloc(N + 1, sizeof(uint32_t));
	if (N <= CG_DIRECT)
		a.etab = calloc(N * N, sizeof(*a.etab));
	if (!g->nodes || !g->thread_time || !cgp || !hs || !fc ||
	    !a.per || !g->order || !g->index || !g->out_start ||
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
	sf_run_tasks(sf_jobs(ctx), 2, walk_task, &wj);
	if ((rc = walk_error(ctx, wj.rc[0] ? wj.rc[0] : wj.rc[1])))
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
		/* the counts start again: a stamp left by the first walk
		 * would match the same sample's in this one */
		memset(fc, 0, N * sizeof(*fc));
		if ((rc = walk_error(ctx, walk_samples(&a, v, pa, fc, false,
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
	free(cgp);
	free(hs);
	free(fc);
	if (!rc)
		*out = g;
	return rc;
}

bool sf_an__cg_slow(const struct sf_an_cg *g)
{
	return g->slow;
}
