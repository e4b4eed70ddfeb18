/*
 * fmt_json.c - the native, lossless JSON form of the model
 * ("format": "sftools-profile", "version": 1).  docs/profile.schema.json is
 * the schema; docs/formats.md explains each member.
 *
 * This file holds the format entry, the probe and the reader; the writer
 * is json_write.c, the reader's input bounds json_scan.c (json.h).
 * Reading streams with yajl's event parser (see "reading" below): depth
 * capped by --max-nesting, every index validated before it touches the
 * model.
 */
#include "json.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_parse.h>

static int json_probe(const unsigned char *d, size_t n)
{
	size_t i = sf_probe_skip_space(d, n);

	if (i >= n || d[i] != '{')
		return 0;
	/* the marker may come after other members in foreign files */
	if (memmem(d + i, n - i, "\"sftools-profile\"", 17))
		return 90;
	return 0;
}

/* ----- reading ----- */

/*
 * Reading streams.  yajl reports events (a key, a number, the start or end
 * of an array ...) as it parses each 256 KiB piece of the input, and each
 * element of each section -- a frame, a stack node, a sample -- goes into
 * the model as soon as its closing bracket arrives.  Besides the model,
 * only the index maps (file index -> model id) for sample types, threads,
 * frames, stack nodes and label sets are held, so in aggregated mode
 * memory does not grow with the number of samples.
 *
 * Members may come in any order.  A section whose references cannot be
 * resolved yet (stacks before frames; samples before sample_types,
 * threads, stacks or label_sets) is kept as raw text while the rest of the
 * document is read, and parsed again at the end: that slower path holds
 * the section's text in memory.
 *
 * Depths: the root object is depth 1, a section (or meta) depth 2, an
 * element of a section depth 3, a [key, value] pair (or a meta.period_type
 * member) depth 4.  A value of the wrong kind anywhere is skipped as a
 * whole subtree and remembered as invalid, so a message names the element
 * as the json-c reader did.
 */

#define JSON_CHUNK (256u << 10)

enum jkey {
	K_OTHER, K_FORMAT, K_VERSION, K_META, K_TYPES, K_THREADS, K_FRAMES,
	K_STACKS, K_LABELS, K_SAMPLES, NKEYS
};

static const char *const key_names[NKEYS] = {
	"", "format", "version", "meta", "sample_types", "threads", "frames",
	"stacks", "label_sets", "samples",
};

/* Members of the objects inside sections and meta. */
enum jmember {
	M_OTHER,
	/* frames */
	M_NAME, M_MODULE, M_FILE, M_KIND, M_LINE, M_COLUMN, M_AUX, M_ADDRESS,
	M_INLINE,
	/* threads (also M_NAME) */
	M_PID, M_TID, M_INPUT,
	/* sample types and meta.period_type */
	M_TYPE, M_UNIT,
	/* meta */
	M_SOURCE, M_PERIOD_TYPE, M_PERIOD, M_START, M_DURATION, M_DEFAULT,
	M_PROPS,
};

static const struct {
	const char *name;
	enum jmember m;
} member_names[] = {
	{ "name", M_NAME }, { "module", M_MODULE }, { "file", M_FILE },
	{ "kind", M_KIND }, { "line", M_LINE }, { "column", M_COLUMN },
	{ "aux", M_AUX }, { "address", M_ADDRESS }, { "inline", M_INLINE },
	{ "pid", M_PID }, { "tid", M_TID }, { "input", M_INPUT },
	{ "type", M_TYPE }, { "unit", M_UNIT },
	{ "source_format", M_SOURCE }, { "period_type", M_PERIOD_TYPE },
	{ "period", M_PERIOD }, { "start_time", M_START },
	{ "duration", M_DURATION }, { "default_sample_type", M_DEFAULT },
	{ "properties", M_PROPS },
};

enum vkind { V_NULL, V_FALSE, V_TRUE, V_NUM, V_STR, V_CONTAINER };

struct u32v {
	uint32_t *v;
	size_t n, cap;
};

/* An integer member: last one wins, as in a json-c object. */
struct ival {
	bool set, ok;
	int64_t v;
};

/* A section kept as text until its references can be resolved. */
struct deferred {
	unsigned char *text;
	size_t len, cap;
	uint64_t line;             /* line of text[0] */
};

struct rd {
	struct sf_profile *p;
	struct sf_ctx *ctx;
	const char *name;
	yajl_handle h;
	const unsigned char *chunk; /* the piece being parsed; NULL at the end */
	uint64_t line0;             /* line number of chunk[0] (or the end) */
	int rc;                     /* the error a callback stopped on */
	uint64_t depth;             /* open arrays and objects */
	uint64_t skip;              /* skipping the container opened at this
				     * depth (0: not skipping) */
	enum jkey key;              /* top-level member being read */
	enum jmember sub;           /* member being read below it */
	bool ended;                 /* the root object is closed */
	bool last_nl;               /* the input read so far ends in LF */
	uint64_t end_line;
	bool first_input;           /* the profile had no samples before */
	bool replaying;             /* parsing a deferred section */
	bool seen[NKEYS], done[NKEYS];
	bool format_ok, version_ok;

	/* file index -> model id */
	struct u32v tmap, thmap, fmap, smap, lmap;
	size_t ntypes;              /* sample types in the file */

	struct deferred def[NKEYS];
	enum jkey capturing;        /* section being kept as text */
	size_t cap_from;            /* where it starts in chunk */

	/* the element being read */
	size_t idx;                 /* its index in its section */
	uint32_t n;                 /* values seen in an array element */
	uint32_t okm, nullm;        /* bit k: value k is an integer / null */
	int64_t v[4];
	bool wbad;                  /* a weight is not a finite number */
	double *wf;                 /* weights by file type */
	double *w;                  /* weights by model type */
	size_t nw;
	const char *s[4];           /* strings: name, module, file, kind;
				     * type, unit; thread name */
	bool name_nul;
	struct ival iv[3];          /* line, column, aux; pid, tid, input */
	int addr;                   /* 0 none, 1 valid, -1 invalid */
	uint64_t addr_v;
	bool inl;

	/* [key, value] pairs: a label set, meta.properties */
	struct sf_label *lab;
	size_t nlab, labcap;
	uint32_t pn;
	bool pbad;
	const char *pk, *pv;

	/* meta */
	const char *msrc;
	bool has_dt;
	int64_t dt;

