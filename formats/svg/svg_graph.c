/*
 * svg_graph.c - the tree a flame graph draws.
 *
 * Merged (the default): the samples' stacks are merged into one tree; a
 * frame's children are the distinct frames (by name, as flamegraph.pl; by
 * name, module and kind with --by-module) called from it, ordered by
 * name, like FlameGraph's alphabetic x axis, to the right of the frame's
 * self weight (flamegraph.pl's sorted lines put "a N" before "a;b N").
 * Reversed (--reverse): the same with every stack read leaf first, so the
 * merge happens at the leaves.  Flame chart (--flamechart): nothing is
 * merged but consecutive samples that share a prefix; samples follow each
 * other in time order (by timestamp where every sample has one, else in
 * input order), each thread's after the previous thread's.
 *
 * With --pid-prefix or --thread-prefix each stack has its process's or
 * thread's label (as the collapsed writer writes it) as its root frame,
 * so the graph is the one flamegraph.pl draws of that collapsed output:
 * one root frame per process or thread (the leaf with --reverse, as
 * flamegraph.pl reverses the whole line); a flame chart puts each
 * group's samples together.
 */
#include "svg.h"
#include "diff.h"
#include "hash.h"

#include <stdlib.h>
#include <string.h>

static int strcmp_null(const char *a, const char *b)
{
	if (a == b)
		return 0;
	if (!a)
		return -1;
	if (!b)
		return 1;
	return strcmp(a, b);
}

/* Names in the order flamegraph.pl's sorted lines put them: a name is
 * followed by ';' there, so "b " (0x20) comes before "b;" (0x3b). */
static int name_cmp(const char *a, const char *b)
{
	while (*a && *a == *b) {
		a++;
		b++;
	}
	unsigned char ca = *a ? (unsigned char)*a : ';';
	unsigned char cb = *b ? (unsigned char)*b : ';';
	if (ca != cb)
		return ca < cb ? -1 : 1;
	return *a ? 1 : *b ? -1 : 0;
}

static int order_cmp(const void *a_, const void *b_, void *nodes_)
{
	const struct svg_node *nodes = nodes_;
	const struct svg_node *a = &nodes[*(const uint32_t *)a_];
	const struct svg_node *b = &nodes[*(const uint32_t *)b_];
	int c;

	if (a->parent != b->parent)
		return a->parent < b->parent ? -1 : 1;
	if ((c = name_cmp(sf_svg__name(a), sf_svg__name(b))))
		return c;
	if ((c = strcmp_null(sf_svg__module(a), sf_svg__module(b))))
		return c;
	if ((c = strcmp_null(sf_svg__kind(a), sf_svg__kind(b))))
		return c;
	return *(const uint32_t *)a_ < *(const uint32_t *)b_ ? -1 : 1;
}

/* ----- building: nodes and the (parent, frame) -> node table ----- */

/*
 * A node's children are found in a list (first child, next sibling, each
 * with its name) while they are at most KIN_LIST, and in the hash index
 * `idx` once there are more (first = KIN_HASHED), as the model's stack
 * tree does.  Looking every node up in the index cost a probe at a random
 * place of a table as large as the graph (child_of was 27 % of `sfconv
 * --to svg` of a 400,000-sample timeline, 3.7 million nodes, most of them
 * the only child of a node made just before); a list of a new node is
 * empty, and its entries sit beside the node's.  Node ids, so the output,
 * do not depend on where a child was found.
 */
#define KIN_LIST 4
#define KIN_HASHED UINT32_MAX

struct kin {
	uint32_t first;      /* first child, 0 = none, or KIN_HASHED */
	uint32_t next;       /* next sibling, 0 = none */
	const char *name;    /* = the node's name: a list walk reads one
			      * array, not the nodes */
};

struct builder {
	struct svg_graph *g;
	size_t cap;          /* nodes allocated */
	struct kin *kin;     /* per node: its child list (cap of them) */
	struct sf_idx idx;   /* (parent, frame) -> node, for the children of
			      * nodes with more than KIN_LIST */
	bool by_module;      /* frames merge by name, module and kind */
	/* --pid-prefix, --thread-prefix (make_groups): label g is the
	 * frame drawn as group g's root, frame id nframes + g in a path */
	struct sf_frame *label;
	char **text;         /* label g's own text (g->labels) */
	uint32_t *group;     /* per thread: its group; NULL: no groups */
	size_t ngroups;
	size_t nframes;
	const struct sf_frame *frames;   /* the profile's, for
					  * frame_keys_distinct */
	int distinct;        /* its result, or DISTINCT_UNKNOWN */
	double *pre;         /* a flame chart's: per node, the parent's self
			      * weight when the node was made, drawn before
			      * it (what came before it in time); a merged
			      * graph draws all of it (flamegraph.pl's sorted
			      * lines put "a N" before "a;b N") */
};

#define NO_HEAD UINT32_MAX
#define DISTINCT_UNKNOWN (-2)

/* Frame `f` of a path: the profile's, or a group's label. */
static const struct sf_frame *frame_at(const struct builder *b,
				       const struct sf_profile *p,
				       sf_frame_id f)
{
	return f < b->nframes ? &p->d.frames[f] : &b->label[f - b->nframes];
}

