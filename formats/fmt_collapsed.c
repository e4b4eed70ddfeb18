/*
 * fmt_collapsed.c - FlameGraph's "folded" stacks: `root;...;leaf COUNT`.
 *
 * Reading: the count is the last blank-separated field and may be
 * fractional; everything before the blanks is the stack, split on ';', names
 * kept verbatim (spaces included).  CRLF line ends and a UTF-8 BOM are
 * accepted; blank lines are skipped.  An empty stack (" 5") is a sample with
 * no frames.  Collapsed stacks carry no threads and no time.
 *
 * Writing: one line per distinct stack (per thread with --thread-prefix),
 * sorted bytewise by the stack text, with the summed weight of the
 * profile's default sample type.  ';' inside a name is written as ':' (the
 * separator cannot be escaped in this syntax), LF/CR/TAB as spaces.
 */
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
			if (j < le && j > i && (d[j - 1] == ' ' ||
						d[j - 1] == '\t') &&
			    d[i] != '@' && d[i] != '#' && d[i] != '{' &&
			    d[i] != '<' && !memchr(d + i, '\t', j - 1 - i))
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
		if (first) {
			first = false;
			if (len >= 3 && !memcmp(line, "\xef\xbb\xbf", 3)) {
				line += 3;
				len -= 3;
			}
		}
		/* Names are C strings in the model: a NUL would cut one
		 * short silently (and it means binary data, not text). */
		if (memchr(line, 0, len)) {
			rc = sf_error(ctx, SF_EINPUT, sf_input_name(in),
				      sf_input_lineno(in),
				      "unexpected NUL byte in a text line "
				      "(binary data?)");
			break;
		}
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
		size_t s = c;
		while (s && (line[s - 1] == ' ' || line[s - 1] == '\t'))
			s--;
		sf_stack_id stack;
		if ((rc = sf_stack_from_text(p, ctx, &cache, line, s,
					     &stack)) ||
		    (rc = sf_profile_add_sample(p, ctx, stack, SF_NO_THREAD, 0,
						SF_NO_TIME, w))) {
			if (!ctx->err.line)
				ctx->err.line = sf_input_lineno(in);
			if (!ctx->err.source[0])
				snprintf(ctx->err.source,
					 sizeof(ctx->err.source), "%s",
					 sf_input_name(in));
			break;
		}
	}
	sf_stack_cache_free(&cache);
	return rc < 0 ? rc : 0;
}

/*
 * Writing in byte order without building and sorting the output text
 * (without --thread-prefix).
 *
 * A line is a stack written with sanitised names; the profile's stack
 * tree already holds every stack once, so we add up a weight per stack
 * node and walk that tree depth first, sorting each node's children by
 * their sanitised names.  Memory: a weight, a flag and a children index
 * per stack node (O(unique stack nodes)), nothing per line.
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
 * needs sanitising (frame names are the profile's). */