	/* the layout fast path (see "the fast path" below) */
	uint64_t lnum;              /* line of the next byte not yet parsed */
	bool slow;                  /* SF_JSON_SLOW: yajl only */
	bool strict;                /* SF_JSON_STRICT: leaving it is an
				     * error (a test hook) */
	bool took[NKEYS];           /* sections it has read */
	bool fast;                  /* a section is being read by it */
	size_t fast_n;              /* elements it has read in the section */
	uint64_t fast_line;         /* line of the element being read */

	/* aggregated: the sample each (stack node, thread) of the file last
	 * folded into, a hint that saves the model's hash probe
	 * (sf_profile_add_sample_hint); NULL when too large */
	uint32_t *hint;
	size_t hstride;             /* threads in the file + 1 (null) */
};

/* At most this many hints (16 MiB): O(stack nodes x threads), not
 * O(samples). */
#define HINT_MAX ((size_t)1 << 22)

static int u32v_push(struct rd *r, struct u32v *a, uint32_t x)
{
	if (a->n == a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 64;
		uint32_t *v = sf_reallocarray(a->v, cap, sizeof(*v));
		if (!v) {
			r->rc = sf_error_nomem(r->ctx);
			return 0;
		}
		a->v = v;
		a->cap = cap;
	}
	a->v[a->n++] = x;
	return 1;
}

/* Line of the byte yajl is at. */
static uint64_t line_now(struct rd *r)
{
	if (r->fast)
		return r->fast_line;
	if (!r->chunk)
		return r->line0;
	return r->line0 + sf_json__count_nl(r->chunk,
					    yajl_get_bytes_consumed(r->h));
}

/* Record an input error at the current place; returns 0 so a callback
 * can `return fail(...)` to stop yajl.  `path` "" names no member;
 * `indexed` adds the index of the element being read. */
static int fail(struct rd *r, const char *path, bool indexed,
		const char *what)
{
	char where[160] = "";

	if (indexed)
		snprintf(where, sizeof(where), "%s[%zu]: ", path, r->idx);
	else if (*path)
		snprintf(where, sizeof(where), "%s: ", path);
	r->rc = sf_error(r->ctx, SF_EINPUT, r->name, line_now(r), "%s%s",
			 where, what);
	return 0;
}

/* An error of the element being read. */
static int efail(struct rd *r, const char *what)
{
	return fail(r, key_names[r->key], true, what);
}

static int model(struct rd *r, int rc)
{
	if (rc)
		r->rc = rc;
	return !rc;
}

/* A JSON integer (no fraction, no exponent) that fits in 64 bits. */
static bool num_int(const char *s, size_t n, int64_t *out)
{
	bool neg = n && s[0] == '-';
	uint64_t v = 0;
	size_t i = neg;

	if (i == n)
		return false;
	for (; i < n; i++) {
		unsigned d = (unsigned)((unsigned char)s[i] - '0');
		if (d > 9 || v > (UINT64_MAX - d) / 10)
			return false;
		v = v * 10 + d;
	}
	if (neg) {
		if (v > (uint64_t)INT64_MAX + 1)
			return false;
		*out = v == (uint64_t)INT64_MAX + 1 ? INT64_MIN :
						      -(int64_t)v;
	} else {
		if (v > (uint64_t)INT64_MAX)
			return false;
		*out = (int64_t)v;
	}
	return true;
}

/* Any JSON number, if finite. */
static bool num_double(const char *s, size_t n, double *out)
{
	char buf[64], *heap = NULL, *t = buf, *end;
	int64_t i;

	if (num_int(s, n, &i)) {
		*out = (double)i;
		return true;
	}
	if (n >= sizeof(buf) && !(t = heap = sf_strndup(s, n)))
		return false;
	if (t == buf) {
		memcpy(buf, s, n);
		buf[n] = 0;
	}
	*out = strtod(t, &end);
	bool ok = end == t + n && isfinite(*out);
	free(heap);
	return ok;
}

static void ival_set(struct ival *iv, enum vkind k, const char *s, size_t n,
		     int64_t lo, int64_t hi)
{
	iv->set = true;
	iv->ok = k == V_NUM && num_int(s, n, &iv->v) && iv->v >= lo &&
		 iv->v <= hi;
}

/* A string for the model; NUL ends it, as a C string from json-c did. */
static const char *str_in(struct rd *r, const char *s, size_t n)
{
	const char *t = sf_profile_strn(r->p, r->ctx, s, strnlen(s, n));

	if (!t)
		r->rc = SF_ENOMEM;
	return t;
}

static enum jmember member_of(const unsigned char *s, size_t n)
{
	for (size_t i = 0; i < sizeof(member_names) / sizeof(*member_names);
	     i++)
		if (strlen(member_names[i].name) == n &&
		    !memcmp(member_names[i].name, s, n))
			return member_names[i].m;
	return M_OTHER;
}

static bool deps_done(const struct rd *r, enum jkey k)
{
	if (k == K_STACKS)
		return r->done[K_FRAMES];
	if (k == K_SAMPLES)
		return r->done[K_TYPES] && r->done[K_THREADS] &&
		       r->done[K_STACKS] && r->done[K_LABELS];
	return true;
}

static int def_append(struct rd *r, struct deferred *d,
		      const unsigned char *b, size_t n)
{
	if (d->cap - d->len < n) {
		size_t cap = d->cap ? d->cap : 1u << 16;
		while (cap - d->len < n)
			cap *= 2;
		unsigned char *t = realloc(d->text, cap);
		if (!t) {
			r->rc = sf_error_nomem(r->ctx);
			return 0;
		}
		d->text = t;
		d->cap = cap;
	}
	memcpy(d->text + d->len, b, n);
	d->len += n;
	return 1;
}

/* ---- the start and end of a section ---- */

static int section_begin(struct rd *r)
{
	struct sf_profile *p = r->p;

	if (!deps_done(r, r->key) && !r->replaying) {
		/* keep "[ ... ]" as text; yajl has just read the '[' */
		struct deferred *d = &r->def[r->key];
		r->cap_from = yajl_get_bytes_consumed(r->h) - 1;
		d->line = line_now(r);
		r->capturing = r->key;
		r->skip = r->depth;
		return 1;
	}
	r->idx = 0;
	switch (r->key) {
	case K_STACKS:
		return u32v_push(r, &r->smap, SF_STACK_EMPTY);
	case K_LABELS:
		return u32v_push(r, &r->lmap, 0);
	case K_SAMPLES:
		r->nw = p->d.ntypes;
		free(r->w);
		free(r->wf);
		r->w = sf_calloc(r->nw, sizeof(*r->w));
		r->wf = sf_calloc(r->ntypes, sizeof(*r->wf));
		if (!r->w || !r->wf) {
			r->rc = sf_error_nomem(r->ctx);
			return 0;
		}
		free(r->hint);
		r->hint = NULL;
		r->hstride = r->thmap.n + 1;
		if (p->d.aggregated && r->smap.n <= HINT_MAX / r->hstride &&
		    (r->hint = sf_reallocarray(NULL, r->smap.n * r->hstride,
					       sizeof(*r->hint))))
			/* a hint is never trusted, so a failed allocation
			 * only costs speed */
			memset(r->hint, 0xff,
			       r->smap.n * r->hstride * sizeof(*r->hint));
		return 1;
	default:
		return 1;
	}
}

