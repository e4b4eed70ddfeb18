/*
 * difftree.c - the differential call tree (issue #10): the call tree of
 * NEW with each node's change against BASE.
 *
 * Both views are laid onto one merged tree: a node is a path of function
 * names (top-down from the root frame, or inverted from the leaf), so a
 * path of BASE and a path of NEW are one node iff their names are equal.
 * Each node keeps per side its total and self (in that side's units of
 * 2^exp) and whether a sample of that side reached it; a node only BASE
 * reached is "gone", one only NEW reached is "new".  delta is computed as
 * in the per-function table (fndiff.c).
 */
#include "analyze.h"
#include "an_internal.h"
#include "hash.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { IN_BASE = 1, IN_NEW = 2 };

struct mnode {
	uint32_t parent, func;   /* func: merged function id (name order) */
	sf_an_w bt, bs, nt, ns;  /* base/new total and self */
	double delta;
	unsigned in;             /* IN_BASE | IN_NEW */
};

struct mtree {
	struct mnode *n;
	size_t nn, cap;
	struct sf_idx map;       /* (parent, func) -> node */
	const char **names;      /* merged function names, sorted */
	size_t nnames;
	uint32_t *cstart, *child;
	uint32_t *nvis;          /* per node: visible children (a prefix) */
};

/* key: { parent, func } */
static bool mnode_eq(const void *ctx, uint32_t id, const void *key)
{
	const struct mtree *t = ctx;
	const uint32_t *k = key;

	return t->n[id].parent == k[0] && t->n[id].func == k[1];
}

/* The child of `parent` for function `f`, created when absent;
 * UINT32_MAX on ENOMEM. */
static uint32_t mt_child(struct mtree *t, uint32_t parent, uint32_t f)
{
	uint32_t key[2] = { parent, f }, id;
	uint64_t h = sf_hash_u64(parent, f);

	if (sf_idx_find(&t->map, h, mnode_eq, t, key, &id))
		return id;
	if (sf_grow(&t->n, &t->cap, t->nn + 1, sizeof(*t->n)) ||
	    !sf_idx_insert(&t->map, h, (uint32_t)t->nn))
		return UINT32_MAX;
	t->n[t->nn] = (struct mnode){ .parent = parent, .func = f };
	return (uint32_t)t->nn++;
}

/* Merged function ids: names of both views in strcmp order; bmap/nmap
 * give each view function's merged id. */
static int merge_names(struct mtree *t, const struct sf_an_view *b,
		       const struct sf_an_view *n, uint32_t *bmap,
		       uint32_t *nmap, struct sf_ctx *ctx)
{
	uint32_t *bo = malloc((b->nfuncs + 1) * sizeof(*bo));
	uint32_t *no = malloc((n->nfuncs + 1) * sizeof(*no));
	size_t i = 0, j = 0;

	t->names = malloc((b->nfuncs + n->nfuncs + 1) * sizeof(*t->names));
	if (!bo || !no || !t->names) {
		free(bo);
		free(no);
		return sf_error_nomem(ctx);
	}
	for (size_t k = 0; k < b->nfuncs; k++)
		bo[k] = (uint32_t)k;
	for (size_t k = 0; k < n->nfuncs; k++)
		no[k] = (uint32_t)k;
	qsort_r(bo, b->nfuncs, sizeof(*bo), sf_an__cmp_name, (void *)b);
	qsort_r(no, n->nfuncs, sizeof(*no), sf_an__cmp_name, (void *)n);
	while (i < b->nfuncs || j < n->nfuncs) {
		const char *bn = i < b->nfuncs ? b->names[bo[i]] : NULL;
		const char *nn = j < n->nfuncs ? n->names[no[j]] : NULL;
		int c = !bn ? 1 : !nn ? -1 : strcmp(bn, nn);
		uint32_t id = (uint32_t)t->nnames;
		t->names[t->nnames++] = c <= 0 ? bn : nn;
		if (c <= 0)
			bmap[bo[i++]] = id;
		if (c >= 0)
			nmap[no[j++]] = id;
	}
	free(bo);
	free(no);
	return 0;
}

