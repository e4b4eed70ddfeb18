/* view.c - from a profile to the filtered, exact view every report reads
 * (see analyze.h for the rules). */
#include "analyze.h"
#include "an_internal.h"
#include "hash.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define UNSET UINT32_MAX

enum { FR_DONE = 1, FR_HIDE = 2, FR_FOCUS = 4, FR_IGNORE = 8 };

/* A thread key is a profile thread index, or nthreads for "no thread". */
static size_t tkey(const struct sf_profile *p, sf_thread_idx t)
{
	return t == SF_NO_THREAD ? p->d.nthreads : t;
}

static void key_label(const struct sf_profile *p, size_t k, char *buf,
		      size_t n)
{
	if (k == p->d.nthreads) {
		snprintf(buf, n, "(none)");
		return;
	}
	sf_thread_label(&p->d.threads[k], buf, n);
	if (!buf[0])
		snprintf(buf, n, "(thread %zu)", k);
}

/* The tables of this file: each holds ids into an array the builder owns,
 * and these say when an id's entry equals a key. */
struct tid_seen {
	const struct sf_profile *p;
	const size_t *order;    /* id -> thread key */
};

static bool tid_eq(const void *ctx, uint32_t id, const void *key)
{
	const struct tid_seen *c = ctx;

	return c->p->d.threads[c->order[id]].tid == *(const int64_t *)key;
}

static bool frame_name_eq(const void *ctx, uint32_t id, const void *key)
{
	const struct sf_profile *p = ctx;

	return p->d.frames[id].name == *(const char *const *)key;
}

static bool func_eq(const void *ctx, uint32_t id, const void *key)
{
	const struct sf_an_view *v = ctx;

	return v->names[id] == *(const char *const *)key;
}

/* key: { parent, func } */
static bool node_eq(const void *ctx, uint32_t id, const void *key)
{
	const struct sf_an_view *v = ctx;
	const uint32_t *k = key;

	return v->nodes[id].parent == k[0] && v->nodes[id].func == k[1];
}

/* ids[k]: call-graph id of thread key k, -1 if it has no sample. */
static int thread_ids(int64_t **out, const struct sf_profile *p, int mode,
		      struct sf_ctx *ctx)
{
	size_t nk = p->d.nthreads + 1, nseen = 0;
	int64_t *id = malloc(nk * sizeof(*id));
	size_t *order = malloc(nk * sizeof(*order));
	struct sf_idx seen = { 0 };
	struct tid_seen sc = { p, order };
	bool tid_ok = true;
	int64_t maxtid = -1;
	int rc = 0;

	if (!id || !order) {
		rc = sf_error_nomem(ctx);
		goto done;
	}
	for (size_t k = 0; k < nk; k++)
		id[k] = -1;
	for (size_t i = 0; i < p->d.nsamples; i++) {
		size_t k = tkey(p, p->d.samples[i].thread);
		if (id[k] == -1) {
			id[k] = -2;
			order[nseen++] = k;
		}
	}
	for (size_t j = 0; j < nseen && tid_ok; j++) {
		size_t k = order[j];
		int64_t t = k == p->d.nthreads ? -1 : p->d.threads[k].tid;
		uint64_t h = sf_hash(&t, sizeof(t));
		uint32_t dup;
		if (t < 0 || t == SF_NO_ID ||
		    sf_idx_find(&seen, h, tid_eq, &sc, &t, &dup)) {
			tid_ok = false;
			break;
		}
		if (!sf_idx_insert(&seen, h, (uint32_t)j)) {
			rc = sf_error_nomem(ctx);
			goto done;
		}
		if (t > maxtid)
			maxtid = t;
	}
	if (mode == SF_AN_TIDS_TID && !tid_ok) {
		rc = sf_error(ctx, SF_EUSAGE, NULL, 0,
			      "--thread-ids tid: not every thread has a "
			      "distinct numeric tid");
		goto done;
	}
	if (mode == SF_AN_TIDS_TID && maxtid >= (1 << 24)) {
		rc = sf_error(ctx, SF_ELIMIT, NULL, 0,
			      "--thread-ids tid: tid %lld is too large for a "
			      "list of thread times", (long long)maxtid);
		goto done;
	}
	bool use_tid = mode == SF_AN_TIDS_TID ||
		       (mode == SF_AN_TIDS_AUTO && tid_ok && maxtid < 1024);
	for (size_t j = 0; j < nseen; j++) {
		size_t k = order[j];
		id[k] = use_tid ? p->d.threads[k].tid : (int64_t)j;
	}
done:
	sf_idx_free(&seen);
	free(order);
	if (rc) {
		free(id);
		return rc;
	}
	*out = id;
	return 0;
}

