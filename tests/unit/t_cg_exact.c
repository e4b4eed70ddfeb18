/* t_cg_exact.c - the call graph's two exact ways of summing caller and
 * callee times (analyze/callgraph.c): 128-bit integers over a common
 * denominator (the fast path), and a list of integer sums per divisor
 * (the fallback) must give the same JSON and text bytes, on seeded random
 * profiles with heavy recursion (few functions, deep stacks, several
 * threads) and weights that are integers, fractions, or so far apart that
 * the fast sums overflow (then the fast build must have fallen back), and
 * on one whose edges fit but whose node sums (docs/analyze.md, call graph
 * 5.1) do not, so that the ordering goes over to rationals, and on one
 * where only the times an edge keeps nowhere (total * den, while no
 * function of it repeats) would overflow, and on one whose times fit in
 * 128 bits but not in 64; and on samples enough for several of the
 * walk's blocks, at one job and at two (a thread making them). */
#include "unit.h"
#include "analyze.h"
#include "an_internal.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rs;

static uint32_t rnd(uint32_t n)
{
	rs = rs * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)(rs >> 33) % n;
}

enum wkind { W_ONE, W_FRACTION, W_WIDE };

static struct sf_profile *mk(struct sf_ctx *ctx, uint32_t nfuncs,
			     uint32_t maxdepth, uint32_t nsamples,
			     enum wkind wk)
{
	struct sf_profile *p;
	uint32_t t;
	sf_frame_id fr[64], st[256];
	sf_thread_idx th[3];

	if (sf_profile_new(&p, ctx) ||
	    sf_profile_sample_type(p, ctx, "samples", "count", &t))
		return NULL;
	for (uint32_t i = 0; i < nfuncs; i++) {
		char name[16];
		int n = snprintf(name, sizeof(name), "f%u", i);
		if (sf_profile_frame_named(p, ctx, name, (size_t)n, NULL,
					   &fr[i]))
			return NULL;
	}
	for (int i = 0; i < 3; i++)
		if (sf_profile_thread(p, ctx, SF_NO_ID, i + 1, NULL, &th[i]))
			return NULL;
	for (uint32_t s = 0; s < nsamples; s++) {
		uint32_t d = 1 + rnd(maxdepth);
		sf_stack_id id;
		double w = 1;
		for (uint32_t i = 0; i < d; i++)
			st[i] = fr[rnd(nfuncs)];
		if (wk == W_FRACTION)
			w = (1 + rnd(7)) / 4.0;
		else if (wk == W_WIDE)
			w = rnd(2) ? ldexp(1 + rnd(3), 100) : 1 + rnd(3);
		if (sf_profile_stack(p, ctx, st, d, false, &id) ||
		    sf_profile_add(p, ctx, id, th[rnd(3)], w))
			return NULL;
	}
	return p;
}

static char *render(const struct sf_an_cg *g, struct sf_ctx *ctx,
		    size_t *len)
{
	struct sf_output *o;
	const char *data;
	char *copy;

	/* exact numbers in the text too: the comparison is of values */
	const struct sf_an_cg_opts raw = { .raw = true };

	if (sf_output_mem(&o, ctx))
		return NULL;
	sf_an_cg_json(o, g, &raw);
	sf_an_cg_text(o, g, &raw, ctx);
	data = sf_output_mem_data(o, len);
	copy = malloc(*len ? *len : 1);
	if (copy)
		memcpy(copy, data, *len);
	sf_output_abort(o);
	return copy;
}

/* The sample A;N;B;N;C;N;D;N of weight 2^109, and R;R;...;R of weight 1
 * with 7, 9, 11, 13 and 16 frames, so that the common denominator is
 * their lcm, 144144 (2^17.1): every edge's sums fit 128 bits over it (N->B
 * has 2^109 x 144144 < 2^127), but out(N), the caller times of N->B, N->C
 * and N->D, is three times that, so the ordering turns to rationals. */