/* Add the samples of one side to the merged tree. */
static int add_side(struct mtree *t, const struct sf_an_view *v,
		    const uint32_t *fmap, bool is_new, bool inverted,
		    struct sf_ctx *ctx)
{
	unsigned bit = is_new ? IN_NEW : IN_BASE;
	uint32_t *m = NULL;
	uint64_t *cnt = NULL;
	int rc = 0;

	if (inverted) {
		for (size_t i = 0; i < v->nsamples; i++) {
			uint32_t cur = 0;
			t->n[0].in |= bit;
			for (uint32_t x = v->samples[i].node; x;
			     x = v->nodes[x].parent) {
				cur = mt_child(t, cur, fmap[v->nodes[x].func]);
				if (cur == UINT32_MAX)
					return sf_error_nomem(ctx);
				t->n[cur].in |= bit;
			}
			if (is_new)
				t->n[cur].ns += v->samples[i].w;
			else
				t->n[cur].bs += v->samples[i].w;
		}
		return 0;
	}
	/* top-down: view nodes map one to one onto merged nodes (parents
	 * come before children); only those a sample reached count */
	m = malloc((v->nnodes + 1) * sizeof(*m));
	cnt = calloc(v->nnodes + 1, sizeof(*cnt));
	if (!m || !cnt) {
		rc = sf_error_nomem(ctx);
		goto done;
	}
	for (size_t i = 0; i < v->nsamples; i++)
		cnt[v->samples[i].node]++;
	for (size_t i = v->nnodes; i-- > 1;)
		cnt[v->nodes[i].parent] += cnt[i];
	m[0] = 0;
	if (v->nsamples)
		t->n[0].in |= bit;
	for (size_t i = 1; i < v->nnodes; i++) {
		if (!cnt[i])
			continue;
		m[i] = mt_child(t, m[v->nodes[i].parent],
				fmap[v->nodes[i].func]);
		if (m[i] == UINT32_MAX) {
			rc = sf_error_nomem(ctx);
			goto done;
		}
		t->n[m[i]].in |= bit;
	}
	for (size_t i = 0; i < v->nsamples; i++) {
		struct mnode *x = &t->n[m[v->samples[i].node]];
		if (is_new)
			x->ns += v->samples[i].w;
		else
			x->bs += v->samples[i].w;
	}
done:
	free(m);
	free(cnt);
	return rc;
}

/* Nodes NEW reached first, by decreasing new total, then name; then gone
 * nodes by decreasing base total, then name (merged ids are name order). */
static int cmp_child(const void *a, const void *b, void *tree)
{
	const struct mtree *t = tree;
	const struct mnode *x = &t->n[*(const uint32_t *)a];
	const struct mnode *y = &t->n[*(const uint32_t *)b];
	bool xn = x->in & IN_NEW, yn = y->in & IN_NEW;

	if (xn != yn)
		return xn ? -1 : 1;
	if (xn && x->nt != y->nt)
		return x->nt > y->nt ? -1 : 1;
	if (!xn && x->bt != y->bt)
		return x->bt > y->bt ? -1 : 1;
	return x->func < y->func ? -1 : x->func > y->func;
}

static void mt_free(struct mtree *t)
{
	free(t->n);
	sf_idx_free(&t->map);
	free(t->names);
	free(t->cstart);
	free(t->child);
	free(t->nvis);
}

