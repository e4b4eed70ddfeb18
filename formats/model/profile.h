/*
 * profile.h - the one in-memory profile every reader fills and every writer
 * and analysis reads.
 *
 * Shape
 *   strings   interned once; a `const char *` from the profile is stable for
 *             the profile's life and equal strings are equal pointers.
 *   frames    interned once by all their fields (name, module, file, line,
 *             column, address, inline flag, kind, aux, offset).
 *             sf_frame_id indexes p->frames.
 *   stacks    a prefix tree, root (outermost caller) at the top: a stack is
 *             a node id; node 0 is the empty stack; every other node is
 *             (parent, frame).  Memory grows with unique stacks, not with
 *             samples.
 *   samples   stack, thread, optional timestamp, one weight per sample type,
 *             optional label set.
 *   threads   (pid, tid, name), in order of first appearance; a sample's
 *             thread is an index into p->threads or SF_NO_THREAD.
 *   labels    interned sets of key/value string pairs (pprof labels, a
 *             captured thread's state, Sampler record words that are not
 *             "1 0 1"); 0 is the empty set.
 *   meta      source format, period, start time, duration, free-form
 *             key/values.
 *
 * Aggregated mode (sf_profile_set_aggregate): samples with the same
 * (stack, thread, labels) fold into one sample whose weights are summed,
 * and timestamps are dropped.  Used when the output needs no time order, so
 * memory is O(unique frames + unique stacks).  Each sample then carries a
 * fold count (d.counts, sf_sample_count): how many samples added to the
 * profile it stands for, so "how many samples" survives folding (sfanalyze
 * prints it).  Writers write one entry per sample of the model with its
 * summed weight; they do not expand counts (a sum cannot be split back
 * into the original weights), and the writers that keep sample order
 * (needs_order) are never given a folded profile by sfconv.
 *
 * Exact folding (sf_profile_set_fold_exact, for analyses that sum weights
 * exactly): a sample folds only when every weight sum is exact in double,
 * so the folded weights are the exact sums of the originals; otherwise it
 * is kept as one more sample with the same key (later samples fold into
 * the newest one).  After a sample with a negative weight nothing folds
 * any more, so sample i is then raw sample 1 + (the counts before i).
 *
 * Weights are doubles.  Integers up to 2^53 are exact; decimal fractions in
 * text inputs are read to the nearest double, and the call-graph analysis
 * converts each double exactly to a rational (see docs/formats.md).
 *
 * Ownership: the profile owns everything reachable from it.  Functions that
 * can fail return 0 or a negative sf_code and set ctx->err.
 */
#ifndef SF_PROFILE_H
#define SF_PROFILE_H

#include "sf.h"
#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef uint32_t sf_frame_id;
typedef uint32_t sf_stack_id;
typedef uint32_t sf_thread_idx;
typedef uint32_t sf_labels_id;

#define SF_STACK_EMPTY ((sf_stack_id)0)
#define SF_NO_THREAD ((sf_thread_idx)UINT32_MAX)
#define SF_NO_TIME INT64_MIN
#define SF_NO_ID INT64_MIN        /* a thread or process id that is unknown */
#define SF_NO_ADDR UINT64_MAX
#define SF_NO_OFFSET UINT64_MAX

enum sf_frame_flags {
	SF_FRAME_INLINE = 1u << 0,   /* inlined into its caller */
	SF_FRAME_HAS_AUX = 1u << 1,  /* `aux` holds a value to keep */
};

struct sf_frame {
	const char *name;      /* never NULL; may be "" */
	const char *module;    /* library or object file, NULL if unknown */
	const char *file;      /* source file, NULL if unknown */
	uint32_t line;         /* 0 if unknown */
	uint32_t column;       /* 0 if unknown */
	uint64_t address;      /* SF_NO_ADDR if unknown */
	const char *kind;      /* NULL, or a short word: "kernel", "jit",
				* "inline", "lisp", "foreign", ... */
	uint32_t flags;
	uint32_t aux;          /* format-specific word kept for round trips
				* (Sampler's symbol `unknown` field) */
	uint64_t offset;       /* bytes from the start of the function to
				* `address` (macOS sample's "+ 2567"), so
				* two return addresses in one function read
				* as such; SF_NO_OFFSET if unknown */
};