static int section_end(struct rd *r)
{
	if (r->key == K_TYPES && !r->ntypes)
		return fail(r, "sample_types", false,
			    "at least one sample type is needed");
	if (r->key == K_META && r->msrc && r->first_input)
		r->p->d.meta.source_format = r->msrc;
	r->done[r->key] = true;
	return 1;
}

/* ---- elements ---- */

static const char *elem_expected(enum jkey k)
{
	switch (k) {
	case K_TYPES:
		return "expected {\"type\", \"unit\"}";
	case K_THREADS:
		return "expected an object";
	case K_FRAMES:
		return "expected an object with a \"name\"";
	case K_STACKS:
		return "expected [parent, frame] with parent below this node "
		       "and a valid frame index";
	case K_LABELS:
		return "expected an array of pairs";
	default:
		return "expected [stack, thread, time, labels, one weight per "
		       "sample type]";
	}
}

static int elem_begin(struct rd *r, bool map)
{
	bool want_map = r->key == K_TYPES || r->key == K_THREADS ||
			r->key == K_FRAMES;

	if (map != want_map)
		return efail(r, elem_expected(r->key));
	r->n = r->okm = r->nullm = 0;
	r->wbad = false;
	memset(r->s, 0, sizeof(r->s));
	memset(r->iv, 0, sizeof(r->iv));
	r->name_nul = r->inl = false;
	r->addr = 0;
	r->nlab = 0;
	r->sub = M_OTHER;
	return 1;
}

/* Value k of an array element (a stack node or a sample). */
static void elem_field(struct rd *r, enum vkind k, const char *s, size_t n)
{
	uint32_t i = r->n++;

	if (i < 4) {
		if (k == V_NUM && num_int(s, n, &r->v[i]))
			r->okm |= 1u << i;
		else if (k == V_NULL)
			r->nullm |= 1u << i;
	} else if (r->key == K_SAMPLES && i - 4 < r->ntypes) {
		if (k != V_NUM || !num_double(s, n, &r->wf[i - 4]))
			r->wbad = true;
	}
}

static int address_of(struct rd *r, const char *s, size_t n)
{
	char *t = sf_strndup(s, n), *end;

	if (!t) {
		r->rc = sf_error_nomem(r->ctx);
		return 0;
	}
	errno = 0;
	unsigned long long ad = strtoull(t, &end, 16);
	r->addr = strncmp(t, "0x", 2) || *end || errno || ad == SF_NO_ADDR ?
			  -1 : 1;
	r->addr_v = ad;
	free(t);
	return 1;
}

/* The value of member r->sub of an object element (a container is
 * V_CONTAINER): the last value of a member wins, as in a json-c object. */
static int elem_member(struct rd *r, enum vkind k, const char *s, size_t n)
{
	const char **str = NULL;

	switch (r->key) {
	case K_TYPES:
		if (r->sub == M_TYPE || r->sub == M_UNIT)
			str = &r->s[r->sub - M_TYPE];
		break;
	case K_THREADS:
		if (r->sub == M_NAME)
			str = &r->s[0];
		else if (r->sub == M_PID || r->sub == M_TID)
			ival_set(&r->iv[r->sub - M_PID], k, s, n,
				 INT64_MIN + 1, INT64_MAX);
		else if (r->sub == M_INPUT)
			ival_set(&r->iv[2], k, s, n, 0, UINT32_MAX);
		break;
	case K_FRAMES:
		switch (r->sub) {
		case M_NAME:
			r->name_nul = k == V_STR && memchr(s, 0, n);
			/* fall through */
		case M_MODULE:
		case M_FILE:
		case M_KIND:
			str = &r->s[r->sub - M_NAME];
			break;
		case M_LINE:
		case M_COLUMN:
		case M_AUX:
			ival_set(&r->iv[r->sub - M_LINE], k, s, n, 0,
				 UINT32_MAX);
			break;
		case M_ADDRESS:
			/* not a string: ignored, as before */
			r->addr = 0;
			if (k == V_STR)
				return address_of(r, s, n);
			break;
		case M_INLINE: {
			double d = 0;
			/* json-c's truth: true, a non-zero number, a
			 * non-empty string */
			r->inl = k == V_TRUE ||
				 (k == V_NUM && num_double(s, n, &d) &&
				  d != 0) ||
				 (k == V_STR && n);
			break;
		}
		default:
			break;
		}
		break;
	default:
		break;
	}
	if (str) {
		*str = NULL;
		if (k == V_STR && !(*str = str_in(r, s, n)))
			return 0;
	}
	return 1;
}

static int frame_end(struct rd *r)
{
	struct sf_frame f;
	uint32_t id;

	if (!r->s[0])
		return efail(r, elem_expected(K_FRAMES));
	if (r->name_nul)
		return efail(r, "name holds a NUL character");
	if (r->iv[0].set && !r->iv[0].ok)
		return efail(r, "line: expected an integer");
	if (r->iv[1].set && !r->iv[1].ok)
		return efail(r, "column: expected an integer");
	if (r->iv[2].set && !r->iv[2].ok)
		return efail(r, "aux: expected an integer");
	if (r->addr < 0)
		return efail(r, "address: expected \"0xHEX\"");
	if (strlen(r->s[0]) > r->ctx->limits.max_name)
		return efail(r, "name exceeds --max-name");
	sf_frame_init(&f);
	f.name = r->s[0];
	f.module = r->s[1];
	f.file = r->s[2];
	f.kind = r->s[3];
	if (r->iv[0].set)
		f.line = (uint32_t)r->iv[0].v;
	if (r->iv[1].set)
		f.column = (uint32_t)r->iv[1].v;
	if (r->iv[2].set) {
		f.aux = (uint32_t)r->iv[2].v;
		f.flags |= SF_FRAME_HAS_AUX;
	}
	if (r->addr > 0)
		f.address = r->addr_v;
	if (r->inl)
		f.flags |= SF_FRAME_INLINE;
	return model(r, sf_profile_frame(r->p, r->ctx, &f, &id)) &&
	       u32v_push(r, &r->fmap, id);
}

