/*
 * fmt_firefox.c - Firefox Profiler profiles (profiler.firefox.com), read
 * only, in both of its forms:
 *
 *   - the gecko format Firefox itself writes: {"meta", "libs",
 *     "threads": [{"name", "pid", "tid", "stringTable": [...],
 *     "samples"/"stackTable"/"frameTable": {"schema": {col: index},
 *     "data": [[...], ...]}}], "processes": [nested gecko profiles]}, also
 *     wrapped as {"profile": {...}} by the old DevTools performance panel;
 *   - the processed format the profiler saves and samply writes:
 *     {"meta": {"preprocessedProfileVersion", ...}, "threads": [{
 *     "stringArray", "samples": {"stack", "time" | "timeDeltas", "weight",
 *     "weightType"}, "stackTable": {"prefix", "frame"}, "frameTable":
 *     {"func", "line", "column", "address", "inlineDepth"}, "funcTable":
 *     {"name", "fileName", "lineNumber", "columnNumber", "resource"},
 *     "resourceTable": {"name"}}]} with the strings per thread or, in newer
 *     versions, in the profile's "shared": {"stringArray"}.
 *
 * Every thread becomes a model thread (pid, tid, name); every sample with a
 * stack a model sample timed in ns since the root meta.startTime.  Weights:
 * weightType "samples" (or none) -> ("samples", "count"), "tracing-ms" ->
 * ("wall", "milliseconds"), "bytes" -> ("space", "bytes").  Gecko frame
 * locations "name (file:line:col)" are split into name, file, line and
 * column.  Samples without a stack are skipped.  Markers, counters and
 * categories are not read.
 */
#include "webjson.h"
#include "strbuf.h"
#include "text.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int firefox_probe(const unsigned char *d, size_t n)
{
	size_t i = sf_probe_skip_space(d, n);

	if (i >= n || d[i] != '{')
		return 0;
	if (sf_webjson__has(d, n, "\"sftools-profile\""))
		return 0;
	if (sf_webjson__has(d, n, "\"meta\"") &&
	    sf_webjson__has(d, n, "\"threads\"") &&
	    (sf_webjson__has(d, n, "\"stackTable\"") ||
	     sf_webjson__has(d, n, "\"interval\"")))
		return 60;
	/* the old DevTools performance panel's recording: {"label",
	 * "duration", "markers", ..., "profile": {gecko profile}} */
	if (sf_webjson__has(d, n, "\"profile\":{") &&
	    sf_webjson__has(d, n, "\"label\"") &&
	    sf_webjson__has(d, n, "\"duration\""))
		return 40;
	return 0;
}

struct rd {
	struct sf_profile *p;
	struct sf_ctx *ctx;
	const char *name;
	double root_start;        /* ms since the epoch */
	struct json_object *shared_strings;
	double *w;
	size_t nw;
	uint64_t tline;           /* line of the thread being read */
};

/*
 * A processed thread's sample columns (samples.stack, .time, .timeDeltas,
 * .weight) in compact form: 12 bytes a sample where json-c needs about
 * 150.  They are filled while the document is parsed (the thread's
 * arrays are diverted, struct sf_webjson_divert) or, for a thread that
 * was not (nested processes, a wrapped profile), from the tree; both go
 * through cols_add, so both give the same model.  A cell keeps exactly
 * what the reader uses of it: a stack is COL_NONE when it is not an
 * integer (the sample is skipped) and any negative index is -1 (out of
 * range all the same); a time is NaN when it is not a number; a weight is
 * what sf_webjson__num leaves in a 1.  A weight column that holds one
 * value throughout is not stored: the usual "weight": [1, 1, ...].
 *
 * The gecko form's samples.data rows cannot be cut down to the cells
 * that matter: the schema that says which they are may come after them.
 * Each row is kept as its JSON text instead (json-c writes numbers back
 * as they were read, so parsing the text again gives the same values),
 * about the size it had in the file, and parsed again when the thread is
 * read.
 */
#define COL_NONE (-2)

enum { C_STACK, C_TIME, C_DELTA, C_WEIGHT, C_ROWS, C_N };

