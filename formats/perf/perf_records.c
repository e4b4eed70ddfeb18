/*
 * perf_records.c - the record cache of the `perf script` reader: the
 * stack lines of an event are kept and looked up as one text at its end,
 * so a stack seen before is one hash however deep it is; right after an
 * event line its stack may even be skipped unread (perf_script.h).
 */
#include "perf_script.h"

#include <stdlib.h>
#include <string.h>

/* Drop the stack lines kept for the current event. */
void sf_perf__rec_clear(struct perf_state *st)
{
	st->rec_len = 0;
	st->npend = 0;
	st->rec_direct = false;
}

/* Replay the kept stack lines one by one (errors carry their line). */
static int rec_replay(struct perf_state *st)
{
	int rc = 0;

	for (size_t i = 0; i < st->npend && !rc; i++) {
		st->cur_line = st->pend[i].lineno;
		rc = sf_perf__on_stack_line(st, st->rec + st->pend[i].off,
					    st->pend[i].len);
		if (rc)
			sf_error_place(st->ctx, NULL, st->pend[i].lineno);
	}
	return rc;
}

/* A stack line of the current event (perl mode): keep it for the end. */
int sf_perf__defer_stack_line(struct perf_state *st, const char *l, size_t n,
			      uint64_t lineno)
{
	int rc;

	if (st->rec_direct) {
		st->cur_line = lineno;
		return sf_perf__on_stack_line(st, l, n);
	}
	if (st->rec_len + n + 1 > PERF_REC_MAX) {
		/* too long to cache: parse what is kept, then go direct */
		if ((rc = rec_replay(st)))
			return rc;
		sf_perf__rec_clear(st);
		st->rec_direct = true;
		st->cur_line = lineno;
		return sf_perf__on_stack_line(st, l, n);
	}
	if (st->rec_len + n + 1 > st->rec_cap) {
		size_t ncap = st->rec_cap ? st->rec_cap * 2 : 4096;
		while (ncap < st->rec_len + n + 1)
			ncap *= 2;
		char *nr = realloc(st->rec, ncap);
		if (!nr)
			return sf_error_nomem(st->ctx);
		st->rec = nr;
		st->rec_cap = ncap;
	}
	if (st->npend == st->cap_pend) {
		size_t ncap = st->cap_pend ? st->cap_pend * 2 : 64;
		struct pend_line *np = sf_reallocarray(st->pend, ncap,
						       sizeof(*np));
		if (!np)
			return sf_error_nomem(st->ctx);
		st->pend = np;
		st->cap_pend = ncap;
	}
	st->pend[st->npend++] = (struct pend_line){ st->rec_len, n, lineno };
	memcpy(st->rec + st->rec_len, l, n);
	st->rec_len += n;
	st->rec[st->rec_len++] = '\n';
	return 0;
}

/* The slot in rec_cache.lead of a text starting at `s` (REC_LEAD_LEN
 * bytes readable): three words multiplied in, the top bits kept. */
static inline uint32_t rec_lead_slot(const char *s)
{
	uint64_t a, b, c;

	memcpy(&a, s, 8);
	memcpy(&b, s + 8, 8);
	memcpy(&c, s + 16, 8);
	uint64_t h = ((a * 0x9e3779b97f4a7c15ull ^ b) * 0xc2b2ae3d27d4eb4full ^
		      c) * 0x165667b19e3779f9ull;
	return (uint32_t)(h >> (64 - REC_LEAD_BITS));
}

/* Record `id` is the current event's: remember it as what followed the
 * previous event's record, the guess sf_perf__rec_skip_seen tries first,
 * and as the last record of its first bytes, the one it tries next. */
static inline void rec_follows(struct perf_state *st, uint32_t id)
{
	struct rec_cache *c = &st->recc;
	const struct rec_ent *e = rec_at(c, id);

	if (st->rec_prev != REC_NONE)
		rec_at(c, st->rec_prev)->next = id;
	st->rec_prev = id;
	if (c->lead && e->len >= REC_LEAD_LEN)
		c->lead[rec_lead_slot(rec_text(e))] = id;
}

