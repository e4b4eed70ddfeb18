/*
 * fmt_callgrind.c - write the callgrind format (valgrind's
 * docs/callgrind-format), so KCachegrind and callgrind_annotate show the
 * call graph of a sampled profile.  Write only.
 *
 * One event per sample type ("events:" from the type names, with the unit
 * in the long name), the default type first.  A function is (name, file, module), written as fn=,
 * fl= and ob= with name compression.  Costs:
 *   - self: the leaf frame of each sample, at the leaf's line;
 *   - calls: for every caller -> callee pair of adjacent frames, the
 *     inclusive cost is the weight of the samples whose stack holds that
 *     pair, each sample counted once per pair however often the pair
 *     repeats in it; a function calling itself directly gets no edge (the
 *     cost is already inside the outer call).  calls= says in how many
 *     samples the pair occurs.  Indirect recursion (a -> b -> a) still
 *     counts the inner part twice in a's inclusive cost, as in any call
 *     graph made of edges.
 * Costs are integers in this format: fractional weights are rounded (with
 * a warning).  Threads, labels and timestamps are not written.
 */
#include "format.h"
#include "hash.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct fnkey { const char *name, *file, *module; };

struct cg {
	const struct sf_profile *p;
	struct sf_ctx *ctx;
	size_t nt;                /* sample types */
	/* functions, by interned pointers */
	struct sf_idx fidx;
	struct fnkey *fns;
	size_t nfns, cfns;
	uint32_t *frame_fn;       /* per frame: function id */
	/* (function, line) -> self cost */
	struct sf_idx sidx;
	struct cg_self { uint32_t fn, line; } *self;
	double *self_w;           /* nt per entry */
	size_t nself, cself, cself_w;
	/* (caller fn, callee fn) -> edge */
	struct sf_idx eidx;
	struct cg_edge {
		uint32_t from, to, line, tline;
		uint64_t calls;
		size_t stamp;     /* last stack that counted this edge */
	} *e;
	double *e_w;              /* nt per entry */
	size_t nedges, cedges, cedges_w;
	bool fraction;
};

static bool fn_eq(const void *ctx, uint32_t id, const void *key)
{
	const struct cg *c = ctx;
	const struct fnkey *k = key;

	return c->fns[id].name == k->name && c->fns[id].file == k->file &&
	       c->fns[id].module == k->module;
}

static bool self_eq(const void *ctx, uint32_t id, const void *key)
{
	const struct cg *c = ctx;
	const uint32_t *k = key;

	return c->self[id].fn == k[0] && c->self[id].line == k[1];
}

static bool edge_eq(const void *ctx, uint32_t id, const void *key)
{
	const struct cg *c = ctx;
	const uint32_t *k = key;

	return c->e[id].from == k[0] && c->e[id].to == k[1];
}

static int function_of(struct cg *c, const struct sf_frame *f, uint32_t *out)
{
	struct fnkey k = { f->name, f->file, f->module };
	uint64_t h = sf_hash(&k, sizeof(k));
	uint32_t id;

	if (sf_idx_find(&c->fidx, h, fn_eq, c, &k, &id)) {
		*out = id;
		return 0;
	}
	if (sf_grow(&c->fns, &c->cfns, c->nfns + 1, sizeof(*c->fns)))
		return sf_error_nomem(c->ctx);
	id = (uint32_t)c->nfns;
	c->fns[id] = k;
	if (!sf_idx_insert(&c->fidx, h, id))
		return sf_error_nomem(c->ctx);
	c->nfns++;
	*out = id;
	return 0;
}