static const char *const col_keys[] = { "stack", "time", "timeDeltas",
					"weight", "data", NULL };

struct cols {
	int32_t *stack;
	double *time, *delta, *weight;
	size_t n[C_N], cap[C_N];
	double wconst;          /* every weight so far, while !weight */
	struct sf_sbuf rows;    /* n[C_ROWS] rows, each text and a NUL */
	struct sf_webjson_runs lines;   /* of the stacks, or of the rows */
};

static void cols_free(struct cols *c)
{
	free(c->stack);
	free(c->time);
	free(c->delta);
	free(c->weight);
	sf_sbuf_free(&c->rows);
	free(c->lines.v);
	memset(c, 0, sizeof(*c));
}

static int col_key(const char *key)
{
	for (int k = 0; k < C_N; k++)
		if (!strcmp(key, col_keys[k]))
			return k;
	return -1;
}

/* Append cell `v` (NULL for a JSON null) to column k. */
static int cols_add(struct cols *c, struct sf_ctx *ctx, int k,
		    struct json_object *v)
{
	size_t i = c->n[k];
	int64_t s;
	double d = 1;

	if (k == C_STACK) {
		if (sf_grow(&c->stack, &c->cap[k], i + 1,
			     sizeof(*c->stack)))
			return sf_error_nomem(ctx);
		/* larger than any stack table that fits in memory */
		c->stack[i] = !sf_webjson__int(v, &s) ? COL_NONE :
			      s < 0 ? -1 : s > INT32_MAX ? INT32_MAX :
			      (int32_t)s;
	} else if (k == C_ROWS) {
		const char *txt = v ? json_object_to_json_string_ext(
					      v, SF_WEBJSON_FLAGS) : "null";
		if (!txt || !sf_sbuf_add(&c->rows, txt, strlen(txt) + 1))
			return sf_error_nomem(ctx);
	} else if (k == C_WEIGHT) {
		sf_webjson__num(v, &d);
		if (!c->weight && (!i || !memcmp(&d, &c->wconst, sizeof(d)))) {
			c->wconst = d;
			c->n[k]++;
			return 0;
		}
		bool was_const = !c->weight;
		if (was_const)
			c->cap[k] = 0;
		if (sf_grow(&c->weight, &c->cap[k],
			     i + 1, sizeof(double)))
			return sf_error_nomem(ctx);
		for (size_t j = 0; was_const && j < i; j++)
			c->weight[j] = c->wconst;
		c->weight[i] = d;
	} else {
		double **a = k == C_TIME ? &c->time : &c->delta;
		if (sf_grow(a, &c->cap[k], i + 1, sizeof(double)))
			return sf_error_nomem(ctx);
		(*a)[i] = sf_webjson__num(v, &d) ? d : NAN;
	}
	c->n[k]++;
	return 0;
}

static int read_profile(struct rd *r, struct json_object *prof, int depth);

/* What is wrong with threads[thread], on `line` or else the thread's. */
static int bad_line(struct rd *r, size_t thread, uint64_t line,
		    const char *what)
{
	return sf_error(r->ctx, SF_EINPUT, r->name, line ? line : r->tline,
			"threads[%zu]: %s", thread, what);
}

/* The same at the line of `at` (a table, a column or a row). */
static int bad(struct rd *r, size_t thread, struct json_object *at,
	       const char *what)
{
	return bad_line(r, thread, sf_webjson__line(at), what);
}

/* The line of sample i of a thread: where the parser met it, or else
 * where its column (or rows) start. */
static uint64_t sample_line(const struct cols *c, size_t i,
			    struct json_object *col)
{
	uint64_t l = sf_webjson__runs_line(&c->lines, i);

	return l ? l : sf_webjson__line(col);
}

/* Cell i of a column (NULL cell or absent column: false). */
static bool cell_int(struct json_object *col, size_t i, int64_t *out)
{
	if (!col || i >= json_object_array_length(col))
		return false;
	return sf_webjson__int(json_object_array_get_idx(col, i), out);
}

static bool cell_num(struct json_object *col, size_t i, double *out)
{
	if (!col || i >= json_object_array_length(col))
		return false;
	return sf_webjson__num(json_object_array_get_idx(col, i), out);
}