static int thread_end(struct rd *r)
{
	struct sf_profile *p = r->p;
	int64_t pid = SF_NO_ID, tid = SF_NO_ID;
	uint32_t id, saved = p->d.input;
	int rc;

	for (int i = 0; i < 3; i++)
		if (r->iv[i].set && !r->iv[i].ok)
			return efail(r, "pid, tid and input must be "
					"integers");
	if (r->iv[0].set)
		pid = r->iv[0].v;
	if (r->iv[1].set)
		tid = r->iv[1].v;
	/* keep the inputs of a merged profile apart, offset by the input
	 * this file is */
	sf_profile_begin_input(p, saved + (r->iv[2].set ? (uint32_t)r->iv[2].v
						       : 0));
	rc = sf_profile_thread(p, r->ctx, pid, tid, r->s[0], &id);
	sf_profile_begin_input(p, saved);
	return model(r, rc) && u32v_push(r, &r->thmap, id);
}

static int sample_end(struct rd *r)
{
	const int64_t *v = r->v;
	size_t nstacks = r->smap.n - 1, nlabels = r->lmap.n - 1;

	if (r->n != 4 + r->ntypes)
		return efail(r, elem_expected(K_SAMPLES));
	if (!(r->okm & 1) || v[0] < 0 || (uint64_t)v[0] > nstacks ||
	    (!(r->nullm & 2) &&
	     (!(r->okm & 2) || v[1] < 0 || (uint64_t)v[1] >= r->thmap.n)) ||
	    (!(r->nullm & 4) && (!(r->okm & 4) || v[2] == INT64_MIN)) ||
	    !(r->okm & 8) || v[3] < 0 || (uint64_t)v[3] > nlabels)
		return efail(r, "stack, thread, time or labels out of range");
	if (r->wbad)
		return efail(r, "weights must be finite numbers");
	memset(r->w, 0, r->nw * sizeof(*r->w));
	for (size_t t = 0; t < r->ntypes; t++)
		r->w[r->tmap.v[t]] += r->wf[t];
	sf_thread_idx th = (r->nullm & 2) ? SF_NO_THREAD : r->thmap.v[v[1]];
	int64_t tm = (r->nullm & 4) ? SF_NO_TIME : v[2];
	if (r->hint) {
		size_t h = (size_t)v[0] * r->hstride +
			   ((r->nullm & 2) ? 0 : (size_t)v[1] + 1);
		return model(r, sf_profile_add_sample_hint(
					r->p, r->ctx, r->smap.v[v[0]], th,
					r->lmap.v[v[3]], tm, r->w,
					&r->hint[h]));
	}
	return model(r, sf_profile_add_sample(r->p, r->ctx, r->smap.v[v[0]],
					      th, r->lmap.v[v[3]], tm, r->w));
}

static int elem_end(struct rd *r)
{
	struct sf_profile *p = r->p;
	uint32_t id;
	int ok = 1;

	switch (r->key) {
	case K_TYPES:
		if (!r->s[0] || !r->s[1])
			return efail(r, elem_expected(K_TYPES));
		ok = model(r, sf_profile_sample_type(p, r->ctx, r->s[0],
						     r->s[1], &id)) &&
		     u32v_push(r, &r->tmap, id);
		r->ntypes = r->tmap.n;
		break;
	case K_THREADS:
		ok = thread_end(r);
		break;
	case K_FRAMES:
		ok = frame_end(r);
		break;
	case K_STACKS:
		if (r->n != 2 || (r->okm & 3) != 3 || r->v[0] < 0 ||
		    (uint64_t)r->v[0] > r->idx || r->v[1] < 0 ||
		    (uint64_t)r->v[1] >= r->fmap.n)
			return efail(r, elem_expected(K_STACKS));
		ok = model(r, sf_profile_stack_push(p, r->ctx,
						    r->smap.v[r->v[0]],
						    r->fmap.v[r->v[1]],
						    &id)) &&
		     u32v_push(r, &r->smap, id);
		break;
	case K_LABELS:
		ok = model(r, sf_profile_labels(p, r->ctx, r->lab, r->nlab,
						&id)) &&
		     u32v_push(r, &r->lmap, id);
		break;
	case K_SAMPLES:
		ok = sample_end(r);
		break;
	default:
		break;
	}
	r->idx++;
	return ok;
}

/* ---- [key, value] pairs: label sets and meta.properties ---- */

static int pair_fail(struct rd *r)
{
	static const char what[] = "expected [\"key\", \"value\"] pairs";

	return r->key == K_META ? fail(r, "meta", false, what) :
				  efail(r, what);
}

static int pair_end(struct rd *r)
{
	if (r->pbad || r->pn != 2)
		return pair_fail(r);
	if (r->key == K_META)
		return model(r, sf_profile_set_prop(r->p, r->ctx, r->pk,
						    r->pv));
	if (r->nlab == r->labcap) {
		size_t cap = r->labcap ? r->labcap * 2 : 16;
		struct sf_label *l = sf_reallocarray(r->lab, cap,
						     sizeof(*l));
		if (!l) {
			r->rc = sf_error_nomem(r->ctx);
			return 0;
		}
		r->lab = l;
		r->labcap = cap;
	}
	r->lab[r->nlab].key = r->pk;
	r->lab[r->nlab].value = r->pv;
	r->nlab++;
	return 1;
}

static int pair_value(struct rd *r, enum vkind k, const char *s, size_t n)
{
	uint32_t i = r->pn++;

	if (k != V_STR || i >= 2) {
		r->pbad = true;
		return 1;
	}
	const char *t = str_in(r, s, n);
	if (!t)
		return 0;
	*(i ? &r->pv : &r->pk) = t;
	return 1;
}

/* ---- meta ---- */

/* A member of meta.period_type; cb_key set r->pn to 0 for "type", 1 for
 * "unit", 2 for any other. */
static int period_type_value(struct rd *r, enum vkind k, const char *s,
			     size_t n)
{
	const char *t = NULL;

	if (r->pn > 1)
		return 1;
	if (k == V_STR && !(t = str_in(r, s, n)))
		return 0;
	*(r->pn ? &r->pv : &r->pk) = t;
	return 1;
}

