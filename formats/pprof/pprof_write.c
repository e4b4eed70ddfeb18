/*
 * pprof_write.c - the pprof writer (the format entry is in fmt_pprof.c):
 * always gzip (as pprof itself writes); locations deduplicated by what
 * they hold (a non-inline frame with the inline frames called from it is
 * one location), functions by (name, file), mappings by module; ids and
 * strings numbered in first-use order, so the bytes depend on the model
 * only.
 */
#include "pprof.h"
#include "hash.h"
#include "protobuf.h"

#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>


/* The string table, by content. */
struct wstrs {
	struct sf_idx idx;
	const char **s;     /* not owned unless in `own` */
	size_t *len;
	size_t n, cap;
	char **own;
	size_t nown, cown;
};

struct wstrkey { const char *s; size_t len; };

static bool wstr_eq(const void *ctx, uint32_t id, const void *key)
{
	const struct wstrs *t = ctx;
	const struct wstrkey *k = key;

	return t->len[id] == k->len && !memcmp(t->s[id], k->s, k->len);
}

/* Index of string s[0..len); `copy` when s does not outlive the writer.
 * Returns UINT64_MAX on ENOMEM. */
static uint64_t wstr(struct wstrs *t, const char *s, size_t len, bool copy)
{
	struct wstrkey k = { s, len };
	uint64_t h = sf_hash(s, len);
	uint32_t id;

	if (sf_idx_find(&t->idx, h, wstr_eq, t, &k, &id))
		return id;
	if (t->n == t->cap) {
		size_t nc = t->cap ? t->cap * 2 : 256;
		const char **ns = sf_reallocarray(t->s, nc, sizeof(*ns));
		if (!ns)
			return UINT64_MAX;
		t->s = ns;
		size_t *nl = sf_reallocarray(t->len, nc, sizeof(*nl));
		if (!nl)
			return UINT64_MAX;
		t->len = nl;
		t->cap = nc;
	}
	if (copy) {
		char *c = sf_strndup(s, len);
		if (!c)
			return UINT64_MAX;
		if (t->nown == t->cown) {
			size_t nc = t->cown ? t->cown * 2 : 64;
			char **no = sf_reallocarray(t->own, nc, sizeof(*no));
			if (!no) {
				free(c);
				return UINT64_MAX;
			}
			t->own = no;
			t->cown = nc;
		}
		t->own[t->nown++] = c;
		s = c;
	}
	id = (uint32_t)t->n;
	t->s[id] = s;
	t->len[id] = len;
	if (!sf_idx_insert(&t->idx, h, id))
		return UINT64_MAX;
	t->n++;
	return id;
}

static void wstrs_free(struct wstrs *t)
{
	sf_idx_free(&t->idx);
	free(t->s);
	free(t->len);
	for (size_t i = 0; i < t->nown; i++)
		free(t->own[i]);
	free(t->own);
}

/* Pairs of uint32 keyed in a hash table: (a, b) -> id. */
struct pairtab {
	struct sf_idx idx;
	uint32_t *a, *b;
	size_t n, cap;
};

static bool pair_eq(const void *ctx, uint32_t id, const void *key)
{
	const struct pairtab *t = ctx;
	const uint32_t *k = key;

	return t->a[id] == k[0] && t->b[id] == k[1];
}

/* Id of (a, b), added when new (*added set).  Returns -1 on ENOMEM. */
static int64_t pair_get(struct pairtab *t, uint32_t a, uint32_t b,
			bool *added)
{
	uint32_t k[2] = { a, b }, id;
	uint64_t h = sf_hash_u64(a, b);

	*added = false;
	if (sf_idx_find(&t->idx, h, pair_eq, t, k, &id))
		return id;
	if (t->n == t->cap) {
		size_t nc = t->cap ? t->cap * 2 : 256;
		uint32_t *na = sf_reallocarray(t->a, nc, sizeof(*na));
		if (!na)
			return -1;
		t->a = na;
		uint32_t *nb = sf_reallocarray(t->b, nc, sizeof(*nb));
		if (!nb)
			return -1;
		t->b = nb;
		t->cap = nc;
	}
	id = (uint32_t)t->n;
	t->a[id] = a;
	t->b[id] = b;
	if (!sf_idx_insert(&t->idx, h, id))
		return -1;
	t->n++;
	*added = true;
	return id;
}

static void pairtab_free(struct pairtab *t)
{
	sf_idx_free(&t->idx);
	free(t->a);
	free(t->b);
}

/* A stack node as the writer sees it.  Side by side, as a sample's walk
 * up its stack reads both of a node: one cache miss, not two. */
struct wnode {
	uint32_t t;   /* its trie node; once the locations are numbered,
		       * its location id (0 = none) */
	uint32_t g;   /* the outermost node of its group; once the
		       * locations are numbered, the parent of that (the
		       * next location up) */
};

struct wr {
	const struct sf_profile *p;
	struct sf_ctx *ctx;
	struct wstrs strs;
	struct pairtab trie;      /* (parent trie node + 1, frame) */
	struct pairtab funcs;     /* (name string, file string) */
	struct pairtab maps;      /* (module string, 0) */
	struct wnode *nd;         /* per stack node */
	size_t ndcap, needcap;    /* nd's and needed's (sf_big_resize) */
	uint32_t *locid;          /* per trie node: location id, 0 = none */
	bool *needed;             /* per stack node: ends a location used */
	struct pairtab lmemo;     /* (label set, thread) -> its Label
				   * messages' bytes in `lbytes` */
	size_t *loff;             /* per lmemo entry: start in lbytes */
	uint32_t *thl;            /* per thread (and one for none): the
				   * lmemo id of (label set 0, it) + 1 */
	size_t lcap;
	struct sf_pb_buf lbytes;
	struct sf_pb_buf locs, fns, mappings, tmp2, ids, vals;
	uint32_t *cout, *cinl;    /* per frame: the first written alike, as
				   * an outer or an inline frame
				   * (written_frames), until the trie is
				   * built */
	bool merge;               /* some samples are written as one */
	uint32_t *group;          /* then: per sample, its group */
	double *gsum;             /* per group and type: summed weight */
	bool *drop;               /* per sample: not written (its values
				   * are all 0), or NULL when none is */
};

