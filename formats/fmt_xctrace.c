/*
 * fmt_xctrace.c - Instruments' Time Profiler table as exported by
 *
 *     xctrace export --input X.trace \
 *         --xpath '/trace-toc/run/data/table[@schema="time-profile"]'
 *
 * The XML is <trace-query-result><node><schema/><row>...</row>...</node>.
 * Each <row> is one sample: <sample-time> (ns since the start), <thread>
 * (<tid>, <process><pid>), <weight> (ns) and <backtrace> with <frame
 * name= addr=> children, leaf first, each with an optional <binary
 * name= path=> and <source line=><path>.  Any element may be written once
 * with id="N" and later only as <x ref="N"/>; the reader resolves these
 * references (a reference to an unknown id is an error).
 *
 * It is streamed with libxml2's xmlTextReader over sf_input (bounded
 * memory: the id table grows with distinct frames, backtraces, threads,
 * never with samples); nesting deeper than ctx->limits.max_nesting is
 * refused; external entities and network access are off.
 *
 * Kept: two sample types, ("samples", "count") - 1 per row, the default,
 * as inferno-collapse-xctrace counts - and ("cpu", "nanoseconds") from
 * <weight>; the time; the thread (tid, pid, name); per frame the name
 * (half-demangled Rust names repaired, as inferno does), address, binary
 * (module: its path, else its name), source file and line.  Rows without
 * a backtrace (<sentinel/>) are skipped.  Lost: core, thread state and the
 * other columns.
 */
#include "rustsym.h"
#include "text.h"

#include "xmllib.h"
#include <stdlib.h>
#include <string.h>

enum id_kind { ID_NONE, ID_FRAME, ID_STACK, ID_THREAD, ID_NUM, ID_STR };

struct id_ent {
	uint64_t id;
	enum id_kind kind;
	union {
		sf_frame_id frame;
		sf_stack_id stack;
		sf_thread_idx thread;
		double num;
		const char *str;
	} v;
};

struct xc_state {
	struct sf_profile *p;
	struct sf_ctx *ctx;
	struct sf_input *in;
	xmlTextReaderPtr r;
	int io_rc;                 /* an error of sf_input during a read */
	bool any_byte;             /* a byte other than white space read */
	char xml_err[300];
	uint64_t xml_err_line;
	/* id table */
	struct sf_idx idx;
	struct id_ent *ents;
	size_t nents, cap_ents;
	/* open elements (local names, interned by libxml2's dictionary
	 * would be nicer; small strings here) */
	uint32_t t_samples, t_cpu;
	/* the row being read */
	bool in_row, row_has_stack, row_has_thread;
	sf_stack_id row_stack;
	sf_thread_idx row_thread;
	int64_t row_time;
	double row_weight;
	/* the backtrace being read: its frames, leaf first */
	sf_frame_id *bt;
	size_t nbt, cap_bt;
	uint64_t bt_id;
	bool in_bt;
	/* the frame being read */
	bool in_frame;
	uint64_t fr_id;
	struct sf_sbuf fr_name;
	uint64_t fr_addr;
	const char *fr_module, *fr_file;
	uint32_t fr_line;
	/* the thread being read */
	bool in_thread;
	uint64_t th_id;
	struct sf_sbuf th_name;
	int64_t th_tid, th_pid;
	/* an element whose text we collect: sample-time, weight, tid, pid,
	 * path */
	int text_kind;            /* 0 none, else the element */
	uint64_t text_id;
	bool text_has_id;
	struct sf_sbuf text;
	int in_process;           /* depth counter */
	uint64_t proc_id;
	bool proc_has_id;
	struct sf_sbuf tmp;
};

enum { T_NONE, T_TIME, T_WEIGHT, T_TID, T_PID, T_PATH };

/* The line of the current node: the parser's own line number runs ahead
 * of the node the reader stands on, so prefer the node's. */
static uint64_t line_of(struct xc_state *st)
{
	xmlNodePtr node = xmlTextReaderCurrentNode(st->r);
	long l = node ? xmlGetLineNo(node) : -1;

	if (l <= 0)
		l = xmlTextReaderGetParserLineNumber(st->r);
	return l > 0 ? (uint64_t)l : 0;
}

static int bad(struct xc_state *st, const char *fmt, const char *a)
{
	return sf_error(st->ctx, SF_EINPUT, sf_input_name(st->in), line_of(st),
			fmt, a);
}

