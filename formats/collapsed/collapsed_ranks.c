/*
 * collapsed_ranks.c - the collapsed writer's keys in byte order (struct
 * walk's krank), made beside the writer's first passes with two jobs.
 */
#include "collapsed.h"
#include "msort.h"

#include <stdlib.h>
#include <string.h>

/* Byte order of the keys name (sub = 0) and name ";" (sub = 1), given as
 * 2 * name id + sub, of the names `t`. */
static int key_cmp(uint32_t ka, uint32_t kb, const struct onames *t)
{
	const struct oname *x = &t->names[ka >> 1];
	const struct oname *y = &t->names[kb >> 1];
	unsigned xs = ka & 1, ys = kb & 1;
	size_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp(x->txt, y->txt, n);

	if (c)
		return c;
	if (x->len == y->len)
		return (int)xs - (int)ys;  /* "c" < "c;" */
	/* one name is a proper prefix of the other: the shorter key goes
	 * on with ';' if it is a subtree entry, else it has ended */
	if (x->len < y->len) {
		unsigned char yc = (unsigned char)y->txt[n];
		return !xs || ';' < yc ? -1 : ';' > yc ? 1 : -1;
	}
	unsigned char xc = (unsigned char)x->txt[n];
	return !ys || ';' < xc ? 1 : ';' > xc ? -1 : 1;
}

/*
 * A key as rank_keys sorts it: its text's first 16 bytes (the name, ';'
 * for a subtree key, then zero bytes) as two big-endian words.  No name
 * holds a zero byte or, sanitised, a ';', so the texts' byte order is
 * key_cmp's, and a text that ends sorts before its continuations as the
 * zero bytes do: two keys whose words differ compare as their words, and
 * only keys alike in 16 bytes are compared whole.  Most compares are then
 * two integer compares, where each was a memcmp of two names read at
 * random places (qsort of a timeline's 100,000 keys: 122 M instructions).
 */
struct rkey {
	uint64_t w[2];
	uint32_t k;
};

static uint64_t be64(const unsigned char *b)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v = v << 8 | b[i];
	return v;
}

static inline bool rkey_less(const struct rkey *x, const struct rkey *y,
			     const struct onames *t)
{
	if (x->w[0] != y->w[0])
		return x->w[0] < y->w[0];
	if (x->w[1] != y->w[1])
		return x->w[1] < y->w[1];
	return key_cmp(x->k, y->k, t) < 0;
}

/* A merge sort of runs sorted by insertion (msort.h).  qsort, moving
 * 24-byte elements through its generic path and calling for each
 * compare, took 91 M instructions for a timeline's keys; this about a
 * third of that. */
SF_MSORT_DEFINE(rkey_sort, struct rkey, struct onames, rkey_less)

/* The ranking of one walk's keys: room for the keys and the sort's, and
 * where the ranks go. */
struct rank_job {
	const struct onames *t;
	struct rkey *order;        /* nk keys, then nk / 2 + 1 of room */
	size_t nk;
	uint32_t *krank;
	pthread_t thread;
	bool started;
};

/* Make the keys, sort them and write each one's rank (names are
 * distinct, so equal ranks are equal keys). */
static void *rank_run(void *arg)
{
	struct rank_job *j = arg;

	for (size_t k = 0; k < j->nk; k++) {
		const struct oname *o = &j->t->names[k >> 1];
		unsigned char b[16] = { 0 };
		if (o->len)
			memcpy(b, o->txt, o->len < 16 ? o->len : 16);
		if ((k & 1) && o->len < 16)
			b[o->len] = ';';
		j->order[k] = (struct rkey){ { be64(b), be64(b + 8) },
					     (uint32_t)k };
	}
	rkey_sort(j->order, j->nk, j->order + j->nk, j->t);
	for (size_t r = 0; r < j->nk; r++)
		j->krank[j->order[r].k] = (uint32_t)r;
	return NULL;
}

/* Below this many keys a thread costs about what the sort does. */
#define RANK_THREAD_MIN 4096

int sf_collapsed__ranks_start(struct walk *w, struct sf_ctx *ctx)
{
	const struct onames *t = w->names;
	size_t nk = 2 * t->nnames;
	struct rank_job *j = sf_calloc(1, sizeof(*j));

	w->krank = sf_calloc(nk ? nk : 1, sizeof(*w->krank));
	if (j)
		j->order = sf_calloc(nk + nk / 2 + 1, sizeof(*j->order));
	if (!j || !j->order || !w->krank) {
		if (j)
			free(j->order);
		free(j);
		return sf_error_nomem(ctx);
	}
	j->t = t;
	j->nk = nk;
	j->krank = w->krank;
	w->ranking = j;
	/* if no thread can be started, the keys are ranked here */
	if (sf_jobs(ctx) > 1 && nk >= RANK_THREAD_MIN)
		j->started = !sf_thread_start(&j->thread, rank_run, j);
	if (!j->started)
		sf_collapsed__ranks_wait(w);
	return 0;
}

void sf_collapsed__ranks_wait(struct walk *w)
{
	struct rank_job *j = w->ranking;

	if (!j)
		return;
	if (j->started)
		pthread_join(j->thread, NULL);
	else
		rank_run(j);
	free(j->order);
	free(j);
	w->ranking = NULL;
}
