/*
 * fmt_lines.c - sample lines: one sample per line,
 *
 *     THREAD <TAB> WEIGHT <TAB> root;...;leaf
 *
 * in the order the samples were taken.  THREAD is `TID`, `TID:NAME`,
 * `:NAME` (a name without an id), or empty (no thread); on input a field
 * that is not all digits and has no "DIGITS:" prefix is also read as a
 * bare name.  WEIGHT is the sample's weight in the profile's default
 * sample type (fractional allowed).  An empty third field, or none
 * (`TID<TAB>WEIGHT`, which Racket's analyzer accepts), is an empty
 * stack.  Frame names are written as in collapsed stacks (';' -> ':',
 * TAB, CR and LF -> space).
 *
 * Speed: a line whose (thread field, stack text) was seen before costs
 * one hash of the stack text and one memcmp in the record cache, which
 * gives the thread, the stack and the sample it folded into last time (a
 * hint for sf_profile_add_sample_hint, so aggregated loading skips the
 * fold-table probe).  Thread fields go through a small table of the
 * fields seen.  No allocation per line.
 */
#include "counts.h"
#include "text.h"

#include <stdlib.h>
#include <string.h>

/* Bytes of stack text the caches keep at most; beyond, stacks not seen
 * before are parsed every time (memory stays bounded). */
#ifndef LINES_CACHE_MAX
#define LINES_CACHE_MAX ((size_t)256 << 20)
#endif
/* Distinct thread fields remembered, and their longest length. */
#define LINES_THREADS 64
#define LINES_THREAD_LEN 48

struct lines_cache {
	/* unique stack texts, back to back in `text` */
	char *text;
	size_t text_len, text_cap;
	struct stack_text {
		size_t off;
		uint32_t len;
		sf_stack_id stack;
	} *st;
	size_t nst, cap_st;
	struct sf_idx st_idx;         /* stack text -> st */
	/* records: (thread, stack text) -> its stack and fold hint; the
	 * text's place is copied in, so a hit reads one record */
	struct rec {
		size_t off;
		uint32_t len;
		sf_thread_idx thread;
		sf_stack_id stack;
		uint32_t hint;
	} *rec;
	size_t nrec, cap_rec;
	struct sf_idx rec_idx;
	/* thread fields seen (a linear scan: threads are few) */
	struct thread_field {
		char text[LINES_THREAD_LEN];
		uint32_t len;
		sf_thread_idx thread;
	} th[LINES_THREADS];
	size_t nth, last_th;
	/* the last field that is not in the table (the table is full, or
	 * the field too long) */
	char *prev;
	size_t prevlen, prevcap;
	sf_thread_idx prevthread;
	bool have_prev;
};

struct text_key {
	const char *s;
	size_t len;
	sf_thread_idx thread;
};

static bool st_eq(const void *c, uint32_t id, const void *k)
{
	const struct lines_cache *lc = c;
	const struct text_key *key = k;
	const struct stack_text *e = &lc->st[id];

	/* an empty stack may come before any text (lc->text NULL) */
	return e->len == key->len &&
	       (!key->len || !memcmp(lc->text + e->off, key->s, key->len));
}

static bool rec_eq(const void *c, uint32_t id, const void *k)
{
	const struct lines_cache *lc = c;
	const struct text_key *key = k;
	const struct rec *r = &lc->rec[id];

	return r->thread == key->thread && r->len == key->len &&
	       (!key->len || !memcmp(lc->text + r->off, key->s, key->len));
}

static void lines_cache_free(struct lines_cache *lc)
{
	free(lc->prev);
	free(lc->text);
	free(lc->st);
	free(lc->rec);
	sf_idx_free(&lc->st_idx);
	sf_idx_free(&lc->rec_idx);
}

static uint64_t rec_hash(uint64_t h, sf_thread_idx t)
{
	h ^= ((uint64_t)t + 1) * 0x9e3779b97f4a7c15ull;
	h ^= h >> 29;
	return h ? h : 1;
}