static bool id_eq(const void *c, uint32_t i, const void *k)
{
	const struct xc_state *st = c;

	return st->ents[i].id == *(const uint64_t *)k;
}

static struct id_ent *id_find(struct xc_state *st, uint64_t id)
{
	uint32_t i;

	if (sf_idx_find(&st->idx, sf_hash(&id, sizeof(id)), id_eq, st, &id,
			&i))
		return &st->ents[i];
	return NULL;
}

/* Record (or, for a repeated id, replace) what id stands for. */
static int id_put(struct xc_state *st, uint64_t id, const struct id_ent *e)
{
	struct id_ent *old = id_find(st, id);

	if (old) {
		*old = *e;
		old->id = id;
		return 0;
	}
	if (st->nents == st->cap_ents) {
		size_t ncap = st->cap_ents ? st->cap_ents * 2 : 1024;
		struct id_ent *ne = sf_reallocarray(st->ents, ncap,
						    sizeof(*ne));
		if (!ne)
			return sf_error_nomem(st->ctx);
		st->ents = ne;
		st->cap_ents = ncap;
	}
	st->ents[st->nents] = *e;
	st->ents[st->nents].id = id;
	if (!sf_idx_insert(&st->idx, sf_hash(&id, sizeof(id)),
			   (uint32_t)st->nents))
		return sf_error_nomem(st->ctx);
	st->nents++;
	return 0;
}

static bool parse_u64(const char *s, uint64_t *out)
{
	uint64_t v = 0;

	if (!s || !*s)
		return false;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || v > (UINT64_MAX - 9) / 10)
			return false;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	*out = v;
	return true;
}

/* The attributes we look at. */
struct attrs {
	bool has_id, has_ref;
	uint64_t id, ref;
	const char *name, *addr, *path, *fmt, *line;
};

static int read_attrs(struct xc_state *st, struct attrs *a)
{
	memset(a, 0, sizeof(*a));
	while (xmlTextReaderMoveToNextAttribute(st->r) == 1) {
		const char *k = (const char *)xmlTextReaderConstLocalName(st->r);
		const char *v = (const char *)xmlTextReaderConstValue(st->r);
		if (!k || !v)
			continue;
		if (!strcmp(k, "id")) {
			if (!parse_u64(v, &a->id))
				return bad(st, "id=\"%s\" is not a number", v);
			a->has_id = true;
		} else if (!strcmp(k, "ref")) {
			if (!parse_u64(v, &a->ref))
				return bad(st, "ref=\"%s\" is not a number", v);
			a->has_ref = true;
		} else if (!strcmp(k, "name")) {
			a->name = v;
		} else if (!strcmp(k, "addr")) {
			a->addr = v;
		} else if (!strcmp(k, "path")) {
			a->path = v;
		} else if (!strcmp(k, "fmt")) {
			a->fmt = v;
		} else if (!strcmp(k, "line")) {
			a->line = v;
		}
	}
	xmlTextReaderMoveToElement(st->r);
	return 0;
}

/* The entry a ref= names, which must be of kind `kind`. */
static int deref(struct xc_state *st, const struct attrs *a, enum id_kind kind,
		 const char *what, struct id_ent **out)
{
	char num[32];

	*out = id_find(st, a->ref);
	snprintf(num, sizeof(num), "%llu", (unsigned long long)a->ref);
	if (!*out || ((*out)->kind != kind && (*out)->kind != ID_NONE))
		return sf_error(st->ctx, SF_EINPUT, sf_input_name(st->in),
				line_of(st), "<%s ref=\"%s\"/> names no earlier "
				"%s", what, num, what);
	return 0;
}

static int push_bt(struct xc_state *st, sf_frame_id f)
{
	if (st->nbt == st->cap_bt) {
		size_t ncap = st->cap_bt ? st->cap_bt * 2 : 128;
		sf_frame_id *nb = sf_reallocarray(st->bt, ncap, sizeof(*nb));
		if (!nb)
			return sf_error_nomem(st->ctx);
		st->bt = nb;
		st->cap_bt = ncap;
	}
	st->bt[st->nbt++] = f;
	return 0;
}