#define WSTR(w, s, copy) wstr(&(w)->strs, (s), strlen(s), (copy))

static uint64_t module_mapping(struct wr *w, const char *module, int *rc)
{
	bool added;
	uint64_t s;
	int64_t id;

	if (!module)
		return 0;
	if ((s = WSTR(w, module, false)) == UINT64_MAX ||
	    (id = pair_get(&w->maps, (uint32_t)s, 0, &added)) < 0) {
		*rc = sf_error_nomem(w->ctx);
		return 0;
	}
	if (added) {
		size_t m = sf_pb_open(&w->mappings, 3);
		sf_pb_put_uint(&w->mappings, 1, (uint64_t)id + 1);
		sf_pb_put_uint(&w->mappings, 5, s);
		sf_pb_put_uint(&w->mappings, 7, 1);   /* has_functions */
		sf_pb_close(&w->mappings, m);
	}
	return (uint64_t)id + 1;
}

/* Could `f`'s module be the program itself, not a shared object, the
 * dynamic loader or the kernel?  Pseudo-modules ("[kernel.kallsyms]",
 * "[vdso]", "[unknown]") and JIT or kernel frames cannot. */
static bool program_module(const struct sf_frame *f)
{
	const char *m = f->module, *base;
	size_t n;

	if (!m || !m[0] || m[0] == '[' ||
	    (f->kind && (!strcmp(f->kind, "kernel") ||
			 !strcmp(f->kind, "jit"))))
		return false;
	base = strrchr(m, '/');
	base = base ? base + 1 : m;
	n = strlen(base);
	/* "libc.so.6", "ld-linux-x86-64.so.2", "x.so", "x.ko", "x.dylib" */
	if (strstr(base, ".so.") || (n >= 3 && !strcmp(base + n - 3, ".so")) ||
	    (n >= 3 && !strcmp(base + n - 3, ".ko")) ||
	    (n >= 6 && !strcmp(base + n - 6, ".dylib")) ||
	    (n >= 4 && !strcasecmp(base + n - 4, ".dll")))
		return false;
	return true;
}

/*
 * The main binary, which pprof takes to be mapping[0] (its "File:"): of
 * each sample, the module of the outermost frame whose module is a
 * program (program_module); the one that is so for the most samples,
 * the first seen on a tie.  NULL when no sample has such a frame.
 * `outer` is the caller's, one per stack node, outer[0] = 0: a mapping
 * of its own in huge pages (sf_big_resize), made before this runs, on a
 * thread of its own or not.
 */
static const char *main_module(const struct sf_profile *p, const bool *drop,
			       uint32_t *outer, bool *nomem)
{
	size_t nf = p->d.nframes, ns = p->d.nstacks;
	/* per stack node: its outermost program frame + 1, 0 for none
	 * (parents come before their children) */
	/* per frame: program_module, asked once per frame and not at each
	 * of its stack nodes (3.7 million string searches on a timeline of
	 * 50,000 frames) */
	unsigned char *prog = sf_calloc(nf ? nf : 1, 1);
	uint32_t *fmod = NULL;
	/* distinct modules, keyed by their interned pointer */
	struct pairtab mods = { 0 };
	uint64_t *cnt = NULL;
	size_t ccap = 0;
	const char *best = NULL;
	uint64_t bestn = 0;   /* ids are in first-seen order: ties keep
			       * the first */

	if (!prog)
		goto nomem;
	for (size_t f = 0; f < nf; f++)
		prog[f] = program_module(&p->d.frames[f]);
	for (size_t i = 1; i < ns; i++) {
		const struct sf_stack_node *s = &p->d.stacks[i];
		outer[i] = outer[s->parent];
		if (!outer[i] && prog[s->frame])
			outer[i] = s->frame + 1;
	}
	free(prog);
	prog = NULL;
	if (!(fmod = sf_calloc(nf ? nf : 1, sizeof(*fmod))))
		goto nomem;
	for (size_t i = 0; i < p->d.nsamples; i++) {
		uint32_t f = outer[p->d.samples[i].stack];
		if (!f || (drop && drop[i]))
			continue;
		/* a frame's module id is asked of the table once, at the
		 * frame's first sample (fmod[f - 1], id + 1): ids are still
		 * numbered where a module is first seen */
		int64_t id = (int64_t)fmod[f - 1] - 1;
		if (id < 0) {
			uintptr_t m = (uintptr_t)p->d.frames[f - 1].module;
			bool added;
			id = pair_get(&mods, (uint32_t)m,
				      (uint32_t)((uint64_t)m >> 32), &added);
			if (id < 0)
				goto nomem;
			fmod[f - 1] = (uint32_t)id + 1;
		}
		if ((size_t)id >= ccap) {
			size_t nc = ccap ? ccap * 2 : 16;
			uint64_t *c = sf_reallocarray(cnt, nc, sizeof(*c));
			if (!c)
				goto nomem;
			memset(c + ccap, 0, (nc - ccap) * sizeof(*c));
			cnt = c;
			ccap = nc;
		}
		cnt[id] += sf_sample_count(p, i);
	}
	for (size_t id = 0; id < mods.n; id++) {
		if (cnt[id] > bestn) {
			bestn = cnt[id];
			best = (const char *)(uintptr_t)(mods.a[id] |
				((uint64_t)mods.b[id] << 32));
		}
	}
	free(cnt);
	free(fmod);
	pairtab_free(&mods);
	return best;
nomem:
	free(prog);
	free(fmod);
	free(cnt);
	pairtab_free(&mods);
	*nomem = true;
	return NULL;
}

static uint64_t frame_function(struct wr *w, const struct sf_frame *f,
			       int *rc)
{
	bool added;
	uint64_t n, fl = 0;
	int64_t id;

	if ((n = WSTR(w, f->name, false)) == UINT64_MAX ||
	    (f->file && (fl = WSTR(w, f->file, false)) == UINT64_MAX) ||
	    (id = pair_get(&w->funcs, (uint32_t)n, (uint32_t)fl,
			   &added)) < 0) {
		*rc = sf_error_nomem(w->ctx);
		return 0;
	}
	if (added) {
		size_t m = sf_pb_open(&w->fns, 5);
		sf_pb_put_uint(&w->fns, 1, (uint64_t)id + 1);
		sf_pb_put_uint(&w->fns, 2, n);
		/* no system_name: the model has no mangled name, and pprof
		 * takes a system_name equal to the name for a name still to
		 * demangle, which cuts a C++ name's template arguments
		 * ("ns::Box<long>::fill" -> "ns::Box::fill") */
		sf_pb_put_uint(&w->fns, 4, fl);
		sf_pb_close(&w->fns, m);
	}
	return (uint64_t)id + 1;
}

