/*
 * fmt_perf.c - `perf script` text: one event per block,
 *
 *     comm pid/tid [cpu] time: period event:
 *             ip symbol+off (dso)        <- leaf first
 *             ...
 *     <blank line>
 *
 * The frame names, the root frame and the weights follow FlameGraph's
 * stackcollapse-perf.pl, so `sfconv --from perf X` (collapsed output) equals
 * `stackcollapse-perf.pl X` with the same options (--pid, --tid, --kernel,
 * --jit, --all, --addrs, --event-filter).  With --inferno the rules of
 * inferno-collapse-perf are used where the two differ.  See
 * docs/formats.md, section "perf", for what is kept and lost.
 *
 * Speed: lines come from sf_input_line (memchr over a large buffer); a
 * frame line seen before is one hash and one memcmp in the line cache
 * (its frames are parsed once), and a whole stack seen before is one hash
 * of its frame ids in the stack cache.  No allocation per sample.
 */
#include "perf.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* Bytes of frame-line text the line cache keeps at most. */
#ifndef PERF_LINE_CACHE_MAX
#define PERF_LINE_CACHE_MAX ((size_t)256 << 20)
#endif

struct perf_opts {
	bool pid, tid, kernel, jit, addrs, inferno, no_comm;
	const char *event_filter;
};

/* Line cache: the text of a frame line (after its indentation) -> the
 * frames it makes (several with "a->b" inlining), leaf first. */
struct line_cache {
	struct sf_idx idx;
	char *text;              /* all keys, back to back */
	size_t text_len, text_cap;
	struct line_ent {
		size_t off;
		uint32_t len;
		uint32_t first;  /* index into fids */
		uint32_t n;
		bool java;
		/* record cache only: its lines, and the record that
		 * followed it last time (REC_NONE: none yet) */
		uint32_t lines, next;
		/* record cache only: the model stack of the last event
		 * made of this record alone, and that event's root (its
		 * process frame, ROOT_NONE without one); stack_root is
		 * STACK_UNSET until then */
		sf_stack_id stack;
		sf_frame_id stack_root;
	} *ents;
	size_t nents, cap_ents;
	sf_frame_id *fids;
	size_t nfids, cap_fids;
};

/* Bytes of stack text the record cache keeps at most, and the longest
 * record it caches. */
#ifndef PERF_REC_CACHE_MAX
#define PERF_REC_CACHE_MAX ((size_t)32 << 20)
#endif
#define PERF_REC_MAX ((size_t)1 << 20)
#define REC_NONE UINT32_MAX
#define HINT_BITS 14
#define STACK_UNSET UINT32_MAX
#define ROOT_NONE (UINT32_MAX - 1)

/* Stack cache: the frame ids of a sample (leaf first, root frame last)
 * -> stack id. */
struct stack_cache {
	struct sf_idx idx;
	sf_frame_id *ids;
	size_t nids, cap_ids;
	struct stack_ent {
		size_t off;
		uint32_t n;
		sf_stack_id stack;
	} *ents;
	size_t nents, cap_ents;
};

struct perf_state {
	struct sf_profile *p;
	struct sf_ctx *ctx;
	/* per (stack, thread), direct-mapped (HINT_BITS of a mix of the
	 * two): the sample the last event of that key folded into
	 * (sf_profile_add_sample_hint), so an aggregated read of events
	 * whose stack and thread repeat skips the model's hash probe; two
	 * keys sharing a slot only cost a probe, as the model checks the
	 * hint */
	uint32_t *hints;
	/* the tail of the last typed event line that
	 * sf_perf__parse_event_type read (from the ':' before the period
	 * on), and what it gave: a line ending in the same bytes after a
	 * ':' gives the same (event_type) */
	struct sf_sbuf type_tail;
	bool type_tail_ok;
	size_t type_ev_off, type_evn;
	double type_period;
	struct sf_input *in;
	struct perf_opts o;
	struct line_cache lc;
	struct stack_cache sc;
	struct sf_sbuf name, tmp, modbuf, pname, comm, ev_filter;
	/* Record cache (a line_cache whose keys are the whole text of an
	 * event's stack lines): the stack lines of the current event are
	 * kept in `rec` and looked up once at the end of the event; only a
	 * record not seen before is parsed line by line (`pend` holds each
	 * line's place and number for that). */
	struct line_cache recc;
	char *rec;
	size_t rec_len, rec_cap;
	struct pend_line {
		size_t off, len;
		uint64_t lineno;
	} *pend;
	size_t npend, cap_pend;
	bool rec_direct;         /* record too long: lines go straight in */
	uint32_t rec_prev;       /* the record of the last event, or
				  * REC_NONE when it was not cached */
	uint32_t ev_rec;         /* the record whose frames are all of the
				  * current event's, or REC_NONE: its
				  * stack is then the record's last one
				  * (no hashing of the frames) */
	bool warned;             /* a stack line was skipped with a warning */
	uint64_t cur_line;       /* line number of the stack line at hand */
	sf_frame_id *frames;     /* current event, leaf first */
	size_t nframes, cap_frames;
	/* current event */
	bool in_event, skip, java;
	int64_t pid, tid, time;
	double period;
	/* last root frame and thread, reused while they repeat */
	struct sf_sbuf last_pname;
	sf_frame_id pname_frame;
	bool have_pname_frame;
	struct sf_sbuf last_comm;
	int64_t last_pid, last_tid;
	sf_thread_idx last_thread;
	bool have_thread;
	uint32_t type;
	bool have_type;
	bool have_event_prop;    /* "perf.event" set (first kept typed event) */
	double *w;
	const char *k_kernel, *k_jit, *k_process;
};

/* Make the frames of one stack line into st->lc.fids (appended, leaf
 * first); returns 0 and the count. */
