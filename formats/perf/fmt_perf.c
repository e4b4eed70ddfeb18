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
 * This file holds the pass over the lines, the events and their samples;
 * perf_script.h lists the others.
 *
 * Speed: lines come from sf_input_line (memchr over a large buffer); a
 * frame line seen before is one hash and one memcmp in the line cache
 * (its frames are parsed once), and a whole stack seen before is one hash
 * of its frame ids in the stack cache.  No allocation per sample.
 */
#include "perf_script.h"
#include "counts.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* The model stack of the current event's frames, through the stack cache. */
static int stack_of(struct perf_state *st, const sf_frame_id *ids, size_t n,
		    sf_stack_id *out)
{
	size_t bytes = n * sizeof(*ids);
	uint64_t h = sf_hash(ids, bytes);
	int rc;

	if (sf_perf__acache_find(&st->sc, ids, bytes, h, out))
		return 0;
	if ((rc = sf_profile_stack(st->p, st->ctx, ids, n, true, out)))
		return rc;
	return sf_perf__acache_add(&st->sc, st->ctx, ids, bytes, h, *out,
				   SIZE_MAX);
}

static bool sbuf_eq(const struct sf_sbuf *b, const char *s, size_t n)
{
	return b->len == n && (!n || !memcmp(b->s, s, n));
}

/* The model's thread of the current event (its comm is st->comm).  When
 * many threads are sampled together the thread changes at nearly every
 * event, and sf_profile_thread (interning the comm, then a hash probe)
 * cost as much as the rest of the event: a small cache by (pid, tid)
 * answers first, the comm checked against the name the model keeps for
 * that thread unless it was, with the same comm, since it was last set
 * (a model thread's name does not change during the read). */
static int thread_of(struct perf_state *st, sf_thread_idx *out)
{
	uint32_t i = (uint32_t)((uint64_t)st->tid * 0x9e3779b97f4a7c15ull >>
				(64 - THREAD_CACHE_BITS));
	struct thread_slot *s = &st->threads[i];
	const char *comm = st->comm.s ? st->comm.s : "";
	size_t n = st->comm.len;
	int rc;

	if (s->used && s->pid == st->pid && s->tid == st->tid) {
		const char *name = st->p->d.threads[s->thread].name;
		if (s->gen == st->comm_gen ||
		    (name && !strncmp(name, comm, n) && !name[n])) {
			s->gen = st->comm_gen;
			*out = s->thread;
			return 0;
		}
	}
	if ((rc = sf_profile_thread(st->p, st->ctx, st->pid, st->tid, comm,
				    out)))
		return rc;
	*s = (struct thread_slot){ st->pid, st->tid, st->comm_gen, *out, true };
	return 0;
}

static int set_type(struct perf_state *st, const char *ev, size_t evn,
		    bool has_period);

