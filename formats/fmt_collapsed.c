/*
 * fmt_collapsed.c - FlameGraph's "folded" stacks: `root;...;leaf COUNT`.
 *
 * Reading: the count is the last blank-separated field and may be
 * fractional; everything before the blanks is the stack, split on ';', names
 * kept verbatim (spaces included).  CRLF line ends, a UTF-8 BOM and UTF-16
 * with a BOM (utf16.h) are accepted; blank lines are skipped.  An empty
 * stack (" 5") is a sample with no frames.  Collapsed stacks carry no
 * threads and no time.
 *
 * Writing: one line per distinct stack (per thread with --thread-prefix),
 * sorted bytewise by the stack text, with the summed weight of the
 * profile's default sample type.  ';' inside a name is written as ':' (the
 * separator cannot be escaped in this syntax), LF/CR/TAB as spaces.  A
 * first line that begins with a byte-order mark gets an empty line before
 * it (sf_text_guard_mark), so that the reader keeps the name's bytes.
 */
#include "text.h"
#include "utf16.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static int probe_utf8(const unsigned char *d, size_t n);

static int collapsed_probe(const unsigned char *d, size_t n)
{
	/* UTF-16 with a BOM: judge the text, not its encoding */
	char u8[SF_PROBE_BYTES];
	size_t m = sf_utf16_probe(d, n, u8, sizeof(u8));

	return m ? probe_utf8((const unsigned char *)u8, m) :
		   probe_utf8(d, n);
}

static int probe_utf8(const unsigned char *d, size_t n)
{
	size_t i = sf_probe_skip_space(d, n);
	size_t lines = 0, good = 0;

	while (i < n && lines < 20) {
		const unsigned char *lf = memchr(d + i, '\n', n - i);
		size_t e = lf ? (size_t)(lf - d) : n;
		if (!lf && lines)
			break;  /* a partial last line proves nothing */
		size_t le = e;
		if (le > i && d[le - 1] == '\r')
			le--;
		if (le > i) {
			lines++;
			size_t j = le;
			while (j > i && ((d[j - 1] >= '0' && d[j - 1] <= '9') ||
					 d[j - 1] == '.'))
				j--;
			/* judged by the line's shape, not its first byte: a
			 * frame may start with '<' (SBCL's <unknown>, Java's
			 * <init>), and an XML line never ends in a count */
			if (j < le && j > i && (d[j - 1] == ' ' ||
						d[j - 1] == '\t') &&
			    d[i] != '@' && d[i] != '#' && d[i] != '{' &&
			    !memchr(d + i, '\t', j - 1 - i))
				good++;
		}
		i = e + 1;
	}
	if (!lines || good != lines)
		return 0;
	return lines >= 2 ? 30 : 15;
}

static int collapsed_read(struct sf_profile *p, struct sf_input *in,
			  struct sf_ctx *ctx)
{
	struct sf_stack_cache cache = { 0 };
	char *line;
	size_t len;
	int rc;
	uint32_t t;
	double w[64] = { 0 };
	bool first = true;
	struct sf_input *u16;
	char *u16buf;

	/* UTF-16 with a BOM: read its UTF-8 transcoding instead */
	if ((rc = sf_utf16_input(&u16, &u16buf, in, ctx)))
		return rc;
	if (u16) {
		rc = collapsed_read(p, u16, ctx);
		sf_input_close(u16);
		free(u16buf);
		return rc;
	}

	if ((rc = sf_profile_default_type(p, ctx, &t)))
		return rc;
	if (p->d.ntypes > 64)
		return sf_error(ctx, SF_EINPUT, sf_input_name(in), 0,
				"cannot merge collapsed stacks into a profile "
				"with more than 64 sample types");
	while ((rc = sf_input_line(in, ctx, &line, &len)) > 0) {
		if (sf_interrupted(ctx)) {
			rc = sf_error(ctx, SF_EINTR, NULL, 0, "interrupted");
			break;
		}
		if ((rc = sf_text_line_check(ctx, sf_input_name(in),
					      sf_input_lineno(in), &first,
					      &line, &len)))
			break;
		/* count: after the last run of blanks */
		size_t e = len;
		while (e && (line[e - 1] == ' ' || line[e - 1] == '\t'))
			e--;
		if (!e)
			continue;   /* blank line */
		size_t c = e;
		while (c && line[c - 1] != ' ' && line[c - 1] != '\t')
			c--;
		if (!c || !sf_parse_weight(line + c, e - c, &w[t])) {
			rc = sf_error(ctx, SF_EINPUT, sf_input_name(in),
				      sf_input_lineno(in),
				      "expected 'STACK COUNT' (frames "
				      "separated by ';', then a blank and a "
				      "non-negative number)");
			break;
		}
		/* one blank separates the count, as in flamegraph.pl: a
		 * frame name may end in blanks (perf's C++ lambdas,
		 * "std::_Function_handler<long "), and "b " is not "b" */
		size_t s = c - 1;
		sf_stack_id stack;
		if ((rc = sf_stack_from_text(p, ctx, &cache, line, s,
					     &stack)) ||
		    (rc = sf_profile_add_sample(p, ctx, stack, SF_NO_THREAD, 0,
						SF_NO_TIME, w))) {
			sf_error_place(ctx, sf_input_name(in),
				       sf_input_lineno(in));
			break;
		}
	}
	sf_stack_cache_free(&cache);
	return rc < 0 ? rc : 0;
}