static int frames_of_line(struct perf_state *st, const struct stack_line *sl,
			  uint32_t *count)
{
	struct sf_ctx *ctx = st->ctx;
	struct line_cache *lc = &st->lc;
	const char *raw = sl->func;
	size_t rn = sl->func_len;
	const char *mod = sl->mod;
	size_t mn = sl->mod_len;
	int rc;

	/* strip "+0x<hex>" symbol offsets */
	for (size_t i = rn; i >= 3; i--) {
		if (raw[i - 3] != '+' || raw[i - 2] != '0' || raw[i - 1] != 'x')
			continue;
		size_t k = i;
		bool ok = k < rn;
		for (; k < rn; k++) {
			char c = raw[k];
			if (!(is_digit(c) || (c >= 'a' && c <= 'f') ||
			      (st->o.inferno && c >= 'A' && c <= 'F'))) {
				ok = false;
				break;
			}
		}
		if (ok)
			rn = i - 3;
		break;
	}
	*count = 0;
	if (rn && raw[0] == '(')
		return 0;   /* a process name in the stack: skipped */
	if (st->o.inferno) {
		st->tmp.len = 0;
		if (!sf_fix_rust_symbol(&st->tmp, raw, rn))
			return sf_error_nomem(ctx);
		raw = st->tmp.s ? st->tmp.s : "";
		rn = st->tmp.len;
	}
	/* split on "->": later parts are inlined into the earlier ones */
	size_t nparts = 0;
	const char *parts[64];
	size_t plen[64];
	const char *q = raw, *end = raw + rn;
	for (;;) {
		const char *a = q;
		while (a + 1 < end && !(a[0] == '-' && a[1] == '>'))
			a++;
		if (a + 1 >= end)
			a = end;
		if (nparts < 64) {
			parts[nparts] = q;
			plen[nparts] = (size_t)(a - q);
			nparts++;
		}
		if (a == end)
			break;
		q = a + 2;
	}
	/* perl's split drops trailing empty fields */
	if (!st->o.inferno)
		while (nparts > 1 && !plen[nparts - 1])
			nparts--;
	bool kernel = st->o.inferno ? sf_perf__inferno_is_kernel(mod, mn) :
				      sf_perf__perl_is_kernel(mod, mn);
	bool jit = st->o.inferno ? sf_perf__inferno_is_jit(mod, mn) :
				   sf_perf__is_perf_map(mod, mn);
	uint64_t addr = SF_NO_ADDR;
	if (sl->pc_len && sl->pc_len <= 16) {
		uint64_t v = 0;
		size_t k;
		for (k = 0; k < sl->pc_len; k++) {
			char c = sl->pc[k];
			int d = is_digit(c) ? c - '0' :
				(c >= 'a' && c <= 'f') ? c - 'a' + 10 :
				(c >= 'A' && c <= 'F') ? c - 'A' + 10 : -1;
			if (d < 0)
				break;
			v = v * 16 + (uint64_t)d;
		}
		if (k == sl->pc_len)
			addr = v;
	}
	struct sf_sbuf *b = &st->name;
	sf_frame_id ids[64];
	for (size_t i = 0; i < nparts; i++) {
		const char *f = parts[i];
		size_t fl = plen[i];
		b->len = 0;
		if (!sf_sbuf_reserve(b, fl + mn + sl->pc_len + 16))
			return sf_error_nomem(ctx);
		if (fl == 9 && !memcmp(f, "[unknown]", 9) &&
		    !(st->o.inferno && mn == 9 &&
		      !memcmp(mod, "[unknown]", 9) && !st->o.addrs)) {
			const char *base;
			size_t bl;
			if (mn == 9 && !memcmp(mod, "[unknown]", 9)) {
				base = "unknown";
				bl = 7;
			} else {
				const char *sl2 = mod + mn;
				while (sl2 > mod && sl2[-1] != '/')
					sl2--;
				base = sl2;
				bl = (size_t)(mod + mn - sl2);
			}
			sf_sbuf_add(b, "[", 1);
			sf_sbuf_add(b, base, bl);
			if (st->o.addrs) {
				sf_sbuf_add(b, " <", 2);
				sf_sbuf_add(b, sl->pc, sl->pc_len);
				sf_sbuf_add(b, ">", 1);
			}
			sf_sbuf_add(b, "]", 1);
		} else {
			sf_sbuf_add(b, f, fl);
		}
		if (st->o.inferno)
			sf_perf__tidy_inferno(b, 0);
		else
			sf_perf__tidy_perl(b, 0);
		if (st->java && memchr(b->s, '/', b->len) && b->len &&
		    b->s[0] == 'L') {
			memmove(b->s, b->s + 1, b->len - 1);
			b->len--;
			b->s[b->len] = 0;
		}
		if (i > 0) {
			if (st->o.inferno || !mem_has(b->s, b->len, "_[i]"))
				sf_sbuf_add(b, "_[i]", 4);
		} else if (st->o.kernel && kernel) {
			sf_sbuf_add(b, "_[k]", 4);
		} else if (st->o.jit && jit) {
			if (st->o.inferno || !mem_has(b->s, b->len, "_[j]"))
				sf_sbuf_add(b, "_[j]", 4);
		}
		struct sf_frame fr;
		sf_frame_init(&fr);
		fr.name = b->s;
		/* perf script --inline prints inlined callees as
		 * "ip name (inlined)" */
		bool inlined_dso = mn == 7 && !memcmp(mod, "inlined", 7);
		if (inlined_dso)
			fr.flags |= SF_FRAME_INLINE;
		if (!(mn == 9 && !memcmp(mod, "[unknown]", 9)) && mn &&
		    !inlined_dso) {
			/* not st->tmp: the parts may point into it */
			st->modbuf.len = 0;
			if (!sf_sbuf_add(&st->modbuf, mod, mn))
				return sf_error_nomem(ctx);
			fr.module = st->modbuf.s;
		}
		fr.address = addr;
		fr.kind = kernel ? st->k_kernel : jit ? st->k_jit : NULL;
		if (i > 0)
			fr.flags |= SF_FRAME_INLINE;
		if ((rc = sf_profile_frame(st->p, ctx, &fr, &ids[i])))
			return rc;
	}
	/* leaf first: the last inlined part is the innermost */
	if (lc->nfids + nparts > lc->cap_fids) {
		size_t ncap = lc->cap_fids ? lc->cap_fids * 2 : 1024;
		while (ncap < lc->nfids + nparts)
			ncap *= 2;
		sf_frame_id *nf = sf_reallocarray(lc->fids, ncap, sizeof(*nf));
		if (!nf)
			return sf_error_nomem(ctx);
		lc->fids = nf;
		lc->cap_fids = ncap;
	}
	for (size_t i = 0; i < nparts; i++)
		lc->fids[lc->nfids++] = ids[nparts - 1 - i];
	*count = (uint32_t)nparts;
	return 0;
}