/* The event is complete: add its sample. */
static int end_event(struct perf_state *st)
{
	struct sf_ctx *ctx = st->ctx;
	int rc;

	/* (a record's event is never skipped: rec_event is only set with
	 * in_event, and cleared where skip or !in_event is set) */
	if (!st->in_event || st->skip) {
		st->in_event = false;
		st->skip = false;
		st->nframes = 0;
		st->ev_rec = REC_NONE;
		sf_perf__rec_clear(st);
		return 0;
	}
	if (__builtin_expect(st->rec_event, 0)) {
		/* perl's untyped event of a side-band line: its process, and
		 * the frames after it (a filtered event's), weight 1 */
		st->rec_event = false;
		sf_warn(ctx, "perf.record-event",
			"%s:%llu: a PERF_RECORD line counted as a sample of "
			"weight 1 of its process (with the frames after it), "
			"as stackcollapse-perf.pl does (--inferno does not)",
			sf_input_name(st->in),
			(unsigned long long)st->rec_lineno);
		if (!st->have_type && (rc = set_type(st, NULL, 0, false)))
			return rc;
	}
	/* no kept line (a record skipped unread): nothing to flush */
	if (st->npend && (rc = sf_perf__rec_flush(st)))
		return rc;
	st->in_event = false;
	if (st->o.inferno && !st->nframes)
		return 0;  /* inferno drops events without frames */
	if (!st->o.no_comm &&
	    (!st->have_pname_frame ||
	     (st->names_new &&
	      !sbuf_eq(&st->last_pname, st->pname.s, st->pname.len)))) {
		struct sf_frame fr;
		sf_frame_init(&fr);
		fr.name = st->pname.s ? st->pname.s : "";
		fr.kind = st->k_process;
		if ((rc = sf_profile_frame(st->p, ctx, &fr, &st->pname_frame)))
			return rc;
		st->last_pname.len = 0;
		if (!sf_sbuf_add(&st->last_pname, fr.name, st->pname.len))
			return sf_error_nomem(ctx);
		st->have_pname_frame = true;
	}
	sf_stack_id stack;
	sf_frame_id root = st->o.no_comm ? ROOT_NONE : st->pname_frame;
	uint32_t rid = st->ev_rec;
	struct rec_ent *re = rid != REC_NONE ? rec_at(&st->recc, rid) : NULL;
	st->ev_rec = REC_NONE;
	if (re && re->stack_root == root) {
		stack = re->stack;
	} else {
		/* a record's frames are copied only here, when its stack
		 * under this root is not known yet */
		if (re && (rc = sf_perf__rec_frames(st, rid)))
			return rc;
		if ((rc = sf_perf__frames_room(st, 0)))
			return rc;
		size_t n = st->nframes;
		if (!st->o.no_comm)
			st->frames[n++] = st->pname_frame;
		if ((rc = stack_of(st, st->frames, n, &stack)))
			return rc;
		if (re) {
			re = rec_at(&st->recc, rid);
			re->stack = stack;
			re->stack_root = root;
		}
	}
	st->nframes = 0;
	if (!st->have_thread || st->last_pid != st->pid ||
	    st->last_tid != st->tid ||
	    (st->names_new &&
	     !sbuf_eq(&st->last_comm, st->comm.s, st->comm.len))) {
		if ((rc = thread_of(st, &st->last_thread)))
			return rc;
		/* without names_new comm is the last sample's, so last_comm
		 * holds it already (many threads, one comm) */
		if (st->names_new) {
			st->last_comm.len = 0;
			if (!sf_sbuf_add(&st->last_comm,
					 st->comm.s ? st->comm.s : "",
					 st->comm.len))
				return sf_error_nomem(ctx);
		}
		st->last_pid = st->pid;
		st->last_tid = st->tid;
		st->have_thread = true;
	}
	st->names_new = false;
	st->w[st->type] = st->period;
	if (!st->hints) {
		st->hints = sf_reallocarray(NULL, (size_t)1 << HINT_BITS,
					    sizeof(*st->hints));
		if (!st->hints)
			return sf_error_nomem(ctx);
		memset(st->hints, 0xff, sizeof(*st->hints) << HINT_BITS);
	}
	/* the event's record keeps the sample its last event went to, and
	 * that event's thread: where a record is one thread's (most are,
	 * unless many threads run the same code), that hint is in the line
	 * just read and the hint table is not touched */
	uint32_t *hint;
	if (re && re->hint_thread == st->last_thread) {
		hint = &re->hint;
	} else {
		uint32_t slot = (stack * 0x9e3779b1u ^
				 st->last_thread * 0x85ebca77u) >>
				(32 - HINT_BITS);
		hint = &st->hints[slot];
	}
	if ((rc = sf_profile_add_sample_hint(st->p, ctx, stack,
					     st->last_thread, 0, st->time,
					     st->w, hint)))
		return rc;
	if (re) {
		re->hint = *hint;
		re->hint_thread = st->last_thread;
	}
	return 0;
}

/*
 * The sample type of an event: the event name without its modifiers
 * ("cpu-clock:pppH" -> "cpu-clock"; a tracepoint's "sched:sched_switch"
 * stays whole), unit "nanoseconds" for the clock events, "events" for the
 * others; ("samples", "count") when perf printed no period.  (The full
 * name of the first kept typed event is the property "perf.event", set by
 * on_event_line.)
 */
static const char *type_name(char *name, size_t size, const char *ev,
			     size_t evn, bool has_period)
{
	if (!evn || !has_period) {
		snprintf(name, size, "samples");
		return "count";
	}
	snprintf(name, size, "%.*s", (int)(evn < 100 ? evn : 100), ev);
	char *colon = strrchr(name, ':');
	if (colon && colon[1] &&
	    strspn(colon + 1, "ukhpPGHISDWe") == strlen(colon + 1))
		*colon = 0;
	if (!strcmp(name, "cpu-clock") || !strcmp(name, "task-clock"))
		return "nanoseconds";
	return "events";
}