struct sf_stack_node {
	sf_stack_id parent;    /* SF_STACK_EMPTY for a root frame */
	sf_frame_id frame;
	uint32_t depth;        /* number of frames, >= 1 (0 for node 0) */
};

struct sf_thread {
	int64_t pid;           /* SF_NO_ID if unknown */
	int64_t tid;           /* SF_NO_ID if unknown */
	const char *name;      /* NULL if unknown */
	uint32_t input;        /* which input file it came from (merging) */
};

struct sf_sample {
	sf_stack_id stack;
	sf_thread_idx thread;
	sf_labels_id labels;
	int64_t time;          /* ns since meta.start_time or absolute;
				* SF_NO_TIME if unknown */
};

struct sf_label {
	const char *key;
	const char *value;
};

struct sf_label_set {
	uint32_t n;
	const struct sf_label *labels;   /* sorted by key, then value */
};

struct sf_sample_type {
	const char *type;      /* "samples", "cpu", "wall", "alloc_space" ... */
	const char *unit;      /* "count", "nanoseconds", "milliseconds",
				* "bytes", ... */
};

struct sf_meta {
	const char *source_format;   /* name of the format read first */
	struct sf_sample_type period_type; /* NULLs if none */
	double period;               /* 0 if unknown */
	int64_t start_time;          /* ns since the epoch, SF_NO_TIME */
	int64_t duration;            /* ns, SF_NO_TIME if unknown */
	uint32_t default_type;       /* index into sample_types */
	size_t nprops;
	struct sf_label *props;      /* free-form, in insertion order */
};

struct sf_profile;   /* opaque for the hash tables; fields below are
		      * public and read-only for users */

struct sf_profile_data {
	struct sf_frame *frames;
	size_t nframes;
	struct sf_stack_node *stacks;    /* stacks[0] is the empty stack */
	size_t nstacks;
	struct sf_thread *threads;
	size_t nthreads;
	struct sf_sample *samples;
	size_t nsamples;
	double *weights;                 /* nsamples * ntypes, row-major */
	struct sf_sample_type *types;
	size_t ntypes;
	struct sf_label_set *label_sets; /* label_sets[0] is the empty set */
	size_t nlabel_sets;
	struct sf_meta meta;
	bool has_time;                   /* some sample has a timestamp */
	bool aggregated;
	uint32_t input;                  /* index of the input being read */
	/* added after the fields above: */
	uint64_t *counts;                /* per sample: how many samples added
					  * it stands for (>= 1); NULL when
					  * every sample stands for one (not
					  * aggregated) */
	uint64_t nadded;                 /* samples added in all */
	bool fold_exact;
	bool drop_zero;                  /* sf_profile_set_drop_zero */
};

/* The profile; `d` is everything a writer or analysis reads. */
struct sf_profile {
	struct sf_profile_data d;
	struct sf_profile_internal *in;  /* hash tables, arenas */
};

int sf_profile_new(struct sf_profile **out, struct sf_ctx *ctx);
void sf_profile_free(struct sf_profile *p);

/* Fold samples on (stack, thread, labels) from now on; must be called
 * before the first sample is added. */
void sf_profile_set_aggregate(struct sf_profile *p, bool on);

/* In aggregated mode, fold only when the weight sums are exact (see the
 * top of this file); must be called before the first sample is added. */
void sf_profile_set_fold_exact(struct sf_profile *p, bool on);

/* Leave out, from now on, every sample added whose weights are all zero
 * (it is not stored, folded or counted in nadded; its stack and frames
 * are still interned).  For outputs that fold samples into stacks with
 * weights, and for reports, where such a sample would only print as a
 * 0 line or row; pprof leaves them out the same way (docs/formats.md,
 * "All-zero samples").  Must be called before the first sample is
 * added. */
void sf_profile_set_drop_zero(struct sf_profile *p, bool on);