static int end_frame(struct xc_state *st)
{
	struct sf_frame fr;
	sf_frame_id f;
	int rc;

	sf_frame_init(&fr);
	st->tmp.len = 0;
	if (!sf_fix_rust_symbol(&st->tmp, st->fr_name.s ? st->fr_name.s : "",
				st->fr_name.len))
		return sf_error_nomem(st->ctx);
	fr.name = st->tmp.s ? st->tmp.s : "";
	fr.address = st->fr_addr;
	fr.module = st->fr_module;
	fr.file = st->fr_file;
	fr.line = st->fr_line;
	if ((rc = sf_profile_frame(st->p, st->ctx, &fr, &f)))
		return rc;
	st->in_frame = false;
	struct id_ent e = { .kind = ID_FRAME, .v.frame = f };
	if ((rc = id_put(st, st->fr_id, &e)))
		return rc;
	return st->in_bt ? push_bt(st, f) : 0;
}

static int end_backtrace(struct xc_state *st)
{
	sf_stack_id s;
	int rc;

	if ((rc = sf_profile_stack(st->p, st->ctx, st->bt, st->nbt, true, &s)))
		return rc;
	st->in_bt = false;
	struct id_ent e = { .kind = ID_STACK, .v.stack = s };
	if ((rc = id_put(st, st->bt_id, &e)))
		return rc;
	if (st->in_row) {
		st->row_stack = s;
		st->row_has_stack = true;
	}
	return 0;
}

static int end_thread(struct xc_state *st)
{
	sf_thread_idx t;
	int rc;

	if ((rc = sf_profile_thread(st->p, st->ctx, st->th_pid, st->th_tid,
				    st->th_name.len ? st->th_name.s : NULL,
				    &t)))
		return rc;
	st->in_thread = false;
	struct id_ent e = { .kind = ID_THREAD, .v.thread = t };
	if ((rc = id_put(st, st->th_id, &e)))
		return rc;
	if (st->in_row) {
		st->row_thread = t;
		st->row_has_thread = true;
	}
	return 0;
}

static int end_row(struct xc_state *st)
{
	double w[2] = { 0, 0 };

	st->in_row = false;
	if (!st->row_has_stack)
		return 0;   /* <sentinel/>: no backtrace */
	w[st->t_samples] = 1;
	w[st->t_cpu] = st->row_weight;
	return sf_profile_add_sample(st->p, st->ctx, st->row_stack,
				     st->row_has_thread ? st->row_thread :
							  SF_NO_THREAD,
				     0, st->row_time, w);
}

/* A value element (sample-time, weight, tid, pid, path) is complete. */
static int end_value(struct xc_state *st, int kind, const char *text,
		     bool has_id, uint64_t id)
{
	struct id_ent e = { .kind = kind == T_PATH ? ID_STR : ID_NUM };
	int rc;

	if (kind == T_PATH) {
		e.v.str = sf_profile_str(st->p, st->ctx, text);
		if (!e.v.str)
			return st->ctx->err.code;
	} else {
		char *end;
		e.v.num = strtod(text, &end);
		while (*end == ' ' || *end == '\n' || *end == '\t')
			end++;
		if (end == text || *end)
			return bad(st, "expected a number, not '%s'", text);
		/* times and ids become int64: refuse what it cannot hold
		 * (0x1p63 is INT64_MAX + 1) rather than wrap it */
		if (kind != T_WEIGHT &&
		    !(e.v.num > -0x1p63 && e.v.num < 0x1p63))
			return bad(st, "number '%s' out of range "
				   "(beyond a 64-bit integer)", text);
	}
	if (has_id && (rc = id_put(st, id, &e)))
		return rc;
	switch (kind) {
	case T_TIME:
		if (st->in_row)
			st->row_time = (int64_t)e.v.num;
		break;
	case T_WEIGHT:
		if (st->in_row)
			st->row_weight = e.v.num;
		break;
	case T_TID:
		if (st->in_thread)
			st->th_tid = (int64_t)e.v.num;
		break;
	case T_PID:
		if (st->in_thread)
			st->th_pid = (int64_t)e.v.num;
		/* a later <process ref=> stands for its pid */
		if (st->in_process && st->proc_has_id) {
			struct id_ent pe = { .kind = ID_NUM, .v.num = e.v.num };
			if ((rc = id_put(st, st->proc_id, &pe)))
				return rc;
		}
		break;
	case T_PATH:
		if (st->in_frame)
			st->fr_file = e.v.str;
		break;
	}
	return 0;
}

static int value_kind(const char *name)
{
	if (!strcmp(name, "sample-time"))
		return T_TIME;
	if (!strcmp(name, "weight"))
		return T_WEIGHT;
	if (!strcmp(name, "tid"))
		return T_TID;
	if (!strcmp(name, "pid"))
		return T_PID;
	if (!strcmp(name, "path"))
		return T_PATH;
	return T_NONE;
}

