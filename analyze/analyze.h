/*
 * analyze.h - reports over a profile: call tree (top-down and inverted),
 * flat table, call graph (Racket profile/analyzer semantics, see
 * docs/analyze.md, section "Call graph"), a diff of two profiles, and
 * the report macOS `sample` prints.  One table lists them
 * (sf_an_reports).
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
	size_t nodes_cap;              /* bytes of `nodes` when they are
					* pages ctx kept (sf_big_take), 0
					* when malloc'ed: sf_big_free */
	uint32_t maxdepth;
	struct sf_an_sample *samples;  /* folded, in processing order */
	size_t nsamples;
	uint64_t nraw;                 /* samples that passed the filters */
	uint64_t ncounted;             /* what the report headers call
					* samples: where the input counts
					* them beside other measures (a
					* "samples" type in "count", as
					* pprof has), that count; else nraw */
	struct sf_an_thread *threads;  /* increasing id; every thread of the
					* profile that has samples */
	size_t nthreads;
	int64_t max_id;                /* largest id among kept samples, -1 */
	sf_an_w total;                 /* sum of all kept weights */
	const char *type, *unit;       /* what a weight is */
};

/* Build the view of `p`.  `only`, if not NULL, keeps just the thread with
 * that call-graph id (for per-thread reports); the thread ids are those of
 * the whole profile either way.
 *
 * Its arrays of one entry per profile stack (the nodes and two scratch
 * arrays: 36 bytes a stack, about 130 MB on the timeline of
 * docs/PERFORMANCE.md) are taken from the pages ctx keeps (sf_big_take)
 * where it keeps enough, else malloc'ed: a caller that has such pages
 * (sfanalyze: loading's dead buffers, sf_profile_trim_keep) spares the
 * kernel's clearing of fresh ones.  The scratch arrays taken so are kept
 * in ctx again at the end (sf_big_keep), for a later stage to take (the
 * call graph's edges): a caller whose next stage takes none frees them
 * (sf_big_drop). */
int sf_an_view_build(struct sf_an_view **out, const struct sf_profile *p,
		     const struct sf_an_filter *f, const int64_t *only,
		     struct sf_ctx *ctx);
void sf_an_view_free(struct sf_an_view *v);
/* Free the view's stack nodes and samples (nnodes and nsamples become 0),
 * keeping the rest (names, threads, totals): for a report that has read
 * them and builds something large next, whose memory they then are (the
 * call graph's adjacency): nodes taken from kept pages are kept in ctx
 * again (sf_big_keep; freed when ctx is NULL), the rest goes back to the
 * heap.  sf_an_view_free still frees the rest. */
void sf_an_view_drop_stacks(struct sf_an_view *v, struct sf_ctx *ctx);

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

/* ----- units (units.c) -----
 *
 * Text reports write weights for people, scaled in their sample type's
 * unit as pprof does (measurement.ScaledLabel): the largest unit of the
 * family with a value of at least 1, two decimals, ".00" dropped.
 *   time   ("nanoseconds", "ns", "microseconds", "milliseconds", "seconds"
 *          ...): ns, us, ms, s, hrs          675224100 ns -> "675.22ms"
 *   bytes  ("bytes", "B", "kilobytes" ...): B, kB, MB, GB, TB, PB (1024)
 *                                            1536 bytes -> "1.50kB"
 *   count  ("count", "events", "samples"): plain below 100000, then k, M,
 *          G, T (1000)                       123456 -> "123.46k"
 * Any other unit, and every unit with `raw`, is written as sf_an_fmt
 * writes it (the exact number of the unit).  JSON never scales.
 */
/* "time", "bytes", "count" or "other": how `unit` is scaled. */
const char *sf_an_unit_family(const char *unit);
void sf_an_fmt_unit(char *buf, size_t size, double v, const char *unit,
		    bool raw);
/* The same for a view weight v * 2^exp. */
void sf_an_fmt_w(char *buf, size_t size, sf_an_w v, int exp,
		 const char *unit, bool raw);

/* ----- call tree ----- */

