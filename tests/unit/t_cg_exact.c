/* t_cg_exact.c - the call graph's two exact ways of summing caller and
 * callee times (analyze/callgraph.c): 128-bit integers over a common
 * denominator (the fast path), and a list of integer sums per divisor
 * (the fallback) must give the same JSON and text bytes, on seeded random
 * profiles with heavy recursion (few functions, deep stacks, several
 * threads) and weights that are integers, fractions, or so far apart that
 * the fast sums overflow (then the fast build must have fallen back), and
 * on one whose edges fit but whose node sums (docs/analyze.md, call graph
 * 5.1) do not, so that the ordering goes over to rationals. */
#include "unit.h"
#include "analyze.h"
#include "an_internal.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

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
	sf_an_cg_text(o, g, &raw);
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
static struct sf_profile *mk_wide_node(struct sf_ctx *ctx)
{
	static const char names[] = "ANBCDR";
	static const char *const stacks[] = {
		"ANBNCNDN", "RRRRRRR", "RRRRRRRRR", "RRRRRRRRRRR",
		"RRRRRRRRRRRRR", "RRRRRRRRRRRRRRRR"
	};
	struct sf_profile *p;
	sf_frame_id fr[6], st[16];
	sf_stack_id id;
	sf_thread_idx th;
	uint32_t t;

	if (sf_profile_new(&p, ctx) ||
	    sf_profile_sample_type(p, ctx, "samples", "count", &t) ||
	    sf_profile_thread(p, ctx, SF_NO_ID, 1, NULL, &th))
		return NULL;
	for (int i = 0; i < 6; i++)
		if (sf_profile_frame_named(p, ctx, names + i, 1, NULL, &fr[i]))
			return NULL;
	for (size_t s = 0; s < sizeof(stacks) / sizeof(*stacks); s++) {
		size_t d = strlen(stacks[s]);
		for (size_t i = 0; i < d; i++)
			st[i] = fr[strchr(names, stacks[s][i]) - names];
		if (sf_profile_stack(p, ctx, st, d, false, &id) ||
		    sf_profile_add(p, ctx, id, th, s ? 1 : ldexp(1, 109)))
			return NULL;
	}
	return p;
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
		       mk_wide_node(ctx);
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
	return unit_failed;
}