/*
 * Writing in byte order without building and sorting the output text.
 *
 * A line is a stack written with sanitised names; the profile's stack
 * tree already holds every stack once, so we add up a weight per stack
 * node and walk that tree depth first, sorting each node's children by
 * their sanitised names.  Memory: a weight, flags and a children index
 * per stack node (O(unique stack nodes)), nothing per line; with
 * --thread-prefix a second weight and flags per node, and a sample index
 * per sample that has a thread (see struct walk).  Without a prefix the
 * same order is found a level of the tree at a time instead (see
 * level_emit): a record per node in level order and a few words per
 * merged node and per line.
 *
 * Plain DFS is not byte order when a sibling's name is a proper prefix of
 * another's: "a" < "a-x" but "a;b" > "a-x" (';' > '-').  So each child c
 * gives two entries, keyed "c" (its own line) and "c;" (every line below
 * it); no key is a proper prefix of another unless it is an own-line key,
 * whose only line is then a prefix of, hence before, the other's lines.
 * Sorting these keys is therefore exactly the byte order of the lines.
 *
 * Siblings whose sanitised names are equal (frames that differ only in
 * module or line, ';' vs ':') make one text, so their equal keys are
 * merged: equal own-line keys sum their weights, equal subtree keys are
 * walked as one node whose children are all of theirs.  Node 0 (the empty
 * stack) writes the empty line, as does a root frame named "": the top
 * level lists node 0's own line with the root frames so they merge too.
 */

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

struct onkey {
	const char *txt;
	size_t len;
};

static bool oname_eq(const void *c, uint32_t id, const void *key)
{
	const struct onames *t = c;
	const struct onkey *k = key;

	return t->names[id].len == k->len &&
	       !memcmp(t->names[id].txt, k->txt, k->len);
}

static bool needs_sanitising(const char *s)
{
	return s[strcspn(s, ";\n\r\t")] != 0;
}

/* The id of the sanitised text of `s`; `s` must outlive `t` unless it
 * needs sanitising or `copy` is set (frame names are the profile's). */
static int oname_id(struct onames *t, struct sf_ctx *ctx, const char *s,
		    bool copy, uint32_t *out)
{
	struct onkey k = { s, strlen(s) };
	char *own = NULL;

	if (copy || needs_sanitising(s)) {
		if (!(own = malloc(k.len + 1)))
			goto nomem;
		for (size_t i = 0; i <= k.len; i++) {
			char c = s[i];
			own[i] = c == ';' ? ':' : (c == '\n' || c == '\r' ||
						   c == '\t') ? ' ' : c;
		}
		k.txt = own;
	}
	uint64_t h = sf_hash(k.txt, k.len);
	if (sf_idx_find(&t->name_idx, h, oname_eq, t, &k, out)) {
		free(own);
		return 0;
	}
	if (t->nnames == UINT32_MAX - 1)
		goto nomem;
	if (t->nnames == t->capnames) {
		size_t c = t->capnames ? 2 * t->capnames : 256;
		struct oname *n = realloc(t->names, c * sizeof(*n));
		if (!n)
			goto nomem;
		t->names = n;
		t->capnames = c;
	}
	if (own) {
		if (t->nowned == t->capowned) {
			size_t c = t->capowned ? 2 * t->capowned : 16;
			char **n = realloc(t->owned, c * sizeof(*n));
			if (!n)
				goto nomem;
			t->owned = n;
			t->capowned = c;
		}
		t->owned[t->nowned++] = own;
	}
	*out = (uint32_t)t->nnames;
	if (!sf_idx_insert(&t->name_idx, h, *out)) {
		/* `own` is already kept in t->owned */
		return sf_error_nomem(ctx);
	}
	t->names[t->nnames].txt = k.txt;
	t->names[t->nnames].len = (uint32_t)k.len;
	t->nnames++;
	return 0;
nomem:
	free(own);
	return sf_error_nomem(ctx);
}

static void onames_free(struct onames *t)
{
	for (size_t i = 0; i < t->nowned; i++)
		free(t->owned[i]);
	free(t->owned);
	free(t->names);
	sf_idx_free(&t->name_idx);
	free(t->frame_name);
}

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

static double weight_of(const struct walk *w, size_t i)
{
	return w->p->d.ntypes ? sf_weight(w->p, i, w->ty) : 1;
}

static void mark(struct walk *w, struct wctx *c, size_t i)
{
	sf_stack_id s = w->p->d.samples[i].stack;

	c->weight[s] += weight_of(w, i);
	c->flags[s] |= F_LINE;
	while (s) {
		s = w->p->d.stacks[s].parent;
		if (c->flags[s] & F_BELOW)
			break;   /* and so are its ancestors */
		c->flags[s] |= F_BELOW;
	}
}

static void unmark(struct walk *w, struct wctx *c, size_t i)
{
	sf_stack_id s = w->p->d.samples[i].stack;

	for (;;) {
		c->weight[s] = 0;
		c->flags[s] = 0;
		if (!s)
			break;
		s = w->p->d.stacks[s].parent;
	}
}

/* Lay label group g's samples in context 1 (in place of the last). */
static void fill(struct walk *w, size_t g)
{
	if (w->filled == g)
		return;
	if (w->filled != SIZE_MAX)
		for (size_t k = w->gstart[w->filled];
		     k < w->gstart[w->filled + 1]; k++)
			unmark(w, &w->c[1], w->gsamples[k]);
	for (size_t k = w->gstart[g]; k < w->gstart[g + 1]; k++)
		if (w->p->d.samples[w->gsamples[k]].stack)
			mark(w, &w->c[1], w->gsamples[k]);
	w->filled = g;
}

