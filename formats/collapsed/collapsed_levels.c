/*
 * collapsed_levels.c - the collapsed writer without a thread prefix:
 * the lines found a level of the stack tree at a time and written in
 * chunks, on sf_jobs threads.  The order and the merging of equal names
 * are those of fmt_collapsed.c's walk (see its comment there).
 */
#include "collapsed.h"
#include "text.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/*
 * Without a thread prefix: the same order, level by level.  The walk
 * of fmt_collapsed.c (walk_emit) visits nodes depth first in key order,
 * which for a timeline (every sample its own stack, 3.7 million nodes)
 * is a cache miss per node into an index as large as the tree.  The
 * lines' order is that of their key sequences (the "c;" rank of each
 * frame above the line, then the "c" rank of its own), so it can be
 * found a level at a time:
 *
 *  - the nodes of level d are entries (merged parent, key, node), put in
 *    order by a counting sort on the merged parent (a merged node's id
 *    is the index of its run, so the parents' ids are in their level's
 *    order) and a sort of each parent's few children by key, node; runs
 *    of equal (parent, key) are one merged node of the output tree (a
 *    "c;" key) or one line (a "c" key), summed in node order as the walk
 *    sums them;
 *  - a level's runs are in output order: level 1's are the top's
 *    children in key order, and if level d - 1's merged nodes are in
 *    output order, so are level d's runs, sorted by their merged parent
 *    first.  So the lines are written by a walk of the merged tree that
 *    reads each level's runs forward from a cursor of its own: a merged
 *    node's children are the runs at its level's cursor that name it as
 *    their parent.  The text of the merged nodes on the path is kept
 *    from one line to the next;
 *  - the walk can begin at any run (struct wstate says how), so the
 *    output is cut into chunks written on sf_jobs threads, each chunk's
 *    bytes those of the one walk: -j1 and -jN give the same output.
 *
 * Every pass reads its arrays in about memory order: node ids within a
 * level, and their parents' merged ids, increase together; the walk
 * reads each level's runs and line sums forward.
 */
struct lent {
	uint32_t key;              /* its key's rank (struct walk's krank) */
	uint32_t node;             /* its place (struct levels), which
				    * orders as the node ids do; for an own
				    * line its weight's index in the level's
				    * `lw`, which orders the same */
	uint32_t pp;               /* its parent's merged id (run) */
	uint32_t nm;               /* name id; LENT_LINE: an own line */
};
#define LENT_LINE 0x80000000u

struct lrun {
	uint32_t pp;               /* the parent's run (a merged node's id
				    * is its run's index; run 0 stands for
				    * the top) */
	uint32_t nm;               /* name id; LENT_LINE: an own line */
};

/* One parent's children by key, then node. */
static int lent_cmp(const void *a, const void *b)
{
	const struct lent *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->node < y->node ? -1 : x->node > y->node;
}

/* A stack node as the levels read it, in level order (the nodes of a
 * level in id order): a level is one forward read, where reading it
 * from the node arrays touched a line of each array per node, every
 * level again. */
struct lrec {
	uint32_t ppos;             /* its parent's place */
	uint32_t nm;               /* name id */
	double weight;             /* its weight in context 0 */
};

/* A level's records are cut into at most this many parts (struct
 * lpart), of at least PART_MIN records each. */
#define MAX_PARTS 2
#define PART_MIN (32u << 10)

/* A name as the walk copies it: its text in the entry itself when it
 * fits (NTXT_LONG: no, read t->names), 32 bytes so that an entry never
 * spans two cache lines.  The walk reads names at random, and a name
 * through struct oname was two lines apart, the entry and its text. */
struct ntxt {
	uint8_t len;
	char txt[31];
};
#define NTXT_LONG 0xff

struct levels {
	size_t nlevels;
	struct ntxt *ntab;         /* by name id (struct ntxt), on a
				    * cache line's start */
	void *ntab_mem;            /* what was allocated for it */
	struct lrec *rec;          /* by place: level d is rec[dstart[d] ..
				    * dstart[d + 1]) */
	size_t rec_cap;            /* rec's (and runs') bytes, for
				    * sf_big_free */
	unsigned char *flags;      /* by place: its flags in context 0 */
	uint32_t *dstart;
	uint32_t *merged;          /* by place: its merged id (places with
				    * F_BELOW) */
	size_t merged_cap;         /* its bytes, for sf_big_free */
	struct lent *sorted;       /* one level's entries, in order */
	double *lw;                /* one level's line weights, read in node
				    * order (the entries stay 16 bytes) */
	uint32_t *cnt[MAX_PARTS];  /* one level's entries per parent, a
				    * count per part (struct lpart) */
	unsigned jobs;
	struct crew *crew;         /* with two jobs, a large tree
				    * (collapsed_crew.c) */
	struct lrun *runs;         /* every level's runs, in order */
	size_t nruns;
	uint32_t *rstart;          /* level d's: runs[rstart[d] ..) */
	uint32_t *lstart;          /* level d's lines: from lstart[d] */
	double *line_sum;          /* by line id */
};

static void levels_free(struct levels *l)
{
	if ((void *)l->rec != (void *)l->runs)
		sf_big_free(l->rec, l->rec_cap);
	free(l->flags);
	free(l->dstart);
	sf_big_free(l->merged, l->merged_cap);
	free(l->sorted);
	free(l->lw);
	for (size_t k = 0; k < MAX_PARTS; k++)
		free(l->cnt[k]);
	sf_big_free(l->runs, l->rec_cap);
	free(l->rstart);
	free(l->lstart);
	free(l->line_sum);
	free(l->ntab_mem);
}

/*
 * Sort a parent's children (lent_cmp).  Most parents have one or two:
 * insertion, inline.  More are sorted by key alone, stably, in passes of
 * a byte of the key (a radix sort): a parent's entries are placed in
 * node order (part_place: records in place order, part 0's before part
 * 1's, a record's line before its subtree entry, whose keys differ), so
 * entries of equal key are in node order already.  A timeline's level 3,
 * the 50,000 children of "main" under one parent, went through qsort on
 * one part while the other, with no parent left, waited.  `tmp` is room
 * for the passes, grown here; if it cannot grow, qsort sorts.
 */
