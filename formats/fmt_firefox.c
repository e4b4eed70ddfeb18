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

struct col;

struct rd {
	struct sf_profile *p;
	struct sf_ctx *ctx;
	const char *name;
	double root_start;        /* ms since the epoch */
	const struct col *shared; /* the profile's shared.stringArray */
	double *w;
	size_t nw;
	uint64_t tline;           /* line of the thread being read */
};

/*
 * A thread's tables in compact form: every column the reader uses
 * (samples.stack, .time, ...; frameTable.func, ...; the strings) kept as
 * an array of the one value the reader takes from each cell, 8 bytes or
 * less where json-c needs about 150 a cell, and the strings as their
 * bytes.  They are filled while the document is parsed (the thread's
 * arrays are diverted, struct sf_webjson_divert) or, for a thread that
 * was not (nested processes, a wrapped profile), from the tree; both go
 * through col_add, so both give the same model.  So a thread costs about
 * the size of its text, not ten to thirty times it, and what the reader
 * keeps after it is the model.  A cell keeps exactly what the reader
 * uses of it: a stack is COL_NONE when it is not an integer (the sample
 * is skipped) and any negative index is -1 (out of range all the same);
 * an integer is INT64_MIN when the cell is not one (every use refuses
 * negative values, so nothing else is lost); a number is NaN when it is
 * not one; a string is its offset in the column's text, or SIZE_MAX for
 * a cell that is not a string; a weight is what sf_webjson__num leaves in
 * a 1.  A weight column that holds one value throughout is not stored:
 * the usual "weight": [1, 1, ...].
 *
 * The gecko form's table rows ("data": [[...], ...]) cannot be cut down
 * to the cells that matter: the schema that says which they are may come
 * after them.  Each row is kept as its JSON text instead (json-c writes
 * numbers back as they were read, so parsing the text again gives the
 * same values), about the size it had in the file, and parsed again when
 * the thread is read.
 */
#define COL_NONE (-2)

enum col_kind { K_STACK, K_NUM, K_WEIGHT, K_INT, K_STR, K_ROWS };

enum {
	C_STACK, C_TIME, C_DELTA, C_WEIGHT, C_ROWS,     /* samples */
	F_FUNC, F_LINE, F_COL, F_INL, F_ADDR, F_ROWS,   /* frameTable */
	U_NAME, U_FILE, U_LINE, U_COL, U_RES,           /* funcTable */
	R_NAME,                                         /* resourceTable */
	T_PREFIX, T_FRAME, T_ROWS,                      /* stackTable */
	S_ARRAY, S_TABLE,                               /* the strings */
	C_N
};

static const enum col_kind col_kinds[C_N] = {
	K_STACK, K_NUM, K_NUM, K_WEIGHT, K_ROWS,
	K_INT, K_INT, K_INT, K_INT, K_NUM, K_ROWS,
	K_INT, K_INT, K_INT, K_INT, K_INT,
	K_INT,
	K_INT, K_INT, K_ROWS,
	K_STR, K_STR,
};

/* The tables of a thread and their columns, in the order of the enum:
 * each is a path the parser diverts (struct sf_webjson_divert). */
static const char *const samples_keys[] = { "stack", "time", "timeDeltas",
					    "weight", "data", NULL };
static const char *const frame_keys[] = { "func", "line", "column",
					  "inlineDepth", "address", "data",
					  NULL };
static const char *const func_keys[] = { "name", "fileName", "lineNumber",
					 "columnNumber", "resource", NULL };
static const char *const res_keys[] = { "name", NULL };
static const char *const stack_keys[] = { "prefix", "frame", "data", NULL };
static const char *const string_keys[] = { "stringArray", "stringTable",
					   NULL };
static const char *const no_keys[] = { NULL };

