/*
 * fmt_cpuprofile.c - Chrome / V8 / Node.js CPU profiles (.cpuprofile): the
 * DevTools protocol's Profiler.Profile object.
 *
 *   {"nodes": [{"id", "callFrame": {"functionName", "scriptId", "url",
 *               "lineNumber", "columnNumber"}, "hitCount", "children"}],
 *    "startTime": us, "endTime": us, "samples": [node id, ...],
 *    "timeDeltas": [us, ...]}
 *
 * The pre-2017 form ({"head": tree, "samples", "timestamps"}, Node 10 and
 * older) is read too.
 *
 * Reading: every sample becomes a model sample with its time (ns), weight 1
 * in ("samples", "count") and, in ("wall", "microseconds"), the time to the
 * next sample (to endTime for the last), which is what DevTools shows as
 * self time.  The "(root)" node is not a frame.  Line and column numbers
 * are 0-based in the file and 1-based in the model.  Without `samples`,
 * each node's hitCount is its count.
 *
 * Writing: one profile is one thread.  The thread with the largest total
 * weight is written unless --cpuprofile-thread names another (the others
 * are counted in a warning).  Samples are laid out on a time line: a model
 * sample whose default type is a time lasts that long; a count of n is n
 * V8 samples one period apart (meta.period when it is a time, else 1 ms).
 * Timestamps, when the model has them, place samples exactly (the line
 * never goes backwards); the durations then only matter for the last one.  Node ids are model stack ids + 1; node 1 is "(root)".
 */
#include "webjson.h"
#include "records.h"
#include "text.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cpuprofile_probe(const unsigned char *d, size_t n)
{
	size_t i = sf_probe_skip_space(d, n);

	if (i >= n || d[i] != '{')
		return 0;
	if (sf_webjson__has(d, n, "\"traceEvents\"") ||
	    sf_webjson__has(d, n, "\"sftools-profile\""))
		return 0;
	if (sf_webjson__has(d, n, "\"callFrame\"") &&
	    sf_webjson__has(d, n, "\"nodes\""))
		return 60;
	/* legacy: {"head":{"functionName":"(root)", ... */
	if (sf_webjson__has(d, n, "\"head\"") &&
	    sf_webjson__has(d, n, "\"functionName\""))
		return 50;
	return 0;
}

/* ----- reading ----- */

/*
 * The legacy "head" tree (nodes hold their call frame fields directly and
 * nest through "children") read as yajl events (struct
 * sf_webjson_divert's events_key): a node's scalar members are kept until
 * it ends, so memory is the open nodes (at most --max-nesting) and the
 * node table, not a json-c object (about 1 KB) per node.  A node's frame
 * is made when its "children" begin, or at its end without them: that is
 * the order of a walk of the tree, in which the frames were made when the
 * tree was read whole, for V8's files, which put "functionName", "url"
 * and the numbers before "children".  A node whose name comes after its
 * children gets its frame at its end (after theirs), and one whose other
 * fields do, a second frame then.  V8 writes "id" before or after
 * "children"; a child's parent is set when the parent ends.
 */
enum hkind { H_NODE, H_CHILDREN, H_OTHER };

struct hnode {
	struct json_object *cf;        /* the fields that matter */
	uint64_t line;
	size_t pend;                   /* its ended children: pend[pend..] */
	sf_frame_id frame;
	bool framed, late;             /* late: a frame field after it */
	bool children;                 /* its "children" began */
};

struct head {
	struct sf_ctx *ctx;
	const char *name;
	struct sf_profile *p;
	struct sf_cpuprof *t;
	uint64_t line;                 /* of the last '{' or '[' */
	bool seen;                     /* head was an object */
	char *kinds;                   /* the open containers, enum hkind */
	size_t nk, capk;
	struct hnode *open;            /* the open nodes */
	size_t no, capo;
	uint32_t *pend;                /* node table indices */
	size_t np, capp;
	int key;                       /* of the innermost node: 0 none,
					* 1 children, 2 a field */
	char field[16];
	struct json_tokener *tok;
};