/* A reference to a value element: as if its text came again. */
static int ref_value(struct xc_state *st, int kind, const struct attrs *a)
{
	struct id_ent *e;
	int rc;
	char buf[64];

	if ((rc = deref(st, a, kind == T_PATH ? ID_STR : ID_NUM,
			(const char *[]){ "", "sample-time", "weight", "tid",
					  "pid", "path" }[kind], &e)))
		return rc;
	if (kind == T_PATH)
		return end_value(st, kind, e->v.str, false, 0);
	snprintf(buf, sizeof(buf), "%.17g", e->v.num);
	return end_value(st, kind, buf, false, 0);
}

static int on_start(struct xc_state *st, const char *name, bool empty)
{
	struct attrs a;
	struct id_ent *e;
	int rc;

	if ((rc = read_attrs(st, &a)))
		return rc;
	if (!strcmp(name, "row")) {
		st->in_row = !empty;
		st->row_has_stack = st->row_has_thread = false;
		st->row_time = SF_NO_TIME;
		st->row_weight = 0;
		return 0;
	}
	if (!strcmp(name, "backtrace")) {
		if (a.has_ref) {
			if ((rc = deref(st, &a, ID_STACK, "backtrace", &e)))
				return rc;
			if (st->in_row) {
				st->row_stack = e->v.stack;
				st->row_has_stack = true;
			}
			return 0;
		}
		st->in_bt = true;
		st->nbt = 0;
		st->bt_id = a.has_id ? a.id : UINT64_MAX;
		return empty ? end_backtrace(st) : 0;
	}
	if (!strcmp(name, "frame")) {
		if (a.has_ref) {
			if ((rc = deref(st, &a, ID_FRAME, "frame", &e)))
				return rc;
			return st->in_bt ? push_bt(st, e->v.frame) : 0;
		}
		if (!a.name)
			return bad(st, "%s has no name= attribute", "<frame>");
		st->in_frame = true;
		st->fr_id = a.has_id ? a.id : UINT64_MAX;
		st->fr_name.len = 0;
		if (!sf_sbuf_adds(&st->fr_name, a.name))
			return sf_error_nomem(st->ctx);
		st->fr_addr = SF_NO_ADDR;
		if (a.addr && a.addr[0] == '0' && a.addr[1] == 'x') {
			char *end;
			unsigned long long v = strtoull(a.addr + 2, &end, 16);
			if (!*end)
				st->fr_addr = v;
		}
		st->fr_module = st->fr_file = NULL;
		st->fr_line = 0;
		return empty ? end_frame(st) : 0;
	}
	if (!strcmp(name, "binary")) {
		const char *m = NULL;
		if (a.has_ref) {
			if ((rc = deref(st, &a, ID_STR, "binary", &e)))
				return rc;
			m = e->v.str;
		} else if (a.path || a.name) {
			m = sf_profile_str(st->p, st->ctx, a.path ? a.path :
							 a.name);
			if (!m)
				return st->ctx->err.code;
			struct id_ent be = { .kind = ID_STR, .v.str = m };
			if (a.has_id && (rc = id_put(st, a.id, &be)))
				return rc;
		}
		if (st->in_frame)
			st->fr_module = m;
		return 0;
	}
	if (!strcmp(name, "source")) {
		uint64_t l;
		if (st->in_frame && a.line && parse_u64(a.line, &l) &&
		    l <= UINT32_MAX)
			st->fr_line = (uint32_t)l;
		return 0;
	}
	if (!strcmp(name, "thread")) {
		if (a.has_ref) {
			if ((rc = deref(st, &a, ID_THREAD, "thread", &e)))
				return rc;
			if (st->in_row) {
				st->row_thread = e->v.thread;
				st->row_has_thread = true;
			}
			return 0;
		}
		st->in_thread = true;
		st->th_id = a.has_id ? a.id : UINT64_MAX;
		st->th_tid = st->th_pid = SF_NO_ID;
		st->th_name.len = 0;
		/* fmt="main  0x8480c1 (proc, pid: 49374)": the name is
		 * what comes before the hex tid */
		if (a.fmt && strncmp(a.fmt, "0x", 2)) {
			const char *q = strstr(a.fmt, " 0x");
			size_t n = q ? (size_t)(q - a.fmt) : strlen(a.fmt);
			while (n && a.fmt[n - 1] == ' ')
				n--;
			if (!sf_sbuf_add(&st->th_name, a.fmt, n))
				return sf_error_nomem(st->ctx);
		}
		return empty ? end_thread(st) : 0;
	}
	if (!strcmp(name, "process")) {
		if (a.has_ref) {
			if ((rc = deref(st, &a, ID_NUM, "process", &e)))
				return rc;
			if (st->in_thread)
				st->th_pid = (int64_t)e->v.num;
			return 0;
		}
		if (!empty) {
			st->in_process++;
			st->proc_has_id = a.has_id;
			st->proc_id = a.id;
			/* until its <pid> is read, the id stands for "no pid" */
			struct id_ent pe = { .kind = ID_NUM, .v.num = -1 };
			if (a.has_id && (rc = id_put(st, a.id, &pe)))
				return rc;
		}
		return 0;
	}
	int k = value_kind(name);
	if (k != T_NONE) {
		if (a.has_ref)
			return ref_value(st, k, &a);
		if (empty)
			return 0;
		st->text_kind = k;
		st->text_has_id = a.has_id;
		st->text_id = a.id;
		st->text.len = 0;
		return sf_sbuf_reserve(&st->text, 0) ? 0 :
		       sf_error_nomem(st->ctx);
	}
	return 0;
}