/* Text: nodes below min_percent of the whole are hidden, and one line
 * after the tree says how many nodes and how much weight, and that
 * --min-percent 0 shows all.  A negative min_percent means the default:
 * SF_AN_TREE_MIN_PERCENT for text (a real capture's tree then fits on a
 * screen or two per thread), 0 for JSON (machines want everything).  JSON
 * marks a parent whose children were hidden with "pruned": {"nodes": N,
 * "total": W} (N counts the hidden subtrees' nodes, W their roots' total)
 * and gives the root, after its children, "type", "unit" and "samples"
 * (the input samples kept).
 *
 * Text can join chains: a run of at least SF_AN_TREE_CHAIN nodes below
 * the root, each but the last with one shown child that has its whole
 * total (Java-style stacks: dozens of frames that only call the next),
 * is one line "FIRST → … (N frames) → LAST" with the chain's total and
 * LAST's self, N the nodes in between; LAST's children follow as its
 * children, and --depth still counts every frame.  Shorter runs stay one
 * line per node.  `chains` says when: SF_AN_CHAINS_AUTO (the default)
 * joins only when the tree as it would be printed one node per line
 * (after --min-percent and --depth, root line included) has more than
 * SF_AN_TREE_SCREEN lines, so a short tree keeps every frame as a
 * Sampler-style tree does (a small program's main_wait under _start, not
 * "_start → … (4 frames) → pause"); per thread with --per-thread, since
 * each thread is its own tree.  JSON is never joined. */
#define SF_AN_TREE_MIN_PERCENT 0.5
#define SF_AN_TREE_CHAIN 4
#define SF_AN_TREE_SCREEN 60
enum sf_an_chains {
	SF_AN_CHAINS_AUTO,    /* join only when over SF_AN_TREE_SCREEN lines */
	SF_AN_CHAINS_ALWAYS,  /* --collapse */
	SF_AN_CHAINS_NEVER    /* --no-collapse: one line per node */
};
struct sf_an_tree_opts {
	bool inverted;        /* bottom-up: roots are leaf functions */
	double min_percent;   /* prune nodes below this % of the whole */
	uint32_t max_depth;   /* 0 = unlimited */
	bool json;
	bool raw;             /* text: exact numbers, header as before units */
	enum sf_an_chains chains;   /* text: when chains are one line */
};
int sf_an_tree(struct sf_output *o, const struct sf_an_view *v,
	       const struct sf_an_tree_opts *opt, struct sf_ctx *ctx);

/* ----- flat table ----- */

/* JSON: {"type", "unit", "total", "samples", "functions": [{"name",
 * "self", "total"}...]}, rows limited by `top` as in text. */
struct sf_an_flat_opts {
	bool by_total;        /* sort by total instead of self */
	bool json;
	bool raw;             /* text: exact numbers, header as before units */
	size_t top;           /* the first `top` rows only (0 = all); text
			       * says how many were left out */
};
int sf_an_flat(struct sf_output *o, const struct sf_an_view *v,
	       const struct sf_an_flat_opts *opt, struct sf_ctx *ctx);

/* ----- call graph ----- */

struct sf_an_cg;   /* the analysis result */

/* The adjacency lists and their sorts run one direction per thread when
 * sf_jobs(ctx) > 1; the result is the same for any number of jobs. */
int sf_an_cg_build(struct sf_an_cg **out, const struct sf_an_view *v,
		   struct sf_ctx *ctx);
void sf_an_cg_free(struct sf_an_cg *g);
/* What the call-graph reports show: every node, or with npeek > 0 only
 * the nodes whose name matches one of `peek` (each with all its callers
 * and callees: Racket's node view, `--peek`); text with units unless
 * `raw`.  JSON always prints exact numbers. */
struct sf_an_cg_opts {
	bool raw;
	const regex_t *peek;   /* compiled by the caller (REG_EXTENDED) */
	size_t npeek;
};
int sf_an_cg_json(struct sf_output *o, const struct sf_an_cg *g,
		  const struct sf_an_cg_opts *opt);
/* The text report formats its nodes on sf_jobs(ctx) threads (the bytes
 * are the same for any number); SF_ENOMEM when its table of labels
 * cannot be had. */
int sf_an_cg_text(struct sf_output *o, const struct sf_an_cg *g,
		  const struct sf_an_cg_opts *opt, struct sf_ctx *ctx);

