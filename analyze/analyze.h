/*
 * analyze.h - reports over a profile: call tree (top-down and inverted),
 * flat table, call graph (Racket profile/analyzer semantics, see
 * docs/analyze.md, section "Call graph"), and a diff of two
 * profiles.
 *
 * Pipeline
 *   profile --(filters, weights)--> view --> report --> sf_output
 *
 * A *view* is what every report reads: the samples of one profile that
 * pass the filters, with
 *   - frames reduced to *functions*: two frames are one function iff their
 *     names are equal (docs/analyze.md, call graph 1: identity is the name);
 *   - stacks as a prefix tree of functions (node 0 = empty stack), after
 *     --hide and --collapse-recursion;
 *   - weights as exact integers: a view weight v stands for v * 2^exp,
 *     where exp is chosen so that every sample weight of the profile (a
 *     double, or a midpoint duration in half nanoseconds) is an integer.
 *     Sums are exact; the call graph divides them exactly with GMP.
 *   - samples folded on (thread, stack), kept in *processing order*:
 *     threads by increasing call-graph thread id, within a thread by first
 *     appearance in the input.  Folding equal samples keeps every order the
 *     call graph depends on (a repeated sample creates no new edge).
 *
 * Call-graph thread ids (docs/analyze.md, call graph 2.2): SF_AN_TIDS_TID uses
 * each thread's tid; SF_AN_TIDS_ORDER numbers threads 0, 1, 2 ... in order
 * of their first sample (samples without a thread are one more thread);
 * SF_AN_TIDS_AUTO is TID when every sample has a thread whose tid is known,
 * distinct and below 1024, else ORDER.
 *
 * Filters, applied in this order: --thread keeps the samples of the named
 * threads; --focus keeps samples whose stack has a frame matching one of
 * the regexes; --ignore drops samples whose stack has a matching frame
 * (both look at the original frames); --hide removes matching frames from
 * the stack (the sample stays, with a shorter, possibly empty stack);
 * --collapse-recursion merges runs of one function (A;A;A -> A).  A
 * sample that is dropped is not given to the analysis at all: it counts
 * in no total and not in the call graph's sample_number.  With
 * `timestamps`, durations are computed first, on every sample of the
 * thread, then the filters apply.
 *
 * Errors: functions return 0 or a negative sf_code with ctx->err set;
 * SF_EUSAGE for a --thread that names no thread or timestamps missing,
 * SF_ELIMIT when weights span too wide a range for the exact integers
 * (more than about 2^70 between the smallest fraction and the largest
 * weight), SF_ENOMEM.  Nothing here prints; renderers write to an
 * sf_output.
 */
#ifndef SF_ANALYZE_H
#define SF_ANALYZE_H

#include "profile.h"
#include "io.h"

#include <regex.h>
#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef __int128 sf_an_w;   /* a weight in units of 2^exp */

enum sf_an_tids { SF_AN_TIDS_AUTO, SF_AN_TIDS_TID, SF_AN_TIDS_ORDER };

struct sf_an_filter {
	const char *const *threads;  /* --thread selectors: a tid, a name
				      * or a "name-tid" label */
	size_t nthreads;
	const regex_t *focus;        /* compiled by the caller (REG_EXTENDED) */
	size_t nfocus;
	const regex_t *ignore;
	size_t nignore;
	const regex_t *hide;
	size_t nhide;
	bool collapse_recursion;
	bool timestamps;             /* weights = midpoint durations (ns) */
	uint32_t type;               /* sample type when !timestamps */
	int tids;                    /* enum sf_an_tids */
};

struct sf_an_node {
	uint32_t parent;   /* caller's node, 0 for a root frame */
	uint32_t func;     /* index into names */
	uint32_t depth;    /* frames, 0 for node 0 */
};

struct sf_an_sample {
	uint32_t node;
	uint32_t thread;   /* index into view->threads */
	sf_an_w w;
};

struct sf_an_thread {
	int64_t id;            /* call-graph thread id */
	sf_thread_idx idx;     /* profile thread, or SF_NO_THREAD */
	char label[128];       /* "name-tid", "name", "tid" or "(none)" */
};

struct sf_an_view {
	int exp;                       /* a weight v means v * 2^exp */
	const char **names;            /* function names (profile strings) */
	size_t nfuncs;
	struct sf_an_node *nodes;      /* nodes[0] is the empty stack */
	size_t nnodes;
	uint32_t maxdepth;
	struct sf_an_sample *samples;  /* folded, in processing order */
	size_t nsamples;
	uint64_t nraw;                 /* samples that passed the filters */
	struct sf_an_thread *threads;  /* increasing id; every thread of the
					* profile that has samples */
	size_t nthreads;
	int64_t max_id;                /* largest id among kept samples, -1 */
	sf_an_w total;                 /* sum of all kept weights */
	const char *type, *unit;       /* what a weight is */
};

/* Build the view of `p`.  `only`, if not NULL, keeps just the thread with
 * that call-graph id (for per-thread reports); the thread ids are those of
 * the whole profile either way. */
int sf_an_view_build(struct sf_an_view **out, const struct sf_profile *p,
		     const struct sf_an_filter *f, const int64_t *only,
		     struct sf_ctx *ctx);
void sf_an_view_free(struct sf_an_view *v);

/* The threads of `p` with samples, as the view would number them (for
 * --per-thread): *out is malloc'ed, in increasing id. */