/* Sample i's group; b->ngroups for a sample without a thread, which is
 * drawn without a label, as the collapsed writer writes it. */
static uint32_t group_of(const struct builder *b, const struct sf_profile *p,
			 size_t i)
{
	sf_thread_idx th = p->d.samples[i].thread;

	return th == SF_NO_THREAD ? (uint32_t)b->ngroups : b->group[th];
}

static bool label_eq(const void *ctx, uint32_t id, const void *key)
{
	const struct builder *b = ctx;

	return !strcmp(b->text[id], key);
}

/*
 * --pid-prefix, --thread-prefix: each thread's label (sf_process_label or
 * sf_thread_label, as the collapsed writer names it); threads of one label
 * are one group with one root frame.  A label that is also the name of a
 * root frame takes that frame's interned name, so that samples without a
 * thread whose stacks start there merge with the group, as flamegraph.pl
 * merges the collapsed lines "LABEL;..." of both.  Returns 0 or -1 (out
 * of memory).
 */
static int make_groups(struct builder *b, const struct sf_profile *p,
		       enum svg_group how)
{
	size_t nt = p->d.nthreads ? p->d.nthreads : 1;
	struct sf_idx idx = { 0 };
	uint32_t g;
	int rc = -1;

	b->group = malloc(nt * sizeof(*b->group));
	b->label = calloc(nt, sizeof(*b->label));
	b->text = calloc(nt, sizeof(*b->text));
	if (!b->group || !b->label || !b->text)
		goto out;
	for (size_t t = 0; t < p->d.nthreads; t++) {
		char buf[512];
		if (how == GROUP_PROCESS)
			sf_process_label(p, &p->d.threads[t], buf,
					 sizeof(buf));
		else
			sf_thread_label(&p->d.threads[t], buf, sizeof(buf));
		uint64_t h = sf_hash(buf, strlen(buf));
		if (sf_idx_find(&idx, h, label_eq, b, buf, &g)) {
			b->group[t] = g;
			continue;
		}
		g = (uint32_t)b->ngroups;
		if (!(b->text[g] = strdup(buf)))
			goto out;
		b->ngroups++;
		sf_frame_init(&b->label[g]);
		b->label[g].name = b->text[g];
		b->group[t] = g;
		if (!sf_idx_insert(&idx, h, g))
			goto out;
	}
	for (size_t s = 1; s < p->d.nstacks; s++) {
		const char *nm = p->d.frames[p->d.stacks[s].frame].name;
		if (!p->d.stacks[s].parent &&
		    sf_idx_find(&idx, sf_hash(nm, strlen(nm)), label_eq, b,
				nm, &g))
			b->label[g].name = nm;
	}
	rc = 0;
out:
	sf_idx_free(&idx);
	return rc;
}

struct node_key {
	uint32_t parent;
	const struct sf_frame *f;
};

static bool node_eq(const void *ctx, uint32_t id, const void *key)
{
	const struct builder *b = ctx;
	const struct svg_node *nd = &b->g->nodes[id];
	const struct node_key *k = key;

	return nd->parent == k->parent && nd->frame->name == k->f->name &&
	       (!b->by_module ||
		(sf_svg__module(nd) == k->f->module &&
		 sf_svg__kind(nd) == k->f->kind));
}

/* Room for at least `need` nodes.  Returns 0 or -1 (out of memory). */
static int nodes_room(struct builder *b, size_t need)
{
	struct svg_graph *g = b->g;

	if (need > b->cap) {
		size_t nc = b->cap * 2 > need ? b->cap * 2 : need;
		struct svg_node *nn = realloc(g->nodes, nc * sizeof(*nn));
		if (!nn)
			return -1;
		g->nodes = nn;
		struct kin *nk = realloc(b->kin, nc * sizeof(*nk));
		if (!nk)
			return -1;
		b->kin = nk;
		if (b->pre) {
			double *np = realloc(b->pre, nc * sizeof(*np));
			if (!np)
				return -1;
			b->pre = np;
		}
		if (g->more) {
			struct svg_more *nm = realloc(g->more,
						      nc * sizeof(*nm));
			if (!nm)
				return -1;
			g->more = nm;
		}
		b->cap = nc;
	}
	return 0;
}

/* Node g->n as a child of `par` for frame `f` (the caller has made
 * room), without its child list. */
static uint32_t node_add(struct svg_graph *g, uint32_t par,
			 const struct sf_frame *f)
{
	if (g->more)
		memset(&g->more[g->n], 0, sizeof(g->more[0]));
	struct svg_node *nd = &g->nodes[g->n];
	memset(nd, 0, sizeof(*nd));
	nd->parent = par;
	nd->depth = g->nodes[par].depth + 1;
	nd->frame = f;
	nd->flags = f->flags;
	return (uint32_t)g->n++;
}

static int new_node(struct builder *b, uint32_t par, const struct sf_frame *f,
		    uint32_t *out)
{
	if (nodes_room(b, b->g->n + 1))
		return -1;
	b->kin[b->g->n] = (struct kin){ 0, 0, f->name };
	if (b->pre)
		b->pre[b->g->n] = b->g->nodes[par].sw;
	*out = node_add(b->g, par, f);
	return 0;
}

