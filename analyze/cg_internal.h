/* cg_internal.h - the call graph's structure, shared by its build
 * (callgraph.c's walk, then cgorder.c's node order, with its adjacency
 * lists in cgadj.c) and its output and read access (cgprint.c, which
 * calls the build's files, never the other way). */
#ifndef SF_CG_INTERNAL_H
#define SF_CG_INTERNAL_H

#include "analyze.h"

#include <gmp.h>
#include <stdbool.h>
#include <stdint.h>

#define STAR 0u   /* the * node */

struct edge {
	uint32_t from, to;       /* cg nodes; STAR = the * node */
	uint32_t stamp;
	/* 0 while every occurrence had count 1 at both ends, as on a stack
	 * where no function repeats: then the caller and callee times are
	 * both total over the common denominator, kept nowhere.  Else 1 +
	 * the index of its times in g->split. */
	uint32_t split;
	/* the sum of the weights of the samples it is in, while the view's
	 * total fits in 64 bits (no edge's can be larger: weights are never
	 * negative); else 0 and the sum is in g->wtotal (edge_total).  24
	 * bytes an edge, where the times of every edge made 64 and a 128-bit
	 * total 32: on the timeline of docs/PERFORMANCE.md 3.76 million
	 * edges, whose fresh pages the kernel zeroes. */
	int64_t total;
};

/* An edge's caller and callee time: over the common denominator, or
 * (slow sums, where every edge has these) the part with divisor 1. */
struct etimes {
	sf_an_w caller, callee;
};

struct node {
	sf_an_w total, self;
	int64_t lastthr;
	uint32_t stamp, cnt;
	int64_t *tids;           /* increasing; printed reversed */
	uint32_t ntids, captids;
};

struct sf_an_cg {
	int exp;
	const char *type, *unit;
	const char **names;       /* names[n - 1] for cg node n >= 1 */
	size_t nnodes;            /* including STAR */
	struct node *nodes;
	struct edge *edges;       /* sf_big_grow'n: edges_cap bytes */
	size_t nedges, edges_cap;
	/* per edge its total, where the view's total is past 64 bits (see
	 * struct edge); else NULL */
	sf_an_w *wtotal;
	size_t capwtotal;
	bool wide;
	struct etimes *split;     /* see struct edge */
	size_t nsplit, capsplit;
	/* per edge, GMP rationals; NULL while the times are the edges'
	 * numerators over `den` */
	mpq_t *caller, *callee;
	sf_an_w den;
	sf_an_w total_time;
	uint64_t nraw;
	int64_t max_id;
	sf_an_w *thread_time;     /* max_id + 1 */
	/* adjacency, newest created first (CSR); then sorted per 7.
	 * out_to and in_from: the other end of each entry, so that walking
	 * a list does not load every edge (they are scattered) */
	uint32_t *out_start, *out_edges, *in_start, *in_edges;
	uint32_t *out_to, *in_from;
	/* per entry, while the times are numerators (caller is NULL) that
	 * fit in 64 bits, the time its list is sorted by: callee time of out
	 * entries, caller time of in entries; kept along for the same
	 * reason.  No time exceeds total_time * den (weights are never
	 * negative), so that product decides; past 64 bits these are NULL
	 * and entry_time reads the edge.  8 bytes an entry, not 16: 60 MB
	 * less on the timeline of docs/PERFORMANCE.md, whose pages the
	 * kernel would zero. */
	int64_t *out_t, *in_t;
	/* the bytes of out_edges, in_edges, out_to, in_from, out_t, in_t
	 * when taken from kept pages, else 0 (sf_an__big_array) */
	size_t adj_bytes[6];
	uint32_t *order;          /* output node order (real nodes) */
	uint32_t *index;          /* node -> 1-based position in order */
	bool slow;                /* the times came from the bucket sums */
};

/* A block of the walk's stacks (cgstacks.c): its n samples with a stack,
 * in processing order.  Sample j (view sample si[j]) has the frames
 * [off[j], off[j + 1]) of cgp (its call graph nodes, root first) and of
 * cnt (each one's count in the sample), and d + 1 edge tags from
 * tag + off[j] + j, d its depth: * -> root, then cgp[i - 1] -> cgp[i]
 * for each i, then leaf -> * (tag is NULL where the walk has no hash
 * map).  An edge's tag is sf_idx_tag of its hash, all the map keeps of
 * it: 4 bytes a frame where the hash took 8, and made once. */