/* sel[k] = the thread is named by a --thread selector (NULL: all). */
static int select_threads(bool **out, const struct sf_profile *p,
			  const struct sf_an_filter *f, const int64_t *id,
			  struct sf_ctx *ctx)
{
	size_t nk = p->d.nthreads + 1;
	bool *sel;

	*out = NULL;
	if (!f->nthreads)
		return 0;
	if (!(sel = calloc(nk, sizeof(*sel))))
		return sf_error_nomem(ctx);
	for (size_t s = 0; s < f->nthreads; s++) {
		const char *want = f->threads[s];
		bool any = false;
		for (size_t k = 0; k < nk; k++) {
			char label[128], tid[32] = "";
			if (id[k] < 0)
				continue;
			key_label(p, k, label, sizeof(label));
			if (k < p->d.nthreads &&
			    p->d.threads[k].tid != SF_NO_ID)
				snprintf(tid, sizeof(tid), "%lld",
					 (long long)p->d.threads[k].tid);
			if (!strcmp(want, label) || !strcmp(want, tid) ||
			    (k < p->d.nthreads && p->d.threads[k].name &&
			     !strcmp(want, p->d.threads[k].name))) {
				sel[k] = true;
				any = true;
			}
		}
		if (!any) {
			free(sel);
			return sf_error(ctx, SF_EUSAGE, NULL, 0,
					"--thread '%s' matches no thread", want);
		}
	}
	*out = sel;
	return 0;
}

int sf_an_threads(struct sf_an_thread **out, size_t *n,
		  const struct sf_profile *p, const struct sf_an_filter *f,
		  struct sf_ctx *ctx)
{
	int64_t *id = NULL;
	bool *sel = NULL;
	size_t nk = p->d.nthreads + 1, m = 0;
	struct sf_an_thread *t = NULL;
	int rc;

	if ((rc = thread_ids(&id, p, f->tids, ctx)) ||
	    (rc = select_threads(&sel, p, f, id, ctx)))
		goto done;
	if (!(t = calloc(nk, sizeof(*t)))) {
		rc = sf_error_nomem(ctx);
		goto done;
	}
	for (size_t k = 0; k < nk; k++) {
		if (id[k] < 0 || (sel && !sel[k]))
			continue;
		t[m].id = id[k];
		t[m].idx = k == p->d.nthreads ? SF_NO_THREAD : (sf_thread_idx)k;
		key_label(p, k, t[m].label, sizeof(t[m].label));
		m++;
	}
	/* insertion sort by id: thread counts are small */
	for (size_t i = 1; i < m; i++) {
		struct sf_an_thread x = t[i];
		size_t j = i;
		while (j && t[j - 1].id > x.id) {
			t[j] = t[j - 1];
			j--;
		}
		t[j] = x;
	}
done:
	free(id);
	free(sel);
	if (rc) {
		free(t);
		return rc;
	}
	*out = t;
	*n = m;
	return 0;
}

void sf_an_view_free(struct sf_an_view *v)
{
	if (!v)
		return;
	free(v->names);
	sf_big_free(v->nodes, v->nodes_cap);
	free(v->samples);
	free(v->threads);
	free(v);
}

void sf_an_view_drop_stacks(struct sf_an_view *v, struct sf_ctx *ctx)
{
	sf_big_keep(ctx, v->nodes, v->nodes_cap);
	free(v->samples);
	v->nodes = NULL;
	v->samples = NULL;
	v->nnodes = v->nsamples = 0;
	v->nodes_cap = 0;
}

static bool any_match(const regex_t *r, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (!regexec(&r[i], s, 0, NULL, 0))
			return true;
	return false;
}