static const char *const head_fields[] = { "functionName", "url",
					   "lineNumber", "columnNumber", "id",
					   NULL };

static int head_push(struct head *h, char kind)
{
	if (sf_grow(&h->kinds, &h->capk, h->nk + 1, 1)) {
		sf_error_nomem(h->ctx);
		return 0;
	}
	h->kinds[h->nk++] = kind;
	return 1;
}

static int head_frame(struct head *h, struct hnode *nd)
{
	if (sf_cpuprof__node_frame(h->p, h->ctx, nd->cf, h->name, nd->line,
				   &nd->frame))
		return 0;
	nd->framed = true;
	nd->late = false;
	return 1;
}

static int head_start_map(void *ud)
{
	struct head *h = ud;

	if (h->nk ? h->kinds[h->nk - 1] != H_CHILDREN : false)
		return head_push(h, H_OTHER);
	if (!h->nk)
		h->seen = true;
	if (sf_grow(&h->open, &h->capo, h->no + 1, sizeof(*h->open))) {
		sf_error_nomem(h->ctx);
		return 0;
	}
	h->open[h->no++] = (struct hnode){ json_object_new_object(), h->line,
					   h->np, UINT32_MAX, false, false,
					   false };
	h->key = 0;
	if (!h->open[h->no - 1].cf) {
		sf_error_nomem(h->ctx);
		return 0;
	}
	return head_push(h, H_NODE);
}

static int head_key(void *ud, const unsigned char *k, size_t len)
{
	struct head *h = ud;

	h->key = 0;
	if (h->kinds[h->nk - 1] != H_NODE)
		return 1;
	if (len == 8 && !memcmp(k, "children", 8)) {
		h->key = 1;
		return 1;
	}
	for (size_t i = 0; head_fields[i]; i++)
		if (len == strlen(head_fields[i]) &&
		    !memcmp(k, head_fields[i], len)) {
			memcpy(h->field, k, len);
			h->field[len] = 0;
			h->key = 2;
		}
	return 1;
}

/* A field of the innermost node, as json-c would have made it. */
static int head_value(struct head *h, struct json_object *v)
{
	struct hnode *nd;

	if (h->kinds[h->nk - 1] == H_CHILDREN) {
		/* a child that is no object: named at the head's line */
		json_object_put(v);
		sf_error(h->ctx, SF_EINPUT, h->name, h->open[0].line,
			 "head: every node needs an integer \"id\"");
		return 0;
	}
	if (h->kinds[h->nk - 1] != H_NODE || h->key != 2) {
		json_object_put(v);
		return 1;
	}
	/* only now: a value in a head that is an array has no open node
	 * (h->no is 0) */
	nd = &h->open[h->no - 1];
	if (json_object_object_add(nd->cf, h->field, v)) {
		sf_error_nomem(h->ctx);
		return 0;
	}
	nd->late |= nd->framed && strcmp(h->field, "id");
	return 1;
}

static int head_null(void *ud)
{
	return head_value(ud, NULL);
}

static int head_bool(void *ud, int b)
{
	return head_value(ud, json_object_new_boolean(b));
}

static int head_number(void *ud, const char *s, size_t len)
{
	struct head *h = ud;
	char buf[64];

	/* json-c's own reading of the number; longer ones are no id,
	 * line or column anyway */
	if (len >= sizeof(buf) || h->kinds[h->nk - 1] != H_NODE ||
	    h->key != 2)
		return head_value(h, NULL);
	memcpy(buf, s, len);
	buf[len] = 0;
	json_tokener_reset(h->tok);
	return head_value(h, json_tokener_parse_ex(h->tok, buf,
						   (int)len + 1));
}

static int head_string(void *ud, const unsigned char *s, size_t len)
{
	struct head *h = ud;

	if (h->kinds[h->nk - 1] != H_NODE || h->key != 2)
		return head_value(h, NULL);
	return head_value(h, json_object_new_string_len((const char *)s,
							(int)len));
}