static const struct table {
	const char *name;               /* NULL: members of the thread */
	const char *const *keys;
	int first;                      /* the column of keys[0] */
} tables[] = {
	{ "samples", samples_keys, C_STACK },
	{ "frameTable", frame_keys, F_FUNC },
	{ "funcTable", func_keys, U_NAME },
	{ "resourceTable", res_keys, R_NAME },
	{ "stackTable", stack_keys, T_PREFIX },
	{ NULL, string_keys, S_ARRAY },
	/* tables that are not read: diverted so that they are dropped */
	{ "markers", no_keys, -1 },
	{ "nativeSymbols", no_keys, -1 },
	{ "jsAllocations", no_keys, -1 },
	{ "nativeAllocations", no_keys, -1 },
};
#define NTABLES (sizeof(tables) / sizeof(tables[0]))

struct col {
	void *v;                /* the cells, by kind (K_ROWS: none) */
	size_t n, cap;
	double wconst;          /* K_WEIGHT: every weight so far, while !v */
	struct sf_sbuf text;    /* K_STR strings, K_ROWS rows, each with
				 * its NUL */
	struct sf_webjson_runs lines;   /* of the stacks and of rows */
};

struct cols {
	struct col c[C_N];
};

static void col_free(struct col *c)
{
	free(c->v);
	sf_sbuf_free(&c->text);
	free(c->lines.v);
	memset(c, 0, sizeof(*c));
}

static void cols_free(struct cols *c)
{
	for (int k = 0; k < C_N; k++)
		col_free(&c->c[k]);
}

/* Append cell `v` (NULL for a JSON null) to column c of kind `kind`. */
static int col_add(struct col *c, enum col_kind kind, struct sf_ctx *ctx,
		   struct json_object *v)
{
	size_t i = c->n;
	int64_t s;
	double d = 1;

	switch (kind) {
	case K_STACK:
		if (sf_grow(&c->v, &c->cap, i + 1, sizeof(int32_t)))
			return sf_error_nomem(ctx);
		/* larger than any stack table that fits in memory */
		((int32_t *)c->v)[i] = !sf_webjson__int(v, &s) ? COL_NONE :
			s < 0 ? -1 : s > INT32_MAX ? INT32_MAX : (int32_t)s;
		break;
	case K_INT:
		if (sf_grow(&c->v, &c->cap, i + 1, sizeof(int64_t)))
			return sf_error_nomem(ctx);
		((int64_t *)c->v)[i] = sf_webjson__int(v, &s) ? s : INT64_MIN;
		break;
	case K_NUM:
		if (sf_grow(&c->v, &c->cap, i + 1, sizeof(double)))
			return sf_error_nomem(ctx);
		((double *)c->v)[i] = sf_webjson__num(v, &d) ? d : NAN;
		break;
	case K_STR: {
		size_t off = SIZE_MAX;
		if (sf_grow(&c->v, &c->cap, i + 1, sizeof(size_t)))
			return sf_error_nomem(ctx);
		if (v && json_object_is_type(v, json_type_string)) {
			off = c->text.len;
			if (!sf_sbuf_add(&c->text, json_object_get_string(v),
					 (size_t)json_object_get_string_len(v)
					 + 1))
				return sf_error_nomem(ctx);
		}
		((size_t *)c->v)[i] = off;
		break;
	}
	case K_ROWS: {
		const char *txt = v ? json_object_to_json_string_ext(
					      v, SF_WEBJSON_FLAGS) : "null";
		if (!txt || !sf_sbuf_add(&c->text, txt, strlen(txt) + 1))
			return sf_error_nomem(ctx);
		break;
	}
	case K_WEIGHT: {
		sf_webjson__num(v, &d);
		if (!c->v && (!i || !memcmp(&d, &c->wconst, sizeof(d)))) {
			c->wconst = d;
			break;
		}
		bool was_const = !c->v;
		if (was_const)
			c->cap = 0;
		if (sf_grow(&c->v, &c->cap, i + 1, sizeof(double)))
			return sf_error_nomem(ctx);
		for (size_t j = 0; was_const && j < i; j++)
			((double *)c->v)[j] = c->wconst;
		((double *)c->v)[i] = d;
		break;
	}
	}
	c->n++;
	return 0;
}