struct builder {
	const struct sf_profile *p;
	const struct sf_an_filter *f;
	struct sf_an_view *v;
	uint8_t *frflags;      /* per profile frame */
	uint8_t *stflags;      /* per profile stack: FR_DONE|FR_FOCUS|FR_IGNORE */
	uint32_t *vnode;       /* per profile stack */
	uint32_t *frfunc;      /* per profile frame: its function, or UNSET */
	uint32_t *walk;        /* scratch, maxdepth + 1 */
	struct sf_idx funcs;     /* name pointer -> func */
	struct sf_idx nodes;     /* (parent, func) -> node */
	/* per view node: the folded sample of the current thread that ends
	 * there, or UNSET (samples come thread by thread, so an entry of an
	 * earlier thread is stale; its rank tells) */
	uint32_t *fold_at;
	size_t cap_names, cap_nodes;
	size_t vnode_bytes, fold_bytes;   /* sf_an__big_array's */
	/* no two profile stacks can reach one view node (no --hide, no
	 * --collapse-recursion, no two frames with one name): every
	 * child_of call makes a new node, and `nodes` is not needed */
	bool direct;
};

static uint8_t frame_flags(struct builder *b, sf_frame_id fr)
{
	uint8_t x = b->frflags[fr];

	if (x & FR_DONE)
		return x;
	const char *name = b->p->d.frames[fr].name;
	x = FR_DONE;
	if (any_match(b->f->hide, b->f->nhide, name))
		x |= FR_HIDE;
	if (any_match(b->f->focus, b->f->nfocus, name))
		x |= FR_FOCUS;
	if (any_match(b->f->ignore, b->f->nignore, name))
		x |= FR_IGNORE;
	b->frflags[fr] = x;
	return x;
}

/* FR_FOCUS / FR_IGNORE: some frame of stack s matches. */
static uint8_t stack_flags(struct builder *b, sf_stack_id s)
{
	size_t n = 0;

	while (s && !(b->stflags[s] & FR_DONE)) {
		b->walk[n++] = s;
		s = b->p->d.stacks[s].parent;
	}
	uint8_t acc = s ? b->stflags[s] : FR_DONE;
	while (n--) {
		s = b->walk[n];
		acc |= frame_flags(b, b->p->d.stacks[s].frame) &
		       (FR_FOCUS | FR_IGNORE);
		b->stflags[s] = acc;
	}
	return acc;
}

static int func_of(struct builder *b, const char *name, uint32_t *out,
		   struct sf_ctx *ctx)
{
	uint64_t h = sf_hash(&name, sizeof(name));
	struct sf_an_view *v = b->v;

	if (sf_idx_find(&b->funcs, h, func_eq, v, &name, out))
		return 0;
	if (sf_grow(&v->names, &b->cap_names, v->nfuncs + 1,
		    sizeof(*v->names)))
		return sf_error_nomem(ctx);
	v->names[v->nfuncs] = name;
	if (!sf_idx_insert(&b->funcs, h, (uint32_t)v->nfuncs))
		return sf_error_nomem(ctx);
	*out = (uint32_t)v->nfuncs++;
	return 0;
}

static int child_of(struct builder *b, uint32_t parent, uint32_t func,
		    uint32_t *out, struct sf_ctx *ctx)
{
	uint32_t key[2] = { parent, func };
	uint64_t h = b->direct ? 0 : sf_hash_u64(parent, func);
	struct sf_an_view *v = b->v;

	if (!b->direct && sf_idx_find(&b->nodes, h, node_eq, v, key, out))
		return 0;
	/* a node per profile stack at most (view_node makes one only for a
	 * stack it has not seen): the arrays have room for all from the
	 * start */
	if (v->nnodes >= b->cap_nodes || v->nnodes >= UINT32_MAX - 1)
		return sf_error(ctx, SF_ELIMIT, NULL, 0, "too many stacks");
	struct sf_an_node *n = &v->nodes[v->nnodes];
	n->parent = parent;
	n->func = func;
	n->depth = v->nodes[parent].depth + 1;
	b->fold_at[v->nnodes] = UNSET;
	if (n->depth > v->maxdepth)
		v->maxdepth = n->depth;
	if (!b->direct && !sf_idx_insert(&b->nodes, h, (uint32_t)v->nnodes))
		return sf_error_nomem(ctx);
	*out = (uint32_t)v->nnodes++;
	return 0;
}