static int oname_id(struct onames *t, struct sf_ctx *ctx, const char *s,
		    uint32_t *out)
{
	struct onkey k = { s, strlen(s) };
	char *own = NULL;

	if (needs_sanitising(s)) {
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
		return sf_error(ctx, SF_ENOMEM, NULL, 0, "out of memory");
	}
	t->names[t->nnames].txt = k.txt;
	t->names[t->nnames].len = (uint32_t)k.len;
	t->nnames++;
	return 0;
nomem:
	free(own);
	return sf_error(ctx, SF_ENOMEM, NULL, 0, "out of memory");
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

/* The tree the walk reads: the profile's stack tree, a weight per node. */
struct etree {
	size_t n;
	const struct sf_profile *p;
	const struct onames *names;    /* sanitised frame names */
	const double *weight;
	const unsigned char *used;    /* a sample ends here: a line */
};

static uint32_t et_parent(const struct etree *e, size_t v)
{
	return e->p->d.stacks[v].parent;
}

static const struct oname *et_name(const struct etree *e, size_t v)
{
	uint32_t id = e->names->frame_name[e->p->d.stacks[v].frame];

	return &e->names->names[id];
}

/* An entry of a node's sorted child list: the child's own line (sub = 0,
 * key = name) or the lines below it (sub = 1, key = name ";"). */
struct oent {
	const char *txt;
	uint32_t len;
	uint32_t node;
	uint32_t sub;
};

static int oent_cmp(const void *a, const void *b)
{
	const struct oent *x = a, *y = b;
	size_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp(x->txt, y->txt, n);

	if (c)
		return c;
	if (x->len == y->len) {
		if (x->sub != y->sub)
			return (int)x->sub - (int)y->sub;  /* "c" < "c;" */
		/* equal keys: keep node order, for a deterministic sum */
		return x->node < y->node ? -1 : x->node > y->node;
	}
	/* one name is a proper prefix of the other: the shorter key goes
	 * on with ';' if it is a subtree entry, else it has ended */
	if (x->len < y->len) {
		unsigned char yc = (unsigned char)y->txt[n];
		return !x->sub || ';' < yc ? -1 : ';' > yc ? 1 : -1;
	}
	unsigned char xc = (unsigned char)x->txt[n];
	return !y->sub || ';' < xc ? 1 : ';' > xc ? -1 : 1;
}

static bool oent_same_key(const struct oent *x, const struct oent *y)
{
	return x->sub == y->sub && x->len == y->len &&
	       !memcmp(x->txt, y->txt, x->len);
}

/* A node of the output being walked: the tree nodes merged into it are
 * the entries [mem, mem + nmem) of its parent's list (node 0 alone for
 * the top); its own sorted entries are [ents, ents + nents). */
struct ovisit {
	size_t mem, nmem;
	size_t ents, nents, next;
	size_t pathlen;            /* its text in `path` */
	bool top;
};

static int tree_emit(const struct etree *e, struct sf_output *out,
		     struct sf_ctx *ctx)
{
	size_t n = e->n;
	uint32_t *first = sf_calloc(n + 1, sizeof(*first));
	uint32_t *kids = sf_calloc(n ? n : 1, sizeof(*kids));
	struct oent *ents = NULL;
	struct ovisit *vis = NULL;
	char *path = NULL;
	size_t nents = 0, capents = 0, nvis = 0, capvis = 0, pathcap = 0;
	int rc = 0;

	if (!first || !kids)
		goto nomem;
	/* children lists (CSR): kids[first[v] .. first[v + 1]).  Count into
	 * first[parent], sum up (first[v] = end of v's list), then fill
	 * backwards, which leaves first[v] at the start of v's list. */
	for (size_t v = 1; v < n; v++)
		first[et_parent(e, v)]++;
	for (size_t v = 1; v <= n; v++)
		first[v] += first[v - 1];
	for (size_t v = n; v-- > 1;)
		kids[--first[et_parent(e, v)]] = (uint32_t)v;

	/* the top: node 0 alone, merged with nothing */
	size_t mem = 0, nmem = 1, pathlen = 0;
	bool at_top = true;
	for (;;) {
		/* push the sorted entries of the merged node: the children
		 * of every member */
		size_t need = nents;
		for (size_t m = 0; m < nmem; m++) {
			uint32_t v = at_top ? 0 : ents[mem + m].node;
			need += 2 * (first[v + 1] - first[v]);
		}
		need += 1;
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
		if (at_top && e->used[0])
			ents[nents++] = (struct oent){ "", 0, 0, 0 };
		for (size_t m = 0; m < nmem; m++) {
			uint32_t v = at_top ? 0 : ents[mem + m].node;
			for (size_t k = first[v]; k < first[v + 1]; k++) {
				uint32_t c = kids[k];
				const struct oname *nm = et_name(e, c);
				if (e->used[c])
					ents[nents++] = (struct oent){
						nm->txt, nm->len, c, 0 };
				if (first[c + 1] > first[c])
					ents[nents++] = (struct oent){
						nm->txt, nm->len, c, 1 };
			}
		}
		qsort(ents + base, nents - base, sizeof(*ents), oent_cmp);
		if (nvis == capvis) {
			size_t c = capvis ? 2 * capvis : 64;
			struct ovisit *w = realloc(vis, c * sizeof(*w));
			if (!w)
				goto nomem;
			vis = w;
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
			       oent_same_key(&ents[i], &ents[j]))
				j++;
			cur->next = j - cur->ents;
			const struct oent *en = &ents[i];
			/* the text: parent's, ';' unless at the top, name;
			 * node 0's own line (at the top) is empty */
			size_t plen = cur->pathlen;
			bool empty = cur->top && en->node == 0;
			size_t clen = empty ? 0 : plen + (cur->top ? 0 : 1) +
						  en->len;
			if (clen + 1 > pathcap) {
				size_t c = pathcap ? 2 * pathcap : 4096;
				while (c < clen + 1)
					c *= 2;
				char *np = realloc(path, c);
				if (!np)
					goto nomem;
				path = np;
				pathcap = c;
			}
			if (!empty) {
				if (!cur->top)
					path[plen] = ';';
				memcpy(path + clen - en->len, en->txt,
				       en->len);
			}
			if (en->sub) {
				mem = i;
				nmem = j - i;
				pathlen = clen;
				at_top = false;
				down = true;
				continue;
			}
			double w = 0;
			for (size_t k = i; k < j; k++)
				w += e->weight[ents[k].node];
			sf_output_write(out, path, clen);
			sf_output_putc(out, ' ');
			sf_output_num(out, w);
			sf_output_putc(out, '\n');
		}
		if (!down)
			break;
	}
	goto done;
nomem:
	rc = sf_error(ctx, SF_ENOMEM, NULL, 0, "out of memory");
done:
	free(first);
	free(kids);
	free(ents);
	free(vis);
	free(path);
	return rc;
}