static int head_start_array(void *ud)
{
	struct head *h = ud;

	if (h->nk && h->kinds[h->nk - 1] == H_CHILDREN)
		return head_value(h, NULL);
	if (h->nk && h->kinds[h->nk - 1] == H_NODE && h->key == 1) {
		struct hnode *nd = &h->open[h->no - 1];
		/* json-c and JSON.parse keep the last of a key given twice,
		 * but the first list's nodes are in the model already:
		 * refused rather than read differently */
		if (nd->children) {
			sf_error(h->ctx, SF_EINPUT, h->name, h->line,
				 "head: a node with two \"children\" lists");
			return 0;
		}
		nd->children = true;
		if (!nd->framed && sf_webjson__get(nd->cf, "functionName") &&
		    !head_frame(h, nd))
			return 0;
		return head_push(h, H_CHILDREN);
	}
	return head_push(h, H_OTHER);
}

static int head_end_array(void *ud)
{
	struct head *h = ud;

	h->nk--;
	return 1;
}

static int head_end_map(void *ud)
{
	struct head *h = ud;
	struct hnode *nd;
	int64_t id;
	uint32_t at;

	if (h->kinds[--h->nk] != H_NODE)
		return 1;
	nd = &h->open[h->no - 1];
	if (!sf_webjson__int(sf_webjson__get(nd->cf, "id"), &id)) {
		sf_error(h->ctx, SF_EINPUT, h->name, nd->line,
			 "head: every node needs an integer \"id\"");
		return 0;
	}
	if ((!nd->framed || nd->late) && !head_frame(h, nd))
		return 0;
	if (sf_cpuprof__add_framed(h->t, h->ctx, id, INT64_MIN, nd->frame,
				   h->name, nd->line, &at))
		return 0;
	for (size_t i = nd->pend; i < h->np; i++)
		h->t->nodes[h->pend[i]].parent = id;
	h->np = nd->pend;
	json_object_put(nd->cf);
	h->no--;
	/* the parent sets ours when it ends and knows its id */
	if (h->no) {
		if (sf_grow(&h->pend, &h->capp, h->np + 1, sizeof(*h->pend))) {
			sf_error_nomem(h->ctx);
			return 0;
		}
		h->pend[h->np++] = at;
	}
	h->key = 0;
	return 1;
}

static const yajl_callbacks head_events = {
	.yajl_null = head_null,
	.yajl_boolean = head_bool,
	.yajl_number = head_number,
	.yajl_string = head_string,
	.yajl_start_map = head_start_map,
	.yajl_map_key = head_key,
	.yajl_end_map = head_end_map,
	.yajl_start_array = head_start_array,
	.yajl_end_array = head_end_array,
};

static void head_free(struct head *h)
{
	for (size_t i = 0; i < h->no; i++)
		json_object_put(h->open[i].cf);
	free(h->open);
	free(h->kinds);
	free(h->pend);
	if (h->tok)
		json_tokener_free(h->tok);
}

/* The node table and the per-sample arrays, parsed element by element:
 * a node goes into the node table as it arrives, the numbers into
 * compact arrays (a json-c number costs ~50 bytes, a node about 2 KB, and
 * a long profile has millions of one and hundreds of thousands of the
 * other).  Node ids are int32 (4 bytes where the file spends about 5)
 * until one is not, then doubles like the rest. */
struct bulk {
	struct sf_ctx *ctx;
	const char *name;
	struct sf_profile *p;
	struct sf_cpuprof *t;
	double *v[3];          /* samples (when wide), timeDeltas, timestamps */
	size_t n[3], cap[3];
	int32_t *ids;          /* samples while !wide */
	bool wide;
	/* nodes with a hitCount, in file order: the samples when there is
	 * no sample list */
	struct hits { int64_t id, hits; } *hits;
	size_t nhits, caphits;
	struct sf_webjson_runs lines;   /* of the samples */
};