static int meta_value(struct rd *r, enum vkind k, const char *s, size_t n)
{
	struct sf_meta *m = &r->p->d.meta;
	int64_t x;
	double d;

	switch (r->sub) {
	case M_SOURCE:
		r->msrc = NULL;
		if (k == V_STR && !(r->msrc = str_in(r, s, n)))
			return 0;
		return 1;
	case M_PERIOD_TYPE:
		return fail(r, "meta", false,
			    "period_type needs type and unit");
	case M_PERIOD:
		if (k != V_NUM || !num_double(s, n, &d))
			return fail(r, "meta", false,
				    "period: expected a number");
		m->period = d;
		return 1;
	case M_START:
	case M_DURATION:
		if (k != V_NUM || !num_int(s, n, &x) || x == INT64_MIN)
			return fail(r, "meta", false,
				    r->sub == M_START ?
					    "start_time: expected an integer" :
					    "duration: expected an integer");
		*(r->sub == M_START ? &m->start_time : &m->duration) = x;
		return 1;
	case M_DEFAULT:
		if (k != V_NUM || !num_int(s, n, &x) || x < 0 ||
		    x > UINT32_MAX)
			return fail(r, "meta", false,
				    "default_sample_type: expected an index");
		r->has_dt = true;
		r->dt = x;
		return 1;
	case M_PROPS:
		return fail(r, "meta", false, "properties: expected an array");
	default:
		return 1;
	}
}

/* ---- yajl callbacks ---- */

static int top_value(struct rd *r, enum vkind k, const char *s, size_t n)
{
	int64_t x;

	switch (r->key) {
	case K_FORMAT:
		if (k != V_STR || n != 15 || memcmp(s, "sftools-profile", 15))
			return fail(r, "", false,
				    "not an sftools profile (\"format\" must "
				    "be \"sftools-profile\")");
		r->format_ok = true;
		return 1;
	case K_VERSION:
		if (k != V_NUM || !num_int(s, n, &x) || x != 1)
			return fail(r, "version", false,
				    "unsupported version (this build reads "
				    "version 1)");
		r->version_ok = true;
		return 1;
	case K_META:
		return fail(r, "meta", false, "expected an object");
	case K_OTHER:
		return 1;
	default:
		/* a section that is null is absent, as json-c's reader
		 * treated it */
		if (k != V_NULL)
			return fail(r, key_names[r->key], false,
				    "expected an array");
		if (r->key == K_LABELS) {
			r->done[K_LABELS] = true;
			return u32v_push(r, &r->lmap, 0);
		}
		return 1;
	}
}

static int scalar(struct rd *r, enum vkind k, const char *s, size_t n)
{
	if (r->skip)
		return 1;
	switch (r->depth) {
	case 0:
		return fail(r, "", false, "expected a JSON object");
	case 1:
		return top_value(r, k, s, n);
	case 2:
		if (r->key == K_META)
			return meta_value(r, k, s, n);
		return efail(r, elem_expected(r->key));
	case 3:
		if (r->key == K_META) {
			if (r->sub == M_PROPS)
				return pair_fail(r);
			return period_type_value(r, k, s, n);
		}
		if (r->key == K_LABELS)
			return efail(r, "expected [\"key\", \"value\"] pairs");
		if (r->key == K_STACKS || r->key == K_SAMPLES) {
			elem_field(r, k, s, n);
			return 1;
		}
		return elem_member(r, k, s, n);
	default:
		/* depth 4: in a pair */
		return pair_value(r, k, s, n);
	}
}

static int open_container(struct rd *r, bool map)
{
	if (r->depth >= r->ctx->limits.max_nesting)
		return fail(r, "", false, "invalid JSON: nesting too deep");
	r->depth++;
	if (r->skip)
		return 1;
	switch (r->depth) {
	case 1:
		if (!map)
			return fail(r, "", false, "expected a JSON object");
		return 1;
	case 2:
		switch (r->key) {
		case K_OTHER:
			r->skip = r->depth;
			return 1;
		case K_FORMAT:
		case K_VERSION:
			return top_value(r, V_CONTAINER, NULL, 0);
		case K_META:
			if (!map)
				return fail(r, "meta", false,
					    "expected an object");
			r->sub = M_OTHER;
			return 1;
		default:
			if (map)
				return fail(r, key_names[r->key], false,
					    "expected an array");
			return section_begin(r);
		}
	case 3:
		if (r->key != K_META)
			return elem_begin(r, map);
		if (r->sub == M_PERIOD_TYPE && map) {
			r->pn = 0;
			r->pk = r->pv = NULL;
			return 1;
		}
		if (r->sub == M_PROPS && !map)
			return 1;
		if (r->sub == M_SOURCE || r->sub == M_OTHER) {
			r->msrc = r->sub == M_SOURCE ? NULL : r->msrc;
			r->skip = r->depth;
			return 1;
		}
		return meta_value(r, V_CONTAINER, NULL, 0);
	case 4:
		if (r->key == K_LABELS || (r->key == K_META &&
					   r->sub == M_PROPS)) {
			if (map)
				return pair_fail(r);
			r->pn = 0;
			r->pbad = false;
			return 1;
		}
		r->skip = r->depth;
		if (r->key == K_META)
			return period_type_value(r, V_CONTAINER, NULL, 0);
		if (r->key == K_STACKS || r->key == K_SAMPLES)
			elem_field(r, V_CONTAINER, NULL, 0);
		else
			return elem_member(r, V_CONTAINER, NULL, 0);
		return 1;
	default:
		/* depth 5: a container inside a pair */
		r->pbad = true;
		r->pn++;
		r->skip = r->depth;
		return 1;
	}
}

static int close_container(struct rd *r)
{
	uint64_t d = r->depth--;

	if (r->skip) {
		if (d > r->skip)
			return 1;
		r->skip = 0;
		if (r->capturing && d == 2) {
			/* the end of a section kept as text */
			struct deferred *t = &r->def[r->capturing];
			r->capturing = K_OTHER;
			return def_append(r, t, r->chunk + r->cap_from,
					  yajl_get_bytes_consumed(r->h) -
						  r->cap_from);
		}
		return 1;
	}
	switch (d) {
	case 1:
		r->ended = true;
		r->end_line = line_now(r);
		return 1;
	case 2:
		if (r->key == K_OTHER || r->key == K_FORMAT ||
		    r->key == K_VERSION)
			return 1;
		return section_end(r);
	case 3:
		if (r->key != K_META)
			return elem_end(r);
		if (r->sub == M_PERIOD_TYPE) {
			if (!r->pk || !r->pv)
				return fail(r, "meta", false,
					    "period_type needs type and unit");
			r->p->d.meta.period_type.type = r->pk;
			r->p->d.meta.period_type.unit = r->pv;
		}
		return 1;
	default:
		return pair_end(r);
	}
}