/* Read access to the result (cgdot.c, peek.c).  Nodes are numbered 1..n
 * in the analyzer's order (the text report's [index]); the * node is 0. */
struct sf_an_cg_info {
	int exp;                 /* weights are v * 2^exp */
	const char *type, *unit;
	sf_an_w total_time;
	uint64_t samples;
	size_t nnodes;           /* real nodes */
};
struct sf_an_cg_node {
	const char *name;
	sf_an_w total, self;
	size_t ncallers, ncallees;
};
struct sf_an_cg_edge {
	size_t other;            /* the caller's or callee's number, 0 = * */
	sf_an_w total;           /* weight of the samples with the edge */
	double caller_time, callee_time;   /* nearest doubles, real units */
};
void sf_an_cg_info(const struct sf_an_cg *g, struct sf_an_cg_info *out);
/* Node number i (1 <= i <= nnodes). */
void sf_an_cg_node(const struct sf_an_cg *g, size_t i,
		   struct sf_an_cg_node *out);
/* Edge j of node i's callees (or callers), in the report's order. */
void sf_an_cg_edge(const struct sf_an_cg *g, size_t i, bool callees,
		   size_t j, struct sf_an_cg_edge *out);
/* ----- the call graph as a picture (cgdot.c) -----
 *
 * sf_an_cg_dot writes Graphviz dot: one node per call-graph node whose
 * total is at least node_fraction of the total time (labelled with its
 * name, self and total in units and percent; font size grows with self,
 * fill colour with total), one edge per caller -> callee pair of shown
 * nodes whose edge total (the weight of the samples that pass through
 * the edge) is at least edge_fraction of the total, labelled with that
 * weight, its width growing with it.  Edges to and from * are not drawn.
 * Nodes are named N<index> (the text report's [index]) and declared in
 * the analyzer's order; an edge to the same or an earlier node
 * (recursion, a cycle) is dashed and does not constrain the ranks.  The
 * graph's label says how many nodes and edges were left out. */
#define SF_AN_DOT_NODE_FRACTION 0.005   /* pprof's defaults */
#define SF_AN_DOT_EDGE_FRACTION 0.001
struct sf_an_dot_opts {
	double node_fraction;
	double edge_fraction;
	bool raw;              /* labels with exact numbers */
};
int sf_an_cg_dot(struct sf_output *o, const struct sf_an_cg *g,
		 const struct sf_an_dot_opts *opt, struct sf_ctx *ctx);
/* The pruning rules of sf_an_cg_dot, for tests and other pictures. */
bool sf_an_dot_node_shown(const struct sf_an_cg_node *x,
			  const struct sf_an_cg_info *info,
			  const struct sf_an_dot_opts *opt);
bool sf_an_dot_edge_shown(const struct sf_an_cg_edge *e,
			  const struct sf_an_cg_info *info,
			  const struct sf_an_dot_opts *opt);
/* Lay out `dot` (NUL-terminated) with Graphviz's dot layout and write it
 * in `format` ("svg", "png", "pdf": any libgvc output plugin) to o.
 * SF_EINPUT if Graphviz cannot parse it, SF_EUNSUP if the layout or the
 * output plugin is missing; Graphviz's own message is in ctx->err (it
 * prints nothing). */
int sf_an_dot_render(struct sf_output *o, const char *dot,
		     const char *format, struct sf_ctx *ctx);

/* How many nodes match one of the regexes (for "--peek matches
 * nothing"). */
size_t sf_an_cg_count_matches(const struct sf_an_cg *g, const regex_t *re,
			      size_t n);

/* ----- diff ----- */