static const char *const bulk_keys[] = { "nodes", "samples", "timeDeltas",
					 "timestamps", NULL };
/* what the reader reads from the tree; others are checked and dropped */
static const char *const root_keys[] = { "nodes", "samples", "timeDeltas",
					 "timestamps", "head", "startTime",
					 "endTime", NULL };

static int node_cb(struct bulk *b, size_t n, struct json_object *e,
		   uint64_t line)
{
	int64_t hits;
	int rc;

	if ((rc = sf_cpuprof__add_node_obj(b->t, b->p, b->ctx, e, n, b->name,
					   line)))
		return rc;
	if (!sf_webjson__int(sf_webjson__get(e, "hitCount"), &hits) ||
	    hits <= 0)
		return 0;
	if (sf_grow(&b->hits, &b->caphits, b->nhits + 1, sizeof(*b->hits)))
		return sf_error_nomem(b->ctx);
	/* add_node_obj checked the id */
	sf_webjson__int(sf_webjson__get(e, "id"), &b->hits[b->nhits].id);
	b->hits[b->nhits++].hits = hits;
	return 0;
}

static int bulk_cb(void *ud, size_t index, const char *key, size_t n,
		   struct json_object *e, uint64_t line)
{
	struct bulk *b = ud;
	int k = key[0] == 's' ? 0 : key[1] == 'i' && key[4] == 'D' ? 1 : 2;
	double d;

	if (key[0] == 'n')
		return node_cb(b, n, e, line);
	if (k == 0 && sf_webjson__runs_note(&b->lines, b->ctx, b->n[0], line))
		return SF_ENOMEM;
	if (!sf_webjson__num(e, &d))
		return sf_error(b->ctx, SF_EINPUT, b->name, line,
				"%s[%zu]: expected a number", key, n);
	if (k == 0 && !b->wide) {
		if (d >= INT32_MIN && d <= INT32_MAX &&
		    d == (double)(int32_t)d) {
			if (sf_grow(&b->ids, &b->cap[0],
				      b->n[0] + 1, sizeof(*b->ids)))
				return sf_error_nomem(b->ctx);
			b->ids[b->n[0]++] = (int32_t)d;
			return 0;
		}
		/* the first id that is not an int32: all become doubles */
		b->cap[0] = 0;
		if (sf_grow(&b->v[0], &b->cap[0], b->n[0] + 1,
			      sizeof(double)))
			return sf_error_nomem(b->ctx);
		for (size_t i = 0; i < b->n[0]; i++)
			b->v[0][i] = b->ids[i];
		free(b->ids);
		b->ids = NULL;
		b->wide = true;
	}
	if (sf_grow(&b->v[k], &b->cap[k], b->n[k] + 1,
		      sizeof(double)))
		return sf_error_nomem(b->ctx);
	b->v[k][b->n[k]++] = d;
	return 0;
}

static int cpuprofile_read(struct sf_profile *p, struct sf_input *in,
			   struct sf_ctx *ctx)
{
	struct json_object *root = NULL, *nodes;
	struct sf_cpuprof t = { 0 };
	const char *name = sf_input_name(in);
	struct bulk bk = { .ctx = ctx, .name = name, .p = p, .t = &t };
	struct head hd = { .ctx = ctx, .name = name, .p = p, .t = &t,
			   .tok = json_tokener_new() };
	struct sf_webjson_divert dv = { .keys = bulk_keys, .element = bulk_cb,
					.ud = &bk, .root_keys = root_keys,
					.events_key = "head",
					.events = &head_events,
					.events_ud = &hd,
					.events_line = &hd.line };
	uint32_t tc, tw = 0;
	double *w = NULL, *ts = NULL;   /* ts: timeDeltas or timestamps */
	double start = NAN, end = NAN;
	uint64_t last = 0;
	int rc;