static int cb_null(void *u)
{
	return scalar(u, V_NULL, NULL, 0);
}

static int cb_bool(void *u, int b)
{
	return scalar(u, b ? V_TRUE : V_FALSE, NULL, 0);
}

static int cb_number(void *u, const char *s, size_t n)
{
	struct rd *r = u;

	if (n > r->ctx->limits.max_name) {
		/* json_scan caught it if it crossed a piece */
		r->rc = sf_error(r->ctx, SF_ELIMIT, r->name, line_now(r),
				 "JSON number or literal longer than %llu "
				 "bytes (--max-name)",
				 (unsigned long long)r->ctx->limits.max_name);
		return 0;
	}
	/* the bulk of a document: a value of a sample or a stack node */
	if (r->depth == 3 && !r->skip &&
	    (r->key == K_SAMPLES || r->key == K_STACKS)) {
		elem_field(r, V_NUM, s, n);
		return 1;
	}
	return scalar(r, V_NUM, s, n);
}

static int cb_string(void *u, const unsigned char *s, size_t n)
{
	return scalar(u, V_STR, (const char *)s, n);
}

static int cb_start_map(void *u)
{
	return open_container(u, true);
}

static int cb_start_array(void *u)
{
	return open_container(u, false);
}

static int cb_end(void *u)
{
	return close_container(u);
}

static int cb_key(void *u, const unsigned char *s, size_t n)
{
	struct rd *r = u;

	if (r->skip)
		return 1;
	if (r->depth == 1) {
		r->key = K_OTHER;
		for (int k = K_FORMAT; k < NKEYS; k++)
			if (strlen(key_names[k]) == n &&
			    !memcmp(key_names[k], s, n))
				r->key = (enum jkey)k;
		if (r->key != K_OTHER && r->seen[r->key])
			return fail(r, key_names[r->key], false,
				    "duplicate member");
		r->seen[r->key] = true;
		return 1;
	}
	if (r->key == K_META && r->depth == 3) {
		/* meta.period_type: "type" is the first of the pair, "unit"
		 * the second */
		enum jmember m = member_of(s, n);
		r->pn = m == M_TYPE ? 0 : m == M_UNIT ? 1 : 2;
		return 1;
	}
	r->sub = member_of(s, n);
	return 1;
}

static const yajl_callbacks json_callbacks = {
	.yajl_null = cb_null,
	.yajl_boolean = cb_bool,
	.yajl_number = cb_number,
	.yajl_string = cb_string,
	.yajl_start_map = cb_start_map,
	.yajl_map_key = cb_key,
	.yajl_end_map = cb_end,
	.yajl_start_array = cb_start_array,
	.yajl_end_array = cb_end,
};

static yajl_handle json_parser(struct rd *r)
{
	yajl_handle h = yajl_alloc(&json_callbacks, NULL, r);

	if (h) {
		/* strict JSON: no comments; strings are kept as bytes, as
		 * the writer writes them (names from binaries need not be
		 * UTF-8) */
		yajl_config(h, yajl_allow_comments, 0);
		yajl_config(h, yajl_dont_validate_strings, 1);
	}
	return h;
}

/* The error of a failed yajl_parse or yajl_complete_parse. */
static int parse_error(struct rd *r, yajl_status st, bool at_end)
{
	unsigned char *e;
	char msg[200];
	size_t n;

	if (st == yajl_status_client_canceled)
		return r->rc ? r->rc :
			       sf_error(r->ctx, SF_EINPUT, r->name,
					line_now(r), "invalid JSON");
	if (r->ended && !at_end)
		return sf_error(r->ctx, SF_EINPUT, r->name, line_now(r),
				"unexpected data after the JSON document");
	e = yajl_get_error(r->h, 0, NULL, 0);
	/* "parse error: trailing garbage\n" -> "trailing garbage" */
	const char *t = e ? strstr((const char *)e, "error: ") : NULL;
	snprintf(msg, sizeof(msg), "%s", t ? t + 7 : e ? (char *)e : "");
	n = strlen(msg);
	while (n && (msg[n - 1] == '\n' || msg[n - 1] == '.' ||
		     msg[n - 1] == ' '))
		msg[--n] = 0;
	if (e)
		yajl_free_error(r->h, e);
	if (at_end && strstr(msg, "premature EOF"))
		/* the line of the last byte, not the one after it */
		return sf_error(r->ctx, SF_EINPUT, r->name,
				r->line0 - (r->last_nl && r->line0 > 1),
				"truncated JSON: the document ends early");
	return sf_error(r->ctx, SF_EINPUT, r->name, line_now(r),
			"invalid JSON: %s", msg);
}

/* Parse a section kept as text, now that what it refers to is read. */
static int replay(struct rd *r, enum jkey k)
{
	struct deferred *d = &r->def[k];
	yajl_handle outer = r->h;
	yajl_status st;
	int rc = 0;

	if (!(r->h = json_parser(r))) {
		r->h = outer;
		return sf_error_nomem(r->ctx);
	}
	r->replaying = true;
	r->chunk = d->text;
	r->line0 = d->line;
	r->depth = 1;
	r->skip = 0;
	r->key = k;
	st = yajl_parse(r->h, d->text, d->len);
	if (st == yajl_status_ok) {
		r->chunk = NULL;
		r->line0 = r->end_line;
		st = yajl_complete_parse(r->h);
	}
	if (st != yajl_status_ok)
		rc = parse_error(r, st, false);
	yajl_free(r->h);
	r->h = outer;
	r->chunk = NULL;
	r->line0 = r->end_line;
	free(d->text);
	memset(d, 0, sizeof(*d));
	return rc;
}

static int end_fail(struct rd *r, const char *path, const char *what)
{
	fail(r, path, false, what);
	return r->rc;
}

/* After the whole document: what may only be checked or done at its
 * end. */
