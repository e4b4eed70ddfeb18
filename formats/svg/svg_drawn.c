/*
 * svg_drawn.c - the graph of a profile whose frames never merge, made of
 * its drawn frames alone.
 *
 * Where no two frames of the profile share what nodes merge by (a
 * timeline of unique stacks, say), the merged graph is the model's stack
 * tree, node s for stack s (svg_graph.c, build_merged).  Making all of
 * it, 48 bytes of fresh memory a node, sorting every node's siblings and
 * placing every node, cost most of `sfconv --to svg` of a 400,000-sample
 * timeline (3.7 million nodes), of which --max-frames draws 15,000.
 *
 * Here the weights are summed in two arrays beside the stack tree, the
 * cut is made on them, and nodes are made only for the stacks drawn.  A
 * drawn frame's x is its caller's x, its caller's self weight, and the
 * weights of its siblings sorted before it, drawn or not: those not
 * drawn are added to the gap before the first drawn sibling that sorts
 * after them, found by a binary search among the drawn siblings, so
 * nothing not drawn is sorted.  The sums are taken in another order than
 * svg_graph.c's placing takes them, so this is done only where every
 * weight is an integer and the weights' magnitudes sum to at most 2^53:
 * then every sum is exact, in any order, and the bytes are the same.
 */
#include "svg.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* exact integers in a double: up to 2^53 */
#define EXACT_MAX 9007199254740992.0

struct drawn_key {
	uint32_t parent;   /* the caller's node */
	uint32_t rank;     /* the frame's place in the siblings' order */
	uint32_t stack;    /* the stack, last: a total order */
};

static int drawn_key_cmp(const void *a_, const void *b_)
{
	const struct drawn_key *a = a_, *b = b_;

	if (a->parent != b->parent)
		return a->parent < b->parent ? -1 : 1;
	if (a->rank != b->rank)
		return a->rank < b->rank ? -1 : 1;
	return a->stack < b->stack ? -1 : a->stack > b->stack;
}

/*
 * Each stack's self weight (sw) and inclusive weight (w), in type `t`,
 * in one buffer of *cap bytes (sw first: free it with sf_big_free), and
 * room for the cut's copy of the weights in *scratch (*scap bytes; NULL:
 * none).
 * Returns 0, 1 where a weight is not an integer or the sums could be
 * inexact, -1 on ENOMEM.
 */
static int stack_weights(const struct sf_profile *p, struct sf_ctx *ctx,
			 uint32_t t, double **swp, double **wp, size_t *cap,
			 double **scratch, size_t *scap)
{
	size_t n = p->d.nstacks;
	double *sw = NULL, *w;
	double mag = 0;

	/* the stack tree's child lists, given up when loading ended
	 * (sf_profile_trim_keep), are pages faulted in already: clearing
	 * them is cheaper than the kernel's faults on fresh ones */
	*cap = 0;
	if (!sf_big_take(ctx, &sw, cap, 2 * n * sizeof(*sw)))
		memset(sw, 0, n * sizeof(*sw));
	else
		sw = calloc(2 * n, sizeof(*sw));
	*scratch = NULL;
	*scap = 0;
	/* what is left of them first, then fresh huge pages: where the
	 * cut's copy took glibc's 4 KiB ones, 30 MB of a timeline's was
	 * 7,000 page faults */
	(void)sf_big_reserve_kept(ctx, scratch, scap,
				  n * sizeof(**scratch));
	sf_big_drop(ctx);
	*swp = sw;
	*wp = w = sw ? sw + n : NULL;
	if (!sw)
		return -1;
	for (size_t i = 0; i < p->d.nsamples; i++) {
		double x = p->d.ntypes ? sf_weight(p, i, t) : 1;
		if (!(fabs(x) <= EXACT_MAX) || x != trunc(x))
			return 1;
		mag += fabs(x);
		sw[p->d.samples[i].stack] += x;
	}
	if (!(mag <= EXACT_MAX))
		return 1;
	memcpy(w, sw, n * sizeof(*w));
	/* children have larger ids than their parents */
	for (size_t s = n; s-- > 1;)
		w[p->d.stacks[s].parent] += w[s];
	return 0;
}

/*
 * The first place in keys[lo, hi) (drawn siblings, sorted) whose frame
 * sorts after (rank, stack).
 */
