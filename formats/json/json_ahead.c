/*
 * json_ahead.c - the native JSON reader's second thread: while the reader
 * builds the stack tree, it parses the "stacks" section further on into
 * [parent, frame] pairs, and while the reader folds the samples, the
 * "samples" section into their values, which the reader then takes
 * instead of parsing that text itself (json_read.h, "Reading ahead",
 * says when and why).
 */
#include "json_read.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/*
 * The section's text is cut into blocks: block k starts at the first
 * element separator ",\n[" at or after base + k * AHEAD_BLOCK (looked for
 * in the next AHEAD_FIND bytes only) and ends where block k + 1 starts,
 * a function of the text alone.  A block is taken only when every
 * element in it is a pair of plain integers, so that a block can never
 * hold an element the reader would have read otherwise, or a message.
 * A block is at most AHEAD_BLOCK + AHEAD_FIND bytes, less than the fast
 * path's carry, so a block cut by the end of a piece is whole in the
 * next one.
 */
#define AHEAD_BLOCK (32u << 10)
#define AHEAD_FIND 4096
/* The ring holds 64 blocks (2 MiB of text, about 6 ms of the reader's
 * folding), not 32: the thread stalls for milliseconds at a time while
 * it clears a 2 MiB page of the rooms it faults in, or while the machine
 * runs something else, and a reader that empties the ring parses the
 * blocks itself.  With 64 the reader's user time in loading a timeline
 * fell 5-10 % in the median (4 batches of 30 alternating runs). */
#define AHEAD_SLOTS 64
/* The thread, finding the ring full, sleeps until this many slots are
 * free, not one: the reader is the slower side, so the ring is full most
 * of the time, and a wake-up per block was two futex calls a block
 * (about 4,700 a timeline), a system call and a context switch on the
 * reader's thread each. */
#define AHEAD_WAKE 8
/* A sample takes 96 bytes parsed (struct fast_sample), so the samples
 * section's blocks are a quarter as long, and a block of more samples
 * than AHEAD_RECS is left to the reader (a sample with a weight is at
 * least ",\n[0,0,0,0,0]", 13 bytes: 12 KiB hold at most 946). */
#define AHEAD_SBLOCK (AHEAD_BLOCK / 4)
#define AHEAD_RECS 1024
/* a section shorter than this is read on one thread: starting one
 * costs more than parsing a megabyte */
#define AHEAD_MIN ((size_t)1 << 20)
/* the shortest element with its separator is ",\n[0,0]" */
#define AHEAD_PAIRS ((AHEAD_BLOCK + AHEAD_FIND) / 7 + 1)
#define NONE SIZE_MAX
/* The stack tree's entries are faulted in this many stacks ahead of the
 * reader's estimated place (1.5 MiB of each array); the samples' a
 * quarter as many (768 KiB of the samples' array): what is faulted in
 * ahead past the section's end is memory never used. */
#define FILL_AHEAD ((size_t)1 << 17)
#define FILL_AHEAD_SAMPLES (FILL_AHEAD / 4)

struct ahead_slot {
	atomic_bool full;          /* written by the thread, not yet
				    * released by the reader */
	bool ok;                   /* every element a plain pair */
	size_t start, end;         /* the block, offsets into the map */
	uint32_t n;
	uint32_t pair[2 * AHEAD_PAIRS];
	struct fast_sample *rec;   /* samples: AHEAD_RECS of them */
};

struct sf_json_ahead {
	const unsigned char *map;
	size_t size, base, maxnum;
	size_t block;              /* AHEAD_BLOCK, or AHEAD_SBLOCK */
	bool samples;              /* the samples section, nw weights */
	size_t nw;
	struct fast_sample *recs;  /* every slot's rec */
	bool wait;                 /* SF_JSON_AHEAD=wait: the reader waits
				    * for every block (a test hook) */
	bool fill;                 /* room has the stack tree's arrays, or
				    * the samples' */
	struct sf_stack_room room;
	size_t first;              /* the profile's stacks (samples) at the
				    * start */
	size_t fill_ahead;         /* FILL_AHEAD, or FILL_AHEAD_SAMPLES */
	const struct sf_profile *p;
	uint32_t *smap;            /* the reader's map of the file's stacks
				    * (smap_cap bytes), whose entry smap_first
				    * is the section's first, or NULL */
	size_t smap_cap, smap_first;
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	/* under mu */
	bool stop;
	size_t busy;               /* the thread reads the map from here on
				    * (NONE: it reads nothing) */
	size_t given;              /* the map below this is given back */
	size_t placed;             /* samples: the profile's samples when
				    * the reader last released a slot */
	bool sleeping;             /* the thread waits for free slots */
	size_t wake_at;            /* ... until the reader's head is here */
	size_t head;               /* next slot the reader looks at (the
				    * reader writes it, under mu) */
	/* the reader's alone */
	bool over;                 /* the thread has published its last */
	struct ahead_slot slot[AHEAD_SLOTS];
};