static int finish(struct rd *r)
{
	struct sf_profile *p = r->p;
	uint32_t dt;
	int rc;

	r->chunk = NULL;
	r->line0 = r->end_line;
	if (!r->format_ok)
		return end_fail(r, "", "not an sftools profile (\"format\" "
					  "must be \"sftools-profile\")");
	if (!r->version_ok)
		return end_fail(r, "version", "unsupported version (this "
					      "build reads version 1)");
	for (int k = K_TYPES; k <= K_SAMPLES; k++) {
		if (r->def[k].len && (rc = replay(r, (enum jkey)k)))
			return rc;
		if (k == K_LABELS && !r->done[k]) {
			/* optional: no label sets but the empty one */
			if (!u32v_push(r, &r->lmap, 0))
				return r->rc;
			r->done[k] = true;
		}
		if (!r->done[k])
			return end_fail(r, key_names[k], "missing member");
	}
	dt = r->has_dt ? (uint32_t)r->dt : p->d.meta.default_type;
	if (dt >= r->ntypes)
		return end_fail(r, "meta.default_sample_type",
				"index out of range");
	p->d.meta.default_type = r->tmap.v[dt];
	return 0;
}

static void rd_free(struct rd *r)
{
	free(r->tmap.v);
	free(r->thmap.v);
	free(r->fmap.v);
	free(r->smap.v);
	free(r->lmap.v);
	free(r->w);
	free(r->wf);
	free(r->lab);
	free(r->hint);
	for (int k = 0; k < NKEYS; k++)
		free(r->def[k].text);
}

/* ----- the fast path ----- */

/*
 * The bulk of a document this writer made is two sections of small
 * arrays of numbers, "stacks" and "samples", one element a line:
 *
 *   "samples":[\n[4,0,null,0,1],\n[13,3,null,0,1]]
 *
 * yajl, called back for every number, reads that at a fraction of the
 * speed of the disk, so the reader takes such a section itself when yajl
 * has just opened it at the place the writer puts it (a member of the
 * root, its references already read): it matches the writer's layout
 * exactly, byte by byte, and hands each element to the same elem_field()
 * and elem_end() that the yajl callbacks use, so the model cannot differ.
 * At the first byte that is not the writer's layout -- whitespace, a
 * string, a number longer than 64 bytes, the end of the section -- it
 * gives the rest back to yajl at the last element boundary.  yajl, which
 * saw the '[' and nothing after it, is first fed a muted "[]" if an
 * element was read, so that it expects "," or "]" as it would have;
 * every syntax error and its message therefore still come from yajl.
 * SF_JSON_SLOW=1 in the environment turns the fast path off (the
 * property test compares both); SF_JSON_STRICT=1 makes leaving it, or a
 * stacks or samples section it did not read, an error, so that a test
 * can tell that the writer's own documents take it from end to end.
 */

#define FAST_CARRY (64u << 10) /* a longer element goes to yajl */
#define FAST_NUM 64            /* so does a longer number */

enum fast_st { FAST_MORE, FAST_STOP, FAST_ERR };

/* The end of the JSON number at p (strict grammar), or NULL when p holds
 * none or it runs into e (it may go on in the next piece). */
static const unsigned char *num_end(const unsigned char *p,
				    const unsigned char *e)
{
#define DIGIT(c) ((unsigned)((c) - '0') < 10)
	if (p < e && *p == '-')
		p++;
	if (p >= e || !DIGIT(*p))
		return NULL;
	if (*p == '0')
		p++;
	else
		while (p < e && DIGIT(*p))
			p++;
	if (p < e && *p == '.') {
		if (++p >= e || !DIGIT(*p))
			return NULL;
		while (p < e && DIGIT(*p))
			p++;
	}
	if (p < e && (*p == 'e' || *p == 'E')) {
		if (++p < e && (*p == '+' || *p == '-'))
			p++;
		if (p >= e || !DIGIT(*p))
			return NULL;
		while (p < e && DIGIT(*p))
			p++;
	}
	return p < e ? p : NULL;
#undef DIGIT
}

/*
 * Read whole elements of the section from b[0..n): *used is the bytes
 * taken, which end at an element boundary.  FAST_MORE: the rest is an
 * element cut by the end of the piece; FAST_STOP: the rest is not the
 * writer's layout (or is the section's end) and goes to yajl; FAST_ERR:
 * an element is invalid (r->rc).
 */
static enum fast_st fast_section(struct rd *r, const unsigned char *b,
				 size_t n, size_t *used)
{
	const unsigned char *p = b, *e = b + n, *q;
	size_t maxnum = r->ctx->limits.max_name < FAST_NUM ?
				(size_t)r->ctx->limits.max_name :
				FAST_NUM;

	*used = 0;
	for (;;) {
		/* the separator the writer puts before the element */
		if (r->fast_n) {
			if (p >= e)
				return FAST_MORE;
			if (*p++ != ',')
				return FAST_STOP;
		}
		if (e - p < 2)
			return FAST_MORE;
		if (p[0] != '\n' || p[1] != '[')
			return FAST_STOP;
		p += 2;
		r->n = r->okm = r->nullm = 0;
		r->wbad = false;
		for (;;) {
			if (p >= e)
				return FAST_MORE;
			if (*p == 'n') {
				if (e - p < 4)
					return FAST_MORE;
				if (memcmp(p, "null", 4))
					return FAST_STOP;
				elem_field(r, V_NULL, NULL, 0);
				p += 4;
			} else {
				q = num_end(p, e);
				if (!q)
					return e - p <= FAST_NUM ?
						       FAST_MORE : FAST_STOP;
				if ((size_t)(q - p) > maxnum)
					return FAST_STOP;
				elem_field(r, V_NUM, (const char *)p,
					   (size_t)(q - p));
				p = q;
			}
			if (p >= e)
				return FAST_MORE;
			if (*p == ']')
				break;
			if (*p++ != ',')
				return FAST_STOP;
		}
		p++;
		r->fast_line++;
		if (!elem_end(r))
			return FAST_ERR;
		r->fast_n++;
		*used = (size_t)(p - b);
	}
}

/* yajl parses b[0..n), which starts on line r->lnum. */
static int feed(struct rd *r, const unsigned char *b, size_t n)
{
	yajl_status st;

	if (!n)
		return 0;
	r->chunk = b;
	r->line0 = r->lnum;
	st = yajl_parse(r->h, b, n);
	if (st != yajl_status_ok)
		return parse_error(r, st, false);
	if (r->capturing &&
	    !def_append(r, &r->def[r->capturing], b + r->cap_from,
			n - r->cap_from))
		return r->rc;
	r->cap_from = 0;
	r->lnum += sf_json__count_nl(b, n);
	return 0;
}