static void lent_radix(struct lent *e, size_t n, struct lent **tmp,
		       size_t *tmpcap)
{
	uint32_t top = 0;

	for (size_t i = 0; i < n; i++)
		top |= e[i].key;
	if (sf_grow(tmp, tmpcap, n, sizeof(**tmp))) {
		qsort(e, n, sizeof(*e), lent_cmp);
		return;
	}
	struct lent *a = e, *b = *tmp;
	for (unsigned sh = 0; sh < 32 && top >> sh; sh += 8) {
		size_t at[256] = { 0 };
		for (size_t i = 0; i < n; i++)
			at[(a[i].key >> sh) & 255]++;
		for (size_t d = 0, sum = 0; d < 256; d++) {
			size_t c = at[d];
			at[d] = sum;
			sum += c;
		}
		for (size_t i = 0; i < n; i++)
			b[at[(a[i].key >> sh) & 255]++] = a[i];
		struct lent *x = a;
		a = b;
		b = x;
	}
	if (a != e)
		memcpy(e, a, n * sizeof(*e));
}

static inline void lent_sort(struct lent *e, size_t n, struct lent **tmp,
			     size_t *tmpcap)
{
	if (n > 16) {
		lent_radix(e, n, tmp, tmpcap);
		return;
	}
	for (size_t i = 1; i < n; i++) {
		struct lent x = e[i];
		size_t j = i;
		for (; j && (x.key < e[j - 1].key ||
			     (x.key == e[j - 1].key && x.node < e[j - 1].node));
		     j--)
			e[j] = e[j - 1];
		e[j] = x;
	}
}

/*
 * Counting, placing and sorting a level's entries are done in parts
 * that may run on two threads (struct crew): the records are
 * cut in halves, each counts its entries per parent in a count array of
 * its own, and the places are then handed out parent by parent, the
 * first part's before the second's, which is where one pass over all
 * the records in order puts them; a part's line weights follow the lines
 * of the parts before it.  So the entries, and all that follows, are the
 * same bytes for any number of parts.  With one job, or a level of
 * fewer than 2 PART_MIN records, there is one part: cut, the work costs
 * a little more (per-part counts, a count of the runs), which only a
 * second thread pays back.  Then each part sorts the children of half the parents
 * and counts their runs and lines, and after the parts before it have
 * counted theirs, makes those runs and line sums: a run never spans two
 * parents.
 */
struct lpart {
	uint32_t beg, end;         /* its records */
	uint32_t nl;               /* its lines */
	uint32_t nw;               /* its first line's index in `lw` */
	size_t gbeg, gend;         /* the parents whose children it sorts */
	uint32_t ebeg, eend;       /* and their entries */
	uint32_t rn, ln;           /* their runs and lines */
	uint32_t roff, loff;       /* its first run, its first line */
};

struct lshare {
	const struct walk *w;
	struct levels *l;
	uint32_t pbase;            /* the parents' first run */
	size_t np;                 /* parents */
	size_t nparts;
	struct lpart part[MAX_PARTS];
};

/* Part k's entries per parent into its count array. */
static void part_count(void *arg, size_t k)
{
	struct lshare *s = arg;
	const struct levels *l = s->l;
	struct lpart *pt = &s->part[k];
	uint32_t *cnt = l->cnt[k], nl = 0;

	memset(cnt, 0, s->np * sizeof(*cnt));
	for (uint32_t i = pt->beg; i < pt->end; i++) {
		unsigned f = l->flags[i];
		if (f) {
			cnt[l->merged[l->rec[i].ppos] - s->pbase] +=
				(f & F_LINE) + ((f & F_BELOW) >> 1);
			nl += f & F_LINE;
		}
	}
	pt->nl = nl;
}

/* Part k's entries where its count array says, each moving it on. */
static void part_place(void *arg, size_t k)
{
	struct lshare *s = arg;
	const uint32_t *krank = s->w->krank;
	struct levels *l = s->l;
	struct lpart *pt = &s->part[k];
	uint32_t *cnt = l->cnt[k], nw = pt->nw, pbase = s->pbase;

	for (uint32_t i = pt->beg; i < pt->end; i++) {
		unsigned f = l->flags[i];
		if (!f)
			continue;
		uint32_t nm = l->rec[i].nm;
		uint32_t pp = l->merged[l->rec[i].ppos];
		uint32_t *c = &cnt[pp - pbase];
		if (f & F_LINE) {
			l->lw[nw] = l->rec[i].weight;
			l->sorted[(*c)++] = (struct lent){
				krank[2 * nm], nw++, pp, nm | LENT_LINE };
		}
		if (f & F_BELOW)
			l->sorted[(*c)++] = (struct lent){
				krank[2 * nm + 1], i, pp, nm };
	}
}

/* The children of part k's parents by key, node, and, but for the last
 * part's, their runs and lines counted (the parts after need them).
 * The last part's count array holds the end of each parent's entries. */
static void part_sort(void *arg, size_t k)
{
	struct lshare *s = arg;
	struct lpart *pt = &s->part[k];
	struct levels *l = s->l;
	const uint32_t *end = l->cnt[s->nparts - 1];
	uint32_t rn = 0, ln = 0;
	struct lent *tmp = NULL;
	size_t tmpcap = 0;

	pt->ebeg = pt->gbeg ? end[pt->gbeg - 1] : 0;
	pt->eend = pt->gend ? end[pt->gend - 1] : 0;
	for (size_t g = pt->gbeg, b = pt->ebeg; g < pt->gend; b = end[g++])
		lent_sort(l->sorted + b, end[g] - b, &tmp, &tmpcap);
	free(tmp);
	if (k + 1 == s->nparts)
		return;    /* the last part's runs are counted as made */
	for (uint32_t i = pt->ebeg; i < pt->eend; i++) {
		const struct lent *e = &l->sorted[i];
		if (i == pt->ebeg || e->pp != e[-1].pp || e->key != e[-1].key) {
			rn++;
			ln += (e->nm & LENT_LINE) != 0;
		}
	}
	pt->rn = rn;
	pt->ln = ln;
}

/* Part k's runs of equal (parent, key): a line sums its weights in node
 * order, as the walk does; a merged node is named as its members'
 * merged id. */