/* Emit the Location for the frames from its group's outermost to node. */
static int emit_location(struct wr *w, sf_stack_id node, uint32_t id)
{
	const struct sf_profile *p = w->p;
	const struct sf_frame *outer =
		&p->d.frames[p->d.stacks[w->nd[node].g].frame];
	int rc = 0;
	uint64_t mapping = module_mapping(w, outer->module, &rc);

	if (rc)
		return rc;
	/* straight into locs: a Location and its Lines were made in buffers
	 * of their own and copied (docs/PERFORMANCE.md, session 26) */
	struct sf_pb_buf *b = &w->locs;
	size_t loc = sf_pb_open(b, 4);
	sf_pb_put_uint(b, 1, id);
	sf_pb_put_uint(b, 2, mapping);
	if (outer->address != SF_NO_ADDR)
		sf_pb_put_uint(b, 3, outer->address);
	/* an unsymbolized location read from pprof ("0xADDR") stays one;
	 * the name is printed for the test only where the rest holds (it
	 * was a snprintf per location: 50,000 on a timeline) */
	char hex[32];
	bool bare = w->nd[node].g == node && outer->address != SF_NO_ADDR &&
		    !outer->file && !outer->line && outer->name[0] == '0' &&
		    (snprintf(hex, sizeof(hex), "0x%" PRIx64, outer->address),
		     !strcmp(outer->name, hex));
	/* lines: innermost (this node) first */
	for (sf_stack_id n = node; !bare; n = p->d.stacks[n].parent) {
		const struct sf_frame *f = &p->d.frames[p->d.stacks[n].frame];
		uint64_t fn = frame_function(w, f, &rc);
		if (rc)
			return rc;
		size_t line = sf_pb_open(b, 4);
		sf_pb_put_uint(b, 1, fn);
		sf_pb_put_uint(b, 2, f->line);
		sf_pb_put_uint(b, 3, f->column);
		sf_pb_close(b, line);
		if (n == w->nd[node].g)
			break;
	}
	sf_pb_close(b, loc);
	return b->oom ? sf_error_nomem(w->ctx) : 0;
}

/*
 * The frames as the file holds them.  A location is written from its
 * frames' name, file, line and column, and from the outermost one's
 * module and address; two model frames that differ only elsewhere (the
 * offsets of a macOS `sample` report's "main + 9" and "main + 10" at one
 * address) read back as one frame.  Written as two locations, the file
 * read back and written again gave other bytes (the roundtrip-pprof fuzz
 * target found it), so locations are keyed by these written frames:
 * canon[f] is the first frame written as f is (with module and address
 * when `outer`).  Strings are interned, so equal strings are one pointer.
 */
struct wframes {
	const struct sf_frame *f;
	bool outer;
};

static bool wframe_eq(const void *ctx, uint32_t id, const void *key)
{
	const struct wframes *t = ctx;
	const struct sf_frame *a = &t->f[id], *b = key;

	return a->name == b->name && a->file == b->file &&
	       a->line == b->line && a->column == b->column &&
	       (!t->outer ||
		(a->module == b->module && a->address == b->address));
}

/* Fill canon[0..nf) (of the inline frames only, unless `outer`);
 * returns whether any two frames are one, -1 on ENOMEM. */
static int written_frames(const struct sf_profile *p, bool outer,
			  uint32_t *canon)
{
	struct wframes t = { p->d.frames, outer };
	struct sf_idx idx = { 0 };
	bool merged = false;

	for (size_t i = 0; i < p->d.nframes; i++) {
		const struct sf_frame *f = &p->d.frames[i];
		uint64_t h = sf_hash_u64((uintptr_t)f->name,
					 (uintptr_t)f->file) ^
			     sf_hash_u64(f->line, f->column);
		uint32_t id;
		canon[i] = (uint32_t)i;
		if (outer)
			h ^= sf_hash_u64((uintptr_t)f->module, f->address);
		else if (!(f->flags & SF_FRAME_INLINE))
			continue;
		if (sf_idx_find(&idx, h, wframe_eq, &t, f, &id)) {
			canon[i] = id;
			merged = true;
			continue;
		}
		if (!sf_idx_insert(&idx, h, (uint32_t)i)) {
			sf_idx_free(&idx);
			return -1;
		}
	}
	sf_idx_free(&idx);
	return merged;
}

/*
 * When frames were made one (written_frames), two samples of the model
 * may now be written alike: the same locations, labels and thread.  Read
 * back they would fold into one sample, and the file written from that
 * would differ, so they are one sample here, of their summed weights, at
 * the place of the first: group[i] is sample i's group (first-seen
 * order), gsum its weights.  A location is one trie node (build_trie), so
 * written stacks are compared as their trie nodes, before the locations
 * are numbered: whether a group's sum is 0 decides which are
 * (mark_dropped).
 */
