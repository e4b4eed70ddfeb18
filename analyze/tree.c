/*
 * tree.c - the call tree (top-down, as Sampler and sb-sprof's graph show
 * it, or inverted: callers of each leaf) and the flat table of sb-sprof.
 *
 * Both read the view's prefix tree of functions.  A tree node's total is
 * the weight of the samples whose stack passes through it, its self the
 * weight of samples whose stack ends there; in the inverted tree the first
 * level holds each leaf function with its self time, and a node's self is
 * the weight of the samples whose whole stack is the path to it.
 */
#include "analyze.h"
#include "hash.h"
#include "an_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * The tree's nodes: parent, function and depth are the view's own nodes
 * for the top-down tree (no copy: 3.7 million nodes on a timeline), a
 * tree of its own for the inverted one; beside them each node's total.
 * A node's self is its total less its children's, computed for the few
 * nodes a report prints rather than stored for all.  The top-down tree
 * keeps its totals in 64 bits when the weights' magnitudes sum below
 * 2^63 (so no subtree's sum can overflow): half the fresh memory of the
 * 128-bit sums, which only wide weights need.
 */
struct tree {
	const struct sf_an_node *nd;
	struct sf_an_node *own;     /* the inverted tree's nodes, or NULL */
	sf_an_w *total;             /* or NULL, and then: */
	int64_t *total64;
	size_t nn, cap, cap_total;
	uint32_t *size;             /* nodes in each subtree */
	uint32_t *cstart, *child;   /* children (CSR), in id order until
				     * tree_sort_children sorts them */
	unsigned char *sorted;      /* per node: its children are sorted */
	/* bytes of total64, size, cstart, child when taken from kept
	 * pages, else 0 (sf_an__big_array) */
	size_t bytes[4];
	const struct sf_an_view *v;
};

static inline sf_an_w tot(const struct tree *t, size_t n)
{
	return t->total64 ? t->total64[n] : t->total[n];
}

static int tree_push(struct tree *t, uint32_t parent, uint32_t func)
{
	if (sf_grow(&t->own, &t->cap, t->nn + 1, sizeof(*t->own)) ||
	    sf_grow(&t->total, &t->cap_total, t->nn + 1, sizeof(*t->total)))
		return -1;
	t->own[t->nn] = (struct sf_an_node){
		parent, func, t->nn ? t->own[parent].depth + 1 : 0 };
	t->total[t->nn++] = 0;
	return 0;
}

/* key: { parent, func } */
static bool tnode_eq(const void *ctx, uint32_t id, const void *key)
{
	const struct tree *t = ctx;
	const uint32_t *k = key;

	return t->own[id].parent == k[0] && t->own[id].func == k[1];
}

static int cmp_child(const void *a, const void *b, void *tree)
{
	const struct tree *t = tree;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	sf_an_w tx = tot(t, x), ty = tot(t, y);

	if (tx != ty)
		return tx > ty ? -1 : 1;
	return strcmp(t->v->names[t->nd[x].func], t->v->names[t->nd[y].func]);
}

/* Node n's self weight: its total less its children's. */
static sf_an_w tree_self(const struct tree *t, uint32_t n)
{
	sf_an_w w = tot(t, n);

	for (uint32_t i = t->cstart[n]; i < t->cstart[n + 1]; i++)
		w -= tot(t, t->child[i]);
	return w;
}

int sf_an__cmp_name(const void *a, const void *b, void *v)
{
	const struct sf_an_view *view = v;

	return strcmp(view->names[*(const uint32_t *)a],
		      view->names[*(const uint32_t *)b]);
}

/* Build: node 0 is the root ("all samples"); parents come before children
 * (the view numbers a node after its parent). */
static int tree_build(struct tree *t, const struct sf_an_view *v,
		      bool inverted, struct sf_ctx *ctx)
{
	t->v = v;
	if (!inverted) {
		unsigned __int128 mag = 0;
		t->nd = v->nodes;
		t->nn = v->nnodes;
		for (size_t i = 0; i < v->nsamples && mag <= INT64_MAX; i++)
			mag += v->samples[i].w < 0 ?
			       -(unsigned __int128)v->samples[i].w :
			       (unsigned __int128)v->samples[i].w;
		if (mag <= INT64_MAX) {
			t->total64 = sf_an__big_array(t->nn, sizeof(*t->total64),
						      &t->bytes[0], ctx);
			if (!t->total64)
				return sf_error_nomem(ctx);
			memset(t->total64, 0, t->nn * sizeof(*t->total64));
			for (size_t i = 0; i < v->nsamples; i++)
				t->total64[v->samples[i].node] +=
					(int64_t)v->samples[i].w;
		} else {
			t->total = calloc(t->nn, sizeof(*t->total));
			if (!t->total)
				return sf_error_nomem(ctx);
			for (size_t i = 0; i < v->nsamples; i++)
				t->total[v->samples[i].node] +=
					v->samples[i].w;
		}
	} else {
		struct sf_idx m = { 0 };   /* (parent, func) -> node */
		if (tree_push(t, 0, UINT32_MAX))
			return sf_error_nomem(ctx);
		for (size_t i = 0; i < v->nsamples; i++) {
			uint32_t cur = 0;
			sf_an_w w = v->samples[i].w;
			for (uint32_t n = v->samples[i].node; n;
			     n = v->nodes[n].parent) {
				uint32_t f = v->nodes[n].func;
				uint32_t key[2] = { cur, f };
				uint64_t h = sf_hash_u64(cur, f);
				if (sf_idx_find(&m, h, tnode_eq, t, key, &cur))
					continue;
				if (tree_push(t, cur, f) ||
				    !sf_idx_insert(&m, h, (uint32_t)t->nn - 1)) {
					sf_idx_free(&m);
					return sf_error_nomem(ctx);
				}
				cur = (uint32_t)t->nn - 1;
			}
			t->total[cur] += w;
		}
		sf_idx_free(&m);
		t->nd = t->own;
	}
	/* one pass up from the leaves: totals, subtree sizes and the number
	 * of children; then the children's ranges, filled from the end so
	 * each range keeps id order */
	/* from the pages ctx keeps where a caller kept some (the view's
	 * scratch and the profile's stack tree, sf_an_report): zeroed here
	 * where calloc'ed before, a memset where fresh pages cost a fault
	 * and the kernel's clearing; each entry of size and of child
	 * (those read) is written below.  What is left is not held */
	t->size = sf_an__big_array(t->nn, sizeof(*t->size), &t->bytes[1],
				   ctx);
	t->cstart = sf_an__big_array(t->nn + 1, sizeof(*t->cstart),
				     &t->bytes[2], ctx);
	t->child = sf_an__big_array(t->nn, sizeof(*t->child), &t->bytes[3],
				    ctx);
	sf_big_drop(ctx);
	t->sorted = calloc(t->nn, 1);
	if (!t->size || !t->cstart || !t->child || !t->sorted)
		return sf_error_nomem(ctx);
	memset(t->cstart, 0, (t->nn + 1) * sizeof(*t->cstart));
	for (size_t i = 0; i < t->nn; i++)
		t->size[i] = 1;
	for (size_t i = t->nn; i-- > 1;) {
		uint32_t up = t->nd[i].parent;
		if (t->total64)
			t->total64[up] += t->total64[i];
		else
			t->total[up] += t->total[i];
		t->size[up] += t->size[i];
		t->cstart[up]++;
	}
	for (size_t i = 0, acc = 0; i <= t->nn; i++) {
		acc += t->cstart[i];
		t->cstart[i] = (uint32_t)acc;
	}
	for (size_t i = t->nn; i-- > 1;)
		t->child[--t->cstart[t->nd[i].parent]] = (uint32_t)i;
	return 0;
}

/*
 * Sort node n's children (by total, largest first, then by name), once.
 * Only the nodes a report enters or passes in a chain are sorted: a tree
 * of the 3.7 million unique stacks of a timeline shows three lines at the
 * default --min-percent, and sorting every node's children was 10 % of
 * `sfanalyze --tree` (and of --flat, which needs no order at all).
 */
static void tree_sort_children(struct tree *t, uint32_t n)
{
	if (t->sorted[n])
		return;
	t->sorted[n] = 1;
	qsort_r(t->child + t->cstart[n], t->cstart[n + 1] - t->cstart[n],
		sizeof(uint32_t), cmp_child, t);
}

static void tree_free(struct tree *t)
{
	free(t->own);
	free(t->total);
	sf_big_free(t->total64, t->bytes[0]);
	sf_big_free(t->size, t->bytes[1]);
	sf_big_free(t->cstart, t->bytes[2]);
	sf_big_free(t->child, t->bytes[3]);
	free(t->sorted);
}

void sf_an__put_name(struct sf_output *o, const char *s)
{
	while (*s) {
		const char *run = s;
		while ((unsigned char)*s >= 0x20)
			s++;
		sf_output_write(o, run, (size_t)(s - run));
		if (!*s)
			break;
		sf_output_putc(o, ' ');
		s++;
	}
}

/* How a report writes its weights: the unit, --raw, and the largest
 * integer that is written plainly either way (fast path without snprintf:
 * trees have many lines). */
struct wfmt {
	const char *unit;
	bool raw;
	sf_an_w plain_max;
};

static struct wfmt wfmt_of(const struct sf_an_view *v, bool raw)
{
	bool count = !strcmp(sf_an_unit_family(v->unit), "count");

	return (struct wfmt){ v->unit, raw,
			      v->exp ? 0 : raw ? (sf_an_w)1 << 62 :
					   count ? 99999 : 0 };
}

static void fmt_w(char *buf, size_t size, sf_an_w v, int exp,
		  const struct wfmt *fw)
{
	sf_an_fmt_w(buf, size, v, exp, fw->unit, fw->raw);
}

/* A view weight right-aligned in `width` columns, as fmt_w writes it. */
static int put_val(char *out, int width, sf_an_w v, int exp,
		   const struct wfmt *fw)
{
	char tmp[64];
	int n;

	if (v >= 0 && v <= fw->plain_max) {
		char *d = sf_an__put_digits(tmp + sizeof(tmp), (uint64_t)v);
		n = (int)(tmp + sizeof(tmp) - d);
		memmove(tmp, d, (size_t)n);
		tmp[n] = 0;
	} else {
		fmt_w(tmp, sizeof(tmp), v, exp, fw);
		n = (int)strlen(tmp);
	}
	int pad = width > n ? width - n : 0;
	memset(out, ' ', (size_t)pad);
	memcpy(out + pad, tmp, (size_t)n);
	return pad + n;
}

/* "%5.1f%%" into out (room for 16) */
static int put_pct(char *out, double p)
{
	return snprintf(out, 16, "%5.1f%%", p);
}

void sf_an__put_prefix(struct sf_output *o, const char *pre,
		       const size_t *plen, size_t d)
{
	if (d <= SF_AN_MAX_INDENT) {
		sf_output_write(o, pre, plen[d]);
		return;
	}
	size_t from = d - SF_AN_MAX_INDENT / 2;
	sf_output_printf(o, "[+%zu] ", from);
	sf_output_write(o, pre + plen[from], plen[d] - plen[from]);
}

struct frame {
	uint32_t node, next;   /* next child index (into child[]) */
	uint32_t end;
	size_t pruned;         /* nodes in children below min-percent */
	sf_an_w pruned_w;
	bool entered;
	uint32_t depth;        /* of node in the tree (a chain line counts
				* all its frames) */
};

/* The chain that starts at node n (not the root): while a node's largest
 * child has the node's whole total (so the node has no self and every
 * other child weighs 0) and every other child is hidden, the chain goes
 * on into that child, down to depth `max_depth` (0: no limit).  Returns
 * the last node and sets *len to the chain's nodes, *hidden to the nodes
 * in the zero-weight siblings it passed. */
static uint32_t chain_end(struct tree *t, uint32_t n, uint32_t depth,
			  uint32_t max_depth, bool zero_hidden, uint32_t *len,
			  size_t *hidden)
{
	*len = 1;
	*hidden = 0;
	for (;;) {
		uint32_t c0 = t->cstart[n], c1 = t->cstart[n + 1];
		tree_sort_children(t, n);
		if (c0 == c1 || tot(t, t->child[c0]) != tot(t, n) ||
		    (c1 - c0 > 1 && !zero_hidden) ||
		    (max_depth && depth >= max_depth))
			return n;
		for (uint32_t i = c0 + 1; i < c1; i++)
			*hidden += t->size[t->child[i]];
		n = t->child[c0];
		depth++;
		++*len;
	}
}

/* The text's column widths (*wt for totals, *ws for selves) and whether
 * it joins chains: always, never, or (auto) when the tree one node per
 * line would be over SF_AN_TREE_SCREEN lines.  A node is printed when its
 * share is at least minp (children are never bigger than their parent,
 * so its ancestors are printed too) and it is no deeper than max_depth;
 * a node below minp is hidden, whatever its self.  One pass over the
 * nodes serves both. */
static void tree_layout(bool *join, int *wt, int *ws, const struct tree *t,
			double whole, double minp, const struct wfmt *fw,
			const struct sf_an_tree_opts *opt)
{
	const struct sf_an_view *v = t->v;
	bool count = !opt->json && opt->chains == SF_AN_CHAINS_AUTO;
	size_t lines = 0;
	char buf[64];

	*join = opt->chains == SF_AN_CHAINS_ALWAYS;
	if (opt->json)
		return;
	for (size_t i = 0; i < t->nn; i++) {
		if (sf_an__pct(sf_an_double(tot(t, i), v->exp), whole) < minp)
			continue;
		if (count && (!opt->max_depth ||
			      t->nd[i].depth <= opt->max_depth))
			lines++;
		fmt_w(buf, sizeof(buf), tot(t, i), v->exp, fw);
		if ((int)strlen(buf) > *wt)
			*wt = (int)strlen(buf);
		fmt_w(buf, sizeof(buf), tree_self(t, (uint32_t)i), v->exp, fw);
		if ((int)strlen(buf) > *ws)
			*ws = (int)strlen(buf);
	}
	if (count)
		*join = lines > SF_AN_TREE_SCREEN;
}

int sf_an_tree(struct sf_output *o, const struct sf_an_view *v,
	       const struct sf_an_tree_opts *opt, struct sf_ctx *ctx)
{
	struct tree t = { 0 };
	struct frame *st = NULL;
	bool *last = NULL;   /* per depth: the node is its parent's last */
	size_t *plen = NULL; /* prefix bytes for the levels down to a depth */
	char *pre = NULL;    /* the box-drawing prefix of the current path */
	size_t depth_cut_nodes = 0, hidden_nodes = 0;
	sf_an_w hidden_w = 0;
	struct wfmt fw = wfmt_of(v, opt->raw);
	double minp = opt->min_percent >= 0 ? opt->min_percent :
		      opt->json ? 0 : SF_AN_TREE_MIN_PERCENT;
	int rc;

	if ((rc = tree_build(&t, v, opt->inverted, ctx)))
		goto done;
	double whole = sf_an_double(tot(&t, 0), v->exp);
	bool join;
	int wt = 5, ws = 4;
	char buf[64];
	tree_layout(&join, &wt, &ws, &t, whole, minp, &fw, opt);
	/* the whole tree is walked iteratively: stacks can be deep */
	size_t maxd = (size_t)v->maxdepth + 2;
	st = malloc(maxd * sizeof(*st));
	last = calloc(maxd, sizeof(*last));
	plen = calloc(maxd, sizeof(*plen));
	pre = malloc(maxd * 5 + 1);
	if (!st || !last || !plen || !pre) {
		rc = sf_error_nomem(ctx);
		goto done;
	}
	if (opt->json) {
		sf_output_puts(o, "{\"name\":null");
	} else {
		fmt_w(buf, sizeof(buf), tot(&t, 0), v->exp, &fw);
		sf_output_printf(o, "%s (%s, %s): total %s",
				 opt->inverted ? "Inverted call tree" :
						 "Call tree",
				 v->type, v->unit, buf);
		if (!opt->raw)
			sf_output_printf(o, " in %llu sample%s",
					 (unsigned long long)v->ncounted,
					 v->ncounted == 1 ? "" : "s");
		sf_output_printf(o, "\n%*s %6s %*s  Name\n", wt, "Total",
				 "%", ws, "Self");
	}
	size_t sp = 0;
	st[sp++] = (struct frame){ 0, t.cstart[0], t.cstart[1], 0, 0, false,
				   0 };
	for (;;) {
		struct frame *f = &st[sp - 1];
		uint32_t x = f->node;
		if (!f->entered) {
			f->entered = true;
			/* entering the node, or a chain of nodes as one */
			uint32_t first = f->node, clen = 1;
			if (join && f->node) {
				size_t zh;
				uint32_t e = chain_end(&t, f->node, f->depth,
						       opt->max_depth,
						       sf_an__pct(0, whole) < minp,
						       &clen, &zh);
				if (clen >= SF_AN_TREE_CHAIN) {
					f->node = e;
					f->next = t.cstart[e];
					f->end = t.cstart[e + 1];
					f->depth += clen - 1;
					hidden_nodes += zh;
					x = e;
				} else {
					clen = 1;
				}
			}
			double tx = sf_an_double(tot(&t, x), v->exp);
			if (opt->json) {
				if (f->node) {
					sf_output_puts(o, "{\"name\":");
					sf_an_put_json_str(
						o, v->names[t.nd[x].func]);
				}
				sf_output_puts(o, ",\"total\":");
				sf_an_put_w(o, tot(&t, x), v->exp);
				sf_output_puts(o, ",\"self\":");
				sf_an_put_w(o, tree_self(&t, x), v->exp);
				sf_output_puts(o, ",\"children\":[");
			} else {
				char line[160];
				int n = put_val(line, wt, tot(&t, x), v->exp,
						&fw);
				line[n++] = ' ';
				n += put_pct(line + n, sf_an__pct(tx, whole));
				line[n++] = ' ';
				n += put_val(line + n, ws, tree_self(&t, x),
					     v->exp, &fw);
				line[n++] = ' ';
				line[n++] = ' ';
				sf_output_write(o, line, (size_t)n);
				if (sp > 1) {
					sf_an__put_prefix(o, pre, plen, sp - 2);
					sf_output_puts(o, last[sp - 1] ?
							  "\u2514\u2500 " :
							  "\u251c\u2500 ");
				}
				if (clen > 1) {
					sf_an__put_name(o, v->names[
						t.nd[first].func]);
					sf_output_printf(o, " \u2192 \u2026 "
							 "(%u frames) "
							 "\u2192 ",
							 clen - 2);
				}
				if (f->node)
					sf_an__put_name(
						o, v->names[t.nd[x].func]);
				else
					sf_output_puts(o, "(all samples)");
				sf_output_putc(o, '\n');
			}
			/* prune: children are sorted by total, so the
			 * small ones are a suffix */
			tree_sort_children(&t, f->node);
			uint32_t keep = f->end;
			for (uint32_t i = f->next; i < f->end; i++) {
				double ct = sf_an_double(tot(&t, t.child[i]),
							 v->exp);
				if (sf_an__pct(ct, whole) < minp) {
					keep = i;
					break;
				}
			}
			if (opt->max_depth && f->depth >= opt->max_depth) {
				if (f->end > f->next)
					depth_cut_nodes += f->end - f->next;
				keep = f->next;
			} else {
				for (uint32_t i = keep; i < f->end; i++) {
					uint32_t c = t.child[i];
					f->pruned += t.size[c];
					f->pruned_w += tot(&t, c);
				}
				hidden_nodes += f->pruned;
				hidden_w += f->pruned_w;
			}
			f->end = keep;
		}
		if (f->next < f->end) {
			uint32_t c = t.child[f->next++];
			if (opt->json && f->next - 1 > t.cstart[f->node])
				sf_output_putc(o, ',');
			last[sp] = f->next == f->end;
			{
				const char *seg = last[sp] ? "   " : "\u2502  ";
				size_t sl = strlen(seg);
				memcpy(pre + plen[sp - 1], seg, sl);
				plen[sp] = plen[sp - 1] + sl;
			}
			st[sp++] = (struct frame){ c, t.cstart[c],
						   t.cstart[c + 1], 0, 0,
						   false, f->depth + 1 };
			continue;
		}
		/* leaving the node */
		if (opt->json) {
			sf_output_putc(o, ']');
			if (f->pruned) {
				sf_output_puts(o, ",\"pruned\":{\"nodes\":");
				sf_output_u64(o, f->pruned);
				sf_output_puts(o, ",\"total\":");
				sf_an_put_w(o, f->pruned_w, v->exp);
				sf_output_putc(o, '}');
			}
			if (!f->node) {
				/* the root, last: its first keys stay those
				 * of every node */
				sf_output_putc(o, ',');
				sf_an__put_json_kind(o, v);
			}
			sf_output_putc(o, '}');
		}
		if (--sp == 0)
			break;
	}
	if (!opt->json && hidden_nodes) {
		fmt_w(buf, sizeof(buf), hidden_w, v->exp, &fw);
		sf_output_printf(o, "(%zu node%s below %g%% hidden, %s in all "
				    "(%.1f%%): --min-percent 0 shows all)\n",
				 hidden_nodes, hidden_nodes == 1 ? "" : "s",
				 minp, buf,
				 sf_an__pct(sf_an_double(hidden_w, v->exp), whole));
	}
	if (!opt->json && depth_cut_nodes)
		sf_output_printf(o, "(%zu deeper branches not shown: "
				    "--depth %u)\n", depth_cut_nodes,
				 opt->max_depth);
done:
	free(st);
	free(last);
	free(plen);
	free(pre);
	tree_free(&t);
	return rc;
}

/* ----- flat ----- */

struct frow {
	uint32_t func;
	sf_an_w self, total;
};

struct row_order {
	const struct sf_an_view *v;
	bool by_total;
};

static int cmp_row(const void *a, const void *b, void *order)
{
	const struct row_order *o = order;
	const struct frow *x = a, *y = b;
	sf_an_w kx = o->by_total ? x->total : x->self;
	sf_an_w ky = o->by_total ? y->total : y->self;

	if (kx != ky)
		return kx > ky ? -1 : 1;
	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	return strcmp(o->v->names[x->func], o->v->names[y->func]);
}

/*
 * A function's total counts each sample once, however often the function
 * recurses: walk each view sample's stack up to the root and add its
 * weight to every function met, once (seen[f] holds the last sample that
 * added to f).  The walk is as long as the stacks the collapsed writer
 * prints, and needs no tree: the former depth-first walk copied the
 * view's nodes into a tree with child lists (48 bytes a node, 180 MB of
 * fresh pages on a timeline of 3.7 million nodes) to visit each node once.
 */
int sf_an__func_totals(const struct sf_an_view *v, sf_an_w *self,
		       sf_an_w *total, sf_an_w *noframes, struct sf_ctx *ctx)
{
	size_t *seen = malloc((v->nfuncs + 1) * sizeof(*seen));

	if (!seen)
		return sf_error_nomem(ctx);
	memset(self, 0, v->nfuncs * sizeof(*self));
	memset(total, 0, v->nfuncs * sizeof(*total));
	for (size_t f = 0; f < v->nfuncs; f++)
		seen[f] = SIZE_MAX;
	*noframes = 0;
	for (size_t i = 0; i < v->nsamples; i++) {
		uint32_t n = v->samples[i].node;
		sf_an_w w = v->samples[i].w;
		if (!n) {
			*noframes += w;
			continue;
		}
		self[v->nodes[n].func] += w;
		for (; n; n = v->nodes[n].parent) {
			uint32_t f = v->nodes[n].func;
			if (seen[f] != i) {
				seen[f] = i;
				total[f] += w;
			}
		}
	}
	free(seen);
	return 0;
}

int sf_an_flat(struct sf_output *o, const struct sf_an_view *v,
	       const struct sf_an_flat_opts *opt, struct sf_ctx *ctx)
{
	struct frow *rows = calloc(v->nfuncs + 1, sizeof(*rows));
	sf_an_w *self = malloc((v->nfuncs + 1) * sizeof(*self));
	sf_an_w *total = malloc((v->nfuncs + 1) * sizeof(*total));
	sf_an_w noframes = 0;
	int rc = 0;

	if (!rows || !self || !total) {
		rc = sf_error_nomem(ctx);
		goto done;
	}
	if ((rc = sf_an__func_totals(v, self, total, &noframes, ctx)))
		goto done;
	/* a function only in samples that weigh 0 in this type (a Go heap
	 * profile's freed allocations in inuse_space) has no row, as in
	 * pprof -top */
	size_t nf = 0;
	for (size_t f = 0; f < v->nfuncs; f++)
		if (total[f])
			rows[nf++] = (struct frow){ (uint32_t)f, self[f],
						    total[f] };
	struct row_order order = { v, opt->by_total };
	qsort_r(rows, nf, sizeof(*rows), cmp_row, &order);
	double whole = sf_an_double(v->total, v->exp);
	size_t nshow = opt->top && opt->top < nf ? opt->top : nf;
	if (opt->json) {
		sf_output_putc(o, '{');
		sf_an__put_json_kind(o, v);
		sf_output_puts(o, ",\"total\":");
		sf_an_put_w(o, v->total, v->exp);
		sf_output_puts(o, ",\"functions\":[");
		for (size_t i = 0; i < nshow; i++) {
			sf_output_puts(o, i ? ",\n{\"name\":" : "\n{\"name\":");
			sf_an_put_json_str(o, v->names[rows[i].func]);
			sf_output_puts(o, ",\"self\":");
			sf_an_put_w(o, rows[i].self, v->exp);
			sf_output_puts(o, ",\"total\":");
			sf_an_put_w(o, rows[i].total, v->exp);
			sf_output_putc(o, '}');
		}
		sf_output_puts(o, "]}");
		goto done;
	}
	struct wfmt fw = wfmt_of(v, opt->raw);
	char buf[64];
	int w = 5;
	for (size_t i = 0; i < nshow; i++) {
		fmt_w(buf, sizeof(buf), rows[i].total, v->exp, &fw);
		if ((int)strlen(buf) > w)
			w = (int)strlen(buf);
		/* --raw keeps the former layout: the column fits totals */
		fmt_w(buf, sizeof(buf), rows[i].self, v->exp, &fw);
		if (!opt->raw && (int)strlen(buf) > w)
			w = (int)strlen(buf);
	}
	fmt_w(buf, sizeof(buf), v->total, v->exp, &fw);
	sf_output_printf(o, "Flat profile (%s, %s): total %s", v->type, v->unit,
			 buf);
	if (!opt->raw)
		sf_output_printf(o, " in %llu sample%s",
				 (unsigned long long)v->ncounted,
				 v->ncounted == 1 ? "" : "s");
	sf_output_printf(o, ", sorted by %s\n",
			 opt->by_total ? "total" : "self");
	sf_output_printf(o, "%5s %*s %6s %7s %*s %6s  Function\n", "Nr", w,
			 "Self", "Self%", "Cumul%", w, "Total", "Total%");
	double cum = 0;
	for (size_t i = 0; i < nshow; i++) {
		double s = sf_an_double(rows[i].self, v->exp);
		double tt = sf_an_double(rows[i].total, v->exp);
		char b2[64];
		cum += sf_an__pct(s, whole);
		fmt_w(buf, sizeof(buf), rows[i].self, v->exp, &fw);
		fmt_w(b2, sizeof(b2), rows[i].total, v->exp, &fw);
		sf_output_printf(o, "%5zu %*s %5.1f%% %6.1f%% %*s %5.1f%%  ",
				 i + 1, w, buf, sf_an__pct(s, whole), cum, w, b2,
				 sf_an__pct(tt, whole));
		sf_an__put_name(o, v->names[rows[i].func]);
		sf_output_putc(o, '\n');
	}
	if (nshow < nf) {
		sf_an_w rest = 0;
		for (size_t i = nshow; i < nf; i++)
			rest += rows[i].self;
		fmt_w(buf, sizeof(buf), rest, v->exp, &fw);
		cum += sf_an__pct(sf_an_double(rest, v->exp), whole);
		sf_output_printf(o, "%5s %*s %5.1f%% %6.1f%% %*s %6s  "
				    "(%zu more function%s: --top %zu)\n", "",
				 w, buf, sf_an__pct(sf_an_double(rest, v->exp), whole),
				 cum, w, "", "", nf - nshow,
				 nf - nshow == 1 ? "" : "s", nf);
	}
	if (noframes) {
		double s = sf_an_double(noframes, v->exp);
		fmt_w(buf, sizeof(buf), noframes, v->exp, &fw);
		sf_output_printf(o, "%5s %*s %5.1f%% %6.1f%% %*s %6s  "
				    "(no frames)\n", "", w, buf, sf_an__pct(s, whole),
				 cum + sf_an__pct(s, whole), w, "", "");
	}
done:
	free(rows);
	free(self);
	free(total);
	return rc;
}