/* The view node of profile stack s (after --hide, --collapse-recursion). */
static int view_node(struct builder *b, sf_stack_id s, uint32_t *out,
		     struct sf_ctx *ctx)
{
	size_t n = 0;
	int rc;

	while (s && b->vnode[s] == UNSET) {
		b->walk[n++] = s;
		s = b->p->d.stacks[s].parent;
	}
	uint32_t cur = s ? b->vnode[s] : 0;
	while (n--) {
		s = b->walk[n];
		sf_frame_id fr = b->p->d.stacks[s].frame;
		if (!b->f->nhide || !(frame_flags(b, fr) & FR_HIDE)) {
			uint32_t func = b->frfunc[fr];
			if (func == UNSET &&
			    (rc = func_of(b, b->p->d.frames[fr].name,
					  &b->frfunc[fr], ctx)))
				return rc;
			func = b->frfunc[fr];
			if (!(b->f->collapse_recursion && cur &&
			      b->v->nodes[cur].func == func) &&
			    (rc = child_of(b, cur, func, &cur, ctx)))
				return rc;
		}
		b->vnode[s] = cur;
	}
	*out = cur;
	return 0;
}

static int bits128(unsigned __int128 x)
{
	int n = 0;

	while (x) {
		n++;
		x >>= 1;
	}
	return n;
}

/* exp for the double weights of type t: every weight is an integer
 * multiple of 2^exp; SF_ELIMIT if the sums could overflow 127 bits.
 *
 * No sum of the analyses adds one sample more than `per_sample` times, so
 * each is at most (sum of all weights) * per_sample: the check is on that
 * bound, which folding (exact sums, see profile.h) leaves unchanged,
 * rather than on the largest weight times the number of samples, which
 * folding would raise.  A folded sample's lowest bit can only be higher
 * than its parts', so a folded profile passes whenever the unfolded one
 * does, with the same values (only the unit 2^exp may differ). */
static int weight_exp(const struct sf_profile *p, uint32_t t,
		      uint64_t per_sample, int *out, struct sf_ctx *ctx)
{
	int lo = INT32_MAX, hi = INT32_MIN;
	double bound = 0;   /* >= the sum of all weights (each < 2^e) */
	uint64_t before = 0;

	for (size_t i = 0; i < p->d.nsamples; i++) {
		double w = t < p->d.ntypes ? sf_weight(p, i, t) :
					     (double)sf_sample_count(p, i);
		int e;
		before += sf_sample_count(p, i);
		if (w == 0)
			continue;
		if (!isfinite(w) || w < 0)
			/* folding stops at a negative weight (profile.h):
			 * this is raw sample `before` */
			return sf_error(ctx, SF_EINPUT, NULL, 0,
					"sample %llu has weight %g: the "
					"analyses need finite non-negative "
					"weights", (unsigned long long)before,
					w);
		double m = frexp(w, &e);
		uint64_t mi = (uint64_t)ldexp(m, 53);
		int low = e - 53 + __builtin_ctzll(mi);
		if (low < lo)
			lo = low;
		if (e > hi)
			hi = e;
		bound += ldexp(1, e);
	}
	if (lo == INT32_MAX) {
		*out = 0;
		return 0;
	}
	int eb;
	/* every sum is below 2^eb * per_sample / 2^lo (the factor 2 covers
	 * the rounding of `bound`, far smaller); 126 bits keep one spare bit
	 * of int128 and never refuse what the former check (largest weight x
	 * samples x (depth + 2) within 124 bits) accepted */
	frexp(bound * 2, &eb);
	if (eb - lo + bits128(per_sample) > 126)
		return sf_error(ctx, SF_ELIMIT, NULL, 0,
				"sample weights span too wide a range for "
				"exact sums (2^%d to 2^%d)", lo, hi);
	*out = lo;
	return 0;
}

