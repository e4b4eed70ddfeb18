/* t_cg_order.c - the call graph's node order (docs/analyze.md, call graph
 * 5, analyze/cgorder.c) against the spec read word for word: discovery by
 * a plain queue, in and out as GMP rationals, W as a list scanned whole
 * every round for its sinks, sources or least ratios, the updates over
 * every edge of each removed node, layers and the final order by a
 * stable insertion sort.  No heap, no doubles, no common denominator:
 * what cgorder.c does to be fast (a heap of doubles with keys left stale
 * while they rise, exact ratios only for the doubles' candidates) must
 * give the same order.  Seeded random profiles with many cycles and
 * small integer weights (so that ratios tie), of a few to a few hundred
 * functions, built both with the 128-bit sums and with the rationals. */
#include "unit.h"
#include "analyze.h"
#include "an_internal.h"
#include "cg_internal.h"

#include <gmp.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rs;

static uint32_t rnd(uint32_t n)
{
	rs = rs * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)(rs >> 33) % n;
}

/* nsamples stacks of 1..maxdepth frames over nfuncs functions (a frame
 * made for each place: the view knows a function by its name), on two
 * threads; weights 1..3, or quarters when `quarters` */
static struct sf_profile *mk(struct sf_ctx *ctx, uint32_t nfuncs,
			     uint32_t maxdepth, uint32_t nsamples,
			     bool quarters)
{
	struct sf_profile *p;
	uint32_t t;
	sf_frame_id st[64];
	sf_thread_idx th[2];

	if (sf_profile_new(&p, ctx))
		return NULL;
	if (sf_profile_sample_type(p, ctx, "samples", "count", &t) ||
	    sf_profile_thread(p, ctx, SF_NO_ID, 1, NULL, &th[0]) ||
	    sf_profile_thread(p, ctx, SF_NO_ID, 2, NULL, &th[1]))
		goto fail;
	for (uint32_t s = 0; s < nsamples; s++) {
		uint32_t d = 1 + rnd(maxdepth);
		double w = quarters ? (1 + rnd(6)) / 4.0 : 1 + rnd(3);
		sf_stack_id id;
		for (uint32_t i = 0; i < d; i++) {
			char name[16];
			int n = snprintf(name, sizeof(name), "f%u",
					 rnd(nfuncs));
			if (sf_profile_frame_named(p, ctx, name, (size_t)n,
						   NULL, &st[i]))
				goto fail;
		}
		if (sf_profile_stack(p, ctx, st, d, false, &id) ||
		    sf_profile_add(p, ctx, id, th[rnd(2)], w))
			goto fail;
	}
	return p;
fail:
	sf_profile_free(p);
	return NULL;
}

/* edge e's caller or callee time, exactly */
static void etime(mpq_t q, const struct sf_an_cg *g, uint32_t e, bool callee)
{
	if (g->caller)
		mpq_set(q, callee ? g->callee[e] : g->caller[e]);
	else
		sf_an__cg_rational(q, time_num(g, e, callee), g->den);
}