static int lines_probe(const unsigned char *d, size_t n)
{
	size_t i = 0, lines = 0, full = 0;

	if (n >= 3 && d[0] == 0xef && d[1] == 0xbb && d[2] == 0xbf)
		i = 3;
	while (i < n && lines < 20) {
		const unsigned char *lf = memchr(d + i, '\n', n - i);
		size_t e = lf ? (size_t)(lf - d) : n;
		if (!lf && lines)
			break;
		const unsigned char *t1 = memchr(d + i, '\t', e - i);
		if (!t1)
			return 0;
		const unsigned char *t2 = memchr(t1 + 1, '\t', (size_t)(d + e - t1 - 1));
		/* no stack field: an empty stack (but a file of only such
		 * lines is any two-column table; it needs --from lines) */
		if (!t2)
			t2 = d + e;
		else
			full++;
		if (t2 == t1 + 1)
			return 0;
		for (const unsigned char *q = t1 + 1; q < t2; q++)
			if (!((*q >= '0' && *q <= '9') || *q == '.' ||
			      *q == 'e' || *q == 'E' || *q == '+' || *q == '-'))
				return 0;
		lines++;
		i = e + 1;
	}
	return full ? 40 : 0;
}

static int parse_thread(struct sf_profile *p, struct sf_ctx *ctx,
			const char *f, size_t n, sf_thread_idx *out)
{
	size_t i = 0;
	int64_t tid = SF_NO_ID;
	char namebuf[4096];
	const char *name = NULL;

	if (!n) {
		*out = SF_NO_THREAD;
		return 0;
	}
	while (i < n && f[i] >= '0' && f[i] <= '9')
		i++;
	if (i == n || (f[i] == ':')) {
		if (i && !sf_parse_i64(f, i, &tid))
			return sf_error(ctx, SF_EINPUT, NULL, 0,
					"thread id out of range");
		if (i < n) {
			f += i + 1;
			n -= i + 1;
			name = f;
		}
	} else {
		name = f;
	}
	if (name) {
		char *heap = NULL;
		if (n >= sizeof(namebuf)) {
			if (!(heap = sf_strndup(name, n)))
				return sf_error_nomem(ctx);
			name = heap;
		} else {
			memcpy(namebuf, name, n);
			namebuf[n] = 0;
			name = namebuf;
		}
		int rc = sf_profile_thread(p, ctx, SF_NO_ID, tid, name, out);
		free(heap);
		return rc;
	}
	return sf_profile_thread(p, ctx, SF_NO_ID, tid, NULL, out);
}

/* The thread of a thread field, through the table of fields seen. */
static int thread_of(struct lines_cache *lc, struct sf_profile *p,
		     struct sf_ctx *ctx, const char *f, size_t n,
		     sf_thread_idx *out)
{
	struct thread_field *e = &lc->th[lc->last_th];
	int rc;

	/* consecutive lines often share a thread */
	if (lc->nth && e->len == n && !memcmp(e->text, f, n)) {
		*out = e->thread;
		return 0;
	}
	for (size_t i = 0; i < lc->nth; i++) {
		e = &lc->th[i];
		if (e->len == n && !memcmp(e->text, f, n)) {
			lc->last_th = i;
			*out = e->thread;
			return 0;
		}
	}
	if (lc->have_prev && lc->prevlen == n && !memcmp(lc->prev, f, n)) {
		*out = lc->prevthread;
		return 0;
	}
	if ((rc = parse_thread(p, ctx, f, n, out)))
		return rc;
	if (lc->nth < LINES_THREADS && n <= LINES_THREAD_LEN) {
		e = &lc->th[lc->nth];
		memcpy(e->text, f, n);
		e->len = (uint32_t)n;
		e->thread = *out;
		lc->last_th = lc->nth++;
		return 0;
	}
	if (n + 1 > lc->prevcap) {
		char *np = realloc(lc->prev, n + 1);
		if (!np)
			return sf_error_nomem(ctx);
		lc->prev = np;
		lc->prevcap = n + 1;
	}
	memcpy(lc->prev, f, n);
	lc->prevlen = n;
	lc->prevthread = *out;
	lc->have_prev = true;
	return 0;
}

/* The stack and fold hint of (thread, stack text); *hint is NULL when the
 * record could not be cached. */