static int merge_samples(struct wr *w)
{
	const struct sf_profile *p = w->p;
	size_t ns = p->d.nstacks, nt = p->d.ntypes;
	/* per stack node that ends a location used: its written stack + 1 */
	uint32_t *wst = sf_calloc(ns ? ns : 1, sizeof(*wst));
	struct pairtab stk = { 0 }, lt = { 0 }, grp = { 0 };
	size_t gcap = 0;
	bool added;
	int64_t id;

	if (!wst || !(w->group = sf_calloc(p->d.nsamples ? p->d.nsamples : 1,
					   sizeof(*w->group))))
		goto nomem;
	for (size_t i = 1; i < ns; i++) {
		if (!w->needed[i])
			continue;
		/* the node above the group comes first (smaller id) */
		sf_stack_id up = p->d.stacks[w->nd[i].g].parent;
		if ((id = pair_get(&stk, wst[up], w->nd[i].t, &added)) < 0)
			goto nomem;
		wst[i] = (uint32_t)id + 1;
	}
	for (size_t i = 0; i < p->d.nsamples; i++) {
		const struct sf_sample *sm = &p->d.samples[i];
		int64_t l = pair_get(&lt, sm->labels, sm->thread, &added);
		if (l < 0 || (id = pair_get(&grp, wst[sm->stack], (uint32_t)l,
					    &added)) < 0)
			goto nomem;
		if (added && (size_t)id >= gcap) {
			size_t nc = gcap ? gcap * 2 : 256;
			double *g = sf_reallocarray(w->gsum, nc * (nt ? nt : 1),
						    sizeof(*g));
			if (!g)
				goto nomem;
			w->gsum = g;
			gcap = nc;
		}
		for (size_t t = 0; t < nt; t++) {
			double v = sf_weight(p, i, (uint32_t)t);
			w->gsum[(size_t)id * nt + t] = added ? v :
				w->gsum[(size_t)id * nt + t] + v;
		}
		w->group[i] = (uint32_t)id;
	}
	free(wst);
	pairtab_free(&stk);
	pairtab_free(&lt);
	pairtab_free(&grp);
	return 0;
nomem:
	free(wst);
	pairtab_free(&stk);
	pairtab_free(&lt);
	pairtab_free(&grp);
	return sf_error_nomem(w->ctx);
}

/* Mark the stack nodes that end a location some written sample uses:
 * each sample's own node, and from there up the node above each group.
 * `flat`: no frame is inline, so every node is a group of its own and
 * the trie's groups (w->nd) are not read: this may run beside
 * build_trie. */
static void mark_needed(struct wr *w, bool flat)
{
	const struct sf_profile *p = w->p;
	size_t ns = p->d.nstacks;

	memset(w->needed, 0, ns * sizeof(*w->needed));
	for (size_t i = 0; i < p->d.nsamples; i++)
		if (!w->drop || !w->drop[i])
			w->needed[p->d.samples[i].stack] = true;
	/* parents have smaller ids than children */
	for (size_t i = ns; i-- > 1;)
		if (w->needed[i])
			w->needed[p->d.stacks[flat ? i : w->nd[i].g].parent] =
				true;
}

/*
 * A sample whose values are all written as 0 (its weights are 0, or two
 * samples merged with +2 and -2): reading leaves such a sample out, as
 * pprof does, so written it would vanish from the file read back and
 * the first pprof -> pprof would change the bytes.  Such a sample is not
 * written, and neither is anything only it uses: its locations,
 * functions, labels, its part in choosing the main binary.  A value is
 * written as 0 only for a weight of 0 or NaN (sample_value).  No sample
 * types, no values: none is dropped.
 */
static int mark_dropped(struct wr *w)
{
	const struct sf_profile *p = w->p;
	size_t nt = p->d.ntypes;

	for (size_t i = 0; i < p->d.nsamples && nt; i++) {
		const double *v = w->merge ?
					  &w->gsum[(size_t)w->group[i] * nt] :
					  &p->d.weights[i * nt];
		size_t t = 0;
		while (t < nt && (v[t] == 0 || isnan(v[t])))
			t++;
		if (t < nt)
			continue;
		if (!w->drop && !(w->drop = sf_calloc(p->d.nsamples,
						      sizeof(*w->drop))))
			return sf_error_nomem(w->ctx);
		w->drop[i] = true;
	}
	return 0;
}

/* Which frames are written alike (written_frames), and so whether
 * samples may merge (w->merge). */
static int find_written(struct wr *w)
{
	size_t nf = w->p->d.nframes;
	int mo, mi;

	if (!(w->cout = sf_calloc(nf ? nf : 1, sizeof(*w->cout))) ||
	    !(w->cinl = sf_calloc(nf ? nf : 1, sizeof(*w->cinl))) ||
	    (mo = written_frames(w->p, true, w->cout)) < 0 ||
	    (mi = written_frames(w->p, false, w->cinl)) < 0)
		return sf_error_nomem(w->ctx);
	w->merge = mo || mi;
	return 0;
}

/*
 * A per-node array of n bytes, every byte of which its user writes before
 * reading it: in the pages ctx keeps (the stack tree's child lists, then
 * the arrays given back below), faulted in already, as far as they go;
 * fresh pages only for the rest.  On a timeline of 3.7 million nodes the
 * writer's three such arrays are 50 MiB.
 */
static int node_array(struct sf_ctx *ctx, void *buf, size_t *cap, size_t n)
{
	if (!sf_big_reserve_kept(ctx, buf, cap, n))
		return 0;
	return sf_big_resize(buf, cap, n);
}

/* The trie's per-node arrays (build_trie), before it runs: every node's
 * is written there (node 0, the empty stack, is read by none) and
 * needed is cleared by mark_needed. */
static int trie_arrays(struct wr *w)
{
	size_t ns = w->p->d.nstacks;

	if (node_array(w->ctx, &w->nd, &w->ndcap,
		       (ns ? ns : 1) * sizeof(*w->nd)) ||
	    node_array(w->ctx, &w->needed, &w->needcap, ns ? ns : 1))
		return sf_error_nomem(w->ctx);
	return 0;
}

/*
 * The locations' trie: per stack node its trie node (one per location:
 * a non-inline frame and the inline frames called from it) and the
 * outermost node of its group; with `mark`, the nodes every sample not
 * dropped needs.  After find_written and trie_arrays.
 */