/* the order of docs/analyze.md, call graph 5, into want[0..N-1) */
static void spec_order(const struct sf_an_cg *g, uint32_t *want)
{
	size_t N = g->nnodes, E = g->nedges, nd = 0, qt = 0;
	size_t nw, nl = 0, nr = 0, no = 0;
	uint32_t *disc = malloc(N * sizeof(*disc));
	uint32_t *queue = malloc((N + 1) * sizeof(*queue));
	uint32_t *w = malloc(N * sizeof(*w)), *sinks = malloc(N * sizeof(*w));
	uint32_t *srcs = malloc(N * sizeof(*w)), *left = malloc(N * sizeof(*w));
	uint32_t *right = malloc(N * sizeof(*w)), *pos = malloc(N * sizeof(*w));
	uint32_t *L = malloc(N * sizeof(*w)), *layer = calloc(N, sizeof(*w));
	bool *seen = calloc(N, sizeof(*seen)), *inw = calloc(N, sizeof(*inw));
	mpq_t *in = malloc(N * sizeof(*in)), *out = malloc(N * sizeof(*out));
	mpq_t t, best, r;

	mpq_inits(t, best, r, NULL);
	for (size_t n = 0; n < N; n++)
		mpq_inits(in[n], out[n], NULL);
	/* 5.1: callees newest created first are the edges by falling id */
	queue[qt++] = STAR;
	seen[STAR] = true;
	for (size_t h = 0; h < qt; h++) {
		if (queue[h] != STAR)
			disc[nd++] = queue[h];
		for (size_t e = E; e-- > 0;) {
			const struct edge *x = &g->edges[e];
			if (x->from != queue[h] || seen[x->to])
				continue;
			seen[x->to] = true;
			queue[qt++] = x->to;
		}
	}
	for (size_t e = 0; e < E; e++) {
		const struct edge *x = &g->edges[e];
		if (x->from == x->to || x->from == STAR || x->to == STAR)
			continue;
		etime(t, g, (uint32_t)e, true);
		mpq_add(in[x->to], in[x->to], t);
		etime(t, g, (uint32_t)e, false);
		mpq_add(out[x->from], out[x->from], t);
	}
	/* 5.2 */
	for (nw = 0; nw < nd; nw++) {
		w[nw] = disc[nd - 1 - nw];
		inw[w[nw]] = true;
	}
	while (nw) {
		size_t ns = 0, nsrc = 0, k = 0;
		for (size_t i = 0; i < nw; i++)
			if (!mpq_sgn(out[w[i]]))
				sinks[ns++] = w[i];
			else
				w[k++] = w[i];
		nw = k;
		for (size_t i = 0; i < ns; i++)
			inw[sinks[i]] = false;
		for (size_t i = 0; i < nw; i++)
			if (!mpq_sgn(in[w[i]]))
				srcs[nsrc++] = w[i];
		if (!ns && !nsrc) {
			for (size_t i = 0; i < nw; i++) {
				mpq_div(r, in[w[i]], out[w[i]]);
				if (!i || mpq_cmp(r, best) < 0)
					mpq_set(best, r);
			}
			for (size_t i = nw; i-- > 0;) {
				mpq_div(r, in[w[i]], out[w[i]]);
				if (mpq_equal(r, best))
					srcs[nsrc++] = w[i];
			}
		}
		for (size_t i = 0; i < nsrc; i++)
			inw[srcs[i]] = false;
		k = 0;
		for (size_t i = 0; i < nw; i++)
			if (inw[w[i]])
				w[k++] = w[i];
		nw = k;
		for (size_t i = 0; i < nsrc + ns; i++) {
			uint32_t n = i < nsrc ? srcs[i] : sinks[i - nsrc];
			for (size_t e = 0; e < E; e++) {
				const struct edge *x = &g->edges[e];
				if (x->from == n && inw[x->to]) {
					etime(t, g, (uint32_t)e, true);
					mpq_sub(in[x->to], in[x->to], t);
				}
				if (x->to == n && inw[x->from]) {
					etime(t, g, (uint32_t)e, false);
					mpq_sub(out[x->from], out[x->from], t);
				}
			}
		}
		memcpy(left + nl, srcs, nsrc * sizeof(*srcs));
		nl += nsrc;
		/* RIGHT = SINKS + RIGHT */
		memmove(right + ns, right, nr * sizeof(*right));
		memcpy(right, sinks, ns * sizeof(*sinks));
		nr += ns;
	}
	memcpy(L, left, nl * sizeof(*L));
	memcpy(L + nl, right, nr * sizeof(*L));
	for (size_t i = 0; i < nl + nr; i++)
		pos[L[i]] = (uint32_t)i;
	/* 5.3, 5.4 */
	for (size_t i = 0; i < nl + nr; i++)
		for (size_t e = 0; e < E; e++) {
			const struct edge *x = &g->edges[e];
			if (x->to != L[i] || x->from == STAR ||
			    x->from == x->to || pos[x->from] >= i)
				continue;
			if (layer[x->from] + 1 > layer[L[i]])
				layer[L[i]] = layer[x->from] + 1;
		}
	/* 5.5: per layer, reverse L order, stably by decreasing total */
	for (uint32_t k = 0; no < nl + nr; k++) {
		size_t from = no;
		for (size_t i = nl + nr; i-- > 0;) {
			uint32_t n = L[i], j;
			if (layer[n] != k)
				continue;
			for (j = (uint32_t)no; j > from &&
			     g->nodes[want[j - 1]].total < g->nodes[n].total; j--)
				want[j] = want[j - 1];
			want[j] = n;
			no++;
		}
	}
	for (size_t n = 0; n < N; n++)
		mpq_clears(in[n], out[n], NULL);
	mpq_clears(t, best, r, NULL);
	free(disc); free(queue); free(w); free(sinks); free(srcs);
	free(left); free(right); free(pos); free(L); free(layer);
	free(seen); free(inw); free(in); free(out);
}

static void check(struct sf_ctx *ctx, uint64_t seed, uint32_t nfuncs,
		  uint32_t maxdepth, uint32_t nsamples, bool quarters)
{
	struct sf_an_filter f = { 0 };
	struct sf_profile *p;
	struct sf_an_view *v = NULL;
	char name[96];

	rs = seed;
	p = mk(ctx, nfuncs, maxdepth, nsamples, quarters);
	if (!p || sf_an_view_build(&v, p, &f, NULL, ctx)) {
		CHECK("cg-order-input", false);
		sf_profile_free(p);
		return;
	}
	for (int slow = 0; slow < 2; slow++) {
		struct sf_an_cg *g = NULL;
		uint32_t *want = NULL;
		bool ok = !sf_an__cg_build(&g, v, slow, ctx) &&
			  (want = malloc(g->nnodes * sizeof(*want)));
		if (ok) {
			spec_order(g, want);
			ok = !memcmp(want, g->order,
				     (g->nnodes - 1) * sizeof(*want));
		}
		snprintf(name, sizeof(name),
			 "cg-order-is-the-spec-%s-%u-funcs-%llu%s",
			 slow ? "rationals" : "fast", nfuncs,
			 (unsigned long long)seed, quarters ? "-quarters" : "");
		CHECK(name, ok);
		free(want);
		sf_an_cg_free(g);
	}
	sf_an_view_free(v);
	sf_profile_free(p);
}