/* Mark the start of input number `index` (0, 1, ...): threads of
 * different inputs are kept apart even when their ids are equal. */
void sf_profile_begin_input(struct sf_profile *p, uint32_t index);

/* Strings.  Returns the interned copy, or NULL on allocation failure
 * (ctx->err set).  sf_profile_strn takes a length, so names may hold any
 * byte, NUL included only if a format ever needs it. */
const char *sf_profile_strn(struct sf_profile *p, struct sf_ctx *ctx,
			    const char *s, size_t len);
const char *sf_profile_str(struct sf_profile *p, struct sf_ctx *ctx,
			   const char *s);

/* Frames.  `f` holds the fields; its strings need not be interned (they
 * are interned here).  Returns 0 and the id in *out. */
int sf_profile_frame(struct sf_profile *p, struct sf_ctx *ctx,
		     const struct sf_frame *f, sf_frame_id *out);
/* Shorthand: a frame with only a name (and an optional module). */
int sf_profile_frame_named(struct sf_profile *p, struct sf_ctx *ctx,
			   const char *name, size_t len, const char *module,
			   sf_frame_id *out);
/* A frame template with every field unknown. */
void sf_frame_init(struct sf_frame *f);

/* Stacks.  `frames` holds n frame ids, root first unless `leaf_first`.
 * Fails with SF_ELIMIT beyond ctx->limits.max_depth. */
int sf_profile_stack(struct sf_profile *p, struct sf_ctx *ctx,
		     const sf_frame_id *frames, size_t n, bool leaf_first,
		     sf_stack_id *out);
/* One more frame under `parent` (parent = caller). */
int sf_profile_stack_push(struct sf_profile *p, struct sf_ctx *ctx,
			  sf_stack_id parent, sf_frame_id frame,
			  sf_stack_id *out);
/* n frames pushed as a chain, each under the one before, the first under
 * the newest stack (d.nstacks - 1): the same stacks, ids and child lists
 * as n calls of sf_profile_stack_push, the new ids d.nstacks .. d.nstacks
 * + n - 1.  False, with nothing done and no error set, where one of those
 * pushes would fail (a limit, no memory): push them one by one then. */
bool sf_profile_stack_chain(struct sf_profile *p, const struct sf_ctx *ctx,
			    const sf_frame_id *frames, size_t n);
/* A hint for a reader that knows its next pushes ahead of time: bring
 * into the cache what sf_profile_stack_push(p, ctx, parent, frame) will
 * read to find whether `parent` already has that child.  Call it with
 * stage 0 some pushes ahead, then with stage 1 and then stage 2 fewer
 * pushes ahead (each stage follows what the one before fetched).  It
 * reads only; a parent that does not exist yet, or is the newest stack
 * (which has no children to look up), is ignored.  Nothing but speed
 * depends on it. */
void sf_profile_stack_prefetch(const struct sf_profile *p,
			       sf_stack_id parent, sf_frame_id frame,
			       int stage);
/* A reader's estimate that about `n` more stacks are coming (e.g. its
 * sample count): the index of the stack tree is sized for them at once,
 * instead of being rehashed at every doubling.  Only speed and memory
 * depend on it, never ids or output.  -1 (SF_ENOMEM) when out of memory. */
int sf_profile_reserve_stacks(struct sf_profile *p, struct sf_ctx *ctx,
			      size_t n);
/*
 * Room for a reader that adds stacks on one thread while another thread
 * makes their memory present.  Every new stack takes an entry in each of
 * the stack tree's two arrays (d.stacks and an internal one) and, in an
 * aggregated profile, of the index of its first sample (internal), and
 * each of their pages is fresh memory, zeroed by the kernel at the first
 * write:
 * on a timeline of 3.7 million nodes, 90 MB, up to a fifth of loading's
 * time on a busy machine.  sf_profile_stack_room gives the arrays room
 * for n more stacks at once, in address space only (no page touched),
 * so that they do not move while at most n are added, and fills *room;
 * another thread may then call sf_stack_room_fill to fault in the
 * entries of stacks [from, to) ahead of the pushes, until the reader
 * stops adding stacks or has added n.  -1 (nothing reserved; the arrays
 * grow as before) when the room would not be a mapping of its own
 * (sf_big_reserve).  Only speed and memory depend on it.
 */