/* Cell i of an integer or number column (absent, or not one: false). */
static bool col_int(const struct cols *c, int k, int64_t i, int64_t *out)
{
	if (i < 0 || (uint64_t)i >= c->c[k].n ||
	    ((const int64_t *)c->c[k].v)[i] == INT64_MIN)
		return false;
	*out = ((const int64_t *)c->c[k].v)[i];
	return true;
}

static bool col_num(const struct cols *c, int k, size_t i, double *out)
{
	if (i >= c->c[k].n || isnan(((const double *)c->c[k].v)[i]))
		return false;
	*out = ((const double *)c->c[k].v)[i];
	return true;
}

/* String i of a string column, or NULL. */
static const char *string_at(const struct col *strings, int64_t i)
{
	size_t off;

	if (!strings || i < 0 || (uint64_t)i >= strings->n ||
	    (off = ((const size_t *)strings->v)[i]) == SIZE_MAX)
		return NULL;
	return strings->text.s + off;
}

/* The rows of a K_ROWS column, one at a time. */
struct rows {
	const char *text;
	struct json_tokener *tok;
	struct json_object *row;
};

static int rows_open(struct rows *it, const struct col *c,
		     struct sf_ctx *ctx)
{
	int depth = (int)(ctx->limits.max_nesting > 1000 ?
			  1000 : ctx->limits.max_nesting);

	memset(it, 0, sizeof(*it));
	it->text = c->text.s;
	if (c->n && !(it->tok = json_tokener_new_ex(depth)))
		return sf_error_nomem(ctx);
	return 0;
}

/* The next row (NULL for a JSON null, or a row json-c cannot read
 * again); it lasts until the next call. */
static struct json_object *rows_next(struct rows *it)
{
	size_t len = strlen(it->text);

	json_object_put(it->row);
	json_tokener_reset(it->tok);
	/* with its NUL, so that a bare number ends */
	it->row = json_tokener_parse_ex(it->tok, it->text, (int)len + 1);
	it->text += len + 1;
	return it->row;
}

static void rows_close(struct rows *it)
{
	json_object_put(it->row);
	if (it->tok)
		json_tokener_free(it->tok);
}

struct pend;
static int read_profile(struct rd *r, struct json_object *prof, int depth,
			struct pend *mine, size_t nmine, struct pend *kids,
			size_t nkids);

/* What is wrong with threads[thread], on `line` or else the thread's. */
static int bad_line(struct rd *r, size_t thread, uint64_t line,
		    const char *what)
{
	return sf_error(r->ctx, SF_EINPUT, r->name, line ? line : r->tline,
			"threads[%zu]: %s", thread, what);
}

/* The same at the line of `at` (a table or a column). */
static int bad(struct rd *r, size_t thread, struct json_object *at,
	       const char *what)
{
	return bad_line(r, thread, sf_webjson__line(at), what);
}

/* The line of cell i of column k: where the parser met it, or else
 * where the column (the array `col` of the tree) starts. */
static uint64_t cell_line(const struct cols *c, int k, size_t i,
			  struct json_object *col)
{
	uint64_t l = sf_webjson__runs_line(&c->c[k].lines, i);