/* The child of `par` for frame `f`, made if new.  Frames merge by name,
 * and with --by-module by module and kind too (interned: equal strings
 * are equal pointers); a box of frames that differ in module or kind has
 * none. */
static uint64_t node_hash(const struct builder *b, uint32_t par,
			  const char *name, const char *module,
			  const char *kind)
{
	uint64_t key[4] = { par, (uint64_t)(uintptr_t)name,
			    b->by_module ? (uint64_t)(uintptr_t)module : 0,
			    b->by_module ? (uint64_t)(uintptr_t)kind : 0 };

	return sf_hash(key, sizeof(key));
}

static int child_of(struct builder *b, uint32_t par, const struct sf_frame *f,
		    uint32_t *out)
{
	struct node_key k = { par, f };
	uint64_t h = 0;
	uint32_t c = b->kin[par].first, nkids = 0;
	bool found = false;

	if (c == KIN_HASHED) {
		h = node_hash(b, par, f->name, f->module, f->kind);
		found = sf_idx_find(&b->idx, h, node_eq, b, &k, out);
	} else {
		for (; c && !found; c = b->kin[c].next, nkids++)
			if (b->kin[c].name == f->name &&
			    (!b->by_module || node_eq(b, c, &k))) {
				*out = c;
				found = true;
			}
	}
	if (found) {
		struct svg_node *nd = &b->g->nodes[*out];
		if (sf_svg__module(nd) != f->module)
			nd->mixed |= SVG_MIXED_MODULE;
		if (sf_svg__kind(nd) != f->kind)
			nd->mixed |= SVG_MIXED_KIND;
		nd->flags &= f->flags;
		return 0;
	}
	if (new_node(b, par, f, out))
		return -1;
	struct kin *pk = &b->kin[par];
	if (pk->first != KIN_HASHED && nkids < KIN_LIST) {
		b->kin[*out].next = pk->first;
		pk->first = *out;
		return 0;
	}
	if (pk->first != KIN_HASHED) {
		/* the list is full: its children move to the index */
		for (c = pk->first; c; c = b->kin[c].next) {
			const struct svg_node *cn = &b->g->nodes[c];
			if (!sf_idx_insert(&b->idx,
					   node_hash(b, par, sf_svg__name(cn),
						     sf_svg__module(cn),
						     sf_svg__kind(cn)),
					   c))
				return -1;
		}
		pk->first = KIN_HASHED;
		h = node_hash(b, par, f->name, f->module, f->kind);
	}
	return sf_idx_insert(&b->idx, h, *out) ? 0 : -1;
}

/* ----- what each sample adds ----- */

struct weights {
	uint32_t t, tb;         /* the drawn type; BASE for a diff */
	signed char *offcpu;    /* per label set: -1 unknown, 0 on, 1 + the
				 * svg_wait kind when off */
};

/* The wait kind of a system call's name (sfcapture's "syscall" label). */
static enum svg_wait wait_kind(const char *sc)
{
	static const char *const lock[] = { "futex", "futex_waitv", "flock",
					    NULL };
	static const char *const io[] = {
		"read", "write", "readv", "writev", "pread64", "pwrite64",
		"preadv", "pwritev", "preadv2", "pwritev2", "recvfrom",
		"recvmsg", "recvmmsg", "sendto", "sendmsg", "sendmmsg",
		"accept", "accept4", "connect", "poll", "ppoll", "select",
		"pselect6", "epoll_wait", "epoll_pwait", "epoll_pwait2",
		"splice", "sendfile", "io_getevents", "io_pgetevents",
		"io_uring_enter", "fsync", "fdatasync", "openat", NULL
	};
	static const char *const sleep[] = { "nanosleep", "clock_nanosleep",
					     NULL };
	static const char *const *const kinds[] = { lock, io, sleep };

	if (!sc)
		return SVG_WAIT_NONE;
	for (int k = 0; k < 3; k++)
		for (int i = 0; kinds[k][i]; i++)
			if (!strcmp(sc, kinds[k][i]))
				return (enum svg_wait)k;
	return SVG_WAIT_OTHER;
}

/* 0 for an on-CPU sample, else 1 + its wait kind. */
static int sample_off(const struct sf_profile *p, struct weights *wt,
		      struct svg_graph *g, size_t i)
{
	sf_labels_id l = p->d.samples[i].labels;

	if (!wt->offcpu)
		return 0;
	if (wt->offcpu[l] < 0) {
		const char *st = sf_profile_label(p, l, "state");
		const char *sc = sf_profile_label(p, l, "syscall");
		if (st)
			g->offcpu = true;
		wt->offcpu[l] = 0;
		if (st && strcmp(st, "running")) {
			wt->offcpu[l] = (signed char)(1 + wait_kind(sc));
			if (sc)
				g->waits = true;
		}
	}
	return wt->offcpu[l];
}