static const char *string_at(struct json_object *strings, int64_t i)
{
	struct json_object *v;

	if (!strings || i < 0 ||
	    (size_t)i >= json_object_array_length(strings))
		return NULL;
	v = json_object_array_get_idx(strings, (size_t)i);
	return v && json_object_is_type(v, json_type_string) ?
		       json_object_get_string(v) : NULL;
}

static int sample_type(struct rd *r, const char *wt, uint32_t *out)
{
	if (wt && !strcmp(wt, "tracing-ms"))
		return sf_profile_sample_type(r->p, r->ctx, "wall",
					      "milliseconds", out);
	if (wt && !strcmp(wt, "bytes"))
		return sf_profile_sample_type(r->p, r->ctx, "space", "bytes",
					      out);
	return sf_profile_sample_type(r->p, r->ctx, "samples", "count", out);
}

static int add(struct rd *r, sf_stack_id s, sf_thread_idx th, uint32_t t,
	       double wt, int64_t time)
{
	if (r->nw < r->p->d.ntypes) {
		double *q = sf_reallocarray(r->w, r->p->d.ntypes, sizeof(*q));
		if (!q)
			return sf_error_nomem(r->ctx);
		r->w = q;
		r->nw = r->p->d.ntypes;
	}
	memset(r->w, 0, r->p->d.ntypes * sizeof(*r->w));
	r->w[t] = wt;
	return sf_profile_add_sample(r->p, r->ctx, s, th, 0, time, r->w);
}

/* "name (file:line:col)" -> parts; anything else is a name. */
static void split_location(struct sf_frame *f, const char *loc, char *buf,
			   size_t size)
{
	size_t n = strlen(loc);
	const char *open;

	f->name = loc;
	if (n < 4 || loc[n - 1] != ')' || n >= size)
		return;
	memcpy(buf, loc, n + 1);
	buf[n - 1] = 0;
	open = NULL;
	for (const char *s = buf; (s = strstr(s, " (")); s++)
		open = s;
	if (!open || open == buf)
		return;
	char *inner = (char *)open + 2;
	uint32_t nums[2];
	int k = 0;
	char *end = inner + strlen(inner);
	while (k < 2) {
		char *c = end;
		while (c > inner && c[-1] >= '0' && c[-1] <= '9')
			c--;
		if (c == end || c == inner || c[-1] != ':' ||
		    end - c > 9)
			break;
		nums[k++] = (uint32_t)strtoul(c, NULL, 10);
		end = c - 1;
		*end = 0;
	}
	if (!k)
		return;
	*(char *)open = 0;
	f->name = buf;
	f->file = inner;
	/* "file -> file" is a loader chain: the last file is the source */
	const char *arrow = strstr(inner, " -> ");
	while (arrow) {
		f->file = arrow + 4;
		arrow = strstr(f->file, " -> ");
	}
	if (k == 2) {
		f->line = nums[1];
		f->column = nums[0];
	} else {
		f->line = nums[0];
	}
}

/* Cell i of a gecko table row (NULL when the row is not an array: json-c
 * would abort). */
static struct json_object *row_cell(struct json_object *row, size_t i)
{
	return json_object_is_type(row, json_type_array) ?
		       json_object_array_get_idx(row, i) : NULL;
}

/* Stack table rows -> model stacks; prefixes must point backwards. */
static int build_stacks(struct rd *r, size_t ti, size_t n,
			struct json_object *prefix_col,
			struct json_object *frame_col,
			struct json_object *rows, int pcol, int fcol,
			const sf_frame_id *frames, size_t nframes,
			sf_stack_id **out)
{
	sf_stack_id *st = sf_calloc(n ? n : 1, sizeof(*st));
	int rc;

	if (!st)
		return sf_error_nomem(r->ctx);
	for (size_t i = 0; i < n; i++) {
		int64_t pre = -1, fr = -1;
		if (rows) {
			struct json_object *row =
				json_object_array_get_idx(rows, i);
			struct json_object *pv = row_cell(
				row, (size_t)pcol);
			if (!sf_webjson__int(pv, &pre))
				pre = -1;
			sf_webjson__int(row_cell(
						row, (size_t)fcol), &fr);
		} else {
			if (!cell_int(prefix_col, i, &pre))
				pre = -1;
			cell_int(frame_col, i, &fr);
		}
		if (fr < 0 || (size_t)fr >= nframes || pre >= (int64_t)i) {
			free(st);
			return bad(r, ti, rows ? json_object_array_get_idx(
					  rows, i) : frame_col,
				   "stackTable: a row's frame is out of "
				       "range or its prefix does not come "
				       "before it");
		}
		if ((rc = sf_profile_stack_push(r->p, r->ctx,
						pre < 0 ? SF_STACK_EMPTY :
							  st[pre],
						frames[fr], &st[i]))) {
			free(st);
			return rc;
		}
	}
	*out = st;
	return 0;
}