static size_t gap_of(const struct drawn_key *keys, size_t lo, size_t hi,
		     uint32_t rank, uint32_t stack)
{
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct drawn_key *k = &keys[mid];
		if (k->rank < rank || (k->rank == rank && k->stack < stack))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int sf_svg__graph_drawn(struct svg_graph *g, const struct sf_profile *p,
			struct sf_ctx *ctx, const struct svg_opts *o,
			uint32_t t, const uint32_t *rank)
{
	size_t n = p->d.nstacks, nd = 1;
	double *sw, *w, *gap = NULL, *scratch;
	size_t wcap, scap;
	unsigned char *drawn = NULL;
	uint32_t *node = NULL, *first = NULL, *end = NULL;
	struct drawn_key *keys = NULL;
	double cut;
	int rc;

	if ((rc = stack_weights(p, ctx, t, &sw, &w, &wcap, &scratch, &scap)))
		goto out;
	rc = -1;
	g->total = w[0];
	sf_svg__graph_total(g, &w[0], o, ctx);
	double scale, minw;
	if (sf_svg__graph_cut(g, o, w, sizeof(*w), n, scratch, &scale, &minw,
			      &cut) ||
	    !(drawn = malloc(n)) || !(node = malloc(n * sizeof(*node))))
		goto out;
	sf_big_free(scratch, scap);
	scratch = NULL;
	/* a parent is decided before its children */
	drawn[0] = 1;
	node[0] = 0;
	for (size_t s = 1; s < n; s++) {
		const struct sf_stack_node *sn = &p->d.stacks[s];
		drawn[s] = drawn[sn->parent] && w[s] > 0 &&
			   w[s] * scale >= minw && w[s] > cut;
		if (drawn[s])
			node[s] = (uint32_t)nd++;
		else if (w[s] > 0)
			g->elided++;
	}
	if (!(g->nodes = calloc(nd, sizeof(*g->nodes))) ||
	    !(g->order = malloc(nd * sizeof(*g->order))) ||
	    !(keys = malloc(nd * sizeof(*keys))) ||
	    !(gap = calloc(nd, sizeof(*gap))) ||
	    !(first = malloc(nd * sizeof(*first))) ||
	    !(end = calloc(nd, sizeof(*end))))
		goto out;
	static const struct sf_frame all = { .name = "all" };
	g->nodes[0] = (struct svg_node){ .parent = UINT32_MAX, .frame = &all,
					 .drawn = true, .w = w[0],
					 .sw = sw[0] };
	g->n = nd;
	g->drawn = nd;
	for (size_t s = 1, k = 1; s < n; s++) {
		if (!drawn[s])
			continue;
		const struct sf_stack_node *sn = &p->d.stacks[s];
		const struct sf_frame *f = &p->d.frames[sn->frame];
		struct svg_node *v = &g->nodes[k];
		v->parent = node[sn->parent];
		v->depth = g->nodes[v->parent].depth + 1;
		v->frame = f;
		v->flags = f->flags;
		v->drawn = true;
		v->w = w[s];
		v->sw = sw[s];
		if (v->depth > g->maxdepth)
			g->maxdepth = v->depth;
		keys[k++] = (struct drawn_key){ v->parent, rank[sn->frame],
						(uint32_t)s };
	}
	/* the drawn siblings in order: runs by parent, in parent order */
	qsort(keys + 1, nd - 1, sizeof(*keys), drawn_key_cmp);
	/* node q's drawn children are keys[first[q], end[q]) (end 0:
	 * none) */
	g->order[0] = 0;
	for (size_t k = 1; k < nd; k++) {
		uint32_t q = keys[k].parent;
		g->order[k] = node[keys[k].stack];
		if (!end[q])
			first[q] = (uint32_t)k;
		end[q] = (uint32_t)k + 1;
	}
	/* the siblings not drawn, into the gap before the drawn sibling
	 * that sorts after them; none after the last drawn one matters */
	for (size_t s = 1; s < n; s++) {
		const struct sf_stack_node *sn = &p->d.stacks[s];
		if (drawn[s] || !drawn[sn->parent] || w[s] == 0)
			continue;
		uint32_t q = node[sn->parent];
		if (!end[q])
			continue;
		size_t at = gap_of(keys, first[q], end[q], rank[sn->frame],
				   (uint32_t)s);
		if (at < end[q])
			gap[at] += w[s];
	}
	uint32_t cur = UINT32_MAX;
	double cx = 0;
	for (size_t k = 1; k < nd; k++) {
		struct svg_node *v = &g->nodes[g->order[k]];
		if (v->parent != cur) {
			cur = v->parent;
			cx = g->nodes[cur].x;
		}
		cx += gap[k];
		v->x = cx + g->nodes[cur].sw;
		cx += v->w;
	}
	rc = 0;
out:
	if (rc < 0)
		rc = sf_error_nomem(ctx);
	sf_big_free(sw, wcap);
	sf_big_free(scratch, scap);
	free(drawn);
	free(node);
	free(keys);
	free(gap);
	free(first);
	free(end);
	return rc;
}