	return l ? l : sf_webjson__line(col);
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

/* Stack table rows -> model stacks; prefixes must point backwards.  The
 * gecko form's rows (pcol and fcol their cells) or, with pcol < 0, the
 * processed form's prefix and frame columns (frame_col: that column in
 * the tree, for messages).  *n is how many there are. */
static int build_stacks(struct rd *r, size_t ti, const struct cols *c,
			int pcol, int fcol, struct json_object *frame_col,
			const sf_frame_id *frames, size_t nframes,
			sf_stack_id **out, size_t *nout)
{
	bool gecko = pcol >= 0;
	size_t n = c->c[gecko ? T_ROWS : T_FRAME].n;
	sf_stack_id *st = sf_calloc(n ? n : 1, sizeof(*st));
	struct rows it = { 0 };
	int rc = 0;

	if (!st)
		return sf_error_nomem(r->ctx);
	if (gecko && (rc = rows_open(&it, &c->c[T_ROWS], r->ctx)))
		goto out;
	for (size_t i = 0; i < n; i++) {
		int64_t pre = -1, fr = -1;
		if (gecko) {
			struct json_object *row = rows_next(&it);
			if (!sf_webjson__int(row_cell(row, (size_t)pcol),
					     &pre))
				pre = -1;
			sf_webjson__int(row_cell(row, (size_t)fcol), &fr);
		} else {
			if (!col_int(c, T_PREFIX, (int64_t)i, &pre))
				pre = -1;
			col_int(c, T_FRAME, (int64_t)i, &fr);
		}
		if (fr < 0 || (size_t)fr >= nframes || pre >= (int64_t)i) {
			rc = bad_line(r, ti, gecko ? sf_webjson__runs_line(
					      &c->c[T_ROWS].lines, i) :
					      sf_webjson__line(frame_col),
				      "stackTable: a row's frame is out of "
				      "range or its prefix does not come "
				      "before it");
			goto out;
		}
		if ((rc = sf_profile_stack_push(r->p, r->ctx,
						pre < 0 ? SF_STACK_EMPTY :
							  st[pre],
						frames[fr], &st[i])))
			goto out;
	}
	*out = st;
	st = NULL;
	*nout = n;
out:
	rows_close(&it);
	free(st);
	return rc;
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

/* Fill column c from array `a` of the tree (when it was not diverted),
 * with each cell's line if `lines`. */
static int col_from_tree(struct col *c, enum col_kind kind,
			 struct sf_ctx *ctx, struct json_object *a, bool lines)
{
	/* a column met while parsing is already whole */
	size_t n = a && !c->n ? json_object_array_length(a) : 0;
	int rc;

	for (size_t i = 0; i < n; i++) {
		struct json_object *v = json_object_array_get_idx(a, i);
		if ((lines && (rc = sf_webjson__runs_note(
				       &c->lines, ctx, i,
				       sf_webjson__line(v)))) ||
		    (rc = col_add(c, kind, ctx, v)))
			return rc;
	}
	return 0;
}

/* The columns of a thread that were not diverted, from the tree. */
static int cols_from_tree(struct cols *c, struct sf_ctx *ctx,
			  struct json_object *th)
{
	int rc;

	for (size_t t = 0; t < NTABLES; t++) {
		struct json_object *tab = tables[t].name ?
			sf_webjson__get(th, tables[t].name) : th;
		for (size_t j = 0; tables[t].keys[j]; j++) {
			int k = tables[t].first + (int)j;
			/* the gecko rows name their own lines */
			if ((rc = col_from_tree(&c->c[k], col_kinds[k], ctx,
						sf_webjson__arr(
							tab, tables[t].keys[j]),
						k == F_ROWS || k == T_ROWS)))
				return rc;
		}
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
	struct rows it = { 0 };
	size_t nst = 0;
	sf_thread_idx thr;
	uint32_t type;
	int rc;
	char buf[4096];

	if (!strings || !frows || !srows || !mrows || loc < 0 || pc < 0 ||
	    fc < 0 || sc < 0)
		return bad(r, ti, th, "expected stringTable and frameTable, "
			       "stackTable and samples with schema and data");
	if ((rc = thread_of(r, th, &thr)) ||
	    (rc = sample_type(r, sf_webjson__str(sm, "weightType"), &type)) ||
	    (rc = cols_from_tree(cols, r->ctx, th)))
		return rc;
	size_t nf = cols->c[F_ROWS].n;
	if (!(frames = sf_calloc(nf ? nf : 1, sizeof(*frames))))
		return sf_error_nomem(r->ctx);
	if ((rc = rows_open(&it, &cols->c[F_ROWS], r->ctx)))
		goto out;
	for (size_t i = 0; i < nf; i++) {
		struct json_object *row = rows_next(&it);
		struct sf_frame f;
		int64_t x;
		const char *s;
		sf_frame_init(&f);
		if (!sf_webjson__int(row_cell(row, (size_t)loc), &x) ||
		    !(s = string_at(&cols->c[S_TABLE], x))) {
			rc = bad_line(r, ti, sf_webjson__runs_line(
					      &cols->c[F_ROWS].lines, i),
				      "frameTable: location is not a string "
				      "index");
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
	rows_close(&it);
	memset(&it, 0, sizeof(it));
	if ((rc = build_stacks(r, ti, cols, pc, fc, NULL, frames, nf,
			       &stacks, &nst)) ||
	    (rc = rows_open(&it, &cols->c[C_ROWS], r->ctx)))
		goto out;
	size_t ns = cols->c[C_ROWS].n;
	for (size_t i = 0; i < ns; i++) {
		struct json_object *srow = rows_next(&it);
		int64_t s;
		double t = 0, wt = 1;
		if (!sf_webjson__int(row_cell(srow, (size_t)sc), &s))
			continue;   /* a sample without a stack */
		if (s < 0 || (uint64_t)s >= nst) {
			rc = bad_line(r, ti, cell_line(cols, C_ROWS, i, mrows),
				      "samples: stack index out of range");
			goto out;
		}
		bool timed = tc >= 0 && sf_webjson__num(
			row_cell(srow, (size_t)tc), &t);
		if (wc >= 0)
			sf_webjson__num(row_cell(srow, (size_t)wc), &wt);
		if ((rc = add(r, stacks[s], thr, type, wt,
			      timed ? (int64_t)llround((start + t -
							r->root_start) * 1e6) :
				      SF_NO_TIME)))
			goto out;
	}
out:
	rows_close(&it);
	free(frames);
	free(stacks);
	return rc;
}

static int processed_thread(struct rd *r, struct json_object *th, size_t ti,
			    double start, struct cols *cols)
{
	const struct col *strings = r->shared;
	struct json_object *ft = sf_webjson__get(th, "frameTable");
	struct json_object *fu = sf_webjson__get(th, "funcTable");
	struct json_object *stt = sf_webjson__get(th, "stackTable");
	struct json_object *sm = sf_webjson__get(th, "samples");
	struct json_object *f_func = sf_webjson__arr(ft, "func");
	struct json_object *u_name = sf_webjson__arr(fu, "name");
	struct json_object *s_stack = sf_webjson__arr(sm, "stack");
	sf_frame_id *frames = NULL;
	sf_stack_id *stacks = NULL;
	size_t nst = 0;
	sf_thread_idx thr;
	uint32_t type;
	int rc;

	/* a diverted column leaves an empty array in the tree, so the
	 * tree still says which the thread has */
	if (sf_webjson__arr(th, "stringArray"))
		strings = &cols->c[S_ARRAY];
	else if (sf_webjson__arr(th, "stringTable"))
		strings = &cols->c[S_TABLE];
	if (!strings || !f_func || !u_name || !s_stack ||
	    !sf_webjson__arr(stt, "frame"))
		return bad(r, ti, th, "expected a processed-format thread "
			       "(stringArray, frameTable.func, funcTable.name, "
			       "stackTable.frame, samples.stack)");
	if ((rc = thread_of(r, th, &thr)) ||
	    (rc = sample_type(r, sf_webjson__str(sm, "weightType"), &type)) ||
	    (rc = cols_from_tree(cols, r->ctx, th)))
		return rc;
	size_t nf = cols->c[F_FUNC].n;
	if (!(frames = sf_calloc(nf ? nf : 1, sizeof(*frames))))
		return sf_error_nomem(r->ctx);
	for (size_t i = 0; i < nf; i++) {
		struct sf_frame f;
		int64_t fn, x;
		double a;
		sf_frame_init(&f);
		if (!col_int(cols, F_FUNC, (int64_t)i, &fn) || fn < 0 ||
		    !(f.name = string_at(strings, col_int(cols, U_NAME, fn,
							  &x) ? x : -1))) {
			rc = bad(r, ti, f_func, "frameTable.func: not a function "
				        "with a name");
			goto out;
		}
		if (col_int(cols, U_FILE, fn, &x))
			f.file = string_at(strings, x);
		if (col_int(cols, F_LINE, (int64_t)i, &x) && x > 0 &&
		    x <= UINT32_MAX)
			f.line = (uint32_t)x;
		else if (col_int(cols, U_LINE, fn, &x) && x > 0 &&
			 x <= UINT32_MAX)
			f.line = (uint32_t)x;
		if (col_int(cols, F_COL, (int64_t)i, &x) && x > 0 &&
		    x <= UINT32_MAX)
			f.column = (uint32_t)x;
		else if (col_int(cols, U_COL, fn, &x) && x > 0 &&
			 x <= UINT32_MAX)
			f.column = (uint32_t)x;
		if (col_int(cols, U_RES, fn, &x) && x >= 0 &&
		    col_int(cols, R_NAME, x, &x))
			f.module = string_at(strings, x);
		if (col_num(cols, F_ADDR, i, &a) && a >= 0 && a < 1.8e19)
			f.address = (uint64_t)a;
		if (col_int(cols, F_INL, (int64_t)i, &x) && x > 0)
			f.flags |= SF_FRAME_INLINE;
		if ((rc = sf_profile_frame(r->p, r->ctx, &f, &frames[i])))
			goto out;
	}
	if ((rc = build_stacks(r, ti, cols, -1, -1,
			       sf_webjson__arr(stt, "frame"), frames, nf,
			       &stacks, &nst)))
		goto out;
	const struct col *st = &cols->c[C_STACK];
	const struct col *cw = &cols->c[C_WEIGHT];
	const double *tm = cols->c[C_TIME].v, *dl = cols->c[C_DELTA].v;
	double t = 0;
	for (size_t i = 0; i < st->n; i++) {
		int32_t s = ((const int32_t *)st->v)[i];
		double wt = 1;
		bool timed = false;
		if (i < cols->c[C_DELTA].n && !isnan(dl[i])) {
			t += dl[i];
			timed = true;
		} else if (i < cols->c[C_TIME].n && !isnan(tm[i])) {
			t = tm[i];
			timed = true;
		}
		if (s == COL_NONE)
			continue;   /* a sample without a stack */
		if (s < 0 || (uint64_t)s >= nst) {
			rc = bad_line(r, ti, cell_line(cols, C_STACK, i,
						       s_stack),
				      "samples.stack: index out of range");
			goto out;
		}
		if (i < cw->n)
			wt = cw->v ? ((const double *)cw->v)[i] : cw->wconst;
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
		rc = read_profile(r, sub, depth + 1, NULL, 0, NULL, 0);
		json_object_put(sub);
		return rc;
	}
	if (sf_webjson__get(sf_webjson__get(th, "stackTable"), "schema"))
		return gecko_thread(r, th, i, start, cols);
	return processed_thread(r, th, i, start, cols);
}

struct pend {
	struct json_object *th;
	size_t i;
	struct cols cols;
	size_t proc;            /* its process's index in "processes" */
};

/* One (sub)profile: its threads, then its nested processes.  `mine` are
 * its threads that were diverted while the document was parsed (the tree
 * has an empty array for them), `kids` those of its processes, in
 * document order. */
static int read_profile(struct rd *r, struct json_object *prof, int depth,
			struct pend *mine, size_t nmine, struct pend *kids,
			size_t nkids)
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
	for (size_t k = 0; k < nmine; k++)
		if ((rc = one_thread(r, mine[k].th, mine[k].i, start, depth,
				     &mine[k].cols)))
			return rc;
	for (size_t i = 0; i < json_object_array_length(threads); i++) {
		struct cols c = { 0 };
		rc = one_thread(r, json_object_array_get_idx(threads, i), i,
				start, depth, &c);
		cols_free(&c);
		if (rc)
			return rc;
	}
	for (size_t i = 0, k = 0; procs && i < json_object_array_length(procs);
	     i++) {
		size_t from = k;
		while (k < nkids && kids[k].proc == i)
			k++;
		if ((rc = read_profile(r, json_object_array_get_idx(procs, i),
				       depth + 1, kids + from, k - from, NULL,
				       0)))
			return rc;
	}
	return 0;
}

/*
 * The root profile's threads, met one by one while the document is parsed
 * (struct sf_webjson_divert), so only one thread's tables are in memory at
 * a time.  A root thread's times are relative to the root meta.startTime,
 * so they need no offset; a thread whose strings live in "shared" (not
 * parsed yet) or an embedded child profile waits for the end.
 */
struct cb {
	struct rd *r;
	struct pend *pend;
	size_t n, cap;
	/* the threads of the root's nested processes (processes[i].threads),
	 * diverted too: they wait for the end, where the root's meta and
	 * each process's are known, and come after the root's threads as
	 * the tree had them */
	struct pend *ppend;
	size_t np, capp;
	/* the threads of a wrapped profile ({"profile": {...}}) wait too:
	 * their times are then computed from the same start as before */
	struct pend *wpend;
	size_t nw, capw;
	struct cols cur;        /* the columns of the thread being read */
};

/* A table of the thread being read (struct sf_webjson_divert's inner
 * divert: threads[i].TABLE.KEY, or the thread's strings): which column
 * its arrays go to, found at each array's first element. */
struct tab_cb {
	struct cb *c;
	const struct table *t;
	int k;                  /* the column of the array, or -1 */
};

static int column_cb(void *ud, size_t index, const char *key, size_t n,
		     struct json_object *v, uint64_t line)
{
	struct tab_cb *tc = ud;
	struct sf_ctx *ctx = tc->c->r->ctx;
	struct col *c;
	int rc;

	if (!n) {
		tc->k = -1;
		for (size_t j = 0; tc->t->keys[j]; j++)
			if (!strcmp(key, tc->t->keys[j]))
				tc->k = tc->t->first + (int)j;
		/* json-c keeps the last of a key given twice */
		if (tc->k >= 0)
			col_free(&tc->c->cur.c[tc->k]);
	}
	if (tc->k < 0)
		return 0;
	c = &tc->c->cur.c[tc->k];
	/* the line of a gecko row is that of the array it is, as in
	 * the tree */
	if (tc->k == F_ROWS || tc->k == T_ROWS)
		line = v && (json_object_is_type(v, json_type_array) ||
			     json_object_is_type(v, json_type_object)) ?
			       line : 0;
	if ((tc->k == C_STACK || tc->k == C_ROWS || tc->k == F_ROWS ||
	     tc->k == T_ROWS) &&
	    (rc = sf_webjson__runs_note(&c->lines, ctx, c->n, line)))
		return rc;
	return col_add(c, col_kinds[tc->k], ctx, v);
}

/* An element of a root array the reader does not read (counters, the
 * profiler's overhead), parsed and dropped; the thread tables' divert
 * also met its sample columns, which are no thread's. */
static int drop_cb(void *ud, size_t index, const char *key, size_t n,
		   struct json_object *v, uint64_t line)
{
	struct cb *c = ud;

	cols_free(&c->cur);
	return 0;
}

/* The profile's shared.stringArray, one string at a time. */
struct shared_cb {
	struct col *col;
	struct sf_ctx *ctx;
};

static int shared_cb(void *ud, size_t index, const char *key, size_t n,
		     struct json_object *v, uint64_t line)
{
	struct shared_cb *sc = ud;

	if (!n)
		col_free(sc->col);
	return col_add(sc->col, K_STR, sc->ctx, v);
}

/* Keep thread `th` (index n, of process `proc`) and its columns for the
 * end. */
static int pend_add(struct cb *c, struct pend **v, size_t *nv, size_t *cap,
		    struct json_object *th, size_t n, size_t proc)
{
	if (sf_grow(v, cap, *nv + 1, sizeof(**v)))
		return sf_error_nomem(c->r->ctx);
	(*v)[*nv] = (struct pend){ json_object_get(th), n, c->cur, proc };
	memset(&c->cur, 0, sizeof(c->cur));
	(*nv)++;
	return 0;
}

static int proc_thread_cb(void *ud, size_t index, const char *key, size_t n,
			  struct json_object *th, uint64_t line)
{
	struct cb *c = ud;

	return pend_add(c, &c->ppend, &c->np, &c->capp, th, n, index);
}

static int wrapped_thread_cb(void *ud, size_t index, const char *key,
			     size_t n, struct json_object *th, uint64_t line)
{
	struct cb *c = ud;

	return pend_add(c, &c->wpend, &c->nw, &c->capw, th, n, 0);
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
	return pend_add(c, &c->pend, &c->n, &c->cap, th, n, 0);
}

static int firefox_read(struct sf_profile *p, struct sf_input *in,
			struct sf_ctx *ctx)
{
	struct json_object *root = NULL, *prof, *meta;
	struct rd r = { p, ctx, sf_input_name(in), 0, NULL, NULL, 0, 0 };
	struct cb c = { .r = &r };
	struct col shared = { 0 };
	struct shared_cb scb = { &shared, ctx };
	static const char *const shared_keys[] = { "stringArray", NULL };
	static const char *const drop_keys[] = { "counters",
						 "profilerOverhead", NULL };
	const struct sf_webjson_divert ddv = {
		.keys = drop_keys, .element = drop_cb, .ud = &c };
	const struct sf_webjson_divert sdv = {
		.top = "shared", .keys = shared_keys, .element = shared_cb,
		.ud = &scb, .top_object = true, .next = &ddv };
	struct tab_cb tcb[NTABLES];
	struct sf_webjson_divert inner[NTABLES];
	for (size_t t = 0; t < NTABLES; t++) {
		tcb[t] = (struct tab_cb){ &c, &tables[t], -1 };
		inner[t] = (struct sf_webjson_divert){
			.top = tables[t].name, .keys = tables[t].keys,
			.element = column_cb, .ud = &tcb[t],
			.next = t + 1 < NTABLES ? &inner[t + 1] : NULL,
			.any_key = tables[t].name != NULL };
	}
	/* what the reader reads from the tree; others are checked and
	 * dropped */
	static const char *const root_keys[] = { "meta", "threads",
						 "processes", "shared",
						 "profile", NULL };
	/* the threads of nested processes, and of a profile wrapped as
	 * {"profile": ...} (the old DevTools form) */
	static const char *const threads_key[] = { "threads", NULL };
	const struct sf_webjson_divert pdv = {
		.top = "processes", .keys = threads_key,
		.element = proc_thread_cb, .ud = &c, .next = &sdv };
	const struct sf_webjson_divert wdv = {
		.top = "profile", .keys = threads_key,
		.element = wrapped_thread_cb,
		.ud = &c, .top_object = true, .next = &pdv };
	const struct sf_webjson_divert dv = {
		.top = "threads", .element = thread_cb, .ud = &c,
		.inner = inner, .next = &wdv, .root_keys = root_keys };
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
	/* the strings of a wrapped profile's "shared" are in the tree */
	struct json_object *sa = sf_webjson__arr(sf_webjson__get(prof,
								 "shared"),
						 "stringArray");
	if (prof != root)
		col_free(&shared);
	if (sa && !(rc = col_from_tree(&shared, K_STR, ctx, sa, false)))
		r.shared = &shared;
	if (rc)
		goto out;
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
		rc = read_profile(&r, prof, 0, c.wpend, c.nw, c.ppend, c.np);
out:
	for (size_t i = 0; i < c.n; i++) {
		json_object_put(c.pend[i].th);
		cols_free(&c.pend[i].cols);
	}
	for (size_t i = 0; i < c.np; i++) {
		json_object_put(c.ppend[i].th);
		cols_free(&c.ppend[i].cols);
	}
	for (size_t i = 0; i < c.nw; i++) {
		json_object_put(c.wpend[i].th);
		cols_free(&c.wpend[i].cols);
	}
	free(c.pend);
	free(c.ppend);
	free(c.wpend);
	cols_free(&c.cur);
	col_free(&shared);
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
