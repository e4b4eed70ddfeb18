/*
 * fmt_pprof.c - pprof's profile.proto (github.com/google/pprof,
 * proto/profile.proto), read and written with a small protobuf wire-format
 * decoder and encoder of our own (varints, length-delimited fields, packed
 * repeated scalars: all this schema uses).
 *
 * Reading needs random access: Go's encoder writes the samples before the
 * locations, functions and string table they refer to, so the whole
 * decompressed message is held in memory (bounded by --max-decompressed
 * and by protobuf's own 2 GiB message limit).  One pass indexes the tables
 * and checks every varint and length against the bytes left; a second pass
 * turns the samples into the model.  Every malformed byte is reported with
 * its offset in the decompressed stream.  NEEDSWORK: protobuf allows any
 * field order, so a file with its tables before its samples could stream
 * the samples; Go's writer (and ours, which follows it) puts them first.
 *
 * Mapping to the model (docs/formats.md, section "pprof"):
 *   - every sample type, with its unit; the default is default_sample_type,
 *     else the last type (pprof's rule); --sample-type NAME picks another;
 *   - a location with several Line entries becomes several frames: the
 *     first lines are inlined into the last (SF_FRAME_INLINE on all but the
 *     last); frame name = function name, file = function filename, line
 *     and column from the Line, module = the mapping's file name (full
 *     path), address = the location address (when non-zero); a location
 *     without lines is a frame named "0xADDR";
 *   - string labels are model labels; numeric labels are model labels whose
 *     key is "#KEY" and value "NUM" or "NUM UNIT"; labels "thread" /
 *     "thread_name" (name), "tid" / "thread_id" (id) and "pid" (numeric)
 *     become the sample's thread instead;
 *   - period_type, period, time_nanos, duration_nanos into meta;
 *     drop_frames, keep_frames, comments into props "pprof.drop_frames",
 *     "pprof.keep_frames", "pprof.comment.N".
 * Lost: function system_name and start_line, mapping ranges, offsets,
 * build ids and flags, location is_folded.
 *
 * Writing: always gzip (as pprof itself writes); locations deduplicated by
 * their frame sequence (a non-inline frame with the inline frames called
 * from it is one location), functions by (name, file), mappings by module;
 * ids and strings numbered in first-use order, so the bytes depend on the
 * model only.
 */
#include "format.h"
#include "hash.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* protobuf: a message is at most 2 GiB */
#define PB_MAX ((size_t)INT32_MAX)

enum { WT_VARINT = 0, WT_I64 = 1, WT_LEN = 2, WT_I32 = 5 };

/* ------------------------------------------------------------------ */
/* probe */

/* One field at d[*i]: 1 if well formed, 0 if the window ends inside it,
 * -1 if malformed. */
static int probe_varint(const unsigned char *d, size_t n, size_t *i,
			uint64_t *v)
{
	uint64_t x = 0;

	for (unsigned s = 0; s < 64; s += 7) {
		if (*i >= n)
			return 0;
		unsigned char c = d[(*i)++];
		x |= (uint64_t)(c & 0x7f) << s;
		if (!(c & 0x80)) {
			*v = x;
			return 1;
		}
	}
	return -1;
}

/* Are all fields of d[0..n) tags from `ok` (a bit per tag byte < 64)? */
static bool probe_sub(const unsigned char *d, size_t n, uint64_t ok)
{
	size_t i = 0;
	uint64_t v;

	while (i < n) {
		unsigned char t = d[i++];
		if (t >= 64 || !(ok >> t & 1))
			return false;
		if ((t & 7) == WT_VARINT) {
			if (probe_varint(d, n, &i, &v) != 1)
				return false;
		} else if ((t & 7) == WT_LEN) {
			if (probe_varint(d, n, &i, &v) != 1 || v > n - i)
				return false;
			i += v;
		} else {
			return false;
		}
	}
	return true;
}

static int pprof_probe(const unsigned char *d, size_t n)
{
	size_t i = 0, fields = 0;
	bool core = false;

	while (i < n) {
		uint64_t tag, v;
		int r = probe_varint(d, n, &i, &tag);
		if (r < 0)
			return 0;
		if (r == 0)
			break;
		unsigned f = (unsigned)(tag >> 3), wt = (unsigned)(tag & 7);
		bool len = f <= 6 || f == 11 || (f == 13 && wt == WT_LEN);
		if (f == 0 || f > 15 || wt != (len ? WT_LEN : WT_VARINT))
			return 0;
		if ((r = probe_varint(d, n, &i, &v)) < 0)
			return 0;
		if (r == 0)
			break;
		fields++;
		if (!len)
			continue;
		if (v > PB_MAX)
			return 0;
		if (v > n - i) {
			/* cut by the window: only the start can be checked */
			if (fields == 1 && i + 16 > n)
				return 0;
			break;
		}
		/* look inside the messages whose shape is most telling */
		if ((f == 1 || f == 11) &&
		    !probe_sub(d + i, v, 1ull << 0x08 | 1ull << 0x10))
			return 0;
		if (f == 2 && !probe_sub(d + i, v, 1ull << 0x08 | 1ull << 0x0a |
					 1ull << 0x10 | 1ull << 0x12 |
					 1ull << 0x1a))
			return 0;
		if (f <= 2 || f == 4)
			core = true;
		i += v;
	}
	return core && fields >= 2 ? 20 : 0;
}

/* ------------------------------------------------------------------ */
/* reading */

struct pstr { uint32_t off, len; };

struct vtype { uint64_t type, unit; size_t at; };

struct pmap { uint64_t id, filename; size_t at; };

struct pfunc { uint64_t id, name, filename; size_t at; };

struct pline { uint64_t func; int64_t line, column; };

struct ploc {
	uint64_t id, mapping, address;
	size_t line0, nlines;     /* into rd.lines */
	size_t at;
	uint32_t frame0, nframes; /* into rd.frames, after resolution */
};

/* id -> index: a direct table when ids are dense, else sorted pairs */
struct idpair { uint64_t id; uint32_t idx; };
struct idmap {
	uint32_t *direct;   /* idx + 1, 0 = absent */
	size_t ndirect;
	struct idpair *pairs;
	size_t n;
};

struct rd {
	struct sf_profile *p;
	struct sf_ctx *ctx;
	const char *name;
	const unsigned char *b;
	size_t size;
	uint64_t base;            /* stream offset of b[0] */
	bool top;                 /* decoding a top-level field (messages) */

	struct pstr *strs;
	size_t nstrs, cstrs;
	struct vtype *types;
	size_t ntypes, ctypes;
	struct pmap *maps;
	size_t nmaps, cmaps;
	struct pfunc *funcs;
	size_t nfuncs, cfuncs;
	struct ploc *locs;
	size_t nlocs, clocs;
	struct pline *lines;
	size_t nlines, clines;
	uint64_t *comments;
	size_t ncomments, ccomments;
	struct vtype period_type;
	bool has_period_type;
	int64_t period, time_nanos, duration_nanos;
	uint64_t drop, keep, default_type;

	struct idmap mapmap, funcmap, locmap;
	sf_frame_id *frames;      /* per location, leaf first */
	size_t nframes;
	const char **map_names;   /* interned mapping file names */
	uint32_t *tmap;           /* file sample type -> model type */
	uint64_t *locbuf;
	size_t clocbuf;
	sf_frame_id *stackbuf;
	size_t cstackbuf;
	struct sf_label *labels;
	size_t clabels;
	char *scratch;            /* numeric label texts */
	size_t cscratch;
};