int sf_an_threads(struct sf_an_thread **out, size_t *n,
		  const struct sf_profile *p, const struct sf_an_filter *f,
		  struct sf_ctx *ctx);

/* Value of a view weight as the nearest double. */
double sf_an_double(sf_an_w v, int exp);
/* JSON values (sf_an_tree, sf_an_flat, sf_an_cg_json, sf_an_diff) end
 * without a newline, so a caller can nest them.
 *
 * Write a view weight as a JSON number: exact when it is an integer, else
 * the nearest double. */
void sf_an_put_w(struct sf_output *o, sf_an_w v, int exp);
/* A value for text reports: an integer, else two decimals with trailing
 * zeros removed. */
void sf_an_fmt(char *buf, size_t size, double v);
/* Write `s` as a JSON string (quotes included). */
void sf_an_put_json_str(struct sf_output *o, const char *s);

/* ----- call tree ----- */

struct sf_an_tree_opts {
	bool inverted;        /* bottom-up: roots are leaf functions */
	double min_percent;   /* prune nodes below this % of the whole */
	uint32_t max_depth;   /* 0 = unlimited */
	bool json;
};
int sf_an_tree(struct sf_output *o, const struct sf_an_view *v,
	       const struct sf_an_tree_opts *opt, struct sf_ctx *ctx);

/* ----- flat table ----- */

struct sf_an_flat_opts {
	bool by_total;        /* sort by total instead of self */
	bool json;
};
int sf_an_flat(struct sf_output *o, const struct sf_an_view *v,
	       const struct sf_an_flat_opts *opt, struct sf_ctx *ctx);

/* ----- call graph ----- */

struct sf_an_cg;   /* the analysis result */

int sf_an_cg_build(struct sf_an_cg **out, const struct sf_an_view *v,
		   struct sf_ctx *ctx);
void sf_an_cg_free(struct sf_an_cg *g);
int sf_an_cg_json(struct sf_output *o, const struct sf_an_cg *g);
int sf_an_cg_text(struct sf_output *o, const struct sf_an_cg *g);

/* ----- diff ----- */

struct sf_an_diff_opts {
	bool normalize;       /* compare shares of each profile's total */
	double threshold;     /* flag |delta| above this % (0 = off) */
	bool json;
};
int sf_an_diff(struct sf_output *o, const struct sf_an_view *base,
	       const struct sf_an_view *cur,
	       const struct sf_an_diff_opts *opt, struct sf_ctx *ctx);

/* The differential call tree: the tree of `cur` (top-down, or inverted
 * with topt->inverted), each node with its base and new total and self
 * and delta (as sf_an_diff: change of share, or raw with !normalize).
 * Nodes are paths of function names; a node only `cur` reaches is marked
 * "new", one only `base` reaches "gone" (JSON "only": "new" / "base") and
 * listed under its parent after the others.  Children: reached by NEW
 * first, by decreasing new total then name, then gone ones by decreasing
 * base total then name.  topt->min_percent hides a node when its share of
 * both sides' whole is below it; topt->max_depth as in sf_an_tree.
 * dopt->threshold is not used. */
int sf_an_diff_tree(struct sf_output *o, const struct sf_an_view *base,
		    const struct sf_an_view *cur,
		    const struct sf_an_diff_opts *dopt,
		    const struct sf_an_tree_opts *topt, struct sf_ctx *ctx);

/* ----- reports: one call for what sfanalyze prints ----- */

enum sf_an_kind {
	SF_AN_TREE, SF_AN_FLAT, SF_AN_CALLGRAPH, SF_AN_DIFF
};

struct sf_an_report_opts {
	enum sf_an_kind kind;
	bool json;            /* JSON, for the call graph and the wrappers
			       * below; tree, flat and diff take their own
			       * `json` */
	bool per_thread;      /* one report per thread, each under a
			       * "== thread LABEL (id N) ==" line, or a JSON
			       * object keyed by thread label (a repeated
			       * label gets " (2)", " (3)" ...); not DIFF */
	bool diff_tree;       /* DIFF: the differential tree
			       * (sf_an_diff_tree), else the function table */
	struct sf_an_filter filter;  /* .type: the sample type of `p` */
	uint32_t new_type;    /* DIFF: the sample type of the NEW profile */
	struct sf_an_tree_opts tree;
	struct sf_an_flat_opts flat;
	struct sf_an_diff_opts diff;
};

/* Set the report option `name` (its long option without dashes:
 * "min-percent", "threshold", "depth", "sort", "thread-ids") from its
 * text.  SF_EUSAGE "option '--NAME': bad value 'VALUE'" when the value is
 * out of range or `name` is no such option. */
int sf_an_report_set(struct sf_an_report_opts *r, const char *name,
		     const char *value, struct sf_ctx *ctx);

/* The sample type of `p` named `want`: a type name, else a decimal
 * index; NULL: the profile's default type.  SF_EUSAGE when `p` has no
 * such type. */
int sf_an_sample_type(uint32_t *out, const struct sf_profile *p,
		      const char *want, struct sf_ctx *ctx);

/* Write report `r` of `p` to `o` (for DIFF, of BASE `p` against NEW
 * `cur`; `cur` is unused otherwise).  A JSON report ends with a newline.
 * Returns 0 or the first analysis error; output errors are the output's
 * (sf_output_commit reports them). */
int sf_an_report(struct sf_output *o, const struct sf_profile *p,
		 const struct sf_profile *cur,
		 const struct sf_an_report_opts *r, struct sf_ctx *ctx);

#ifdef __cplusplus
}
#endif
#endif
