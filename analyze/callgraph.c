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

/* The rare part of making edge g->nedges: room for it when its mapping
 * (or, too small for one, its heap array) is full, and the per-edge
 * arrays of a wide total or of the slow sums.  -1 when out of memory. */
static __attribute__((noinline)) int edge_room(struct acc *a)
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
	return 0;
}

/* A new edge, from -> to.  Inline, its rare part apart: the timeline of
 * docs/PERFORMANCE.md makes 3.76 million, and as a call of its own with
 * the room's check a call too it took 66 instructions an edge (session
 * 20). */
static inline int edge_new(struct acc *a, uint32_t from, uint32_t to,
			   uint32_t *out)
{
	struct sf_an_cg *g = a->g;
	size_t e = g->nedges;

	if (((e + 1) * sizeof(*g->edges) > g->edges_cap ||
	     e >= UINT32_MAX / 2 - 1 || g->wide || a->slow) && edge_room(a))
		return -1;
	g->edges[e] = (struct edge){ .from = from, .to = to };
	/* the slow sums keep every edge's divisor-1 part */
	if (a->slow && split_new(g, (uint32_t)e, 0))
		return -1;
	/* the adjacency's list lengths, counted here rather than in a pass
	 * over the 64-byte edges afterwards (cgadj.c) */
	g->out_start[from + 1]++;
	g->in_start[to + 1]++;
	*out = (uint32_t)e;
	g->nedges = e + 1;
	return 0;
}

/* key: { from, to } */
static bool edge_eq(const void *ctx, uint32_t id, const void *key)
{
	const struct sf_an_cg *g = ctx;
	const uint32_t *k = key;

	return g->edges[id].from == k[0] && g->edges[id].to == k[1];
}

/* The edge from -> to (tag its map tag, when there is no direct table:
 * struct sf_an__cg_block), created if this is its first occurrence. */
__attribute__((always_inline))
static inline int edge_get(struct acc *a, uint32_t from, uint32_t to,
			   uint32_t tag, uint32_t *out)
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
	/* found, or made and put in the empty slot that ended the search
	 * (one probe, where sf_idx_find and sf_idx_insert took two: 35
	 * instructions an edge on the timeline of docs/PERFORMANCE.md,
	 * session 20) */
	uint32_t key[2] = { from, to };
	size_t slot;
	if (sf_idx_find_slot(&a->pairs, tag, edge_eq, a->g, key, out, &slot))
		return 0;
	if (edge_new(a, from, to, out) ||
	    !sf_idx_put(&a->pairs, slot, tag, *out))
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
	free(g->in_start);
	sf_big_free(g->out_edges, g->adj_bytes[0]);
	sf_big_free(g->in_edges, g->adj_bytes[1]);
	sf_big_free(g->out_to, g->adj_bytes[2]);
	sf_big_free(g->in_from, g->adj_bytes[3]);
	sf_big_free(g->out_t, g->adj_bytes[4]);
	sf_big_free(g->in_t, g->adj_bytes[5]);
	free(g->order);
	free(g->index);
	free(g);
}

/* A sample's stack as call graph nodes and the map tags of the edges it
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
	const uint32_t *tag = b->tag + b->off[j] + j;
	uint32_t d = b->off[j + 1] - b->off[j];

	for (uint32_t i = 0; i <= d; i++)
		__builtin_prefetch(&a->pairs.slots[tag[i] &
						   (a->pairs.cap - 1)]);
}

/* Each edge met again is a scattered load of its own after its slot's
 * (the first entry with its hash's tag is it but for a chance of about
 * one in 2^32) */
static void edges_ahead(const struct acc *a,
			const struct sf_an__cg_block *b, size_t j)
{
	const uint32_t *tags = b->tag + b->off[j] + j;
	const uint64_t *slot = a->pairs.slots;
	uint32_t d = b->off[j + 1] - b->off[j];
	size_t mask = a->pairs.cap - 1;

	for (uint32_t i = 0; i <= d; i++) {
		uint64_t tag = tags[i];
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
	bool ahead = b->tag && a->pairs.cap;
	uint32_t e;

	for (size_t j = 0; ahead && j < 2 && j < b->n; j++)
		slots_ahead(a, b, j);
	for (size_t j = 0; j < b->n; j++) {
		uint32_t o = b->off[j], d = b->off[j + 1] - o;
		uint32_t st = b->si[j] + 1;
		const uint32_t *cgp = b->cgp + o, *cnt = b->cnt + o;
		const uint32_t *tag = b->tag ? b->tag + o + j : NULL;
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
		if (edge_get(a, STAR, cgp[0], tag ? tag[0] : 0, &e) ||
		    occur(a, e, st, w, cnt[0], 1, all) ||
		    edge_get(a, cgp[d - 1], STAR, tag ? tag[d] : 0, &e) ||
		    occur(a, e, st, w, 1, cnt[d - 1], all))
			return SF_ENOMEM;
		for (uint32_t i = d - 1; i >= 1; i--)
			if (edge_get(a, cgp[i - 1], cgp[i], tag ? tag[i] : 0, &e) ||
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
	/* the edges are found: the look-up's memory (64 MB on the
	 * timeline) is kept for the adjacency (sf_an__cg_finish), whose
	 * pages are then not new (a new page is zeroed: on a virtual
	 * machine about as long as it takes to fill it).  With the slow
	 * sums it is freed, as before: their rationals, made next, would
	 * otherwise be made beside it */
	if (a.slow)
		sf_idx_free(&a.pairs);
	else
		sf_idx_keep(&a.pairs, ctx);
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

bool sf_an__cg_slow(const struct sf_an_cg *g)
{
	return g->slow;
}
