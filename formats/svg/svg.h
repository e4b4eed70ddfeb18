/*
 * svg.h - internals of the flame graph writer (fmt_svg.c), shared by its
 * parts: svg_graph.c builds the tree of frames to draw, svg_colour.c picks
 * each frame's fill.  Not a public interface: only these files include it.
 *
 * The options are flamegraph.pl's and inferno's, with their meaning; they
 * are parsed once into struct svg_opts (fmt_svg.c) and read by every part.
 */
#ifndef SF_SVG_H
#define SF_SVG_H

#include "format.h"

#include <stdbool.h>
#include <stdint.h>

enum svg_palette {
	PAL_HOT, PAL_MEM, PAL_IO, PAL_WAKEUP, PAL_CHAIN, PAL_RED, PAL_GREEN,
	PAL_BLUE, PAL_AQUA, PAL_YELLOW, PAL_PURPLE, PAL_ORANGE, PAL_JAVA,
	PAL_JS, PAL_PERL,
};

/* What a blocked sample waits for, from its "syscall" label (sfcapture):
 * the order breaks ties when a frame's kinds weigh the same. */
enum svg_wait {
	SVG_WAIT_LOCK,    /* futex, futex_waitv, flock */
	SVG_WAIT_IO,      /* read/write/recv/send/poll/select/epoll_wait... */
	SVG_WAIT_SLEEP,   /* nanosleep, clock_nanosleep */
	SVG_WAIT_OTHER,   /* any other system call */
	SVG_WAIT_NONE,    /* off-CPU without a syscall label */
	SVG_WAIT_N
};

/* How a frame's palette position is chosen. */
enum svg_colour_key {
	KEY_NAME,    /* a hash of the name (ours; the default, and inferno's
		      * --deterministic): a function keeps its colour */
	KEY_HASH,    /* flamegraph.pl's --hash (its namehash()): the same
		      * colours flamegraph.pl --hash draws */
	KEY_RANDOM,  /* --random: not keyed by name; drawn from a PRNG with a
		      * fixed seed, so the same input still gives the same
		      * bytes */
};

/* What the root frames stand for, as the collapsed writer's prefixes. */
enum svg_group {
	GROUP_NONE,      /* the frames of every thread merged */
	GROUP_THREAD,    /* --thread-prefix: a root frame per thread */
	GROUP_PROCESS,   /* --pid-prefix: a root frame per process */
};

struct svg_opts {
	const char *title, *subtitle, *notes;
	const char *fonttype;
	const char *countname;     /* NULL: from the sample type's unit */
	const char *nametype;
	const char *search_color;
	const char *palette_file;  /* with --cp */
	const char *bg1, *bg2;     /* background gradient (equal: flat) */
	double width, frame_h, fontsize, fontwidth;
	double minwidth;           /* pixels, or percent with minwidth_pct */
	bool minwidth_pct;
	size_t max_frames;
	enum svg_palette palette;
	enum svg_colour_key key;
	bool cp;
	bool reverse, inverted, negate, flamechart;
	bool by_module;            /* frames merge by name, module and kind;
				    * else by name alone */
	enum svg_group group;
	double factor;             /* counts shown are weights * factor */
	double total;              /* --total, 0 if unset */
};

/* A frame of the graph: what every node has (48 bytes; a timeline of
 * 3.7 million nodes makes as many of them, each fresh memory).  Its
 * name, module and kind are read through sf_svg__name, sf_svg__module
 * and sf_svg__kind. */
struct svg_node {
	uint32_t parent;
	uint32_t depth;
	const struct sf_frame *frame;  /* the first frame merged into it:
					* the profile's, a group's label
					* (struct svg_graph) or "all" */
	uint32_t flags;         /* SF_FRAME_* common to its frames */
	unsigned char mixed;    /* SVG_MIXED_*: its frames differ in */
	bool drawn;
	double w;       /* inclusive weight, default (NEW) type */
	double sw;      /* self weight, NEW */
	double x;       /* offset from the left, in weight units */
};

#define SVG_MIXED_MODULE 1
#define SVG_MIXED_KIND 2

static inline const char *sf_svg__name(const struct svg_node *nd)
{
	return nd->frame->name;
}

/* NULL when the merged frames differ in it (or have none). */
static inline const char *sf_svg__module(const struct svg_node *nd)
{
	return nd->mixed & SVG_MIXED_MODULE ? NULL : nd->frame->module;
}

static inline const char *sf_svg__kind(const struct svg_node *nd)
{
	return nd->mixed & SVG_MIXED_KIND ? NULL : nd->frame->kind;
}

/* The weights only a differential graph or one with labels (off-CPU
 * samples) can have, kept apart so that a graph without them does not
 * carry them: they doubled the node's size. */
struct svg_more {
	double wb;      /* inclusive BASE weight (differential) */
	double swb;     /* self weight, BASE */
	double off;     /* inclusive weight of off-CPU samples */
	double wait[SVG_WAIT_N]; /* inclusive off-CPU weight per wait kind */
};