/* The sample type, from the first event kept. */
static int set_type(struct perf_state *st, const char *ev, size_t evn,
		    bool has_period)
{
	char name[128];
	const char *unit = type_name(name, sizeof(name), ev, evn, has_period);
	int rc;

	bool first = !st->p->d.ntypes;
	st->have_type = true;
	st->type_untyped = !evn || !has_period;
	st->type_own = first;
	if (!first && st->type_untyped) {
		/* an earlier input made the types: the weight 1 goes to the
		 * default one, as the script adds it to the same sum when
		 * it reads the files as one stream */
		st->type = sf_records_default_type(st->p);
		return 0;
	}
	if ((rc = sf_profile_sample_type(st->p, st->ctx, name, unit,
					 &st->type)))
		return rc;
	if (first)
		st->p->d.meta.default_type = st->type;
	return 0;
}

/*
 * The first kept event with a period after kept events without one
 * (perf script prints "cpu-clock:pp:" for the first event of some
 * recordings, "250000 cpu-clock:pp:" for the others): from here on the
 * weights are that event's periods, so the type must say so, or
 * nanoseconds would pass for sample counts (a writer that repeats a sample
 * once per count would write 250,000 records for one event).  The events
 * before weigh 1 each, as stackcollapse-perf.pl counts them.  The type is
 * renamed when this read made it and it is the only one; else (an earlier
 * input made types, and the events before weighed 1 in the default one)
 * the event's type is found or made and the weights go there from now
 * on.  Either way a serial read and the parts of a parallel
 * one make the same types from the same events (sf_read_parallel compares
 * the parts' types).
 */
static int retype(struct perf_state *st, const char *ev, size_t evn)
{
	char name[128];
	const char *unit = type_name(name, sizeof(name), ev, evn, true);
	uint32_t old = st->type;
	int rc;

	st->type_untyped = false;
	if (st->type_own) {
		const char *t = sf_profile_str(st->p, st->ctx, name);
		const char *u = sf_profile_str(st->p, st->ctx, unit);
		if (!t || !u)
			return st->ctx->err.code;
		st->p->d.types[st->type].type = t;
		st->p->d.types[st->type].unit = u;
		return 0;
	}
	if ((rc = sf_profile_sample_type(st->p, st->ctx, name, unit,
					 &st->type)))
		return rc;
	if (st->type != old)
		st->w[old] = 0;
	return 0;
}

/* sf_perf__parse_event_type, which reads the line backwards from its
 * end to the ':' before the period (the time's): when the line ends in
 * the bytes the last typed line had there, after a ':', the answer is
 * the same and the scan is skipped (the type, period and event of one
 * recording seldom change).  `hit`: sf_perf__event_tail found that
 * tail already. */
static bool event_type(struct perf_state *st, const char *l, size_t n,
		       bool hit, const char **ev, size_t *evn, double *period)
{
	struct sf_sbuf *t = &st->type_tail;

	if (hit || (st->type_tail_ok && n > t->len &&
		    l[n - t->len - 1] == ':' &&
		    mem_eq(l + n - t->len, t->s, t->len))) {
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
		/* after a time word these words alone decide that a line is
		 * no record (sf_perf__event_tail's `known`) */
		st->type_tail_plain = !sf_perf__is_record_line(t->s, t->len, 0);
		st->type_ev_off = (size_t)(*ev - (l + k));
		st->type_evn = *evn;
		st->type_period = *period;
	}
	return true;
}

static int64_t id_of(const char *s, size_t n)
{
	int64_t v;

	if (!s || !sf_parse_i64(s, n, &v))
		return SF_NO_ID;
	return v;
}

/* Event line `l` starts with x's line up to its end, and a non-blank
 * follows: the parser would give the same answer (it reads no further).
 * The last eight bytes first: where threads take turns the pid or tid
 * differs there. */
static bool prefix_is(const struct ev_prefix *x, const char *l, size_t n)
{
	size_t m = x->pre.len;

	return m && n > m && !is_space(l[m]) &&
	       (m < 8 || load8(l + m - 8) == load8(x->pre.s + m - 8)) &&
	       mem_eq(l, x->pre.s, m);
}

/* The bytes of `v` equal to ' ', as their high bit (exact: no borrow
 * between bytes). */
static inline uint64_t blank_bytes(uint64_t v)
{
	uint64_t y = v ^ 0x2020202020202020ull;
	uint64_t t = (y & 0x7f7f7f7f7f7f7f7full) + 0x7f7f7f7f7f7f7f7full;

	return ~(t | y | 0x7f7f7f7f7f7f7f7full);
}

