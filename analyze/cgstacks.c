/*
 * cgstacks.c - the stacks of the call graph's walk (docs/analyze.md, call
 * graph 3), made ahead of it in blocks of samples: each view sample's
 * stack as call graph nodes, root first, with each function's count in
 * the sample and the map tags of the edges the stack names; and with them
 * the functions' sums (every thread's time, each function's total, self
 * time and thread ids).  The edges' walk (callgraph.c) takes the blocks
 * in order and does only the look-ups and the edges' sums.
 *
 * With two jobs a helper thread makes the blocks while the walk's thread
 * walks the ones made, a few blocks ahead; either thread makes the next
 * block when it is free to, and only once the one before it is made, so
 * the sums are added in processing order and every block is the same
 * whichever thread made it.  With one job (or no helper) the walk's
 * thread makes each block before it walks it.
 */
#include "analyze.h"
#include "an_internal.h"
#include "cg_internal.h"
#include "hash.h"

#include <pthread.h>
#include <stdlib.h>

/* A block ends at this many samples with a stack, or before the frame
 * that would pass BLOCK_FRAMES (or the deepest stack, if deeper); about
 * 200 KB on the timeline of docs/PERFORMANCE.md, where blocks of a few
 * hundred thousand frames stayed in no cache between their making and
 * their walk. */
#define BLOCK_SAMPLES 1024
#define BLOCK_FRAMES 16384
#define NBLOCKS 4

/* A function's count in the sample with stamp `stamp` (its index + 1) */
struct fcount {
	uint32_t stamp, cnt;
};

struct sf_an__cg_stacks {
	struct sf_an_cg *g;
	const struct sf_an_view *v;
	bool nodes, hashes;
	size_t fcap;               /* frames a block holds */
	struct fcount *fc;         /* per cg node */
	struct sf_an__cg_block b[NBLOCKS];   /* block k in b[k % NBLOCKS] */
	size_t next;               /* the first sample of the next block,
				    * written only by the thread making it */
	pthread_mutex_t mu;
	pthread_cond_t cv;         /* a block made, or one given back */
	size_t made, taken, given; /* blocks made, taken by the walk, and
				    * given back (all but the last taken) */
	bool making;               /* a thread is making block `made` */
	bool stop;                 /* the walk is done, or a block failed */
	int rc;
	pthread_t th;
	bool helper;
	void *room;                /* see sf_an__cg_stacks_new */
	size_t room_bytes;
};

/* Function f's first occurrence in a sample of weight w on thread T:
 * its total, and its thread ids in processing order */
static int first_in_sample(struct sf_an_cg *g, uint32_t f, int64_t T,
			   sf_an_w w)
{
	struct node *x = &g->nodes[f];

	x->total += w;
	if (x->lastthr == T)
		return 0;
	if (x->ntids == x->captids) {
		uint32_t nc = x->captids ? x->captids * 2 : 2;
		int64_t *nt = sf_reallocarray(x->tids, nc, sizeof(*nt));
		if (!nt)
			return SF_ENOMEM;
		x->tids = nt;
		x->captids = nc;
	}
	x->tids[x->ntids++] = T;
	x->lastthr = T;
	return 0;
}

/* The map's tag of the edge from -> to (struct sf_an__cg_block) */
static inline uint32_t edge_tag(uint32_t from, uint32_t to)
{
	return (uint32_t)sf_idx_tag(sf_hash_u64(from, to));
}

/* Make the next block into b (by the thread that claimed it).  Returns 0
 * or SF_ENOMEM. */
static int make_block(struct sf_an__cg_stacks *s, struct sf_an__cg_block *b)
{
	const struct sf_an_view *v = s->v;
	struct sf_an_cg *g = s->g;
	size_t si = s->next, at = 0, n = 0;

	for (; si < v->nsamples && n < BLOCK_SAMPLES; si++) {
		const struct sf_an_sample *x = &v->samples[si];
		uint32_t m = x->node, d = v->nodes[m].depth;
		uint32_t st = (uint32_t)si + 1, *p = b->cgp + at;
		int64_t T = v->threads[x->thread].id;

		if (at + d > s->fcap)
			break;
		/* the chain below is a row of dependent loads; a chain new
		 * to the view was numbered root to leaf, so a sample's chain
		 * mostly lies just below its leaf: ask for the one after
		 * next now */
		if (si + 2 < v->nsamples) {
			const char *q = (const char *)
					&v->nodes[v->samples[si + 2].node];
			for (int k = 0; k < 8; k++)
				__builtin_prefetch(q - 64 * k);
		}
		if (s->nodes)
			g->thread_time[T] += x->w;
		if (!d)
			continue;
		for (uint32_t i = d; m; m = v->nodes[m].parent) {
			uint32_t f = v->nodes[m].func + 1;
			struct fcount *c = &s->fc[f];
			p[--i] = f;
			if (c->stamp == st) {
				c->cnt++;
				continue;
			}
			c->stamp = st;
			c->cnt = 1;
			if (s->nodes && first_in_sample(g, f, T, x->w))
				return SF_ENOMEM;
		}
		if (s->nodes)
			g->nodes[p[d - 1]].self += x->w;
		for (uint32_t i = 0; i < d; i++)
			b->cnt[at + i] = s->fc[p[i]].cnt;
		if (s->hashes) {
			uint32_t *t = b->tag + at + n;
			t[0] = edge_tag(STAR, p[0]);
			for (uint32_t i = 1; i < d; i++)
				t[i] = edge_tag(p[i - 1], p[i]);
			t[d] = edge_tag(p[d - 1], STAR);
		}
		b->si[n] = (uint32_t)si;
		b->off[n++] = (uint32_t)at;
		at += d;
	}
	b->off[n] = (uint32_t)at;
	b->n = n;
	s->next = si;
	return 0;
}