static int bad(struct rd *r, size_t at, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int bad(struct rd *r, size_t at, const char *fmt, ...)
{
	char msg[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return sf_error_at(r->ctx, SF_EINPUT, r->name, r->base + at, "%s",
			   msg);
}

static int oom(struct rd *r)
{
	return sf_error(r->ctx, SF_ENOMEM, NULL, 0, "out of memory");
}

/* Make room for one more element in a growable array. */
static int more(struct rd *r, void **a, size_t *cap, size_t n, size_t size)
{
	if (n < *cap)
		return 0;
	size_t nc = *cap ? *cap * 2 : 64;
	void *na = sf_reallocarray(*a, nc, size);
	if (!na)
		return oom(r);
	*a = na;
	*cap = nc;
	return 0;
}

#define MORE(r, arr, n, c) more(r, (void **)&(r)->arr, &(r)->c, (r)->n, \
				sizeof(*(r)->arr))

static int rd_varint(struct rd *r, size_t *pos, size_t end, uint64_t *v)
{
	uint64_t x = 0;
	size_t i = *pos;

	for (unsigned s = 0;; s += 7) {
		if (i >= end)
			return bad(r, *pos, "truncated varint (the %s ends "
				   "inside it)",
				   r->top ? "input" : "enclosing message");
		unsigned char c = r->b[i++];
		if (s == 63 && c > 1)
			return bad(r, *pos, "malformed varint (more than 64 "
				   "bits)");
		x |= (uint64_t)(c & 0x7f) << s;
		if (!(c & 0x80))
			break;
	}
	*pos = i;
	*v = x;
	return 0;
}

struct field {
	uint32_t num;
	unsigned wt;
	uint64_t v;          /* varint value, or length */
	size_t at;           /* offset of the tag */
	size_t data;         /* offset of the payload (WT_LEN) */
};

/* Next field of the message ending at `end`. */
static int rd_field(struct rd *r, size_t *pos, size_t end, struct field *f)
{
	uint64_t tag;
	int rc;

	f->at = *pos;
	if ((rc = rd_varint(r, pos, end, &tag)))
		return rc;
	f->num = (uint32_t)(tag >> 3);
	f->wt = (unsigned)(tag & 7);
	if ((tag >> 3) == 0 || (tag >> 3) > 0x1fffffff)
		return bad(r, f->at, "invalid protobuf field number %" PRIu64,
			   tag >> 3);
	switch (f->wt) {
	case WT_VARINT:
		return rd_varint(r, pos, end, &f->v);
	case WT_I64:
	case WT_I32: {
		size_t k = f->wt == WT_I64 ? 8 : 4;
		if (end - *pos < k)
			return bad(r, f->at, "truncated fixed-size field %u",
				   f->num);
		f->v = 0;
		for (size_t i = 0; i < k; i++)
			f->v |= (uint64_t)r->b[*pos + i] << (8 * i);
		*pos += k;
		return 0;
	}
	case WT_LEN: {
		size_t lat = *pos;
		if ((rc = rd_varint(r, pos, end, &f->v)))
			return rc;
		if (f->v > end - *pos)
			return bad(r, lat, "length %" PRIu64 " of field %u "
				   "runs past the end of the %s (%zu bytes "
				   "left)", f->v, f->num,
				   r->top ? "input" : "enclosing message",
				   end - *pos);
		f->data = *pos;
		*pos += f->v;
		return 0;
	}
	default:
		return bad(r, f->at, "unsupported protobuf wire type %u "
			   "(field %u)", f->wt, f->num);
	}
}

static int want_wt(struct rd *r, const struct field *f, unsigned wt,
		   const char *msg)
{
	if (f->wt == wt)
		return 0;
	return bad(r, f->at, "field %u of %s has wire type %u, expected %u",
		   f->num, msg, f->wt, wt);
}

/* A repeated scalar, packed or not: calls `each` per value. */
static int rd_repeated(struct rd *r, const struct field *f, const char *msg,
		       int (*each)(struct rd *, void *, uint64_t, size_t),
		       void *arg)
{
	int rc;

	if (f->wt == WT_VARINT)
		return each(r, arg, f->v, f->at);
	if (f->wt != WT_LEN)
		return want_wt(r, f, WT_LEN, msg);
	size_t pos = f->data, end = f->data + f->v;
	while (pos < end) {
		size_t at = pos;
		uint64_t v;
		if ((rc = rd_varint(r, &pos, end, &v)) ||
		    (rc = each(r, arg, v, at)))
			return rc;
	}
	return 0;
}

static int rd_vtype(struct rd *r, const struct field *f, struct vtype *t)
{
	size_t pos = f->data, end = f->data + f->v;
	struct field g;
	int rc;

	t->type = t->unit = 0;
	t->at = f->at;
	while (pos < end) {
		if ((rc = rd_field(r, &pos, end, &g)))
			return rc;
		if (g.num == 1 || g.num == 2) {
			if ((rc = want_wt(r, &g, WT_VARINT, "ValueType")))
				return rc;
			*(g.num == 1 ? &t->type : &t->unit) = g.v;
		}
	}
	return 0;
}

static int rd_mapping(struct rd *r, const struct field *f)
{
	size_t pos = f->data, end = f->data + f->v;
	struct pmap m = { 0, 0, f->at };
	struct field g;
	int rc;

	while (pos < end) {
		if ((rc = rd_field(r, &pos, end, &g)))
			return rc;
		if (g.num >= 1 && g.num <= 10 &&
		    (rc = want_wt(r, &g, WT_VARINT, "Mapping")))
			return rc;
		if (g.num == 1)
			m.id = g.v;
		else if (g.num == 5)
			m.filename = g.v;
	}
	if ((rc = MORE(r, maps, nmaps, cmaps)))
		return rc;
	r->maps[r->nmaps++] = m;
	return 0;
}

static int rd_function(struct rd *r, const struct field *f)
{
	size_t pos = f->data, end = f->data + f->v;
	struct pfunc fn = { 0, 0, 0, f->at };
	struct field g;
	int rc;

	while (pos < end) {
		if ((rc = rd_field(r, &pos, end, &g)))
			return rc;
		if (g.num >= 1 && g.num <= 5 &&
		    (rc = want_wt(r, &g, WT_VARINT, "Function")))
			return rc;
		if (g.num == 1)
			fn.id = g.v;
		else if (g.num == 2)
			fn.name = g.v;
		else if (g.num == 4)
			fn.filename = g.v;
	}
	if ((rc = MORE(r, funcs, nfuncs, cfuncs)))
		return rc;
	r->funcs[r->nfuncs++] = fn;
	return 0;
}

static int rd_location(struct rd *r, const struct field *f)
{
	size_t pos = f->data, end = f->data + f->v;
	struct ploc l = { 0 };
	struct field g, h;
	int rc;

	l.at = f->at;
	l.line0 = r->nlines;
	while (pos < end) {
		if ((rc = rd_field(r, &pos, end, &g)))
			return rc;
		if (g.num == 4) {
			struct pline ln = { 0, 0, 0 };
			size_t p2 = g.data, e2 = g.data + g.v;
			if ((rc = want_wt(r, &g, WT_LEN, "Location")))
				return rc;
			while (p2 < e2) {
				if ((rc = rd_field(r, &p2, e2, &h)))
					return rc;
				if (h.num >= 1 && h.num <= 3 &&
				    (rc = want_wt(r, &h, WT_VARINT, "Line")))
					return rc;
				if (h.num == 1)
					ln.func = h.v;
				else if (h.num == 2)
					ln.line = (int64_t)h.v;
				else if (h.num == 3)
					ln.column = (int64_t)h.v;
			}
			if ((rc = MORE(r, lines, nlines, clines)))
				return rc;
			r->lines[r->nlines++] = ln;
			continue;
		}
		if (g.num >= 1 && g.num <= 5 &&
		    (rc = want_wt(r, &g, WT_VARINT, "Location")))
			return rc;
		if (g.num == 1)
			l.id = g.v;
		else if (g.num == 2)
			l.mapping = g.v;
		else if (g.num == 3)
			l.address = g.v;
	}
	l.nlines = r->nlines - l.line0;
	if ((rc = MORE(r, locs, nlocs, clocs)))
		return rc;
	r->locs[r->nlocs++] = l;
	return 0;
}

static int add_comment(struct rd *r, void *arg, uint64_t v, size_t at)
{
	int rc;

	(void)arg;
	(void)at;
	if ((rc = MORE(r, comments, ncomments, ccomments)))
		return rc;
	r->comments[r->ncomments++] = v;
	return 0;
}

/* Pass 1: the top level, everything but the samples. */
static int pass_tables(struct rd *r)
{
	size_t pos = 0;
	struct field f;
	int rc;

	while (pos < r->size) {
		r->top = true;
		rc = rd_field(r, &pos, r->size, &f);
		r->top = false;
		if (rc)
			return rc;
		switch (f.num) {
		case 1:
			if ((rc = want_wt(r, &f, WT_LEN, "Profile")) ||
			    (rc = MORE(r, types, ntypes, ctypes)) ||
			    (rc = rd_vtype(r, &f, &r->types[r->ntypes])))
				return rc;
			r->ntypes++;
			break;
		case 2:
			if ((rc = want_wt(r, &f, WT_LEN, "Profile")))
				return rc;
			break;
		case 3:
			if ((rc = want_wt(r, &f, WT_LEN, "Profile")) ||
			    (rc = rd_mapping(r, &f)))
				return rc;
			break;
		case 4:
			if ((rc = want_wt(r, &f, WT_LEN, "Profile")) ||
			    (rc = rd_location(r, &f)))
				return rc;
			break;
		case 5:
			if ((rc = want_wt(r, &f, WT_LEN, "Profile")) ||
			    (rc = rd_function(r, &f)))
				return rc;
			break;
		case 6:
			if ((rc = want_wt(r, &f, WT_LEN, "Profile")) ||
			    (rc = MORE(r, strs, nstrs, cstrs)))
				return rc;
			r->strs[r->nstrs].off = (uint32_t)f.data;
			r->strs[r->nstrs].len = (uint32_t)f.v;
			r->nstrs++;
			break;
		case 11:
			if ((rc = want_wt(r, &f, WT_LEN, "Profile")) ||
			    (rc = rd_vtype(r, &f, &r->period_type)))
				return rc;
			r->has_period_type = true;
			break;
		case 13:
			if ((rc = rd_repeated(r, &f, "Profile", add_comment,
					      NULL)))
				return rc;
			break;
		case 7: case 8: case 9: case 10: case 12: case 14:
			if ((rc = want_wt(r, &f, WT_VARINT, "Profile")))
				return rc;
			if (f.num == 7)
				r->drop = f.v;
			else if (f.num == 8)
				r->keep = f.v;
			else if (f.num == 9)
				r->time_nanos = (int64_t)f.v;
			else if (f.num == 10)
				r->duration_nanos = (int64_t)f.v;
			else if (f.num == 12)
				r->period = (int64_t)f.v;
			else
				r->default_type = f.v;
			break;
		default:
			break;   /* unknown fields are skipped (protobuf) */
		}
	}
	return 0;
}

/* String `idx`, checked; `at` is where the reference is, for messages. */
static int str_at(struct rd *r, uint64_t idx, size_t at, const char **s,
		  size_t *len)
{
	*s = "";
	*len = 0;
	if (idx >= r->nstrs)
		return bad(r, at, "string index %" PRIu64 " out of range (the "
			   "string table has %zu entries)", idx, r->nstrs);
	*s = (const char *)r->b + r->strs[idx].off;
	*len = r->strs[idx].len;
	return 0;
}

static const char *intern(struct rd *r, uint64_t idx, size_t at, int *rc)
{
	const char *s = NULL;
	size_t len = 0;

	if ((*rc = str_at(r, idx, at, &s, &len)))
		return NULL;
	if (len > r->ctx->limits.max_name) {
		*rc = bad(r, at, "string of %zu bytes exceeds --max-name", len);
		return NULL;
	}
	s = sf_profile_strn(r->p, r->ctx, s, len);
	if (!s)
		*rc = SF_ENOMEM;
	return s;
}

static int pair_cmp(const void *a, const void *b)
{
	const struct idpair *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/* Build an id map over n records whose ids are at `ids` with `stride`. */
static int idmap_build(struct rd *r, struct idmap *m, const void *base,
		       size_t n, size_t stride, size_t at_off, const char *what)
{
	uint64_t max = 0;

	if (!n)
		return 0;
	if (!(m->pairs = sf_calloc(n, sizeof(*m->pairs))))
		return oom(r);
	for (size_t i = 0; i < n; i++) {
		const char *rec = (const char *)base + i * stride;
		uint64_t id;
		memcpy(&id, rec, sizeof(id));   /* `id` is the first member */
		m->pairs[i].id = id;
		m->pairs[i].idx = (uint32_t)i;
		if (id > max)
			max = id;
	}
	qsort(m->pairs, n, sizeof(*m->pairs), pair_cmp);
	m->n = n;
	for (size_t i = 1; i < n; i++)
		if (m->pairs[i].id == m->pairs[i - 1].id) {
			size_t at;
			uint32_t k = m->pairs[i].idx > m->pairs[i - 1].idx ?
				     m->pairs[i].idx : m->pairs[i - 1].idx;
			memcpy(&at, (const char *)base + k * stride + at_off,
			       sizeof(at));
			return bad(r, at, "duplicate %s id %" PRIu64, what,
				   m->pairs[i].id);
		}
	if (max <= 4 * (uint64_t)n + 1024) {
		if (!(m->direct = sf_calloc((size_t)max + 1,
					    sizeof(*m->direct))))
			return oom(r);
		m->ndirect = (size_t)max + 1;
		for (size_t i = 0; i < n; i++)
			m->direct[m->pairs[i].id] = m->pairs[i].idx + 1;
	}
	return 0;
}

/* Index of `id`, or -1. */
static long idmap_get(const struct idmap *m, uint64_t id)
{
	if (m->direct)
		return id < m->ndirect ? (long)m->direct[id] - 1 : -1;
	size_t lo = 0, hi = m->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (m->pairs[mid].id < id)
			lo = mid + 1;
		else if (m->pairs[mid].id > id)
			hi = mid;
		else
			return m->pairs[mid].idx;
	}
	return -1;
}

static void idmap_free(struct idmap *m)
{
	free(m->direct);
	free(m->pairs);
}

/* Resolve every location into frames, leaf (innermost inline) first. */
static int resolve_locations(struct rd *r)
{
	int rc;

	for (size_t i = 0; i < r->nmaps; i++)
		if (!r->maps[i].id)
			return bad(r, r->maps[i].at, "mapping with the "
				   "reserved id 0");
	for (size_t i = 0; i < r->nfuncs; i++)
		if (!r->funcs[i].id)
			return bad(r, r->funcs[i].at, "function with the "
				   "reserved id 0");
	for (size_t i = 0; i < r->nlocs; i++)
		if (!r->locs[i].id)
			return bad(r, r->locs[i].at, "location with the "
				   "reserved id 0");
	if ((rc = idmap_build(r, &r->mapmap, r->maps, r->nmaps,
			      sizeof(*r->maps), offsetof(struct pmap, at),
			      "mapping")) ||
	    (rc = idmap_build(r, &r->funcmap, r->funcs, r->nfuncs,
			      sizeof(*r->funcs), offsetof(struct pfunc, at),
			      "function")) ||
	    (rc = idmap_build(r, &r->locmap, r->locs, r->nlocs,
			      sizeof(*r->locs), offsetof(struct ploc, at),
			      "location")))
		return rc;
	if (r->nmaps && !(r->map_names = sf_calloc(r->nmaps,
						    sizeof(*r->map_names))))
		return oom(r);
	for (size_t i = 0; i < r->nmaps; i++) {
		const char *s;
		size_t len;
		if ((rc = str_at(r, r->maps[i].filename, r->maps[i].at, &s,
				 &len)))
			return rc;
		if (len && !(r->map_names[i] = intern(r, r->maps[i].filename,
						      r->maps[i].at, &rc)))
			return rc;
	}
	size_t total = 0;
	for (size_t i = 0; i < r->nlocs; i++)
		total += r->locs[i].nlines ? r->locs[i].nlines : 1;
	if (total && !(r->frames = sf_calloc(total, sizeof(*r->frames))))
		return oom(r);
	for (size_t i = 0; i < r->nlocs; i++) {
		struct ploc *l = &r->locs[i];
		struct sf_frame f;
		const char *module = NULL;
		if (l->mapping) {
			long m = idmap_get(&r->mapmap, l->mapping);
			if (m < 0)
				return bad(r, l->at, "location %" PRIu64
					   " refers to mapping %" PRIu64
					   ", which is not in the profile",
					   l->id, l->mapping);
			module = r->map_names[m];
		}
		l->frame0 = (uint32_t)r->nframes;
		if (!l->nlines) {
			char name[32];
			sf_frame_init(&f);
			snprintf(name, sizeof(name), "0x%" PRIx64, l->address);
			f.name = name;
			f.module = module;
			if (l->address)
				f.address = l->address;
			if ((rc = sf_profile_frame(r->p, r->ctx, &f,
						   &r->frames[r->nframes++])))
				return rc;
		}
		for (size_t k = 0; k < l->nlines; k++) {
			const struct pline *ln = &r->lines[l->line0 + k];
			sf_frame_init(&f);
			f.name = "";
			f.module = module;
			if (l->address)
				f.address = l->address;
			if (ln->func) {
				long fi = idmap_get(&r->funcmap, ln->func);
				if (fi < 0)
					return bad(r, l->at, "location %"
						   PRIu64 " refers to function "
						   "%" PRIu64 ", which is not "
						   "in the profile", l->id,
						   ln->func);
				const struct pfunc *fn = &r->funcs[fi];
				if (!(f.name = intern(r, fn->name, fn->at,
						      &rc)))
					return rc;
				if (fn->filename &&
				    !(f.file = intern(r, fn->filename, fn->at,
						      &rc)))
					return rc;
			}
			if (ln->line > 0 && ln->line <= UINT32_MAX)
				f.line = (uint32_t)ln->line;
			if (ln->column > 0 && ln->column <= UINT32_MAX)
				f.column = (uint32_t)ln->column;
			if (k + 1 < l->nlines)
				f.flags |= SF_FRAME_INLINE;
			if ((rc = sf_profile_frame(r->p, r->ctx, &f,
						   &r->frames[r->nframes++])))
				return rc;
		}
		l->nframes = (uint32_t)(r->nframes - l->frame0);
	}
	return 0;
}

static int add_locid(struct rd *r, void *arg, uint64_t v, size_t at)
{
	size_t *n = arg;

	(void)at;
	if (*n >= r->clocbuf) {
		size_t nc = r->clocbuf ? r->clocbuf * 2 : 256;
		uint64_t *nb = sf_reallocarray(r->locbuf, nc, sizeof(*nb));
		if (!nb)
			return oom(r);
		r->locbuf = nb;
		r->clocbuf = nc;
	}
	r->locbuf[(*n)++] = v;
	return 0;
}

struct valctx { double *w; size_t n; size_t at; };

static int add_value(struct rd *r, void *arg, uint64_t v, size_t at)
{
	struct valctx *vc = arg;

	if (vc->n >= r->ntypes)
		return bad(r, at, "sample has more values than the %zu sample "
			   "types", r->ntypes);
	vc->w[r->tmap[vc->n++]] += (double)(int64_t)v;
	return 0;
}

/* Label texts are built in r->scratch and referred to by offset (the
 * buffer may move while a sample's labels are collected). */
static int scratch_put(struct rd *r, size_t *used, const char *s, size_t len)
{
	if (*used + len + 1 > r->cscratch) {
		size_t nc = r->cscratch ? r->cscratch : 256;
		while (nc < *used + len + 1)
			nc *= 2;
		char *ns = realloc(r->scratch, nc);
		if (!ns)
			return oom(r);
		r->scratch = ns;
		r->cscratch = nc;
	}
	memcpy(r->scratch + *used, s, len);
	*used += len;
	return 0;
}

/* Terminate the text being built. */
static int scratch_end(struct rd *r, size_t *used)
{
	int rc = scratch_put(r, used, "", 1);

	r->scratch[*used - 1] = 0;
	return rc;
}

static bool is_key(const char *s, size_t len, const char *k)
{
	return strlen(k) == len && !memcmp(s, k, len);
}

static bool digits_i64(const char *s, size_t len, int64_t *out)
{
	int64_t v = 0;

	if (!len || len > 18)
		return false;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		v = v * 10 + (s[i] - '0');
	}
	*out = v;
	return true;
}