static int build_trie(struct wr *w, bool mark)
{
	const struct sf_profile *p = w->p;
	size_t ns = p->d.nstacks;
	bool added;

	w->nd[0] = (struct wnode){ 0, 0 };
	/* Per frame: inlined or not, and the trie node of the frame as the
	 * first of its group (1 + id, 0 = not asked yet).  Read per stack
	 * node, the frame's flags were a cache miss into p->d.frames (a third
	 * of sf_pprof__write's time on a 400,000-sample timeline of 3.7
	 * million nodes) and the (0, frame) key a hash probe; both are now
	 * arrays as small as the frames.  The same pair_get calls in the
	 * same order come first, so the trie's ids do not change. */
	size_t nf = p->d.nframes;
	unsigned char *finl = sf_calloc(nf ? nf : 1, 1);
	uint32_t *froot = sf_calloc(nf ? nf : 1, sizeof(*froot));
	const uint32_t *cout = w->cout, *cinl = w->cinl;
	if (!finl || !froot)
		goto nomem;
	for (size_t f = 0; f < nf; f++)
		finl[f] = !!(p->d.frames[f].flags & SF_FRAME_INLINE);
	for (size_t i = 1; i < ns; i++) {
		const struct sf_stack_node *s = &p->d.stacks[i];
		bool inl = finl[s->frame] && s->parent != SF_STACK_EMPTY;
		uint32_t fr = inl ? cinl[s->frame] : cout[s->frame];
		int64_t t;
		if (!inl && froot[fr]) {
			t = froot[fr] - 1;
		} else {
			t = pair_get(&w->trie,
				     inl ? w->nd[s->parent].t + 1 : 0,
				     fr, &added);
			if (t < 0)
				goto nomem;
			if (!inl)
				froot[fr] = (uint32_t)t + 1;
		}
		w->nd[i].t = (uint32_t)t;
		w->nd[i].g = inl ? w->nd[s->parent].g : (uint32_t)i;
	}
	free(finl);
	free(froot);
	if (mark)
		mark_needed(w, false);
	return 0;
nomem:
	free(finl);
	free(froot);
	return sf_error_nomem(w->ctx);
}

/*
 * The first passes over the stack nodes, up to the numbering of the
 * locations.  Choosing the main binary (main_module) is a pass of its
 * own over all stack nodes and samples, and the trie's does not need
 * it: where no samples merge, which are dropped is known from their
 * weights alone, so with -j the two passes run side by side, on the
 * core that otherwise waits for the first bytes to compress.  Where
 * samples merge, the groups' sums decide, so one pass follows the other.
 * On one thread main_module goes first and its per-node array is given
 * back before the trie's are made: side by side both are live, 4 bytes
 * a node more at the peak (15 MB on a timeline of 3.7 million nodes),
 * worth it only with a second core.  Where no frame is inline, the
 * second thread also marks the nodes needed (mark_needed, flat), which
 * then does not read the trie's groups: the trie's pass alone was 141 M
 * instructions to main_module's 53 M on a timeline, the marking 48 M of
 * those (docs/PERFORMANCE.md, session 26).
 */
struct first {
	struct wr *w;
	int rc;
	uint32_t *outer;
	size_t outcap;
	const char *mainmod;
	bool nomem;
	bool flat;                /* no frame is inline */
};

static void first_task(void *arg, size_t k)
{
	struct first *f = arg;

	if (k == 0) {
		f->rc = build_trie(f->w, !f->flat);
	} else {
		f->mainmod = main_module(f->w->p, f->w->drop, f->outer,
					 &f->nomem);
		if (f->flat)
			mark_needed(f->w, true);
	}
}

static int first_passes(struct wr *w, const char **mainmod)
{
	size_t ns = w->p->d.nstacks;
	struct first f = { w, 0, NULL, 0, NULL, false, false };
	int rc;

	if ((rc = find_written(w)))
		return rc;
	if (node_array(w->ctx, &f.outer, &f.outcap,
		       (ns ? ns : 1) * sizeof(*f.outer)))
		return sf_error_nomem(w->ctx);
	f.outer[0] = 0;   /* the empty stack's: the only one read first */
	if (w->merge) {
		if (!(f.rc = trie_arrays(w)) && !(f.rc = build_trie(w, true)) &&
		    !(f.rc = merge_samples(w)) && !(f.rc = mark_dropped(w))) {
			if (w->drop)
				mark_needed(w, false);
			first_task(&f, 1);
		}
	} else if (!(f.rc = mark_dropped(w))) {
		if (sf_jobs(w->ctx) > 1) {
			f.flat = true;
			for (size_t i = 0; i < w->p->d.nframes && f.flat; i++)
				f.flat = !(w->p->d.frames[i].flags &
					   SF_FRAME_INLINE);
			if (!(f.rc = trie_arrays(w)))
				sf_run_tasks(2, 2, first_task, &f);
		} else {
			first_task(&f, 1);
			sf_big_keep(w->ctx, f.outer, f.outcap);
			f.outer = NULL;
			f.outcap = 0;
			if (!(f.rc = trie_arrays(w)))
				first_task(&f, 0);
		}
	}
	sf_big_free(f.outer, f.outcap);
	free(w->cout);
	free(w->cinl);
	w->cout = w->cinl = NULL;
	if (f.rc)
		return f.rc;
	if (f.nomem)
		return sf_error_nomem(w->ctx);
	*mainmod = f.mainmod;
	return 0;
}

/* Number the locations, one per trie node that a written sample's stack
 * walks through, and emit them. */
static int number_locations(struct wr *w)
{
	const struct sf_profile *p = w->p;
	size_t ns = p->d.nstacks;
	uint32_t next = 1;
	int rc;

	if (w->trie.n &&
	    !(w->locid = sf_calloc(w->trie.n, sizeof(*w->locid))))
		return sf_error_nomem(w->ctx);
	/* the tables sized at once, for a function and two strings a frame
	 * (ids go in insertion order: the size changes no byte) */
	size_t nf = w->trie.n < p->d.nframes ? w->trie.n : p->d.nframes;
	if (!sf_idx_reserve(&w->strs.idx, w->strs.n + 2 * nf) ||
	    !sf_idx_reserve(&w->funcs.idx, w->funcs.n + nf))
		return sf_error_nomem(w->ctx);
	for (size_t i = 1; i < ns; i++) {
		if (!w->needed[i] || w->locid[w->nd[i].t])
			continue;
		w->locid[w->nd[i].t] = next;
		if ((rc = emit_location(w, (sf_stack_id)i, next)))
			return rc;
		next++;
	}
	/* A sample's walk up its stack read four arrays at each location
	 * (trie node, locid, group start, the stack node's parent), each a
	 * cache miss on a timeline of 3.7 million nodes: the walk was most
	 * of the writer's own time.  Each node's location id and the next
	 * node up are now taken once, in order, into its wnode, which the
	 * walk reads at one index. */
	for (size_t i = 1; i < ns; i++) {
		w->nd[i].t = w->locid[w->nd[i].t];
		w->nd[i].g = p->d.stacks[w->nd[i].g].parent;
	}
	return 0;
}