/* An entry of a node's sorted child list: the child's own line (sub = 0,
 * key = name) or the lines below it (sub = 1, key = name ";").  `ctx` is
 * the context of stack node `node` (0 or 1), or 2 for label group `node`
 * (at the top only).  `key` is the key's rank (struct walk's krank), so
 * sorting compares integers, not texts. */
struct oent {
	uint32_t key;
	uint16_t sub, ctx;
	const struct kid *k;
};

_Static_assert(sizeof(struct oent) <= 32, "short_sort holds one");

/* Key order; equal keys in a fixed order, for a deterministic sum. */
static int oent_cmp(const void *a, const void *b)
{
	const struct oent *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	if (x->ctx != y->ctx)
		return x->ctx < y->ctx ? -1 : 1;
	return x->k->node < y->k->node ? -1 : x->k->node > y->k->node;
}

/* Sort n elements of `size` bytes (at most 32).  Most lists are short
 * (one child, or a child's own line and its lines below): insertion sort,
 * without qsort's calls. */
static void short_sort(void *base, size_t n, size_t size,
		       int (*cmp)(const void *, const void *))
{
	unsigned char *e = base, x[32];

	if (n > 16) {
		qsort(base, n, size, cmp);
		return;
	}
	for (size_t i = 1; i < n; i++) {
		size_t j = i;
		memcpy(x, e + i * size, size);
		for (; j && cmp(x, e + (j - 1) * size) < 0; j--)
			memcpy(e + j * size, e + (j - 1) * size, size);
		memcpy(e + j * size, x, size);
	}
}

/* Byte order of the keys name (sub = 0) and name ";" (sub = 1), given as
 * 2 * name id + sub. */
static const struct onames *g_rank_names;

static int key_cmp(const void *a, const void *b)
{
	uint32_t ka = *(const uint32_t *)a, kb = *(const uint32_t *)b;
	const struct oname *x = &g_rank_names->names[ka >> 1];
	const struct oname *y = &g_rank_names->names[kb >> 1];
	unsigned xs = ka & 1, ys = kb & 1;
	size_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp(x->txt, y->txt, n);

	if (c)
		return c;
	if (x->len == y->len)
		return (int)xs - (int)ys;  /* "c" < "c;" */
	/* one name is a proper prefix of the other: the shorter key goes
	 * on with ';' if it is a subtree entry, else it has ended */
	if (x->len < y->len) {
		unsigned char yc = (unsigned char)y->txt[n];
		return !xs || ';' < yc ? -1 : ';' > yc ? 1 : -1;
	}
	unsigned char xc = (unsigned char)x->txt[n];
	return !ys || ';' < xc ? 1 : ';' > xc ? -1 : 1;
}

/* w->krank: every name's two keys ranked once (names are distinct, so
 * equal ranks are equal keys). */
static int rank_keys(struct walk *w, struct sf_ctx *ctx)
{
	size_t nk = 2 * w->names->nnames;
	uint32_t *order = sf_calloc(nk ? nk : 1, sizeof(*order));

	w->krank = sf_calloc(nk ? nk : 1, sizeof(*w->krank));
	if (!order || !w->krank) {
		free(order);
		return sf_error_nomem(ctx);
	}
	for (size_t k = 0; k < nk; k++)
		order[k] = (uint32_t)k;
	/* qsort has no context argument; the writer runs on one thread */
	g_rank_names = w->names;
	qsort(order, nk, sizeof(*order), key_cmp);
	g_rank_names = NULL;
	for (size_t r = 0; r < nk; r++)
		w->krank[order[r]] = (uint32_t)r;
	free(order);
	return 0;
}

/* Append the entries of the children kids[kbeg .. kend) in context ctx. */
static void add_children(const struct walk *w, struct oent *ents,
			 size_t *nents, uint16_t ctx, uint32_t kbeg,
			 uint32_t kend)
{
	const unsigned char *fl = w->c[1].flags;
	size_t n = *nents;

	for (uint32_t k = kbeg; k < kend; k++) {
		const struct kid *c = &w->kids[k];
		unsigned f = ctx ? fl[c->node] : c->flags0;
		if (f & F_LINE)
			ents[n++] = (struct oent){ c->key[0], 0, ctx, c };
		if (f & F_BELOW)
			ents[n++] = (struct oent){ c->key[1], 1, ctx, c };
	}
	*nents = n;
}

/*
 * The walk goes depth first in key order, which is not the order the
 * children index lies in: each step to a node's next entry lands on that
 * child's children (kids[kbeg]) and its name's text at random places, a
 * cache miss each (add_children's first load was most of its time, and
 * the path's memcpy of the name most of the rest).  So the entries of a
 * node are prefetched AHEAD of the one visited: while the subtree of
 * entry i is walked, the memory of entry i + AHEAD comes in.
 */
#define AHEAD 4

static inline void oent_prefetch(const struct walk *w, const struct oent *e)
{
	__builtin_prefetch(&w->kids[e->k->kbeg]);
	__builtin_prefetch(e->k->txt);
}

/* A node of the output being walked: the entries merged into it are
 * [mem, mem + nmem) of its parent's list (none for the top); its own
 * sorted entries are [ents, ents + nents). */
struct ovisit {
	size_t mem, nmem;
	size_t ents, nents, next;
	size_t pathlen;            /* its text in `path` */
	bool top;
};

