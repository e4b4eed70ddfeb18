/*
 * cgadj.c - the call graph's adjacency lists (docs/analyze.md, call
 * graph 7): made from the edges, newest created first, and sorted by
 * time once the node order is known.  Out lists and in lists have arrays
 * of their own, so each direction is one task and the two run on two
 * threads when there are two jobs; the result is the same for any number
 * of jobs.  With two jobs the sorts can also run beside the node order
 * (cgorder.c), node by node as the order is done with a node's lists:
 * a list's sort depends only on its entries, never on the order.
 */
#include "analyze.h"
#include "an_internal.h"
#include "cg_internal.h"
#include "msort.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* 7 on rationals, or on numerators past 64 bits: decreasing time, the
 * newer edge first on a tie */
static int cmp_edge(const struct sf_an_cg *g, uint32_t x, uint32_t y,
		    bool callee)
{
	int c;

	if (g->caller) {
		mpq_t *t = callee ? g->callee : g->caller;
		c = mpq_cmp(t[y], t[x]);
	} else {
		sf_an_w a = time_num(g, x, callee), b = time_num(g, y, callee);
		c = (a < b) - (a > b);
	}
	return c ? c : (x < y) - (x > y);
}

static int cmp_edge_caller(const void *a, const void *b, void *arg)
{
	return cmp_edge(arg, *(const uint32_t *)a, *(const uint32_t *)b,
			false);
}

static int cmp_edge_callee(const void *a, const void *b, void *arg)
{
	return cmp_edge(arg, *(const uint32_t *)a, *(const uint32_t *)b,
			true);
}

/* A list entry with its time, so that sorting compares what it has at
 * hand instead of loading the edge again for every comparison: the
 * 64-bit time the list keeps (out_t, in_t), 16 bytes an entry, where a
 * 128-bit one made 32, twice the bytes to move at every merge */
struct timekey {
	int64_t t;
	uint32_t e, other;
};

/* x goes before y: decreasing time, the newer edge first on a tie */
static inline bool tk_before(const struct timekey *x,
			     const struct timekey *y, const void *unused)
{
	return x->t != y->t ? x->t > y->t : x->e > y->e;
}

/* A merge sort with its comparison inline (msort.h), where qsort called
 * a function for each of the timeline's 7.5 million entries'
 * comparisons and copied every entry through a buffer of its own. */
SF_MSORT_DEFINE(tk_sort, struct timekey, void, tk_before)

/* list, its other ends `other` and its times `t` (NULL on rationals and
 * past 64 bits, rare: then the edges' times are compared); tk has room
 * for 2n entries */
static void sort_list(struct sf_an_cg *g, uint32_t *list, uint32_t *other,
		      int64_t *t, size_t n, bool callee, struct timekey *tk)
{
	if (!t) {
		qsort_r(list, n, sizeof(*list),
			callee ? cmp_edge_callee : cmp_edge_caller, g);
		for (size_t i = 0; i < n; i++)
			other[i] = callee ? g->edges[list[i]].to :
					    g->edges[list[i]].from;
		return;
	}
	for (size_t i = 0; i < n; i++)
		tk[i] = (struct timekey){ t[i], list[i], other[i] };
	tk_sort(tk, n, tk + n, NULL);
	for (size_t i = 0; i < n; i++) {
		t[i] = tk[i].t;
		list[i] = tk[i].e;
		other[i] = tk[i].other;
	}
}

/* The longest list of one direction (k 0: out lists, 1: in lists) */
static size_t longest(const struct sf_an_cg *g, size_t k)
{
	const uint32_t *start = k ? g->in_start : g->out_start;
	size_t most = 0;

	for (size_t n = 1; n < g->nnodes; n++) {
		size_t c = start[n + 1] - start[n];
		most = c > most ? c : most;
	}
	return most;
}

/* 7 for one direction: every real node's callees by callee time (task 0),
 * or its callers by caller time (task 1).  The two touch disjoint arrays,
 * so they run on two threads (sf_run_tasks). */
struct dirjob {
	struct sf_an_cg *g;
	bool failed[2];
};

static void sort_dir(void *arg, size_t k)
{
	struct dirjob *j = arg;
	struct sf_an_cg *g = j->g;
	const uint32_t *start = k ? g->in_start : g->out_start;
	uint32_t *list = k ? g->in_edges : g->out_edges;
	uint32_t *other = k ? g->in_from : g->out_to;
	int64_t *t = k ? g->in_t : g->out_t;
	/* the list's entries, then room for tk_sort */
	struct timekey *tk = malloc((2 * longest(g, k) + 1) * sizeof(*tk));

	if (!tk) {
		j->failed[k] = true;
		return;
	}
	for (size_t n = 1; n < g->nnodes; n++)
		sort_list(g, list + start[n], other + start[n],
			  t ? t + start[n] : NULL, start[n + 1] - start[n],
			  !k, tk);
	free(tk);
}