/* Is "NUM" or "NUM UNIT" a numeric label value? */
static bool numeric_value(const char *v, int64_t *num, const char **unit)
{
	char *end;

	if (!*v || (*v != '-' && (*v < '0' || *v > '9')))
		return false;
	long long x = strtoll(v, &end, 10);
	if (*end && *end != ' ')
		return false;
	*num = x;
	*unit = *end ? end + 1 : NULL;
	return true;
}

static void label_num(struct wr *w, struct sf_pb_buf *b, uint64_t key,
		      int64_t num, uint64_t unit)
{
	sf_pb_put_uint(&w->tmp2, 1, key);
	sf_pb_put_uint(&w->tmp2, 3, (uint64_t)num);
	sf_pb_put_uint(&w->tmp2, 4, unit);
	sf_pb_put_msg(b, 3, &w->tmp2);
}

/* The Label messages of a sample, with its thread. */
static int sample_labels(struct wr *w, struct sf_pb_buf *b, sf_labels_id lid,
			 sf_thread_idx th)
{
	const struct sf_profile *p = w->p;
	const struct sf_label_set *ls = &p->d.label_sets[lid];
	uint64_t k, v, u;

	for (uint32_t i = 0; i < ls->n; i++) {
		const struct sf_label *l = &ls->labels[i];
		int64_t num;
		const char *unit;
		if (l->key[0] == '#' && l->key[1] &&
		    numeric_value(l->value, &num, &unit)) {
			if ((k = WSTR(w, l->key + 1, false)) == UINT64_MAX ||
			    (u = unit ? WSTR(w, unit, false) : 0) ==
				    UINT64_MAX)
				return sf_error_nomem(w->ctx);
			label_num(w, b, k, num, u);
			continue;
		}
		if ((k = WSTR(w, l->key, false)) == UINT64_MAX ||
		    (v = WSTR(w, l->value, false)) == UINT64_MAX)
			return sf_error_nomem(w->ctx);
		if (!v) {
			/* pprof drops a label whose string is "" */
			continue;
		}
		sf_pb_put_uint(&w->tmp2, 1, k);
		sf_pb_put_uint(&w->tmp2, 2, v);
		sf_pb_put_msg(b, 3, &w->tmp2);
	}
	if (th != SF_NO_THREAD) {
		const struct sf_thread *t = &p->d.threads[th];
		if (t->name && t->name[0]) {
			if ((k = WSTR(w, "thread", false)) == UINT64_MAX ||
			    (v = WSTR(w, t->name, false)) == UINT64_MAX)
				return sf_error_nomem(w->ctx);
			sf_pb_put_uint(&w->tmp2, 1, k);
			sf_pb_put_uint(&w->tmp2, 2, v);
			sf_pb_put_msg(b, 3, &w->tmp2);
		}
		if (t->tid != SF_NO_ID) {
			if ((k = WSTR(w, "tid", false)) == UINT64_MAX)
				return sf_error_nomem(w->ctx);
			label_num(w, b, k, t->tid, 0);
		}
		if (t->pid != SF_NO_ID) {
			if ((k = WSTR(w, "pid", false)) == UINT64_MAX)
				return sf_error_nomem(w->ctx);
			label_num(w, b, k, t->pid, 0);
		}
	}
	return b->oom ? sf_error_nomem(w->ctx) : 0;
}

/*
 * The Label messages of (lid, th): lbytes.d[*from..*from + *len).  The
 * bytes of each pair are made once by sample_labels and copied for every
 * later sample of it, as they depend on the pair alone (every string
 * they name is numbered before the samples).  Per sample, they were four
 * string hashes and three small messages for a sample's thread.
 */
static int label_range(struct wr *w, sf_labels_id lid, sf_thread_idx th,
		       size_t *from, size_t *len)
{
	size_t nth = w->p->d.nthreads;
	size_t k = th == SF_NO_THREAD ? nth : th;
	bool added = false;
	int64_t id;
	int rc;

	/* most samples have no label set but their thread's: those pairs'
	 * ids are kept per thread (thl[k], id + 1), one array read instead
	 * of a hash probe per sample (400,000 on a timeline) */
	if (!lid && !w->thl &&
	    !(w->thl = sf_calloc(nth + 1, sizeof(*w->thl))))
		return sf_error_nomem(w->ctx);
	if (!lid && w->thl[k]) {
		id = (int64_t)w->thl[k] - 1;
	} else {
		if ((id = pair_get(&w->lmemo, lid, th, &added)) < 0)
			return sf_error_nomem(w->ctx);
		if (!lid)
			w->thl[k] = (uint32_t)id + 1;
	}
	if (added) {
		if ((size_t)id + 1 >= w->lcap) {
			size_t nc = w->lcap ? w->lcap * 2 : 16;
			size_t *no = sf_reallocarray(w->loff, nc,
						     sizeof(*no));
			if (!no)
				return sf_error_nomem(w->ctx);
			w->loff = no;
			w->lcap = nc;
		}
		w->loff[id] = w->lbytes.n;
		if ((rc = sample_labels(w, &w->lbytes, lid, th)))
			return rc;
		w->loff[id + 1] = w->lbytes.n;
	}
	*from = w->loff[id];
	*len = w->loff[id + 1] - w->loff[id];
	return 0;
}

/*
 * The ids of the locations up the stack from node n, innermost first,
 * packed varints in w->ids.  One per written frame (5.6 million on a
 * timeline of 400,000 samples): sf_pb_put_varint, a call into another
 * file, took 40 instructions each, this loop a few.  Location ids are
 * 32 bits, at most 5 bytes.  Returns -1 on ENOMEM.
 */
static int walk_ids(struct wr *w, sf_stack_id n)
{
	struct sf_pb_buf *b = &w->ids;

	b->n = 0;
	for (; n != SF_STACK_EMPTY; n = w->nd[n].g) {
		uint32_t v = w->nd[n].t;
		if (b->cap - b->n < 5) {
			size_t nc = b->cap ? b->cap * 2 : 256;
			unsigned char *nb = realloc(b->d, nc);
			if (!nb)
				return -1;
			b->d = nb;
			b->cap = nc;
		}
		unsigned char *d = b->d + b->n;
		for (; v > 0x7f; v >>= 7)
			*d++ = (unsigned char)(v | 0x80);
		*d++ = (unsigned char)v;
		b->n = (size_t)(d - b->d);
	}
	return 0;
}

