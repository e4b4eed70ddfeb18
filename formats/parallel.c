/* parallel.c - reading one large text input on several threads (the
 * contract is in format.h, sf_read_parallel). */
#include "format.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* One part of the input and what reading it gave: the chunks [first,
 * end) of the cut file, read by one thread into one profile.  `next` is
 * the first chunk its reader has not reached: the chunks [next, end) may
 * still be taken by a thread that ran out of work (pool.mu guards next
 * and end). */
struct part {
	size_t first, next, end;
	bool taken;            /* a thread reads it */
	bool asks;             /* its reader asks at chunk ends (so its
				* last chunks can be taken from it) */
	struct sf_profile *p;
	struct sf_ctx ctx;
	int rc;
};

/* The chunks of one read and the threads that read them: each thread
 * reads a run of chunks into one profile (its reader's caches stay warm
 * along it); a thread that is done takes the upper half of the chunks
 * nobody reached of the part with the most, as a new part, so a thread
 * on a busier core reads less. */
struct pool {
	pthread_mutex_t mu;
	const struct sf_format *fmt;
	struct sf_input *whole;
	const struct sf_profile *p;   /* the caller's, only read */
	const struct sf_ctx *ctx;
	const uint64_t *cut;          /* chunk k: [cut[k], cut[k + 1]) */
	struct part *w;               /* room for one part per chunk */
	size_t np;
	bool failed;                  /* a part failed: the serial read
				       * decides, take no more */
	/* SF_SPLIT_STEAL (tests): the reader of chunk 0 waits at the
	 * chunk's end until every other thread ran out of work, so that
	 * they take its other chunks, whatever the timing */
	bool steal_test;
	pthread_cond_t idle_cv;
	unsigned busy;                /* threads not out of work */
};

/* A part must not start where its first bytes would be read differently
 * than in the middle of the whole: a UTF-8 byte-order mark (dropped only
 * on line 1), the gzip magic (an input sniffs it), a UTF-16 mark, a NUL.
 * Such a cut moves on to the next record; none of them is ASCII. */
static bool good_start(unsigned char c)
{
	return c && c != 0x1f && c < 0x80;
}

/* The first good record start at or after `pos` (> 0), or `size`: the
 * split function looks at a window of the file from pos - 1 on, doubled
 * until it finds a record start inside it or reaches the end. */
static int find_cut(const struct sf_format *fmt, struct sf_input *in,
		    struct sf_ctx *ctx, uint64_t size, uint64_t pos,
		    char **buf, size_t *cap, uint64_t *out)
{
	size_t want = 65536;

	while (pos < size) {
		uint64_t a = pos - 1;
		if (want > size - a)
			want = (size_t)(size - a);
		if (want > *cap) {
			char *nb = realloc(*buf, want);
			if (!nb)
				return sf_error(ctx, SF_ENOMEM, NULL, 0,
						"out of memory");
			*buf = nb;
			*cap = want;
		}
		long got = sf_input_pread(in, ctx, *buf, want, a);
		if (got < 0)
			return (int)got;
		size_t c = fmt->split(*buf, (size_t)got, 1);
		if (c >= (size_t)got) {
			if (a + (uint64_t)got >= size)
				break;     /* no record starts after pos */
			want *= 2;
			continue;
		}
		if (good_start((unsigned char)(*buf)[c])) {
			*out = a + c;
			return 0;
		}
		pos = a + c + 1;
		want = 65536;
	}
	*out = size;
	return 0;
}

/* Up to `n` parts: cut[0] = 0 < cut[1] < ... < cut[np] = size; returns
 * np (0 on error). */
static size_t cut_parts(const struct sf_format *fmt, struct sf_input *in,
			struct sf_ctx *ctx, uint64_t size, size_t n,
			uint64_t *cut)
{
	size_t np = 0, cap = 0;
	char *buf = NULL;

	cut[0] = 0;
	for (size_t k = 1; k < n; k++) {
		uint64_t want = (uint64_t)((unsigned __int128)size * k / n), c = 0;
		if (find_cut(fmt, in, ctx, size, want > cut[np] ? want :
						      cut[np] + 1,
			     &buf, &cap, &c)) {
			free(buf);
			return 0;
		}
		if (c > cut[np] && c < size)
			cut[++np] = c;
	}
	free(buf);
	cut[++np] = size;
	return np;
}