/* One Sample message into the model. */
static int rd_sample(struct rd *r, const struct field *sf, double *w)
{
	size_t pos = sf->data, end = sf->data + sf->v;
	size_t nloc = 0, used = 0;
	struct valctx vc = { w, 0, sf->at };
	struct field g;
	int rc;
	/* label bookkeeping: offsets into scratch, resolved at the end */
	struct { size_t k, v; } *tmp = NULL;
	const char *tname = NULL;
	int64_t tid = SF_NO_ID, pid = SF_NO_ID;
	bool has_thread = false;
	size_t ntmp = 0, ctmp = 0;

	memset(w, 0, r->p->d.ntypes * sizeof(*w));
	while (pos < end) {
		if ((rc = rd_field(r, &pos, end, &g)))
			goto out;
		if (g.num == 1) {
			if ((rc = rd_repeated(r, &g, "Sample", add_locid,
					      &nloc)))
				goto out;
		} else if (g.num == 2) {
			if ((rc = rd_repeated(r, &g, "Sample", add_value,
					      &vc)))
				goto out;
		} else if (g.num == 3) {
			uint64_t key = 0, str = 0, unit = 0;
			int64_t num = 0;
			size_t p2 = g.data, e2 = g.data + g.v;
			struct field h;
			const char *ks, *vs, *us;
			size_t kl, vl, ul;
			if ((rc = want_wt(r, &g, WT_LEN, "Sample")))
				goto out;
			while (p2 < e2) {
				if ((rc = rd_field(r, &p2, e2, &h)))
					goto out;
				if (h.num >= 1 && h.num <= 4 &&
				    (rc = want_wt(r, &h, WT_VARINT, "Label")))
					goto out;
				if (h.num == 1)
					key = h.v;
				else if (h.num == 2)
					str = h.v;
				else if (h.num == 3)
					num = (int64_t)h.v;
				else if (h.num == 4)
					unit = h.v;
			}
			/* pprof ignores a label with neither a string nor a
			 * number */
			if (!str && !num && !unit)
				continue;
			if ((rc = str_at(r, key, g.at, &ks, &kl)) ||
			    (rc = str_at(r, str, g.at, &vs, &vl)) ||
			    (rc = str_at(r, unit, g.at, &us, &ul)))
				goto out;
			if (str) {
				if (is_key(ks, kl, "thread") ||
				    is_key(ks, kl, "thread_name")) {
					if (!(tname = intern(r, str, g.at,
							     &rc)))
						goto out;
					has_thread = true;
					continue;
				}
				if ((is_key(ks, kl, "tid") ||
				     is_key(ks, kl, "thread_id")) &&
				    digits_i64(vs, vl, &tid)) {
					has_thread = true;
					continue;
				}
			} else if (is_key(ks, kl, "tid") ||
				   is_key(ks, kl, "thread_id") ||
				   is_key(ks, kl, "thread")) {
				tid = num;
				has_thread = true;
				continue;
			} else if (is_key(ks, kl, "pid")) {
				pid = num;
				has_thread = true;
				continue;
			}
			if (ntmp == ctmp) {
				size_t nc = ctmp ? ctmp * 2 : 8;
				void *nt = sf_reallocarray(tmp, nc,
							   sizeof(*tmp));
				if (!nt) {
					rc = oom(r);
					goto out;
				}
				tmp = nt;
				ctmp = nc;
			}
			tmp[ntmp].k = used;
			if (!str) {
				char buf[48];
				int n = snprintf(buf, sizeof(buf), "%" PRId64,
						 num);
				if ((rc = scratch_put(r, &used, "#", 1)) ||
				    (rc = scratch_put(r, &used, ks, kl)) ||
				    (rc = scratch_end(r, &used)))
					goto out;
				tmp[ntmp].v = used;
				if ((rc = scratch_put(r, &used, buf,
						      (size_t)n)) ||
				    (ul && ((rc = scratch_put(r, &used, " ",
							      1)) ||
					    (rc = scratch_put(r, &used, us,
							      ul)))) ||
				    (rc = scratch_end(r, &used)))
					goto out;
			} else {
				if ((rc = scratch_put(r, &used, ks, kl)) ||
				    (rc = scratch_end(r, &used)))
					goto out;
				tmp[ntmp].v = used;
				if ((rc = scratch_put(r, &used, vs, vl)) ||
				    (rc = scratch_end(r, &used)))
					goto out;
			}
			ntmp++;
		}
	}
	if (vc.n != r->ntypes) {
		rc = bad(r, sf->at, "sample has %zu values but the profile "
			 "has %zu sample types", vc.n, r->ntypes);
		goto out;
	}
	/* frames, leaf first */
	size_t nfr = 0;
	for (size_t i = 0; i < nloc; i++) {
		long li = idmap_get(&r->locmap, r->locbuf[i]);
		if (li < 0) {
			rc = bad(r, sf->at, "sample refers to location %" PRIu64
				 ", which is not in the profile",
				 r->locbuf[i]);
			goto out;
		}
		const struct ploc *l = &r->locs[li];
		if (nfr + l->nframes > r->cstackbuf) {
			size_t nc = r->cstackbuf ? r->cstackbuf : 256;
			while (nc < nfr + l->nframes)
				nc *= 2;
			sf_frame_id *nb = sf_reallocarray(r->stackbuf, nc,
							  sizeof(*nb));
			if (!nb) {
				rc = oom(r);
				goto out;
			}
			r->stackbuf = nb;
			r->cstackbuf = nc;
		}
		memcpy(r->stackbuf + nfr, r->frames + l->frame0,
		       l->nframes * sizeof(*r->stackbuf));
		nfr += l->nframes;
	}
	sf_stack_id stack;
	if ((rc = sf_profile_stack(r->p, r->ctx, r->stackbuf, nfr, true,
				   &stack))) {
		if (!r->ctx->err.has_offset) {
			r->ctx->err.offset = r->base + sf->at;
			r->ctx->err.has_offset = 1;
			snprintf(r->ctx->err.source, sizeof(r->ctx->err.source),
				 "%s", r->name);
		}
		goto out;
	}
	sf_labels_id lid = 0;
	if (ntmp) {
		if (ntmp > r->clabels) {
			void *nl = sf_reallocarray(r->labels, ntmp,
						   sizeof(*r->labels));
			if (!nl) {
				rc = oom(r);
				goto out;
			}
			r->labels = nl;
			r->clabels = ntmp;
		}
		for (size_t i = 0; i < ntmp; i++) {
			r->labels[i].key = r->scratch + tmp[i].k;
			r->labels[i].value = r->scratch + tmp[i].v;
		}
		if ((rc = sf_profile_labels(r->p, r->ctx, r->labels, ntmp,
					    &lid)))
			goto out;
	}
	sf_thread_idx th = SF_NO_THREAD;
	if (has_thread && (rc = sf_profile_thread(r->p, r->ctx, pid, tid,
						  tname, &th)))
		goto out;
	rc = sf_profile_add_sample(r->p, r->ctx, stack, th, lid, SF_NO_TIME,
				   w);
out:
	free(tmp);
	return rc;
}