static size_t varint_len(uint64_t v)
{
	size_t n = 1;

	for (; v > 0x7f; v >>= 7)
		n++;
	return n;
}

/* Field `field`'s bytes d[0..n) (none when n is 0), as sf_pb_put_bytes
 * writes them: their size. */
static size_t field_len(uint32_t field, size_t n)
{
	return n ? varint_len((uint64_t)field << 3) + varint_len(n) + n : 0;
}

/*
 * PeriodType and Period: the model's when it has them.  Else the period
 * type is the default sample type, and the period 1 for a unit "count"
 * (what pprof gives its own converted count profiles: contention,
 * threadcreate), else the mean weight of one sample of that type
 * (perf's cpu-clock: the nanoseconds between samples), 0 when there is
 * none.  *type gets NULLs when the profile has no type at all.
 */
static double period_of(const struct sf_profile *p,
			struct sf_sample_type *type)
{
	const struct sf_meta *m = &p->d.meta;
	uint32_t t = m->default_type;
	double sum = 0;
	uint64_t n = 0;

	*type = m->period_type;
	if (m->period_type.type)
		return m->period;
	if (t >= p->d.ntypes) {
		type->type = type->unit = NULL;
		return 0;
	}
	*type = p->d.types[t];
	if (m->period > 0)
		return m->period;
	if (type->unit && !strcmp(type->unit, "count"))
		return 1;
	for (size_t i = 0; i < p->d.nsamples; i++) {
		sum += sf_weight(p, i, t);
		n += sf_sample_count(p, i);
	}
	return n && sum > 0 ? sum / (double)n : 0;
}

/* The int64 a weight is written as. */
static int64_t sample_value(double v, bool *fraction, bool *saturated)
{
	double r = nearbyint(v);

	/* a weight is never rounded to 0: reading leaves out samples of
	 * zero weight (for writers that fold), so a sample of 0.5 would
	 * vanish from the file read back, and writing that again would
	 * give other bytes (the roundtrip-pprof fuzz target found it) */
	if (r == 0 && v != 0)
		r = v > 0 ? 1 : -1;
	if (r != v)
		*fraction = true;
	/* 0x1p63 is INT64_MAX + 1: beyond int64 saturate */
	if (r >= 0x1p63) {
		*saturated = true;
		return INT64_MAX;
	}
	if (r < -0x1p63 || isnan(r)) {
		*saturated = true;
		return isnan(r) ? 0 : INT64_MIN;
	}
	return (int64_t)r;
}

static void wr_free(struct wr *w)
{
	wstrs_free(&w->strs);
	pairtab_free(&w->trie);
	pairtab_free(&w->funcs);
	pairtab_free(&w->maps);
	pairtab_free(&w->lmemo);
	free(w->loff);
	free(w->thl);
	free(w->lbytes.d);
	free(w->ids.d);
	free(w->vals.d);
	sf_big_free(w->nd, w->ndcap);
	sf_big_free(w->needed, w->needcap);
	free(w->cout);
	free(w->cinl);
	free(w->locid);
	free(w->group);
	free(w->gsum);
	free(w->drop);
	free(w->locs.d);
	free(w->fns.d);
	free(w->mappings.d);
	free(w->tmp2.d);
}

int sf_pprof__write(const struct sf_profile *p, struct sf_output *out,
		    struct sf_ctx *ctx)
{
	struct wr w = { 0 };
	struct sf_pb_buf b = { 0 }, s = { 0 };
	const struct sf_meta *m = &p->d.meta;
	uint64_t def = 0;
	int rc;

	w.p = p;
	w.ctx = ctx;
	if (wstr(&w.strs, "", 0, false) == UINT64_MAX) {
		rc = sf_error_nomem(w.ctx);
		goto out;
	}
	/* sample types */
	for (size_t i = 0; i < p->d.ntypes; i++) {
		uint64_t t = WSTR(&w, p->d.types[i].type, false);
		uint64_t u = WSTR(&w, p->d.types[i].unit, false);
		if (t == UINT64_MAX || u == UINT64_MAX) {
			rc = sf_error_nomem(w.ctx);
			goto out;
		}
		if (i == m->default_type)
			def = t;
		sf_pb_put_uint(&s, 1, t);
		sf_pb_put_uint(&s, 2, u);
		sf_pb_put_msg(&b, 1, &s);
	}
	/* which samples are written comes first: the others choose no
	 * main binary, use no location and no label */
	const char *mainmod = NULL;
	if ((rc = first_passes(&w, &mainmod)))
		goto out;
	/* all strings of labels and threads are numbered before the
	 * samples are written, so samples stream; only those of label sets
	 * and threads a sample uses: another's strings would not come back
	 * from reading the file (found by the roundtrip-pprof fuzz target).
	 * Before the locations' strings: the samples use them first in the
	 * file, and every sample repeats its labels' string indexes, one
	 * byte each where they come first, three after a timeline's 50,000
	 * function names (3.2 MB of its 29.9 MB message) */
	bool *used = sf_calloc(p->d.nlabel_sets + p->d.nthreads + 1,
			       sizeof(*used));
	if (!used) {
		rc = sf_error_nomem(ctx);
		goto out;
	}
	for (size_t i = 0; i < p->d.nsamples; i++) {
		const struct sf_sample *sm = &p->d.samples[i];
		if (w.drop && w.drop[i])
			continue;
		used[sm->labels] = true;
		if (sm->thread != SF_NO_THREAD)
			used[p->d.nlabel_sets + sm->thread] = true;
	}
	for (size_t i = 0; i < p->d.nlabel_sets + p->d.nthreads && !rc;
	     i++) {
		struct sf_pb_buf scratch = { 0 };
		bool ls = i < p->d.nlabel_sets;
		if (!used[i] || (ls && i == 0))   /* set 0: the empty one */
			continue;
		rc = sample_labels(&w, &scratch, ls ? (sf_labels_id)i : 0,
				   ls ? SF_NO_THREAD :
					(sf_thread_idx)(i - p->d.nlabel_sets));
		free(scratch.d);
	}
	free(used);
	if (rc)
		goto out;
	/* the main binary's mapping first: pprof takes mapping[0] for it */
	if (mainmod && (module_mapping(&w, mainmod, &rc), rc))
		goto out;
	if ((rc = number_locations(&w)))
		goto out;
	/* gzip at level 1 from here on, as the buffers fill (on the
	 * output's second thread with two jobs).  Nothing is written
	 * before.  What ctx keeps of the stack tree's child lists and was
	 * not taken for the per-node arrays is given back. */
	rc = sf_output_set_gzip(out, ctx);
	sf_big_drop(ctx);
	if (rc)
		goto out;
	sf_pb_flush(out, &b);