static void part_free(struct part *w)
{
	sf_profile_free(w->p);
	w->p = NULL;
	w->ctx.opts = NULL;    /* borrowed from the caller's context */
	w->ctx.nopts = 0;
	sf_ctx_free(&w->ctx);
}

/* A fresh profile for a part: p's modes, input index and sample types,
 * so the reader sees what it would see reading into p. */
static int part_init(struct part *w, const struct sf_profile *p,
		     const struct sf_ctx *ctx)
{
	uint32_t t;
	int rc;

	sf_ctx_init(&w->ctx);
	w->ctx.limits = ctx->limits;
	w->ctx.opts = ctx->opts;
	w->ctx.nopts = ctx->nopts;
	w->ctx.interrupted = ctx->interrupted;
	w->ctx.jobs = 1;
	if ((rc = sf_profile_new(&w->p, &w->ctx)))
		return rc;
	sf_profile_set_aggregate(w->p, p->d.aggregated);
	sf_profile_set_fold_exact(w->p, p->d.fold_exact);
	sf_profile_set_drop_zero(w->p, p->d.drop_zero);
	sf_profile_begin_input(w->p, p->d.input);
	for (size_t i = 0; i < p->d.ntypes; i++)
		if ((rc = sf_profile_sample_type(w->p, &w->ctx,
						 p->d.types[i].type,
						 p->d.types[i].unit, &t)))
			return rc;
	w->p->d.meta.default_type = p->d.meta.default_type;
	return 0;
}

/* A part that set a property differently (perf's "perf.event": the
 * first event of the part was not the file's first event type) read with
 * other state than the serial read would have had. */
static bool props_differ(const struct sf_profile *p,
			 const struct sf_profile *part)
{
	for (size_t i = 0; i < part->d.meta.nprops; i++) {
		const char *v = sf_profile_prop(p, part->d.meta.props[i].key);
		if (v && strcmp(v, part->d.meta.props[i].value))
			return true;
	}
	return false;
}

/* A part that made other sample types than another (perf: a part whose
 * first event was of no type, or of another type than the file's first)
 * read with other state than the serial read: its weights would go to a
 * type the serial read never made.  A part that made none (no sample)
 * agrees with any. */
static bool types_differ(const struct sf_profile *a,
			 const struct sf_profile *b)
{
	if (!a->d.ntypes || !b->d.ntypes)
		return false;
	if (a->d.ntypes != b->d.ntypes ||
	    a->d.meta.default_type != b->d.meta.default_type)
		return true;
	for (size_t i = 0; i < a->d.ntypes; i++)
		if (strcmp(a->d.types[i].type, b->d.types[i].type) ||
		    strcmp(a->d.types[i].unit, b->d.types[i].unit))
			return true;
	return false;
}

/* The part a thread reads, for its reader's questions (base/sf.h,
 * sf_read_part_stop). */
struct reading {
	struct pool *pl;
	struct part *w;
};

static uint64_t part_limit(void *arg)
{
	struct reading *r = arg;
	struct pool *pl = r->pl;
	uint64_t lim;

	pthread_mutex_lock(&pl->mu);
	r->w->asks = true;
	lim = pl->cut[r->w->next] - pl->cut[r->w->first];
	pthread_mutex_unlock(&pl->mu);
	return lim;
}