/* The first separator ",\n[" in map[from, from + AHEAD_FIND), or NONE. */
static size_t block_start(const struct sf_json_ahead *a, size_t from)
{
	if (from >= a->size)
		return NONE;
	size_t len = a->size - from < AHEAD_FIND ? a->size - from : AHEAD_FIND;
	const unsigned char *q = memmem(a->map + from, len, ",\n[", 3);

	return q ? (size_t)(q - a->map) : NONE;
}

/* A plain integer at *pp, as json_fast.c's plain_elem takes it (no sign,
 * no leading zero, at most maxnum digits), and below 2^32; false if not. */
static bool plain_u32(const struct sf_json_ahead *a, const unsigned char **pp,
		      const unsigned char *e, uint32_t *out)
{
	const unsigned char *p = *pp;
	uint64_t x = 0;
	size_t nd = e - p >= 8 ? digits8(p, &x) : 8;

	if (nd == 8) {
		/* 2^32 has 10 digits: 11 are too many */
		x = 0;
		nd = 0;
		while (p + nd < e && (unsigned)(p[nd] - '0') < 10 && nd < 11)
			x = x * 10 + (unsigned)(p[nd++] - '0');
	}
	if (!nd || nd > a->maxnum || (*p == '0' && nd > 1) || x > UINT32_MAX)
		return false;
	*out = (uint32_t)x;
	*pp = p + nd;
	return true;
}

/* The pairs of the block map[start, end) into s: whether it is all plain
 * pairs. */
static bool block_parse(const struct sf_json_ahead *a, size_t start,
			size_t end, struct ahead_slot *s)
{
	const unsigned char *p = a->map + start, *e = a->map + end;

	s->n = 0;
	while (p < e) {
		uint32_t *v = &s->pair[2 * s->n];
		if (e - p < 3 || memcmp(p, ",\n[", 3))
			return false;
		p += 3;
		if (!plain_u32(a, &p, e, &v[0]) || p >= e || *p++ != ',' ||
		    !plain_u32(a, &p, e, &v[1]) || p >= e || *p++ != ']')
			return false;
		if (++s->n == AHEAD_PAIRS && p < e)
			return false;
	}
	return p == e;
}

/* The samples of the block map[start, end) into s, each as json_fast.c's
 * plain_batch parses it: whether all are of the plainest kind. */
static bool block_parse_samples(const struct sf_json_ahead *a, size_t start,
				size_t end, struct ahead_slot *s)
{
	const unsigned char *p = a->map + start, *e = a->map + end;

	s->n = 0;
	while (p < e) {
		struct fast_sample *x = &s->rec[s->n];
		if (s->n == AHEAD_RECS || e - p < 3 || memcmp(p, ",\n[", 3) ||
		    !(p = plain_elem(p + 3, e, a->maxnum, a->nw, x)))
			return false;
		x->slot = NULL;
		x->end = p;
		s->n++;
	}
	return p == e;
}

/*
 * Fault in the stack tree's entries ahead of the reader (profile.h, "Room
 * for a reader"): the nodes up to the end of the block just parsed are at
 * most `first` plus the section's elements up to there, estimated from
 * the pairs per byte of the blocks parsed so far.  The samples' arrays
 * from the reader's own count (`placed`) instead: where samples fold
 * into one another (an aggregated output of a timeline of few stacks)
 * the elements would overstate them by thousands of times.
 */