static int add_self(struct cg *c, uint32_t fn, uint32_t line,
		    const double *w)
{
	uint32_t k[2] = { fn, line }, id;
	uint64_t h = sf_hash(k, sizeof(k));

	if (!sf_idx_find(&c->sidx, h, self_eq, c, k, &id)) {
		if (sf_grow(&c->self, &c->cself, c->nself + 1,
			    sizeof(*c->self)) ||
		    sf_grow(&c->self_w, &c->cself_w, (c->nself + 1) * c->nt,
			    sizeof(*c->self_w)))
			return sf_error_nomem(c->ctx);
		id = (uint32_t)c->nself;
		c->self[id] = (struct cg_self){ fn, line };
		memset(c->self_w + id * c->nt, 0, c->nt * sizeof(double));
		if (!sf_idx_insert(&c->sidx, h, id))
			return sf_error_nomem(c->ctx);
		c->nself++;
	}
	for (size_t t = 0; t < c->nt; t++)
		c->self_w[id * c->nt + t] += w[t];
	return 0;
}

static int add_edge(struct cg *c, uint32_t from, uint32_t to, uint32_t line,
		    uint32_t tline, const double *w, uint64_t count,
		    size_t stamp)
{
	uint32_t k[2] = { from, to }, id;
	uint64_t h = sf_hash(k, sizeof(k));

	if (!sf_idx_find(&c->eidx, h, edge_eq, c, k, &id)) {
		if (sf_grow(&c->e, &c->cedges, c->nedges + 1, sizeof(*c->e)) ||
		    sf_grow(&c->e_w, &c->cedges_w, (c->nedges + 1) * c->nt,
			    sizeof(*c->e_w)))
			return sf_error_nomem(c->ctx);
		id = (uint32_t)c->nedges;
		c->e[id] = (struct cg_edge){ from, to, line, tline, 0, 0 };
		memset(c->e_w + id * c->nt, 0, c->nt * sizeof(double));
		if (!sf_idx_insert(&c->eidx, h, id))
			return sf_error_nomem(c->ctx);
		c->nedges++;
	}
	if (c->e[id].stamp == stamp)
		return 0;   /* this stack already counted the pair */
	c->e[id].stamp = stamp;
	c->e[id].calls += count;
	for (size_t t = 0; t < c->nt; t++)
		c->e_w[id * c->nt + t] += w[t];
	return 0;
}

/* A name for the events line: letters, digits and '_' only. */
static void put_event(struct sf_output *o, const char *s)
{
	if (!*s)
		sf_output_putc(o, 'x');
	for (; *s; s++) {
		char ch = *s;
		bool ok = (ch >= 'a' && ch <= 'z') ||
			  (ch >= 'A' && ch <= 'Z') ||
			  (ch >= '0' && ch <= '9') || ch == '_';
		sf_output_putc(o, ok ? ch : '_');
	}
}

/* Names are one line each: LF and CR become spaces. */
static void put_name(struct sf_output *o, const char *s)
{
	for (; *s; s++)
		sf_output_putc(o, *s == '\n' || *s == '\r' ? ' ' : *s);
}

static void put_costs(struct cg *c, struct sf_output *o, const double *w)
{
	for (size_t t = 0; t < c->nt; t++) {
		double r = nearbyint(w[t]);
		if (r != w[t])
			c->fraction = true;
		sf_output_putc(o, ' ');
		sf_output_num(o, r);
	}
}

/* "key=(id) name" the first time, "key=(id)" after. */
static void put_compressed(struct sf_output *o, const char *key, uint32_t id,
			   const char *name, bool *seen)
{
	sf_output_puts(o, key);
	sf_output_puts(o, "=(");
	sf_output_u64(o, id + 1);
	sf_output_putc(o, ')');
	if (!seen[id]) {
		seen[id] = true;
		sf_output_putc(o, ' ');
		put_name(o, name);
	}
	sf_output_putc(o, '\n');
}

/* Strings (files, modules) by pointer -> compressed id. */
struct strids {
	struct sf_idx idx;
	const char **s;
	size_t n, cap;
	bool *seen;
};

static bool strp_eq(const void *ctx, uint32_t id, const void *key)
{
	const struct strids *t = ctx;

	return t->s[id] == *(const char *const *)key;
}

