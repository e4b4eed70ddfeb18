/*
 * json_read.h - internal to the native JSON reader: its state (struct rd),
 * shared by json_events.c (yajl's events and what each member means in
 * the model) and json_fast.c (the read loop and the layout fast path,
 * which calls json_events.c, never the other way).
 */
#ifndef SF_JSON_READ_H
#define SF_JSON_READ_H

#include "json.h"

#include <string.h>
#include <yajl/yajl_parse.h>

/*
 * Reading streams.  yajl reports events (a key, a number, the start or end
 * of an array ...) as it parses each 256 KiB piece of the input, and each
 * element of each section -- a frame, a stack node, a sample -- goes into
 * the model as soon as its closing bracket arrives.  Besides the model,
 * only the index maps (file index -> model id) for sample types, threads,
 * frames, stack nodes and label sets are held, so in aggregated mode
 * memory does not grow with the number of samples.
 *
 * Members may come in any order.  A section whose references cannot be
 * resolved yet (stacks before frames; samples before sample_types,
 * threads, stacks or label_sets) is kept as raw text while the rest of the
 * document is read, and parsed again at the end: that slower path holds
 * the section's text in memory.
 *
 * Depths: the root object is depth 1, a section (or meta) depth 2, an
 * element of a section depth 3, a [key, value] pair (or a meta.period_type
 * member) depth 4.  A value of the wrong kind anywhere is skipped as a
 * whole subtree and remembered as invalid, so a message names the element
 * as the json-c reader did.
 */

#define JSON_CHUNK (256u << 10)

enum jkey {
	K_OTHER, K_FORMAT, K_VERSION, K_META, K_TYPES, K_THREADS, K_FRAMES,
	K_STACKS, K_LABELS, K_SAMPLES, NKEYS
};


/* Members of the objects inside sections and meta. */
enum jmember {
	M_OTHER,
	/* frames */
	M_NAME, M_MODULE, M_FILE, M_KIND, M_LINE, M_COLUMN, M_AUX, M_ADDRESS,
	M_INLINE, M_OFFSET,
	/* threads (also M_NAME) */
	M_PID, M_TID, M_INPUT,
	/* sample types and meta.period_type */
	M_TYPE, M_UNIT,
	/* meta */
	M_SOURCE, M_PERIOD_TYPE, M_PERIOD, M_START, M_DURATION, M_DEFAULT,
	M_PROPS,
};


enum vkind { V_NULL, V_FALSE, V_TRUE, V_NUM, V_STR, V_CONTAINER };

struct u32v {
	uint32_t *v;
	size_t n, cap;
	bool moved;                 /* some v[i] != i; until then v is
				     * not written (see u32v_at) */
};

/*
 * Map entry i.  A map of frames or stack nodes read into an empty
 * profile is the identity (the file's index is the model's id) unless
 * the file repeats one.  While it is, nothing is stored: no array of the
 * file's size to fault in (4 bytes a stack node), and no lookup, a
 * random read for every stack node (a cache miss per node on a
 * timeline's 50,000 frames).
 */
static inline uint32_t u32v_at(const struct u32v *a, size_t i)
{
	return a->moved ? a->v[i] : (uint32_t)i;
}

/* Room for n entries in all (v is a buffer of sf_big_resize, a mapping
 * of its own from 256 KiB: the room of a large map is address space
 * until it is written).  0, or -1 when out of memory. */
int sf_json__u32v_reserve(struct u32v *a, size_t n);

/*
 * The decimal digits that p[0..8) starts with: how many (8: all of them,
 * or so many that the caller counts them itself), and with fewer than 8
 * their value in *out.  Eight bytes at once, without a branch per digit:
 * the writer's numbers are short and of every length, and a loop ending
 * at a different digit each time is a mispredicted branch per number.
 */