static void fill(struct sf_json_ahead *a, const struct ahead_slot *s,
		 size_t *pairs, size_t *bytes, size_t *filled, size_t placed)
{
	*pairs += s->n;
	*bytes += s->end - s->start;
	size_t want = a->samples ? placed + a->fill_ahead :
		      a->first + a->fill_ahead +
		      (size_t)((double)(s->end - a->base) * (double)*pairs /
			       (double)*bytes);
	if (want > *filled + a->fill_ahead / 2) {
		sf_stack_room_fill(&a->room, *filled, want);
		/* the file has at least as many stacks as the tree nodes
		 * they make: the map's entries for these and more */
		size_t e = sizeof(*a->smap);
		sf_big_populate(a->smap, a->smap_cap,
				(a->smap_first + *filled - a->first) * e,
				(a->smap_first + want - a->first) * e);
		*filled = want;
	}
}

static void *ahead_main(void *arg)
{
	struct sf_json_ahead *a = arg;
	size_t k = 1, tail = 0, start = NONE;
	size_t pairs = 0, bytes = 0, filled = a->first, placed = a->first;

	for (;;) {
		struct ahead_slot *s = &a->slot[tail % AHEAD_SLOTS];
		pthread_mutex_lock(&a->mu);
		while (!a->stop &&
		       atomic_load_explicit(&s->full, memory_order_acquire)) {
			/* slots tail .. tail + AHEAD_WAKE - 1 are free once
			 * the reader's head has passed them a lap before */
			a->wake_at = tail + AHEAD_WAKE - AHEAD_SLOTS;
			a->sleeping = true;
			pthread_cond_wait(&a->cv, &a->mu);
		}
		a->sleeping = false;
		if (a->stop) {
			pthread_mutex_unlock(&a->mu);
			return NULL;
		}
		/* a block the reader has passed is of no use, and its text
		 * may be unmapped */
		if (a->base + k * a->block < a->given) {
			k = (a->given - a->base) / a->block + 1;
			start = NONE;
		}
		a->busy = a->base + k * a->block;
		placed = a->placed;
		pthread_mutex_unlock(&a->mu);

		if (start == NONE)
			start = block_start(a, a->base + k * a->block);
		size_t end = block_start(a, a->base + (k + 1) * a->block);
		s->start = start;
		s->end = end;
		s->ok = start != NONE && end != NONE &&
			(a->samples ? block_parse_samples(a, start, end, s) :
				      block_parse(a, start, end, s));

		pthread_mutex_lock(&a->mu);
		a->busy = NONE;
		atomic_store_explicit(&s->full, true, memory_order_release);
		pthread_cond_broadcast(&a->cv);
		pthread_mutex_unlock(&a->mu);
		/* the first block that is not all pairs is the last: the
		 * section ends there, or the reader leaves the fast path */
		if (!s->ok)
			return NULL;
		if (a->fill)
			fill(a, s, &pairs, &bytes, &filled, placed);
		start = end;
		k++;
		tail++;
	}
}

int sf_json__ahead_start(struct sf_json_ahead **out, struct sf_profile *p,
			 const unsigned char *map, size_t size, size_t base,
			 size_t maxnum, bool samples, size_t nw,
			 struct u32v *smap)
{
	const char *env = getenv("SF_JSON_AHEAD");
	struct sf_json_ahead *a;