/* Sample i's weights into node `id`. */
static void add_sample(const struct sf_profile *p, struct weights *wt,
		       struct svg_graph *g, size_t i, uint32_t id)
{
	double w = p->d.ntypes ? sf_weight(p, i, wt->t) : 1;
	struct svg_more *m = g->more ? &g->more[id] : NULL;
	int off;

	g->nodes[id].sw += w;
	/* more is there for a diff, and for any sample_off can find */
	if (g->diff)
		m->swb += sf_weight(p, i, wt->tb);
	if ((off = sample_off(p, wt, g, i))) {
		m->off += w;
		m->wait[off - 1] += w;
	}
}

/* The frames of stack `s` from the root, into *path, after `head` (a
 * group's label) unless that is NO_HEAD. */
static int stack_path(const struct sf_profile *p, sf_stack_id s,
		      sf_frame_id head, sf_frame_id **path, size_t *cap,
		      size_t *n)
{
	size_t d = head != NO_HEAD;

	for (sf_stack_id x = s; x; x = p->d.stacks[x].parent)
		d++;
	if (d > *cap) {
		sf_frame_id *np = realloc(*path, d * sizeof(*np));
		if (!np)
			return -1;
		*path = np;
		*cap = d;
	}
	*n = d;
	for (sf_stack_id x = s; x; x = p->d.stacks[x].parent)
		(*path)[--d] = p->d.stacks[x].frame;
	if (head != NO_HEAD)
		(*path)[0] = head;
	return 0;
}

#define FRAME_AHEAD 8

static bool frame_key_eq(const void *ctx, uint32_t id, const void *key)
{
	const struct builder *b = ctx;
	const struct sf_frame *x = &b->frames[id], *y = key;

	return x->name == y->name &&
	       (!b->by_module || (x->module == y->module &&
				  x->kind == y->kind));
}

/* Do the frames differ in what a node merges by: their names, or with
 * --by-module their (name, module, kind)?  Returns 1, 0, or -1 (out of
 * memory). */
static int frame_keys_distinct(struct builder *b, const struct sf_profile *p)
{
	struct sf_idx idx = { 0 };
	uint32_t dup;
	int rc = 1;

	b->frames = p->d.frames;
	for (size_t f = 0; f < p->d.nframes && rc == 1; f++) {
		const struct sf_frame *fr = &p->d.frames[f];
		uint64_t h = node_hash(b, 0, fr->name, fr->module, fr->kind);
		if (sf_idx_find(&idx, h, frame_key_eq, b, fr, &dup))
			rc = 0;
		else if (!sf_idx_insert(&idx, h, (uint32_t)f))
			rc = -1;
	}
	sf_idx_free(&idx);
	return rc;
}

/* Merged, or reversed: one node per distinct path. */
static int build_merged(struct builder *b, const struct sf_profile *p,
			struct weights *wt, bool reverse)
{
	size_t ns = p->d.nstacks ? p->d.nstacks : 1;
	int distinct = reverse ? 0 : b->distinct != DISTINCT_UNKNOWN ?
		       b->distinct : frame_keys_distinct(b, p);
	/* stack s -> its node; none where that is s itself */
	uint32_t *map = distinct ? NULL : calloc(ns, sizeof(*map));
	sf_frame_id *path = NULL;
	size_t cap = 0, n;
	int rc = 0;

	if (distinct < 0 || (!distinct && !map))
		return -1;
	/*
	 * Frames that all differ in what nodes merge by: two children of a
	 * stack node have different frames (the stack tree is a prefix
	 * tree), so their nodes never merge, and the graph is the stack
	 * tree, node s for stack s, as child_of would have made it (each
	 * stack node in order makes the next node).  A timeline of 3.7
	 * million nodes spent most of the graph's build in child_of and its
	 * child lists.
	 */
	if (distinct) {
		if (nodes_room(b, p->d.nstacks))
			rc = -1;
		for (size_t s = 1; s < p->d.nstacks && !rc; s++) {
			const struct sf_stack_node *sn = &p->d.stacks[s];
			node_add(b->g, sn->parent, &p->d.frames[sn->frame]);
		}
	} else if (!reverse) {
		/* stack ids grow from parent to child: a parent is mapped
		 * first.  The frame of a node FRAME_AHEAD further on is
		 * prefetched: frames are read at random places (a cache miss
		 * a node, most of child_of's time on a timeline of 50,000
		 * frames). */
		for (size_t s = 1; s < p->d.nstacks && !rc; s++) {
			const struct sf_stack_node *sn = &p->d.stacks[s];
			if (s + FRAME_AHEAD < p->d.nstacks)
				__builtin_prefetch(&p->d.frames[
					p->d.stacks[s + FRAME_AHEAD].frame]);
			rc = child_of(b, map[sn->parent],
				      &p->d.frames[sn->frame], &map[s]);
		}
	} else {
		/* only the stacks samples end in are paths of their own */
		unsigned char *used = calloc(ns, 1);
		if (!used)
			rc = -1;
		for (size_t i = 0; !rc && i < p->d.nsamples; i++)
			used[p->d.samples[i].stack] = 1;
		for (size_t s = 1; !rc && s < p->d.nstacks; s++) {
			if (!used[s])
				continue;
			if ((rc = stack_path(p, (sf_stack_id)s, NO_HEAD,
					     &path, &cap, &n)))
				break;
			uint32_t cur = 0;
			for (size_t k = n; k-- > 0 && !rc;)
				rc = child_of(b, cur, &p->d.frames[path[k]],
					      &cur);
			map[s] = cur;
		}
		free(used);
	}
	for (size_t i = 0; !rc && i < p->d.nsamples; i++) {
		uint32_t nd = map ? map[p->d.samples[i].stack] :
				    p->d.samples[i].stack, g;
		/* reversed, a group's label is the leaf: flamegraph.pl
		 * --reverse reverses the whole line "LABEL;..." */
		if (b->group && (g = group_of(b, p, i)) < b->ngroups &&
		    (rc = child_of(b, nd, &b->label[g], &nd)))
			break;
		add_sample(p, wt, b->g, i, nd);
	}
	free(path);
	free(map);
	return rc;
}