struct svg_graph {
	struct svg_node *nodes;
	struct svg_more *more;  /* per node; NULL when the profile is not a
				 * differential one and has no labels, so
				 * that every such weight is 0 */
	size_t n;
	uint32_t *order;   /* the order nodes are written: by (parent,
			    * name, module, kind), or by time for a flame
			    * chart; parents before children */
	double total;      /* the width's weight: the sum, or --total */
	bool diff;
	bool offcpu;       /* the samples carry the "state" label */
	bool waits;        /* an off-CPU sample carries the "syscall" label:
			    * off-CPU frames are coloured by wait kind */
	size_t drawn, elided, removed;
	double minpx;      /* effective minimum width in pixels */
	bool capped;       /* --max-frames raised it */
	uint32_t maxdepth;
	char **labels;     /* --pid-prefix, --thread-prefix: the root
			    * frames' names, which the nodes point to */
	struct sf_frame *label_frames;   /* the frames of those */
	size_t nlabels;
};

/* Build the tree of `p` as `o` asks (merged or reversed stacks, or a
 * flame chart in time order), place it and mark what is drawn.  Returns 0
 * or SF_ENOMEM; free with sf_svg__graph_free. */
int sf_svg__graph_build(struct svg_graph *g, const struct sf_profile *p,
			struct sf_ctx *ctx, const struct svg_opts *o);
void sf_svg__graph_free(struct svg_graph *g);
/* The widths (svg_cut.c), for either builder: --total
 * applied to g->total (the samples' sum so far) and the root's weight
 * *root; the scale, the minimum width in pixels and the --max-frames cut
 * (a weight a frame must exceed; -1: none) from the n inclusive weights
 * at w, stride bytes apart, sorting a copy of them in `scratch` (room for
 * n; NULL: its own).  The cut returns 0 or -1 (out of memory). */
void sf_svg__graph_total(struct svg_graph *g, double *root,
			 const struct svg_opts *o, struct sf_ctx *ctx);
int sf_svg__graph_cut(struct svg_graph *g, const struct svg_opts *o,
		      const double *w, size_t stride, size_t n,
		      double *scratch, double *scale, double *minw,
		      double *cut);
/* The graph of a profile whose frames all differ in what nodes merge by,
 * merged (not reversed, no groups, no diff or labels): only the frames
 * drawn are made (svg_drawn.c).  rank: per frame its place in the
 * siblings' order.  Returns 0, 1 where the weights are not all integers
 * whose sums are exact (nothing done: build the whole graph), or
 * SF_ENOMEM. */
int sf_svg__graph_drawn(struct svg_graph *g, const struct sf_profile *p,
			struct sf_ctx *ctx, const struct svg_opts *o,
			uint32_t t, const uint32_t *rank);

/* The differential and off-CPU weights of node `nd` of `g` (zeros when
 * the graph keeps none). */
static inline const struct svg_more *sf_svg__more(const struct svg_graph *g,
						  const struct svg_node *nd)
{
	static const struct svg_more none;

	return g->more ? &g->more[nd - g->nodes] : &none;
}

/* ----- colours (svg_colour.c) ----- */

/* "hot" -> PAL_HOT; -1 for an unknown name. */
int sf_svg__palette_parse(const char *name, enum svg_palette *out);
extern const char sf_svg__palette_list[];   /* "hot, mem, io, ..." */

/* --bgcolors: yellow, blue, green, grey (gradients) or #rrggbb (flat);
 * NULL: the palette's default, as flamegraph.pl picks it.  Returns -1 for
 * a value that is none of these. */
int sf_svg__bgcolors(struct svg_opts *o, const char *value, bool diff);

/* The fills of the frames, by colour key, palette and the frame's kind;
 * with a consistent palette (--cp) the map read from and written back to
 * o->palette_file. */
struct svg_colours;
int sf_svg__colours_new(struct svg_colours **out, struct sf_ctx *ctx,
			const struct svg_opts *o);
/* The fill of `nd` as "rgb(r,g,b)" into buf (at least 32 bytes); on-CPU
 * frames of an off-CPU aware graph in the palette, off-CPU ones in
 * blue-grey ("io"), or with `waits` by their heaviest wait kind: lock
 * purple, I/O blue-grey, sleep aqua, other system call green, none grey.
 * Returns 0 or SF_ENOMEM. */
int sf_svg__colour_frame(struct svg_colours *c, struct sf_ctx *ctx,
			 const struct svg_node *nd, const struct svg_more *m,
			 bool offcpu, bool waits, char *buf, size_t size);
/* The wait kinds of `nd` by off-CPU weight, heaviest first (the first
 * kind on a tie): order[0] is the kind whose palette a mostly off-CPU
 * frame takes. */
void sf_svg__wait_order(const struct svg_more *nd,
			enum svg_wait order[SVG_WAIT_N]);
/* The kinds as the subtitle's legend and the titles name them: "lock",
 * "I/O", "sleep", "other syscall", "no syscall". */
extern const char *const sf_svg__wait_names[SVG_WAIT_N];
/* Red where it grew, blue where it shrank (or the opposite with
 * --negate); grey without change. */
void sf_svg__colour_diff(double delta, double maxdelta, bool negate,
			 char *buf, size_t size);
/* Write the --cp palette file back (sorted by name) and free. */
int sf_svg__colours_finish(struct svg_colours *c, struct sf_ctx *ctx,
			   bool write_back);

#endif