static int mt_build(struct mtree *t, const struct sf_an_view *b,
		    const struct sf_an_view *nv,
		    const struct sf_an_diff_opts *dopt,
		    const struct sf_an_tree_opts *topt, struct sf_ctx *ctx)
{
	uint32_t *bmap = malloc((b->nfuncs + 1) * sizeof(*bmap));
	uint32_t *nmap = malloc((nv->nfuncs + 1) * sizeof(*nmap));
	uint32_t *hid = NULL;   /* scratch: the hidden children of a node */
	int rc = 0;

	if (!bmap || !nmap) {
		rc = sf_error_nomem(ctx);
		goto done;
	}
	if ((rc = merge_names(t, b, nv, bmap, nmap, ctx)))
		goto done;
	t->cap = 1024;
	if (!(t->n = malloc(t->cap * sizeof(*t->n)))) {
		rc = sf_error_nomem(ctx);
		goto done;
	}
	t->n[0] = (struct mnode){ .parent = 0, .func = UINT32_MAX };
	t->nn = 1;
	if ((rc = add_side(t, b, bmap, false, topt->inverted, ctx)) ||
	    (rc = add_side(t, nv, nmap, true, topt->inverted, ctx)))
		goto done;
	for (size_t i = 0; i < t->nn; i++) {
		t->n[i].bt += t->n[i].bs;
		t->n[i].nt += t->n[i].ns;
	}
	for (size_t i = t->nn; i-- > 1;) {
		t->n[t->n[i].parent].bt += t->n[i].bt;
		t->n[t->n[i].parent].nt += t->n[i].nt;
	}
	double BT = sf_an_double(t->n[0].bt, b->exp);
	double NT = sf_an_double(t->n[0].nt, nv->exp);
	for (size_t i = 0; i < t->nn; i++) {
		struct mnode *x = &t->n[i];
		double bt = sf_an_double(x->bt, b->exp);
		double nt = sf_an_double(x->nt, nv->exp);
		if (dopt->normalize)
			x->delta = (NT != 0 ? nt / NT : 0) -
				   (BT != 0 ? bt / BT : 0);
		else
			x->delta = nt - bt;
	}
	/* children (CSR), sorted; the visible ones moved to the front */
	t->cstart = calloc(t->nn + 1, sizeof(*t->cstart));
	t->child = malloc(t->nn * sizeof(*t->child));
	t->nvis = calloc(t->nn, sizeof(*t->nvis));
	hid = malloc(t->nn * sizeof(*hid));
	if (!t->cstart || !t->child || !t->nvis || !hid) {
		rc = sf_error_nomem(ctx);
		goto done;
	}
	for (size_t i = 1; i < t->nn; i++)
		t->cstart[t->n[i].parent + 1]++;
	for (size_t i = 0; i < t->nn; i++)
		t->cstart[i + 1] += t->cstart[i];
	for (size_t i = 1; i < t->nn; i++)
		t->child[t->cstart[t->n[i].parent] + t->nvis[t->n[i].parent]++] =
			(uint32_t)i;
	for (size_t i = 0; i < t->nn; i++) {
		uint32_t *c = t->child + t->cstart[i];
		size_t nc = t->cstart[i + 1] - t->cstart[i], nvis = 0;
		qsort_r(c, nc, sizeof(*c), cmp_child, t);
		/* stable partition: a node is shown when its share of
		 * either side's whole reaches min_percent; hidden ones
		 * follow, still in order */
		size_t nhid = 0;
		for (size_t k = 0; k < nc; k++) {
			const struct mnode *x = &t->n[c[k]];
			if (sf_an__pct(sf_an_double(x->bt, b->exp), BT) >=
				    topt->min_percent ||
			    sf_an__pct(sf_an_double(x->nt, nv->exp), NT) >=
				    topt->min_percent)
				c[nvis++] = c[k];
			else
				hid[nhid++] = c[k];
		}
		memcpy(c + nvis, hid, nhid * sizeof(*c));
		t->nvis[i] = (uint32_t)nvis;
	}
done:
	free(bmap);
	free(nmap);
	free(hid);
	return rc;
}

/* The delta column: percentage points (normalised) or a signed value. */
static void fmt_delta(char *buf, size_t size, double d, bool normalize,
		      const char *unit, bool raw)
{
	if (d == 0)
		snprintf(buf, size, "0");
	else if (normalize)
		snprintf(buf, size, "%+.2f", d * 100);
	else {
		buf[0] = d > 0 ? '+' : 0;
		sf_an_fmt_unit(buf + (d > 0), size - 1, d, unit, raw);
	}
}

struct frame {
	uint32_t node, next, end;
	bool entered;
};