static int pass_samples(struct rd *r)
{
	size_t pos = 0;
	struct field f;
	double *w = sf_calloc(r->p->d.ntypes ? r->p->d.ntypes : 1,
			      sizeof(*w));
	int rc = 0;
	size_t k = 0;

	if (!w)
		return oom(r);
	while (pos < r->size) {
		r->top = true;
		rc = rd_field(r, &pos, r->size, &f);
		r->top = false;
		if (rc)
			break;
		if (f.num != 2)
			continue;
		if ((++k & 0xffff) == 0 && sf_interrupted(r->ctx)) {
			rc = sf_error(r->ctx, SF_EINTR, NULL, 0,
				      "interrupted");
			break;
		}
		if (!r->ntypes) {
			rc = bad(r, f.at, "profile has samples but no sample "
				 "types");
			break;
		}
		if ((rc = rd_sample(r, &f, w)))
			break;
	}
	free(w);
	return rc;
}

static int set_prop_str(struct rd *r, const char *key, uint64_t idx,
			size_t at)
{
	const char *s = NULL;
	size_t len = 0;
	int rc;
	char *v;

	if ((rc = str_at(r, idx, at, &s, &len)))
		return rc;
	if (!(v = sf_strndup(s, len)))
		return oom(r);
	rc = sf_profile_set_prop(r->p, r->ctx, key, v);
	free(v);
	return rc;
}