static void part_runs(void *arg, size_t k)
{
	struct lshare *s = arg;
	struct lpart *pt = &s->part[k];
	struct levels *l = s->l;
	const struct lent *sorted = l->sorted;
	uint32_t r = pt->roff, ln = pt->loff;

	for (uint32_t i = pt->ebeg, j; i < pt->eend; i = j) {
		const struct lent *e = &sorted[i];
		for (j = i + 1; j < pt->eend && sorted[j].pp == e->pp &&
				sorted[j].key == e->key; j++)
			;
		if (e->nm & LENT_LINE) {
			double sum = 0;
			for (uint32_t m = i; m < j; m++)
				sum += l->lw[sorted[m].node];
			l->line_sum[ln++] = sum;
		} else {
			for (uint32_t m = i; m < j; m++)
				l->merged[sorted[m].node] = r;
		}
		l->runs[r++] = (struct lrun){ e->pp, e->nm };
	}
	pt->rn = r - pt->roff;
	pt->ln = ln - pt->loff;
}

/* Put level d's entries in order (struct lpart) and append its runs and
 * line sums. */
static void level_runs(const struct walk *w, struct levels *l, size_t d,
		       uint32_t empty_name, uint32_t *nlines)
{
	uint32_t beg = l->dstart[d], end = l->dstart[d + 1];
	struct lshare s = { .w = w, .l = l, .pbase = l->rstart[d - 1],
			    .np = l->rstart[d] - l->rstart[d - 1] };
	size_t nparts = l->jobs > 1 && end - beg >= 2 * PART_MIN ? 2 : 1;
	size_t nent;

	s.nparts = nparts;
	/* node 0's own line, the empty line, among the root frames (one
	 * named "" merges with it); its parent is the top, run 0 */
	bool empty = d == 1 && (l->flags[0] & F_LINE);

	for (size_t k = 0; k < nparts; k++)
		s.part[k] = (struct lpart){
			.beg = beg + (uint32_t)((end - beg) * k / nparts),
			.end = beg + (uint32_t)((end - beg) * (k + 1) / nparts),
			.gbeg = s.np * k / nparts,
			.gend = s.np * (k + 1) / nparts };
	sf_collapsed__crew_run(l->crew, nparts, part_count, &s);
	/* each part's first place per parent, and its first line */
	nent = empty;
	for (size_t g = 0; g < s.np; g++)
		for (size_t k = 0; k < nparts; k++) {
			uint32_t c = l->cnt[k][g];
			l->cnt[k][g] = (uint32_t)nent;
			nent += c;
		}
	s.part[0].nw = empty;
	for (size_t k = 1; k < nparts; k++)
		s.part[k].nw = s.part[k - 1].nw + s.part[k - 1].nl;
	if (empty) {
		l->lw[0] = l->rec[0].weight;
		l->sorted[0] = (struct lent){ w->krank[2 * empty_name], 0, 0,
					      empty_name | LENT_LINE };
	}
	sf_collapsed__crew_run(l->crew, nparts, part_place, &s);
	sf_collapsed__crew_run(l->crew, nparts, part_sort, &s);
	s.part[0].roff = (uint32_t)l->nruns;
	s.part[0].loff = *nlines;
	for (size_t k = 1; k < nparts; k++) {
		s.part[k].roff = s.part[k - 1].roff + s.part[k - 1].rn;
		s.part[k].loff = s.part[k - 1].loff + s.part[k - 1].ln;
	}
	sf_collapsed__crew_run(l->crew, nparts, part_runs, &s);
	l->nruns = s.part[nparts - 1].roff + s.part[nparts - 1].rn;
	*nlines = s.part[nparts - 1].loff + s.part[nparts - 1].ln;
}

/*
 * The walk, from any line on.  Its state at depth d: the cursor into
 * level d's runs and the number of level d's lines before it, the
 * merged node on the path (its run) and the end of its text in `path`.
 * Where a chunk of the output begins, that state is what the walk from
 * the first line would have there: the path is the chunk's first run's
 * ancestors (climbed through `pp`), above it each cursor is just past
 * the ancestor's run, below it each level's cursor is at the first run
 * whose parent is at or after the level above's cursor (every run
 * before that belongs to an earlier part of the output), and the lines
 * before each cursor are counted once for all chunks.  So each chunk
 * can be written on its own, and the chunks' bytes one after the other
 * are the bytes of one walk, whatever the number of threads.
 */
struct wstate {
	uint32_t *rcur, *lcur, *chain, *pathoff;   /* per depth */
	char *path;
	size_t pathcap;
	size_t d;                  /* the depth to go on at */
};

#define RUN_AHEAD 8

/* Name nm's text: from its entry when it fits there. */
static inline const char *ntxt_get(const struct ntxt *nt,
				   const struct onames *t, uint32_t nm,
				   uint32_t *len)
{
	const struct ntxt *x = &nt[nm];

	if (x->len != NTXT_LONG) {
		*len = x->len;
		return x->txt;
	}
	*len = t->names[nm].len;
	return t->names[nm].txt;
}

/* Put the text of the merged node at depth d, name nm, on the path.
 * Returns 0, or -1 when out of memory. */
static int path_push(struct wstate *st, size_t d, const struct ntxt *nt,
		     const struct onames *t, uint32_t nm)
{
	size_t at = st->pathoff[d - 1] + (d > 1);
	const struct ntxt *x = &nt[nm];

	/* room for the whole entry: a short name is copied 32 bytes at a
	 * time, what follows it on the path overwritten later */
	if (sf_grow(&st->path, &st->pathcap, at + sizeof(*x) + 1, 1))
		return -1;
	if (d > 1)
		st->path[at - 1] = ';';
	if (x->len != NTXT_LONG) {
		memcpy(st->path + at, x->txt, sizeof(x->txt));
		st->pathoff[d] = (uint32_t)(at + x->len);
		return 0;
	}
	const struct oname *o = &t->names[nm];
	if (sf_grow(&st->path, &st->pathcap, at + o->len + 1, 1))
		return -1;
	memcpy(st->path + at, o->txt, o->len);
	st->pathoff[d] = (uint32_t)(at + o->len);
	return 0;
}

/* Write the lines from st's state on, until run `stop` of level `dstop`
 * would be next (dstop 0: to the end).  `first`: the output's first
 * line is among them.  Returns 0, or -1 when out of memory or `out` failed
 * (a memory output that could not grow, a write error). */