	if (!hd.tok) {
		rc = sf_error_nomem(ctx);
		goto out;
	}
	if ((rc = sf_webjson__parse_divert(in, ctx, false,
					   "cpuprofile.truncated", &dv,
					   &root, &last)))
		goto out;
	if (!json_object_is_type(root, json_type_object)) {
		rc = sf_error(ctx, SF_EINPUT, name, sf_webjson__line(root),
			      "not a CPU profile: expected a JSON object");
		goto out;
	}
	/* the nodes went into the table as they came: the tree keeps an
	 * empty array where they were */
	nodes = sf_webjson__arr(root, "nodes");
	if (!nodes && !hd.seen) {
		rc = sf_error(ctx, SF_EINPUT, name, last,
			      "not a CPU profile: no \"nodes\" array");
		goto out;
	}

	/* the tree keeps an empty array where a diverted one was */
	bool samples = sf_webjson__arr(root, "samples") != NULL;
	bool deltas = sf_webjson__arr(root, "timeDeltas") != NULL;
	bool stamps = sf_webjson__arr(root, "timestamps") != NULL;
	size_t ns = bk.n[0], nd = bk.n[1], nt = bk.n[2];
	if ((rc = sf_profile_default_type(p, ctx, &tc)) ||
	    (rc = sf_profile_sample_type(p, ctx, "samples", "count", &tc)))
		goto out;
	sf_webjson__num(sf_webjson__get(root, "startTime"), &start);
	sf_webjson__num(sf_webjson__get(root, "endTime"), &end);
	if (samples && (deltas || stamps) &&
	    (rc = sf_profile_sample_type(p, ctx, "wall", "microseconds",
					 &tw)))
		goto out;
	if (!(w = sf_calloc(p->d.ntypes, sizeof(*w)))) {
		rc = sf_error_nomem(ctx);
		goto out;
	}

	if (!samples) {
		/* no sample list: a node's hitCount is its self count */
		for (size_t i = 0; nodes && i < bk.nhits; i++) {
			sf_stack_id s;
			if ((rc = sf_cpuprof__stack(&t, p, ctx, bk.hits[i].id,
						   name, &s)))
				goto out;
			w[tc] = (double)bk.hits[i].hits;
			if ((rc = sf_profile_add_sample(p, ctx, s,
							SF_NO_THREAD, 0,
							SF_NO_TIME, w)))
				goto out;
		}
		goto out;
	}

	bool timed = false;
	if (deltas && nd == ns && isfinite(start))
		timed = true;
	else if (stamps && (nt == ns || nt == ns + 1))
		timed = true;   /* Node 10 writes one more: the end */
	else if (deltas || stamps)
		sf_warn(ctx, "cpuprofile.time", "%s: timeDeltas does not match "
			"samples; times dropped", name);
	if (timed) {
		double cur = isfinite(start) ? start : 0;
		bool use_deltas = deltas && nd == ns && isfinite(start);
		/* the times replace the deltas in place: no third array */
		ts = use_deltas ? bk.v[1] : bk.v[2];
		for (size_t i = 0; use_deltas && i < ns; i++) {
			cur += bk.v[1][i];
			ts[i] = cur;
		}
		/* the legacy format's startTime/endTime are seconds */
		if (!use_deltas) {
			start = ns ? ts[0] : start;
			end = nt == ns + 1 ? bk.v[2][ns] :
			      ns ? ts[ns - 1] : NAN;
		}
		if (isfinite(start) && isfinite(end) && end >= start)
			p->d.meta.duration = (int64_t)llround(
				(end - start) * 1000);
	}
	for (size_t i = 0; i < ns; i++) {
		double idd = bk.wide ? bk.v[0][i] : bk.ids[i];
		sf_stack_id s;
		if ((i & 0xffff) == 0 && sf_interrupted(ctx)) {
			rc = sf_error(ctx, SF_EINTR, NULL, 0, "interrupted");
			goto out;
		}
		if (idd != floor(idd) || fabs(idd) > 9e15) {
			rc = sf_error(ctx, SF_EINPUT, name,
				      sf_webjson__runs_line(&bk.lines, i),
				      "samples[%zu]: expected a node id", i);
			goto out;
		}
		if ((rc = sf_cpuprof__stack(&t, p, ctx, (int64_t)idd, name,
					   &s))) {
			/* a node's own fault names its line already */
			sf_error_place(ctx, name, sf_webjson__runs_line(&bk.lines, i));
			goto out;
		}
		memset(w, 0, p->d.ntypes * sizeof(*w));
		w[tc] = 1;
		int64_t time = SF_NO_TIME;
		if (timed) {
			double next = i + 1 < ns ? ts[i + 1] :
				      (isfinite(end) ? end : ts[i]);
			w[tw] = next > ts[i] ? next - ts[i] : 0;
			time = (int64_t)llround(ts[i] * 1000);
		}
		if ((rc = sf_profile_add_sample(p, ctx, s, SF_NO_THREAD, 0,
						time, w)))
			goto out;
	}
out:
	if (rc)
		sf_error_place(ctx, name, last);
	for (int k = 0; k < 3; k++)
		free(bk.v[k]);
	free(bk.ids);
	free(bk.hits);
	free(bk.lines.v);
	free(w);
	sf_cpuprof__free(&t);
	head_free(&hd);
	json_object_put(root);
	return rc;
}

