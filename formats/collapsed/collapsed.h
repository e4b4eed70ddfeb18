/*
 * collapsed.h - what the collapsed writer's files share: the sanitised
 * names and the walk's view of the samples (fmt_collapsed.c), the names'
 * keys in byte order (collapsed_ranks.c), the writer by levels that draws
 * on them (collapsed_levels.c) and the thread that runs its parts
 * (collapsed_crew.c).  fmt_collapsed.c calls collapsed_levels.c, never
 * the other way; both call collapsed_ranks.c; collapsed_levels.c calls
 * collapsed_crew.c.
 */
#ifndef SF_COLLAPSED_H
#define SF_COLLAPSED_H

#include "profile.h"
#include "hash.h"
#include "io.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

/* A distinct sanitised name. */
struct oname {
	const char *txt;
	uint32_t len;
};

struct onames {
	struct oname *names;
	size_t nnames, capnames;
	struct sf_idx name_idx;
	char **owned;            /* sanitised copies we allocated */
	size_t nowned, capowned;
	uint32_t *frame_name;    /* frame -> name id */
};

/*
 * What the walk reads.  A context is a set of samples laid on the stack
 * tree: a weight per node and two flags (a line ends here; a line goes on
 * below).  Only --thread-prefix makes contexts (without it level_emit
 * lays the samples on records of its own).  Context 0 holds the samples
 * written without a prefix; the threads are grouped by their written
 * label, and context 1 holds the samples of the one label group being
 * walked: its frames sit one level below the label, the same stack nodes
 * as in context 0 would be a level too high.
 */
enum { F_LINE = 1, F_BELOW = 2 };

struct wctx {
	double *weight;
	unsigned char *flags;
};

/* A child in the children index, with all the walk reads of it: its
 * sanitised name, its keys' ranks, where its own children are and its
 * flags in context 0.  The walk is a chain of dependent loads; expanding
 * a node so reads one run of these, where it read each child's flags,
 * frame, name id, name and text at scattered places of arrays as large as
 * the tree or the names (those cache misses were most of writing a
 * timeline whose samples are each their own stack).  The index is built
 * in one pass whose loads do not depend on each other.  Also the entries
 * of the top level that are not stack nodes (struct walk's `tops`). */
struct kid {
	const char *txt;
	double weight0;            /* its weight in context 0 */
	uint32_t len : 30;
	uint32_t flags0 : 2;       /* its flags in context 0 */
	uint32_t node;             /* stack node; label group in `tops` */
	uint32_t key[2];           /* rank of the keys name, name ";" */
	uint32_t kbeg, kend;       /* its children: kids[kbeg .. kend) */
};

struct walk {
	const struct sf_profile *p;
	const struct onames *names;
	uint32_t ty;
	struct wctx c[2];
	struct kid *kids;          /* the children of each node, a run
				    * per node */
	struct kid *tops;          /* [0]: node 0's own line (the empty
				    * line); [1 + g]: label group g, whose
				    * children are node 0's */
	uint32_t root_beg, root_end;   /* node 0's children */
	uint32_t *krank;           /* per name id n: the rank of key n
				    * (2n) and of key n ";" (2n + 1) in
				    * byte order */
	struct rank_job *ranking;  /* krank being made (collapsed_ranks.c) */
	/* --thread-prefix: label groups */
	bool by_pid;               /* --pid-prefix: the process labels */
	size_t ngroups;
	uint32_t *group_name;      /* name id per group */
	uint32_t *gstart;          /* group g's samples: gsamples[gstart[g]
				    * .. gstart[g + 1]) */
	uint32_t *gsamples;
	double *gempty;            /* weight of its empty stacks */
	unsigned char *gflags;     /* F_LINE: has an empty stack, F_BELOW:
				    * has a non-empty one */
	size_t filled;             /* group in context 1, or SIZE_MAX */
};

static inline double sf_collapsed__weight(const struct walk *w, size_t i)
{
	return w->p->d.ntypes ? sf_weight(w->p, i, w->ty) : 1;
}

/*
 * The keys' ranks (struct walk's krank, collapsed_ranks.c).
 * sf_collapsed__ranks_start ranks the two keys of every name in
 * w->names: with two jobs or more and many names on a thread of its own,
 * which reads the names and writes krank only, so that the writer's first
 * passes (the level records) run meanwhile; no name may be added then.
 * sf_collapsed__ranks_wait returns once krank is made (at once when no
 * thread runs): call it before reading krank and, in any case, before
 * freeing the names or krank.  Returns 0, or SF_ENOMEM (nothing runs,
 * krank may be set: free it).
 */
int sf_collapsed__ranks_start(struct walk *w, struct sf_ctx *ctx);
void sf_collapsed__ranks_wait(struct walk *w);

/*
 * The crew (collapsed_crew.c): one more thread that runs the level
 * writer's parts.  sf_collapsed__crew_start returns it, or NULL when no
 * thread can be made (every part then runs on the caller's thread).
 * sf_collapsed__crew_run runs fn(arg, k) for each k in [0, ntasks), each
 * on whichever of the caller's thread and the crew's is free first, and
 * returns when all have run (with c NULL or one task: all on the
 * caller's thread).  sf_collapsed__crew_stop ends the thread and frees c
 * (NULL: nothing).
 */
struct crew;
struct crew *sf_collapsed__crew_start(void);
void sf_collapsed__crew_run(struct crew *c, size_t ntasks,
			    void (*fn)(void *arg, size_t k), void *arg);
void sf_collapsed__crew_stop(struct crew *c);

/*
 * The level records' memory (collapsed_levels.c), made before the names
 * are: with two jobs or more a thread of its own touches each of its
 * fresh pages while this one sanitises and ranks the names, so that the
 * kernel's faults and clearing of those pages (about 20 ms of a
 * timeline's 75 MB) are off the writer's thread.  sf_collapsed__level_emit
 * waits for that thread before it writes a record, and takes the memory
 * over; sf_collapsed__level_mem_free, called after it in any case (or
 * instead of it), waits and frees what is left.
 */
struct level_mem {
	void *rec;                 /* one record per stack node */
	size_t rec_cap;            /* its bytes, for sf_big_free */
	uint32_t *place;           /* one place per stack node */
	size_t place_cap;          /* its bytes, for sf_big_free */
	size_t n;                  /* stack nodes */
	pthread_t toucher;
	bool touching;             /* the thread runs, or ran unjoined */
};

/* Returns 0, or SF_ENOMEM (nothing to free then). */
int sf_collapsed__level_mem(struct level_mem *m, const struct sf_profile *p,
			    struct sf_ctx *ctx);
void sf_collapsed__level_mem_free(struct level_mem *m);

/* Write the lines of the samples without a thread prefix, level by
 * level (collapsed_levels.c), in the memory `m`; `empty_name` is the id
 * of "". */
int sf_collapsed__level_emit(struct walk *w, struct level_mem *m,
			     struct sf_output *out, uint32_t empty_name,
			     struct sf_ctx *ctx);

#endif
