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
#include "collapsed.h"
#include "counts.h"
#include "text.h"
#include "utf16.h"

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
 * collapsed_levels.c): a record per node in level order and a few words per
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



static void mark(struct walk *w, struct wctx *c, size_t i)
{
	sf_stack_id s = w->p->d.samples[i].stack;

	c->weight[s] += sf_collapsed__weight(w, i);
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
			w->gempty[g] += sf_collapsed__weight(w, i);
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
	struct level_mem lm = { 0 };
	int rc;

	w.ty = sf_records_default_type(p);
	if ((rc = sf_weights_nonneg(p, ctx, w.ty, "a collapsed count")))
		return rc;
	/* first, so that its pages are faulted in beside the names' work */
	if (!prefix && (rc = sf_collapsed__level_mem(&lm, p, ctx)))
		return rc;
	/* what the records and places did not take of the memory kept for
	 * a writer (format.h, takes_kept), all of it with a prefix */
	sf_big_drop(ctx);
	t.frame_name = sf_calloc(p->d.nframes ? p->d.nframes : 1,
				 sizeof(*t.frame_name));
	uint32_t *first = NULL;
	/* without a prefix collapsed_levels.c lays the samples on its own records */
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
	/* with two jobs the keys are ranked beside level_emit's records */
	if ((rc = sf_collapsed__ranks_start(&w, ctx)))
		goto out;
	if (!prefix) {
		rc = sf_collapsed__level_emit(&w, &lm, out, empty_name, ctx);
		goto out;
	}
	sf_collapsed__ranks_wait(&w);
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
	sf_collapsed__ranks_wait(&w);
	sf_collapsed__level_mem_free(&lm);
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
	.takes_kept = true,
	.priority = 1,
	.write_options = collapsed_wopts,
	.split = sf_text_split_lines,
};