	*out = NULL;
	if (size - base < AHEAD_MIN || (a = calloc(1, sizeof(*a))) == NULL)
		return -1;
	a->map = map;
	a->size = size;
	a->base = base;
	a->maxnum = maxnum;
	a->wait = env && !strcmp(env, "wait");
	a->busy = NONE;
	a->block = samples ? AHEAD_SBLOCK : AHEAD_BLOCK;
	a->samples = samples;
	a->nw = nw;
	a->p = p;
	if (samples) {
		a->recs = sf_calloc((size_t)AHEAD_SLOTS * AHEAD_RECS,
				    sizeof(*a->recs));
		if (!a->recs) {
			free(a);
			return -1;
		}
		for (size_t i = 0; i < AHEAD_SLOTS; i++)
			a->slot[i].rec = a->recs + i * AHEAD_RECS;
		/* the reader's samples arrays grew by doubling on its own
		 * thread, their fresh pages cleared there: room for the
		 * most samples the rest of the file can hold, each 4 + nw
		 * values, none shorter than "[0,0,0,0,0]," with one */
		a->first = a->placed = p->d.nsamples;
		a->fill_ahead = FILL_AHEAD_SAMPLES;
		a->fill = !sf_profile_sample_room(
			p, (size - base) / (2 * (4 + nw) + 2) + 1, &a->room);
	} else {
		/* no element is shorter than "[0,0]," */
		a->first = p->d.nstacks;
		a->fill_ahead = FILL_AHEAD;
		a->fill = !sf_profile_stack_room(p, (size - base) / 6 + 1,
						 &a->room);
		if (a->fill && smap &&
		    !sf_json__u32v_reserve(smap,
					   smap->n + (size - base) / 6 + 1)) {
			a->smap = smap->v;
			a->smap_cap = smap->cap * sizeof(*smap->v);
			a->smap_first = smap->n;
		}
	}
	if (pthread_mutex_init(&a->mu, NULL))
		goto fail;
	if (pthread_cond_init(&a->cv, NULL)) {
		pthread_mutex_destroy(&a->mu);
		goto fail;
	}
	if (sf_thread_start(&a->thread, ahead_main, a)) {
		pthread_cond_destroy(&a->cv);
		pthread_mutex_destroy(&a->mu);
		goto fail;
	}
	*out = a;
	return 0;
fail:
	free(a->recs);
	free(a);
	return -1;
}

void sf_json__ahead_stop(struct sf_json_ahead *a)
{
	if (!a)
		return;
	pthread_mutex_lock(&a->mu);
	a->stop = true;
	pthread_cond_broadcast(&a->cv);
	pthread_mutex_unlock(&a->mu);
	pthread_join(a->thread, NULL);
	pthread_cond_destroy(&a->cv);
	pthread_mutex_destroy(&a->mu);
	free(a->recs);
	free(a);
}

/* Give the head slot back to the thread. */
static void release(struct sf_json_ahead *a, struct ahead_slot *s)
{
	if (!s->ok)
		a->over = true;
	pthread_mutex_lock(&a->mu);
	a->placed = a->p->d.nsamples;
	atomic_store_explicit(&s->full, false, memory_order_release);
	a->head++;
	if (a->sleeping && a->head >= a->wake_at)
		pthread_cond_broadcast(&a->cv);
	pthread_mutex_unlock(&a->mu);
}

size_t sf_json__ahead_next(struct sf_json_ahead *a, size_t pos)
{
	while (!a->over) {
		struct ahead_slot *s = &a->slot[a->head % AHEAD_SLOTS];
		if (!atomic_load_explicit(&s->full, memory_order_acquire)) {
			if (!a->wait)
				return NONE;
			pthread_mutex_lock(&a->mu);
			while (!atomic_load_explicit(&s->full,
						     memory_order_acquire))
				pthread_cond_wait(&a->cv, &a->mu);
			pthread_mutex_unlock(&a->mu);
		}
		if (s->ok && s->start >= pos)
			return s->start;
		release(a, s);
	}
	return NONE;
}

const uint32_t *sf_json__ahead_pairs(const struct sf_json_ahead *a,
				     size_t *n, size_t *end)
{
	const struct ahead_slot *s = &a->slot[a->head % AHEAD_SLOTS];

	*n = s->n;
	*end = s->end;
	return s->pair;
}

struct fast_sample *sf_json__ahead_samples(struct sf_json_ahead *a,
					   size_t *n, size_t *end)
{
	struct ahead_slot *s = &a->slot[a->head % AHEAD_SLOTS];

	*n = s->n;
	*end = s->end;
	return s->rec;
}

void sf_json__ahead_done(struct sf_json_ahead *a)
{
	release(a, &a->slot[a->head % AHEAD_SLOTS]);
}

size_t sf_json__ahead_give(struct sf_json_ahead *a, size_t to)
{
	if (!a)
		return to;
	pthread_mutex_lock(&a->mu);
	if (a->busy < to)
		to = a->busy;
	if (to > a->given)
		a->given = to;
	else
		to = a->given;
	pthread_mutex_unlock(&a->mu);
	return to;
}