static int write_sorted_text(const struct sf_profile *p,
			     struct sf_output *out, struct sf_ctx *ctx);

static int collapsed_write(const struct sf_profile *p, struct sf_output *out,
			   struct sf_ctx *ctx)
{
	uint32_t ty = p->d.ntypes ? (p->d.meta.default_type < p->d.ntypes ?
				     p->d.meta.default_type :
				     (uint32_t)p->d.ntypes - 1) : 0;
	struct onames t = { 0 };
	struct etree e = { .p = p, .names = &t };
	size_t n = p->d.nstacks ? p->d.nstacks : 1;
	double *weight = NULL;
	unsigned char *used = NULL;
	int rc = 0;

	if (sf_ctx_flag(ctx, "thread-prefix"))
		return write_sorted_text(p, out, ctx);
	/* the profile's tree as it is, a weight per stack node */
	t.frame_name = sf_calloc(p->d.nframes ? p->d.nframes : 1,
				 sizeof(*t.frame_name));
	weight = sf_calloc(n, sizeof(*weight));
	used = sf_calloc(n, 1);
	if (!t.frame_name || !weight || !used) {
		rc = sf_error(ctx, SF_ENOMEM, NULL, 0, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < p->d.nsamples; i++) {
		sf_stack_id s = p->d.samples[i].stack;
		weight[s] += p->d.ntypes ? sf_weight(p, i, ty) : 1;
		used[s] = 1;
	}
	for (size_t f = 0; f < p->d.nframes; f++)
		if ((rc = oname_id(&t, ctx, p->d.frames[f].name,
				   &t.frame_name[f])))
			goto out;
	e.n = p->d.nstacks;
	e.weight = weight;
	e.used = used;
	rc = tree_emit(&e, out, ctx);
out:
	onames_free(&t);
	free(weight);
	free(used);
	return rc;
}

/*
 * --thread-prefix: the text of every line is built and sorted.  Memory is
 * O(output text).  NEEDSWORK: the walk below cannot serve this mode as it
 * is: a thread's frames sit one level deeper than the same stack nodes
 * without a thread, so it would need a weight and a "samples below" mark
 * per (thread label, stack node) in use, walked one top-level name at a
 * time; a copied tree per thread was tried and cost more than the text
 * (deep stacks share little).
 */

/* One output line before sorting. */
struct entry {
	size_t off, len;   /* stack text in the text buffer */
	double weight;
};

static const char *g_text;   /* qsort has no context argument in C11 */

static int entry_cmp(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;
	size_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp(g_text + x->off, g_text + y->off, n);

	if (c)
		return c;
	return x->len < y->len ? -1 : x->len > y->len;
}

struct key {
	sf_thread_idx thread;
	sf_stack_id stack;
	double weight;
	bool used;
};

static int key_cmp(const void *a, const void *b)
{
	const struct key *x = a, *y = b;

	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	return x->stack < y->stack ? -1 : x->stack > y->stack;
}

static int write_sorted_text(const struct sf_profile *p, struct sf_output *out,
			     struct sf_ctx *ctx)
{
	bool prefix = true;
	uint32_t t = p->d.ntypes ? (p->d.meta.default_type < p->d.ntypes ?
				    p->d.meta.default_type :
				    (uint32_t)p->d.ntypes - 1) : 0;
	struct key *keys = sf_calloc(p->d.nsamples, sizeof(*keys));
	struct sf_output *text = NULL;
	struct entry *ents = NULL;
	size_t nkeys = 0, nents = 0;
	int rc = 0;