static inline size_t digits8(const unsigned char *p, uint64_t *out)
{
	uint64_t x, t, nd;

	memcpy(&x, p, 8);
	if (__BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__)
		x = __builtin_bswap64(x);
	t = x ^ 0x3030303030303030u;  /* a digit byte is now 0..9 */
	/* the high bit of each byte that is not 0..9 (a carry out of a
	 * byte >= 0x8a only reaches bytes after it, which do not count) */
	nd = ((t + 0x7676767676767676u) | t) & 0x8080808080808080u;
	if (!nd)
		return 8;
	nd = (size_t)__builtin_ctzll(nd) >> 3;
	if (!nd)
		return 0;
	/* the digits, most significant first, right-aligned behind
	 * leading zeros: "123" is 00000123, summed pairwise */
	t <<= 8 * (8 - nd);
	t = (t * 10 + (t >> 8)) & 0x00ff00ff00ff00ffu;
	t = (t * 100 + (t >> 16)) & 0x0000ffff0000ffffu;
	t = (t * 10000 + (t >> 32)) & 0xffffffffu;
	*out = t;
	return nd;
}

/* An element of a "samples" or "stacks" section of the plainest kind,
 * as the fast path (json_fast.c) and the thread reading ahead
 * (json_ahead.c) parse it: values 0..3, the weights, and which of
 * values 0..3 are integers (okm) or null (nullm). */
#define FAST_TYPES 4           /* more sample types: the generic loop */

struct fast_sample {
	int64_t v[4];
	double wf[FAST_TYPES];
	uint32_t n, okm, nullm;
	uint32_t *slot;            /* its hint slot, or NULL */
	const unsigned char *end;  /* just after its ']' */
};

/* The element after its '[' at p, if it is of the plainest kind (see
 * json_fast.c, "Samples are the bulk"): the byte after its ']', or NULL
 * (nothing stored that the generic loop would not overwrite).  Values
 * 4 .. 4 + nw are the weights (nw 0 in a stack node, whose values past
 * the fourth are not kept). */
static inline const unsigned char *plain_elem(const unsigned char *p,
					      const unsigned char *e,
					      size_t maxnum, size_t nw,
					      struct fast_sample *s)
{
	s->okm = s->nullm = 0;
	for (uint32_t i = 0;; i++) {
		if (p >= e)
			return NULL;
		if (*p == 'n') {
			if (e - p < 4 || memcmp(p, "null", 4) ||
			    (i >= 4 && i - 4 < nw))
				return NULL;
			if (i < 4) {
				s->v[i] = 0;
				s->nullm |= 1u << i;
			}
			p += 4;
		} else {
			const unsigned char *d = p;
			uint64_t x = 0;
			size_t nd = e - p >= 8 ? digits8(p, &x) : 8;
			if (nd < 8) {
				p += nd;
			} else {
				while (p < e && (unsigned)(*p - '0') < 10)
					x = x * 10 + (unsigned)(*p++ - '0');
				nd = (size_t)(p - d);
			}
			if (!nd || nd > 18 || nd > maxnum ||
			    (*d == '0' && nd > 1))
				return NULL;
			if (i < 4) {
				s->v[i] = (int64_t)x;
				s->okm |= 1u << i;
			} else if (i - 4 < nw) {
				s->wf[i - 4] = (double)x;
			}
		}
		if (p >= e)
			return NULL;
		if (*p == ']') {
			s->n = i + 1;
			return p + 1;
		}
		if (*p++ != ',')
			return NULL;
	}
}

/* An integer member: last one wins, as in a json-c object. */
struct ival {
	bool set, ok;
	int64_t v;
};

/* A section kept as text until its references can be resolved. */
struct deferred {
	unsigned char *text;
	size_t len, cap;
	uint64_t line;             /* line of text[0] */
};

struct rd {
	struct sf_profile *p;
	struct sf_ctx *ctx;
	const char *name;
	yajl_handle h;
	const unsigned char *chunk; /* the piece being parsed; NULL at the
				     * end */
	uint64_t line0;             /* line number of chunk[0] (or the end) */
	int rc;                     /* the error a callback stopped on */
	uint64_t depth;             /* open arrays and objects */
	uint64_t skip;              /* skipping the container opened at this
				     * depth (0: not skipping) */
	enum jkey key;              /* top-level member being read */
	enum jmember sub;           /* member being read below it */
	bool ended;                 /* the root object is closed */
	bool last_nl;               /* the input read so far ends in LF */
	uint64_t end_line;
	bool first_input;           /* the profile had no samples before */
	bool replaying;             /* parsing a deferred section */
	bool seen[NKEYS], done[NKEYS];
	bool format_ok, version_ok;