/*
 * Merged under a root frame per group: the samples are taken group by
 * group (a counting sort), and a group's stacks are mapped to nodes under
 * its label as they come, each stack once: map[s] is stack s's node in
 * the group that stamp[s] names (its index + 1).
 */
static int build_grouped(struct builder *b, const struct sf_profile *p,
			 struct weights *wt)
{
	size_t ns = p->d.nstacks ? p->d.nstacks : 1, n = p->d.nsamples;
	size_t ng = b->ngroups + 1, cap = 0;
	uint32_t *map = malloc(ns * sizeof(*map));
	uint32_t *stamp = calloc(ns, sizeof(*stamp));
	uint32_t *start = calloc(ng + 1, sizeof(*start));
	size_t *idx = malloc((n ? n : 1) * sizeof(*idx));
	sf_stack_id *up = NULL;
	int rc = -1;

	if (!map || !stamp || !start || !idx)
		goto out;
	for (size_t i = 0; i < n; i++)
		start[group_of(b, p, i) + 1]++;
	for (size_t g = 0; g < ng; g++)
		start[g + 1] += start[g];
	for (size_t i = 0; i < n; i++)
		idx[start[group_of(b, p, i)]++] = i;
	uint32_t cur = UINT32_MAX, base = 0;
	for (size_t k = 0; k < n; k++) {
		size_t i = idx[k], d = 0;
		uint32_t g = group_of(b, p, i);
		if (g != cur) {
			cur = g;
			base = 0;
			if (g < b->ngroups && child_of(b, 0, &b->label[g], &base))
				goto out;
		}
		/* the ancestors not yet mapped in this group, leaf first */
		for (sf_stack_id x = p->d.samples[i].stack;
		     x && stamp[x] != g + 1; x = p->d.stacks[x].parent) {
			if (d == cap) {
				size_t nc = cap ? 2 * cap : 64;
				sf_stack_id *nu = realloc(up, nc * sizeof(*nu));
				if (!nu)
					goto out;
				up = nu;
				cap = nc;
			}
			up[d++] = x;
		}
		while (d > 0) {
			sf_stack_id x = up[--d], par = p->d.stacks[x].parent;
			if (child_of(b, par ? map[par] : base,
				     &p->d.frames[p->d.stacks[x].frame],
				     &map[x]))
				goto out;
			stamp[x] = g + 1;
		}
		sf_stack_id s = p->d.samples[i].stack;
		add_sample(p, wt, b->g, i, s ? map[s] : base);
	}
	rc = 0;
out:
	free(map);
	free(stamp);
	free(start);
	free(idx);
	free(up);
	return rc;
}

/* for qsort: the profile, its builder, whether samples are in time */
static const struct sf_profile *chart_p;
static const struct builder *chart_b;
static bool chart_timed;

static int time_cmp(const void *a_, const void *b_)
{
	size_t ia = *(const size_t *)a_, ib = *(const size_t *)b_;
	const struct sf_sample *a = &chart_p->d.samples[ia];
	const struct sf_sample *b = &chart_p->d.samples[ib];

	/* a group's samples together: one root frame per group */
	if (chart_b->group) {
		uint32_t ga = group_of(chart_b, chart_p, ia);
		uint32_t gb = group_of(chart_b, chart_p, ib);
		if (ga != gb)
			return ga < gb ? -1 : 1;
	}
	/* SF_NO_THREAD is the largest index: those samples come last */
	if (chart_timed && a->thread != b->thread)
		return a->thread < b->thread ? -1 : 1;
	if (chart_timed && a->time != b->time)
		return a->time < b->time ? -1 : 1;
	return ia < ib ? -1 : 1;
}

static bool same_frame(const struct builder *b, const struct sf_profile *p,
		       sf_frame_id x, sf_frame_id y)
{
	return x == y || (!b->by_module &&
			  frame_at(b, p, x)->name == frame_at(b, p, y)->name);
}

/* Flame chart: consecutive samples share the nodes of their common
 * prefix (frames of one name, or with --by-module the same frame); any
 * other frame is a new node. */