static bool rec_eq(const void *cache, uint32_t id, const void *k)
{
	const struct rec_ent *e = rec_at(cache, id);
	const struct line_key *key = k;

	return e->len == key->n && e->java == key->java &&
	       !memcmp(rec_text(e), key->s, key->n);
}

/* Append the frames of record `id` to the current event. */
int sf_perf__rec_frames(struct perf_state *st, uint32_t id)
{
	const struct rec_ent *e = rec_at(&st->recc, id);
	int rc;

	if ((rc = sf_perf__frames_room(st, e->n)))
		return rc;
	if (e->n)
		memcpy(st->frames + st->nframes, rec_fids(e),
		       e->n * sizeof(sf_frame_id));
	st->nframes += e->n;
	return 0;
}

/* Record `id` is the current event's stack (after any frames it has):
 * an event with no other frame only names it, and end_event takes its
 * frames from the record if it needs them. */
static inline int rec_take(struct perf_state *st, uint32_t id)
{
	int rc;

	if (!st->nframes)
		st->ev_rec = id;
	else if ((rc = sf_perf__rec_frames(st, id)))
		return rc;
	rec_follows(st, id);
	return 0;
}

/* Bytes a record of `len` bytes of text and `n` frames takes in `mem`
 * (struct rec_cache says how it is laid out). */
static size_t rec_size(size_t len, size_t n)
{
	size_t fo = (sizeof(struct rec_ent) + len + 3) & ~(size_t)3;

	return (fo + n * sizeof(sf_frame_id) + REC_ALIGN - 1) &
	       ~(size_t)(REC_ALIGN - 1);
}

/* The event's stack lines are complete: one lookup for all of them. */
int sf_perf__rec_flush(struct perf_state *st)
{
	struct rec_cache *c = &st->recc;
	struct line_key key = { st->rec, st->rec_len, st->java };
	uint32_t id;
	int rc;

	if (!st->npend)
		return 0;
	uint64_t h = sf_perf__key_hash(&key);
	if (sf_idx_find(&c->idx, h, rec_eq, c, &key, &id)) {
		if ((rc = rec_take(st, id)))
			return rc;
		sf_perf__rec_clear(st);
		return 0;
	}
	size_t start = st->nframes;
	st->warned = false;
	if ((rc = rec_replay(st)))
		return rc;
	size_t n = st->nframes - start;
	size_t need = rec_size(key.n, n);
	/* a record that warned is parsed again next time, so the warning
	 * count stays that of the lines */
	if (st->warned || need > PERF_REC_CACHE_MAX ||
	    c->len > PERF_REC_CACHE_MAX - need) {
		st->rec_prev = REC_NONE;
		sf_perf__rec_clear(st);
		return 0;
	}
	if (sf_big_grow(&c->mem, &c->cap, c->len + need))
		return sf_error_nomem(st->ctx);
	if (!c->lead) {
		c->lead = sf_reallocarray(NULL, (size_t)1 << REC_LEAD_BITS,
					  sizeof(*c->lead));
		if (!c->lead)
			return sf_error_nomem(st->ctx);
		memset(c->lead, 0xff, sizeof(*c->lead) << REC_LEAD_BITS);
	}
	id = (uint32_t)(c->len / REC_ALIGN);
	struct rec_ent *e = rec_at(c, id);
	e->len = (uint32_t)key.n;
	e->n = (uint32_t)n;
	e->lines = (uint32_t)st->npend;
	e->next = REC_NONE;
	e->stack = 0;
	e->stack_root = STACK_UNSET;
	e->hint = UINT32_MAX;
	e->hint_thread = UINT32_MAX;
	e->java = st->java;
	memcpy((char *)rec_text(e), key.s, key.n);
	if (n)
		memcpy((sf_frame_id *)rec_fids(e), st->frames + start,
		       n * sizeof(sf_frame_id));
	c->len += need;
	if (!sf_idx_insert(&c->idx, h, id))
		return sf_error_nomem(st->ctx);
	/* the frames just parsed are the record's: named by it alone when
	 * they are all of the event's */
	if (!start) {
		st->nframes = 0;
		st->ev_rec = id;
	}
	rec_follows(st, id);
	sf_perf__rec_clear(st);
	return 0;
}