static int rd_meta(struct rd *r, bool first)
{
	struct sf_profile *p = r->p;
	int rc;

	/* sample types, mapped to the model's */
	if (r->ntypes && !(r->tmap = sf_calloc(r->ntypes, sizeof(*r->tmap))))
		return oom(r);
	for (size_t i = 0; i < r->ntypes; i++) {
		const char *t, *u;
		if (!(t = intern(r, r->types[i].type, r->types[i].at, &rc)) ||
		    !(u = intern(r, r->types[i].unit, r->types[i].at, &rc)))
			return rc;
		if ((rc = sf_profile_sample_type(p, r->ctx, t, u,
						 &r->tmap[i])))
			return rc;
	}
	const char *want = sf_ctx_opt(r->ctx, "sample-type");
	size_t def = r->ntypes ? r->ntypes - 1 : 0;
	if (r->default_type) {
		const char *s;
		size_t len;
		if ((rc = str_at(r, r->default_type, 0, &s, &len)))
			return rc;
		for (size_t i = 0; i < r->ntypes; i++) {
			if (r->types[i].type < r->nstrs &&
			    r->strs[r->types[i].type].len == len &&
			    !memcmp(r->b + r->strs[r->types[i].type].off, s,
				    len)) {
				def = i;
				break;
			}
		}
	}
	if (want) {
		size_t i;
		for (i = 0; i < r->ntypes; i++)
			if (!strcmp(p->d.types[r->tmap[i]].type, want))
				break;
		if (i == r->ntypes) {
			char list[256] = "";
			size_t n = 0;
			for (size_t j = 0; j < r->ntypes && n < sizeof(list);
			     j++)
				n += (size_t)snprintf(list + n,
					sizeof(list) - n, "%s%s", j ? ", " : "",
					p->d.types[r->tmap[j]].type);
			return sf_error(r->ctx, SF_EUSAGE, r->name, 0,
					"no sample type '%s' (the profile has: "
					"%s)", want, n ? list : "none");
		}
		def = i;
	}
	if (first && r->ntypes)
		p->d.meta.default_type = r->tmap[def];
	if (!first)
		return 0;
	if (r->has_period_type) {
		const char *t, *u;
		if (!(t = intern(r, r->period_type.type, r->period_type.at,
				 &rc)) ||
		    !(u = intern(r, r->period_type.unit, r->period_type.at,
				 &rc)))
			return rc;
		if (*t || *u) {
			p->d.meta.period_type.type = t;
			p->d.meta.period_type.unit = u;
		}
	}
	if (r->period)
		p->d.meta.period = (double)r->period;
	if (r->time_nanos)
		p->d.meta.start_time = r->time_nanos;
	if (r->duration_nanos)
		p->d.meta.duration = r->duration_nanos;
	if (r->drop && (rc = set_prop_str(r, "pprof.drop_frames", r->drop, 0)))
		return rc;
	if (r->keep && (rc = set_prop_str(r, "pprof.keep_frames", r->keep, 0)))
		return rc;
	for (size_t i = 0; i < r->ncomments; i++) {
		char key[40];
		snprintf(key, sizeof(key), "pprof.comment.%zu", i);
		if ((rc = set_prop_str(r, key, r->comments[i], 0)))
			return rc;
	}
	return 0;
}