static int schema_col(struct json_object *table, const char *k)
{
	int64_t c;

	if (!sf_webjson__int(sf_webjson__get(sf_webjson__get(table, "schema"),
					     k), &c) || c < 0 || c > 1000)
		return -1;
	return (int)c;
}

static int thread_of(struct rd *r, struct json_object *th,
		     sf_thread_idx *out)
{
	int64_t pid = SF_NO_ID, tid = SF_NO_ID;

	if (!sf_webjson__int(sf_webjson__get(th, "pid"), &pid))
		pid = SF_NO_ID;
	if (!sf_webjson__int(sf_webjson__get(th, "tid"), &tid))
		tid = SF_NO_ID;
	return sf_profile_thread(r->p, r->ctx, pid, tid,
				 sf_webjson__str(th, "name"), out);
}

/* The columns of a thread that was not diverted, from the tree: k from
 * `from` to before `to`. */
static int cols_from_tree(struct cols *c, struct sf_ctx *ctx,
			  struct json_object *sm, int from, int to)
{
	int rc;

	for (int k = from; k < to; k++) {
		struct json_object *a = sf_webjson__arr(sm, col_keys[k]);
		size_t n = a ? json_object_array_length(a) : 0;
		if (c->n[k])
			continue;   /* diverted */
		for (size_t i = 0; i < n; i++)
			if ((rc = cols_add(c, ctx, k,
					   json_object_array_get_idx(a, i))))
				return rc;
	}
	return 0;
}