/* How many edges ahead the scatter below asks for its entries' places:
 * of 8, 16 and 32 on the timeline of docs/PERFORMANCE.md (session 18),
 * 8 took the least time */
#define ADJ_AHEAD 8

/* The adjacency of one direction, newest created first: out lists with
 * their callee times (task 0) or in lists with their caller times (task
 * 1), each from its own pass over the edges into its own arrays, so the
 * two run on two threads. */
static void csr_dir(void *arg, size_t k)
{
	struct dirjob *j = arg;
	struct sf_an_cg *g = j->g;
	size_t N = g->nnodes;
	uint32_t *start = k ? g->in_start : g->out_start;
	uint32_t *list = k ? g->in_edges : g->out_edges;
	uint32_t *other = k ? g->in_from : g->out_to;
	int64_t *t = k ? g->in_t : g->out_t;
	uint32_t *at = malloc((N + 1) * sizeof(*at));

	if (!at) {
		j->failed[k] = true;
		return;
	}
	/* start[n + 1] holds n's list length (edge_new counted them) */
	for (size_t n = 0; n < N; n++)
		start[n + 1] += start[n];
	memcpy(at, start, (N + 1) * sizeof(*at));
	for (size_t e = g->nedges; e-- > 0;) {
		const struct edge *x = &g->edges[e];
		uint32_t i = at[k ? x->to : x->from]++;
		/* the entries are written at scattered places: ask for those
		 * of an edge ADJ_AHEAD further on now (where its list's next
		 * entry is now; an entry between moves it by at most one) */
		if (e >= ADJ_AHEAD) {
			const struct edge *y = &g->edges[e - ADJ_AHEAD];
			uint32_t nx = at[k ? y->to : y->from];
			__builtin_prefetch(&list[nx], 1);
			__builtin_prefetch(&other[nx], 1);
			if (t)
				__builtin_prefetch(&t[nx], 1);
		}
		if (t)
			t[i] = (int64_t)time_num(g, (uint32_t)e, !k);
		other[i] = k ? x->from : x->to;
		list[i] = (uint32_t)e;
	}
	free(at);
}

int sf_an__cg_adjacency(struct sf_an_cg *g, struct sf_ctx *ctx)
{
	struct dirjob dj = { .g = g };
	size_t n = g->nedges + 1, *b = g->adj_bytes;

	/* every entry is written below before it is read: from the pages
	 * ctx keeps (the walk's hash map and the view's nodes, about 108 MB
	 * on the timeline of docs/PERFORMANCE.md), the largest first, else
	 * sf_malloc: these are written in scattered order, and where the
	 * heap's new part has no huge-page advice every 4 KiB of them is a
	 * fault of its own (30,000 on that timeline) */
	if (!g->caller && g->total_time <= INT64_MAX / g->den) {
		g->out_t = sf_an__big_array(n, sizeof(*g->out_t), &b[4], ctx);
		g->in_t = sf_an__big_array(n, sizeof(*g->in_t), &b[5], ctx);
	}
	g->out_edges = sf_an__big_array(n, sizeof(uint32_t), &b[0], ctx);
	g->in_edges = sf_an__big_array(n, sizeof(uint32_t), &b[1], ctx);
	g->out_to = sf_an__big_array(n, sizeof(uint32_t), &b[2], ctx);
	g->in_from = sf_an__big_array(n, sizeof(uint32_t), &b[3], ctx);
	/* what is left is not held through the order and the text */
	sf_big_drop(ctx);
	if (!g->out_start || !g->in_start || !g->out_edges || !g->in_edges ||
	    !g->out_to || !g->in_from ||
	    (!g->caller && g->total_time <= INT64_MAX / g->den &&
	     (!g->out_t || !g->in_t)))
		return -1;
	sf_run_tasks(sf_jobs(ctx), 2, csr_dir, &dj);
	return dj.failed[0] || dj.failed[1] ? -1 : 0;
}

int sf_an__cg_sort(struct sf_an_cg *g, unsigned jobs)
{
	struct dirjob dj = { .g = g };

	sf_run_tasks(jobs, 2, sort_dir, &dj);
	return dj.failed[0] || dj.failed[1] ? -1 : 0;
}

/* The sorts beside the order.  The order's thread gives the nodes whose
 * lists it is done with, in batches of about SORT_GIVE entries (a wake-up
 * per round of 5.2 would cost more than the sorts: 36,142 rounds on the
 * timeline of docs/PERFORMANCE.md); a helper thread sorts them in runs of
 * about SORT_TAKE entries, and at the end the order's thread takes runs
 * too, until every given node is sorted. */
#define SORT_GIVE 65536
#define SORT_TAKE 16384