static int record(struct lines_cache *lc, struct sf_profile *p,
		  struct sf_ctx *ctx, sf_thread_idx thread, const char *s,
		  size_t len, uint64_t hs, sf_stack_id *stack, uint32_t **hint)
{
	struct text_key key = { s, len, thread };
	uint64_t hr = rec_hash(hs, thread);
	uint32_t id, sid;
	int rc;

	*hint = NULL;
	if (sf_idx_find(&lc->rec_idx, hr, rec_eq, lc, &key, &id)) {
		*stack = lc->rec[id].stack;
		*hint = &lc->rec[id].hint;
		return 0;
	}
	if (!sf_idx_find(&lc->st_idx, hs, st_eq, lc, &key, &sid)) {
		if ((rc = sf_stack_from_text(p, ctx, NULL, s, len, stack)))
			return rc;
		if (lc->text_len + len > LINES_CACHE_MAX || len > UINT32_MAX ||
		    lc->nst >= UINT32_MAX - 1)
			return 0;
		if (sf_grow(&lc->text, &lc->text_cap, lc->text_len + len, 1) ||
		    sf_grow(&lc->st, &lc->cap_st, lc->nst + 1,
			    sizeof(*lc->st)))
			return sf_error_nomem(ctx);
		sid = (uint32_t)lc->nst;
		lc->st[sid].off = lc->text_len;
		lc->st[sid].len = (uint32_t)len;
		lc->st[sid].stack = *stack;
		if (len)
			memcpy(lc->text + lc->text_len, s, len);
		lc->text_len += len;
		if (!sf_idx_insert(&lc->st_idx, hs, sid))
			return sf_error_nomem(ctx);
		lc->nst++;
	}
	*stack = lc->st[sid].stack;
	if (lc->nrec >= UINT32_MAX - 1)
		return 0;
	if (sf_grow(&lc->rec, &lc->cap_rec, lc->nrec + 1, sizeof(*lc->rec)))
		return sf_error_nomem(ctx);
	id = (uint32_t)lc->nrec;
	lc->rec[id].off = lc->st[sid].off;
	lc->rec[id].len = lc->st[sid].len;
	lc->rec[id].stack = *stack;
	lc->rec[id].thread = thread;
	lc->rec[id].hint = UINT32_MAX;
	if (!sf_idx_insert(&lc->rec_idx, hr, id))
		return sf_error_nomem(ctx);
	lc->nrec++;
	*hint = &lc->rec[id].hint;
	return 0;
}

/* The thread of a thread field if the table has it (no parsing). */
static bool thread_known(const struct lines_cache *lc, const char *f,
			 size_t n, sf_thread_idx *out)
{
	for (size_t i = 0; i < lc->nth; i++) {
		const struct thread_field *e = &lc->th[(lc->last_th + i) %
							lc->nth];
		if (e->len == n && !memcmp(e->text, f, n)) {
			*out = e->thread;
			return true;
		}
	}
	return false;
}

/*
 * Lines are read in batches of LINES_BATCH and copied out of the input
 * buffer.  The record-cache lookups are cache misses; so that they overlap
 * instead of following one another, the loop over a batch prefetches
 * ahead of the line it handles: the table slot of the line 8 further, the
 * record of the line 4 further (its slot came by now), the record's text
 * and its fold target 2 further.  Each line is then handled exactly as
 * without the batch (same order, same checks, same errors): prefetching
 * only moves memory into the cache.
 */
#define LINES_BATCH 64
/* A batch stops growing at this many bytes of text (long lines are
 * then held one or a few at a time, as the input buffer holds them). */
#define LINES_BATCH_BYTES ((size_t)1 << 20)
#define AHEAD_SLOT 8
#define AHEAD_REC 4
#define AHEAD_TEXT 2

struct batch_line {
	size_t off, len;   /* in the batch text */
	uint64_t lineno;
	uint64_t tag;      /* record-table tag, 0 if not computed */
	uint64_t hs;       /* with tag: hash of the stack text */
	size_t st;         /* with tag: where the stack text starts */
	uint32_t cand;     /* the record the slot names, or UINT32_MAX */
};

/* Tags of the batch's lines whose thread field is known. */
static void batch_tags(const struct lines_cache *lc, const char *text,
		       struct batch_line *b, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const char *line = text + b[i].off;
		size_t len = b[i].len;
		const char *t1 = memchr(line, '\t', len), *t2;
		sf_thread_idx th;
		b[i].cand = UINT32_MAX;
		b[i].tag = 0;
		if (!lc->rec_idx.cap || !t1 ||
		    !(t2 = memchr(t1 + 1, '\t', len - (size_t)(t1 + 1 - line))) ||
		    !thread_known(lc, line, (size_t)(t1 - line), &th))
			continue;
		b[i].hs = sf_hash(t2 + 1, len - (size_t)(t2 + 1 - line));
		b[i].st = b[i].off + (size_t)(t2 + 1 - line);
		b[i].tag = sf_idx_tag(rec_hash(b[i].hs, th));
	}
}