static int level_walk(const struct levels *l, const struct onames *t,
		      struct wstate *st, size_t dstop, uint32_t stop,
		      struct sf_output *out, bool first)
{
	size_t nlevels = l->nlevels;
	uint32_t *rcur = st->rcur;

	for (size_t d = st->d; d;) {
		if (d == nlevels || rcur[d] == l->rstart[d + 1] ||
		    l->runs[rcur[d]].pp != st->chain[d - 1]) {
			d--;
			continue;
		}
		if (d == dstop && rcur[d] == stop)
			break;
		const struct lrun *u = &l->runs[rcur[d]++];
		uint32_t nm = u->nm & ~LENT_LINE;
		/* each level is a stream of its own, too many streams for
		 * the hardware to follow: bring in this level's runs and
		 * the name of a run a few ahead (names are read at random) */
		if (rcur[d] + 2 * RUN_AHEAD < l->nruns) {
			__builtin_prefetch(u + 2 * RUN_AHEAD);
			__builtin_prefetch(&l->ntab[u[RUN_AHEAD].nm &
						    ~LENT_LINE]);
		}
		if (!(u->nm & LENT_LINE)) {
			if (path_push(st, d, l->ntab, t, nm))
				return -1;
			st->chain[d] = (uint32_t)(u - l->runs);
			d++;
			continue;
		}
		uint32_t len;
		const char *txt = ntxt_get(l->ntab, t, nm, &len);
		if (first) {
			/* the line begins with the path, or is one name */
			if (d > 1)
				sf_text_guard_mark(out, st->path,
						   st->pathoff[d - 1]);
			else
				sf_text_guard_mark(out, txt, len);
			first = false;
		}
		sf_output_write(out, st->path, st->pathoff[d - 1]);
		if (d > 1)
			sf_output_putc(out, ';');
		sf_output_write(out, txt, len);
		sf_output_putc(out, ' ');
		/* the level's line sums are one more stream */
		if (st->lcur[d] + RUN_AHEAD < l->lstart[nlevels])
			__builtin_prefetch(&l->line_sum[st->lcur[d] +
							RUN_AHEAD]);
		sf_output_num(out, l->line_sum[st->lcur[d]++]);
		sf_output_putc(out, '\n');
	}
	return sf_output_failed(out) ? -1 : 0;
}

/* The output in chunks: chunk k > 0 begins at run start[k] of level ds;
 * cur[k * nlevels + d] and lines[k * nlevels + d] are the walk's cursor
 * into level d there and the lines of level d before it. */
struct chunks {
	size_t n, ds;
	uint32_t *start, *cur, *lines;
};

/* The walk's cursors where run r of level ds is next (struct wstate).
 * Returns the number of runs before them. */
static size_t chunk_cursors(const struct levels *l, size_t ds, uint32_t r,
			    uint32_t *cur)
{
	size_t before = 0;
	uint32_t a = r;

	for (size_t d = ds; d-- > 1;) {
		a = l->runs[a].pp;
		cur[d] = a + 1;
	}
	cur[ds] = r;
	for (size_t d = ds + 1; d < l->nlevels; d++) {
		/* the first run whose parent is not before cur[d - 1] */
		uint32_t lo = l->rstart[d], hi = l->rstart[d + 1];
		while (lo < hi) {
			uint32_t mid = lo + (hi - lo) / 2;
			if (l->runs[mid].pp < cur[d - 1])
				lo = mid + 1;
			else
				hi = mid;
		}
		cur[d] = lo;
	}
	for (size_t d = 1; d < l->nlevels; d++)
		before += cur[d] - l->rstart[d];
	return before;
}

/* Runs a chunk holds at least, and chunks at most: a timeline's 3.7
 * million runs make 32 chunks of 2.4 MB of text (the memory a thread's
 * chunk holds before it is written out); each cut costs a binary search
 * of the walk's cursors, about 40 us. */
#define CHUNK_RUNS (32u << 10)
#define MAX_CHUNKS 32

/* Cut the output into chunks of CHUNK_RUNS runs or more each, at runs
 * of the first level that has 16 runs a chunk (so that the cuts can fall
 * near where they are wanted).  The cuts depend on the runs alone, not
 * on the number of threads.  Returns 0, or -1 when out of memory. */
static int make_chunks(const struct levels *l, struct chunks *c)
{
	size_t nl = l->nlevels, want = l->nruns / CHUNK_RUNS, ds = 1;

	if (want > MAX_CHUNKS)
		want = MAX_CHUNKS;
	c->n = 1;
	if (want < 2)
		return 0;
	while (ds < nl && l->rstart[ds + 1] - l->rstart[ds] < 16 * want)
		ds++;
	if (ds == nl)
		return 0;
	c->ds = ds;
	if (!(c->start = sf_calloc(want, sizeof(*c->start))) ||
	    !(c->cur = sf_calloc(want * nl, sizeof(*c->cur))) ||
	    !(c->lines = sf_calloc(want * nl, sizeof(*c->lines))))
		return -1;
	uint32_t *cur = c->cur;
	for (size_t d = 1; d < nl; d++)
		cur[d] = l->rstart[d];
	size_t total = l->nruns - 1;
	uint32_t lo = l->rstart[ds];
	for (size_t k = 1; k < want; k++) {
		/* the first run of level ds with k / want of the runs
		 * before it */
		size_t goal = total / want * k;
		uint32_t hi = l->rstart[ds + 1];
		while (lo < hi) {
			uint32_t mid = lo + (hi - lo) / 2;
			if (chunk_cursors(l, ds, mid, c->cur + c->n * nl) <
			    goal)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo == l->rstart[ds + 1])
			break;
		if (lo == (c->n > 1 ? c->start[c->n - 1] : l->rstart[ds]))
			continue;  /* no run between two cuts */
		chunk_cursors(l, ds, lo, c->cur + c->n * nl);
		c->start[c->n++] = lo;
	}
	/* the lines before each cursor: a level's cursors only move on
	 * from chunk to chunk, so each level is counted once */
	for (size_t d = 1; d < nl; d++) {
		uint32_t r = l->rstart[d], n = l->lstart[d];
		for (size_t k = 0; k < c->n; k++) {
			for (; r < c->cur[k * nl + d]; r++)
				n += (l->runs[r].nm & LENT_LINE) != 0;
			c->lines[k * nl + d] = n;
		}
	}
	return 0;
}