/* ----- writing ----- */

struct line {
	const struct sf_profile *p;
	const size_t *order;
	size_t lo, hi;
	uint32_t t;
	double unit_us, period_us;
	int64_t t0, end;
	const struct sf_records *plan;   /* with counts: how many */
};

/* How many V8 samples sample i becomes when the weights are counts. */
static uint64_t reps_of(const struct sf_profile *p, size_t i,
			const struct sf_records *plan)
{
	double x = sf_records_of(p, plan, i);

	return (uint64_t)llround(x > 0 ? x : 0);
}

/* mode 0: compute ln->t0 and ln->end; 1: write node ids; 2: write deltas */
static void timeline(struct line *ln, struct sf_output *out, int mode)
{
	const struct sf_profile *p = ln->p;
	int64_t cursor = ln->t0, prev = ln->t0;
	bool any = false, started = mode != 0;
	double carry = 0;

	for (size_t k = ln->lo; k < ln->hi; k++) {
		const struct sf_sample *sm = &p->d.samples[ln->order[k]];
		double wt = sf_weight(p, ln->order[k], ln->t);
		uint64_t reps = ln->unit_us ? 1 :
			reps_of(p, ln->order[k], ln->plan);
		double dur = ln->unit_us ? wt * ln->unit_us : ln->period_us;
		if (sm->time != SF_NO_TIME) {
			/* a timestamp places the sample, overriding the
			 * previous sample's nominal length (never going
			 * backwards) */
			int64_t at = (int64_t)floor(sm->time / 1000.0);
			if (!started) {
				ln->t0 = prev = at;
				started = true;
			}
			cursor = at > prev ? at : prev;
			carry = 0;
		}
		started = true;
		for (uint64_t r = 0; r < reps; r++) {
			if (mode == 1) {
				sf_output_puts(out, any ? "," : "");
				sf_output_u64(out, sm->stack + 1);
			} else if (mode == 2) {
				sf_output_puts(out, any ? "," : "");
				sf_output_i64(out, cursor - prev);
			}
			any = true;
			prev = cursor;
			/* whole microseconds; the fraction carries over so
			 * long runs of short samples do not drift */
			carry += dur;
			int64_t step = (int64_t)floor(carry);
			carry -= (double)step;
			cursor += step;
		}
	}
	if (mode == 0)
		ln->end = cursor;
}

static int cpuprofile_write(const struct sf_profile *p, struct sf_output *out,
			    struct sf_ctx *ctx)
{
	size_t *order = NULL, *start = NULL, ng = 0, best = 0;
	sf_thread_idx *threads = NULL;
	uint32_t *hits = NULL, *first = NULL, *next = NULL;
	uint32_t t = p->d.meta.default_type;
	const char *want = sf_ctx_opt(ctx, "cpuprofile-thread");
	int rc;