struct sf_an__cg_block {
	size_t n;
	uint32_t *si, *off, *cgp, *cnt;
	uint32_t *tag;
};

/* The walk's stacks of view v, made in blocks ahead of it, on a helper
 * thread when jobs > 1; with `nodes` the functions' sums (g->nodes'
 * total, self, thread ids; g->thread_time) are added as they are made,
 * in processing order for any jobs.  -1 when out of memory.  _next gives
 * the next block, valid until the next call, and NULL at the end or
 * when a block failed (*rc: 0 or SF_ENOMEM); _free stops and joins the
 * helper.  room: a mapping of room_bytes (sf_big_reserve) the walk will
 * write all over, which the helper faults in (sf_big_populate) before it
 * makes blocks, or NULL. */
struct sf_an__cg_stacks;
int sf_an__cg_stacks_new(struct sf_an__cg_stacks **out, struct sf_an_cg *g,
			 const struct sf_an_view *v, bool nodes, bool hashes,
			 unsigned jobs, void *room, size_t room_bytes);
const struct sf_an__cg_block *sf_an__cg_stacks_next(
	struct sf_an__cg_stacks *s, int *rc);
void sf_an__cg_stacks_free(struct sf_an__cg_stacks *s);

/* An edge's total */
static inline sf_an_w edge_total(const struct sf_an_cg *g, uint32_t e)
{
	return g->wide ? g->wtotal[e] : g->edges[e].total;
}

/* An edge's caller or callee time as a numerator over g->den (only while
 * g->caller is NULL). */
static inline sf_an_w time_num(const struct sf_an_cg *g, uint32_t e,
			       bool callee)
{
	const struct edge *x = &g->edges[e];

	if (x->split)
		return callee ? g->split[x->split - 1].callee :
				g->split[x->split - 1].caller;
	/* the build checked that this fits */
	return edge_total(g, e) * g->den;
}

/* The time of entry i (edge e) of an out list (`callee`, t = out_t) or
 * an in list (t = in_t), as a numerator over g->den (only while g->caller
 * is NULL). */
static inline sf_an_w entry_time(const struct sf_an_cg *g, const int64_t *t,
				 uint32_t i, uint32_t e, bool callee)
{
	return t ? t[i] : time_num(g, e, callee);
}

/* The adjacency lists, newest created first (cgadj.c), from the edges
 * and the list lengths edge creation counted in out_start[n + 1] and
 * in_start[n + 1]; then, once the order is known, every real node's
 * lists sorted by docs/analyze.md, call graph 7.  One direction per
 * thread on up to `jobs` threads.  -1 when out of memory. */
int sf_an__cg_adjacency(struct sf_an_cg *g, struct sf_ctx *ctx);
int sf_an__cg_sort(struct sf_an_cg *g, unsigned jobs);

/* The sorts of 7 beside the node order, with two jobs or more: the
 * order's thread gives each node once it is done reading its lists
 * (5.2 reads a node's lists once, when it leaves W; discovery, before
 * the sorter is made, and the layers, after its end, read them as well),
 * and a helper thread sorts them meanwhile; _end(s, true) sorts what is
 * left on this thread too, then stops the helper, so that every real node
 * given is sorted as sf_an__cg_sort would sort it; _end(s, false) stops
 * it at once (an error: the lists are then left part sorted).  _new
 * returns NULL for one job, a graph too small to be worth a thread, or
 * when out of memory: sf_an__cg_sort after the order then. */
struct sf_an__cg_sorter;
struct sf_an__cg_sorter *sf_an__cg_sorter_new(struct sf_an_cg *g,
					      unsigned jobs);
void sf_an__cg_sorter_give(struct sf_an__cg_sorter *s, uint32_t n);
void sf_an__cg_sorter_end(struct sf_an__cg_sorter *s, bool done);

/* q = sum / den in lowest terms (den > 0 or < 0; not 0). */
void sf_an__cg_rational(mpq_t q, sf_an_w sum, sf_an_w den);

/* The edges' times as GMP rationals (g->caller, g->callee) from their
 * numerators over g->den, for the order's sums when they would overflow
 * 128 bits (callgraph.c; g->caller is NULL before).  -1 when out of
 * memory. */
int sf_an__cg_mpq_edges(struct sf_an_cg *g);

#endif