static int walk_emit(struct walk *w, struct sf_output *out,
		     struct sf_ctx *ctx)
{
	struct oent *ents = NULL;
	struct ovisit *vis = NULL;
	char *path = NULL;
	size_t nents = 0, capents = 0, nvis = 0, capvis = 0, pathcap = 0;
	size_t mem = 0, nmem = 0, pathlen = 0;
	bool at_top = true, first_line = true;

	for (;;) {
		/* push the sorted entries of the merged node: the children
		 * of every member */
		size_t need = nents + 1;
		if (at_top)
			need += 2 * (size_t)(w->root_end - w->root_beg) +
				2 * w->ngroups;
		for (size_t m = 0; m < nmem; m++) {
			const struct oent *me = &ents[mem + m];
			need += 2 * (size_t)(me->k->kend - me->k->kbeg);
		}
		if (need > capents) {
			size_t c = capents ? 2 * capents : 1024;
			while (c < need)
				c *= 2;
			struct oent *ne = realloc(ents, c * sizeof(*ne));
			if (!ne)
				goto nomem;
			ents = ne;
			capents = c;
		}
		size_t base = nents;
		if (at_top) {
			if (w->c[0].flags[0] & F_LINE)
				ents[nents++] = (struct oent){
					w->tops[0].key[0], 0, 0, &w->tops[0] };
			add_children(w, ents, &nents, 0, w->root_beg,
				     w->root_end);
			for (size_t g = 0; g < w->ngroups; g++) {
				const struct kid *gk = &w->tops[1 + g];
				if (w->gflags[g] & F_LINE)
					ents[nents++] = (struct oent){
						gk->key[0], 0, 2, gk };
				if (w->gflags[g] & F_BELOW)
					ents[nents++] = (struct oent){
						gk->key[1], 1, 2, gk };
			}
		}
		for (size_t m = 0; m < nmem; m++) {
			struct oent me = ents[mem + m];
			if (me.ctx == 2) {
				/* a label: its frames are the stacks of its
				 * threads, from the root */
				fill(w, me.k->node);
				add_children(w, ents, &nents, 1, me.k->kbeg,
					     me.k->kend);
			} else {
				add_children(w, ents, &nents, me.ctx,
					     me.k->kbeg, me.k->kend);
			}
		}
		short_sort(ents + base, nents - base, sizeof(*ents),
			   oent_cmp);
		for (size_t k = base; k < nents && k < base + AHEAD; k++)
			oent_prefetch(w, &ents[k]);
		if (nvis == capvis) {
			size_t c = capvis ? 2 * capvis : 64;
			struct ovisit *nv = realloc(vis, c * sizeof(*nv));
			if (!nv)
				goto nomem;
			vis = nv;
			capvis = c;
		}
		vis[nvis++] = (struct ovisit){ mem, nmem, base, nents - base,
					       0, pathlen, at_top };

		/* go on with the innermost unfinished node */
		bool down = false;
		while (nvis && !down) {
			struct ovisit *cur = &vis[nvis - 1];
			if (cur->next == cur->nents) {
				nents = cur->ents;
				nvis--;
				continue;
			}
			size_t i = cur->ents + cur->next, j = i + 1;
			while (j < cur->ents + cur->nents &&
			       ents[i].key == ents[j].key)
				j++;
			cur->next = j - cur->ents;
			if (j + AHEAD < cur->ents + cur->nents)
				oent_prefetch(w, &ents[j + AHEAD]);
			const struct oent *en = &ents[i];
			const struct kid *nm = en->k;
			/* the text: parent's, ';' unless at the top, name;
			 * node 0's own line (at the top) is empty */
			size_t plen = cur->pathlen;
			bool empty = cur->top && en->ctx == 0 &&
				     nm->node == 0;
			size_t clen = empty ? 0 : plen + (cur->top ? 0 : 1) +
						  nm->len;
			if (sf_grow(&path, &pathcap, clen + 1, 1))
				goto nomem;
			if (!empty) {
				if (!cur->top)
					path[plen] = ';';
				memcpy(path + clen - nm->len, nm->txt,
				       nm->len);
			}
			if (en->sub) {
				mem = i;
				nmem = j - i;
				pathlen = clen;
				at_top = false;
				down = true;
				continue;
			}
			double sum = 0;
			for (size_t k = i; k < j; k++)
				sum += ents[k].ctx == 2 ?
				       w->gempty[ents[k].k->node] :
				       ents[k].ctx ?
				       w->c[1].weight[ents[k].k->node] :
				       ents[k].k->weight0;
			if (first_line)
				sf_text_guard_mark(out, path, clen);
			first_line = false;
			sf_output_write(out, path, clen);
			sf_output_putc(out, ' ');
			sf_output_num(out, sum);
			sf_output_putc(out, '\n');
		}
		if (!down)
			break;
	}
	free(ents);
	free(vis);
	free(path);
	return 0;
nomem:
	free(ents);
	free(vis);
	free(path);
	return sf_error_nomem(ctx);
}

/*
 * Without a thread prefix: the same order, level by level.  The walk
 * above visits nodes depth first in key order, which for a timeline
 * (every sample its own stack, 3.7 million nodes) is a cache miss per
 * node into an index as large as the tree.  The lines' order is that of
 * their key sequences (the "c;" rank of each frame above the line, then
 * the "c" rank of its own), so it can be found a level at a time:
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

struct levels {
	size_t nlevels;
	struct lrec *rec;          /* by place: level d is rec[dstart[d] ..
				    * dstart[d + 1]) */
	unsigned char *flags;      /* by place: its flags in context 0 */
	uint32_t *dstart;
	uint32_t *merged;          /* by place: its merged id (places with
				    * F_BELOW) */
	struct lent *sorted;       /* one level's entries, in order */
	double *lw;                /* one level's line weights, read in node
				    * order (the entries stay 16 bytes) */
	uint32_t *cnt;
	struct lrun *runs;         /* every level's runs, in order */
	size_t nruns;
	uint32_t *rstart;          /* level d's: runs[rstart[d] ..) */
	uint32_t *lstart;          /* level d's lines: from lstart[d] */
	double *line_sum;          /* by line id */
};