static void chunks_free(struct chunks *c)
{
	free(c->start);
	free(c->cur);
	free(c->lines);
}

/* What the threads writing chunks share: the memory outputs the
 * chunks of the threads other than this one are written to, whether a
 * chunk is done and how it went, and how many chunks are written out. */
struct wshare {
	const struct levels *l;
	const struct onames *t;
	const struct chunks *c;
	size_t nj;                 /* threads */
	struct sf_output **mem;    /* by slot (wslot) */
	int *rc;                   /* by chunk: 0, or -1 out of memory */
	bool *done;                /* by chunk */
	size_t written;            /* chunks written out */
	bool stop;                 /* an error: the threads give up */
	pthread_mutex_t lock;
	pthread_cond_t cond;
};

/* A thread writing chunks: chunks first, first + nj, ... */
struct wjob {
	struct wshare *s;
	struct wstate st;
	size_t first;
	pthread_t thread;
	bool started;
};

/* A thread is at most WINDOW rounds of chunks ahead of the output, so
 * at most WINDOW chunks a thread wait in memory. */
#define WINDOW 2

/* The memory output chunk k is written to.  A thread writes chunk k only
 * once chunk k - WINDOW * nj is written out, so WINDOW * nj outputs are
 * enough, each emptied and used again: their pages are faulted in once,
 * where an output per chunk took 2-4 MB of fresh memory 16 times over on
 * a timeline. */
static size_t wslot(const struct wshare *s, size_t k)
{
	return k % (WINDOW * s->nj);
}

static int wstate_init(struct wstate *st, size_t nlevels)
{
	st->path = NULL;
	st->pathcap = 0;
	st->rcur = sf_calloc(nlevels, sizeof(*st->rcur));
	st->lcur = sf_calloc(nlevels, sizeof(*st->lcur));
	st->chain = sf_calloc(nlevels, sizeof(*st->chain));
	st->pathoff = sf_calloc(nlevels, sizeof(*st->pathoff));
	return st->rcur && st->lcur && st->chain && st->pathoff ? 0 : -1;
}

static void wstate_free(struct wstate *st)
{
	free(st->rcur);
	free(st->lcur);
	free(st->chain);
	free(st->pathoff);
	free(st->path);
}

/* Write chunk k to `out`: set the walk's state where it begins (the
 * path of its first run's ancestors), then walk to the next chunk. */
static int chunk_write(struct wjob *j, size_t k, struct sf_output *out)
{
	const struct levels *l = j->s->l;
	const struct chunks *c = j->s->c;
	const struct onames *t = j->s->t;
	struct wstate *st = &j->st;
	size_t nl = l->nlevels;

	st->chain[0] = 0;
	st->pathoff[0] = 0;
	if (!k) {
		for (size_t d = 1; d < nl; d++) {
			st->rcur[d] = l->rstart[d];
			st->lcur[d] = l->lstart[d];
		}
		st->d = 1;
	} else {
		memcpy(st->rcur, c->cur + k * nl, nl * sizeof(*st->rcur));
		memcpy(st->lcur, c->lines + k * nl, nl * sizeof(*st->lcur));
		st->d = c->ds;
		for (size_t d = 1; d < c->ds; d++) {
			uint32_t a = st->rcur[d] - 1;
			st->chain[d] = a;
			if (path_push(st, d, l->ntab, t, l->runs[a].nm))
				return -1;
		}
	}
	if (k + 1 < c->n)
		return level_walk(l, t, st, c->ds, c->start[k + 1], out, !k);
	return level_walk(l, t, st, 0, 0, out, !k);
}

static void *chunk_thread(void *arg)
{
	struct wjob *j = arg;
	struct wshare *s = j->s;

	for (size_t k = j->first; k < s->c->n; k += s->nj) {
		pthread_mutex_lock(&s->lock);
		while (!s->stop && k >= s->written + WINDOW * s->nj)
			pthread_cond_wait(&s->cond, &s->lock);
		bool stop = s->stop;
		pthread_mutex_unlock(&s->lock);
		if (stop)
			break;
		int rc = chunk_write(j, k, s->mem[wslot(s, k)]);
		pthread_mutex_lock(&s->lock);
		s->rc[k] = rc;
		s->done[k] = true;
		pthread_cond_broadcast(&s->cond);
		pthread_mutex_unlock(&s->lock);
	}
	return NULL;
}

/* Write the chunks on `jobs` threads: thread i writes chunks i, i +
 * jobs, ...; this one (i = 0) writes its own straight to `out` and, in
 * between, copies the others' out of memory in order.  The threads run
 * on without waiting for each other but for the window. */
static int chunks_write(const struct levels *l, const struct onames *t,
			const struct chunks *c, unsigned jobs,
			struct sf_output *out, struct sf_ctx *ctx)
{
	struct wshare s = { .l = l, .t = t, .c = c,
			    .nj = jobs < c->n ? jobs : c->n };
	struct wjob *js = sf_calloc(s.nj, sizeof(*js));
	size_t nslots = WINDOW * s.nj;
	int rc = 0;