/* A profile of the stacks `stacks` (one letter a frame, from `names`),
 * one sample each, of weights `w`, on one thread. */
static struct sf_profile *mk_fixed(struct sf_ctx *ctx, const char *names,
				   const char *const *stacks, size_t n,
				   const double *w)
{
	struct sf_profile *p;
	sf_frame_id fr[8], st[16];
	sf_stack_id id;
	sf_thread_idx th;
	uint32_t t;

	if (sf_profile_new(&p, ctx) ||
	    sf_profile_sample_type(p, ctx, "samples", "count", &t) ||
	    sf_profile_thread(p, ctx, SF_NO_ID, 1, NULL, &th))
		return NULL;
	for (size_t i = 0; names[i]; i++)
		if (sf_profile_frame_named(p, ctx, names + i, 1, NULL, &fr[i]))
			return NULL;
	for (size_t s = 0; s < n; s++) {
		size_t d = strlen(stacks[s]);
		for (size_t i = 0; i < d; i++)
			st[i] = fr[strchr(names, stacks[s][i]) - names];
		if (sf_profile_stack(p, ctx, st, d, false, &id) ||
		    sf_profile_add(p, ctx, id, th, w[s]))
			return NULL;
	}
	return p;
}

static struct sf_profile *mk_wide_node(struct sf_ctx *ctx)
{
	static const char *const stacks[] = {
		"ANBNCNDN", "RRRRRRR", "RRRRRRRRR", "RRRRRRRRRRR",
		"RRRRRRRRRRRRR", "RRRRRRRRRRRRRRRR"
	};
	const double w[] = { ldexp(1, 109), 1, 1, 1, 1, 1 };

	return mk_fixed(ctx, "ANBCDR", stacks, 6, w);
}

/* Edges whose every count is 1 keep no times of their own (they are
 * total * den): here A -> B's total is 2^110 and C's counts 5, 7, 9, 11,
 * 13 and 16 make the denominator their lcm, 720,720 (past 2^19), so
 * A -> B's times do not fit in 128 bits and the fast sums must fall back,
 * though no sum the walk adds overflows. */
static struct sf_profile *mk_derived_over(struct sf_ctx *ctx)
{
	static const char *const stacks[] = {
		"AB", "CCCCC", "CCCCCCC", "CCCCCCCCC", "CCCCCCCCCCC",
		"CCCCCCCCCCCCC", "CCCCCCCCCCCCCCCC"
	};
	const double w[] = { ldexp(1, 110), 1, 1, 1, 1, 1, 1 };

	return mk_fixed(ctx, "ABC", stacks, 7, w);
}

/* No function repeats and the weights are near 2^70: the fast sums fit
 * (the denominator stays 1), but the total is past 2^63, so the
 * adjacency keeps no 64-bit times of its own and its sorts, the ordering
 * and the text read each time from its edge (entry_time). */
static struct sf_profile *mk_past_64(struct sf_ctx *ctx)
{
	static const char *const stacks[] = {
		"AB", "ABC", "BC", "CAD", "DB", "AC", "BD", "ABCD"
	};
	const double w[] = { ldexp(3, 70), ldexp(1, 70), ldexp(5, 69), 2,
			     ldexp(1, 71), ldexp(7, 68), 1, ldexp(3, 69) };

	return mk_fixed(ctx, "ABCD", stacks, 8, w);
}

/* Both ways on one profile: same bytes; `want_slow`: whether the fast
 * build must have fallen back. */
static void both(struct sf_ctx *ctx, const char *name, uint64_t seed,
		 uint32_t nfuncs, uint32_t maxdepth, uint32_t nsamples,
		 enum wkind wk, bool want_slow)
{
	struct sf_an_filter f = { 0 };
	struct sf_profile *p;
	struct sf_an_view *v = NULL;
	struct sf_an_cg *fast = NULL, *slow = NULL;
	char *a = NULL, *b = NULL;
	size_t na = 0, nb = 0;
	bool ok = false;