	if (!p->d.ntypes || t >= p->d.ntypes)
		t = 0;
	if ((rc = sf_webjson__by_thread(p, ctx, &order, &start, &threads,
					&ng)))
		return rc;
	/* the thread to write */
	if (want) {
		best = ng;
		for (size_t g = 0; g < ng; g++)
			if (sf_webjson__thread_match(p, threads[g], want)) {
				best = g;
				break;
			}
		if (best == ng) {
			rc = sf_error(ctx, SF_EUSAGE, NULL, 0,
				      "--cpuprofile-thread: no thread named "
				      "'%s' has samples", want);
			goto out;
		}
	} else {
		double bw = -1;
		for (size_t g = 0; g < ng; g++) {
			double sum = 0;
			for (size_t k = start[g]; k < start[g + 1]; k++)
				sum += sf_weight(p, order[k], t);
			if (sum > bw) {
				bw = sum;
				best = g;
			}
		}
	}
	if (ng > 1)
		sf_warn(ctx, "cpuprofile.threads", "a .cpuprofile holds one "
			"thread: wrote 1 of %zu threads (choose with "
			"--cpuprofile-thread)", ng);

	/* how long one sample lasts, and how many V8 samples it becomes */
	const char *unit = p->d.ntypes ? p->d.types[t].unit : NULL;
	double unit_us = sf_webjson__unit_us(unit);
	double period_us = p->d.meta.period_type.unit ?
		sf_webjson__unit_us(p->d.meta.period_type.unit) *
		p->d.meta.period : 0;
	if (!(period_us > 0))
		period_us = 1000;
	size_t lo = ng ? start[best] : 0, hi = ng ? start[best + 1] : 0;
	uint64_t total = 0;
	struct sf_records plan = { t, 1, false };
	/* counts are repeated: refused, as by the Sampler writer, when they
	 * are not sample counts and no --period scales them */
	if (!unit_us &&
	    (rc = sf_records_plan(p, ctx, "V8 samples", &plan)))
		goto out;
	/* timeDeltas are whole microseconds in 64-bit integers: the span the
	 * samples cover must fit, with room for the largest timestamp */
	double span = 0;
	for (size_t k = lo; k < hi; k++) {
		double wt = sf_records_of(p, &plan, order[k]);
		if (!unit_us && wt != floor(wt))
			sf_warn(ctx, "cpuprofile.fraction", "fractional "
				"count %g rounded", wt);
		uint64_t reps = unit_us ? 1 : reps_of(p, order[k], &plan);
		total += reps;
		span += unit_us ? fabs(sf_weight(p, order[k], t) * unit_us) :
			(double)reps * period_us;
	}
	if (!(span < 0x1p61)) {
		rc = sf_error(ctx, SF_ELIMIT, NULL, 0, "the samples would "
			      "last %g microseconds, more than a .cpuprofile's "
			      "64-bit time deltas hold", span);
		goto out;
	}
	if (total > (1u << 28)) {
		rc = sf_error(ctx, SF_ELIMIT, NULL, 0, "the profile would "
			      "need %llu V8 samples; a .cpuprofile repeats a "
			      "sample once per count", (unsigned long long)total);
		goto out;
	}