static bool part_stop(void *arg, uint64_t offset, uint64_t *limit)
{
	struct reading *r = arg;
	struct pool *pl = r->pl;
	struct part *w = r->w;
	bool stop = false;
	uint64_t base = pl->cut[w->first];

	pthread_mutex_lock(&pl->mu);
	if (pl->steal_test && !w->first && w->next == 1) {
		while (pl->busy > 1)
			pthread_cond_wait(&pl->idle_cv, &pl->mu);
	}
	if (offset != pl->cut[w->next] - base) {
		/* not at the chunk's end (a reader that did not ask at a
		 * record start): its part cannot be trusted, the serial
		 * read decides */
		w->rc = w->rc ? w->rc : 1;
		w->end = w->next;
		stop = true;
	} else if (w->next < w->end) {
		w->next++;        /* the next chunk is this reader's */
	} else {
		stop = true;      /* a thread took the rest */
	}
	*limit = pl->cut[w->next] - base;
	pthread_mutex_unlock(&pl->mu);
	return stop;
}

static int read_part(struct pool *pl, struct part *w)
{
	struct sf_input *in;
	uint64_t off = pl->cut[w->first];
	struct reading r = { pl, w };
	struct sf_part_hook hook = { part_limit, part_stop, &r };
	int rc = sf_input_range(&in, &w->ctx, pl->whole, off,
				pl->cut[w->end] - off);

	if (rc)
		return rc;
	sf_part_hook_set(&hook);
	rc = pl->fmt->read(w->p, in, &w->ctx);
	sf_part_hook_set(NULL);
	sf_input_close(in);
	return rc;
}

/* Under pool.mu: the part a free thread reads next, or NULL: a run
 * nobody started, else the upper half of the chunks nobody reached of
 * the part that has the most. */
static struct part *next_part(struct pool *pl)
{
	struct part *v = NULL;

	if (pl->failed)
		return NULL;
	for (size_t k = 0; k < pl->np; k++) {
		struct part *w = &pl->w[k];
		if (!w->taken)
			return w;
		if (w->asks && w->end > w->next &&
		    (!v || w->end - w->next > v->end - v->next))
			v = w;
	}
	if (!v)
		return NULL;
	struct part *w = &pl->w[pl->np++];
	size_t n = (v->end - v->next + 1) / 2;
	w->end = v->end;
	w->first = v->end - n;
	w->next = w->first + 1;
	v->end = w->first;
	return w;
}

/* Under pool.mu: a thread is out of work (or never started); the
 * steal test's waiter goes on when at most one is left. */
static void pool_leave(struct pool *pl)
{
	if (--pl->busy <= 1)
		pthread_cond_broadcast(&pl->idle_cv);
}

static void *pool_thread(void *arg)
{
	struct pool *pl = arg;
	struct part *w;

	for (;;) {
		pthread_mutex_lock(&pl->mu);
		if ((w = next_part(pl)))
			w->taken = true;
		else
			pool_leave(pl);
		pthread_mutex_unlock(&pl->mu);
		if (!w)
			return NULL;
		int rc = part_init(w, pl->p, pl->ctx);
		if (!rc)
			rc = read_part(pl, w);
		pthread_mutex_lock(&pl->mu);
		if (rc && !w->rc)
			w->rc = rc;
		pl->failed |= w->rc != 0;
		pthread_mutex_unlock(&pl->mu);
	}
}

/* Chunks per job: a thread that is done takes half of what another has
 * not reached, down to one chunk; a chunk is not smaller than an eighth
 * of the size that is split at all. */
#define CHUNKS_PER_JOB 16

int sf_read_parallel(struct sf_profile *p, const struct sf_format *fmt,
		     struct sf_input *in, struct sf_ctx *ctx)
{
	const char *e = getenv("SF_SPLIT_MIN");
	uint64_t size, min = SF_SPLIT_MIN;
	uint64_t cut[SF_MAX_JOBS * CHUNKS_PER_JOB + 1];
	unsigned char head[2];
	unsigned jobs = sf_jobs(ctx);
	struct pool pl = { .fmt = fmt, .whole = in, .p = p, .ctx = ctx,
			   .cut = cut };
	pthread_t th[SF_MAX_JOBS];
	bool started[SF_MAX_JOBS] = { false };
	int rc = 0;