static int str_id(struct strids *t, const char *s, uint32_t *out)
{
	uint64_t h = sf_hash(&s, sizeof(s));
	uint32_t id;

	if (sf_idx_find(&t->idx, h, strp_eq, t, &s, &id)) {
		*out = id;
		return 0;
	}
	if (sf_grow(&t->s, &t->cap, t->n + 1, sizeof(*t->s)))
		return SF_ENOMEM;
	id = (uint32_t)t->n;
	t->s[id] = s;
	if (!sf_idx_insert(&t->idx, h, id))
		return SF_ENOMEM;
	t->n++;
	*out = id;
	return 0;
}

static void strids_free(struct strids *t)
{
	sf_idx_free(&t->idx);
	free(t->s);
	free(t->seen);
}

static int ucmp64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The sample type of event column `col`: the default type first (the
 * event KCachegrind and callgrind_annotate show first), then the others in
 * model order. */
static uint32_t event_type(const struct sf_profile *p, size_t col)
{
	uint32_t d = p->d.meta.default_type < p->d.ntypes ?
		     p->d.meta.default_type : 0;

	if (col == 0)
		return d;
	return (uint32_t)(col <= d ? col - 1 : col);
}

static int callgrind_write(const struct sf_profile *p, struct sf_output *o,
			   struct sf_ctx *ctx)
{
	struct cg c = { 0 };
	struct strids files = { 0 }, objs = { 0 };
	double *stack_w = NULL, *total = NULL;
	uint64_t *stack_n = NULL;
	uint32_t *chain = NULL, *order = NULL, *first_self = NULL;
	uint32_t *first_edge = NULL, *fn_file = NULL, *fn_obj = NULL;
	bool *fn_seen = NULL;
	size_t ns = p->d.nstacks;
	int rc = 0;

	c.p = p;
	c.ctx = ctx;
	c.nt = p->d.ntypes ? p->d.ntypes : 1;
	/* weights per stack first: the graph work is per unique stack */
	if (!(stack_w = sf_calloc(ns * c.nt, sizeof(*stack_w))) ||
	    !(stack_n = sf_calloc(ns, sizeof(*stack_n))) ||
	    !(total = sf_calloc(c.nt, sizeof(*total))) ||
	    (p->d.nframes &&
	     !(c.frame_fn = sf_calloc(p->d.nframes, sizeof(*c.frame_fn))))) {
		rc = sf_error_nomem(c.ctx);
		goto out;
	}
	for (size_t i = 0; i < p->d.nsamples; i++) {
		sf_stack_id s = p->d.samples[i].stack;
		stack_n[s]++;
		for (size_t t = 0; t < c.nt; t++) {
			stack_w[s * c.nt + t] +=
				p->d.ntypes ? sf_weight(p, i, event_type(p, t)) :
					      1;
		}
	}
	for (size_t i = 0; i < p->d.nframes; i++)
		if ((rc = function_of(&c, &p->d.frames[i], &c.frame_fn[i])))
			goto out;
	size_t maxdepth = sf_profile_max_depth(p);
	if (!(chain = sf_calloc(maxdepth + 1, sizeof(*chain)))) {
		rc = sf_error_nomem(c.ctx);
		goto out;
	}
	for (size_t s = 1; s < ns; s++) {
		if (!stack_n[s])
			continue;
		const double *w = stack_w + s * c.nt;
		size_t d = sf_profile_stack_frames(p, (sf_stack_id)s, chain);
		const struct sf_frame *leaf = &p->d.frames[chain[d - 1]];
		if ((rc = add_self(&c, c.frame_fn[chain[d - 1]], leaf->line,
				   w)))
			goto out;
		for (size_t t = 0; t < c.nt; t++)
			total[t] += w[t];
		for (size_t k = 0; k + 1 < d; k++) {
			uint32_t from = c.frame_fn[chain[k]];
			uint32_t to = c.frame_fn[chain[k + 1]];
			if (from == to)
				continue;
			if ((rc = add_edge(&c, from, to,
					   p->d.frames[chain[k]].line,
					   p->d.frames[chain[k + 1]].line, w,
					   stack_n[s], s)))
				goto out;
		}
	}
	/* samples with an empty stack have no function to charge */
	if (stack_n[0]) {
		sf_warn(ctx, "callgrind.empty-stack", "callgrind: samples "
			"with an empty stack are left out");
	}

