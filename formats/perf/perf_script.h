/*
 * perf_script.h - internal to the `perf script` reader, which is made of
 * three files, each calling only those below it:
 *
 *     fmt_perf.c       the format entry, the pass over the lines, events
 *                      and their samples
 *     perf_records.c   the record cache: an event's stack lines looked
 *                      up as one text, or skipped unread when seen before
 *     perf_lines.c     the line cache: one frame line -> its frames
 *
 * and of the line parsers of perf.h (perf_dialects.c).
 */
#ifndef SF_PERF_SCRIPT_H
#define SF_PERF_SCRIPT_H

#include "perf.h"


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
	} *ents;
	size_t nents, cap_ents;
	sf_frame_id *fids;
	size_t nfids, cap_fids;
};

/*
 * Record cache: the whole text of an event's stack lines -> its frames.
 * Each record is one piece of `mem`: a struct rec_ent, its text, then its
 * frame ids (leaf first, 4-aligned), the next record 8-aligned after
 * them.  Finding a record and checking its text then touch neighbouring
 * bytes: on a large input the cache is out of the CPU's caches between
 * two events of a record, and an array of entries apart from a buffer of
 * texts cost a miss in each.  A record's id is its offset in `mem` over
 * REC_ALIGN, which stays valid while `mem` grows (and moves).
 */
struct rec_cache {
	struct sf_idx idx;
	unsigned char *mem;
	size_t len, cap;
	/* the last record taken whose text starts with given REC_LEAD_LEN
	 * bytes (the leaf's address and the start of its symbol), by a hash
	 * of them, or REC_NONE: when the guess by the last record
	 * (rec_ent.next) is wrong, as it is for most events where many
	 * threads take turns, this one is tried before the scan and the
	 * hash of the whole stack (perf_records.c) */
	uint32_t *lead;
};

struct rec_ent {
	uint32_t len;            /* bytes of text */
	uint32_t n;              /* frames */
	uint32_t lines;          /* stack lines of the text */
	uint32_t next;           /* the record that followed it last time
				  * (REC_NONE: none yet) */
	/* the model stack of the last event made of this record alone, and
	 * that event's root (its process frame, ROOT_NONE without one);
	 * stack_root is STACK_UNSET until then */
	sf_stack_id stack;
	sf_frame_id stack_root;
	/* the sample that event went to and its thread (UINT32_MAX: none
	 * yet), a hint for sf_profile_add_sample_hint */
	uint32_t hint;
	sf_thread_idx hint_thread;
	bool java;
};

#define REC_ALIGN 8

static inline struct rec_ent *rec_at(const struct rec_cache *c, uint32_t id)
{
	return (struct rec_ent *)(void *)(c->mem + (size_t)id * REC_ALIGN);
}

static inline const char *rec_text(const struct rec_ent *e)
{
	return (const char *)(e + 1);
}

static inline const sf_frame_id *rec_fids(const struct rec_ent *e)
{
	size_t off = (sizeof(*e) + e->len + 3) & ~(size_t)3;

	return (const sf_frame_id *)(const void *)((const char *)e + off);
}

/* Bytes of records the record cache keeps at most, and the longest
 * record it caches. */