	if (e && *e) {
		char *end;
		unsigned long long v = strtoull(e, &end, 10);
		if (!*end)
			min = v;
	}
	if (!fmt->split || jobs < 2 || !sf_input_file_size(in, &size) ||
	    size < min)
		return 1;
	/* UTF-16 text: its lines are not byte lines */
	long got = sf_input_pread(in, ctx, head, 2, 0);
	if (got < 0)
		return (int)got;
	if (got == 2 && (head[0] == 0xff || head[0] == 0xfe))
		return 1;
	size_t nc = (size_t)jobs * CHUNKS_PER_JOB;
	if (min / 8 && size / (min / 8) < nc)
		nc = size / (min / 8) > jobs ? (size_t)(size / (min / 8)) : jobs;
	nc = cut_parts(fmt, in, ctx, size, nc, cut);
	if (!nc)
		return ctx->err.code;
	if (nc < 2)
		return 1;
	if (!(pl.w = sf_calloc(nc, sizeof(*pl.w))))
		return sf_error(ctx, SF_ENOMEM, NULL, 0, "out of memory");
	if (jobs > nc)
		jobs = (unsigned)nc;
	/* one run of chunks per job, as equal as the chunks make them */
	for (unsigned t = 0; t < jobs; t++) {
		struct part *w = &pl.w[pl.np++];
		w->first = nc * t / jobs;
		w->next = w->first + 1;
		w->end = nc * (t + 1) / jobs;
	}
	e = getenv("SF_SPLIT_STEAL");
	pl.steal_test = e && *e && strcmp(e, "0");
	pl.busy = jobs;
	pthread_mutex_init(&pl.mu, NULL);
	pthread_cond_init(&pl.idle_cv, NULL);
	for (unsigned t = 1; t < jobs; t++) {
		started[t] = !sf_thread_start(&th[t], pool_thread, &pl);
		if (!started[t]) {
			pthread_mutex_lock(&pl.mu);
			pool_leave(&pl);
			pthread_mutex_unlock(&pl.mu);
		}
	}
	pool_thread(&pl);    /* this thread reads too */
	for (unsigned t = 1; t < jobs; t++)
		if (started[t])
			pthread_join(th[t], NULL);
	pthread_cond_destroy(&pl.idle_cv);
	pthread_mutex_destroy(&pl.mu);
	/* the parts in input order (a part taken from another comes after
	 * it in the file, before it in no other part's) */
	for (size_t k = 1; k < pl.np; k++)
		for (size_t j = k; j && pl.w[j - 1].first > pl.w[j].first;
		     j--) {
			struct part t = pl.w[j];
			pl.w[j] = pl.w[j - 1];
			pl.w[j - 1] = t;
		}
	double total, t;
	bool ok = sf_profile_sums_exact(p, &total);
	for (size_t k = 0; k < pl.np && ok; k++) {
		struct part *w = &pl.w[k];
		ok = !w->rc && !w->ctx.nwarnings &&
		     w->end == (k + 1 < pl.np ? pl.w[k + 1].first : nc) &&
		     sf_profile_sums_exact(w->p, &t);
		total += t;
		for (size_t j = 0; j < k && ok; j++)
			ok = !props_differ(pl.w[j].p, w->p) &&
			     !types_differ(pl.w[j].p, w->p);
	}
	if (!ok || total > 0x1p53) {
		/* the whole input as one stream, untouched so far: it
		 * makes the error or warning, with the reader's state at
		 * that point and the absolute line */
		rc = 1;
		goto out;
	}
	/* the parts merged into p are only read: their stack indexes go
	 * before p grows */
	for (size_t k = 1; k < pl.np; k++)
		sf_profile_trim(pl.w[k].p);
	/* the first part becomes p when p is still empty: one copy of it
	 * less in memory while the others merge */
	rc = sf_profile_merge_into_empty(p, pl.w[0].p, ctx);
	if (rc != 1)
		pl.w[0].p = NULL;
	for (size_t k = 0; k < pl.np && rc >= 0; k++) {
		if (pl.w[k].p)
			rc = sf_profile_merge(p, pl.w[k].p, ctx);
		part_free(&pl.w[k]);
	}
out:
	for (size_t k = 0; k < pl.np; k++)
		part_free(&pl.w[k]);
	free(pl.w);
	return rc;
}
