/*
 * profile_int.h - internal to the model: the part of a profile that only
 * profile.c (interning, the stack tree, samples) and merge.c (merging
 * two profiles) see.
 */
#ifndef SF_PROFILE_INT_H
#define SF_PROFILE_INT_H

#include "profile.h"
#include "hash.h"

/* Strings live in arena blocks; a string is never moved or freed before
 * the profile. */
struct arena_block {
	struct arena_block *next;
	size_t used, cap;
	char data[];
};

/* a stack's child list (see the stacks section) */
struct stack_kin {
	uint32_t first;   /* first child, 0 = none, or KIN_HASHED */
	uint32_t next;    /* next sibling, 0 = none */
	uint32_t frame;   /* = the stack's frame: a sibling walk reads one
			   * array, not two */
};

struct sf_profile_internal {
	struct arena_block *arena;
	struct sf_idx strings;
	const char **strs;       /* interned strings by id */
	uint32_t *strlens;
	uint32_t *named;         /* per string: 1 + the frame with only that
				  * name (sf_profile_frame_named without a
				  * module), 0 = none yet */
	size_t nstrs;
	struct sf_idx frames;
	struct sf_idx stacks;    /* children of wide stacks (see KIN_LIST) */
	struct stack_kin *kin;   /* per stack: its child list */
	size_t cap_kin;
	struct sf_idx threads;
	struct sf_idx label_sets;
	struct sf_idx agg;       /* (stack, thread, labels) -> sample, for
				  * the keys not in agg_stack */
	uint32_t *agg_stack;     /* stack -> sample + 1 of the first key
				  * seen with that stack (0: none yet): an
				  * array lookup instead of a hash probe */
	size_t cap_agg_stack;    /* entries; a buffer of sf_big_resize (a
				  * mapping from 256 KiB, reserved by
				  * sf_profile_stack_room) */
	bool nofold;             /* exact folding: a negative weight was seen */
	bool multi;              /* exact folding kept two samples of a key */
	uint32_t max_depth;      /* the deepest stack node's depth, kept
				  * as nodes are made (sf_profile_max_depth
				  * was a pass over all of them: 18 ms of
				  * one thread on a timeline of 3.7
				  * million nodes, docs/PERFORMANCE.md,
				  * session 25) */
	bool stacks_trimmed;     /* `stacks` index and `kin` freed by
				  * sf_profile_trim */
	bool agg_trimmed;        /* agg_stack given up by
				  * sf_profile_trim_keep: rebuilt by the
				  * next sample added */
	/* for sf_profile_sums_exact: a weight that is not a non-negative
	 * integer below 2^53 was added, and the sum of all added weights */
	bool weights_inexact;
	double weights_total;
	size_t cap_frames, cap_stacks, cap_threads, cap_samples, cap_labels;
	size_t cap_sbytes[3];    /* bytes of d.samples, d.weights and
				  * d.counts (samples.c) */
	size_t cap_strs;
	size_t cap_strinfo;      /* entries of strlens and named */
	/* the last stack sf_profile_stack made, root first: its frames and
	 * the node of each prefix, so a stack sharing a prefix with it
	 * (consecutive samples usually do) skips the hash probes there */
	sf_frame_id *last_frames;
	sf_stack_id *last_nodes;
	size_t last_n, cap_last;
};

/* Make the stack tree's array *arr (d.stacks or kin, *cap entries of
 * `size` bytes) hold n entries (at least), keeping what fits: 0, or -1
 * when out of memory (nothing changed).  Those two arrays are allocated
 * only by this (profile.c says why) and freed by sf_profile_free. */
int sf_profile__nodes_resize(void *arr, size_t *cap, size_t n, size_t size);
/* The same, for `need` entries at least, doubling (no change when they
 * fit already): 0, or -1 when out of memory (nothing changed). */
int sf_profile__nodes_grow(void *arr, size_t *cap, size_t need, size_t size);

/* The arrays of samples (samples.c says why they are big buffers): make
 * them hold n samples (at least), keeping what fits, 0 or -1 when out of
 * memory; widen each row of d.weights from `old` types to n, the new
 * weights 0, 0 or -1 (nothing changed); free them.  Those three arrays
 * are allocated and freed only by these and sf_profile_sample_room. */
int sf_profile__samples_resize(struct sf_profile *p, size_t n);
int sf_profile__samples_widen(struct sf_profile *p, size_t old, size_t n);
void sf_profile__samples_free(struct sf_profile *p);
/* The same, with their written parts kept in ctx for a later stage
 * (sf_big_keep_used; freed without ctx). */
void sf_profile__samples_keep(struct sf_profile *p, struct sf_ctx *ctx);
/* Give up the child lists (kin) or the samples' index by stack
 * (agg_stack): their written part kept in ctx for a later stage
 * (sf_big_keep_used), freed without ctx (profile_drop.c). */
void sf_profile__keep_kin(struct sf_profile *p, struct sf_ctx *ctx);
void sf_profile__keep_agg(struct sf_profile *p, struct sf_ctx *ctx);
/* agg_stack again after sf_profile_trim_keep gave it up, as the samples
 * added made it: 0, or -1 when out of memory (nothing changed). */
int sf_profile__agg_rebuild(struct sf_profile *p);

/* Add a sample standing for `count` added samples (1, or a folded
 * sample of another profile being merged): folded into an equal one
 * when aggregating.  `hint`, when not NULL, is the caller's guess of
 * that sample (sf_profile_add_sample_hint). */
int sf_profile__add_sample(struct sf_profile *p, struct sf_ctx *ctx,
			   sf_stack_id stack, sf_thread_idx thread,
			   sf_labels_id labels, int64_t time,
			   const double *weights, uint32_t *hint,
			   uint64_t count);

/* sf_profile_merge with every stack of src placed anew (the transforms
 * of filter.h): src's stack nodes are visited in order (a parent before
 * its children) and `place` says where node s goes, given *state, its
 * parent's state: >= 0 a stack of dst (the root is 0), < 0 a value of
 * the callback's own ("waiting": the node is not placed yet).
 *   SF_PLACE_KEEP  under the parent's dst stack (at the root when the
 *                  parent waits)
 *   SF_PLACE_ROOT  at the root: the frames above it are gone
 *   SF_PLACE_SKIP  where its parent is: its time goes to the caller
 *   SF_PLACE_DROP  nowhere: the samples of it and its subtree are dropped
 *   SF_PLACE_WAIT  not placed; *state (negative) is its state
 * `root` is the state of the empty stack (0, or a waiting value).  A
 * sample whose stack is not placed is dropped.  Threads keep their
 * input.  place NULL: sf_profile_merge. */
enum sf_place {
	SF_PLACE_KEEP, SF_PLACE_ROOT, SF_PLACE_SKIP, SF_PLACE_DROP,
	SF_PLACE_WAIT
};
typedef enum sf_place (*sf_place_fn)(void *arg, const struct sf_profile *src,
				     sf_stack_id s,
				     const struct sf_profile *dst,
				     int64_t *state);
int sf_profile__merge_placed(struct sf_profile *dst,
			     const struct sf_profile *src, struct sf_ctx *ctx,
			     sf_place_fn place, void *arg, int64_t root);

#endif