static int build_chart(struct builder *b, const struct sf_profile *p,
		       struct weights *wt)
{
	size_t n = p->d.nsamples, cap = 0, pcap = 0, len, plen = 0;
	size_t *idx = malloc((n ? n : 1) * sizeof(*idx));
	sf_frame_id *path = NULL, *prev = NULL;
	uint32_t *nodes = NULL;
	bool timed = n > 0;
	int rc = 0;

	if (!idx)
		return -1;
	for (size_t i = 0; i < n; i++) {
		idx[i] = i;
		if (p->d.samples[i].time == SF_NO_TIME)
			timed = false;
	}
	chart_p = p;
	chart_b = b;
	chart_timed = timed;
	if (timed || b->group)
		qsort(idx, n, sizeof(*idx), time_cmp);
	sf_thread_idx prev_thread = SF_NO_THREAD;
	for (size_t k = 0; k < n && !rc; k++) {
		size_t i = idx[k];
		uint32_t g = b->group ? group_of(b, p, i) : UINT32_MAX;
		sf_frame_id head = g < b->ngroups ?
				   (sf_frame_id)(b->nframes + g) : NO_HEAD;
		if ((rc = stack_path(p, p->d.samples[i].stack, head, &path,
				     &cap, &len)))
			break;
		if (cap > pcap || !nodes) {
			sf_frame_id *np = realloc(prev, (cap + 1) *
						  sizeof(*np));
			if (np)
				prev = np;
			uint32_t *nn = realloc(nodes, (cap + 1) *
					       sizeof(*nn));
			if (nn)
				nodes = nn;
			if (!np || !nn) {
				rc = -1;
				break;
			}
			pcap = cap;
		}
		/* a thread's samples never continue another thread's, but
		 * for the root frame of their group */
		size_t same = 0, lim = len < plen ? len : plen;
		if (k && p->d.samples[i].thread != prev_thread)
			lim = lim && head != NO_HEAD && path[0] == prev[0];
		while (same < lim && same_frame(b, p, path[same], prev[same]))
			same++;
		nodes[0] = 0;
		for (size_t d = same; d < len && !rc; d++)
			rc = new_node(b, nodes[d], frame_at(b, p, path[d]),
				      &nodes[d + 1]);
		if (rc)
			break;
		memcpy(prev, path, len * sizeof(*prev));
		plen = len;
		prev_thread = p->d.samples[i].thread;
		add_sample(p, wt, b->g, i, nodes[len]);
	}
	free(idx);
	free(path);
	free(prev);
	free(nodes);
	return rc;
}

/* ----- placing ----- */

/*
 * g->order: node 0, then the others by parent and, among a parent's
 * children, by order_cmp, or for a flame chart in creation order (which
 * is time order).  The nodes are put in runs by parent (a counting sort,
 * each run in id order) and only the runs of two or more of a merged
 * graph are sorted: most runs of a large graph are one node long (qsort_r
 * of all nodes by (parent, ...), reading each compared node at a random
 * place of the node array, was 20 % of `sfconv --to svg` of a
 * 400,000-sample timeline).  The order is the one that sort gave:
 * order_cmp compares the parent first and is a total order (ids decide
 * last), so there is one sorted order.
 */
/* for qsort_r: frame ids, compared by their frames in `frames_` (the
 * profile's; passed, not kept in a static, so that two threads may each
 * draw a graph) */
static int frame_cmp(const void *a_, const void *b_, void *frames_)
{
	const struct sf_frame *frames = frames_;
	const struct sf_frame *a = &frames[*(const uint32_t *)a_];
	const struct sf_frame *b = &frames[*(const uint32_t *)b_];
	int c;

	if ((c = name_cmp(a->name, b->name)) ||
	    (c = strcmp_null(a->module, b->module)) ||
	    (c = strcmp_null(a->kind, b->kind)))
		return c;
	return 0;
}

/*
 * Per frame of `p`, its place in order_cmp's order of (name, module,
 * kind), equal frames equal.  Where every node but the root is made from
 * one of the profile's frames and no group labels are drawn, a node's key
 * in order_cmp is its frame's: by name alone siblings always differ in
 * name (the module and kind read NULL only where frames of one name
 * merged), and with --by-module nodes merge only frames of equal name,
 * module and kind.  So siblings sort by their frames' ranks, then by id.
 * NULL on ENOMEM.
 */
static uint32_t *frame_ranks(const struct sf_profile *p)
{
	size_t nf = p->d.nframes;
	uint32_t *ids = malloc((nf ? nf : 1) * sizeof(*ids));
	uint32_t *rank = malloc((nf ? nf : 1) * sizeof(*rank));

	if (!ids || !rank) {
		free(ids);
		free(rank);
		return NULL;
	}
	for (size_t f = 0; f < nf; f++)
		ids[f] = (uint32_t)f;
	qsort_r(ids, nf, sizeof(*ids), frame_cmp, (void *)p->d.frames);
	for (size_t k = 0, r = 0; k < nf; k++) {
		if (k && frame_cmp(&ids[k - 1], &ids[k], (void *)p->d.frames))
			r = k;
		rank[ids[k]] = (uint32_t)r;
	}
	free(ids);
	return rank;
}