static void prefix_take(struct perf_state *st, struct ev_prefix *x,
			const char *l, struct event_line *e)
{
	*e = x->e;
	e->comm = l;
	if (x->e.pid)
		e->pid = l + (x->e.pid - x->pre.s);
	e->tid = l + (x->e.tid - x->pre.s);
	st->ev_pid = x->pid;
	st->ev_tid = x->tid;
	st->ev_cur = x;
	st->ev_hit = true;
}

/* The high bits of blank_bytes(v) as an 8-bit mask, bit i for byte i. */
static inline uint32_t blank_mask8(uint64_t v)
{
	return (uint32_t)(((blank_bytes(v) >> 7) * 0x0102040810204080ull) >>
			  56);
}

/* The slot of event line `l`: a hash of its bytes up to the end of its
 * second word (words apart by runs of ' ' within 64 bytes), which lie in
 * the part the parser reads for "comm pid/tid" or "two-word comm ...";
 * NULL without them.  Only a key: prefix_is decides.  perf pads the comm
 * ("python3  7242   0.1: ..."), so the word after the first blank is
 * the pid, not the empty word between two blanks (keyed on that, every
 * thread of a comm shared one slot, and where threads took turns each
 * line was parsed again).  When the key ends in the first 16 bytes (a
 * short comm and pid), it is found and mixed eight bytes at a time,
 * without the scan and the hash that cost as much as the rest of the
 * line. */
static struct ev_prefix *prefix_slot(struct perf_state *st, const char *l,
				     size_t n)
{
	if (n >= 16) {
		uint64_t a = load8(l), b = load8(l + 8);
		uint32_t bl = blank_mask8(a) | blank_mask8(b) << 8;
		/* the first blank after byte 0, the next non-blank, then
		 * the blank after it: the key is the bytes below that */
		uint32_t m = bl & ~(uint32_t)1;
		if (m) {
			m = ~bl & 0xffff & -(m & -m);
			m = m ? bl & -(m & -m) : 0;
		}
		if (m) {
			unsigned end = (unsigned)__builtin_ctz(m);
			if (end <= 8) {
				a &= end == 8 ? ~0ull :
				     ((uint64_t)1 << (8 * end)) - 1;
				b = 0;
			} else {
				b &= ((uint64_t)1 << (8 * (end - 8))) - 1;
			}
			return &st->ev_pre[((a * 0x9e3779b97f4a7c15ull ^ b) *
					    0xc2b2ae3d27d4eb4full) >>
					   (64 - EV_CACHE_BITS)];
		}
	}
	size_t m = n < 64 ? n : 64, k = 1;

	while (k < m && l[k] != ' ')
		k++;
	while (k < m && l[k] == ' ')
		k++;
	while (k < m && l[k] != ' ')
		k++;
	if (k == m)
		return NULL;
	return &st->ev_pre[sf_hash(l, k) >> (64 - EV_CACHE_BITS)];
}

/*
 * sf_perf__parse_event_perl, remembering its answers: a line starting with
 * a kept event line's bytes up to its end (comm, pid/tid and the blanks
 * after them) followed by a non-blank gives the same answer, and the same
 * pid and tid (st->ev_pid, st->ev_tid).  The last line's is tried first
 * (successive events of one thread), then the one kept for the line's
 * first two words (many threads sampled together take turns).
 */
static bool event_perl(struct perf_state *st, const char *l, size_t n,
		       struct event_line *e)
{
	struct ev_prefix *x = st->ev_cur;

	if (x && prefix_is(x, l, n)) {
		prefix_take(st, x, l, e);
		return true;
	}
	x = prefix_slot(st, l, n);
	if (x && prefix_is(x, l, n)) {
		prefix_take(st, x, l, e);
		return true;
	}
	if (!sf_perf__parse_event_perl(l, n, e))
		return false;
	st->ev_pid = id_of(e->pid, e->pid_len);
	st->ev_tid = id_of(e->tid, e->tid_len);
	st->ev_cur = NULL;
	st->ev_hit = false;
	if (!x)
		return true;
	x->comm_gen = 0;
	x->pre.len = 0;
	if (!sf_sbuf_add(&x->pre, l, e->end)) {
		x->pre.len = 0;   /* no memory: no reuse, the parse stands */
		return true;
	}
	x->e = *e;
	x->e.comm = x->pre.s;
	if (e->pid)
		x->e.pid = x->pre.s + (e->pid - l);
	x->e.tid = x->pre.s + (e->tid - l);
	x->pid = st->ev_pid;
	x->tid = st->ev_tid;
	st->ev_cur = x;
	return true;
}