	/* header */
	sf_output_puts(o, "# callgrind format\nversion: 1\ncreator: sftools "
			  SF_VERSION "\npositions: line\n");
	for (size_t t = 0; t < p->d.ntypes; t++) {
		const struct sf_sample_type *ty =
			&p->d.types[event_type(p, t)];
		sf_output_puts(o, "event: ");
		put_event(o, ty->type);
		sf_output_puts(o, " : ");
		put_name(o, ty->type);
		sf_output_puts(o, " (");
		put_name(o, ty->unit);
		sf_output_puts(o, ")\n");
	}
	sf_output_puts(o, "events:");
	for (size_t t = 0; t < p->d.ntypes; t++) {
		sf_output_putc(o, ' ');
		put_event(o, p->d.types[event_type(p, t)].type);
	}
	if (!p->d.ntypes)
		sf_output_puts(o, " samples");
	sf_output_puts(o, "\nsummary:");
	for (size_t t = 0; t < c.nt; t++) {
		sf_output_putc(o, ' ');
		sf_output_num(o, nearbyint(total[t]));
	}
	sf_output_puts(o, "\n\n");

	/* per function, in order of first appearance: self lines sorted by
	 * line, then its calls in order of first appearance */
	if (!(first_self = sf_calloc(c.nfns + 1, sizeof(*first_self))) ||
	    !(first_edge = sf_calloc(c.nfns + 1, sizeof(*first_edge))) ||
	    !(order = sf_calloc(c.nself + c.nedges + 1, sizeof(*order))) ||
	    !(fn_file = sf_calloc(c.nfns + 1, sizeof(*fn_file))) ||
	    !(fn_obj = sf_calloc(c.nfns + 1, sizeof(*fn_obj))) ||
	    !(fn_seen = sf_calloc(c.nfns + 1, sizeof(*fn_seen)))) {
		rc = sf_error_nomem(c.ctx);
		goto out;
	}
	for (size_t f = 0; f < c.nfns; f++) {
		if (str_id(&files, c.fns[f].file ? c.fns[f].file : "???",
			   &fn_file[f]) ||
		    str_id(&objs, c.fns[f].module ? c.fns[f].module : "???",
			   &fn_obj[f])) {
			rc = sf_error_nomem(c.ctx);
			goto out;
		}
	}
	bool any_obj = false;
	for (size_t f = 0; f < c.nfns; f++)
		any_obj |= c.fns[f].module != NULL;
	if (!(files.seen = sf_calloc(files.n + 1, sizeof(bool))) ||
	    !(objs.seen = sf_calloc(objs.n + 1, sizeof(bool)))) {
		rc = sf_error_nomem(c.ctx);
		goto out;
	}
	/* bucket self entries and edges by function (counting sort) */
	for (size_t i = 0; i < c.nself; i++)
		first_self[c.self[i].fn + 1]++;
	for (size_t f = 0; f < c.nfns; f++)
		first_self[f + 1] += first_self[f];
	uint32_t *self_order = order, *edge_order = order + c.nself;
	{
		uint32_t *pos = sf_calloc(c.nfns + 1, sizeof(*pos));
		if (!pos) {
			rc = sf_error_nomem(c.ctx);
			goto out;
		}
		memcpy(pos, first_self, (c.nfns + 1) * sizeof(*pos));
		for (size_t i = 0; i < c.nself; i++)
			self_order[pos[c.self[i].fn]++] = (uint32_t)i;
		for (size_t i = 0; i < c.nedges; i++)
			first_edge[c.e[i].from + 1]++;
		for (size_t f = 0; f < c.nfns; f++)
			first_edge[f + 1] += first_edge[f];
		memcpy(pos, first_edge, (c.nfns + 1) * sizeof(*pos));
		for (size_t i = 0; i < c.nedges; i++)
			edge_order[pos[c.e[i].from]++] = (uint32_t)i;
		free(pos);
	}
	for (size_t f = 0; f < c.nfns; f++) {
		uint32_t s0 = first_self[f], s1 = first_self[f + 1];
		uint32_t e0 = first_edge[f], e1 = first_edge[f + 1];
		if (s0 == s1 && e0 == e1)
			continue;
		if (any_obj)
			put_compressed(o, "ob", fn_obj[f], objs.s[fn_obj[f]],
				       objs.seen);
		put_compressed(o, "fl", fn_file[f], files.s[fn_file[f]],
			       files.seen);
		put_compressed(o, "fn", (uint32_t)f, c.fns[f].name, fn_seen);
		/* self lines sorted by line: sort (line << 32 | index) */
		uint64_t *keys = sf_calloc(s1 - s0 + 1, sizeof(*keys));
		if (!keys) {
			rc = sf_error_nomem(c.ctx);
			goto out;
		}
		for (uint32_t i = s0; i < s1; i++)
			keys[i - s0] = (uint64_t)c.self[self_order[i]].line
					       << 32 |
				       self_order[i];
		qsort(keys, s1 - s0, sizeof(*keys), ucmp64);
		for (uint32_t i = 0; i < s1 - s0; i++) {
			uint32_t id = (uint32_t)keys[i];
			sf_output_u64(o, c.self[id].line);
			put_costs(&c, o, c.self_w + id * c.nt);
			sf_output_putc(o, '\n');
		}
		free(keys);
		for (uint32_t i = e0; i < e1; i++) {
			uint32_t id = edge_order[i], to = c.e[id].to;
			if (any_obj)
				put_compressed(o, "cob", fn_obj[to],
					       objs.s[fn_obj[to]], objs.seen);
			put_compressed(o, "cfi", fn_file[to],
				       files.s[fn_file[to]], files.seen);
			put_compressed(o, "cfn", to, c.fns[to].name, fn_seen);
			sf_output_puts(o, "calls=");
			sf_output_u64(o, c.e[id].calls);
			sf_output_putc(o, ' ');
			sf_output_u64(o, c.e[id].tline);
			sf_output_putc(o, '\n');
			sf_output_u64(o, c.e[id].line);
			put_costs(&c, o, c.e_w + id * c.nt);
			sf_output_putc(o, '\n');
		}
		sf_output_putc(o, '\n');
	}
	if (c.fraction)
		sf_warn(ctx, "callgrind.fraction", "callgrind costs are "
			"integers: fractional weights were rounded");
out:
	free(stack_w);
	free(stack_n);
	free(total);
	free(chain);
	free(order);
	free(first_self);
	free(first_edge);
	free(fn_file);
	free(fn_obj);
	free(fn_seen);
	strids_free(&files);
	strids_free(&objs);
	sf_idx_free(&c.fidx);
	sf_idx_free(&c.sidx);
	sf_idx_free(&c.eidx);
	free(c.fns);
	free(c.frame_fn);
	free(c.self);
	free(c.self_w);
	free(c.e);
	free(c.e_w);
	return rc;
}

static const char *const callgrind_ext[] = { "callgrind.out.*", ".callgrind",
					     NULL };

const struct sf_format sf_format_callgrind = {
	.name = "callgrind",
	.description = "callgrind (KCachegrind, callgrind_annotate), write "
		       "only",
	.extensions = callgrind_ext,
	.write = callgrind_write,
	.caps = SF_CAP_WEIGHTS | SF_CAP_TYPES | SF_CAP_LOCATIONS,
	.priority = 1,
};