/* Has yajl just opened a section the fast path can take? */
static bool fast_can(const struct rd *r)
{
	return !r->slow && r->depth == 2 && !r->skip && !r->capturing &&
	       r->ctx->limits.max_nesting > 2 &&
	       (r->key == K_SAMPLES || r->key == K_STACKS);
}

/* Give the section back to yajl at the fast path's last boundary, which
 * is b[0] (n bytes left). */
static int fast_stop(struct rd *r, const unsigned char *b, size_t n)
{
	if (r->strict && (!n || b[0] != ']')) {
		fail(r, key_names[r->key], false,
		     "SF_JSON_STRICT: not the writer's layout");
		return r->rc;
	}
	r->fast = false;
	r->lnum = r->fast_line;
	if (r->fast_n) {
		/* "[]" in place of the elements read: yajl now expects ","
		 * or "]"; skipped, so no callback sees it */
		r->skip = r->depth + 1;
		r->chunk = NULL;
		yajl_parse(r->h, (const unsigned char *)"[]", 2);
	}
	return 0;
}

/* After b[0..n): where yajl may open a section for the fast path (just
 * after its '['), or NULL.  Only "\n" "\"samples\":[" as the writer puts
 * it is looked for; a raw LF cannot be inside a JSON string. */
static const unsigned char *fast_mark(const struct rd *r,
				      const unsigned char *b, size_t n)
{
	static const char sm[] = "\n\"samples\":[", st[] = "\n\"stacks\":[";
	const unsigned char *p = b, *e = b + n;

	if (r->slow || (r->done[K_SAMPLES] && r->done[K_STACKS]))
		return NULL;
	while ((p = memchr(p, '\n', (size_t)(e - p)))) {
		if ((size_t)(e - p) >= sizeof(sm) - 1 &&
		    !memcmp(p, sm, sizeof(sm) - 1))
			return p + sizeof(sm) - 1;
		if ((size_t)(e - p) >= sizeof(st) - 1 &&
		    !memcmp(p, st, sizeof(st) - 1))
			return p + sizeof(st) - 1;
		p++;
	}
	return NULL;
}

/* Parse buf[0..avail) (the end of the input if `eof`): returns the bytes
 * taken; the rest is kept for the next piece. */
static int parse_piece(struct rd *r, const unsigned char *buf, size_t avail,
		       bool eof, size_t *taken)
{
	size_t pos = 0, used;
	int rc;

	while (pos < avail) {
		if (r->fast) {
			enum fast_st st = fast_section(r, buf + pos,
						       avail - pos, &used);
			pos += used;
			if (st == FAST_ERR)
				return r->rc;
			if (st == FAST_MORE && !eof &&
			    avail - pos <= FAST_CARRY)
				break;
			if ((rc = fast_stop(r, buf + pos, avail - pos)))
				return rc;
			continue;
		}
		const unsigned char *m = fast_mark(r, buf + pos, avail - pos);
		if (m) {
			size_t k = (size_t)(m - (buf + pos));
			if ((rc = feed(r, buf + pos, k)))
				return rc;
			pos += k;
			if (fast_can(r)) {
				r->fast = true;
				r->took[r->key] = true;
				r->fast_n = 0;
				r->fast_line = r->lnum;
			}
			continue;
		}
		/* a mark may be cut by the end of the piece */
		size_t keep = eof ? 0 : avail - pos < 12 ? avail - pos : 12;
		if ((rc = feed(r, buf + pos, avail - pos - keep)))
			return rc;
		pos = avail - keep;
		break;
	}
	*taken = pos;
	return 0;
}

static int json_read(struct sf_profile *p, struct sf_input *in,
		     struct sf_ctx *ctx)
{
	struct jscan scan = { 0 };
	struct rd r = { 0 };
	const char *slow = getenv("SF_JSON_SLOW");
	const char *strict = getenv("SF_JSON_STRICT");
	unsigned char *buf = sf_malloc(JSON_CHUNK + FAST_CARRY + 16);
	size_t carry = 0, taken = 0;
	yajl_status st;
	int rc = 0;

	r.p = p;
	r.ctx = ctx;
	r.name = sf_input_name(in);
	r.line0 = r.lnum = 1;
	r.slow = slow && *slow && strcmp(slow, "0");
	r.strict = strict && *strict && strcmp(strict, "0");
	r.first_input = !p->d.nsamples;
	if (!buf || !(r.h = json_parser(&r))) {
		free(buf);
		return sf_error_nomem(ctx);
	}
	for (;;) {
		if (sf_interrupted(ctx)) {
			rc = sf_error(ctx, SF_EINTR, NULL, 0, "interrupted");
			goto out;
		}
		long n = sf_input_read_some(in, ctx, buf + carry, JSON_CHUNK);
		if (n < 0) {
			rc = (int)n;
			goto out;
		}
		if (n > 0) {
			if ((rc = sf_json__scan(&scan, buf + carry, (size_t)n,
						in, ctx,
						r.lnum + sf_json__count_nl(
								 buf, carry))))
				goto out;
			r.last_nl = buf[carry + (size_t)n - 1] == '\n';
		}
		if ((rc = parse_piece(&r, buf, carry + (size_t)n, n == 0,
				      &taken)))
			goto out;
		carry = carry + (size_t)n - taken;
		memmove(buf, buf + taken, carry);
		if (n == 0)
			break;
	}
	r.chunk = NULL;
	r.line0 = r.lnum;
	st = yajl_complete_parse(r.h);
	if (st != yajl_status_ok) {
		rc = parse_error(&r, st, true);
		goto out;
	}
	if (r.strict && ((r.seen[K_STACKS] && !r.took[K_STACKS]) ||
			 (r.seen[K_SAMPLES] && !r.took[K_SAMPLES]))) {
		rc = end_fail(&r, "", "SF_JSON_STRICT: a section was not "
				      "read by the fast path");
		goto out;
	}
	rc = finish(&r);
out:
	yajl_free(r.h);
	rd_free(&r);
	free(buf);
	return rc;
}

static const char *const json_ext[] = { ".json", NULL };

const struct sf_format sf_format_json = {
	.name = "json",
	.description = "sftools native JSON, lossless (docs/profile.schema.json)",
	.extensions = json_ext,
	.probe = json_probe,
	.read = json_read,
	.write = sf_json__write,
	.caps = SF_CAP_THREADS | SF_CAP_TIME | SF_CAP_WEIGHTS | SF_CAP_TYPES |
		SF_CAP_INLINE | SF_CAP_LOCATIONS | SF_CAP_LABELS |
		SF_CAP_ORDER,
	.needs_order = true,
	.priority = 5,
};