struct sf_stack_room {
	void *mem[3];           /* the arrays (the third may be NULL) */
	size_t size[3];         /* bytes an entry */
	size_t cap[3];          /* bytes reserved */
};
int sf_profile_stack_room(struct sf_profile *p, size_t n,
			  struct sf_stack_room *room);
void sf_stack_room_fill(const struct sf_stack_room *room, size_t from,
			size_t to);
/* The same for the samples (samples.c): room for n more in the arrays
 * of samples, weights and counts at once, reserved as address space, in
 * *room for sf_stack_room_fill to fault in the entries of samples [from,
 * to) ahead of the reader, while it adds at most n samples and neither
 * adds a sample type nor changes the aggregation.  -1 when there is no
 * sample type yet or the room would not be a mapping of its own (nothing
 * depends on it but speed and memory). */
int sf_profile_sample_room(struct sf_profile *p, size_t n,
			   struct sf_stack_room *room);
/* Give back memory that only adding stacks needs (the index of the
 * stack tree, rebuilt by the next sf_profile_stack_push, and spare room):
 * for a caller that has finished loading and only reads the profile. */
void sf_profile_trim(struct sf_profile *p);   /* NULL: nothing */
/* The same, with the stack tree's child lists and the samples' index by
 * stack kept in ctx for a writer to take as its own memory (sf_big_keep,
 * sf_big_take): on a large tree tens of MB of pages that are faulted in
 * already.  A sample added after it rebuilds the index. */
void sf_profile_trim_keep(struct sf_profile *p, struct sf_ctx *ctx);
/* Free the stack tree and the samples (d.nstacks and d.nsamples become
 * 0), the large arrays kept in ctx (sf_big_keep; freed with ctx NULL):
 * for a caller that has read them into structures of its own and needs
 * the profile's memory for those.  Strings, frames, threads, sample
 * types, label sets and metadata stay; after this the profile may only
 * be read for them, and freed (profile_drop.c). */
void sf_profile_drop_stacks(struct sf_profile *p, struct sf_ctx *ctx);
/* Fill `buf` (room for stacks[id].depth ids) with the frames, root first;
 * returns the depth. */
size_t sf_profile_stack_frames(const struct sf_profile *p, sf_stack_id id,
			       sf_frame_id *buf);
/* The largest depth of any stack (0 when there is only the root): the
 * room a buffer of one stack's frames needs. */
uint32_t sf_profile_max_depth(const struct sf_profile *p);

/* Threads: found by (input, pid, tid, name); a new one is appended. */
int sf_profile_thread(struct sf_profile *p, struct sf_ctx *ctx, int64_t pid,
		      int64_t tid, const char *name, sf_thread_idx *out);
/* Rename a thread (e.g. when a name arrives after the first sample). */
int sf_profile_thread_set_name(struct sf_profile *p, struct sf_ctx *ctx,
			       sf_thread_idx t, const char *name);

/* Sample types.  Adding a type that exists returns its index. Samples added
 * before a type existed get weight 0 for it. */
int sf_profile_sample_type(struct sf_profile *p, struct sf_ctx *ctx,
			   const char *type, const char *unit, uint32_t *out);

/* Labels: `labels` need not be sorted or interned. */
int sf_profile_labels(struct sf_profile *p, struct sf_ctx *ctx,
		      const struct sf_label *labels, size_t n,
		      sf_labels_id *out);
/* Value of `key` in a label set, or NULL. */
const char *sf_profile_label(const struct sf_profile *p, sf_labels_id id,
			     const char *key);

/* Samples.  `weights` holds one value per sample type (the profile must
 * have at least one: a reader adds its types first).  In aggregated mode
 * the sample may fold into an earlier one. */
int sf_profile_add_sample(struct sf_profile *p, struct sf_ctx *ctx,
			  sf_stack_id stack, sf_thread_idx thread,
			  sf_labels_id labels, int64_t time,
			  const double *weights);