	s.mem = sf_calloc(nslots, sizeof(*s.mem));
	s.rc = sf_calloc(c->n, sizeof(*s.rc));
	s.done = sf_calloc(c->n, sizeof(*s.done));
	if (!js || !s.mem || !s.rc || !s.done) {
		rc = sf_error_nomem(ctx);
		goto out;
	}
	for (size_t i = 0; i < s.nj; i++) {
		js[i] = (struct wjob){ .s = &s, .first = i };
		if (wstate_init(&js[i].st, l->nlevels)) {
			rc = sf_error_nomem(ctx);
			goto out;
		}
	}
	/* the memory outputs are made here, where an error can be told;
	 * this thread's chunks need none */
	for (size_t k = 0; k < nslots && k < c->n; k++)
		if (k % s.nj && (rc = sf_output_mem(&s.mem[k], ctx)))
			goto out;
	pthread_mutex_init(&s.lock, NULL);
	pthread_cond_init(&s.cond, NULL);
	for (size_t i = 1; i < s.nj; i++)
		js[i].started = !sf_thread_start(&js[i].thread,
						 chunk_thread, &js[i]);
	/* a write error on `out` (a full disk, a closed pipe) ends the
	 * walk but is no error here: the output keeps it, and its commit
	 * reports it as for any other writer */
	for (size_t k = 0; k < c->n && !rc && !sf_output_failed(out); k++) {
		struct wjob *j = &js[k % s.nj];
		if (!j->started) {
			/* this thread's chunk, or one of a thread that could
			 * not be started */
			if (chunk_write(&js[0], k, out) &&
			    !sf_output_failed(out))
				rc = sf_error_nomem(ctx);
		} else {
			pthread_mutex_lock(&s.lock);
			while (!s.done[k])
				pthread_cond_wait(&s.cond, &s.lock);
			pthread_mutex_unlock(&s.lock);
			size_t len;
			struct sf_output *m = s.mem[wslot(&s, k)];
			const char *b = sf_output_mem_data(m, &len);
			if (s.rc[k])
				rc = sf_error_nomem(ctx);
			else
				sf_output_write(out, b, len);
			/* emptied before the chunk counts as written out: the
			 * thread may then write chunk k + WINDOW * nj to it */
			sf_output_mem_clear(m);
		}
		pthread_mutex_lock(&s.lock);
		s.written = k + 1;
		s.stop = rc != 0 || sf_output_failed(out);
		pthread_cond_broadcast(&s.cond);
		pthread_mutex_unlock(&s.lock);
	}
	for (size_t i = 1; i < s.nj; i++)
		if (js[i].started)
			pthread_join(js[i].thread, NULL);
	pthread_mutex_destroy(&s.lock);
	pthread_cond_destroy(&s.cond);
out:
	for (size_t k = 0; s.mem && k < nslots; k++)
		sf_output_abort(s.mem[k]);
	for (size_t i = 0; js && i < s.nj; i++)
		wstate_free(&js[i].st);
	free(js);
	free(s.mem);
	free(s.rc);
	free(s.done);
	return rc;
}

/* Below this many bytes of records and places a thread to touch them
 * costs more than it saves. */
#define TOUCH_MIN ((size_t)1 << 20)

/* Write a zero into each page of memory that calloc made zero: the same
 * bytes, but the page is then faulted in and cleared by this thread. */
static void *touch_thread(void *arg)
{
	struct level_mem *m = arg;
	/* the records' pages taken from the stack tree (sf_big_take) are
	 * in already: touching them costs a write each */
	volatile unsigned char *b[2] = { m->rec, (void *)m->place };
	size_t len[2] = { m->n * sizeof(struct lrec),
			  m->n * sizeof(*m->place) };

	for (int a = 0; a < 2; a++)
		for (size_t i = 0; i < len[a]; i += 4096)
			b[a][i] = 0;
	return NULL;
}

int sf_collapsed__level_mem(struct level_mem *m, const struct sf_profile *p,
			    struct sf_ctx *ctx)
{
	m->n = p->d.nstacks ? p->d.nstacks : 1;
	/* the stack tree's child lists, given up when loading ended
	 * (sf_profile_trim_keep), hold 12 bytes a node, faulted in: most
	 * of the records' 16, and the places after them.  Each record and
	 * place is written whole before it is read (record_write,
	 * part_places), so their old bytes do not matter */
	m->rec_cap = 0;
	if (sf_big_take(ctx, &m->rec, &m->rec_cap,
			m->n * sizeof(struct lrec)))
		m->rec = sf_calloc(m->n, sizeof(struct lrec));
	m->place_cap = 0;
	if (sf_big_take(ctx, &m->place, &m->place_cap,
			m->n * sizeof(*m->place)))
		m->place = sf_calloc(m->n, sizeof(*m->place));
	m->touching = false;
	if (!m->rec || !m->place) {
		sf_collapsed__level_mem_free(m);
		return sf_error_nomem(ctx);
	}
	/* the thread only speeds things up: if it cannot start, the
	 * writer faults the pages in itself */
	if (sf_jobs(ctx) > 1 &&
	    m->n * (sizeof(struct lrec) + sizeof(*m->place)) >= TOUCH_MIN)
		m->touching = !sf_thread_start(&m->toucher, touch_thread, m);
	return 0;
}

/* Wait for the thread touching m's pages: no byte may be written there
 * before. */
static void level_mem_wait(struct level_mem *m)
{
	if (m->touching)
		pthread_join(m->toucher, NULL);
	m->touching = false;
}

void sf_collapsed__level_mem_free(struct level_mem *m)
{
	level_mem_wait(m);
	sf_big_free(m->rec, m->rec_cap);
	sf_big_free(m->place, m->place_cap);
	m->rec = NULL;
	m->place = NULL;
}

/*
 * The records in level order, in parts on threads of their own (where
 * a level's would be, struct lpart): part k's nodes take each level's
 * places after those of the parts before it, which is where one pass in
 * node order puts them.  A record names its parent's place, which may
 * be another part's, so every part finds its nodes' places first, and
 * then writes their records.  One part does both in one pass: the
 * parent is placed before its child.
 */
struct rshare {
	const struct sf_stack_node *stacks;
	const uint32_t *frame_name;
	struct lrec *rec;
	uint32_t *place;
	uint32_t *cur[MAX_PARTS];  /* by level: part k's next place, first
				    * its nodes per level (part_depths) */
	size_t ncur[MAX_PARTS];    /* cur[k]'s entries */
	bool nomem[MAX_PARTS];     /* part_depths could not grow cur[k] */
	size_t vbeg[MAX_PARTS + 1];    /* part k's nodes */
};

/* Count part k's nodes per level into cur[k], grown as deeper nodes come
 * (no pass before finds the depth: the counts are one pass over the 12
 * bytes of each node, where the depth first was a pass of its own). */
