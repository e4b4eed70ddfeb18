/*
 * json_events.c - the native JSON reader's handling of yajl's events:
 * what each member of the document means in the model, the sections kept
 * as text until their references are read, and the checks at the end of
 * the document.  json_fast.c drives it (the read loop and the layout fast
 * path); json_read.h is the state they share.  Depth is capped by
 * --max-nesting and every index is validated before it touches the model.
 */
#include "json_read.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *const sf_json__key_names[NKEYS] = {
	"", "format", "version", "meta", "sample_types", "threads", "frames",
	"stacks", "label_sets", "samples",
};

static const struct {
	const char *name;
	enum jmember m;
} member_names[] = {
	{ "name", M_NAME }, { "module", M_MODULE }, { "file", M_FILE },
	{ "kind", M_KIND }, { "line", M_LINE }, { "column", M_COLUMN },
	{ "aux", M_AUX }, { "address", M_ADDRESS }, { "inline", M_INLINE },
	{ "offset", M_OFFSET },
	{ "pid", M_PID }, { "tid", M_TID }, { "input", M_INPUT },
	{ "type", M_TYPE }, { "unit", M_UNIT },
	{ "source_format", M_SOURCE }, { "period_type", M_PERIOD_TYPE },
	{ "period", M_PERIOD }, { "start_time", M_START },
	{ "duration", M_DURATION }, { "default_sample_type", M_DEFAULT },
	{ "properties", M_PROPS },
};

int sf_json__u32v_reserve(struct u32v *a, size_t n)
{
	size_t bytes = a->cap * sizeof(*a->v);

	if (n <= a->cap)
		return 0;
	if (n > SIZE_MAX / sizeof(*a->v) ||
	    sf_big_resize(&a->v, &bytes, n * sizeof(*a->v)))
		return -1;
	a->cap = bytes / sizeof(*a->v);
	return 0;
}

static void u32v_free(struct u32v *a)
{
	sf_big_free(a->v, a->cap * sizeof(*a->v));
}

static int u32v_push(struct rd *r, struct u32v *a, uint32_t x)
{
	bool fill = false;

	if (!a->moved) {
		if (x == a->n) {
			a->n++;
			return 1;
		}
		fill = true;    /* the identity so far is written out first */
	}
	if (a->n >= a->cap) {
		size_t cap = a->cap ? a->cap : 64;
		while (cap <= a->n)
			cap *= 2;
		if (sf_json__u32v_reserve(a, cap)) {
			r->rc = sf_error_nomem(r->ctx);
			return 0;
		}
	}
	if (fill) {
		for (size_t i = 0; i < a->n; i++)
			a->v[i] = (uint32_t)i;
		a->moved = true;
	}
	a->v[a->n++] = x;
	return 1;
}