static void rd_free(struct rd *r)
{
	free(r->strs);
	free(r->types);
	free(r->maps);
	free(r->funcs);
	free(r->locs);
	free(r->lines);
	free(r->comments);
	idmap_free(&r->mapmap);
	idmap_free(&r->funcmap);
	idmap_free(&r->locmap);
	free(r->frames);
	free(r->map_names);
	free(r->tmap);
	free(r->locbuf);
	free(r->stackbuf);
	free(r->labels);
	free(r->scratch);
}

/* profile.proto: string_table[0] must be "" (pprof rejects a profile
 * without one); this also tells garbage that happens to parse as protobuf
 * (any run of 'x' does: field 15, varints) from a profile. */
static int check_strings(struct rd *r)
{
	if (!r->nstrs)
		return sf_error(r->ctx, SF_EINPUT, r->name, 0, "not a pprof "
				"profile: no string table (field 6)");
	if (r->strs[0].len)
		return bad(r, r->strs[0].off, "string_table[0] must be the "
			   "empty string");
	return 0;
}

static int pprof_read(struct sf_profile *p, struct sf_input *in,
		      struct sf_ctx *ctx)
{
	struct rd r = { 0 };
	char *data = NULL;
	size_t size;
	uint64_t max = ctx->limits.max_decompressed;
	bool first = p->d.nsamples == 0 && p->d.ntypes == 0;
	int rc;

	r.p = p;
	r.ctx = ctx;
	r.name = sf_input_name(in);
	r.base = sf_input_offset(in);
	if (max > PB_MAX)
		max = PB_MAX;
	if ((rc = sf_input_slurp(in, ctx, (size_t)max, &data, &size)))
		return rc;
	r.b = (const unsigned char *)data;
	r.size = size;
	if ((rc = pass_tables(&r)) || (rc = check_strings(&r)) ||
	    (rc = resolve_locations(&r)) ||
	    (rc = rd_meta(&r, first)) || (rc = pass_samples(&r)))
		goto out;
out:
	rd_free(&r);
	free(data);
	return rc;
}

/* ------------------------------------------------------------------ */
/* writing */

struct pbuf {
	unsigned char *d;
	size_t n, cap;
	bool oom;
};

static void pb_raw(struct pbuf *b, const void *p, size_t n)
{
	if (b->oom || !n)
		return;
	if (b->n + n > b->cap) {
		size_t nc = b->cap ? b->cap : 256;
		while (nc < b->n + n)
			nc *= 2;
		unsigned char *nd = realloc(b->d, nc);
		if (!nd) {
			b->oom = true;
			return;
		}
		b->d = nd;
		b->cap = nc;
	}
	memcpy(b->d + b->n, p, n);
	b->n += n;
}