/* Record `id`'s text, then a blank line, starts the buffered input `b`
 * (a cached record has no empty line, no comment, no line ending in CR,
 * so these are the bytes the scan of sf_perf__rec_skip_seen would find
 * and look up). */
static bool rec_here(const struct rec_cache *c, uint32_t id, bool java,
		     const char *b, size_t avail)
{
	const struct rec_ent *e = rec_at(c, id);

	return e->java == java && avail > e->len && b[e->len] == '\n' &&
	       !memcmp(b, rec_text(e), e->len);
}

/* Record `id` is at the input (rec_here): take it, skip its lines and
 * the blank line. */
static inline int rec_skip(struct perf_state *st, uint32_t id)
{
	const struct rec_ent *e;
	int rc;

	if ((rc = rec_take(st, id)))
		return rc;
	e = rec_at(&st->recc, id);
	sf_input_skip(st->in, e->len + 1, e->lines + 1);
	return 1;
}

/* Right after an event line: if the buffered input holds the event's whole
 * stack (its lines up to the blank line that ends it) and that text is a
 * record seen before, take its frames from the record cache and skip the
 * lines unread.  Anything unusual (a CR, a comment, the end of the buffer
 * before the blank line) leaves them to the line-by-line path; a record
 * is only cached after that path read every line of it as a stack line,
 * so equal text here means equal frames.  The blank line is taken too
 * (returns 1: the caller ends the event), which saves reading it as a
 * line. */
int sf_perf__rec_skip_seen(struct perf_state *st)
{
	struct rec_cache *c = &st->recc;
	size_t avail;
	const char *b = sf_input_buffered(st->in, &avail);
	const char *p = b, *end = b + avail;
	uint64_t lines = 0;
	uint32_t id;
	int rc;

	if (!c->len || !st->in_event || st->skip || st->rec_direct ||
	    st->o.inferno || st->npend)
		return 0;
	/* Two guesses, each one comparison in place of the scan, the hash
	 * and the lookup.  First the last record that began with the same
	 * leaf line: right for 86-93 % of the events of the short, dwarf
	 * and 64-thread recordings.  Then, as input made of repeated runs
	 * (a loop profiled over and over) repeats its records in order, the
	 * record that followed the previous one last time (which alone
	 * is right for only one event in four where threads take turns). */
	uint32_t lead = REC_NONE;
	if (c->lead && avail > REC_LEAD_LEN) {
		lead = c->lead[rec_lead_slot(b)];
		if (lead != REC_NONE && rec_here(c, lead, st->java, b, avail))
			return rec_skip(st, lead);
	}
	uint32_t guess = st->rec_prev != REC_NONE ?
			 rec_at(c, st->rec_prev)->next : REC_NONE;
	if (guess != REC_NONE && guess != lead &&
	    rec_here(c, guess, st->java, b, avail))
		return rec_skip(st, guess);
	for (;;) {
		if (p == end || *p == '\r' || *p == '#')
			return 0;
		if (*p == '\n')
			break;
		const char *lf = memchr(p, '\n', (size_t)(end - p));
		if (!lf)
			return 0;
		p = lf + 1;
		lines++;
	}
	if (!lines)
		return 0;
	struct line_key key = { b, (size_t)(p - b), st->java };
	uint64_t h = sf_perf__key_hash(&key);
	if (!sf_idx_find(&c->idx, h, rec_eq, c, &key, &id))
		return 0;
	if ((rc = rec_take(st, id)))
		return rc;
	sf_input_skip(st->in, key.n + 1, lines + 1);
	return 1;
}