static int gecko_thread(struct rd *r, struct json_object *th, size_t ti,
			double start, struct cols *cols)
{
	struct json_object *strings = sf_webjson__arr(th, "stringTable");
	struct json_object *ft = sf_webjson__get(th, "frameTable");
	struct json_object *stt = sf_webjson__get(th, "stackTable");
	struct json_object *sm = sf_webjson__get(th, "samples");
	struct json_object *frows = sf_webjson__arr(ft, "data");
	struct json_object *srows = sf_webjson__arr(stt, "data");
	struct json_object *mrows = sf_webjson__arr(sm, "data");
	int loc = schema_col(ft, "location"), line = schema_col(ft, "line");
	int col = schema_col(ft, "column");
	int pc = schema_col(stt, "prefix"), fc = schema_col(stt, "frame");
	int sc = schema_col(sm, "stack"), tc = schema_col(sm, "time");
	int wc = schema_col(sm, "weight");
	sf_frame_id *frames = NULL;
	sf_stack_id *stacks = NULL;
	struct json_tokener *tok = NULL;
	struct json_object *srow = NULL;  /* the sample row being read */
	sf_thread_idx thr;
	uint32_t type;
	int rc;
	char buf[4096];

	if (!strings || !frows || !srows || !mrows || loc < 0 || pc < 0 ||
	    fc < 0 || sc < 0)
		return bad(r, ti, th, "expected stringTable and frameTable, "
			       "stackTable and samples with schema and data");
	if ((rc = thread_of(r, th, &thr)) ||
	    (rc = sample_type(r, sf_webjson__str(sm, "weightType"), &type)))
		return rc;
	size_t nf = json_object_array_length(frows);
	if (!(frames = sf_calloc(nf ? nf : 1, sizeof(*frames))))
		return sf_error_nomem(r->ctx);
	for (size_t i = 0; i < nf; i++) {
		struct json_object *row = json_object_array_get_idx(frows, i);
		struct sf_frame f;
		int64_t x;
		const char *s;
		sf_frame_init(&f);
		if (!sf_webjson__int(row_cell(
					     row, (size_t)loc), &x) ||
		    !(s = string_at(strings, x))) {
			rc = bad(r, ti, row, "frameTable: location is not a "
				        "string index");
			goto out;
		}
		split_location(&f, s, buf, sizeof(buf));
		if (line >= 0 && sf_webjson__int(row_cell(
				 row, (size_t)line), &x) && x > 0 &&
		    x <= UINT32_MAX)
			f.line = (uint32_t)x;
		if (col >= 0 && sf_webjson__int(row_cell(
				 row, (size_t)col), &x) && x > 0 &&
		    x <= UINT32_MAX)
			f.column = (uint32_t)x;
		if ((rc = sf_profile_frame(r->p, r->ctx, &f, &frames[i])))
			goto out;
	}
	if ((rc = build_stacks(r, ti, json_object_array_length(srows), NULL,
			       NULL, srows, pc, fc, frames, nf, &stacks)))
		goto out;
	size_t nst = json_object_array_length(srows);
	if ((rc = cols_from_tree(cols, r->ctx, sm, C_ROWS, C_ROWS + 1)))
		goto out;
	size_t ns = cols->n[C_ROWS];
	const char *text = cols->rows.s;
	int depth = (int)(r->ctx->limits.max_nesting > 1000 ?
			  1000 : r->ctx->limits.max_nesting);
	if (ns && !(tok = json_tokener_new_ex(depth))) {
		rc = sf_error_nomem(r->ctx);
		goto out;
	}
	for (size_t i = 0; i < ns; i++) {
		size_t len = strlen(text);
		int64_t s;
		double t = 0, wt = 1;
		json_object_put(srow);
		json_tokener_reset(tok);
		/* with its NUL, so that a bare number ends */
		srow = json_tokener_parse_ex(tok, text, (int)len + 1);
		text += len + 1;
		if (!sf_webjson__int(row_cell(srow,
							       (size_t)sc),
				     &s))
			continue;   /* a sample without a stack */
		if (s < 0 || (uint64_t)s >= nst) {
			rc = bad_line(r, ti, sample_line(cols, i, mrows),
				      "samples: stack index out of range");
			goto out;
		}
		bool timed = tc >= 0 && sf_webjson__num(
			row_cell(srow, (size_t)tc), &t);
		if (wc >= 0)
			sf_webjson__num(row_cell(srow,
								  (size_t)wc),
					&wt);
		if ((rc = add(r, stacks[s], thr, type, wt,
			      timed ? (int64_t)llround((start + t -
							r->root_start) * 1e6) :
				      SF_NO_TIME)))
			goto out;
	}
out:
	json_object_put(srow);
	if (tok)
		json_tokener_free(tok);
	free(frames);
	free(stacks);
	return rc;
}