int sf_an_diff_tree(struct sf_output *o, const struct sf_an_view *base,
		    const struct sf_an_view *cur,
		    const struct sf_an_diff_opts *dopt,
		    const struct sf_an_tree_opts *topt, struct sf_ctx *ctx)
{
	struct mtree t = { 0 };
	struct frame *st = NULL;
	bool *last = NULL;
	size_t *plen = NULL;
	char *pre = NULL;
	size_t depth_cut = 0;
	int wb = 4, wn = 3, wd = 5, rc;
	char b1[64], b2[64], b3[64];

	if ((rc = mt_build(&t, base, cur, dopt, topt, ctx)))
		goto done;
	int bexp = base->exp, nexp = cur->exp;
	double BT = sf_an_double(t.n[0].bt, bexp);
	double NT = sf_an_double(t.n[0].nt, nexp);
	for (size_t i = 0; i < t.nn && !topt->json; i++) {
		int l;
		sf_an_fmt_w(b1, sizeof(b1), t.n[i].bt, bexp, base->unit,
			    dopt->raw);
		if ((l = (int)strlen(b1)) > wb)
			wb = l;
		sf_an_fmt_w(b1, sizeof(b1), t.n[i].nt, nexp, cur->unit,
			    dopt->raw);
		if ((l = (int)strlen(b1)) > wn)
			wn = l;
		fmt_delta(b1, sizeof(b1), t.n[i].delta, dopt->normalize,
			  cur->unit, dopt->raw);
		if ((l = (int)strlen(b1)) > wd)
			wd = l;
	}
	size_t maxd = (size_t)(base->maxdepth > cur->maxdepth ?
				       base->maxdepth : cur->maxdepth) + 2;
	st = malloc(maxd * sizeof(*st));
	last = calloc(maxd, sizeof(*last));
	plen = calloc(maxd, sizeof(*plen));
	pre = malloc(maxd * 5 + 1);
	if (!st || !last || !plen || !pre) {
		rc = sf_error_nomem(ctx);
		goto done;
	}
	if (!topt->json) {
		sf_an_fmt_unit(b1, sizeof(b1), BT, base->unit, dopt->raw);
		sf_an_fmt_unit(b2, sizeof(b2), NT, cur->unit, dopt->raw);
		sf_output_printf(o, "Differential %scall tree (%s, %s -> %s, "
				    "%s): base total %s, new total %s; delta = "
				    "%s\n",
				 topt->inverted ? "inverted " : "", base->type,
				 base->unit, cur->type, cur->unit, b1, b2,
				 dopt->normalize ? "change of total share "
						   "(percentage points)" :
						   "change of total");
		sf_output_printf(o, "%*s %*s %*s  Name\n", wb, "Base", wn,
				 "New", wd, "Delta");
	}
	size_t sp = 0;
	st[sp++] = (struct frame){ 0, t.cstart[0], t.cstart[0] + t.nvis[0],
				   false };
	for (;;) {
		struct frame *f = &st[sp - 1];
		const struct mnode *x = &t.n[f->node];
		uint32_t nall = t.cstart[f->node + 1] - t.cstart[f->node];
		uint32_t npruned = nall - t.nvis[f->node];
		if (!f->entered) {
			f->entered = true;
			const char *only = !f->node ? NULL :
					   x->in == IN_BASE ? "base" :
					   x->in == IN_NEW ? "new" : NULL;
			if (topt->json) {
				sf_output_puts(o, "{\"name\":");
				if (f->node)
					sf_an_put_json_str(o,
							   t.names[x->func]);
				else
					sf_output_puts(o, "null");
				sf_output_puts(o, ",\"base_total\":");
				sf_an_put_w(o, x->bt, bexp);
				sf_output_puts(o, ",\"new_total\":");
				sf_an_put_w(o, x->nt, nexp);
				sf_output_puts(o, ",\"base_self\":");
				sf_an_put_w(o, x->bs, bexp);
				sf_output_puts(o, ",\"new_self\":");
				sf_an_put_w(o, x->ns, nexp);
				sf_output_puts(o, ",\"delta\":");
				sf_output_num(o, x->delta);
				sf_output_puts(o, ",\"only\":");
				if (only)
					sf_output_printf(o, "\"%s\"", only);
				else
					sf_output_puts(o, "null");
				sf_output_puts(o, ",\"children\":[");
			} else {
				sf_an_fmt_w(b1, sizeof(b1), x->bt, bexp,
					    base->unit, dopt->raw);
				sf_an_fmt_w(b2, sizeof(b2), x->nt, nexp,
					    cur->unit, dopt->raw);
				fmt_delta(b3, sizeof(b3), x->delta,
					  dopt->normalize, cur->unit,
					  dopt->raw);
				sf_output_printf(o, "%*s %*s %*s  ", wb,
						 !f->node || x->in & IN_BASE ?
							 b1 : "-",
						 wn,
						 !f->node || x->in & IN_NEW ?
							 b2 : "-",
						 wd, b3);
				if (sp > 1) {
					sf_an__put_prefix(o, pre, plen, sp - 2);
					sf_output_puts(o, last[sp - 1] ?
							  "\u2514\u2500 " :
							  "\u251c\u2500 ");
				}
				if (f->node)
					sf_an__put_name(o, t.names[x->func]);
				else
					sf_output_puts(o, "(all samples)");
				if (only)
					sf_output_printf(o, "  (%s)",
							 x->in == IN_BASE ?
								 "gone" :
								 "new");
				sf_output_putc(o, '\n');
			}
			if (topt->max_depth && sp - 1 >= topt->max_depth) {
				depth_cut += nall;
				f->end = f->next;
			}
		}
		bool cut = f->end == f->next && topt->max_depth &&
			   sp - 1 >= topt->max_depth;
		if (f->next < f->end) {
			uint32_t c = t.child[f->next++];
			if (topt->json && f->next - 1 > t.cstart[f->node])
				sf_output_putc(o, ',');
			last[sp] = f->next == f->end && !npruned;
			const char *seg = last[sp] ? "   " : "\u2502  ";
			size_t sl = strlen(seg);
			memcpy(pre + plen[sp - 1], seg, sl);
			plen[sp] = plen[sp - 1] + sl;
			st[sp++] = (struct frame){ c, t.cstart[c],
						   t.cstart[c] + t.nvis[c],
						   false };
			continue;
		}
		/* leaving the node: the pruned children, summed */
		if (npruned && !cut) {
			sf_an_w pb = 0, pn = 0;
			for (uint32_t k = t.cstart[f->node] + t.nvis[f->node];
			     k < t.cstart[f->node + 1]; k++) {
				pb += t.n[t.child[k]].bt;
				pn += t.n[t.child[k]].nt;
			}
			if (topt->json) {
				sf_output_puts(o, "],\"pruned\":{\"nodes\":");
				sf_output_u64(o, npruned);
				sf_output_puts(o, ",\"base_total\":");
				sf_an_put_w(o, pb, bexp);
				sf_output_puts(o, ",\"new_total\":");
				sf_an_put_w(o, pn, nexp);
				sf_output_putc(o, '}');
				if (!f->node) {
					sf_output_putc(o, ',');
					sf_an__put_json_diff_kind(o, base, cur);
				}
				sf_output_putc(o, '}');
			} else {
				sf_an_fmt_w(b1, sizeof(b1), pb, bexp,
					    base->unit, dopt->raw);
				sf_an_fmt_w(b2, sizeof(b2), pn, nexp,
					    cur->unit, dopt->raw);
				sf_output_printf(o, "%*s %*s %*s  ", wb, b1, wn,
						 b2, wd, "");
				sf_an__put_prefix(o, pre, plen, sp - 1);
				sf_output_printf(o, "\u2514\u2500 (%u more "
						    "below %g%%)\n",
						 npruned, topt->min_percent);
			}
		} else if (topt->json) {
			sf_output_putc(o, ']');
			if (!f->node) {
				/* the root, last, as in sf_an_tree */
				sf_output_putc(o, ',');
				sf_an__put_json_diff_kind(o, base, cur);
			}
			sf_output_putc(o, '}');
		}
		if (--sp == 0)
			break;
	}
	if (!topt->json && depth_cut)
		sf_output_printf(o, "(%zu deeper branches not shown: --depth "
				    "%u)\n", depth_cut, topt->max_depth);
done:
	free(st);
	free(last);
	free(plen);
	free(pre);
	mt_free(&t);
	return rc;
}