/* One sample each, on one thread, of the stacks AB, CB, BA, BC and Z
 * (no function repeats, so the common denominator is 1 and an edge's
 * times are its total), of weights 2^62, c, 2^62 + 2^60, 2^60 and 1.
 * Without * and self-edges: in(A) = 2^62 + 2^60, out(A) = 2^62; in(B) =
 * 2^62 + c, out(B) = 2^62 + 2^61; in(C) = 2^60, out(C) = c; Z has none.
 * 5.2 by hand: round 1, Z is a sink; round 2, all on cycles, in/out of A
 * 1.25, of B about 1.33, of C about 0.25: C is the source; B's sums fall
 * to 2^62 in and 2^62 + 2^60 out; round 3, A 1.25, B 0.8: B; round 4, A's
 * out is 0: a sink.  L = C B A Z; layers (5.4) C 0, B 1 (C->B), A 2 (B->A),
 * Z 0; so the order (5.5) C Z B A, C's total 2^62 + 2^60 before Z's 1.
 * in(B) is 2^63 - 2^10 with c = 2^62 - 2^10, the largest sum of the
 * 64-bit path, and 2^63 with c = 2^62, one past it: there the sums must
 * be made in 128 bits (wrapped around, B's in/out would be the least in
 * round 2 and the order B first). */
static void at_64_bits(struct sf_ctx *ctx, double c, const char *name)
{
	static const char *const stacks[] = { "AB", "CB", "BA", "BC", "Z" };
	const double w[] = { ldexp(1, 62), c, ldexp(5, 60), ldexp(1, 60), 1 };
	const char *want[] = { "C", "Z", "B", "A" };
	struct sf_an_filter f = { 0 };
	struct sf_profile *p = NULL;
	struct sf_an_view *v = NULL;
	sf_frame_id fr[4], st[2];
	sf_thread_idx th;
	uint32_t t;
	bool ok = !sf_profile_new(&p, ctx) &&
		  !sf_profile_sample_type(p, ctx, "samples", "count", &t) &&
		  !sf_profile_thread(p, ctx, SF_NO_ID, 1, NULL, &th);

	for (size_t i = 0; ok && i < 4; i++)
		ok = !sf_profile_frame_named(p, ctx, "ABCZ" + i, 1, NULL,
					     &fr[i]);
	for (size_t s = 0; ok && s < 5; s++) {
		size_t d = strlen(stacks[s]);
		sf_stack_id id;
		for (size_t i = 0; i < d; i++)
			st[i] = fr[strchr("ABCZ", stacks[s][i]) - "ABCZ"];
		ok = !sf_profile_stack(p, ctx, st, d, false, &id) &&
		     !sf_profile_add(p, ctx, id, th, w[s]);
	}
	ok = ok && !sf_an_view_build(&v, p, &f, NULL, ctx);
	for (int slow = 0; slow < 2; slow++) {
		struct sf_an_cg *g = NULL;
		bool good = ok && !sf_an__cg_build(&g, v, slow, ctx) &&
			    g->nnodes == 5;
		char full[64];
		for (size_t i = 0; good && i < 4; i++)
			good = !strcmp(g->names[g->order[i] - 1], want[i]);
		snprintf(full, sizeof(full), "%s-%s", name,
			 slow ? "rationals" : "fast");
		CHECK(full, good);
		sf_an_cg_free(g);
	}
	sf_an_view_free(v);
	sf_profile_free(p);
}

int main(void)
{
	struct sf_ctx ctx;

	sf_ctx_init(&ctx);
	for (uint64_t seed = 1; seed <= 4; seed++) {
		/* few functions, deep stacks: every node on cycles, ties */
		check(&ctx, seed, 4 + (uint32_t)seed, 12, 60, false);
		check(&ctx, seed, 12, 8, 200, seed % 2);
		/* hundreds of nodes: a heap of several levels, rounds that
		 * each remove one node of many */
		check(&ctx, seed, 300, 25, 600, false);
	}
	check(&ctx, 9, 700, 25, 1500, true);
	at_64_bits(&ctx, ldexp(1, 62) - 1024, "cg-order-sum-of-64-bits");
	at_64_bits(&ctx, ldexp(1, 62), "cg-order-sum-past-64-bits");
	return unit_failed;
}