#ifndef PERF_REC_CACHE_MAX
#define PERF_REC_CACHE_MAX ((size_t)32 << 20)
#endif
#define PERF_REC_MAX ((size_t)1 << 20)
#define REC_NONE UINT32_MAX
#define REC_LEAD_LEN 24
#define REC_LEAD_BITS 12
#define HINT_BITS 14
#define THREAD_CACHE_BITS 8
#define EV_CACHE_BITS 6
#define STACK_UNSET UINT32_MAX
#define ROOT_NONE (UINT32_MAX - 1)

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
	/* the tail's words alone make no record (so a line whose time word
	 * they follow is none: sf_perf__event_tail's `known`) */
	bool type_tail_plain;
	/* the tail's event is not the one --event-filter (or the first
	 * typed event) keeps */
	bool type_tail_skip;
	/* unindented event lines up to their time (comm, pid/tid and
	 * blanks), what sf_perf__parse_event_perl gave for each (pointing
	 * into `pre`) and its pid and tid as numbers, direct-mapped by the
	 * line's first two words (fmt_perf.c's event_perl); ev_cur: the
	 * last line's, or NULL.  comm_gen: the value of st->comm_gen when
	 * `comm` was last found to hold this prefix's comm (0: not yet). */
	struct ev_prefix {
		struct sf_sbuf pre;
		struct event_line e;
		int64_t pid, tid;
		uint64_t comm_gen;
	} ev_pre[1 << EV_CACHE_BITS], *ev_cur;
	/* the pid and tid of the line event_perl read last, and whether
	 * that line began with a kept prefix (so it holds no NUL there) */
	int64_t ev_pid, ev_tid;
	bool ev_hit;
	struct sf_input *in;
	struct perf_opts o;
	struct line_cache lc;
	/* frame ids of a sample (leaf first, root frame last) -> stack */
	struct sf_perf_acache sc;
	struct sf_sbuf name, tmp, modbuf, pname, comm, ev_filter;
	/* Record cache (keyed by the whole text of an event's stack
	 * lines): the stack lines of the current event are
	 * kept in `rec` and looked up once at the end of the event; only a
	 * record not seen before is parsed line by line (`pend` holds each
	 * line's place and number for that). */
	struct rec_cache recc;
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
				  * current event's, or REC_NONE: they
				  * are then not copied to `frames`
				  * (nframes is 0), and the stack is the
				  * record's last one when the root is
				  * (no hashing of the frames) */
	bool warned;             /* a stack line was skipped with a warning */
	uint64_t cur_line;       /* line number of the stack line at hand */
	sf_frame_id *frames;     /* current event, leaf first */
	size_t nframes, cap_frames;
	/* the current event is a side-band record line's, which perl reads
	 * as an event without a type (fmt_perf.c's on_event_line and
	 * end_event); its line */
	bool rec_event;
	uint64_t rec_lineno;
	/* current event */
	bool in_event, skip, java;
	int64_t pid, tid, time;
	double period;
	/* last root frame and thread, reused while they repeat;
	 * names_new: comm and pname were set since the last sample, so
	 * they may differ from last_comm and last_pname */
	bool names_new;
	struct sf_sbuf last_pname;
	sf_frame_id pname_frame;
	bool have_pname_frame;
	struct sf_sbuf last_comm;
	int64_t last_pid, last_tid;
	sf_thread_idx last_thread;
	bool have_thread;
	/* (pid, tid) -> the model's thread for them, direct-mapped by tid
	 * (THREAD_CACHE_BITS): fmt_perf.c's thread_of; `gen`, the value
	 * of comm_gen when the thread's name was last found equal to
	 * `comm` */
	struct thread_slot {
		int64_t pid, tid;
		uint64_t gen;
		sf_thread_idx thread;
		bool used;
	} threads[1 << THREAD_CACHE_BITS];
	/* counts the times `comm` was set: while it stays, so do its bytes */
	uint64_t comm_gen;
	uint32_t type;
	bool have_type;
	/* the type is ("samples", "count"): no kept event had a period yet */
	bool type_untyped;
	bool type_own;           /* that type is the profile's only one, made
				  * by this read: it may be renamed */
	bool have_event_prop;    /* "perf.event" set (first kept typed event) */
	double *w;
	const char *k_kernel, *k_jit, *k_process;
};

struct line_key {
	const char *s;
	size_t n;
	bool java;
};

/* ----- perf_lines.c ----- */

/* Room in st->frames for `more` frames and the root frame. */
int sf_perf__frames_room(struct perf_state *st, size_t more);

/* The cache key's hash: the text's, told apart by the java flag. */
uint64_t sf_perf__key_hash(const struct line_key *key);

/* sf_idx_find's equality for a line_cache `c` and a line_key `k`. */
bool sf_perf__line_eq(const void *c, uint32_t id, const void *k);

/* Append the frames a cache entry stands for to the current event. */
int sf_perf__append_cached(struct perf_state *st, const struct line_cache *c,
			   const struct line_ent *e);

/* Append the frames of a stack line to the current event. */
int sf_perf__on_stack_line(struct perf_state *st, const char *l, size_t n);

/* ----- perf_records.c ----- */

/* Drop the stack lines kept for the current event. */
void sf_perf__rec_clear(struct perf_state *st);

/* A stack line of the current event (perl mode): keep it for the end. */
int sf_perf__defer_stack_line(struct perf_state *st, const char *l, size_t n,
			      uint64_t lineno);

/* The event's stack lines are complete: one lookup for all of them. */
int sf_perf__rec_flush(struct perf_state *st);

/* Append the frames of record `id` to the current event. */
int sf_perf__rec_frames(struct perf_state *st, uint32_t id);

/* Right after an event line: take a stack seen before without reading
 * its lines (perf_records.c says when); 1 when its blank line was taken
 * too, so the event is complete. */
int sf_perf__rec_skip_seen(struct perf_state *st);

#endif