static sf_an_w scale_w(double w, int exp)
{
	int e;

	if (exp == 0 && w < 9007199254740992.0 && w == (double)(int64_t)w)
		return (sf_an_w)(int64_t)w;   /* the common case: counts */
	if (w == 0)
		return 0;
	double m = frexp(w, &e);
	int64_t mi = (int64_t)ldexp(m, 53);
	int sh = e - 53 - exp;
	return sh >= 0 ? (sf_an_w)mi << sh : (sf_an_w)(mi >> -sh);
}

void *sf_an__big_array(size_t n, size_t size, size_t *bytes,
		       struct sf_ctx *ctx)
{
	void *a = NULL;

	*bytes = 0;
	if (n && size > SIZE_MAX / n)
		return NULL;
	if (!sf_big_take(ctx, &a, bytes, n * size))
		return a;
	return sf_malloc(n * size);
}

int sf_an_view_build(struct sf_an_view **out, const struct sf_profile *p,
		     const struct sf_an_filter *f, const int64_t *only,
		     struct sf_ctx *ctx)
{
	size_t nk = p->d.nthreads + 1, ns = p->d.nsamples;
	struct sf_an_view *v = calloc(1, sizeof(*v));
	struct builder b = { .p = p, .f = f, .v = v };
	int64_t *id = NULL;
	bool *sel = NULL, *keep = NULL;
	size_t *rank = NULL, *start = NULL, *ord = NULL;
	sf_an_w *dur = NULL;
	bool *dropped = NULL;
	size_t cap_samples = 0;
	uint32_t pmax = 0;
	uint64_t occ = 0;
	int rc = 0;

	if (!v)
		return sf_error_nomem(ctx);
	v->max_id = -1;
	if ((rc = thread_ids(&id, p, f->tids, ctx)) ||
	    (rc = select_threads(&sel, p, f, id, ctx)))
		goto done;

	/* which threads, and their order (by id) */
	keep = calloc(nk, sizeof(*keep));
	rank = malloc(nk * sizeof(*rank));
	v->threads = calloc(nk, sizeof(*v->threads));
	if (!keep || !rank || !v->threads) {
		rc = sf_error_nomem(ctx);
		goto done;
	}
	for (size_t k = 0; k < nk; k++)
		keep[k] = id[k] >= 0 && (!sel || sel[k]) &&
			  (!only || id[k] == *only);
	for (size_t k = 0; k < nk; k++) {
		if (!keep[k])
			continue;
		struct sf_an_thread *t = &v->threads[v->nthreads++];
		t->id = id[k];
		t->idx = k == p->d.nthreads ? SF_NO_THREAD : (sf_thread_idx)k;
		key_label(p, k, t->label, sizeof(t->label));
	}
	for (size_t i = 1; i < v->nthreads; i++) {
		struct sf_an_thread x = v->threads[i];
		size_t j = i;
		while (j && v->threads[j - 1].id > x.id) {
			v->threads[j] = v->threads[j - 1];
			j--;
		}
		v->threads[j] = x;
	}
	for (size_t r = 0; r < v->nthreads; r++)
		rank[tkey(p, v->threads[r].idx)] = r;

	/* kept samples in processing order: counting sort by thread rank */
	start = calloc(v->nthreads + 1, sizeof(*start));
	ord = malloc((ns ? ns : 1) * sizeof(*ord));
	if (!start || !ord) {
		rc = sf_error_nomem(ctx);
		goto done;
	}
	size_t nkept = 0;
	/* a "samples" count kept beside other measures (pprof's
	 * samples/count with cpu/nanoseconds): the headers' sample count */
	uint32_t nst = (uint32_t)p->d.ntypes;
	for (uint32_t t = 0; p->d.ntypes > 1 && t < p->d.ntypes &&
			     nst == p->d.ntypes; t++)
		if (!strcmp(p->d.types[t].type, "samples") &&
		    !strcmp(p->d.types[t].unit, "count"))
			nst = t;
	for (size_t i = 0; i < ns; i++) {
		size_t k = tkey(p, p->d.samples[i].thread);
		if (keep[k]) {
			start[rank[k] + 1]++;
			nkept++;
		}
	}
	for (size_t r = 0; r < v->nthreads; r++)
		start[r + 1] += start[r];
	{
		size_t *pos = malloc((v->nthreads + 1) * sizeof(*pos));
		if (!pos) {
			rc = sf_error_nomem(ctx);
			goto done;
		}
		memcpy(pos, start, (v->nthreads + 1) * sizeof(*pos));
		for (size_t i = 0; i < ns; i++) {
			size_t k = tkey(p, p->d.samples[i].thread);
			if (keep[k])
				ord[pos[rank[k]]++] = i;
		}
		free(pos);
	}