	/* file index -> model id */
	struct u32v tmap, thmap, fmap, smap, lmap;
	size_t ntypes;              /* sample types in the file */

	struct deferred def[NKEYS];
	enum jkey capturing;        /* section being kept as text */
	size_t cap_from;            /* where it starts in chunk */

	/* the element being read */
	size_t idx;                 /* its index in its section */
	uint32_t n;                 /* values seen in an array element */
	uint32_t okm, nullm;        /* bit k: value k is an integer / null */
	int64_t v[4];
	bool wbad;                  /* a weight is not a finite number */
	double *wf;                 /* weights by file type */
	double *w;                  /* weights by model type */
	size_t nw;
	const char *s[4];           /* strings: name, module, file, kind;
				     * type, unit; thread name */
	bool name_nul;
	struct ival iv[4];          /* line, column, aux, offset; pid, tid,
				     * input */
	int addr;                   /* 0 none, 1 valid, -1 invalid */
	uint64_t addr_v;
	bool inl;

	/* [key, value] pairs: a label set, meta.properties */
	struct sf_label *lab;
	size_t nlab, labcap;
	uint32_t pn;
	bool pbad;
	const char *pk, *pv;

	/* meta */
	const char *msrc;
	bool has_dt;
	int64_t dt;

	/* the layout fast path (json_fast.c) */
	uint64_t lnum;              /* line of the next byte not yet parsed */
	bool slow;                  /* SF_JSON_SLOW: yajl only */
	bool strict;                /* SF_JSON_STRICT: leaving it is an
				     * error (a test hook) */
	bool took[NKEYS];           /* sections it has read */
	bool fast;                  /* a section is being read by it */
	size_t fast_n;              /* elements it has read in the section */
	uint64_t fast_line;         /* line of the element being read */

	/* reading ahead (json_ahead.c): the input mapped whole, or NULL */
	const unsigned char *map;
	size_t map_size;
	struct sf_json_ahead *ahead;  /* the thread, while it runs */

	/* aggregated: the sample each (stack node, thread) of the file last
	 * folded into, a hint that saves the model's hash probe
	 * (sf_profile_add_sample_hint); NULL when too large */
	uint32_t *hint;
	size_t hstride;             /* threads in the file + 1 (null) */
};

/* At most this many hints (16 MiB): O(stack nodes x threads), not
 * O(samples). */
#define HINT_MAX ((size_t)1 << 22)

extern const char *const sf_json__key_names[NKEYS];

/*
 * Reading ahead.  On a timeline the "stacks" section is most of the
 * document (60 of 78 MB), and parsing its text is about a third of
 * loading it (the reader's own CPU time fell from about 265 to 177 ms
 * when a thread parsed it); the stack tree must be built in file order
 * (a node's id depends on every node before it), the parsing need not.
 * So when the input is mapped whole, jobs (sf_jobs) are 2 or more and the
 * section's rest is at least a megabyte, a second thread parses the
 * section further on, in blocks, into [parent, frame] pairs, and the fast
 * path takes a block's pairs when it arrives at the block's first byte,
 * folding each as it would have folded the element it parsed (same
 * checks, same line numbers, same order), so the model and every message
 * are the same with or without the thread, whenever it runs.  A block is
 * taken only if every element in it is two plain integers; the thread
 * stops at the first block that is not, and the reader reads on alone.
 * The "samples" section (8 MB of a timeline, its parse about 12 ms of
 * the reader's 50-60 there) is read the same way by a thread started
 * when the fast path takes it, each block parsed into the values
 * json_fast.c's plain_batch would have parsed (plain_elem), taken only
 * if every element is of that plainest kind.
 * The reader never waits for the thread (a block not ready is parsed by
 * the reader, and the thread skips what the reader has passed), except
 * under SF_JSON_AHEAD=wait, a test hook that makes every block come from
 * the thread.  The thread reads at most 64 blocks of 32 KiB (8 KiB of
 * samples) ahead, and the reader gives back no part of the map the
 * thread may still read.
 * The thread also faults in the stack tree's entries ahead of the reader
 * (profile.h, "Room for a reader"): clearing those pages was up to a
 * fifth of loading a timeline on a busy machine.
 */