/*
 * g->order: node 0, then the others in runs by parent (a counting sort,
 * each run in id order).  Returns the runs' ends (start[q] is the end of
 * q's run, start[q - 1] its start; the caller frees it), NULL on ENOMEM.
 */
static uint32_t *runs_by_parent(struct svg_graph *g)
{
	size_t n = g->n;
	uint32_t *start = calloc(n + 1, sizeof(*start));

	if (!start)
		return NULL;
	/* node 0 has parent UINT32_MAX: only the others go in runs */
	for (size_t i = 1; i < n; i++)
		start[g->nodes[i].parent + 1]++;
	for (size_t q = 0; q < n; q++)
		start[q + 1] += start[q];
	g->order[0] = 0;
	for (size_t i = 1; i < n; i++)
		g->order[1 + start[g->nodes[i].parent]++] = (uint32_t)i;
	return start;
}

static int key_cmp(const void *a_, const void *b_)
{
	uint64_t a = *(const uint64_t *)a_, b = *(const uint64_t *)b_;

	return a < b ? -1 : a > b;
}

/*
 * g->order from frame ranks (frame_ranks): the nodes put in runs by
 * parent (a counting sort, each run in id order), and each run of two or
 * more sorted by (rank, id), read once per node into a key: order_cmp's
 * order without comparing names (qsort_r of the runs with order_cmp, each
 * comparison reading two nodes and their frames at random places, was
 * 13 % of `sfconv --to svg` of a 400,000-sample timeline).
 */
static int sort_ranked(struct svg_graph *g, const struct sf_profile *p,
		       const uint32_t *rank)
{
	size_t n = g->n, kcap = 0;
	uint32_t *start = runs_by_parent(g);
	uint64_t *key = NULL;
	int rc = -1;

	if (!start)
		return -1;
	for (size_t q = 0, b = 0; q < n; b = start[q++]) {
		size_t len = start[q] - b;
		uint32_t *run = g->order + 1 + b;
		if (len < 2)
			continue;
		if (len > kcap) {
			uint64_t *nk = realloc(key, len * sizeof(*nk));
			if (!nk)
				goto out;
			key = nk;
			kcap = len;
		}
		for (size_t k = 0; k < len; k++)
			key[k] = (uint64_t)rank[g->nodes[run[k]].frame -
						p->d.frames] << 32 | run[k];
		if (len <= 8) {
			for (size_t k = 1; k < len; k++) {
				uint64_t v = key[k];
				size_t m = k;
				for (; m && key[m - 1] > v; m--)
					key[m] = key[m - 1];
				key[m] = v;
			}
		} else {
			qsort(key, len, sizeof(*key), key_cmp);
		}
		for (size_t k = 0; k < len; k++)
			run[k] = (uint32_t)key[k];
	}
	rc = 0;
out:
	free(start);
	free(key);
	return rc;
}

static int sort_nodes(struct svg_graph *g, bool chart)
{
	size_t n = g->n;
	uint32_t *start = runs_by_parent(g);

	if (!start)
		return -1;
	if (!chart)
		for (size_t p = 0, b = 0; p < n; b = start[p++])
			if (start[p] - b > 1)
				qsort_r(g->order + 1 + b, start[p] - b,
					sizeof(*g->order), order_cmp,
					g->nodes);
	free(start);
	return 0;
}

int sf_svg__graph_build(struct svg_graph *g, const struct sf_profile *p,
			struct sf_ctx *ctx, const struct svg_opts *o)
{
	struct builder b = { .g = g, .cap = 16, .by_module = o->by_module,
			     .nframes = p->d.nframes,
			     .distinct = DISTINCT_UNKNOWN };
	struct weights wt = { 0 };
	uint32_t *rank = NULL;    /* per frame, its place among siblings */
	int rc = 0;