/* With mu held: make the next block if no one is making one and its room
 * is free (mu released meanwhile).  False when there is none to make
 * now.  `making` is tested first: `next` is the maker's while it is set. */
static bool make_next(struct sf_an__cg_stacks *s)
{
	int rc;

	if (s->making || s->stop || s->next >= s->v->nsamples ||
	    s->made >= s->given + NBLOCKS)
		return false;
	s->making = true;
	pthread_mutex_unlock(&s->mu);
	rc = make_block(s, &s->b[s->made % NBLOCKS]);
	pthread_mutex_lock(&s->mu);
	s->making = false;
	if (rc) {
		s->rc = rc;
		s->stop = true;
	} else {
		s->made++;
	}
	pthread_cond_broadcast(&s->cv);
	return true;
}

static void *stacks_helper(void *arg)
{
	struct sf_an__cg_stacks *s = arg;

	/* the walk's thread makes the first blocks meanwhile */
	if (s->room)
		sf_big_populate(s->room, s->room_bytes, 0, s->room_bytes);
	pthread_mutex_lock(&s->mu);
	while (!s->stop && (s->making || s->next < s->v->nsamples))
		if (!make_next(s))
			pthread_cond_wait(&s->cv, &s->mu);
	pthread_mutex_unlock(&s->mu);
	return NULL;
}

const struct sf_an__cg_block *sf_an__cg_stacks_next(
	struct sf_an__cg_stacks *s, int *rc)
{
	const struct sf_an__cg_block *b = NULL;

	pthread_mutex_lock(&s->mu);
	if (s->given != s->taken) {
		s->given = s->taken;
		pthread_cond_broadcast(&s->cv);
	}
	while (!s->stop) {
		if (s->taken < s->made) {
			b = &s->b[s->taken++ % NBLOCKS];
			break;
		}
		if (!s->making && s->next >= s->v->nsamples)
			break;
		if (!make_next(s))
			pthread_cond_wait(&s->cv, &s->mu);
	}
	*rc = s->rc;
	pthread_mutex_unlock(&s->mu);
	return b;
}

void sf_an__cg_stacks_free(struct sf_an__cg_stacks *s)
{
	if (!s)
		return;
	pthread_mutex_lock(&s->mu);
	s->stop = true;
	pthread_cond_broadcast(&s->cv);
	pthread_mutex_unlock(&s->mu);
	if (s->helper)
		pthread_join(s->th, NULL);
	pthread_cond_destroy(&s->cv);
	pthread_mutex_destroy(&s->mu);
	for (int k = 0; k < NBLOCKS; k++) {
		free(s->b[k].si);
		free(s->b[k].off);
		free(s->b[k].cgp);
		free(s->b[k].cnt);
		free(s->b[k].tag);
	}
	free(s->fc);
	free(s);
}

int sf_an__cg_stacks_new(struct sf_an__cg_stacks **out, struct sf_an_cg *g,
			 const struct sf_an_view *v, bool nodes, bool hashes,
			 unsigned jobs, void *room, size_t room_bytes)
{
	struct sf_an__cg_stacks *s = calloc(1, sizeof(*s));
	bool ok;

	if (!s)
		return -1;
	s->g = g;
	s->v = v;
	s->nodes = nodes;
	s->hashes = hashes;
	s->room = room;
	s->room_bytes = room_bytes;
	s->fcap = v->maxdepth > BLOCK_FRAMES ? v->maxdepth : BLOCK_FRAMES;
	ok = (s->fc = calloc(g->nnodes, sizeof(*s->fc))) != NULL;
	for (int k = 0; ok && k < NBLOCKS; k++) {
		struct sf_an__cg_block *b = &s->b[k];
		b->si = malloc(BLOCK_SAMPLES * sizeof(*b->si));
		b->off = malloc((BLOCK_SAMPLES + 1) * sizeof(*b->off));
		b->cgp = malloc(s->fcap * sizeof(*b->cgp));
		b->cnt = malloc(s->fcap * sizeof(*b->cnt));
		if (hashes)
			b->tag = malloc((s->fcap + BLOCK_SAMPLES) *
					sizeof(*b->tag));
		ok = b->si && b->off && b->cgp && b->cnt &&
		     (b->tag || !hashes);
	}
	pthread_mutex_init(&s->mu, NULL);
	pthread_cond_init(&s->cv, NULL);
	if (!ok) {
		sf_an__cg_stacks_free(s);
		return -1;
	}
	/* a single block is made by the walk's thread in any case */
	if (jobs > 1 && v->nsamples > BLOCK_SAMPLES)
		s->helper = !sf_thread_start(&s->th, stacks_helper, s);
	*out = s;
	return 0;
}