static void ahead_slot(const struct lines_cache *lc, const struct batch_line *x)
{
	if (x->tag && lc->rec_idx.cap)
		__builtin_prefetch(&lc->rec_idx.slots[x->tag &
						      (lc->rec_idx.cap - 1)]);
}

static void ahead_rec(const struct lines_cache *lc, struct batch_line *x)
{
	size_t mask = lc->rec_idx.cap - 1;

	if (!x->tag || !lc->rec_idx.cap)
		return;
	for (size_t j = x->tag & mask;; j = (j + 1) & mask) {
		uint64_t v = lc->rec_idx.slots[j];
		if (!v)
			return;
		if ((v >> 32) == x->tag) {
			x->cand = (uint32_t)v;
			__builtin_prefetch(&lc->rec[x->cand]);
			return;
		}
	}
}

static void ahead_text(const struct lines_cache *lc, const struct sf_profile *p,
		       const struct batch_line *x)
{
	if (x->cand >= lc->nrec)
		return;
	const struct rec *r = &lc->rec[x->cand];
	for (uint32_t k = 0; k < r->len; k += 64)
		__builtin_prefetch(lc->text + r->off + k);
	if (r->hint < p->d.nsamples) {
		__builtin_prefetch(&p->d.samples[r->hint]);
		__builtin_prefetch(&p->d.weights[(size_t)r->hint * p->d.ntypes]);
		if (p->d.counts)
			__builtin_prefetch(&p->d.counts[r->hint], 1);
	}
}

static int lines_read(struct sf_profile *p, struct sf_input *in,
		      struct sf_ctx *ctx)
{
	struct lines_cache *lc = calloc(1, sizeof(*lc));
	struct batch_line b[LINES_BATCH];
	char *text = NULL;
	size_t text_len = 0, text_cap = 0, nb = 0;
	char *line;
	size_t len;
	int rc = 0;
	uint32_t t;
	double w[64] = { 0 };
	bool first = true, eof = false;
	/* a read error after the batch's lines: they come first, as
	 * without the batch (one of them may fail before it) */
	int read_rc = 0;
	struct sf_error read_err;