static int processed_thread(struct rd *r, struct json_object *th, size_t ti,
			    double start, struct cols *cols)
{
	struct json_object *strings = sf_webjson__arr(th, "stringArray");
	struct json_object *ft = sf_webjson__get(th, "frameTable");
	struct json_object *fu = sf_webjson__get(th, "funcTable");
	struct json_object *rt = sf_webjson__get(th, "resourceTable");
	struct json_object *stt = sf_webjson__get(th, "stackTable");
	struct json_object *sm = sf_webjson__get(th, "samples");
	struct json_object *f_func = sf_webjson__arr(ft, "func");
	struct json_object *f_line = sf_webjson__arr(ft, "line");
	struct json_object *f_col = sf_webjson__arr(ft, "column");
	struct json_object *f_addr = sf_webjson__arr(ft, "address");
	struct json_object *f_inl = sf_webjson__arr(ft, "inlineDepth");
	struct json_object *u_name = sf_webjson__arr(fu, "name");
	struct json_object *u_file = sf_webjson__arr(fu, "fileName");
	struct json_object *u_line = sf_webjson__arr(fu, "lineNumber");
	struct json_object *u_col = sf_webjson__arr(fu, "columnNumber");
	struct json_object *u_res = sf_webjson__arr(fu, "resource");
	struct json_object *r_name = sf_webjson__arr(rt, "name");
	struct json_object *s_stack = sf_webjson__arr(sm, "stack");
	sf_frame_id *frames = NULL;
	sf_stack_id *stacks = NULL;
	sf_thread_idx thr;
	uint32_t type;
	int rc;

	if (!strings)
		strings = sf_webjson__arr(th, "stringTable");
	if (!strings)
		strings = r->shared_strings;
	if (!strings || !f_func || !u_name || !s_stack ||
	    !sf_webjson__arr(stt, "frame"))
		return bad(r, ti, th, "expected a processed-format thread "
			       "(stringArray, frameTable.func, funcTable.name, "
			       "stackTable.frame, samples.stack)");
	if ((rc = thread_of(r, th, &thr)) ||
	    (rc = sample_type(r, sf_webjson__str(sm, "weightType"), &type)))
		return rc;
	size_t nf = json_object_array_length(f_func);
	if (!(frames = sf_calloc(nf ? nf : 1, sizeof(*frames))))
		return sf_error_nomem(r->ctx);
	for (size_t i = 0; i < nf; i++) {
		struct sf_frame f;
		int64_t fn, x;
		double a;
		sf_frame_init(&f);
		if (!cell_int(f_func, i, &fn) || fn < 0 ||
		    !(f.name = string_at(strings, cell_int(u_name, (size_t)fn,
							   &x) ? x : -1))) {
			rc = bad(r, ti, f_func, "frameTable.func: not a function "
				        "with a name");
			goto out;
		}
		if (cell_int(u_file, (size_t)fn, &x))
			f.file = string_at(strings, x);
		if (cell_int(f_line, i, &x) && x > 0 && x <= UINT32_MAX)
			f.line = (uint32_t)x;
		else if (cell_int(u_line, (size_t)fn, &x) && x > 0 &&
			 x <= UINT32_MAX)
			f.line = (uint32_t)x;
		if (cell_int(f_col, i, &x) && x > 0 && x <= UINT32_MAX)
			f.column = (uint32_t)x;
		else if (cell_int(u_col, (size_t)fn, &x) && x > 0 &&
			 x <= UINT32_MAX)
			f.column = (uint32_t)x;
		if (cell_int(u_res, (size_t)fn, &x) && x >= 0 &&
		    cell_int(r_name, (size_t)x, &x))
			f.module = string_at(strings, x);
		if (cell_num(f_addr, i, &a) && a >= 0 && a < 1.8e19)
			f.address = (uint64_t)a;
		if (cell_int(f_inl, i, &x) && x > 0)
			f.flags |= SF_FRAME_INLINE;
		if ((rc = sf_profile_frame(r->p, r->ctx, &f, &frames[i])))
			goto out;
	}
	size_t nst = json_object_array_length(sf_webjson__arr(stt, "frame"));
	if ((rc = build_stacks(r, ti, nst, sf_webjson__arr(stt, "prefix"),
			       sf_webjson__arr(stt, "frame"), NULL, 0, 0,
			       frames, nf, &stacks)))
		goto out;
	if ((rc = cols_from_tree(cols, r->ctx, sm, 0, C_ROWS)))
		goto out;
	size_t ns = cols->n[C_STACK];
	double t = 0;
	for (size_t i = 0; i < ns; i++) {
		int32_t s = cols->stack[i];
		double wt = 1;
		bool timed = false;
		if (i < cols->n[C_DELTA] && !isnan(cols->delta[i])) {
			t += cols->delta[i];
			timed = true;
		} else if (i < cols->n[C_TIME] && !isnan(cols->time[i])) {
			t = cols->time[i];
			timed = true;
		}
		if (s == COL_NONE)
			continue;   /* a sample without a stack */
		if (s < 0 || (uint64_t)s >= nst) {
			rc = bad_line(r, ti, sample_line(cols, i, s_stack),
				      "samples.stack: index out of range");
			goto out;
		}
		if (i < cols->n[C_WEIGHT])
			wt = cols->weight ? cols->weight[i] : cols->wconst;
		if ((rc = add(r, stacks[s], thr, type, wt,
			      timed ? (int64_t)llround((start + t -
							r->root_start) * 1e6) :
				      SF_NO_TIME)))
			goto out;
	}
out:
	free(frames);
	free(stacks);
	return rc;
}