	memset(g, 0, sizeof(*g));
	g->diff = sf_diff_types(p, &wt.tb, &wt.t);
	if (!g->diff && p->d.ntypes)
		wt.t = p->d.meta.default_type < p->d.ntypes ?
		       p->d.meta.default_type : (uint32_t)p->d.ntypes - 1;
	/* the BASE and off-CPU weights: only a diff has the one, only
	 * samples with labels (sample_off) the other */
	bool more = g->diff || p->d.nlabel_sets > 1;
	/* frames that never merge, merged and drawn by name order: only
	 * the frames drawn are made (svg_drawn.c) */
	if (!o->flamechart && o->group == GROUP_NONE && !o->reverse &&
	    !more && p->d.nstacks) {
		if ((b.distinct = frame_keys_distinct(&b, p)) < 0)
			return sf_error_nomem(ctx);
		if (b.distinct) {
			if (!(rank = frame_ranks(p)))
				return sf_error_nomem(ctx);
			rc = sf_svg__graph_drawn(g, p, ctx, o, wt.t, rank);
			/* 1: weights whose sums could be inexact; the whole
			 * graph's sort takes the same ranks */
			if (rc <= 0) {
				free(rank);
				return rc;
			}
			rc = 0;
		}
	}
	/* the whole graph takes none of the memory kept for a writer
	 * (format.h, takes_kept) */
	sf_big_drop(ctx);
	if (!(g->nodes = malloc(b.cap * sizeof(*g->nodes))) ||
	    !(b.kin = malloc(b.cap * sizeof(*b.kin))) ||
	    (more && !(g->more = calloc(b.cap, sizeof(*g->more)))) ||
	    (o->flamechart && !(b.pre = calloc(b.cap, sizeof(*b.pre))))) {
		free(g->nodes);
		free(g->more);
		free(b.kin);
		free(rank);
		g->nodes = NULL;
		g->more = NULL;
		return sf_error_nomem(ctx);
	}
	if (p->d.nlabel_sets > 1) {
		wt.offcpu = malloc(p->d.nlabel_sets);
		if (!wt.offcpu) {
			rc = sf_error_nomem(ctx);
			goto out;
		}
		memset(wt.offcpu, 0xff, p->d.nlabel_sets);
		wt.offcpu[0] = 0;
	}
	/* node 0 is "all" */
	static const struct sf_frame all = { .name = "all" };
	memset(&g->nodes[0], 0, sizeof(g->nodes[0]));
	g->nodes[0].frame = &all;
	g->nodes[0].parent = UINT32_MAX;
	b.kin[0] = (struct kin){ 0, 0, all.name };
	g->n = 1;
	if ((o->group != GROUP_NONE && make_groups(&b, p, o->group)) ||
	    (o->flamechart ? build_chart(&b, p, &wt) :
	     b.group && !o->reverse ? build_grouped(&b, p, &wt) :
	     build_merged(&b, p, &wt, o->reverse))) {
		rc = sf_error_nomem(ctx);
		goto out;
	}
	/* the child lists serve only the build: gone before the order and
	 * the widths are made, they are not part of the peak (24 bytes a
	 * node) */
	sf_idx_free(&b.idx);
	free(b.kin);
	b.kin = NULL;
	for (size_t i = 0; i < g->n; i++) {
		g->nodes[i].w = g->nodes[i].sw;
		if (g->more)
			g->more[i].wb = g->more[i].swb;
	}
	/* children have larger ids than their parents */
	for (size_t i = g->n; i-- > 1;)
		g->nodes[g->nodes[i].parent].w += g->nodes[i].w;
	for (size_t i = g->n; g->more && i-- > 1;) {
		const struct svg_more *m = &g->more[i];
		struct svg_more *pm = &g->more[g->nodes[i].parent];
		pm->wb += m->wb;
		pm->off += m->off;
		for (int k = 0; k < SVG_WAIT_N; k++)
			pm->wait[k] += m->wait[k];
	}
	g->total = g->nodes[0].w;
	sf_svg__graph_total(g, &g->nodes[0].w, o, ctx);
	if (!(g->order = malloc(g->n * sizeof(*g->order)))) {
		rc = sf_error_nomem(ctx);
		goto out;
	}
	if (!rank && !o->flamechart && !b.group &&
	    !(rank = frame_ranks(p))) {
		rc = sf_error_nomem(ctx);
		goto out;
	}
	if (rank ? sort_ranked(g, p, rank) : sort_nodes(g, o->flamechart)) {
		rc = sf_error_nomem(ctx);
		goto out;
	}

	double scale, minw, cut;
	if (sf_svg__graph_cut(g, o, &g->nodes[0].w, sizeof(g->nodes[0]),
			      g->n, NULL, &scale, &minw, &cut)) {
		rc = sf_error_nomem(ctx);
		goto out;
	}
	/* x offsets: children follow each other from the parent's x, after
	 * the parent's self weight drawn before them; the groups come in
	 * parent-id order, so a parent is placed first */
	uint32_t cur = UINT32_MAX;
	double cx = 0;
	g->nodes[0].drawn = true;
	g->drawn = 1;
	for (size_t k = 1; k < g->n; k++) {
		struct svg_node *nd = &g->nodes[g->order[k]];
		if (nd->parent != cur) {
			cur = nd->parent;
			cx = g->nodes[cur].x;
		}
		nd->x = cx + (b.pre ? b.pre[g->order[k]] : g->nodes[cur].sw);
		cx += nd->w;
		nd->drawn = g->nodes[nd->parent].drawn && nd->w > 0 &&
			    nd->w * scale >= minw && nd->w > cut;
		if (nd->drawn) {
			g->drawn++;
			if (nd->depth > g->maxdepth)
				g->maxdepth = nd->depth;
		} else if (nd->w > 0) {
			g->elided++;
		} else if (g->diff && g->more[g->order[k]].wb > 0) {
			g->removed++;
		}
	}
out:
	sf_idx_free(&b.idx);
	free(b.kin);
	free(b.pre);
	free(rank);
	free(wt.offcpu);
	/* the nodes point to the labels' frames and texts: the graph keeps
	 * them */
	g->labels = b.text;
	g->label_frames = b.label;
	g->nlabels = b.ngroups;
	free(b.group);
	return rc;
}

void sf_svg__graph_free(struct svg_graph *g)
{
	free(g->nodes);
	free(g->more);
	free(g->order);
	for (size_t i = 0; i < g->nlabels; i++)
		free(g->labels[i]);
	free(g->labels);
	free(g->label_frames);
	memset(g, 0, sizeof(*g));
}