	if (!keys)
		return sf_error(ctx, SF_ENOMEM, NULL, 0, "out of memory");
	for (size_t i = 0; i < p->d.nsamples; i++) {
		keys[i].thread = prefix ? p->d.samples[i].thread : SF_NO_THREAD;
		keys[i].stack = p->d.samples[i].stack;
		keys[i].weight = p->d.ntypes ? sf_weight(p, i, t) : 1;
	}
	qsort(keys, p->d.nsamples, sizeof(*keys), key_cmp);
	for (size_t i = 0; i < p->d.nsamples; i++) {
		if (nkeys && !key_cmp(&keys[nkeys - 1], &keys[i]))
			keys[nkeys - 1].weight += keys[i].weight;
		else
			keys[nkeys++] = keys[i];
	}
	if ((rc = sf_output_mem(&text, ctx)))
		goto out;
	if (!(ents = sf_calloc(nkeys, sizeof(*ents)))) {
		rc = sf_error(ctx, SF_ENOMEM, NULL, 0, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < nkeys; i++) {
		size_t before, after;
		char label[512];
		const char *pre = NULL;
		sf_output_mem_data(text, &before);
		if (prefix && keys[i].thread != SF_NO_THREAD) {
			sf_thread_label(&p->d.threads[keys[i].thread], label,
					sizeof(label));
			pre = label;
		}
		sf_write_stack_text(text, p, keys[i].stack, pre);
		sf_output_mem_data(text, &after);
		ents[nents].off = before;
		ents[nents].len = after - before;
		ents[nents].weight = keys[i].weight;
		nents++;
	}
	if (sf_output_failed(text)) {
		rc = sf_error(ctx, SF_ENOMEM, NULL, 0, "out of memory");
		goto out;
	}
	size_t tlen;
	g_text = sf_output_mem_data(text, &tlen);
	qsort(ents, nents, sizeof(*ents), entry_cmp);
	for (size_t i = 0; i < nents; i++) {
		double w = ents[i].weight;
		/* equal texts (names that differ only in ';' vs ':', or
		 * threads with equal labels) merge */
		while (i + 1 < nents && !entry_cmp(&ents[i], &ents[i + 1]))
			w += ents[++i].weight;
		sf_output_write(out, g_text + ents[i].off, ents[i].len);
		sf_output_putc(out, ' ');
		sf_output_num(out, w);
		sf_output_putc(out, '\n');
	}
out:
	free(keys);
	free(ents);
	if (text)
		sf_output_abort(text);
	return rc;
}

static const char *const collapsed_ext[] = { ".collapsed", ".folded",
					     ".stacks", NULL };

static const struct sf_option collapsed_wopts[] = {
	{ "thread-prefix", NULL,
	  "collapsed: put the thread (NAME-TID) as the root frame" },
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
};