/* One thread: a gecko or processed thread object, or (gecko version <= 5)
 * a child process's whole profile embedded as a JSON string. */
static int one_thread(struct rd *r, struct json_object *th, size_t i,
		      double start, int depth, struct cols *cols)
{
	int rc;

	if (sf_interrupted(r->ctx))
		return sf_error(r->ctx, SF_EINTR, NULL, 0, "interrupted");
	/* 0 for a thread embedded as a string: the caller names the
	 * string's line */
	r->tline = sf_webjson__line(th);
	if (th && json_object_is_type(th, json_type_string)) {
		struct json_tokener *tok = json_tokener_new_ex(
			(int)(r->ctx->limits.max_nesting > 1000 ?
			      1000 : r->ctx->limits.max_nesting));
		struct json_object *sub;
		if (!tok)
			return sf_error_nomem(r->ctx);
		sub = json_tokener_parse_ex(tok, json_object_get_string(th),
					    json_object_get_string_len(th));
		json_tokener_free(tok);
		if (!sub)
			return bad(r, i, NULL, "the embedded child process profile "
				       "is not valid JSON");
		rc = read_profile(r, sub, depth + 1);
		json_object_put(sub);
		return rc;
	}
	if (sf_webjson__get(sf_webjson__get(th, "stackTable"), "schema"))
		return gecko_thread(r, th, i, start, cols);
	return processed_thread(r, th, i, start, cols);
}

/* One (sub)profile: its threads, then its nested processes. */
static int read_profile(struct rd *r, struct json_object *prof, int depth)
{
	struct json_object *threads = sf_webjson__arr(prof, "threads");
	struct json_object *procs = sf_webjson__arr(prof, "processes");
	double start = r->root_start;
	int rc;

	if (!threads)
		return sf_error(r->ctx, SF_EINPUT, r->name,
				sf_webjson__line(prof),
				"not a Firefox profile: no \"threads\" "
				"array");
	if (depth > 64)
		return sf_error(r->ctx, SF_ELIMIT, r->name,
				sf_webjson__line(prof),
				"processes nested too deeply");
	sf_webjson__num(sf_webjson__get(sf_webjson__get(prof, "meta"),
					"startTime"), &start);
	for (size_t i = 0; i < json_object_array_length(threads); i++) {
		struct cols c = { 0 };
		rc = one_thread(r, json_object_array_get_idx(threads, i), i,
				start, depth, &c);
		cols_free(&c);
		if (rc)
			return rc;
	}
	for (size_t i = 0; procs && i < json_object_array_length(procs); i++)
		if ((rc = read_profile(r, json_object_array_get_idx(procs, i),
				       depth + 1)))
			return rc;
	return 0;
}

/*
 * The root profile's threads, met one by one while the document is parsed
 * (struct sf_webjson_divert), so only one thread's tables are in memory at
 * a time.  A root thread's times are relative to the root meta.startTime,
 * so they need no offset; a thread whose strings live in "shared" (not
 * parsed yet) or an embedded child profile waits for the end.
 */
struct pend {
	struct json_object *th;
	size_t i;
	struct cols cols;
};

struct cb {
	struct rd *r;
	struct pend *pend;
	size_t n, cap;
	struct cols cur;        /* the columns of the thread being read */
};

/* A sample column of the thread being read (struct sf_webjson_divert's
 * inner divert: threads[i].samples.<col_keys>). */
static int column_cb(void *ud, size_t index, const char *key, size_t n,
		     struct json_object *v, uint64_t line)
{
	struct cb *c = ud;
	int k = col_key(key);

	if (k < 0)
		return 0;
	if ((k == C_STACK || k == C_ROWS) &&
	    sf_webjson__runs_note(&c->cur.lines, c->r->ctx, c->cur.n[k],
				  line))
		return SF_ENOMEM;
	return cols_add(&c->cur, c->r->ctx, k, v);
}