static void part_depths(void *arg, size_t k)
{
	struct rshare *r = arg;
	uint32_t *c = r->cur[k];
	size_t nc = r->ncur[k];

	for (size_t v = r->vbeg[k]; v < r->vbeg[k + 1]; v++) {
		uint32_t d = r->stacks[v].depth;
		if (d >= nc) {
			size_t nn = 2 * nc > (size_t)d + 1 ? 2 * nc :
							     (size_t)d + 1;
			uint32_t *g = sf_reallocarray(c, nn, sizeof(*c));
			if (!g) {
				r->nomem[k] = true;
				break;
			}
			memset(g + nc, 0, (nn - nc) * sizeof(*g));
			c = g;
			nc = nn;
		}
		c[d]++;
	}
	r->cur[k] = c;
	r->ncur[k] = nc;
}

static void part_places(void *arg, size_t k)
{
	struct rshare *r = arg;
	uint32_t *cur = r->cur[k];

	for (size_t v = r->vbeg[k]; v < r->vbeg[k + 1]; v++)
		r->place[v] = cur[r->stacks[v].depth]++;
}

static inline void record_write(struct rshare *r, size_t v)
{
	const struct sf_stack_node *sn = &r->stacks[v];
	struct lrec *rc = &r->rec[r->place[v]];

	rc->ppos = r->place[sn->parent];
	rc->nm = r->frame_name[sn->frame];
	rc->weight = 0;   /* the samples' weights are added to it */
}

static void part_records(void *arg, size_t k)
{
	struct rshare *r = arg;

	for (size_t v = r->vbeg[k]; v < r->vbeg[k + 1]; v++)
		record_write(r, v);
}

static void records_one_part(struct rshare *r)
{
	for (size_t v = 0; v < r->vbeg[1]; v++) {
		r->place[v] = r->cur[0][r->stacks[v].depth]++;
		record_write(r, v);
	}
}

/*
 * F_BELOW a level at a time from the deepest up, a level's records cut
 * into parts as in struct lpart: a record with a flag gives its parent
 * (a level up) F_BELOW.  Two parts may give it to one parent at once:
 * each sets that bit alone of the byte (the parents' F_LINE is final),
 * by relaxed atomic loads and stores, so the bytes are the same whoever
 * stores last.  Each part counts its records' flags (nbelow, nline,
 * summed over the levels).
 */
struct fshare {
	struct levels *l;
	uint32_t beg[MAX_PARTS + 1];   /* part k's records */
	size_t nbelow[MAX_PARTS], nline[MAX_PARTS];
};

static void part_flags(void *arg, size_t k)
{
	struct fshare *s = arg;
	struct levels *l = s->l;
	unsigned char *flags = l->flags;
	size_t nb = 0, nl = 0;

	for (uint32_t i = s->beg[k]; i < s->beg[k + 1]; i++) {
		unsigned f = flags[i];
		if (f) {
			unsigned char *q = &flags[l->rec[i].ppos];
			unsigned char o = __atomic_load_n(q, __ATOMIC_RELAXED);
			__atomic_store_n(q, (unsigned char)(o | F_BELOW),
					 __ATOMIC_RELAXED);
		}
		nb += (f & F_BELOW) != 0;
		nl += f & F_LINE;
	}
	s->nbelow[k] += nb;
	s->nline[k] += nl;
}

int sf_collapsed__level_emit(struct walk *w, struct level_mem *m,
			     struct sf_output *out, uint32_t empty_name,
			     struct sf_ctx *ctx)
{
	const struct sf_profile *p = w->p;
	const struct onames *t = w->names;
	size_t n = p->d.nstacks ? p->d.nstacks : 1;
	struct levels l = { 0 };
	struct chunks c = { 0 };
	/* level 1 at least: it holds node 0's own line */
	size_t nlevels = 2, maxlev = 1;
	uint32_t nlines = 0;
	int rc = 0;

	l.jobs = sf_jobs(ctx);
	size_t nparts = l.jobs > 1 && n >= 2 * PART_MIN ? 2 : 1;
	struct rshare rs = { .stacks = p->d.stacks, .frame_name = t->frame_name,
			     .vbeg = { 0, n / nparts, n } };