	rs = seed;
	p = nsamples ? mk(ctx, nfuncs, maxdepth, nsamples, wk) :
	    nfuncs == 2 ? mk_past_64(ctx) :
	    nfuncs ? mk_derived_over(ctx) : mk_wide_node(ctx);
	if (p && !sf_an_view_build(&v, p, &f, NULL, ctx) &&
	    !sf_an__cg_build(&fast, v, false, ctx) &&
	    !sf_an__cg_build(&slow, v, true, ctx)) {
		a = render(fast, ctx, &na);
		b = render(slow, ctx, &nb);
		ok = a && b && na == nb && !memcmp(a, b, na) &&
		     sf_an__cg_slow(slow) &&
		     sf_an__cg_slow(fast) == want_slow;
	}
	CHECK(name, ok);
	free(a);
	free(b);
	sf_an_cg_free(fast);
	sf_an_cg_free(slow);
	sf_an_view_free(v);
	sf_profile_free(p);
}

/* The walk's stacks are made in blocks of 1,024 samples, by a helper
 * thread beside the walk with two jobs (analyze/cgstacks.c), and the
 * fallback walks them a second time, with a helper of its own: enough
 * samples for several blocks, with weights so far apart that the fast
 * sums overflow, give the same bytes at one job and at two, both the
 * same as the slow build's. */
static void blocks(struct sf_ctx *ctx, const char *name, uint64_t seed,
		   enum wkind wk, bool want_slow)
{
	struct sf_an_filter f = { 0 };
	struct sf_profile *p;
	struct sf_an_view *v = NULL;
	struct sf_an_cg *g[3] = { NULL, NULL, NULL };
	char *r[3] = { NULL, NULL, NULL };
	size_t n[3] = { 0, 0, 0 };
	bool ok = false;

	rs = seed;
	p = mk(ctx, 5, 60, 4000, wk);
	if (p && !sf_an_view_build(&v, p, &f, NULL, ctx) &&
	    v->nsamples > 3 * 1024) {
		ok = true;
		for (int k = 0; ok && k < 3; k++) {
			/* fast at 1 and 2 jobs, slow at 2 */
			ctx->jobs = k ? 2 : 1;
			ok = !sf_an__cg_build(&g[k], v, k == 2, ctx) &&
			     (r[k] = render(g[k], ctx, &n[k])) != NULL;
		}
		ok = ok && n[0] == n[1] && !memcmp(r[0], r[1], n[0]) &&
		     n[0] == n[2] && !memcmp(r[0], r[2], n[0]) &&
		     sf_an__cg_slow(g[0]) == want_slow &&
		     sf_an__cg_slow(g[1]) == want_slow;
	}
	ctx->jobs = 0;
	CHECK(name, ok);
	for (int k = 0; k < 3; k++) {
		free(r[k]);
		sf_an_cg_free(g[k]);
	}
	sf_an_view_free(v);
	sf_profile_free(p);
}

/* Whether {a, b} is the set {x, y}. */
static bool same_pair(const char *a, const char *b, const char *x,
		      const char *y)
{
	return a && b && ((!strcmp(a, x) && !strcmp(b, y)) ||
			  (!strcmp(a, y) && !strcmp(b, x)));
}

/* mk_past_64's edge totals, by hand: past 64 bits they are kept beside
 * the edges (analyze/cg_internal.h, struct edge).  A and B are adjacent
 * in AB, ABC and ABCD, the same way round: 3 x 2^70 + 2^70 + 3 x 2^69 =
 * 11 x 2^69; B and D in DB (2^71) and, the other way round, in BD (1). */