	pmax = sf_profile_max_depth(p);
	/* a bound on the additions of one sample into one sum */
	occ = (uint64_t)pmax + 2;

	/* weights */
	if (f->timestamps) {
		if (!p->d.has_time) {
			rc = sf_error(ctx, SF_EUSAGE, NULL, 0,
				      "--timestamps: the input has no "
				      "timestamps");
			goto done;
		}
		dur = malloc((nkept ? nkept : 1) * sizeof(*dur));
		dropped = calloc(nkept ? nkept : 1, sizeof(*dropped));
		if (!dur || !dropped) {
			rc = sf_error_nomem(ctx);
			goto done;
		}
		/* midpoint rule (docs/analyze.md, call graph 2.1), half ns */
		for (size_t r = 0; r < v->nthreads; r++) {
			size_t a = start[r], n = start[r + 1] - a;
			for (size_t j = 0; j < n; j++) {
				if (p->d.samples[ord[a + j]].time ==
				    SF_NO_TIME) {
					rc = sf_error(ctx, SF_EINPUT, NULL, 0,
						      "--timestamps: sample "
						      "%zu has no timestamp",
						      ord[a + j] + 1);
					goto done;
				}
			}
#define T(j) ((sf_an_w)p->d.samples[ord[a + (j)]].time)
			if (n == 1)
				dropped[a] = true;
			for (size_t j = 0; n >= 2 && j < n; j++) {
				if (j == 0)
					dur[a] = 2 * (T(1) - T(0));
				else if (j == n - 1)
					dur[a + j] = 2 * (T(j) - T(j - 1));
				else
					dur[a + j] = T(j + 1) - T(j - 1);
			}
#undef T
		}
		v->exp = -1;
		v->type = "time";
		v->unit = "nanoseconds";
	} else {
		if ((rc = weight_exp(p, f->type, occ, &v->exp, ctx)))
			goto done;
		if (f->type < p->d.ntypes) {
			v->type = p->d.types[f->type].type;
			v->unit = p->d.types[f->type].unit;
		} else {
			v->type = "samples";
			v->unit = "count";
		}
	}