	/* the parts run on this thread too if the crew cannot start */
	if (nparts > 1)
		l.crew = sf_collapsed__crew_start();
	rs.vbeg[nparts] = p->d.nstacks;
	for (size_t k = 0; k < nparts; k++) {
		rs.ncur[k] = 64;
		if (!(rs.cur[k] = sf_calloc(rs.ncur[k], sizeof(*rs.cur[k]))))
			goto nomem;
	}
	sf_collapsed__crew_run(l.crew, nparts, part_depths, &rs);
	for (size_t k = 0; k < nparts; k++) {
		if (rs.nomem[k])
			goto nomem;
		for (size_t d = rs.ncur[k]; d-- > nlevels;)
			if (rs.cur[k][d]) {
				nlevels = d + 1;
				break;
			}
	}
	l.nlevels = nlevels;
	/* the counts become the parts' cursors, one a level and one more */
	for (size_t k = 0; k < nparts; k++) {
		if (rs.ncur[k] > nlevels)
			continue;
		uint32_t *g = sf_reallocarray(rs.cur[k], nlevels + 1,
					      sizeof(*g));
		if (!g)
			goto nomem;
		memset(g + rs.ncur[k], 0,
		       (nlevels + 1 - rs.ncur[k]) * sizeof(*g));
		rs.cur[k] = g;
		rs.ncur[k] = nlevels + 1;
	}
	if (!(l.dstart = sf_calloc(nlevels + 1, sizeof(*l.dstart))) ||
	    !(l.flags = sf_calloc(n, sizeof(*l.flags))) ||
	    !(l.rstart = sf_calloc(nlevels + 1, sizeof(*l.rstart))) ||
	    !(l.lstart = sf_calloc(nlevels + 1, sizeof(*l.lstart))))
		goto nomem;
	/* the levels' starts, and each part's first place per level: part
	 * 1's after part 0's */
	for (size_t d = 0; d < nlevels; d++) {
		uint32_t at = l.dstart[d];
		for (size_t k = 0; k < nparts; k++) {
			uint32_t cnt = rs.cur[k][d];
			rs.cur[k][d] = at;
			at += cnt;
		}
		l.dstart[d + 1] = at;
		if (at - l.dstart[d] > maxlev)
			maxlev = at - l.dstart[d];
	}
	/* the records and places are ours from here on, freed with the
	 * levels */
	level_mem_wait(m);
	uint32_t *place = m->place;
	l.rec = m->rec;
	l.rec_cap = m->rec_cap;
	m->place = NULL;
	m->rec = NULL;
	rs.place = place;
	rs.rec = l.rec;
	if (nparts > 1) {
		sf_collapsed__crew_run(l.crew, nparts, part_places, &rs);
		sf_collapsed__crew_run(l.crew, nparts, part_records, &rs);
	} else {
		records_one_part(&rs);
	}
	for (size_t k = 0; k < MAX_PARTS; k++) {
		free(rs.cur[k]);
		rs.cur[k] = NULL;
	}
	/* the samples' weights and F_LINE straight into the records (in
	 * sample order, the order the walk sums them in), then F_BELOW
	 * from the deepest level up: a node with a flag makes its parent
	 * F_BELOW.  Where climbing from each sample was a chain of
	 * dependent loads, this reads the levels forward. */
	for (size_t i = 0; i < p->d.nsamples; i++) {
		uint32_t at = place[p->d.samples[i].stack];
		/* the records of the samples ahead, at about random places */
		if (i + 8 < p->d.nsamples)
			__builtin_prefetch(&l.rec[place[p->d.samples[i + 8]
							.stack]]);
		l.rec[at].weight += sf_collapsed__weight(w, i);
		l.flags[at] |= F_LINE;
	}
	/* a node gives at most a line and a merged node, node 0 one line
	 * more and the top's run; counted in the same pass, as a level's
	 * flags are whole once the level below has been read */
	struct fshare fs = { .l = &l };
	for (size_t d = nlevels; d-- > 1;) {
		uint32_t beg = l.dstart[d], end = l.dstart[d + 1];
		size_t np = l.jobs > 1 && end - beg >= 2 * PART_MIN ? 2 : 1;
		for (size_t k = 0; k <= np; k++)
			fs.beg[k] = beg + (uint32_t)((end - beg) * k / np);
		sf_collapsed__crew_run(l.crew, np, part_flags, &fs);
	}
	size_t nbelow = 1 + ((l.flags[0] & F_BELOW) != 0);
	size_t nline = 1 + (l.flags[0] & F_LINE);
	for (size_t k = 0; k < MAX_PARTS; k++) {
		nbelow += fs.nbelow[k];
		nline += fs.nline[k];
	}
	if (nbelow + nline >= UINT32_MAX) {
		/* a run's index is 32 bits (struct lrun) */
		rc = sf_error(ctx, SF_ELIMIT, NULL, 0,
			      "collapsed: more than 4 billion lines and "
			      "frames cannot be written");
		sf_big_free(place, m->place_cap);
		goto done;
	}
	/* a node's merged id is written at its level before its children
	 * read it, so `place` can hold them without clearing */
	l.merged = place;
	l.merged_cap = m->place_cap;
	l.merged[0] = 0;
	size_t maxent = 2 * maxlev + 1;
	if (!(l.sorted = sf_calloc(maxent, sizeof(*l.sorted))) ||
	    !(l.lw = sf_calloc(maxlev + 1, sizeof(*l.lw))) ||
	    !(l.cnt[0] = sf_calloc(nbelow + nline + 1, sizeof(*l.cnt[0]))) ||
	    !(l.cnt[1] = sf_calloc(nbelow + nline + 1, sizeof(*l.cnt[1]))) ||
	    !(l.line_sum = sf_calloc(nline, sizeof(*l.line_sum))))
		goto nomem;
	/* The runs take the records' memory, level by level behind them:
	 * a place gives at most two runs of 8 bytes where its record had
	 * 16, node 0 one line and the top's run, so the runs up to level d
	 * end at or before the first record of level d + 1, and level d's
	 * own records are read into `sorted` before its runs are written.
	 * Fresh memory costs about what its page faults do (clearing the
	 * pages most), so 30 MB of a timeline not touched anew pay. */
	_Static_assert(sizeof(struct lrec) == 2 * sizeof(struct lrun),
		       "two runs fit in a record");
	/* the levels' entries are keyed by the ranks */
	sf_collapsed__ranks_wait(w);
	l.runs = (struct lrun *)(void *)l.rec;
	l.runs[0] = (struct lrun){ 0, 0 };    /* the top */
	l.nruns = 1;
	l.rstart[0] = 0;
	for (size_t d = 1; d < nlevels; d++) {
		l.rstart[d] = (uint32_t)l.nruns;
		l.lstart[d] = nlines;
		level_runs(w, &l, d, empty_name, &nlines);
	}
	l.rstart[nlevels] = (uint32_t)l.nruns;
	l.lstart[nlevels] = nlines;
	sf_collapsed__crew_stop(l.crew);
	l.crew = NULL;
	free(l.sorted);
	free(l.lw);
	for (size_t k = 0; k < MAX_PARTS; k++) {
		free(l.cnt[k]);
		l.cnt[k] = NULL;
	}
	free(l.flags);
	sf_big_free(l.merged, l.merged_cap);
	l.sorted = NULL;
	l.lw = NULL;
	l.rec = NULL;
	l.flags = NULL;
	l.merged = NULL;
	if (!(l.ntab_mem = sf_calloc((t->nnames ? t->nnames : 1) + 2,
				     sizeof(*l.ntab))))
		goto nomem;
	l.ntab = (struct ntxt *)(((uintptr_t)l.ntab_mem + 63) &
				 ~(uintptr_t)63);
	for (size_t i = 0; i < t->nnames; i++) {
		const struct oname *o = &t->names[i];
		if (o->len > sizeof(l.ntab[i].txt)) {
			l.ntab[i].len = NTXT_LONG;
			continue;
		}
		l.ntab[i].len = (uint8_t)o->len;
		if (o->len)    /* an empty name's text may be NULL */
			memcpy(l.ntab[i].txt, o->txt, o->len);
	}
	if (make_chunks(&l, &c))
		goto nomem;
	rc = chunks_write(&l, t, &c, sf_jobs(ctx), out, ctx);
	goto done;
nomem:
	rc = sf_error_nomem(ctx);
done:
	sf_collapsed__crew_stop(l.crew);
	for (size_t k = 0; k < MAX_PARTS; k++)
		free(rs.cur[k]);
	chunks_free(&c);
	levels_free(&l);
	return rc;
}