struct sf_an__cg_sorter {
	struct sf_an_cg *g;
	uint32_t *nodes;          /* given, in order */
	size_t pend, pend_entries; /* the order's thread's: written, not yet
				    * given */
	struct timekey *tk[2];    /* the order's thread's, the helper's */
	pthread_mutex_t mu;
	pthread_cond_t cv;        /* nodes given, a run sorted, or the end */
	size_t given, taken;      /* nodes[taken..given) wait for a sort */
	unsigned busy;            /* runs being sorted */
	bool end, stop;
	pthread_t th;
};

/* Entries of node n's two lists */
static size_t node_entries(const struct sf_an_cg *g, uint32_t n)
{
	return (size_t)(g->out_start[n + 1] - g->out_start[n]) +
	       (g->in_start[n + 1] - g->in_start[n]);
}

/* With mu held: sort the next run of given nodes (mu released
 * meanwhile), with tk */
static void sorter_take(struct sf_an__cg_sorter *s, struct timekey *tk)
{
	struct sf_an_cg *g = s->g;
	size_t from = s->taken, to = from, entries = 0;

	while (to < s->given && entries < SORT_TAKE)
		entries += node_entries(g, s->nodes[to++]);
	s->taken = to;
	s->busy++;
	pthread_mutex_unlock(&s->mu);
	for (size_t i = from; i < to; i++) {
		uint32_t n = s->nodes[i];
		sort_list(g, g->out_edges + g->out_start[n],
			  g->out_to + g->out_start[n],
			  g->out_t ? g->out_t + g->out_start[n] : NULL,
			  g->out_start[n + 1] - g->out_start[n], true, tk);
		sort_list(g, g->in_edges + g->in_start[n],
			  g->in_from + g->in_start[n],
			  g->in_t ? g->in_t + g->in_start[n] : NULL,
			  g->in_start[n + 1] - g->in_start[n], false, tk);
	}
	pthread_mutex_lock(&s->mu);
	s->busy--;
	pthread_cond_broadcast(&s->cv);
}

static void *sorter_helper(void *arg)
{
	struct sf_an__cg_sorter *s = arg;

	pthread_mutex_lock(&s->mu);
	while (!s->stop && (s->taken < s->given || !s->end)) {
		if (s->taken < s->given)
			sorter_take(s, s->tk[1]);
		else
			pthread_cond_wait(&s->cv, &s->mu);
	}
	pthread_mutex_unlock(&s->mu);
	return NULL;
}

static void sorter_free(struct sf_an__cg_sorter *s)
{
	pthread_cond_destroy(&s->cv);
	pthread_mutex_destroy(&s->mu);
	free(s->tk[0]);
	free(s->tk[1]);
	free(s->nodes);
	free(s);
}

struct sf_an__cg_sorter *sf_an__cg_sorter_new(struct sf_an_cg *g,
					      unsigned jobs)
{
	struct sf_an__cg_sorter *s;
	size_t a = longest(g, 0), b = longest(g, 1);
	size_t room = 2 * (a > b ? a : b) + 1;

	/* a graph whose lists are one batch: no helper */
	if (jobs < 2 || 2 * g->nedges <= SORT_GIVE ||
	    !(s = calloc(1, sizeof(*s))))
		return NULL;
	s->g = g;
	s->nodes = malloc(g->nnodes * sizeof(*s->nodes));
	s->tk[0] = malloc(room * sizeof(*s->tk[0]));
	s->tk[1] = malloc(room * sizeof(*s->tk[1]));
	pthread_mutex_init(&s->mu, NULL);
	pthread_cond_init(&s->cv, NULL);
	if (!s->nodes || !s->tk[0] || !s->tk[1] ||
	    sf_thread_start(&s->th, sorter_helper, s)) {
		sorter_free(s);
		return NULL;
	}
	return s;
}

void sf_an__cg_sorter_give(struct sf_an__cg_sorter *s, uint32_t n)
{
	s->nodes[s->pend++] = n;
	s->pend_entries += node_entries(s->g, n);
	if (s->pend_entries < SORT_GIVE)
		return;
	s->pend_entries = 0;
	pthread_mutex_lock(&s->mu);
	s->given = s->pend;
	pthread_cond_broadcast(&s->cv);
	pthread_mutex_unlock(&s->mu);
}

void sf_an__cg_sorter_end(struct sf_an__cg_sorter *s, bool done)
{
	pthread_mutex_lock(&s->mu);
	if (done) {
		s->given = s->pend;
		s->end = true;
		pthread_cond_broadcast(&s->cv);
		while (s->taken < s->given)
			sorter_take(s, s->tk[0]);
		while (s->busy)
			pthread_cond_wait(&s->cv, &s->mu);
	}
	s->stop = true;
	pthread_cond_broadcast(&s->cv);
	pthread_mutex_unlock(&s->mu);
	pthread_join(s->th, NULL);
	sorter_free(s);
}