struct sf_json_ahead;

/* Start the thread on map[base, size) (base: just after the section's
 * '['), taking numbers of at most maxnum digits: the stacks section,
 * faulting in the entries of p's stack tree ahead of the reader where the
 * model can give them room (sf_profile_stack_room) and of the reader's
 * map of the file's stacks `smap` (reserved here as far), or with `samples`
 * the samples section, nw weights each.  0, or -1 (the section is too
 * short, or no thread could be made: the reader reads alone). */
int sf_json__ahead_start(struct sf_json_ahead **out, struct sf_profile *p,
			 const unsigned char *map, size_t size, size_t base,
			 size_t maxnum, bool samples, size_t nw,
			 struct u32v *smap);
/* Stop and free the thread (NULL: nothing). */
void sf_json__ahead_stop(struct sf_json_ahead *a);
/* The reader is at an element boundary at map offset pos: the offset of
 * the next block at or after pos that the thread has parsed, or SIZE_MAX
 * (none ready).  Blocks before pos are dropped. */
size_t sf_json__ahead_next(struct sf_json_ahead *a, size_t pos);
/* The pairs of that block (parent, frame, parent, frame, ...): *n pairs,
 * the block ending at map offset *end. */
const uint32_t *sf_json__ahead_pairs(const struct sf_json_ahead *a,
				     size_t *n, size_t *end);
/* The samples of that block (a samples section's thread): *n of them,
 * their hint slots NULL, which the reader may set; the block ends at map
 * offset *end. */
struct fast_sample *sf_json__ahead_samples(struct sf_json_ahead *a,
					   size_t *n, size_t *end);
/* That block is read: the thread may fill its slot again. */
void sf_json__ahead_done(struct sf_json_ahead *a);
/* The reader would give back the map below offset `to`: how far it may
 * (never what the thread reads).  a NULL: `to`. */
size_t sf_json__ahead_give(struct sf_json_ahead *a, size_t to);

/* Append x, x + 1, ..., x + m - 1 (m >= 1) to a, as m pushes would: 1,
 * or 0 (r->rc set) when out of memory. */
int sf_json__u32v_run(struct rd *r, struct u32v *a, uint32_t x, size_t m);
/* Append b[0..n) to a section kept as text: 1, or 0 (r->rc set) when
 * out of memory. */
int sf_json__def_append(struct rd *r, struct deferred *d,
			const unsigned char *b, size_t n);
/* The end of an element of a section: into the model.  0 on error. */
int sf_json__elem_end(struct rd *r);
/* Value k of an array element (a stack node or a sample). */
void sf_json__elem_field(struct rd *r, enum vkind k, const char *s, size_t n);
/* An error found at the end of the document (its last line). */
int sf_json__end_fail(struct rd *r, const char *path, const char *what);
/* Record an input error at the current place; returns 0 so a callback
 * can `return sf_json__fail(...)` to stop yajl.  `path` "" names no member;
 * `indexed` adds the index of the element being read. */
int sf_json__fail(struct rd *r, const char *path, bool indexed,
		  const char *what);
/* After the whole document: what may only be checked or done at its
 * end. */
int sf_json__finish(struct rd *r);
/* A yajl handle whose callbacks read into r; NULL when out of memory. */
yajl_handle sf_json__parser(struct rd *r);
/* The error of a failed yajl_parse or yajl_complete_parse. */
int sf_json__parse_error(struct rd *r, yajl_status st, bool at_end);
/* Free what r holds (not the model). */
void sf_json__rd_free(struct rd *r);

#endif