	if (!lc)
		return sf_error_nomem(ctx);
	if ((rc = sf_profile_default_type(p, ctx, &t)))
		goto done;
	if (p->d.ntypes > 64) {
		rc = sf_error(ctx, SF_EINPUT, sf_input_name(in), 0,
			      "cannot merge sample lines into a profile "
			      "with more than 64 sample types");
		goto done;
	}
	while (!eof) {
		/* fill a batch */
		nb = 0;
		text_len = 0;
		while (nb < LINES_BATCH && text_len < LINES_BATCH_BYTES) {
			if ((rc = sf_input_line(in, ctx, &line, &len)) <= 0) {
				eof = true;
				break;
			}
			if (text_len + len + 1 > text_cap) {
				size_t ncap = text_cap ? text_cap * 2 : 65536;
				while (ncap < text_len + len + 1)
					ncap *= 2;
				char *nt = realloc(text, ncap);
				if (!nt) {
					rc = sf_error_nomem(ctx);
					goto done;
				}
				text = nt;
				text_cap = ncap;
			}
			memcpy(text + text_len, line, len);
			text[text_len + len] = 0;
			b[nb].off = text_len;
			b[nb].len = len;
			b[nb].lineno = sf_input_lineno(in);
			nb++;
			text_len += len + 1;
		}
		if (rc < 0) {
			read_rc = rc;
			read_err = ctx->err;
			memset(&ctx->err, 0, sizeof(ctx->err));
		}
		batch_tags(lc, text, b, nb);
		for (size_t i = 0; i < nb && i < AHEAD_SLOT; i++)
			ahead_slot(lc, &b[i]);
		for (size_t i = 0; i < nb && i < AHEAD_REC; i++)
			ahead_rec(lc, &b[i]);
		for (size_t i = 0; i < nb && i < AHEAD_TEXT; i++)
			ahead_text(lc, p, &b[i]);
		for (size_t i = 0; i < nb; i++) {
			uint64_t lineno = b[i].lineno;
			if (i + AHEAD_SLOT < nb)
				ahead_slot(lc, &b[i + AHEAD_SLOT]);
			if (i + AHEAD_REC < nb)
				ahead_rec(lc, &b[i + AHEAD_REC]);
			if (i + AHEAD_TEXT < nb)
				ahead_text(lc, p, &b[i + AHEAD_TEXT]);
			line = text + b[i].off;
			len = b[i].len;
			if (sf_interrupted(ctx)) {
				rc = sf_error(ctx, SF_EINTR, NULL, 0,
					      "interrupted");
				goto done;
			}
			if ((rc = sf_text_line_check(ctx, sf_input_name(in),
						      lineno, &first, &line,
						      &len)))
				goto done;
			if (!len)
				continue;
			char *t1 = memchr(line, '\t', len);
			char *t2 = t1 ? memchr(t1 + 1, '\t',
					       len - (size_t)(t1 + 1 - line)) :
					NULL;
			if (!t1) {
				rc = sf_error(ctx, SF_EINPUT, sf_input_name(in),
					      lineno, "expected THREAD<TAB>"
					      "WEIGHT<TAB>STACK");
				goto done;
			}
			/* THREAD<TAB>WEIGHT with no stack field: an empty
			 * stack, as Racket's analyzer reads it */
			if (!t2)
				t2 = line + len;
			if (!sf_parse_weight(t1 + 1, (size_t)(t2 - t1 - 1),
					     &w[t])) {
				rc = sf_error(ctx, SF_EINPUT, sf_input_name(in),
					      lineno, "expected a non-negative "
					      "number as WEIGHT, found '%.*s'",
					      (int)(t2 - t1 - 1 > 40 ? 40 :
						    t2 - t1 - 1), t1 + 1);
				goto done;
			}
			sf_thread_idx th;
			sf_stack_id stack;
			uint32_t *hint, nohint = UINT32_MAX;
			char *st = t2 < line + len ? t2 + 1 : t2;
			size_t sl = len - (size_t)(st - line);
			/* the hash from batch_tags, unless the BOM moved it */
			uint64_t hs = b[i].tag && text + b[i].st == st ?
					      b[i].hs : sf_hash(st, sl);
			if ((rc = thread_of(lc, p, ctx, line,
					    (size_t)(t1 - line), &th)) ||
			    (rc = record(lc, p, ctx, th, st, sl, hs, &stack,
					 &hint)) ||
			    (rc = sf_profile_add_sample_hint(
				     p, ctx, stack, th, 0, SF_NO_TIME, w,
				     hint ? hint : &nohint))) {
				sf_error_place(ctx, sf_input_name(in), lineno);
				goto done;
			}
		}
	}
	if (read_rc) {
		ctx->err = read_err;
		rc = read_rc;
	}
done:
	free(text);
	lines_cache_free(lc);
	free(lc);
	return rc < 0 ? rc : 0;
}

static void write_thread(struct sf_output *o, const struct sf_thread *th)
{
	if (th->tid != SF_NO_ID)
		sf_output_i64(o, th->tid);
	if (th->name) {
		sf_output_putc(o, ':');
		for (const char *s = th->name; *s; s++)
			sf_output_putc(o, *s == '\t' || *s == '\n' ||
					  *s == '\r' ? ' ' : *s);
	}
}

static int lines_write(const struct sf_profile *p, struct sf_output *out,
		       struct sf_ctx *ctx)
{
	uint32_t t = sf_records_default_type(p);
	int rc = sf_weights_nonneg(p, ctx, t, "a sample line's WEIGHT");

	if (rc)
		return rc;
	for (size_t i = 0; i < p->d.nsamples; i++) {
		const struct sf_sample *s = &p->d.samples[i];
		if ((i & 0xffff) == 0 && sf_interrupted(ctx))
			return sf_error(ctx, SF_EINTR, NULL, 0, "interrupted");
		if (s->thread != SF_NO_THREAD)
			write_thread(out, &p->d.threads[s->thread]);
		sf_output_putc(out, '\t');
		sf_output_num(out, p->d.ntypes ? sf_weight(p, i, t) : 1);
		sf_output_putc(out, '\t');
		sf_write_stack_text(out, p, s->stack, NULL);
		sf_output_putc(out, '\n');
	}
	return 0;
}

static const char *const lines_ext[] = { ".samples.tsv", ".lines", NULL };

const struct sf_format sf_format_lines = {
	.name = "lines",
	.description = "sample lines: THREAD<TAB>WEIGHT<TAB>root;...;leaf",
	.extensions = lines_ext,
	.probe = lines_probe,
	.read = lines_read,
	.write = lines_write,
	.caps = SF_CAP_THREADS | SF_CAP_WEIGHTS | SF_CAP_ORDER,
	.needs_order = true,
	.priority = 2,
	.split = sf_text_split_lines,
};