struct sf_an_diff_opts {
	bool normalize;       /* compare shares of each profile's total */
	double threshold;     /* flag |delta| above this % (0 = off) */
	bool json;
	bool raw;             /* text: exact numbers instead of units */
	size_t top;           /* only the first N rows (0 = all); the
			       * regression count still counts every row */
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

/* ----- the call-graph reports of one view (cgreport.c) ----- */

/* What --callgraph prints: text or JSON (cg.peek restricts both to the
 * matching nodes), Graphviz dot (dot_text), or the rendered picture
 * (render: "svg", "png", "pdf").  Each peek regex that matches no node
 * adds the warning "--peek 'TEXT' matches no function" to ctx (so the
 * program says so; the report is then empty).  raw applies to every
 * text (copied into cg and dot). */
struct sf_an_cg_report {
	bool json, raw, dot_text;
	const char *render;
	struct sf_an_cg_opts cg;
	const char *const *peek_text;   /* cg.npeek regexes as typed */
	struct sf_an_dot_opts dot;
};
/* The view's stacks and samples are dropped once the graph has read them
 * (sf_an_view_drop_stacks): the rest of the build takes their memory. */
int sf_an_cg_report(struct sf_output *o, struct sf_an_view *v,
		    const struct sf_an_cg_report *r, struct sf_ctx *ctx);
/* "svg", "png" or "pdf" when `path` ends in that extension, else NULL:
 * an output file that asks for a rendered call graph. */
const char *sf_an_render_format(const char *path);

/* ----- the macOS `sample` report (sample.c) -----
 *
 * The report macOS `sample` prints (docs/formats.md, "sample"): a header
 * about the process (what a capture recorded: command, pid, interval,
 * time, missed samples), then per thread, most samples first, its call
 * graph with sample's tree marks, "Total number in stack", "Sort by top
 * of stack" and "Binary Images".  Every thread, no filter: the profile as
 * it is.  Counts are whole samples by the model's rule (counts.h,
 * sf_records_count with a "samples" type); weights that are not whole are
 * rounded with the warning "sample.weight-rounded"; SF_ELIMIT when one is
 * negative, NaN or above 1e15.  The `sample` writer writes this report
 * (its reader reads it back) and sfcapture prints it after a capture. */

/* The "Analysis Tool:" line of this report: the sample reader reads a
 * file that has it exactly (formats/fmt_macos_sample.c). */
#define SF_AN_SAMPLE_TOOL "sftools sample writer"
/* The pruning of sfanalyze --sample and of sfcapture's report: a real
 * capture's graph then fits on a few screens.  The writer prunes nothing
 * unless told. */
#define SF_AN_SAMPLE_MIN_PERCENT 1.0

/* What the report hides: call-graph nodes with fewer than min_count
 * samples, or under min_percent of their thread's samples (counted in
 * their callers; a header line "Pruned:" says how many and how much).
 * Both 0: nothing. */
struct sf_an_sample_opts {
	uint64_t min_count;
	double min_percent;
};
/* --sample-min TEXT: "N" (a count) or "P%" (a percentage) into *out, the
 * other bound 0.  SF_EUSAGE "--sample-min needs a count or a percentage
 * ('5', '2%')" for anything else. */
int sf_an_sample_min(struct sf_an_sample_opts *out, const char *text,
		     struct sf_ctx *ctx);
int sf_an_sample(struct sf_output *o, const struct sf_profile *p,
		 const struct sf_an_sample_opts *opt, struct sf_ctx *ctx);

/* ----- reports: one call for what sfanalyze prints (report.c) ----- */

struct sf_an_report_opts;

/* An option of a report (sfanalyze's --NAME): the typed field it fills. */
struct sf_an_report_option {
	const char *name;     /* long option without dashes */
	const char *arg;      /* NULL for a flag, else the value's name */
	const char *help;     /* for --help; '\n' breaks lines */
	/* Fill the option's field of r from `value` (NULL for a flag): 0,
	 * or SF_EUSAGE with a message naming the option. */
	int (*set)(struct sf_an_report_opts *r, const char *name,
		   const char *value, struct sf_ctx *ctx);
};

/* One report: a row of the table (sf_an_reports).  It runs in one of two
 * ways: of_view over the view of the profile after the filters (whole,
 * per thread or per process: the dispatch makes the views), or
 * of_profile over the profile as it is (and for a comparison the NEW
 * profile `cur`). */
struct sf_an_report {
	const char *name;     /* sfanalyze's --NAME that picks it */
	const char *help;     /* for --help; '\n' breaks lines */
	/* v is the report's: it may drop the stacks once it has read them
	 * (sf_an_view_drop_stacks) */
	int (*of_view)(struct sf_output *o, struct sf_an_view *v,
		       const struct sf_an_report_opts *r,
		       struct sf_ctx *ctx);
	int (*of_profile)(struct sf_output *o, const struct sf_profile *p,
			  const struct sf_profile *cur,
			  const struct sf_an_report_opts *r,
			  struct sf_ctx *ctx);
	/* Its options' defaults, set in r by sf_an_report_defaults. */
	void (*defaults)(struct sf_an_report_opts *r);
	const struct sf_an_report_option *options;  /* {NULL}-terminated */
	bool two_inputs;      /* compares BASE with NEW (--diff BASE -- NEW) */
	bool keeps_zero;      /* sees samples whose values are all zero (see
			       * sf_an_report_drops_zero) */
	bool whole;           /* the profile as it is: no filter, --json,
			       * --per-thread, --per-process or --timestamps */
	bool takes_kept;      /* builds large buffers from memory kept in
			       * ctx (sf_big_take): the call graph's edges,
			       * the tree's arrays */
};

/* The table, in --help order, ending with a row whose name is NULL.  The
 * first row (the tree) is the default report. */
const struct sf_an_report *sf_an_reports(void);
/* The row named `name`, or NULL. */
const struct sf_an_report *sf_an_report_by_name(const char *name);

struct sf_an_report_opts {
	const struct sf_an_report *kind;  /* the report: a row of the
					   * table, never NULL */
	bool json;            /* JSON instead of text, for every report */
	bool raw;             /* text: exact numbers, not scaled units */
	bool per_process;     /* one report per process (the threads of
			       * one pid), each under a "== process
			       * COMM-PID ==" line, or a JSON object keyed
			       * by COMM-PID; not DIFF, not with a thread
			       * filter */
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
	struct sf_an_cg_report cgr;  /* CALLGRAPH: text, JSON, peek, dot or
				      * a picture */
	struct sf_an_sample_opts sample;
	/* If set, the profile sf_an_report reads, which it may change
	 * once the view of the whole profile is built, when the report
	 * reads nothing else of it (sf_an_report_one_view): its stacks and
	 * samples are then freed, kept in ctx for a report that takes kept
	 * memory (sf_profile_drop_stacks; the view points to its strings) */
	struct sf_profile *droppable;
};

/* Every report's defaults in r (a text tree's --min-percent, the picture's
 * fractions, normalized diffs, the sample report's 1%), and the default
 * report. */
void sf_an_report_defaults(struct sf_an_report_opts *r);

/* Pick report k (sfanalyze --NAME).  A comparison stays one when a
 * report of one profile is picked beside it: --diff with --tree, before
 * or after it, is the differential tree. */
void sf_an_report_pick(struct sf_an_report_opts *r,
		       const struct sf_an_report *k);

/* Set the option `name` of a report in the table, or the filter's
 * "thread-ids", from its text (NULL for a flag).  SF_EUSAGE "option
 * '--NAME': bad value 'VALUE'" when the value is out of range or `name`
 * is no such option. */
int sf_an_report_set(struct sf_an_report_opts *r, const char *name,
		     const char *value, struct sf_ctx *ctx);

/* What the output's name says about the report: a call graph written to
 * FILE.svg, .png or .pdf is drawn (cgr.render). */
void sf_an_report_path(struct sf_an_report_opts *r, const char *path);

/* SF_EUSAGE with a one-line message when the options of `r` do not go
 * together (--per-thread with --diff or a rendered call graph; filters,
 * --json or --diff with a `whole` report such as --sample). */
int sf_an_report_check(const struct sf_an_report_opts *r, struct sf_ctx *ctx);

/* Whether sf_an_report(r) builds one view of the whole profile, and so
 * drops r->droppable's stacks (not per thread or per process, not a
 * comparison or a `whole` report). */
bool sf_an_report_one_view(const struct sf_an_report_opts *r);

/* Should the load leave out samples whose values are all zero
 * (sf_load_options.drop_zero)?  Every report but those that keep them
 * (keeps_zero): the call graph (and --peek, its node view) follows
 * Racket, where a sample of weight 0 still makes its nodes and is counted
 * (docs/analyze.md, call graph 5.5 and 6); with --timestamps a sample
 * weighs its time, not its values. */
bool sf_an_report_drops_zero(const struct sf_an_report_opts *r);

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