int sf_json__u32v_run(struct rd *r, struct u32v *a, uint32_t x, size_t m)
{
	/* the identity goes on: nothing to store */
	if (!a->moved && x == a->n) {
		a->n += m;
		return 1;
	}
	if (!u32v_push(r, a, x))
		return 0;
	if (a->n + m - 1 > a->cap &&
	    sf_json__u32v_reserve(a, a->n + m - 1 > 2 * a->cap ?
					     a->n + m - 1 : 2 * a->cap)) {
		r->rc = sf_error_nomem(r->ctx);
		return 0;
	}
	uint32_t *v = a->v + a->n;
	for (size_t i = 1; i < m; i++)
		v[i - 1] = x + (uint32_t)i;
	a->n += m - 1;
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
 * can `return sf_json__fail(...)` to stop yajl.  `path` "" names no member;
 * `indexed` adds the index of the element being read. */
int sf_json__fail(struct rd *r, const char *path, bool indexed,
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
	return sf_json__fail(r, sf_json__key_names[r->key], true, what);
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

int sf_json__def_append(struct rd *r, struct deferred *d,
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
		return sf_json__fail(r, "sample_types", false,
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
void sf_json__elem_field(struct rd *r, enum vkind k, const char *s, size_t n)
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
		case M_OFFSET:
			ival_set(&r->iv[3], k, s, n, 0, INT64_MAX);
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
	if (r->iv[3].set && !r->iv[3].ok)
		return efail(r, "offset: expected an integer");
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
	if (r->iv[3].set)
		f.offset = (uint64_t)r->iv[3].v;
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
		r->w[u32v_at(&r->tmap, t)] += r->wf[t];
	sf_thread_idx th = (r->nullm & 2) ? SF_NO_THREAD :
					    u32v_at(&r->thmap, v[1]);
	int64_t tm = (r->nullm & 4) ? SF_NO_TIME : v[2];
	if (r->hint) {
		size_t h = (size_t)v[0] * r->hstride +
			   ((r->nullm & 2) ? 0 : (size_t)v[1] + 1);
		return model(r, sf_profile_add_sample_hint(
					r->p, r->ctx, u32v_at(&r->smap, v[0]),
					th, u32v_at(&r->lmap, v[3]), tm, r->w,
					&r->hint[h]));
	}
	return model(r, sf_profile_add_sample(r->p, r->ctx,
					      u32v_at(&r->smap, v[0]),
					      th, u32v_at(&r->lmap, v[3]), tm, r->w));
}

int sf_json__elem_end(struct rd *r)
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
						    u32v_at(&r->smap, r->v[0]),
						    u32v_at(&r->fmap, r->v[1]),
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

	return r->key == K_META ? sf_json__fail(r, "meta", false, what) :
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
		return sf_json__fail(r, "meta", false,
				     "period_type needs type and unit");
	case M_PERIOD:
		if (k != V_NUM || !num_double(s, n, &d))
			return sf_json__fail(r, "meta", false,
					     "period: expected a number");
		m->period = d;
		return 1;
	case M_START:
	case M_DURATION:
		if (k != V_NUM || !num_int(s, n, &x) || x == INT64_MIN)
			return sf_json__fail(r, "meta", false,
					     r->sub == M_START ?
					     "start_time: expected an integer" :
					     "duration: expected an integer");
		*(r->sub == M_START ? &m->start_time : &m->duration) = x;
		return 1;
	case M_DEFAULT:
		if (k != V_NUM || !num_int(s, n, &x) || x < 0 ||
		    x > UINT32_MAX)
			return sf_json__fail(r, "meta", false,
					     "default_sample_type: expected an "
					     "index");
		r->has_dt = true;
		r->dt = x;
		return 1;
	case M_PROPS:
		return sf_json__fail(r, "meta", false,
				     "properties: expected an array");
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
			return sf_json__fail(r, "", false,
					     "not an sftools profile "
					     "(\"format\" must "
					     "be \"sftools-profile\")");
		r->format_ok = true;
		return 1;
	case K_VERSION:
		if (k != V_NUM || !num_int(s, n, &x) || x != 1)
			return sf_json__fail(r, "version", false,
					     "unsupported version (this build "
					     "reads "
					     "version 1)");
		r->version_ok = true;
		return 1;
	case K_META:
		return sf_json__fail(r, "meta", false, "expected an object");
	case K_OTHER:
		return 1;
	default:
		/* a section that is null is absent, as json-c's reader
		 * treated it */
		if (k != V_NULL)
			return sf_json__fail(r, sf_json__key_names[r->key],
					     false, "expected an array");
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
		return sf_json__fail(r, "", false, "expected a JSON object");
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
			sf_json__elem_field(r, k, s, n);
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
		return sf_json__fail(r, "", false,
				     "invalid JSON: nesting too deep");
	r->depth++;
	if (r->skip)
		return 1;
	switch (r->depth) {
	case 1:
		if (!map)
			return sf_json__fail(r, "", false,
					     "expected a JSON object");
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
				return sf_json__fail(r, "meta", false,
						     "expected an object");
			r->sub = M_OTHER;
			return 1;
		default:
			if (map)
				return sf_json__fail(
					r, sf_json__key_names[r->key], false,
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
			sf_json__elem_field(r, V_CONTAINER, NULL, 0);
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
			return sf_json__def_append(
				r, t, r->chunk + r->cap_from,
				yajl_get_bytes_consumed(r->h) - r->cap_from);
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
			return sf_json__elem_end(r);
		if (r->sub == M_PERIOD_TYPE) {
			if (!r->pk || !r->pv)
				return sf_json__fail(r, "meta", false,
						     "period_type needs type "
						     "and unit");
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
		sf_json__elem_field(r, V_NUM, s, n);
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
			if (strlen(sf_json__key_names[k]) == n &&
			    !memcmp(sf_json__key_names[k], s, n))
				r->key = (enum jkey)k;
		if (r->key != K_OTHER && r->seen[r->key])
			return sf_json__fail(r, sf_json__key_names[r->key],
					     false, "duplicate member");
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

yajl_handle sf_json__parser(struct rd *r)
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
int sf_json__parse_error(struct rd *r, yajl_status st, bool at_end)
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

	if (!(r->h = sf_json__parser(r))) {
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
		rc = sf_json__parse_error(r, st, false);
	yajl_free(r->h);
	r->h = outer;
	r->chunk = NULL;
	r->line0 = r->end_line;
	free(d->text);
	memset(d, 0, sizeof(*d));
	return rc;
}

int sf_json__end_fail(struct rd *r, const char *path, const char *what)
{
	sf_json__fail(r, path, false, what);
	return r->rc;
}

/* After the whole document: what may only be checked or done at its
 * end. */
int sf_json__finish(struct rd *r)
{
	struct sf_profile *p = r->p;
	uint32_t dt;
	int rc;

	r->chunk = NULL;
	r->line0 = r->end_line;
	if (!r->format_ok)
		return sf_json__end_fail(r, "", "not an sftools profile "
					 "(\"format\" must be "
					 "\"sftools-profile\")");
	if (!r->version_ok)
		return sf_json__end_fail(r,
					 "version", "unsupported version (this "
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
			return sf_json__end_fail(r, sf_json__key_names[k],
						 "missing member");
	}
	dt = r->has_dt ? (uint32_t)r->dt : p->d.meta.default_type;
	if (dt >= r->ntypes)
		return sf_json__end_fail(r, "meta.default_sample_type",
					 "index out of range");
	p->d.meta.default_type = u32v_at(&r->tmap, dt);
	return 0;
}

void sf_json__rd_free(struct rd *r)
{
	u32v_free(&r->tmap);
	u32v_free(&r->thmap);
	u32v_free(&r->fmap);
	/* on a timeline the map of the file's stacks is 4 bytes a node,
	 * faulted in: a writer after loading takes its pages (sfconv's
	 * collapsed records) instead of fresh ones */
	sf_big_give(r->ctx, r->smap.v, r->smap.cap * sizeof(*r->smap.v),
		    r->smap.n * sizeof(*r->smap.v));
	u32v_free(&r->lmap);
	free(r->w);
	free(r->wf);
	free(r->lab);
	free(r->hint);
	for (int k = 0; k < NKEYS; k++)
		free(r->def[k].text);
}