static int on_end(struct xc_state *st, const char *name)
{
	if (st->text_kind && value_kind(name) == st->text_kind) {
		int k = st->text_kind;
		st->text_kind = T_NONE;
		if (!sf_sbuf_reserve(&st->text, 0))
			return sf_error_nomem(st->ctx);
		st->text.s[st->text.len] = 0;
		return end_value(st, k, st->text.s, st->text_has_id,
				 st->text_id);
	}
	if (!strcmp(name, "row"))
		return st->in_row ? end_row(st) : 0;
	if (!strcmp(name, "backtrace"))
		return st->in_bt ? end_backtrace(st) : 0;
	if (!strcmp(name, "frame"))
		return st->in_frame ? end_frame(st) : 0;
	if (!strcmp(name, "thread"))
		return st->in_thread ? end_thread(st) : 0;
	if (!strcmp(name, "process") && st->in_process)
		st->in_process--;
	return 0;
}

static int xc_io_read(void *c, char *buf, int len)
{
	struct xc_state *st = c;
	long n = sf_input_read_some(st->in, st->ctx, buf,
				    len > 0 ? (size_t)len : 0);

	if (n < 0) {
		st->io_rc = (int)n;
		return -1;
	}
	for (long i = 0; i < n && !st->any_byte; i++)
		st->any_byte = !memchr(" \t\r\n", buf[i], 4);
	return (int)n;
}

static int xc_io_close(void *c)
{
	(void)c;
	return 0;
}

static void xc_error(void *arg, const char *msg, xmlParserSeverities sev,
		     xmlTextReaderLocatorPtr loc)
{
	struct xc_state *st = arg;

	if (st->xml_err[0] || (sev != XML_PARSER_SEVERITY_ERROR &&
			       sev != XML_PARSER_SEVERITY_VALIDITY_ERROR))
		return;
	snprintf(st->xml_err, sizeof(st->xml_err), "%s", msg ? msg : "");
	size_t n = strlen(st->xml_err);
	while (n && (st->xml_err[n - 1] == '\n' || st->xml_err[n - 1] == ' '))
		st->xml_err[--n] = 0;
	/* libxml2 puts details on lines of their own ("...encoding !\nBytes:
	 * 0xDC ..."): the error is one line */
	for (char *c = st->xml_err; *c; c++)
		if (*c == '\n' || *c == '\r')
			*c = ' ';
	int l = loc ? xmlTextReaderLocatorLineNumber(loc) : 0;
	st->xml_err_line = l > 0 ? (uint64_t)l : 0;
}

static int xctrace_read(struct sf_profile *p, struct sf_input *in,
			struct sf_ctx *ctx)
{
	struct xc_state st;
	int rc = 0, r;
	bool seen_root = false;