/* An event line `l` whose time is `time`; `ids`: its pid and tid are
 * st->ev_pid and st->ev_tid (event_perl read it); `tail`: it ends in the
 * last typed line's tail (st->type_tail); `record`: a side-band record
 * line, which perl reads as an event line without a type (no sample
 * unless a blank line or frames follow, or the stack of a filtered
 * event: end_event says so; it decides no type).  Inlined at its two
 * calls, each with `record` known: out of line (when record lines took
 * it too), or with `record` tested per event, it cost 2-4.5 % more
 * instructions on the perf classes (cachegrind). */
static inline __attribute__((always_inline)) int
on_event_line(struct perf_state *st, const struct event_line *e,
	      const char *l, size_t n, int64_t time, bool ids, bool tail,
	      bool record)
{
	struct sf_ctx *ctx = st->ctx;
	const char *ev = NULL, *rest = NULL;
	size_t evn = 0, restn = 0;
	double period = 0;
	bool typed, perl_typed = false;
	int rc;

	st->in_event = true;
	st->skip = false;
	st->nframes = 0;
	st->ev_rec = REC_NONE;
	sf_perf__rec_clear(st);
	if (st->o.inferno) {
		typed = sf_perf__parse_event_type_inferno(l, n, e->end, &ev,
							  &evn, &period, &rest,
							  &restn);
	} else if (record) {
		typed = false;
	} else {
		typed = perl_typed = event_type(st, l, n, tail, &ev, &evn,
						&period);
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
		/* a line ending in the last typed line's tail has its event,
		 * so the filter's answer (the filter does not change once
		 * set) */
		if (!tail) {
			if (!st->ev_filter.s &&
			    !sf_sbuf_add(&st->ev_filter, ev, evn))
				return sf_error_nomem(ctx);
			st->type_tail_skip = !sbuf_eq(&st->ev_filter, ev, evn);
		}
		if (st->type_tail_skip) {
			sf_warn(ctx, "perf.event-filtered",
				"kept only events of type '%s' "
				"(--event-filter to choose another)",
				st->ev_filter.s);
			/* perl skips a line of a type it filters before it
			 * reads the comm: a record line's event goes on, and
			 * takes this line's frames.  Not after a line only
			 * the fallback above types: perl keeps that one. */
			if (st->rec_event && perl_typed)
				return 0;
			st->rec_event = false;
			st->skip = true;
			return 0;
		}
	}
	st->rec_event = record;
	if (record)
		st->rec_lineno = sf_input_lineno(st->in);
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
	if (!st->have_type && !record &&
	    (rc = set_type(st, ev, evn, period > 0)))
		return rc;
	if (st->type_untyped && period > 0 && evn &&
	    (rc = retype(st, ev, evn)))
		return rc;
	st->period = period > 0 ? period : 1;
	st->pid = ids ? st->ev_pid : id_of(e->pid, e->pid_len);
	st->tid = ids ? st->ev_tid : id_of(e->tid, e->tid_len);
	st->time = time;
	/* the same comm as the last event's gives the same names (the
	 * root frame's holds the pid or tid only with --pid or --tid); a
	 * line that began with a kept prefix has its comm, known equal to
	 * `comm` if it was since `comm` was last set */
	struct ev_prefix *x = ids ? st->ev_cur : NULL;
	if (st->comm.s && !st->o.tid && !st->o.pid &&
	    ((x && x->comm_gen == st->comm_gen) ||
	     sbuf_eq(&st->comm, e->comm, e->comm_len))) {
		if (x)
			x->comm_gen = st->comm_gen;
		goto names_done;
	}
	st->names_new = true;
	st->comm_gen++;
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
	/* "java" whole, as FlameGraph's own results of --pid/--tid have it
	 * (the peer pairs): its script of today tests /^java/, which
	 * tidies "java-PID" too */
	st->java = sbuf_eq(&st->pname, "java", 4);
	if (x)
		x->comm_gen = st->comm_gen;
names_done:
	if (rest) {
		/* inferno: a one-frame stack on the event line */
		st->cur_line = sf_input_lineno(st->in);
		if ((rc = sf_perf__on_stack_line(st, rest, restn)))
			return rc;
		return end_event(st);
	}
	return 0;
}

/* At a record start: is it the end of the part this thread reads
 * (sf_read_part_stop)?  Read whole, *limit is UINT64_MAX: no call. */