static void pb_varint(struct pbuf *b, uint64_t v)
{
	unsigned char t[10];
	size_t n = 0;

	do {
		t[n++] = (unsigned char)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
	pb_raw(b, t, n);
}

static void pb_tag(struct pbuf *b, uint32_t field, unsigned wt)
{
	pb_varint(b, (uint64_t)field << 3 | wt);
}

/* A varint field; proto3 leaves zero values out. */
static void pb_uint(struct pbuf *b, uint32_t field, uint64_t v)
{
	if (!v)
		return;
	pb_tag(b, field, WT_VARINT);
	pb_varint(b, v);
}

static void pb_bytes(struct pbuf *b, uint32_t field, const void *p,
		     size_t n)
{
	pb_tag(b, field, WT_LEN);
	pb_varint(b, n);
	pb_raw(b, p, n);
}

/* Write the bytes of `b` to `o` (an empty buffer may have no storage). */
static void pb_flush(struct sf_output *o, struct pbuf *b)
{
	if (b->n)
		sf_output_write(o, b->d, b->n);
	b->n = 0;
}

/* Append sub-message `sub` as field `field` of `b`, and empty `sub`. */
static void pb_msg(struct pbuf *b, uint32_t field, struct pbuf *sub)
{
	pb_bytes(b, field, sub->d, sub->n);
	sub->oom |= b->oom;
	b->oom |= sub->oom;
	sub->n = 0;
}

/* The string table, by content. */
struct wstrs {
	struct sf_idx idx;
	const char **s;     /* not owned unless in `own` */
	size_t *len;
	size_t n, cap;
	char **own;
	size_t nown, cown;
};

struct wstrkey { const char *s; size_t len; };

static bool wstr_eq(const void *ctx, uint32_t id, const void *key)
{
	const struct wstrs *t = ctx;
	const struct wstrkey *k = key;

	return t->len[id] == k->len && !memcmp(t->s[id], k->s, k->len);
}

/* Index of string s[0..len); `copy` when s does not outlive the writer.
 * Returns UINT64_MAX on ENOMEM. */
static uint64_t wstr(struct wstrs *t, const char *s, size_t len, bool copy)
{
	struct wstrkey k = { s, len };
	uint64_t h = sf_hash(s, len);
	uint32_t id;

	if (sf_idx_find(&t->idx, h, wstr_eq, t, &k, &id))
		return id;
	if (t->n == t->cap) {
		size_t nc = t->cap ? t->cap * 2 : 256;
		const char **ns = sf_reallocarray(t->s, nc, sizeof(*ns));
		if (!ns)
			return UINT64_MAX;
		t->s = ns;
		size_t *nl = sf_reallocarray(t->len, nc, sizeof(*nl));
		if (!nl)
			return UINT64_MAX;
		t->len = nl;
		t->cap = nc;
	}
	if (copy) {
		char *c = sf_strndup(s, len);
		if (!c)
			return UINT64_MAX;
		if (t->nown == t->cown) {
			size_t nc = t->cown ? t->cown * 2 : 64;
			char **no = sf_reallocarray(t->own, nc, sizeof(*no));
			if (!no) {
				free(c);
				return UINT64_MAX;
			}
			t->own = no;
			t->cown = nc;
		}
		t->own[t->nown++] = c;
		s = c;
	}
	id = (uint32_t)t->n;
	t->s[id] = s;
	t->len[id] = len;
	if (!sf_idx_insert(&t->idx, h, id))
		return UINT64_MAX;
	t->n++;
	return id;
}

static void wstrs_free(struct wstrs *t)
{
	sf_idx_free(&t->idx);
	free(t->s);
	free(t->len);
	for (size_t i = 0; i < t->nown; i++)
		free(t->own[i]);
	free(t->own);
}

/* Pairs of uint32 keyed in a hash table: (a, b) -> id. */
struct pairtab {
	struct sf_idx idx;
	uint32_t *a, *b;
	size_t n, cap;
};

static bool pair_eq(const void *ctx, uint32_t id, const void *key)
{
	const struct pairtab *t = ctx;
	const uint32_t *k = key;

	return t->a[id] == k[0] && t->b[id] == k[1];
}

/* Id of (a, b), added when new (*added set).  Returns -1 on ENOMEM. */
static int64_t pair_get(struct pairtab *t, uint32_t a, uint32_t b,
			bool *added)
{
	uint32_t k[2] = { a, b }, id;
	uint64_t h = sf_hash_u64(a, b);

	*added = false;
	if (sf_idx_find(&t->idx, h, pair_eq, t, k, &id))
		return id;
	if (t->n == t->cap) {
		size_t nc = t->cap ? t->cap * 2 : 256;
		uint32_t *na = sf_reallocarray(t->a, nc, sizeof(*na));
		if (!na)
			return -1;
		t->a = na;
		uint32_t *nb = sf_reallocarray(t->b, nc, sizeof(*nb));
		if (!nb)
			return -1;
		t->b = nb;
		t->cap = nc;
	}
	id = (uint32_t)t->n;
	t->a[id] = a;
	t->b[id] = b;
	if (!sf_idx_insert(&t->idx, h, id))
		return -1;
	t->n++;
	*added = true;
	return id;
}

static void pairtab_free(struct pairtab *t)
{
	sf_idx_free(&t->idx);
	free(t->a);
	free(t->b);
}

struct wr {
	const struct sf_profile *p;
	struct sf_ctx *ctx;
	struct wstrs strs;
	struct pairtab trie;      /* (parent trie node + 1, frame) */
	struct pairtab funcs;     /* (name string, file string) */
	struct pairtab maps;      /* (module string, 0) */
	uint32_t *tnode;          /* per stack node: trie node */
	uint32_t *gstart;         /* per stack node: outermost of its group */
	uint32_t *locid;          /* per trie node: location id, 0 = none */
	bool *needed;             /* per stack node: ends a location used */
	struct pbuf locs, fns, mappings, tmp, tmp2;
};

static int w_oom(struct wr *w)
{
	return sf_error(w->ctx, SF_ENOMEM, NULL, 0, "out of memory");
}

#define WSTR(w, s, copy) wstr(&(w)->strs, (s), strlen(s), (copy))

static uint64_t module_mapping(struct wr *w, const char *module, int *rc)
{
	bool added;
	uint64_t s;
	int64_t id;

	if (!module)
		return 0;
	if ((s = WSTR(w, module, false)) == UINT64_MAX ||
	    (id = pair_get(&w->maps, (uint32_t)s, 0, &added)) < 0) {
		*rc = w_oom(w);
		return 0;
	}
	if (added) {
		pb_uint(&w->tmp2, 1, (uint64_t)id + 1);
		pb_uint(&w->tmp2, 5, s);
		pb_uint(&w->tmp2, 7, 1);   /* has_functions */
		pb_msg(&w->mappings, 3, &w->tmp2);
	}
	return (uint64_t)id + 1;
}

static uint64_t frame_function(struct wr *w, const struct sf_frame *f,
			       int *rc)
{
	bool added;
	uint64_t n, fl = 0;
	int64_t id;

	if ((n = WSTR(w, f->name, false)) == UINT64_MAX ||
	    (f->file && (fl = WSTR(w, f->file, false)) == UINT64_MAX) ||
	    (id = pair_get(&w->funcs, (uint32_t)n, (uint32_t)fl,
			   &added)) < 0) {
		*rc = w_oom(w);
		return 0;
	}
	if (added) {
		pb_uint(&w->tmp2, 1, (uint64_t)id + 1);
		pb_uint(&w->tmp2, 2, n);
		pb_uint(&w->tmp2, 3, n);
		pb_uint(&w->tmp2, 4, fl);
		pb_msg(&w->fns, 5, &w->tmp2);
	}
	return (uint64_t)id + 1;
}

/* Emit the Location for the group of frames gstart..node. */
static int emit_location(struct wr *w, sf_stack_id node, uint32_t id)
{
	const struct sf_profile *p = w->p;
	const struct sf_frame *outer =
		&p->d.frames[p->d.stacks[w->gstart[node]].frame];
	int rc = 0;
	uint64_t mapping = module_mapping(w, outer->module, &rc);

	if (rc)
		return rc;
	pb_uint(&w->tmp, 1, id);
	pb_uint(&w->tmp, 2, mapping);
	if (outer->address != SF_NO_ADDR)
		pb_uint(&w->tmp, 3, outer->address);
	/* an unsymbolized location read from pprof ("0xADDR") stays one */
	char hex[32];
	snprintf(hex, sizeof(hex), "0x%" PRIx64, outer->address);
	bool bare = w->gstart[node] == node && outer->address != SF_NO_ADDR &&
		    !outer->file && !outer->line && !strcmp(outer->name, hex);
	/* lines: innermost (this node) first */
	for (sf_stack_id n = node; !bare; n = p->d.stacks[n].parent) {
		const struct sf_frame *f = &p->d.frames[p->d.stacks[n].frame];
		uint64_t fn = frame_function(w, f, &rc);
		struct pbuf line = { 0 };
		if (rc)
			return rc;
		pb_uint(&line, 1, fn);
		pb_uint(&line, 2, f->line);
		pb_uint(&line, 3, f->column);
		pb_msg(&w->tmp, 4, &line);
		free(line.d);
		if (n == w->gstart[node])
			break;
	}
	pb_msg(&w->locs, 4, &w->tmp);
	return w->locs.oom ? w_oom(w) : 0;
}

/* Number the locations: one per (group of frames) that some sample's
 * stack walks through. */
static int build_locations(struct wr *w)
{
	const struct sf_profile *p = w->p;
	size_t ns = p->d.nstacks;
	uint32_t next = 1;
	bool added;
	int rc;

	if (!(w->tnode = sf_calloc(ns, sizeof(*w->tnode))) ||
	    !(w->gstart = sf_calloc(ns, sizeof(*w->gstart))) ||
	    !(w->needed = sf_calloc(ns, sizeof(*w->needed))))
		return w_oom(w);
	for (size_t i = 1; i < ns; i++) {
		const struct sf_stack_node *s = &p->d.stacks[i];
		bool inl = (p->d.frames[s->frame].flags & SF_FRAME_INLINE) &&
			   s->parent != SF_STACK_EMPTY;
		int64_t t = pair_get(&w->trie,
				     inl ? w->tnode[s->parent] + 1 : 0,
				     s->frame, &added);
		if (t < 0)
			return w_oom(w);
		w->tnode[i] = (uint32_t)t;
		w->gstart[i] = inl ? w->gstart[s->parent] : (uint32_t)i;
	}
	for (size_t i = 0; i < p->d.nsamples; i++)
		w->needed[p->d.samples[i].stack] = true;
	/* parents have smaller ids than children */
	for (size_t i = ns; i-- > 1;)
		if (w->needed[i])
			w->needed[p->d.stacks[w->gstart[i]].parent] = true;
	if (w->trie.n &&
	    !(w->locid = sf_calloc(w->trie.n, sizeof(*w->locid))))
		return w_oom(w);
	for (size_t i = 1; i < ns; i++) {
		if (!w->needed[i] || w->locid[w->tnode[i]])
			continue;
		w->locid[w->tnode[i]] = next;
		if ((rc = emit_location(w, (sf_stack_id)i, next)))
			return rc;
		next++;
	}
	return 0;
}

/* Is "NUM" or "NUM UNIT" a numeric label value? */
static bool numeric_value(const char *v, int64_t *num, const char **unit)
{
	char *end;

	if (!*v || (*v != '-' && (*v < '0' || *v > '9')))
		return false;
	long long x = strtoll(v, &end, 10);
	if (*end && *end != ' ')
		return false;
	*num = x;
	*unit = *end ? end + 1 : NULL;
	return true;
}

static void label_num(struct wr *w, struct pbuf *b, uint64_t key,
		      int64_t num, uint64_t unit)
{
	pb_uint(&w->tmp2, 1, key);
	pb_uint(&w->tmp2, 3, (uint64_t)num);
	pb_uint(&w->tmp2, 4, unit);
	pb_msg(b, 3, &w->tmp2);
}

/* The Label messages of a sample, with its thread. */
static int sample_labels(struct wr *w, struct pbuf *b, sf_labels_id lid,
			 sf_thread_idx th)
{
	const struct sf_profile *p = w->p;
	const struct sf_label_set *ls = &p->d.label_sets[lid];
	uint64_t k, v, u;

	for (uint32_t i = 0; i < ls->n; i++) {
		const struct sf_label *l = &ls->labels[i];
		int64_t num;
		const char *unit;
		if (l->key[0] == '#' && l->key[1] &&
		    numeric_value(l->value, &num, &unit)) {
			if ((k = WSTR(w, l->key + 1, false)) == UINT64_MAX ||
			    (u = unit ? WSTR(w, unit, false) : 0) ==
				    UINT64_MAX)
				return w_oom(w);
			label_num(w, b, k, num, u);
			continue;
		}
		if ((k = WSTR(w, l->key, false)) == UINT64_MAX ||
		    (v = WSTR(w, l->value, false)) == UINT64_MAX)
			return w_oom(w);
		if (!v) {
			/* pprof drops a label whose string is "" */
			continue;
		}
		pb_uint(&w->tmp2, 1, k);
		pb_uint(&w->tmp2, 2, v);
		pb_msg(b, 3, &w->tmp2);
	}
	if (th != SF_NO_THREAD) {
		const struct sf_thread *t = &p->d.threads[th];
		if (t->name && t->name[0]) {
			if ((k = WSTR(w, "thread", false)) == UINT64_MAX ||
			    (v = WSTR(w, t->name, false)) == UINT64_MAX)
				return w_oom(w);
			pb_uint(&w->tmp2, 1, k);
			pb_uint(&w->tmp2, 2, v);
			pb_msg(b, 3, &w->tmp2);
		}
		if (t->tid != SF_NO_ID) {
			if ((k = WSTR(w, "tid", false)) == UINT64_MAX)
				return w_oom(w);
			label_num(w, b, k, t->tid, 0);
		}
		if (t->pid != SF_NO_ID) {
			if ((k = WSTR(w, "pid", false)) == UINT64_MAX)
				return w_oom(w);
			label_num(w, b, k, t->pid, 0);
		}
	}
	return b->oom ? w_oom(w) : 0;
}

static void wr_free(struct wr *w)
{
	wstrs_free(&w->strs);
	pairtab_free(&w->trie);
	pairtab_free(&w->funcs);
	pairtab_free(&w->maps);
	free(w->tnode);
	free(w->gstart);
	free(w->locid);
	free(w->needed);
	free(w->locs.d);
	free(w->fns.d);
	free(w->mappings.d);
	free(w->tmp.d);
	free(w->tmp2.d);
}

static int pprof_write(const struct sf_profile *p, struct sf_output *out,
		       struct sf_ctx *ctx)
{
	struct wr w = { 0 };
	struct pbuf b = { 0 }, s = { 0 };
	const struct sf_meta *m = &p->d.meta;
	uint64_t def = 0;
	int rc;

	w.p = p;
	w.ctx = ctx;
	if ((rc = sf_output_set_gzip(out, ctx)))
		return rc;
	if (wstr(&w.strs, "", 0, false) == UINT64_MAX) {
		rc = w_oom(&w);
		goto out;
	}
	/* sample types */
	for (size_t i = 0; i < p->d.ntypes; i++) {
		uint64_t t = WSTR(&w, p->d.types[i].type, false);
		uint64_t u = WSTR(&w, p->d.types[i].unit, false);
		if (t == UINT64_MAX || u == UINT64_MAX) {
			rc = w_oom(&w);
			goto out;
		}
		if (i == m->default_type)
			def = t;
		pb_uint(&s, 1, t);
		pb_uint(&s, 2, u);
		pb_msg(&b, 1, &s);
	}
	if ((rc = build_locations(&w)))
		goto out;
	/* all strings of labels and threads are numbered before the
	 * samples are written, so samples stream */
	for (size_t i = 1; i < p->d.nlabel_sets; i++) {
		struct pbuf scratch = { 0 };
		rc = sample_labels(&w, &scratch, (sf_labels_id)i,
				   SF_NO_THREAD);
		free(scratch.d);
		if (rc)
			goto out;
	}
	for (size_t i = 0; i < p->d.nthreads; i++) {
		struct pbuf scratch = { 0 };
		rc = sample_labels(&w, &scratch, 0, (sf_thread_idx)i);
		free(scratch.d);
		if (rc)
			goto out;
	}
	pb_flush(out, &b);

	/* samples */
	bool fraction = false;
	for (size_t i = 0; i < p->d.nsamples; i++) {
		const struct sf_sample *sm = &p->d.samples[i];
		if ((i & 0xffff) == 0 && sf_interrupted(ctx)) {
			rc = sf_error(ctx, SF_EINTR, NULL, 0, "interrupted");
			goto out;
		}
		struct pbuf ids = { 0 };
		for (sf_stack_id n = sm->stack; n != SF_STACK_EMPTY;
		     n = p->d.stacks[w.gstart[n]].parent)
			pb_varint(&ids, w.locid[w.tnode[n]]);
		if (ids.n)
			pb_bytes(&s, 1, ids.d, ids.n);
		ids.n = 0;
		for (size_t t = 0; t < p->d.ntypes; t++) {
			double v = sf_weight(p, i, (uint32_t)t);
			double r = nearbyint(v);
			if (r != v)
				fraction = true;
			if (!(r >= -9.2e18 && r <= 9.2e18))
				r = 0;
			pb_varint(&ids, (uint64_t)(int64_t)r);
		}
		if (ids.n)
			pb_bytes(&s, 2, ids.d, ids.n);
		s.oom |= ids.oom;
		free(ids.d);
		if ((rc = sample_labels(&w, &s, sm->labels, sm->thread)))
			goto out;
		pb_msg(&b, 2, &s);
		if (b.oom) {
			rc = w_oom(&w);
			goto out;
		}
		if (b.n >= (1u << 16))
			pb_flush(out, &b);
	}
	if (fraction)
		sf_warn(ctx, "pprof.fraction", "pprof values are integers: "
			"fractional weights were rounded");
	pb_flush(out, &b);
	pb_flush(out, &w.mappings);
	pb_flush(out, &w.locs);
	pb_flush(out, &w.fns);

	/* the rest, then the string table last (it must hold every string
	 * used above and below) */
	uint64_t drop = 0, keep = 0, pt = 0, pu = 0;
	const char *v;
	if ((v = sf_profile_prop(p, "pprof.drop_frames")))
		drop = WSTR(&w, v, false);
	if ((v = sf_profile_prop(p, "pprof.keep_frames")))
		keep = WSTR(&w, v, false);
	if (m->period_type.type) {
		pt = WSTR(&w, m->period_type.type, false);
		pu = WSTR(&w, m->period_type.unit, false);
	}
	pb_uint(&b, 7, drop);
	pb_uint(&b, 8, keep);
	if (m->start_time != SF_NO_TIME)
		pb_uint(&b, 9, (uint64_t)m->start_time);
	if (m->duration != SF_NO_TIME)
		pb_uint(&b, 10, (uint64_t)m->duration);
	if (m->period_type.type) {
		pb_uint(&s, 1, pt);
		pb_uint(&s, 2, pu);
		pb_msg(&b, 11, &s);
	}
	if (m->period > 0 && m->period < 9.2e18)
		pb_uint(&b, 12, (uint64_t)llround(m->period));
	for (size_t i = 0;; i++) {
		char key[40];
		snprintf(key, sizeof(key), "pprof.comment.%zu", i);
		if (!(v = sf_profile_prop(p, key)))
			break;
		uint64_t c = WSTR(&w, v, false);
		if (c == UINT64_MAX) {
			rc = w_oom(&w);
			goto out;
		}
		pb_tag(&b, 13, WT_VARINT);
		pb_varint(&b, c);
	}
	if (p->d.ntypes > 1)
		pb_uint(&b, 14, def);
	if (drop == UINT64_MAX || keep == UINT64_MAX || pt == UINT64_MAX ||
	    pu == UINT64_MAX || b.oom) {
		rc = w_oom(&w);
		goto out;
	}
	for (size_t i = 0; i < w.strs.n; i++) {
		struct pbuf one = { 0 };
		pb_bytes(&one, 6, w.strs.s[i], w.strs.len[i]);
		pb_flush(out, &one);
		if (one.oom)
			rc = w_oom(&w);
		free(one.d);
		if (rc)
			goto out;
	}
	pb_flush(out, &b);
out:
	free(b.d);
	free(s.d);
	wr_free(&w);
	return rc;
}

static const char *const pprof_ext[] = { ".pb.gz", ".pprof", ".pb", NULL };

static const struct sf_option pprof_ropts[] = {
	{ "sample-type", "NAME",
	  "pprof: make sample type NAME the default (e.g. alloc_space)" },
	{ NULL, NULL, NULL }
};

const struct sf_format sf_format_pprof = {
	.name = "pprof",
	.description = "pprof profile.proto (gzip'd protobuf), as Go writes",
	.extensions = pprof_ext,
	.probe = pprof_probe,
	.read = pprof_read,
	.write = pprof_write,
	.caps = SF_CAP_THREADS | SF_CAP_WEIGHTS | SF_CAP_TYPES |
		SF_CAP_INLINE | SF_CAP_LOCATIONS | SF_CAP_LABELS,
	.binary = true,
	.priority = 3,
	.read_options = pprof_ropts,
};