/* The same, for a reader that sees one key (stack, thread, labels) again
 * and again: *hint (UINT32_MAX at first, one per key the reader tracks)
 * names the sample the key folded into last time and is updated; in
 * aggregated mode a right hint saves the hash probe.  A wrong or stale
 * hint is detected, never trusted: the result is always that of
 * sf_profile_add_sample. */
int sf_profile_add_sample_hint(struct sf_profile *p, struct sf_ctx *ctx,
			       sf_stack_id stack, sf_thread_idx thread,
			       sf_labels_id labels, int64_t time,
			       const double *weights, uint32_t *hint);
/* Shorthand for a profile with one sample type. */
int sf_profile_add(struct sf_profile *p, struct sf_ctx *ctx,
		   sf_stack_id stack, sf_thread_idx thread, double weight);

/* Metadata key/value (appended; a later value for the same key replaces
 * the earlier). */
int sf_profile_set_prop(struct sf_profile *p, struct sf_ctx *ctx,
			const char *key, const char *value);
const char *sf_profile_prop(const struct sf_profile *p, const char *key);

/* Weight of sample i in type t. */
static inline double sf_weight(const struct sf_profile *p, size_t i,
			       uint32_t t)
{
	return p->d.weights[i * p->d.ntypes + t];
}

/* How many added samples sample i stands for: 1 unless aggregated mode
 * folded others into it. */
static inline uint64_t sf_sample_count(const struct sf_profile *p, size_t i)
{
	return p->d.counts ? p->d.counts[i] : 1;
}

/* Make sure the profile has a sample type; adds ("samples", "count")
 * when it has none.  Returns the default type index in *out. */
int sf_profile_default_type(struct sf_profile *p, struct sf_ctx *ctx,
			    uint32_t *out);

/* Append `src` to `dst`: src's sample types, frames, stacks, threads and
 * label sets are interned into dst in src's order, then src's samples are
 * added in order (a folded sample keeps its fold count), and src's props
 * are set.  So reading an input in parts, each into its own profile, and
 * merging the parts in input order gives the same tables and samples as
 * reading it whole into dst, provided folding gives the same sums in
 * either order (see sf_profile_sums_exact).  Threads take dst's current
 * input index, as src's were made under the same one. */
int sf_profile_merge(struct sf_profile *dst, const struct sf_profile *src,
		     struct sf_ctx *ctx);
/* sf_profile_merge for a `dst` that holds nothing yet (no frames, stacks,
 * threads, samples, label sets, props or period; at most its source
 * format name and sample types src begins with), taking src's tables
 * instead of copying them: the same result without a second copy of the
 * model in memory.  src is freed either way.  Returns 1 (src untouched
 * and not freed) when dst is not that empty, else 0 or a negative code. */
int sf_profile_merge_into_empty(struct sf_profile *dst,
				struct sf_profile *src, struct sf_ctx *ctx);

/* True when every weight added to `p` so far was a non-negative integer
 * no larger than 2^53; *total is the sum of the weights added.  While
 * both hold for all parts and the total stays below 2^53, every partial
 * sum is an exact double, so folding in any order (and exact folding)
 * gives the same weights: the parallel reader's condition. */
bool sf_profile_sums_exact(const struct sf_profile *p, double *total);

/* Thread display name: "name-tid", "name", "tid" or "" into buf. */
void sf_thread_label(const struct sf_thread *t, char *buf, size_t size);
/* Display name of thread t's process, "COMM-PID" as stackcollapse-perf.pl
 * --pid writes it: COMM is the name of its main thread (tid == pid) when
 * p has it, else t's; t's own label when its pid is unknown. */
void sf_process_label(const struct sf_profile *p, const struct sf_thread *t,
		      char *buf, size_t size);
/* The COMM of sf_process_label: the name of the main thread of t's
 * process when p has it, else t's name (NULL when it has none). */
const char *sf_process_command(const struct sf_profile *p,
			       const struct sf_thread *t);

#ifdef __cplusplus
}
#endif
#endif