static void levels_free(struct levels *l)
{
	if ((void *)l->rec != (void *)l->runs)
		free(l->rec);
	free(l->flags);
	free(l->dstart);
	free(l->merged);
	free(l->sorted);
	free(l->lw);
	free(l->cnt);
	free(l->runs);
	free(l->rstart);
	free(l->lstart);
	free(l->line_sum);
}

/* Sort a parent's few children (lent_cmp) by insertion, inline: most
 * parents have one or two. */
static void lent_sort(struct lent *e, size_t n)
{
	if (n > 16) {
		qsort(e, n, sizeof(*e), lent_cmp);
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

/* Put level d's entries in order and append its runs and line sums.
 * The entries are made where a counting sort on the merged parent puts
 * them (a count pass, then a placing pass over the level's records),
 * then each parent's few are sorted by key, node. */
static void level_runs(const struct walk *w, struct levels *l, size_t d,
		       uint32_t empty_name, uint32_t *nlines)
{
	uint32_t pbase = l->rstart[d - 1], nw = 0;
	size_t np = l->rstart[d] - pbase, nent = 0;
	uint32_t beg = l->dstart[d], end = l->dstart[d + 1];
	/* node 0's own line, the empty line, among the root frames (one
	 * named "" merges with it); its parent is the top, run 0 */
	bool empty = d == 1 && (l->flags[0] & F_LINE);

	memset(l->cnt, 0, (np + 1) * sizeof(*l->cnt));
	l->cnt[1] = empty;
	for (uint32_t i = beg; i < end; i++) {
		unsigned f = l->flags[i];
		if (f)
			l->cnt[l->merged[l->rec[i].ppos] - pbase + 1] +=
				(f & F_LINE) + ((f & F_BELOW) >> 1);
	}
	for (size_t g = 0; g < np; g++)
		l->cnt[g + 1] += l->cnt[g];
	nent = l->cnt[np];
	if (empty) {
		l->lw[nw] = l->rec[0].weight;
		l->sorted[l->cnt[0]++] = (struct lent){
			w->krank[2 * empty_name], nw++, 0,
			empty_name | LENT_LINE };
	}
	for (uint32_t i = beg; i < end; i++) {
		unsigned f = l->flags[i];
		if (!f)
			continue;
		uint32_t nm = l->rec[i].nm;
		uint32_t pp = l->merged[l->rec[i].ppos];
		uint32_t *c = &l->cnt[pp - pbase];
		if (f & F_LINE) {
			l->lw[nw] = l->rec[i].weight;
			l->sorted[(*c)++] = (struct lent){
				w->krank[2 * nm], nw++, pp, nm | LENT_LINE };
		}
		if (f & F_BELOW)
			l->sorted[(*c)++] = (struct lent){
				w->krank[2 * nm + 1], i, pp, nm };
	}
	/* cnt[g] is now the end of parent g's entries */
	for (size_t g = 0, b = 0; g < np; b = l->cnt[g++])
		lent_sort(l->sorted + b, l->cnt[g] - b);
	for (size_t i = 0, j; i < nent; i = j) {
		const struct lent *e = &l->sorted[i];
		for (j = i + 1; j < nent && l->sorted[j].pp == e->pp &&
				l->sorted[j].key == e->key; j++)
			;
		if (e->nm & LENT_LINE) {
			double sum = 0;
			for (size_t k = i; k < j; k++)
				sum += l->lw[l->sorted[k].node];
			l->line_sum[(*nlines)++] = sum;
		} else {
			for (size_t k = i; k < j; k++)
				l->merged[l->sorted[k].node] =
					(uint32_t)l->nruns;
		}
		l->runs[l->nruns++] = (struct lrun){ e->pp, e->nm };
	}
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

/* Put the text of the merged node at depth d, name o, on the path.
 * Returns 0, or -1 when out of memory. */
static int path_push(struct wstate *st, size_t d, const struct oname *o)
{
	size_t at = st->pathoff[d - 1] + (d > 1);

	if (sf_grow(&st->path, &st->pathcap, at + o->len + 1, 1))
		return -1;
	if (d > 1)
		st->path[at - 1] = ';';
	memcpy(st->path + at, o->txt, o->len);
	st->pathoff[d] = (uint32_t)(at + o->len);
	return 0;
}

/* Write the lines from st's state on, until run `stop` of level `dstop`
 * would be next (dstop 0: to the end).  `first`: the output's first
 * line is among them.  Returns 0, or -1 when out of memory. */
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
		const struct oname *o = &t->names[u->nm & ~LENT_LINE];
		/* each level is a stream of its own, too many streams for
		 * the hardware to follow: bring in this level's runs and
		 * the name of a run a few ahead (names are read at random) */
		if (rcur[d] + 2 * RUN_AHEAD < l->nruns) {
			__builtin_prefetch(u + 2 * RUN_AHEAD);
			__builtin_prefetch(&t->names[u[RUN_AHEAD].nm &
						     ~LENT_LINE]);
		}
		if (!(u->nm & LENT_LINE)) {
			if (path_push(st, d, o))
				return -1;
			st->chain[d] = (uint32_t)(u - l->runs);
			d++;
			continue;
		}
		if (first) {
			/* the line begins with the path, or is one name */
			if (d > 1)
				sf_text_guard_mark(out, st->path,
						   st->pathoff[d - 1]);
			else
				sf_text_guard_mark(out, o->txt, o->len);
			first = false;
		}
		sf_output_write(out, st->path, st->pathoff[d - 1]);
		if (d > 1)
			sf_output_putc(out, ';');
		sf_output_write(out, o->txt, o->len);
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

/* What the threads writing chunks share: chunk k's memory output (for
 * the chunks of the threads other than this one), whether it is done
 * and how it went, and how many chunks are written out. */
struct wshare {
	const struct levels *l;
	const struct onames *t;
	const struct chunks *c;
	size_t nj;                 /* threads */
	struct sf_output **mem;    /* by chunk */
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
			if (path_push(st, d, &t->names[l->runs[a].nm]))
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
		int rc = chunk_write(j, k, s->mem[k]);
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
	int rc = 0;

	s.mem = sf_calloc(c->n, sizeof(*s.mem));
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
	/* the memory outputs are made here, where an error can be told */
	for (size_t k = 0; k < c->n; k++)
		if (k % s.nj && (rc = sf_output_mem(&s.mem[k], ctx)))
			goto out;
	pthread_mutex_init(&s.lock, NULL);
	pthread_cond_init(&s.cond, NULL);
	for (size_t i = 1; i < s.nj; i++)
		js[i].started = !pthread_create(&js[i].thread, NULL,
						chunk_thread, &js[i]);
	for (size_t k = 0; k < c->n && !rc; k++) {
		struct wjob *j = &js[k % s.nj];
		if (!j->started) {
			/* this thread's chunk, or one of a thread that could
			 * not be started */
			if (chunk_write(&js[0], k, out))
				rc = sf_error_nomem(ctx);
		} else {
			pthread_mutex_lock(&s.lock);
			while (!s.done[k])
				pthread_cond_wait(&s.cond, &s.lock);
			pthread_mutex_unlock(&s.lock);
			size_t len;
			const char *b = sf_output_mem_data(s.mem[k], &len);
			if (s.rc[k])
				rc = sf_error_nomem(ctx);
			else
				sf_output_write(out, b, len);
			sf_output_abort(s.mem[k]);
			s.mem[k] = NULL;
		}
		pthread_mutex_lock(&s.lock);
		s.written = k + 1;
		s.stop = rc != 0;
		pthread_cond_broadcast(&s.cond);
		pthread_mutex_unlock(&s.lock);
	}
	for (size_t i = 1; i < s.nj; i++)
		if (js[i].started)
			pthread_join(js[i].thread, NULL);
	pthread_mutex_destroy(&s.lock);
	pthread_cond_destroy(&s.cond);
out:
	for (size_t k = 0; s.mem && k < c->n; k++)
		sf_output_abort(s.mem[k]);
	for (size_t i = 0; js && i < s.nj; i++)
		wstate_free(&js[i].st);
	free(js);
	free(s.mem);
	free(s.rc);
	free(s.done);
	return rc;
}

static int level_emit(struct walk *w, struct sf_output *out,
		      uint32_t empty_name, struct sf_ctx *ctx)
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

	for (size_t v = 1; v < p->d.nstacks; v++)
		if (p->d.stacks[v].depth + (size_t)1 > nlevels)
			nlevels = p->d.stacks[v].depth + (size_t)1;
	l.nlevels = nlevels;
	uint32_t *place = sf_calloc(n, sizeof(*place));
	if (!place ||
	    !(l.dstart = sf_calloc(nlevels + 1, sizeof(*l.dstart))) ||
	    !(l.rec = sf_calloc(n, sizeof(*l.rec))) ||
	    !(l.flags = sf_calloc(n, sizeof(*l.flags))) ||
	    !(l.rstart = sf_calloc(nlevels + 1, sizeof(*l.rstart))) ||
	    !(l.lstart = sf_calloc(nlevels + 1, sizeof(*l.lstart)))) {
		free(place);
		goto nomem;
	}
	for (size_t v = 0; v < p->d.nstacks; v++)
		l.dstart[p->d.stacks[v].depth + 1]++;
	for (size_t d = 0; d < nlevels; d++) {
		if (l.dstart[d + 1] > maxlev)
			maxlev = l.dstart[d + 1];
		l.dstart[d + 1] += l.dstart[d];
	}
	/* one forward pass: the parent was placed before its child */
	for (size_t v = 0; v < p->d.nstacks; v++) {
		const struct sf_stack_node *sn = &p->d.stacks[v];
		uint32_t i = l.dstart[sn->depth]++;
		place[v] = i;
		l.rec[i].ppos = place[sn->parent];
		l.rec[i].nm = t->frame_name[sn->frame];
	}
	for (size_t d = nlevels; d > 0; d--)
		l.dstart[d] = l.dstart[d - 1];
	l.dstart[0] = 0;
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
		l.rec[at].weight += weight_of(w, i);
		l.flags[at] |= F_LINE;
	}
	for (size_t i = l.dstart[nlevels]; i-- > 1;)
		if (l.flags[i])
			l.flags[l.rec[i].ppos] |= F_BELOW;
	/* a node gives at most a line and a merged node, node 0 one line
	 * more and the top's run */
	size_t nbelow = 1, nline = 1;
	for (size_t i = 0; i < l.dstart[nlevels]; i++) {
		nbelow += (l.flags[i] & F_BELOW) != 0;
		nline += (l.flags[i] & F_LINE) != 0;
	}
	if (nbelow + nline >= UINT32_MAX) {
		/* a run's index is 32 bits (struct lrun) */
		rc = sf_error(ctx, SF_ELIMIT, NULL, 0,
			      "collapsed: more than 4 billion lines and "
			      "frames cannot be written");
		free(place);
		goto done;
	}
	/* a node's merged id is written at its level before its children
	 * read it, so `place` can hold them without clearing */
	l.merged = place;
	l.merged[0] = 0;
	size_t maxent = 2 * maxlev + 1;
	if (!(l.sorted = sf_calloc(maxent, sizeof(*l.sorted))) ||
	    !(l.lw = sf_calloc(maxlev + 1, sizeof(*l.lw))) ||
	    !(l.cnt = sf_calloc(nbelow + nline + 1, sizeof(*l.cnt))) ||
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
	free(l.sorted);
	free(l.lw);
	free(l.cnt);
	free(l.flags);
	free(l.merged);
	l.sorted = NULL;
	l.lw = NULL;
	l.rec = NULL;
	l.flags = NULL;
	l.cnt = l.merged = NULL;
	if (make_chunks(&l, &c))
		goto nomem;
	rc = chunks_write(&l, t, &c, sf_jobs(ctx), out, ctx);
	goto done;
nomem:
	rc = sf_error_nomem(ctx);
done:
	chunks_free(&c);
	levels_free(&l);
	return rc;
}

/* --thread-prefix: group the samples with a thread by written label. */
static int make_groups(struct walk *w, struct onames *t, struct sf_ctx *ctx)
{
	const struct sf_profile *p = w->p;
	uint32_t *tgroup = sf_calloc(p->d.nthreads ? p->d.nthreads : 1,
				     sizeof(*tgroup));
	uint32_t *name_group = NULL;
	int rc = 0;

	if (!tgroup)
		goto nomem;
	/* label name per thread with samples (UINT32_MAX: none) */
	memset(tgroup, 0xff, p->d.nthreads * sizeof(*tgroup));
	for (size_t i = 0; i < p->d.nsamples; i++) {
		sf_thread_idx th = p->d.samples[i].thread;
		if (th == SF_NO_THREAD || tgroup[th] != UINT32_MAX)
			continue;
		char label[512];
		if (w->by_pid)
			sf_process_label(p, &p->d.threads[th], label,
					 sizeof(label));
		else
			sf_thread_label(&p->d.threads[th], label,
					sizeof(label));
		if ((rc = oname_id(t, ctx, label, true, &tgroup[th])))
			goto out;
	}
	/* name -> dense group index */
	if (!(name_group = malloc((t->nnames ? t->nnames : 1) *
				  sizeof(*name_group))) ||
	    !(w->group_name = sf_calloc(p->d.nthreads ? p->d.nthreads : 1,
					sizeof(*w->group_name))))
		goto nomem;
	memset(name_group, 0xff, t->nnames * sizeof(*name_group));
	for (size_t th = 0; th < p->d.nthreads; th++) {
		if (tgroup[th] == UINT32_MAX)
			continue;
		uint32_t nm = tgroup[th];
		if (name_group[nm] == UINT32_MAX) {
			name_group[nm] = (uint32_t)w->ngroups;
			w->group_name[w->ngroups++] = nm;
		}
		tgroup[th] = name_group[nm];
	}
	size_t ng = w->ngroups;
	w->gstart = sf_calloc(ng + 1, sizeof(*w->gstart));
	w->gsamples = sf_calloc(p->d.nsamples ? p->d.nsamples : 1,
				sizeof(*w->gsamples));
	w->gempty = sf_calloc(ng ? ng : 1, sizeof(*w->gempty));
	w->gflags = sf_calloc(ng ? ng : 1, 1);
	if (!w->gstart || !w->gsamples || !w->gempty || !w->gflags)
		goto nomem;
	/* counting sort by group; the samples without a thread go to
	 * context 0 */
	for (size_t i = 0; i < p->d.nsamples; i++) {
		sf_thread_idx th = p->d.samples[i].thread;
		if (th == SF_NO_THREAD) {
			mark(w, &w->c[0], i);
			continue;
		}
		size_t g = tgroup[th];
		w->gstart[g + 1]++;
		if (p->d.samples[i].stack) {
			w->gflags[g] |= F_BELOW;
		} else {
			w->gflags[g] |= F_LINE;
			w->gempty[g] += weight_of(w, i);
		}
	}
	for (size_t g = 0; g < ng; g++)
		w->gstart[g + 1] += w->gstart[g];
	for (size_t i = 0; i < p->d.nsamples; i++) {
		sf_thread_idx th = p->d.samples[i].thread;
		if (th != SF_NO_THREAD)
			w->gsamples[w->gstart[tgroup[th]]++] = (uint32_t)i;
	}
	for (size_t g = ng; g > 0; g--)
		w->gstart[g] = w->gstart[g - 1];
	w->gstart[0] = 0;
	goto out;
nomem:
	rc = sf_error_nomem(ctx);
out:
	free(tgroup);
	free(name_group);
	return rc;
}

static int collapsed_write(const struct sf_profile *p, struct sf_output *out,
			   struct sf_ctx *ctx)
{
	bool by_pid = sf_ctx_flag(ctx, "pid-prefix");
	bool prefix = by_pid || sf_ctx_flag(ctx, "thread-prefix");
	struct onames t = { 0 };
	struct walk w = { .p = p, .names = &t, .filled = SIZE_MAX,
			  .by_pid = by_pid };
	size_t n = p->d.nstacks ? p->d.nstacks : 1;
	int rc = 0;

	w.ty = p->d.ntypes ? (p->d.meta.default_type < p->d.ntypes ?
			      p->d.meta.default_type :
			      (uint32_t)p->d.ntypes - 1) : 0;
	t.frame_name = sf_calloc(p->d.nframes ? p->d.nframes : 1,
				 sizeof(*t.frame_name));
	uint32_t *first = NULL;
	/* without a prefix level_emit lays the samples on its own records */
	for (int c = 0; c < (prefix ? 2 : 0); c++) {
		w.c[c].weight = sf_calloc(n, sizeof(*w.c[c].weight));
		w.c[c].flags = sf_calloc(n, 1);
		if (!w.c[c].weight || !w.c[c].flags)
			goto nomem;
	}
	if (!t.frame_name)
		goto nomem;
	for (size_t f = 0; f < p->d.nframes; f++)
		if ((rc = oname_id(&t, ctx, p->d.frames[f].name, false,
				   &t.frame_name[f])))
			goto out;
	for (size_t i = 0; i < t.nnames; i++)
		if (t.names[i].len >= 1u << 30) {
			/* struct kid keeps 30 bits of it */
			rc = sf_error(ctx, SF_ELIMIT, NULL, 0,
				      "collapsed: a frame name of 1 GiB or "
				      "more cannot be written");
			goto out;
		}
	uint32_t empty_name;
	if ((rc = oname_id(&t, ctx, "", false, &empty_name)))
		goto out;
	if (prefix && (rc = make_groups(&w, &t, ctx)))
		goto out;
	if ((rc = rank_keys(&w, ctx)))
		goto out;
	if (!prefix) {
		rc = level_emit(&w, out, empty_name, ctx);
		goto out;
	}
	first = sf_calloc(n + 1, sizeof(*first));
	w.kids = sf_calloc(n, sizeof(*w.kids));
	if (!first || !w.kids)
		goto nomem;
	/* children index: count into first[parent], sum up (first[v] = end
	 * of v's list), fill backwards (first[v] = its start).  A child's
	 * id is larger than its parent's, so when v is placed its own
	 * children are placed already and first[v], first[v + 1] are
	 * final. */
	for (size_t v = 1; v < p->d.nstacks; v++)
		first[p->d.stacks[v].parent]++;
	for (size_t v = 1; v <= p->d.nstacks; v++)
		first[v] += first[v - 1];
	for (size_t v = p->d.nstacks; v-- > 1;) {
		const struct sf_stack_node *sn = &p->d.stacks[v];
		uint32_t nm = t.frame_name[sn->frame];
		w.kids[--first[sn->parent]] = (struct kid){
			t.names[nm].txt, w.c[0].weight[v], t.names[nm].len,
			w.c[0].flags[v], (uint32_t)v,
			{ w.krank[2 * nm], w.krank[2 * nm + 1] }, first[v],
			first[v + 1] };
	}
	w.root_beg = first[0];
	w.root_end = first[1];
	if (!(w.tops = sf_calloc(1 + w.ngroups, sizeof(*w.tops))))
		goto nomem;
	w.tops[0] = (struct kid){ t.names[empty_name].txt, w.c[0].weight[0],
				  0, 0, 0, { w.krank[2 * empty_name],
					     w.krank[2 * empty_name + 1] },
				  0, 0 };
	for (size_t g = 0; g < w.ngroups; g++) {
		uint32_t nm = w.group_name[g];
		w.tops[1 + g] = (struct kid){
			t.names[nm].txt, 0, t.names[nm].len, 0, (uint32_t)g,
			{ w.krank[2 * nm], w.krank[2 * nm + 1] }, w.root_beg,
			w.root_end };
	}
	free(first);
	first = NULL;
	free(w.krank);
	w.krank = NULL;
	rc = walk_emit(&w, out, ctx);
	goto out;
nomem:
	rc = sf_error_nomem(ctx);
out:
	onames_free(&t);
	for (int c = 0; c < 2; c++) {
		free(w.c[c].weight);
		free(w.c[c].flags);
	}
	free(first);
	free(w.kids);
	free(w.tops);
	free(w.krank);
	free(w.group_name);
	free(w.gstart);
	free(w.gsamples);
	free(w.gempty);
	free(w.gflags);
	return rc;
}

static const char *const collapsed_ext[] = { ".collapsed", ".folded",
					     ".stacks", NULL };

static const struct sf_option collapsed_wopts[] = {
	{ "thread-prefix", NULL,
	  "collapsed: put the thread (NAME-TID) as the root frame" },
	{ "pid-prefix", NULL,
	  "collapsed: put the process (COMM-PID) as the root frame" },
	{ NULL, NULL, NULL }
};

const struct sf_format sf_format_collapsed = {
	.name = "collapsed",
	.description = "FlameGraph folded stacks: root;...;leaf COUNT",
	.extensions = collapsed_ext,
	.probe = collapsed_probe,
	.read = collapsed_read,
	.write = collapsed_write,
	.caps = SF_CAP_WEIGHTS,
	.priority = 1,
	.write_options = collapsed_wopts,
	.split = sf_text_split_lines,
};