static bool part_ends(struct sf_input *in, uint64_t *limit)
{
	uint64_t at;

	if (*limit == UINT64_MAX || (at = sf_input_offset(in)) < *limit)
		return false;
	return sf_read_part_stop(at, limit);
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
	uint64_t count = 0, limit = sf_read_part_limit();
	/* the lines are read by their length alone, never written: read
	 * them where the file is mapped (the kernel's copy into a buffer
	 * was 13-16 % of the read) */
	sf_input_view(in, ctx);
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
			/* a record may start here: the end of a part? */
			if (part_ends(in, &limit))
				break;
			continue;
		}
		struct event_line ev;
		bool is_event, ids = false, tail = false, indented = false;
		int64_t time;
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
			is_event = ids = event_perl(&st, line, e, &ev);
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
				indented = true;
			}
		} else
			is_event = false;
		/* the last typed line's tail, known not to make a record */
		const struct sf_sbuf *known = !st.o.inferno && st.type_tail_ok &&
					      st.type_tail_plain ?
					      &st.type_tail : NULL;
		bool record = is_event &&
			      sf_perf__event_tail(line, e, ev.end,
						  known ? known->s : NULL,
						  known ? known->len : 0,
						  &time, &tail);
		/* an unindented line is refused for a NUL as an indented one
		 * is (it was cut there: "pr\0og" read as "pr"); a line made
		 * of a kept prefix, a time and the last typed line's tail
		 * has none (both were kept from lines without one) */
		if (!is_space(line[0]) && !(ids && st.ev_hit && tail) &&
		    memchr(line, 0, e)) {
			rc = sf_error(ctx, SF_EINPUT, sf_input_name(in),
				      sf_input_lineno(in),
				      "NUL byte: not perf script text");
			break;
		}
		if (record && st.o.inferno) {
			/* a side-band record (task, mmap, switch, lost ...):
			 * no sample, no event type, the end of an event */
			seen_event = true;
			st.in_event = false;
			st.skip = false;
			st.nframes = 0;
			sf_perf__rec_clear(&st);
			continue;
		}
		if (record && indented) {
			/* perl reads an indented one as nothing (a line it
			 * does not recognise), an unindented one as an event
			 * line without a type (below) */
			seen_event = true;
			continue;
		}
		if (is_event) {
			/* perl starts a new event without a blank line too */
			if (st.in_event && !st.o.inferno) {
				st.nframes = 0;
				sf_perf__rec_clear(&st);
			}
			seen_event = true;
			if (record)
				rc = on_event_line(&st, &ev, line, e, time,
						   ids, tail, true);
			else if (!(rc = on_event_line(&st, &ev, line, e, time,
						      ids, tail, false)) &&
				 (rc = sf_perf__rec_skip_seen(&st)) > 0 &&
				 !(rc = end_event(&st)) &&
				 part_ends(in, &limit))
				break;  /* its blank line ended the part */
		} else if (!seen_event) {
			rc = sf_error(ctx, SF_EINPUT, sf_input_name(in),
				      sf_input_lineno(in),
				      "expected a perf script event line "
				      "('comm pid [cpu] time: event:')");
		} else if (st.in_event && !st.skip) {
			/* (a frame line right after a record line too: perl
			 * files it under the record's process) */
			if (st.o.inferno) {
				st.cur_line = sf_input_lineno(in);
				rc = sf_perf__on_stack_line(&st, line, e);
			} else {
				rc = sf_perf__defer_stack_line(
					&st, line, e, sf_input_lineno(in));
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
	sf_big_free(st.recc.mem, st.recc.cap);
	free(st.recc.lead);
	free(st.rec);
	free(st.pend);
	sf_idx_free(&st.lc.idx);
	sf_big_free(st.lc.text, st.lc.text_cap);
	free(st.lc.ents);
	free(st.lc.fids);
	sf_perf__acache_free(&st.sc);
	sf_sbuf_free(&st.name);
	sf_sbuf_free(&st.tmp);
	sf_sbuf_free(&st.modbuf);
	sf_sbuf_free(&st.pname);
	sf_sbuf_free(&st.comm);
	sf_sbuf_free(&st.ev_filter);
	sf_sbuf_free(&st.type_tail);
	for (size_t i = 0; i < (size_t)1 << EV_CACHE_BITS; i++)
		sf_sbuf_free(&st.ev_pre[i].pre);
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
	SF_PERF_COMMON_ROPTS,
	{ "addrs", NULL, "perf: name unknown frames [dso <ip>] (--addrs)" },
	SF_PERF_EVENT_FILTER_ROPT,
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