	/* stacks and folding */
	b.frflags = sf_calloc(p->d.nframes, 1);
	b.stflags = sf_calloc(p->d.nstacks, 1);
	b.walk = malloc(((size_t)pmax + 1) * sizeof(*b.walk));
	b.frfunc = malloc((p->d.nframes ? p->d.nframes : 1) *
			  sizeof(*b.frfunc));
	/* a view node per profile stack at most: room for all at once
	 * rather than doubling (a peak of old and new arrays).  The
	 * largest first, so that it gets the kept pages when there are
	 * not enough for all three */
	b.cap_nodes = p->d.nstacks + 1;
	v->nodes = sf_an__big_array(b.cap_nodes, sizeof(*v->nodes),
				    &v->nodes_cap, ctx);
	b.vnode = sf_an__big_array(p->d.nstacks ? p->d.nstacks : 1,
				   sizeof(*b.vnode), &b.vnode_bytes, ctx);
	b.fold_at = sf_an__big_array(b.cap_nodes, sizeof(*b.fold_at),
				     &b.fold_bytes, ctx);
	b.direct = !f->nhide && !f->collapse_recursion;
	{
		/* frames with one name make one function */
		struct sf_idx names = { 0 };
		for (size_t i = 0; i < p->d.nframes && b.direct; i++) {
			const char *k = p->d.frames[i].name;
			uint64_t h = sf_hash(&k, sizeof(k));
			uint32_t dup;
			if (sf_idx_find(&names, h, frame_name_eq, p, &k, &dup))
				b.direct = false;
			else if (!sf_idx_insert(&names, h, (uint32_t)i)) {
				sf_idx_free(&names);
				rc = sf_error_nomem(ctx);
				goto done;
			}
		}
		sf_idx_free(&names);
	}
	if (!b.direct && !sf_idx_reserve(&b.nodes, p->d.nstacks)) {
		rc = sf_error_nomem(ctx);
		goto done;
	}
	if (!b.frflags || !b.stflags || !b.vnode || !b.walk || !v->nodes ||
	    !b.frfunc || !b.fold_at) {
		rc = sf_error_nomem(ctx);
		goto done;
	}
	for (size_t s = 0; s < p->d.nstacks; s++)
		b.vnode[s] = UNSET;
	for (size_t i = 0; i < p->d.nframes; i++)
		b.frfunc[i] = UNSET;
	v->nodes[0] = (struct sf_an_node){ 0, UNSET, 0 };
	b.fold_at[0] = UNSET;
	v->nnodes = 1;
	for (size_t j = 0; j < nkept; j++) {
		size_t i = ord[j];
		const struct sf_sample *s = &p->d.samples[i];
		/* view_node follows parents, a chain of dependent loads; a
		 * stack new to the profile was numbered root to leaf, so the
		 * next sample's chain mostly lies just below it: ask for it */
		if (j + 1 < nkept) {
			sf_stack_id nx = p->d.samples[ord[j + 1]].stack;
			const char *q = (const char *)&p->d.stacks[nx];
			for (int k = 0; k < 8; k++)
				__builtin_prefetch(q - 64 * k);
			__builtin_prefetch(&b.vnode[nx]);
		}
		if ((j & 0xffff) == 0 && sf_interrupted(ctx)) {
			rc = sf_error(ctx, SF_EINTR, NULL, 0, "interrupted");
			goto done;
		}
		if (f->nfocus || f->nignore) {
			uint8_t fl = stack_flags(&b, s->stack);
			if ((f->nfocus && !(fl & FR_FOCUS)) ||
			    (fl & FR_IGNORE))
				continue;
		}
		size_t k = tkey(p, s->thread);
		v->nraw += sf_sample_count(p, i);
		v->ncounted += nst < p->d.ntypes ?
			       (uint64_t)llround(sf_weight(p, i, nst)) :
			       sf_sample_count(p, i);
		if (id[k] > v->max_id)
			v->max_id = id[k];
		if (dropped && dropped[j])
			continue;
		sf_an_w w = dur ? dur[j] :
			    scale_w(f->type < p->d.ntypes ?
					    sf_weight(p, i, f->type) :
					    (double)sf_sample_count(p, i),
				    v->exp);
		uint32_t node;
		v->total += w;
		/* folding by (thread, node) through fold_at, an entry per
		 * view node written as the node is made, rather than a hash
		 * table of the samples: when every sample has its own stack
		 * (a timeline), each probe of that table was a cache miss
		 * and it was rehashed as it doubled */
		if ((rc = view_node(&b, s->stack, &node, ctx)))
			goto done;
		uint32_t at = b.fold_at[node];
		if (at != UNSET && v->samples[at].thread == rank[k]) {
			v->samples[at].w += w;
			continue;
		}
		if (v->nsamples >= UNSET) {
			rc = sf_error(ctx, SF_ELIMIT, NULL, 0,
				      "too many distinct samples");
			goto done;
		}
		if (sf_grow(&v->samples, &cap_samples, v->nsamples + 1,
			    sizeof(*v->samples))) {
			rc = sf_error_nomem(ctx);
			goto done;
		}
		v->samples[v->nsamples] = (struct sf_an_sample){
			node, (uint32_t)rank[k], w };
		b.fold_at[node] = (uint32_t)v->nsamples++;
	}
done:
	free(id);
	free(sel);
	free(keep);
	free(rank);
	free(start);
	free(ord);
	free(dur);
	free(dropped);
	free(b.frflags);
	free(b.stflags);
	free(b.walk);
	free(b.frfunc);
	sf_idx_free(&b.funcs);
	sf_idx_free(&b.nodes);
	/* scratch from kept pages is kept again, for the next stage */
	sf_big_keep(ctx, b.vnode, b.vnode_bytes);
	sf_big_keep(ctx, b.fold_at, b.fold_bytes);
	if (rc) {
		sf_an_view_free(v);
		return rc;
	}
	*out = v;
	return 0;
}