static int thread_cb(void *ud, size_t index, const char *key, size_t n,
		     struct json_object *th, uint64_t line)
{
	struct cb *c = ud;
	int rc;

	if (th && json_object_is_type(th, json_type_object) &&
	    (sf_webjson__arr(th, "stringArray") ||
	     sf_webjson__arr(th, "stringTable"))) {
		c->r->root_start = 0;   /* times relative to the root */
		if ((rc = one_thread(c->r, th, n, 0, 0, &c->cur)))
			sf_error_place(c->r->ctx, NULL, line);
		cols_free(&c->cur);
		return rc;
	}
	if (c->n == c->cap) {
		size_t nc = c->cap ? c->cap * 2 : 8;
		void *q = sf_reallocarray(c->pend, nc, sizeof(*c->pend));
		if (!q)
			return sf_error_nomem(c->r->ctx);
		c->pend = q;
		c->cap = nc;
	}
	c->pend[c->n].th = json_object_get(th);
	c->pend[c->n].cols = c->cur;
	memset(&c->cur, 0, sizeof(c->cur));
	c->pend[c->n++].i = n;
	return 0;
}

static int firefox_read(struct sf_profile *p, struct sf_input *in,
			struct sf_ctx *ctx)
{
	struct json_object *root = NULL, *prof, *meta;
	struct rd r = { p, ctx, sf_input_name(in), 0, NULL, NULL, 0, 0 };
	struct cb c = { &r, NULL, 0, 0, { 0 } };
	const struct sf_webjson_divert columns = { false, "samples", col_keys,
						   column_cb, &c, NULL, false,
						   NULL };
	struct sf_webjson_divert dv = { false, "threads", NULL, thread_cb, &c,
					&columns, false, NULL };
	double interval;
	bool first = !p->d.nsamples;   /* threads arrive while parsing */
	uint64_t last = 0;
	int rc;

	if ((rc = sf_webjson__parse_divert(in, ctx, false,
					   "firefox.truncated", &dv, &root,
					   &last)))
		goto out;
	prof = root;
	if (!sf_webjson__arr(prof, "threads") &&
	    sf_webjson__arr(sf_webjson__get(root, "profile"), "threads"))
		prof = sf_webjson__get(root, "profile");
	meta = sf_webjson__get(prof, "meta");
	if (!meta || !sf_webjson__arr(prof, "threads")) {
		rc = sf_error(ctx, SF_EINPUT, r.name, last,
			      "not a Firefox profile: needs \"meta\" and "
			      "\"threads\"");
		goto out;
	}
	sf_webjson__num(sf_webjson__get(meta, "startTime"), &r.root_start);
	r.shared_strings = sf_webjson__arr(sf_webjson__get(prof, "shared"),
					   "stringArray");
	if (first) {
		if (r.root_start > 0)
			p->d.meta.start_time = (int64_t)llround(
				r.root_start * 1e6);
		if (sf_webjson__num(sf_webjson__get(meta, "interval"),
				    &interval) && interval > 0) {
			p->d.meta.period = interval;
			p->d.meta.period_type.type =
				sf_profile_str(p, ctx, "wall");
			p->d.meta.period_type.unit =
				sf_profile_str(p, ctx, "milliseconds");
		}
	}
	/* threads that had to wait, then nested processes (the root's own
	 * threads array is empty in the tree when it was diverted) */
	for (size_t i = 0; i < c.n && !rc; i++)
		rc = one_thread(&r, c.pend[i].th, c.pend[i].i, r.root_start,
				0, &c.pend[i].cols);
	if (!rc)
		rc = read_profile(&r, prof, 0);
out:
	for (size_t i = 0; i < c.n; i++) {
		json_object_put(c.pend[i].th);
		cols_free(&c.pend[i].cols);
	}
	free(c.pend);
	cols_free(&c.cur);
	if (rc)
		sf_error_place(ctx, r.name, last);
	free(r.w);
	json_object_put(root);
	return rc;
}

const struct sf_format sf_format_firefox = {
	.name = "firefox",
	.description = "Firefox Profiler (gecko and processed JSON, samply), "
		       "read only",
	.probe = firefox_probe,
	.read = firefox_read,
	.priority = 10,
};
