/* parallel.c - reading one large text input on several threads (the
 * contract is in format.h, sf_read_parallel). */
#include "format.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* One part of the input and what reading it gave. */
struct part {
	const struct sf_format *fmt;
	struct sf_input *whole;
	uint64_t offset, size;
	struct sf_profile *p;
	struct sf_ctx ctx;
	uint64_t lines;        /* lines the part held (read to its end) */
	int rc;
	bool started;          /* on its own thread */
	pthread_t thread;
};

static int read_part(struct part *w, struct sf_profile *p,
		     struct sf_ctx *ctx, uint64_t lineno)
{
	struct sf_input *in;
	int rc = sf_input_range(&in, ctx, w->whole, w->offset, w->size);

	if (rc)
		return rc;
	sf_input_set_lineno(in, lineno);
	rc = w->fmt->read(p, in, ctx);
	w->lines = sf_input_lineno(in) - lineno;
	sf_input_close(in);
	return rc;
}

static void *part_thread(void *arg)
{
	struct part *w = arg;

	w->rc = read_part(w, w->p, &w->ctx, 0);
	return NULL;
}

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

int sf_read_parallel(struct sf_profile *p, const struct sf_format *fmt,
		     struct sf_input *in, struct sf_ctx *ctx)
{
	const char *e = getenv("SF_SPLIT_MIN");
	uint64_t size, cut[SF_MAX_JOBS + 1], min = SF_SPLIT_MIN;
	unsigned char head[2];
	unsigned jobs = sf_jobs(ctx);
	struct part *w;
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
	size_t np = cut_parts(fmt, in, ctx, size, jobs, cut);
	if (!np)
		return ctx->err.code;
	if (np < 2)
		return 1;
	if (!(w = sf_calloc(np, sizeof(*w))))
		return sf_error(ctx, SF_ENOMEM, NULL, 0, "out of memory");
	for (size_t k = 0; k < np; k++) {
		w[k].fmt = fmt;
		w[k].whole = in;
		w[k].offset = cut[k];
		w[k].size = cut[k + 1] - cut[k];
	}
	for (size_t k = 0; k < np; k++) {
		if ((w[k].rc = part_init(&w[k], p, ctx)))
			continue;
		w[k].started = k && !sf_thread_start(&w[k].thread,
						     part_thread, &w[k]);
	}
	if (!w[0].rc)   /* part 0 on this thread */
		part_thread(&w[0]);
	for (size_t k = 1; k < np; k++) {
		if (w[k].started)
			pthread_join(w[k].thread, NULL);
		else if (!w[k].rc)   /* no thread: read it here */
			part_thread(&w[k]);
	}
	double total, t;
	bool ok = sf_profile_sums_exact(p, &total);
	for (size_t k = 0; k < np && ok; k++) {
		ok = !w[k].rc && !w[k].ctx.nwarnings &&
		     sf_profile_sums_exact(w[k].p, &t);
		total += t;
		for (size_t j = 0; j < k && ok; j++)
			ok = !props_differ(w[j].p, w[k].p) &&
			     !types_differ(w[j].p, w[k].p);
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
	for (size_t k = 1; k < np; k++)
		sf_profile_trim(w[k].p);
	/* the first part becomes p when p is still empty: one copy of it
	 * less in memory while the others merge */
	rc = sf_profile_merge_into_empty(p, w[0].p, ctx);
	if (rc != 1)
		w[0].p = NULL;
	for (size_t k = 0; k < np && rc >= 0; k++) {
		if (w[k].p)
			rc = sf_profile_merge(p, w[k].p, ctx);
		part_free(&w[k]);
	}
out:
	for (size_t k = 0; k < np; k++)
		part_free(&w[k]);
	free(w);
	return rc;
}