	if ((rc = sf_xml__load(ctx)))
		return rc;
	memset(&st, 0, sizeof(st));
	st.p = p;
	st.ctx = ctx;
	st.in = in;
	if ((rc = sf_profile_sample_type(p, ctx, "samples", "count",
					 &st.t_samples)) ||
	    (rc = sf_profile_sample_type(p, ctx, "cpu", "nanoseconds",
					 &st.t_cpu)))
		return rc;
	if (p->d.ntypes != 2)
		return sf_error(ctx, SF_EINPUT, sf_input_name(in), 0,
				"cannot merge an xctrace export into a "
				"profile with other sample types");
	st.r = xmlReaderForIO(xc_io_read, xc_io_close, &st, NULL, NULL,
			      XML_PARSE_NONET | XML_PARSE_NOCDATA);
	if (!st.r)
		return sf_error_nomem(ctx);
	xmlTextReaderSetErrorHandler(st.r, xc_error, &st);
	while ((r = xmlTextReaderRead(st.r)) == 1) {
		int type = xmlTextReaderNodeType(st.r);
		if (sf_interrupted(ctx)) {
			rc = sf_error(ctx, SF_EINTR, NULL, 0, "interrupted");
			break;
		}
		if (type == XML_READER_TYPE_ELEMENT) {
			const char *name =
				(const char *)xmlTextReaderConstLocalName(st.r);
			int depth = xmlTextReaderDepth(st.r);
			if (depth >= 0 && (uint64_t)depth >=
					  ctx->limits.max_nesting) {
				rc = sf_error(ctx, SF_ELIMIT, sf_input_name(in),
					      line_of(&st),
					      "XML nested deeper than %llu "
					      "elements (--max-nesting)",
					      (unsigned long long)
						      ctx->limits.max_nesting);
				break;
			}
			if (!name)
				continue;
			if (!seen_root) {
				seen_root = true;
				if (strcmp(name, "trace-query-result")) {
					rc = bad(&st, "expected <trace-query-"
						 "result> (xctrace export), "
						 "found <%s>", name);
					break;
				}
			}
			bool empty = xmlTextReaderIsEmptyElement(st.r) == 1;
			if ((rc = on_start(&st, name, empty)))
				break;
		} else if (type == XML_READER_TYPE_END_ELEMENT) {
			const char *name =
				(const char *)xmlTextReaderConstLocalName(st.r);
			if (name && (rc = on_end(&st, name)))
				break;
		} else if ((type == XML_READER_TYPE_TEXT ||
			    type == XML_READER_TYPE_CDATA ||
			    type == XML_READER_TYPE_SIGNIFICANT_WHITESPACE) &&
			   st.text_kind) {
			const char *v =
				(const char *)xmlTextReaderConstValue(st.r);
			if (v && !sf_sbuf_adds(&st.text, v)) {
				rc = sf_error_nomem(ctx);
				break;
			}
		}
	}
	if (!rc && r < 0) {
		if (st.io_rc)
			rc = st.io_rc;
		else if (!st.any_byte)
			rc = sf_error(ctx, SF_EINPUT, sf_input_name(in), 0,
				      "empty input: not an xctrace export "
				      "(no <trace-query-result>)");
		else
			rc = sf_error(ctx, SF_EINPUT, sf_input_name(in),
				      st.xml_err_line ? st.xml_err_line :
							line_of(&st),
				      "malformed XML: %s",
				      st.xml_err[0] ? st.xml_err :
						      "parse error");
	}
	if (!rc && !seen_root)
		rc = sf_error(ctx, SF_EINPUT, sf_input_name(in), 0,
			      "no XML element: not an xctrace export");
	xmlFreeTextReader(st.r);
	sf_idx_free(&st.idx);
	free(st.ents);
	free(st.bt);
	sf_sbuf_free(&st.fr_name);
	sf_sbuf_free(&st.th_name);
	sf_sbuf_free(&st.text);
	sf_sbuf_free(&st.tmp);
	return rc;
}

static int xctrace_probe(const unsigned char *d, size_t n)
{
	size_t i = sf_probe_skip_space(d, n);
	size_t lim = n - i < 4096 ? n - i : 4096;

	if (!sf_probe_prefix(d + i, n - i, "<"))
		return 0;
	for (size_t k = i; k + 19 <= i + lim; k++)
		if (!memcmp(d + k, "<trace-query-result", 19))
			return 80;
	return 0;
}

static const char *const xctrace_ext[] = { ".xctrace.xml", NULL };

const struct sf_format sf_format_xctrace = {
	.name = "xctrace",
	.description = "Instruments time-profile table (xctrace export XML)",
	.extensions = xctrace_ext,
	.probe = xctrace_probe,
	.read = xctrace_read,
};