	/* nodes used by the chosen samples, with their ancestors */
	size_t nst = p->d.nstacks;
	if (!(hits = sf_calloc(nst, sizeof(*hits))) ||
	    !(first = sf_calloc(nst, sizeof(*first))) ||
	    !(next = sf_calloc(nst, sizeof(*next)))) {
		rc = sf_error_nomem(ctx);
		goto out;
	}
	uint8_t *mark = sf_calloc(nst, 1);
	if (!mark) {
		rc = sf_error_nomem(ctx);
		goto out;
	}
	for (size_t k = lo; k < hi; k++) {
		sf_stack_id s = p->d.samples[order[k]].stack;
		hits[s] += unit_us ? 1 : (uint32_t)reps_of(p, order[k], &plan);
		for (; s && !mark[s]; s = p->d.stacks[s].parent)
			mark[s] = 1;
	}
	mark[0] = 1;
	/* child lists: first[parent] = first child + 1, next[c] = next
	 * sibling + 1; built backwards so children come out in id order */
	for (size_t s = nst; s-- > 1;) {
		if (!mark[s])
			continue;
		sf_stack_id par = p->d.stacks[s].parent;
		next[s] = first[par];
		first[par] = (uint32_t)s + 1;
	}

	sf_output_puts(out, "{\"nodes\":[");
	for (size_t s = 0; s < nst; s++) {
		if (!mark[s])
			continue;
		const struct sf_frame *f = s ? &p->d.frames[
			p->d.stacks[s].frame] : NULL;
		sf_output_puts(out, s ? ",\n{\"id\":" : "\n{\"id\":");
		sf_output_u64(out, s + 1);
		sf_output_puts(out, ",\"callFrame\":{\"functionName\":");
		sf_webjson__put_str(out, f ? f->name : "(root)");
		sf_output_puts(out, ",\"scriptId\":\"0\",\"url\":");
		sf_webjson__put_str(out, f && f->file ? f->file : "");
		sf_output_puts(out, ",\"lineNumber\":");
		sf_output_i64(out, f && f->line ? (int64_t)f->line - 1 : -1);
		sf_output_puts(out, ",\"columnNumber\":");
		sf_output_i64(out, f && f->column ? (int64_t)f->column - 1 :
			      -1);
		sf_output_puts(out, "},\"hitCount\":");
		sf_output_u64(out, hits[s]);
		if (first[s]) {
			sf_output_puts(out, ",\"children\":[");
			for (uint32_t c = first[s]; c; c = next[c - 1]) {
				if (c != first[s])
					sf_output_putc(out, ',');
				sf_output_u64(out, c);
			}
			sf_output_putc(out, ']');
		}
		sf_output_putc(out, '}');
	}
	free(mark);

	/* the time line, walked three times: find start and end, write the
	 * samples, write the deltas */
	struct line ln = { p, order, lo, hi, t, unit_us, period_us, 0, 0,
			   &plan };
	timeline(&ln, NULL, 0);
	sf_output_puts(out, "],\n\"startTime\":");
	sf_output_i64(out, ln.t0);
	sf_output_puts(out, ",\"endTime\":");
	sf_output_i64(out, ln.end);
	sf_output_puts(out, ",\n\"samples\":[");
	timeline(&ln, out, 1);
	sf_output_puts(out, "],\n\"timeDeltas\":[");
	timeline(&ln, out, 2);
	sf_output_puts(out, "]}\n");
	rc = 0;
out:
	free(order);
	free(start);
	free(threads);
	free(hits);
	free(first);
	free(next);
	return rc;
}

static const char *const cpuprofile_ext[] = { ".cpuprofile", NULL };

static const struct sf_option cpuprofile_wopts[] = {
	{ "cpuprofile-thread", "NAME",
	  "thread to write to a .cpuprofile (name, tid or name-tid); "
	  "default: the one with the most weight" },
	SF_RECORDS_OPTION,
	{ NULL, NULL, NULL },
};

const struct sf_format sf_format_cpuprofile = {
	.name = "cpuprofile",
	.description = "Chrome/V8/Node.js CPU profile (.cpuprofile)",
	.extensions = cpuprofile_ext,
	.probe = cpuprofile_probe,
	.read = cpuprofile_read,
	.write = cpuprofile_write,
	.caps = SF_CAP_TIME | SF_CAP_ORDER | SF_CAP_LOCATIONS,
	.needs_order = true,
	.priority = 10,
	.write_options = cpuprofile_wopts,
};