static void past_64_totals(struct sf_ctx *ctx)
{
	struct sf_an_filter f = { 0 };
	struct sf_profile *p = mk_past_64(ctx);
	struct sf_an_view *v = NULL;
	struct sf_an_cg *g = NULL;
	struct sf_an_cg_info info;
	double ab = 0, bd[2] = { 0, 0 };
	size_t nab = 0, nbd = 0;
	bool ok = p && !sf_an_view_build(&v, p, &f, NULL, ctx) &&
		  !sf_an_cg_build(&g, v, ctx);

	if (ok)
		sf_an_cg_info(g, &info);
	for (size_t i = 1; ok && i <= info.nnodes; i++) {
		struct sf_an_cg_node nd, o;
		sf_an_cg_node(g, i, &nd);
		for (size_t j = 0; j < nd.ncallees; j++) {
			struct sf_an_cg_edge e;
			sf_an_cg_edge(g, i, true, j, &e);
			if (!e.other)
				continue;
			sf_an_cg_node(g, e.other, &o);
			double t = sf_an_double(e.total, info.exp);
			if (same_pair(nd.name, o.name, "A", "B") && !nab++)
				ab = t;
			if (same_pair(nd.name, o.name, "B", "D") && nbd < 2)
				bd[nbd++] = t;
		}
	}
	CHECK("cg-edge-totals-past-64-bits",
	      ok && nab == 1 && ab == ldexp(11, 69) && nbd == 2 &&
	      fmin(bd[0], bd[1]) == 1 && fmax(bd[0], bd[1]) == ldexp(1, 71));
	sf_an_cg_free(g);
	sf_an_view_free(v);
	sf_profile_free(p);
}

/* More functions than the direct table of edge ids holds (so the edges
 * go through the hash map and its look-ahead), in a ring: for each i the
 * stacks f_i f_(i+1) and f_i f_(i+2), one sample each, so that a function
 * is the leaf under two different roots.  By hand (either way round the
 * stacks are read): every function has total 4 and self 2; on one side
 * * with time 2 and its two neighbours after it in the ring with time 1,
 * on the other * and its two neighbours before it; every time equals
 * its edge's total (no recursion: every count is 1). */
static void ring(struct sf_ctx *ctx)
{
	enum { M = 1500 };
	static sf_frame_id fr[M];
	struct sf_an_filter f = { 0 };
	struct sf_profile *p = NULL;
	struct sf_an_view *v = NULL;
	struct sf_an_cg *g = NULL;
	struct sf_an_cg_info info;
	uint32_t t;
	sf_thread_idx th;
	bool ok = !sf_profile_new(&p, ctx) &&
		  !sf_profile_sample_type(p, ctx, "samples", "count", &t) &&
		  !sf_profile_thread(p, ctx, SF_NO_ID, 1, NULL, &th);

	for (uint32_t i = 0; ok && i < M; i++) {
		char name[16];
		int n = snprintf(name, sizeof(name), "f%u", i);
		ok = !sf_profile_frame_named(p, ctx, name, (size_t)n, NULL,
					     &fr[i]);
	}
	for (uint32_t k = 0; ok && k < 2 * M; k++) {
		sf_frame_id st[2] = { fr[k / 2], fr[(k / 2 + 1 + k % 2) % M] };
		sf_stack_id id;
		ok = !sf_profile_stack(p, ctx, st, 2, false, &id) &&
		     !sf_profile_add(p, ctx, id, th, 1);
	}
	ok = ok && !sf_an_view_build(&v, p, &f, NULL, ctx) &&
	     !sf_an_cg_build(&g, v, ctx);
	if (ok) {
		sf_an_cg_info(g, &info);
		ok = info.nnodes == M;
	}
	for (size_t i = 1; ok && i <= info.nnodes; i++) {
		struct sf_an_cg_node nd, o;
		struct sf_an_cg_edge e;
		const char *near[2][2] = { { NULL, NULL }, { NULL, NULL } };
		char n1[16], n2[16], p1[16], p2[16];
		unsigned j;
		sf_an_cg_node(g, i, &nd);
		ok = sscanf(nd.name, "f%u", &j) == 1 && j < M &&
		     sf_an_double(nd.total, info.exp) == 4 &&
		     sf_an_double(nd.self, info.exp) == 2 &&
		     nd.ncallers == 3 && nd.ncallees == 3;
		for (size_t k = 0; ok && k < 6; k++) {
			double want = k % 3 ? 1 : 2;   /* * first: time 2 */
			sf_an_cg_edge(g, i, k >= 3, k % 3, &e);
			ok = sf_an_double(e.total, info.exp) == want &&
			     e.caller_time == want && e.callee_time == want &&
			     (e.other == 0) == (k % 3 == 0);
			if (ok && e.other) {
				sf_an_cg_node(g, e.other, &o);
				near[k >= 3][k % 3 - 1] = o.name;
			}
		}
		snprintf(n1, sizeof(n1), "f%u", (j + 1) % M);
		snprintf(n2, sizeof(n2), "f%u", (j + 2) % M);
		snprintf(p1, sizeof(p1), "f%u", (j + M - 1) % M);
		snprintf(p2, sizeof(p2), "f%u", (j + M - 2) % M);
		ok = ok &&
		     ((same_pair(near[0][0], near[0][1], n1, n2) &&
		       same_pair(near[1][0], near[1][1], p1, p2)) ||
		      (same_pair(near[0][0], near[0][1], p1, p2) &&
		       same_pair(near[1][0], near[1][1], n1, n2)));
	}
	CHECK("cg-ring-past-the-direct-table", ok);
	sf_an_cg_free(g);
	sf_an_view_free(v);
	sf_profile_free(p);
}