struct line_key {
	const char *s;
	size_t n;
	bool java;
};

/* Room in st->frames for `more` frames and the root frame. */
static int frames_room(struct perf_state *st, size_t more)
{
	if (st->nframes + more + 1 <= st->cap_frames)
		return 0;
	size_t ncap = st->cap_frames ? st->cap_frames * 2 : 256;
	while (ncap < st->nframes + more + 1)
		ncap *= 2;
	sf_frame_id *nf = sf_reallocarray(st->frames, ncap, sizeof(*nf));
	if (!nf)
		return sf_error_nomem(st->ctx);
	st->frames = nf;
	st->cap_frames = ncap;
	return 0;
}

/* Once the line cache holds PERF_LINE_CACHE_MAX bytes of text, new lines
 * are parsed each time instead (memory stays bounded on inputs where
 * almost every line is new). */
static int uncached_line(struct perf_state *st, const struct stack_line *sl)
{
	struct line_cache *lc = &st->lc;
	size_t first = lc->nfids;
	uint32_t n;
	int rc;

	if ((rc = frames_of_line(st, sl, &n)) || (rc = frames_room(st, n)))
		return rc;
	if (n)
		memcpy(st->frames + st->nframes, lc->fids + first,
		       n * sizeof(sf_frame_id));
	st->nframes += n;
	lc->nfids = first;
	return 0;
}

/* The cache key's hash: the text's, told apart by the java flag. */
static uint64_t key_hash(const struct line_key *key)
{
	uint64_t h = sf_hash(key->s, key->n) ^
		     (key->java ? 0x9e3779b97f4a7c15ull : 0);
	return h ? h : 1;
}

/* Append the frames a cache entry stands for to the current event. */
static int append_cached(struct perf_state *st, const struct line_cache *c,
			 const struct line_ent *e)
{
	int rc;

	if ((rc = frames_room(st, e->n)))
		return rc;
	if (e->n)
		memcpy(st->frames + st->nframes, c->fids + e->first,
		       e->n * sizeof(sf_frame_id));
	st->nframes += e->n;
	return 0;
}

static bool line_eq(const void *c, uint32_t id, const void *k)
{
	const struct line_cache *lc = c;
	const struct line_key *key = k;
	const struct line_ent *e = &lc->ents[id];

	return e->len == key->n && e->java == key->java &&
	       !memcmp(lc->text + e->off, key->s, key->n);
}

/* Append the frames of a stack line to the current event. */
static int on_stack_line(struct perf_state *st, const char *l, size_t n)
{
	struct line_cache *lc = &st->lc;
	struct sf_ctx *ctx = st->ctx;
	size_t i = 0;
	uint32_t id;
	int rc;

	while (i < n && is_space(l[i]))
		i++;
	struct line_key key = { l + i, n - i, st->java };
	uint64_t h = key_hash(&key);
	if (!sf_idx_find(&lc->idx, h, line_eq, lc, &key, &id)) {
		struct stack_line sl;
		/* a line seen before was checked then */
		if (memchr(l, 0, n))
			return sf_error(ctx, SF_EINPUT, sf_input_name(st->in),
					st->cur_line,
					"NUL byte: not perf script text");
		bool ok = st->o.inferno ?
			  sf_perf__parse_stack_line_inferno(l, n, &sl) :
			  sf_perf__parse_stack_line(l, n, &sl);
		if (!ok) {
			st->warned = true;
			sf_warn(ctx, "perf.unrecognized-line",
				"%s:%llu: skipped a line that is not a frame "
				"('ip symbol (dso)')", sf_input_name(st->in),
				(unsigned long long)st->cur_line);
			return 0;
		}
		if (lc->text_len + key.n > PERF_LINE_CACHE_MAX)
			return uncached_line(st, &sl);
		if (lc->nents == lc->cap_ents) {
			size_t ncap = lc->cap_ents ? lc->cap_ents * 2 : 1024;
			struct line_ent *ne = sf_reallocarray(lc->ents, ncap,
							      sizeof(*ne));
			if (!ne)
				return sf_error_nomem(ctx);
			lc->ents = ne;
			lc->cap_ents = ncap;
		}
		if (sf_big_grow(&lc->text, &lc->text_cap,
				lc->text_len + key.n))
			return sf_error_nomem(ctx);
		struct line_ent *e = &lc->ents[lc->nents];
		e->first = (uint32_t)lc->nfids;
		if ((rc = frames_of_line(st, &sl, &e->n)))
			return rc;
		if (key.n)
			memcpy(lc->text + lc->text_len, key.s, key.n);
		e->off = lc->text_len;
		e->len = (uint32_t)key.n;
		e->java = st->java;
		e->stack_root = STACK_UNSET;
		lc->text_len += key.n;
		id = (uint32_t)lc->nents;
		if (!sf_idx_insert(&lc->idx, h, id))
			return sf_error_nomem(ctx);
		lc->nents++;
	}
	/* lines come leaf first; a line's own frames are stored leaf first */
	return append_cached(st, lc, &lc->ents[id]);
}