	/* samples */
	bool fraction = false, saturated = false;
	uint32_t ngroups = 0;
	for (size_t i = 0; i < p->d.nsamples; i++) {
		const struct sf_sample *sm = &p->d.samples[i];
		if ((i & 0xffff) == 0 && sf_interrupted(ctx)) {
			rc = sf_error(ctx, SF_EINTR, NULL, 0, "interrupted");
			goto out;
		}
		/* a later sample of a group is written with its first */
		if (w.merge && w.group[i] != ngroups++) {
			ngroups--;
			continue;
		}
		/* after the group's count: a dropped group is all dropped */
		if (w.drop && w.drop[i])
			continue;
		struct sf_pb_buf *ids = &w.ids, *vals = &w.vals;
		size_t lfrom = 0, llen = 0;
		if (walk_ids(&w, sm->stack)) {
			rc = sf_error_nomem(ctx);
			goto out;
		}
		vals->n = 0;
		for (size_t t = 0; t < p->d.ntypes; t++) {
			double v = w.merge ?
				w.gsum[(size_t)w.group[i] * p->d.ntypes + t] :
				sf_weight(p, i, (uint32_t)t);
			sf_pb_put_varint(vals, (uint64_t)sample_value(
				v, &fraction, &saturated));
		}
		if ((rc = label_range(&w, sm->labels, sm->thread, &lfrom,
				      &llen)))
			goto out;
		/* the Sample message straight into b, its size first: the
		 * same bytes as made in a buffer of its own and copied, a
		 * copy of the 28 MB of a 400,000-sample timeline fewer */
		sf_pb_put_tag(&b, 2, SF_PB_LEN);
		sf_pb_put_varint(&b, field_len(1, ids->n) +
				     field_len(2, vals->n) + llen);
		if (ids->n)
			sf_pb_put_bytes(&b, 1, ids->d, ids->n);
		if (vals->n)
			sf_pb_put_bytes(&b, 2, vals->d, vals->n);
		/* no labels at all: lbytes has no buffer, and NULL + 0 is
		 * undefined */
		if (llen)
			sf_pb_put_raw(&b, w.lbytes.d + lfrom, llen);
		b.oom |= ids->oom || vals->oom;
		if (b.oom) {
			rc = sf_error_nomem(w.ctx);
			goto out;
		}
		if (b.n >= (1u << 16))
			sf_pb_flush(out, &b);
	}
	if (fraction)
		sf_warn(ctx, "pprof.fraction", "pprof values are integers: "
			"fractional weights were rounded");
	if (saturated)
		sf_warn(ctx, "pprof.saturated", "pprof values are int64: "
			"weights beyond its range were written as its "
			"largest or smallest value");
	sf_pb_flush(out, &b);
	sf_pb_flush(out, &w.mappings);
	sf_pb_flush(out, &w.locs);
	sf_pb_flush(out, &w.fns);

	/* the rest, then the string table last (it must hold every string
	 * used above and below) */
	uint64_t drop = 0, keep = 0, pt = 0, pu = 0;
	struct sf_sample_type ptype;
	double period = period_of(p, &ptype);
	const char *v;
	if ((v = sf_profile_prop(p, "pprof.drop_frames")))
		drop = WSTR(&w, v, false);
	if ((v = sf_profile_prop(p, "pprof.keep_frames")))
		keep = WSTR(&w, v, false);
	if (ptype.type) {
		pt = WSTR(&w, ptype.type, false);
		pu = WSTR(&w, ptype.unit, false);
	}
	sf_pb_put_uint(&b, 7, drop);
	sf_pb_put_uint(&b, 8, keep);
	if (m->start_time != SF_NO_TIME)
		sf_pb_put_uint(&b, 9, (uint64_t)m->start_time);
	if (m->duration != SF_NO_TIME)
		sf_pb_put_uint(&b, 10, (uint64_t)m->duration);
	if (ptype.type) {
		sf_pb_put_uint(&s, 1, pt);
		sf_pb_put_uint(&s, 2, pu);
		sf_pb_put_msg(&b, 11, &s);
	}
	if (period > 0 && period < 9.2e18)
		sf_pb_put_uint(&b, 12, (uint64_t)llround(period));
	for (size_t i = 0;; i++) {
		char key[40];
		snprintf(key, sizeof(key), "pprof.comment.%zu", i);
		if (!(v = sf_profile_prop(p, key)))
			break;
		uint64_t c = WSTR(&w, v, false);
		if (c == UINT64_MAX) {
			rc = sf_error_nomem(w.ctx);
			goto out;
		}
		sf_pb_put_tag(&b, 13, SF_PB_VARINT);
		sf_pb_put_varint(&b, c);
	}
	if (p->d.ntypes > 1)
		sf_pb_put_uint(&b, 14, def);
	if (drop == UINT64_MAX || keep == UINT64_MAX || pt == UINT64_MAX ||
	    pu == UINT64_MAX || b.oom) {
		rc = sf_error_nomem(w.ctx);
		goto out;
	}
	/* the strings through one buffer, flushed as the samples are: a
	 * buffer of its own per string was 50,000 mallocs on a timeline */
	for (size_t i = 0; i < w.strs.n; i++) {
		sf_pb_put_bytes(&s, 6, w.strs.s[i], w.strs.len[i]);
		if (s.n >= (1u << 16))
			sf_pb_flush(out, &s);
	}
	sf_pb_flush(out, &s);
	if (s.oom) {
		rc = sf_error_nomem(w.ctx);
		goto out;
	}
	sf_pb_flush(out, &b);
out:
	free(b.d);
	free(s.d);
	wr_free(&w);
	return rc;
}