int main(void)
{
	struct sf_ctx ctx;
	char name[64];

	sf_ctx_init(&ctx);
	for (uint64_t seed = 1; seed <= 6; seed++) {
		snprintf(name, sizeof(name), "cg-fast-is-slow-ones-%llu",
			 (unsigned long long)seed);
		both(&ctx, name, seed, 3 + (uint32_t)seed, 40, 400, W_ONE,
		     false);
		snprintf(name, sizeof(name), "cg-fast-is-slow-fractions-%llu",
			 (unsigned long long)seed);
		both(&ctx, name, seed, 3 + (uint32_t)seed, 25, 300,
		     W_FRACTION, false);
	}
	/* weights near 2^100 and 1 together, deep stacks (counts to 30 and
	 * more): w * (den / k) leaves 128 bits */
	both(&ctx, "cg-fast-falls-back-wide-weights", 7, 4, 60, 200, W_WIDE,
	     true);
	/* depth 200 over 200 functions: counts 1..200 can all occur, and
	 * their lcm is far past 2^96 */
	both(&ctx, "cg-fast-falls-back-many-counts", 8, 3, 200, 300, W_ONE,
	     true);
	/* the edges' sums fit, a node's sum of them does not */
	both(&ctx, "cg-node-sums-past-128-bits", 0, 0, 0, 0, W_ONE, false);
	both(&ctx, "cg-fast-falls-back-times-kept-nowhere", 0, 1, 0, 0, W_ONE,
	     true);
	both(&ctx, "cg-times-past-64-bits", 0, 2, 0, 0, W_ONE, false);
	past_64_totals(&ctx);
	/* many functions, short stacks: most samples repeat none, so an
	 * edge keeps no times until a sample with a repeat meets it */
	for (uint64_t seed = 1; seed <= 3; seed++) {
		snprintf(name, sizeof(name), "cg-fast-is-slow-few-repeats-%llu",
			 (unsigned long long)seed);
		both(&ctx, name, seed, 40, 6, 600, W_FRACTION, false);
	}
	blocks(&ctx, "cg-blocks-fast-j1-j2", 10, W_FRACTION, false);
	blocks(&ctx, "cg-blocks-falls-back-j1-j2", 11, W_WIDE, true);
	ring(&ctx);
	return unit_failed;
}
