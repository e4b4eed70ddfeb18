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

/* Record `id` is the current event's: remember it as what followed the
 * previous event's record, the guess sf_perf__rec_skip_seen tries first. */
static void rec_follows(struct perf_state *st, uint32_t id)
{
	if (st->rec_prev != REC_NONE)
		st->recc.ents[st->rec_prev].next = id;
	st->rec_prev = id;
}

/* The event's stack lines are complete: one lookup for all of them. */
int sf_perf__rec_flush(struct perf_state *st)
{
	struct line_cache *c = &st->recc;
	struct line_key key = { st->rec, st->rec_len, st->java };
	uint32_t id;
	int rc;

	if (!st->npend)
		return 0;
	uint64_t h = sf_perf__key_hash(&key);
	if (sf_idx_find(&c->idx, h, sf_perf__line_eq, c, &key, &id)) {
		if (!st->nframes)
			st->ev_rec = id;
		if ((rc = sf_perf__append_cached(st, c, &c->ents[id])))
			return rc;
		rec_follows(st, id);
		sf_perf__rec_clear(st);
		return 0;
	}
	size_t start = st->nframes;
	st->warned = false;
	if ((rc = rec_replay(st)))
		return rc;
	size_t n = st->nframes - start;
	/* a record that warned is parsed again next time, so the warning
	 * count stays that of the lines */
	if (st->warned || c->text_len + key.n > PERF_REC_CACHE_MAX ||
	    n > UINT32_MAX) {
		st->rec_prev = REC_NONE;
		sf_perf__rec_clear(st);
		return 0;
	}
	if (c->nents == c->cap_ents) {
		size_t ncap = c->cap_ents ? c->cap_ents * 2 : 1024;
		struct line_ent *ne = sf_reallocarray(c->ents, ncap,
						      sizeof(*ne));
		if (!ne)
			return sf_error_nomem(st->ctx);
		c->ents = ne;
		c->cap_ents = ncap;
	}
	if (sf_big_grow(&c->text, &c->text_cap, c->text_len + key.n))
		return sf_error_nomem(st->ctx);
	if (c->nfids + n > c->cap_fids) {
		size_t ncap = c->cap_fids ? c->cap_fids * 2 : 16384;
		while (ncap < c->nfids + n)
			ncap *= 2;
		sf_frame_id *nf = sf_reallocarray(c->fids, ncap, sizeof(*nf));
		if (!nf)
			return sf_error_nomem(st->ctx);
		c->fids = nf;
		c->cap_fids = ncap;
	}
	struct line_ent *e = &c->ents[c->nents];
	e->off = c->text_len;
	e->len = (uint32_t)key.n;
	e->first = (uint32_t)c->nfids;
	e->n = (uint32_t)n;
	e->java = st->java;
	e->lines = (uint32_t)st->npend;
	e->next = REC_NONE;
	e->stack_root = STACK_UNSET;
	memcpy(c->text + c->text_len, key.s, key.n);
	c->text_len += key.n;
	if (n)
		memcpy(c->fids + c->nfids, st->frames + start,
		       n * sizeof(sf_frame_id));
	c->nfids += n;
	if (!sf_idx_insert(&c->idx, h, (uint32_t)c->nents))
		return sf_error_nomem(st->ctx);
	rec_follows(st, (uint32_t)c->nents);
	if (!start)
		st->ev_rec = (uint32_t)c->nents;
	c->nents++;
	sf_perf__rec_clear(st);
	return 0;
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
	struct line_cache *c = &st->recc;
	size_t avail;
	const char *b = sf_input_buffered(st->in, &avail);
	const char *p = b, *end = b + avail;
	uint64_t lines = 0;
	uint32_t id;
	int rc;

	if (!c->nents || !st->in_event || st->skip || st->rec_direct ||
	    st->o.inferno || st->npend)
		return 0;
	/* Input made of repeated runs (a loop profiled over and over)
	 * repeats its records in order: try the record that followed the
	 * previous one last time.  Its text up to a blank line, byte for
	 * byte, is what the scan below would find and look up (a cached
	 * record has no empty line, no comment, no line ending in CR), so
	 * one comparison replaces the scan, the hash and the lookup. */
	uint32_t guess = st->rec_prev != REC_NONE ?
			 c->ents[st->rec_prev].next : REC_NONE;
	if (guess != REC_NONE) {
		const struct line_ent *g = &c->ents[guess];
		if (g->java == st->java && avail > g->len &&
		    b[g->len] == '\n' &&
		    !memcmp(b, c->text + g->off, g->len)) {
			if (!st->nframes)
				st->ev_rec = guess;
			if ((rc = sf_perf__append_cached(st, c, g)))
				return rc;
			rec_follows(st, guess);
			sf_input_skip(st->in, g->len + 1, g->lines + 1);
			return 1;
		}
	}
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
	if (!sf_idx_find(&c->idx, h, sf_perf__line_eq, c, &key, &id))
		return 0;
	const struct line_ent *e = &c->ents[id];
	if (!st->nframes)
		st->ev_rec = id;
	if ((rc = sf_perf__append_cached(st, c, e)))
		return rc;
	rec_follows(st, id);
	sf_input_skip(st->in, key.n + 1, lines + 1);
	return 1;
}