/* Drop the stack lines kept for the current event. */
static void rec_clear(struct perf_state *st)
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
		rc = on_stack_line(st, st->rec + st->pend[i].off,
				   st->pend[i].len);
		if (rc)
			sf_error_place(st->ctx, NULL, st->pend[i].lineno);
	}
	return rc;
}

/* A stack line of the current event (perl mode): keep it for the end. */
static int defer_stack_line(struct perf_state *st, const char *l, size_t n,
			    uint64_t lineno)
{
	int rc;

	if (st->rec_direct) {
		st->cur_line = lineno;
		return on_stack_line(st, l, n);
	}
	if (st->rec_len + n + 1 > PERF_REC_MAX) {
		/* too long to cache: parse what is kept, then go direct */
		if ((rc = rec_replay(st)))
			return rc;
		rec_clear(st);
		st->rec_direct = true;
		st->cur_line = lineno;
		return on_stack_line(st, l, n);
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
 * previous event's record, the guess rec_skip_seen tries first. */
static void rec_follows(struct perf_state *st, uint32_t id)
{
	if (st->rec_prev != REC_NONE)
		st->recc.ents[st->rec_prev].next = id;
	st->rec_prev = id;
}

/* The event's stack lines are complete: one lookup for all of them. */
static int rec_flush(struct perf_state *st)
{
	struct line_cache *c = &st->recc;
	struct line_key key = { st->rec, st->rec_len, st->java };
	uint32_t id;
	int rc;

	if (!st->npend)
		return 0;
	uint64_t h = key_hash(&key);
	if (sf_idx_find(&c->idx, h, line_eq, c, &key, &id)) {
		if (!st->nframes)
			st->ev_rec = id;
		if ((rc = append_cached(st, c, &c->ents[id])))
			return rc;
		rec_follows(st, id);
		rec_clear(st);
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
		rec_clear(st);
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
	rec_clear(st);
	return 0;
}

/* Right after an event line: if the buffered input holds the event's whole
 * stack (its lines up to the blank line that ends it) and that text is a
 * record seen before, take its frames from the record cache and skip the
 * lines unread.  Anything unusual (a CR, a comment, the end of the buffer
 * before the blank line) leaves them to the line-by-line path; a record
 * is only cached after that path read every line of it as a stack line,
 * so equal text here means equal frames. */
static int rec_skip_seen(struct perf_state *st)
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
			if ((rc = append_cached(st, c, g)))
				return rc;
			rec_follows(st, guess);
			sf_input_skip(st->in, g->len, g->lines);
			return 0;
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
	uint64_t h = key_hash(&key);
	if (!sf_idx_find(&c->idx, h, line_eq, c, &key, &id))
		return 0;
	const struct line_ent *e = &c->ents[id];
	if (!st->nframes)
		st->ev_rec = id;
	if ((rc = append_cached(st, c, e)))
		return rc;
	rec_follows(st, id);
	sf_input_skip(st->in, key.n, lines);
	return 0;
}

struct stack_key {
	const sf_frame_id *ids;
	size_t n;
};

static bool stack_eq(const void *c, uint32_t id, const void *k)
{
	const struct stack_cache *sc = c;
	const struct stack_key *key = k;
	const struct stack_ent *e = &sc->ents[id];

	return e->n == key->n &&
	       !memcmp(sc->ids + e->off, key->ids, key->n * sizeof(*key->ids));
}

static int stack_of(struct perf_state *st, const sf_frame_id *ids, size_t n,
		    sf_stack_id *out)
{
	struct stack_cache *sc = &st->sc;
	struct stack_key key = { ids, n };
	uint64_t h = sf_hash(ids, n * sizeof(*ids));
	uint32_t id;
	int rc;

	if (sf_idx_find(&sc->idx, h, stack_eq, sc, &key, &id)) {
		*out = sc->ents[id].stack;
		return 0;
	}
	if ((rc = sf_profile_stack(st->p, st->ctx, ids, n, true, out)))
		return rc;
	if (sc->nents == sc->cap_ents) {
		size_t ncap = sc->cap_ents ? sc->cap_ents * 2 : 1024;
		struct stack_ent *ne = sf_reallocarray(sc->ents, ncap,
						       sizeof(*ne));
		if (!ne)
			return sf_error_nomem(st->ctx);
		sc->ents = ne;
		sc->cap_ents = ncap;
	}
	if (sc->nids + n > sc->cap_ids) {
		size_t ncap = sc->cap_ids ? sc->cap_ids * 2 : 16384;
		while (ncap < sc->nids + n)
			ncap *= 2;
		sf_frame_id *ni = sf_reallocarray(sc->ids, ncap, sizeof(*ni));
		if (!ni)
			return sf_error_nomem(st->ctx);
		sc->ids = ni;
		sc->cap_ids = ncap;
	}
	if (n)
		memcpy(sc->ids + sc->nids, ids, n * sizeof(*ids));
	sc->ents[sc->nents] = (struct stack_ent){ sc->nids, (uint32_t)n,
						  *out };
	sc->nids += n;
	if (!sf_idx_insert(&sc->idx, h, (uint32_t)sc->nents))
		return sf_error_nomem(st->ctx);
	sc->nents++;
	return 0;
}

static bool sbuf_eq(const struct sf_sbuf *b, const char *s, size_t n)
{
	return b->len == n && (!n || !memcmp(b->s, s, n));
}

/* The event is complete: add its sample. */
static int end_event(struct perf_state *st)
{
	struct sf_ctx *ctx = st->ctx;
	int rc;

	if (!st->in_event || st->skip) {
		st->in_event = false;
		st->skip = false;
		st->nframes = 0;
		st->ev_rec = REC_NONE;
		rec_clear(st);
		return 0;
	}
	if ((rc = rec_flush(st)))
		return rc;
	st->in_event = false;
	if (st->o.inferno && !st->nframes)
		return 0;  /* inferno drops events without frames */
	size_t n = st->nframes;
	if (n + 1 > st->cap_frames) {
		size_t ncap = st->cap_frames ? st->cap_frames * 2 : 256;
		sf_frame_id *nf = sf_reallocarray(st->frames, ncap,
						  sizeof(*nf));
		if (!nf)
			return sf_error_nomem(ctx);
		st->frames = nf;
		st->cap_frames = ncap;
	}
	if (!st->o.no_comm) {
		if (!st->have_pname_frame ||
		    !sbuf_eq(&st->last_pname, st->pname.s, st->pname.len)) {
			struct sf_frame fr;
			sf_frame_init(&fr);
			fr.name = st->pname.s ? st->pname.s : "";
			fr.kind = st->k_process;
			if ((rc = sf_profile_frame(st->p, ctx, &fr,
						   &st->pname_frame)))
				return rc;
			st->last_pname.len = 0;
			if (!sf_sbuf_add(&st->last_pname, fr.name,
					 st->pname.len))
				return sf_error_nomem(ctx);
			st->have_pname_frame = true;
		}
		st->frames[n++] = st->pname_frame;
	}
	sf_stack_id stack;
	struct line_ent *re = st->ev_rec != REC_NONE ?
			      &st->recc.ents[st->ev_rec] : NULL;
	sf_frame_id root = st->o.no_comm ? ROOT_NONE : st->pname_frame;
	st->ev_rec = REC_NONE;
	if (re && re->n != st->nframes)
		re = NULL;
	if (re && re->stack_root == root) {
		stack = re->stack;
	} else {
		if ((rc = stack_of(st, st->frames, n, &stack)))
			return rc;
		if (re) {
			re->stack = stack;
			re->stack_root = root;
		}
	}
	st->nframes = 0;
	if (!st->have_thread || st->last_pid != st->pid ||
	    st->last_tid != st->tid ||
	    !sbuf_eq(&st->last_comm, st->comm.s, st->comm.len)) {
		if ((rc = sf_profile_thread(st->p, ctx, st->pid, st->tid,
					    st->comm.s ? st->comm.s : "",
					    &st->last_thread)))
			return rc;
		st->last_comm.len = 0;
		if (!sf_sbuf_add(&st->last_comm, st->comm.s ? st->comm.s : "",
				 st->comm.len))
			return sf_error_nomem(ctx);
		st->last_pid = st->pid;
		st->last_tid = st->tid;
		st->have_thread = true;
	}
	st->w[st->type] = st->period;
	if (!st->hints) {
		st->hints = sf_reallocarray(NULL, (size_t)1 << HINT_BITS,
					    sizeof(*st->hints));
		if (!st->hints)
			return sf_error_nomem(ctx);
		memset(st->hints, 0xff, sizeof(*st->hints) << HINT_BITS);
	}
	uint32_t slot = (stack * 0x9e3779b1u ^ st->last_thread * 0x85ebca77u) >>
			(32 - HINT_BITS);
	return sf_profile_add_sample_hint(st->p, ctx, stack, st->last_thread,
					  0, st->time, st->w,
					  &st->hints[slot]);
}

static int64_t id_of(const char *s, size_t n)
{
	int64_t v;

	if (!s || !sf_parse_i64(s, n, &v))
		return SF_NO_ID;
	return v;
}

/* The sample type, from the first event kept. */
/*
 * The sample type, from the first event kept: the event name without its
 * modifiers ("cpu-clock:pppH" -> "cpu-clock"; a tracepoint's
 * "sched:sched_switch" stays whole), unit "nanoseconds" for the clock
 * events, "events" for the others; ("samples", "count") when perf printed
 * no period.  (The full name of the first kept typed event is the property
 * "perf.event", set by on_event_line.)
 */
static int set_type(struct perf_state *st, const char *ev, size_t evn,
		    bool has_period)
{
	char name[128];
	const char *unit = "count";
	int rc;

	snprintf(name, sizeof(name), "%.*s", (int)(evn < 100 ? evn : 100),
		 ev ? ev : "");
	if (!evn || !has_period) {
		snprintf(name, sizeof(name), "samples");
	} else {
		char *colon = strrchr(name, ':');
		if (colon && colon[1] &&
		    strspn(colon + 1, "ukhpPGHISDWe") == strlen(colon + 1))
			*colon = 0;
		if (!strcmp(name, "cpu-clock") || !strcmp(name, "task-clock"))
			unit = "nanoseconds";
		else
			unit = "events";
	}
	bool first = !st->p->d.ntypes;
	if ((rc = sf_profile_sample_type(st->p, st->ctx, name, unit,
					 &st->type)))
		return rc;
	if (first)
		st->p->d.meta.default_type = st->type;
	st->have_type = true;
	return 0;
}

/* sf_perf__parse_event_type, which reads the line backwards from its
 * end to the ':' before the period (the time's): when the line ends in
 * the bytes the last typed line had there, after a ':', the answer is
 * the same and the scan is skipped (the type, period and event of one
 * recording seldom change). */
static bool event_type(struct perf_state *st, const char *l, size_t n,
		       const char **ev, size_t *evn, double *period)
{
	struct sf_sbuf *t = &st->type_tail;

	if (st->type_tail_ok && n > t->len && l[n - t->len - 1] == ':' &&
	    !memcmp(l + n - t->len, t->s, t->len)) {
		*ev = l + n - t->len + st->type_ev_off;
		*evn = st->type_evn;
		*period = st->type_period;
		return true;
	}
	st->type_tail_ok = false;
	if (!sf_perf__parse_event_type(l, n, ev, evn, period))
		return false;
	/* back from the event over the period to that ':', as the parser
	 * went */
	size_t k = (size_t)(*ev - l);
	while (k && is_space(l[k - 1]))
		k--;
	while (k && is_digit(l[k - 1]))
		k--;
	while (k && is_space(l[k - 1]))
		k--;
	t->len = 0;
	if (k && l[k - 1] == ':' && sf_sbuf_add(t, l + k, n - k)) {
		st->type_tail_ok = true;
		st->type_ev_off = (size_t)(*ev - (l + k));
		st->type_evn = *evn;
		st->type_period = *period;
	}
	return true;
}

static int on_event_line(struct perf_state *st, const struct event_line *e,
			 const char *l, size_t n)
{
	struct sf_ctx *ctx = st->ctx;
	const char *ev = NULL, *rest = NULL;
	size_t evn = 0, restn = 0;
	double period = 0;
	bool typed;
	int rc;

	st->in_event = true;
	st->skip = false;
	st->nframes = 0;
	st->ev_rec = REC_NONE;
	rec_clear(st);
	if (st->o.inferno) {
		typed = sf_perf__parse_event_type_inferno(l, n, e->end, &ev,
							  &evn, &period, &rest,
							  &restn);
	} else {
		typed = event_type(st, l, n, &ev, &evn, &period);
		/* a one-frame stack printed on the event line ("cycles:u:
		 * ffffffff9b201293 sym (dso)"): perl sees no event there;
		 * take it as inferno does when the rest is a frame */
		if (!typed &&
		    sf_perf__parse_event_type_inferno(l, n, e->end, &ev, &evn,
						      &period, &rest,
						      &restn) && rest) {
			struct stack_line sl;
			bool hex = sf_perf__parse_stack_line(rest, restn, &sl);
			for (size_t i = 0; hex && i < sl.pc_len; i++)
				hex = sf_is_hex(sl.pc[i]);
			if (hex)
				typed = true;
			else
				rest = NULL;
		}
		if (!typed) {
			ev = NULL;
			evn = 0;
			period = 0;
		}
	}
	if (typed) {
		if (!st->ev_filter.s) {
			if (!sf_sbuf_add(&st->ev_filter, ev, evn))
				return sf_error_nomem(ctx);
		} else if (!sbuf_eq(&st->ev_filter, ev, evn)) {
			sf_warn(ctx, "perf.event-filtered",
				"kept only events of type '%s' "
				"(--event-filter to choose another)",
				st->ev_filter.s);
			st->skip = true;
			return 0;
		}
	}
	if (typed && evn && !st->have_event_prop) {
		/* the first kept event type, which decides the filter: a part
		 * of a parallel read whose first typed event is another one
		 * read with another filter (sf_read_parallel compares it) */
		char name[128];
		snprintf(name, sizeof(name), "%.*s",
			 (int)(evn < 100 ? evn : 100), ev);
		if ((rc = sf_profile_set_prop(st->p, ctx, "perf.event", name)))
			return rc;
		st->have_event_prop = true;
	}
	if (!st->have_type && (rc = set_type(st, ev, evn, period > 0)))
		return rc;
	st->period = period > 0 ? period : 1;
	st->pid = id_of(e->pid, e->pid_len);
	st->tid = id_of(e->tid, e->tid_len);
	st->time = sf_perf__parse_time(l, n, e->end);
	st->comm.len = 0;
	st->pname.len = 0;
	if (!sf_sbuf_add(&st->comm, e->comm, e->comm_len) ||
	    !sf_sbuf_add(&st->pname, e->comm, e->comm_len))
		return sf_error_nomem(ctx);
	for (size_t i = 0; i < st->pname.len; i++)
		if (st->pname.s[i] == ' ')
			st->pname.s[i] = '_';
	if (st->o.tid || st->o.pid) {
		bool ok = sf_sbuf_add(&st->pname, "-", 1);
		if (e->pid)
			ok = ok && sf_sbuf_add(&st->pname, e->pid, e->pid_len);
		else
			ok = ok && sf_sbuf_add(&st->pname, "?", 1);
		if (st->o.tid)
			ok = ok && sf_sbuf_add(&st->pname, "/", 1) &&
			     sf_sbuf_add(&st->pname, e->tid, e->tid_len);
		if (!ok)
			return sf_error_nomem(ctx);
	}
	st->java = sbuf_eq(&st->pname, "java", 4);
	if (rest) {
		/* inferno: a one-frame stack on the event line */
		st->cur_line = sf_input_lineno(st->in);
		if ((rc = on_stack_line(st, rest, restn)))
			return rc;
		return end_event(st);
	}
	return 0;
}

static int perf_read(struct sf_profile *p, struct sf_input *in,
		     struct sf_ctx *ctx)
{
	struct perf_state st;
	char *line;
	size_t len;
	int rc;
	bool seen_event = false, in_cmdline = false;

	memset(&st, 0, sizeof(st));
	st.rec_prev = REC_NONE;
	st.ev_rec = REC_NONE;
	st.p = p;
	st.ctx = ctx;
	st.in = in;
	st.o.pid = sf_ctx_flag(ctx, "pid");
	st.o.tid = sf_ctx_flag(ctx, "tid");
	st.o.kernel = sf_ctx_flag(ctx, "kernel") || sf_ctx_flag(ctx, "all");
	st.o.jit = sf_ctx_flag(ctx, "jit") || sf_ctx_flag(ctx, "all");
	st.o.addrs = sf_ctx_flag(ctx, "addrs");
	st.o.inferno = sf_ctx_flag(ctx, "inferno");
	st.o.no_comm = sf_ctx_flag(ctx, "no-comm");
	st.o.event_filter = sf_ctx_opt(ctx, "event-filter");
	st.k_kernel = sf_profile_str(p, ctx, "kernel");
	st.k_jit = sf_profile_str(p, ctx, "jit");
	st.k_process = sf_profile_str(p, ctx, "process");
	if (!st.k_kernel || !st.k_jit || !st.k_process)
		return ctx->err.code;
	if (st.o.event_filter &&
	    !sf_sbuf_adds(&st.ev_filter, st.o.event_filter)) {
		rc = sf_error_nomem(ctx);
		goto out;
	}
	if (p->d.ntypes > 64) {
		rc = sf_error(ctx, SF_EINPUT, sf_input_name(in), 0,
			      "cannot merge perf samples into a profile with "
			      "more than 64 sample types");
		goto out;
	}
	st.w = sf_calloc(65, sizeof(double));
	if (!st.w) {
		rc = sf_error_nomem(ctx);
		goto out;
	}
	uint64_t count = 0;
	while ((rc = sf_input_line(in, ctx, &line, &len)) > 0) {
		if (!(++count & 0xffff) && sf_interrupted(ctx)) {
			rc = sf_error(ctx, SF_EINTR, NULL, 0, "interrupted");
			break;
		}
		rc = 0;
		if (len && line[0] == '#') {
			/* perf script --header: a "# cmdline" whose arguments
			 * hold newlines goes on over lines without '#' */
			in_cmdline = !seen_event && len >= 9 &&
				     !memcmp(line, "# cmdline", 9);
			continue;
		}
		size_t e = len;
		while (e && (line[e - 1] == '\r' ||
			     (st.o.inferno && is_space(line[e - 1]))))
			e--;
		if (!e) {
			if ((rc = end_event(&st)))
				break;
			continue;
		}
		struct event_line ev;
		bool is_event;
		if (in_cmdline) {
			/* up to the next "#" line or the first event line */
			if (!sf_perf__parse_event_perl(line, e, &ev))
				continue;
			in_cmdline = false;
		}
		if (st.o.inferno)
			is_event = !st.in_event &&
				   sf_perf__parse_event_inferno(line, e, &ev);
		else if (!is_space(line[0]))
			is_event = sf_perf__parse_event_perl(line, e, &ev);
		else if (!st.in_event) {
			/* an indented event line (perl reads it as a frame of
			 * no event; we read it as the event it is) */
			size_t k = 0;
			while (k < e && is_space(line[k]))
				k++;
			is_event = sf_perf__parse_event_perl(line + k, e - k,
							     &ev);
			/* outside an event any line with a NUL is refused */
			if (memchr(line, 0, e)) {
				rc = sf_error(ctx, SF_EINPUT,
					      sf_input_name(in),
					      sf_input_lineno(in),
					      "NUL byte: not perf script text");
				break;
			}
			if (is_event) {
				line += k;
				e -= k;
			}
		} else
			is_event = false;
		/* an unindented line is refused for a NUL as an indented one
		 * is (it was cut there: "pr\0og" read as "pr") */
		if (!is_space(line[0]) && memchr(line, 0, e)) {
			rc = sf_error(ctx, SF_EINPUT, sf_input_name(in),
				      sf_input_lineno(in),
				      "NUL byte: not perf script text");
			break;
		}
		if (is_event && sf_perf__is_record_line(line, e, ev.end)) {
			/* a side-band record (task, mmap, switch, lost ...):
			 * no sample, no event type; perl takes it as an event
			 * line that the next one replaces before any frame */
			seen_event = true;
			st.in_event = false;
			st.skip = false;
			st.nframes = 0;
			rec_clear(&st);
			continue;
		}
		if (is_event) {
			/* perl starts a new event without a blank line too */
			if (st.in_event && !st.o.inferno) {
				st.nframes = 0;
				rec_clear(&st);
			}
			seen_event = true;
			rc = on_event_line(&st, &ev, line, e);
			if (!rc)
				rc = rec_skip_seen(&st);
		} else if (!seen_event) {
			rc = sf_error(ctx, SF_EINPUT, sf_input_name(in),
				      sf_input_lineno(in),
				      "expected a perf script event line "
				      "('comm pid [cpu] time: event:')");
		} else if (st.in_event && !st.skip) {
			if (st.o.inferno) {
				st.cur_line = sf_input_lineno(in);
				rc = on_stack_line(&st, line, e);
			} else {
				rc = defer_stack_line(&st, line, e,
						      sf_input_lineno(in));
			}
		} else if (!st.in_event && !st.o.inferno) {
			/* a frame line outside an event: perl files it under
			 * the empty process name */
			sf_warn(ctx, "perf.orphan-frame",
				"%s:%llu: frame line outside an event skipped",
				sf_input_name(in),
				(unsigned long long)sf_input_lineno(in));
		}
		if (rc) {
			if (!ctx->err.line && ctx->err.code == SF_ELIMIT)
				ctx->err.line = sf_input_lineno(in);
			break;
		}
	}
	/* perl only ends an event at a blank line: a last event without one
	 * is dropped; inferno keeps it */
	if (rc == 0 && st.in_event && st.o.inferno)
		rc = end_event(&st);
out:
	sf_idx_free(&st.recc.idx);
	sf_big_free(st.recc.text, st.recc.text_cap);
	free(st.recc.ents);
	free(st.recc.fids);
	free(st.rec);
	free(st.pend);
	sf_idx_free(&st.lc.idx);
	sf_big_free(st.lc.text, st.lc.text_cap);
	free(st.lc.ents);
	free(st.lc.fids);
	sf_idx_free(&st.sc.idx);
	free(st.sc.ids);
	free(st.sc.ents);
	sf_sbuf_free(&st.name);
	sf_sbuf_free(&st.tmp);
	sf_sbuf_free(&st.modbuf);
	sf_sbuf_free(&st.pname);
	sf_sbuf_free(&st.comm);
	sf_sbuf_free(&st.ev_filter);
	sf_sbuf_free(&st.type_tail);
	sf_sbuf_free(&st.last_pname);
	sf_sbuf_free(&st.last_comm);
	free(st.frames);
	free(st.w);
	free(st.hints);
	return rc < 0 ? rc : 0;
}

/* Records end at a blank line: a part may start after one (LF LF or
 * LF CR LF). */
static size_t perf_split(const char *d, size_t n, size_t pos)
{
	size_t i = pos ? pos - 1 : 0;

	if (!pos)
		return 0;
	while (i < n) {
		const char *lf = memchr(d + i, '\n', n - i);
		if (!lf)
			break;
		i = (size_t)(lf - d) + 1;
		if (i < n && d[i] == '\n')
			return i + 1;
		if (i + 1 < n && d[i] == '\r' && d[i + 1] == '\n')
			return i + 2;
	}
	return n;
}

/* A frame line as perf indents it: "ip symbol (dso)", or without the
 * dso (-F ip,sym) "HEXIP symbol"; old versions did not indent, but then
 * the line is "HEXIP symbol (dso)" with no TAB, unlike event lines.
 * Returns the probe score: 60 with a dso, 40 without, else 0. */
static int probe_frame(const char *l, size_t len, size_t indent)
{
	struct stack_line sl;
	size_t h = indent;

	while (h < len && isxdigit((unsigned char)l[h]))
		h++;
	bool hexip = h > indent && h < len && l[h] == ' ';
	if (!indent && (memchr(l, '\t', len) || !hexip))
		return 0;
	if (sf_perf__parse_stack_line(l, len, &sl) && sl.mod_len + 2 <= len)
		return 60;
	if (!indent)
		return 0;
	while (h < len && l[h] == ' ')
		h++;
	return hexip && h < len ? 40 : 0;
}

/* An event line followed by a frame line, within the first lines; "#"
 * header lines (a "# cmdline" may go on over several lines) and
 * side-band PERF_RECORD_* lines may come first. */
static int perf_probe(const unsigned char *d, size_t n)
{
	size_t i = 0;
	int lines = 0, records = 0;
	bool after_event = false, typed = false, in_cmdline = false;

	if (n >= 3 && d[0] == 0xef && d[1] == 0xbb && d[2] == 0xbf)
		i = 3;
	while (i < n && lines < 200) {
		const unsigned char *lf = memchr(d + i, '\n', n - i);
		size_t e = lf ? (size_t)(lf - d) : n;
		const char *l = (const char *)d + i;
		size_t len = e - i;
		if (len && l[len - 1] == '\r')
			len--;
		i = e + 1;
		lines++;
		if (len && l[0] == '#') {
			in_cmdline = len >= 9 && !memcmp(l, "# cmdline", 9);
			continue;
		}
		struct event_line ev;
		if (in_cmdline && !sf_perf__parse_event_perl(l, len, &ev))
			continue;
		in_cmdline = false;
		size_t k = 0;
		while (k < len && is_space(l[k]))
			k++;
		if (k == len) {
			after_event = false;
			continue;
		}
		if (after_event)
			return probe_frame(l, len, k);
		if (!(sf_perf__parse_event_perl(l, len, &ev) ||
		      sf_perf__parse_event_inferno(l, len, &ev)))
			return 0;
		if (sf_perf__is_record_line(l, len, ev.end)) {
			records++;
			continue;
		}
		/* alone, the header must end with "event:" (or carry a
		 * frame); followed by a frame it may be "comm tid" (-F) */
		typed = memchr(l + ev.end, ':', len - ev.end) ||
			memchr(l, ':', len);
		after_event = true;
		if (!lf)
			break;
	}
	return after_event && typed ? 20 : records ? 20 : 0;
}

static const char *const perf_ext[] = { ".perf", ".perf-script",
					NULL };

static const struct sf_option perf_ropts[] = {
	{ "pid", NULL, "perf: root frame COMM-PID (stackcollapse-perf.pl "
	  "--pid)" },
	{ "tid", NULL, "perf: root frame COMM-PID/TID (--tid)" },
	{ "kernel", NULL, "perf: append _[k] to kernel frames (--kernel)" },
	{ "jit", NULL, "perf: append _[j] to JIT frames (--jit)" },
	{ "all", NULL, "perf: --kernel and --jit (--all)" },
	{ "addrs", NULL, "perf: name unknown frames [dso <ip>] (--addrs)" },
	{ "event-filter", "EVENT", "perf: keep only events of type EVENT "
	  "(default: the first event type seen)" },
	{ "inferno", NULL, "perf: follow inferno-collapse-perf where it "
	  "differs from stackcollapse-perf.pl" },
	{ "no-comm", NULL, "perf: no process-name root frame (the sample's "
	  "thread keeps the name)" },
	{ NULL, NULL, NULL }
};

const struct sf_format sf_format_perf = {
	.name = "perf",
	.description = "perf script text (Linux perf record -g; perf script)",
	.extensions = perf_ext,
	.probe = perf_probe,
	.read = perf_read,
	.read_options = perf_ropts,
	.split = perf_split,
};