/* ----- numbers ----- */

double sf_an_double(sf_an_w v, int exp)
{
	/* int128 -> double rounds to nearest; scaling by 2^exp is exact
	 * unless the result is subnormal.  Counts have exp 0, and a tree
	 * asks this of each of its millions of nodes: no call to ldexp */
	return exp ? ldexp((double)v, exp) : (double)v;
}

static void put_i128(struct sf_output *o, sf_an_w v)
{
	char buf[48];
	size_t n = sizeof(buf);
	unsigned __int128 u;

	if (v >= INT64_MIN && v <= INT64_MAX) {
		sf_output_i64(o, (int64_t)v);
		return;
	}
	u = v < 0 ? -(unsigned __int128)v : (unsigned __int128)v;
	do {
		buf[--n] = (char)('0' + (int)(u % 10));
		u /= 10;
	} while (u);
	if (v < 0)
		buf[--n] = '-';
	sf_output_write(o, buf + n, sizeof(buf) - n);
}

void sf_an_put_w(struct sf_output *o, sf_an_w v, int exp)
{
	if (exp >= 0 && exp < 126 && bits128(v < 0 ? -(unsigned __int128)v :
					      (unsigned __int128)v) + exp < 127) {
		put_i128(o, v * ((sf_an_w)1 << exp));
		return;
	}
	if (exp < 0 && exp > -127 && (v & (((sf_an_w)1 << -exp) - 1)) == 0) {
		put_i128(o, v >> -exp);
		return;
	}
	sf_output_num(o, sf_an_double(v, exp));
}

/* NEEDSWORK: bytes that are not UTF-8 are copied as they are; a frame
 * name from a binary format could make the JSON invalid UTF-8. */
void sf_an_put_json_str(struct sf_output *o, const char *s)
{
	static const char hex[] = "0123456789abcdef";

	sf_output_putc(o, '"');
	for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
		const unsigned char *run = c;
		while (*c >= 0x20 && *c != '"' && *c != '\\' && *c != 0x7f)
			c++;
		if (c > run)
			sf_output_write(o, run, (size_t)(c - run));
		if (!*c)
			break;
		switch (*c) {
		case '"': sf_output_puts(o, "\\\""); break;
		case '\\': sf_output_puts(o, "\\\\"); break;
		case '\n': sf_output_puts(o, "\\n"); break;
		case '\t': sf_output_puts(o, "\\t"); break;
		case '\r': sf_output_puts(o, "\\r"); break;
		default:
			sf_output_puts(o, "\\u00");
			sf_output_putc(o, hex[*c >> 4]);
			sf_output_putc(o, hex[*c & 15]);
		}
	}
	sf_output_putc(o, '"');
}

void sf_an_fmt(char *buf, size_t size, double v)
{
	if (v == floor(v) && fabs(v) < 1e15) {
		/* printf's "%.0f": the digits of a whole value, exact in
		 * 64 bits below 1e15 ("-0" for -0.0), without printf's
		 * floating-point conversion (a call per line of a report) */
		char t[24], *e = t + sizeof(t);
		char *d = sf_an__put_digits(e, (uint64_t)fabs(v));
		if (signbit(v))
			*--d = '-';
		if (size) {
			size_t n = (size_t)(e - d) < size ? (size_t)(e - d) :
				   size - 1;
			memcpy(buf, d, n);
			buf[n] = 0;
		}
		return;
	}
	if (fabs(v) < 0.005) {
		snprintf(buf, size, "%.2g", v);   /* not "0" for a tiny share */
		return;
	}
	int n = snprintf(buf, size, "%.2f", v);
	if (n > 0 && (size_t)n < size && strchr(buf, '.')) {
		while (n > 1 && buf[n - 1] == '0')
			buf[--n] = 0;
		if (buf[n - 1] == '.')
			buf[--n] = 0;
	}
}
