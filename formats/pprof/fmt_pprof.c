/*
 * fmt_pprof.c - pprof's profile.proto (github.com/google/pprof,
 * proto/profile.proto), read and written with the small protobuf
 * wire-format decoder and encoder in util/protobuf.h.
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
 * Writing: pprof_write.c.
 */
#include "hash.h"
#include "pprof.h"
#include "protobuf.h"

#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* probe */

static int pprof_probe(const unsigned char *d, size_t n)
{
	size_t i = 0, fields = 0;
	bool core = false;

	while (i < n) {
		uint64_t tag, v;
		int r = sf_pb_probe_varint(d, n, &i, &tag);
		if (r < 0)
			return 0;
		if (r == 0)
			break;
		unsigned f = (unsigned)(tag >> 3), wt = (unsigned)(tag & 7);
		bool len = f <= 6 || f == 11 || (f == 13 && wt == SF_PB_LEN);
		if (f == 0 || f > 15 || wt != (len ? SF_PB_LEN : SF_PB_VARINT))
			return 0;
		if ((r = sf_pb_probe_varint(d, n, &i, &v)) < 0)
			return 0;
		if (r == 0)
			break;
		fields++;
		if (!len)
			continue;
		if (v > SF_PB_MAX)
			return 0;
		if (v > n - i) {
			/* cut by the window: only the start can be checked */
			if (fields == 1 && i + 16 > n)
				return 0;
			break;
		}
		/* look inside the messages whose shape is most telling */
		if ((f == 1 || f == 11) &&
		    !sf_pb_probe_sub(d + i, v, 1ull << 0x08 | 1ull << 0x10))
			return 0;
		if (f == 2 &&
		    !sf_pb_probe_sub(d + i, v, 1ull << 0x08 | 1ull << 0x0a |
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
	struct sf_pb_dec pb; /* first: the callbacks of sf_pb_repeated
			      * get &r->pb back */
	struct sf_profile *p;

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
	size_t *comment_at;       /* where each comment is, for messages */
	size_t ccomment_at;
	struct vtype period_type;
	bool has_period_type;
	int64_t period, time_nanos, duration_nanos;
	uint64_t drop, keep, default_type;
	size_t drop_at, keep_at, default_at;

	struct idmap mapmap, funcmap, locmap;
	sf_frame_id *frames;      /* per location, leaf first */
	size_t nframes;
	const char **map_names;   /* interned mapping file names */
	uint32_t *tmap;           /* file sample type -> model type */
	size_t nsamples;          /* Sample messages pass 1 stepped over */
	uint64_t *locbuf;
	size_t clocbuf;
	sf_frame_id *stackbuf;
	size_t cstackbuf;
	struct sf_label *labels;
	size_t clabels;
	char *scratch;            /* numeric label texts */
	size_t cscratch;
};

/* Room for one more element in r->arr (n used, c allocated). */
#define MORE(r, arr, n, c)                                               \
	(sf_grow(&(r)->arr, &(r)->c, (r)->n + 1, sizeof(*(r)->arr)) ?    \
		 sf_error_nomem((r)->pb.ctx) : 0)

static int rd_vtype(struct rd *r, const struct sf_pb_field *f, struct vtype *t)
{
	size_t pos = f->data, end = f->data + f->v;
	struct sf_pb_field g;
	int rc;

	t->type = t->unit = 0;
	t->at = f->at;
	while (pos < end) {
		if ((rc = sf_pb_field(&r->pb, &pos, end, &g)))
			return rc;
		if (g.num == 1 || g.num == 2) {
			if ((rc = sf_pb_want(&r->pb, &g, SF_PB_VARINT,
					     "ValueType")))
				return rc;
			*(g.num == 1 ? &t->type : &t->unit) = g.v;
		}
	}
	return 0;
}

static int rd_mapping(struct rd *r, const struct sf_pb_field *f)
{
	size_t pos = f->data, end = f->data + f->v;
	struct pmap m = { 0, 0, f->at };
	struct sf_pb_field g;
	int rc;

	while (pos < end) {
		if ((rc = sf_pb_field(&r->pb, &pos, end, &g)))
			return rc;
		if (g.num >= 1 && g.num <= 10 &&
		    (rc = sf_pb_want(&r->pb, &g, SF_PB_VARINT, "Mapping")))
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

static int rd_function(struct rd *r, const struct sf_pb_field *f)
{
	size_t pos = f->data, end = f->data + f->v;
	struct pfunc fn = { 0, 0, 0, f->at };
	struct sf_pb_field g;
	int rc;

	while (pos < end) {
		if ((rc = sf_pb_field(&r->pb, &pos, end, &g)))
			return rc;
		if (g.num >= 1 && g.num <= 5 &&
		    (rc = sf_pb_want(&r->pb, &g, SF_PB_VARINT, "Function")))
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

static int rd_location(struct rd *r, const struct sf_pb_field *f)
{
	size_t pos = f->data, end = f->data + f->v;
	struct ploc l = { 0 };
	struct sf_pb_field g, h;
	int rc;

	l.at = f->at;
	l.line0 = r->nlines;
	while (pos < end) {
		if ((rc = sf_pb_field(&r->pb, &pos, end, &g)))
			return rc;
		if (g.num == 4) {
			struct pline ln = { 0, 0, 0 };
			size_t p2 = g.data, e2 = g.data + g.v;
			if ((rc = sf_pb_want(&r->pb, &g, SF_PB_LEN,
					     "Location")))
				return rc;
			while (p2 < e2) {
				if ((rc = sf_pb_field(&r->pb, &p2, e2, &h)))
					return rc;
				if (h.num >= 1 && h.num <= 3 &&
				    (rc = sf_pb_want(&r->pb, &h, SF_PB_VARINT,
						     "Line")))
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
		    (rc = sf_pb_want(&r->pb, &g, SF_PB_VARINT, "Location")))
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

static int add_comment(struct sf_pb_dec *d, void *arg, uint64_t v, size_t at)
{
	struct rd *r = (struct rd *)d;
	int rc;

	(void)arg;
	if ((rc = MORE(r, comments, ncomments, ccomments)) ||
	    (rc = MORE(r, comment_at, ncomments, ccomment_at)))
		return rc;
	r->comment_at[r->ncomments] = at;
	r->comments[r->ncomments++] = v;
	return 0;
}

/* Pass 1: the top level, everything but the samples. */
static int pass_tables(struct rd *r)
{
	size_t pos = 0;
	struct sf_pb_field f;
	int rc;

	while (pos < r->pb.size) {
		r->pb.top = true;
		rc = sf_pb_field(&r->pb, &pos, r->pb.size, &f);
		r->pb.top = false;
		if (rc)
			return rc;
		switch (f.num) {
		case 1:
			if ((rc = sf_pb_want(&r->pb, &f, SF_PB_LEN,
					     "Profile")) ||
			    (rc = MORE(r, types, ntypes, ctypes)) ||
			    (rc = rd_vtype(r, &f, &r->types[r->ntypes])))
				return rc;
			r->ntypes++;
			break;
		case 2:
			if ((rc = sf_pb_want(&r->pb, &f, SF_PB_LEN, "Profile")))
				return rc;
			r->nsamples++;
			break;
		case 3:
			if ((rc = sf_pb_want(&r->pb, &f, SF_PB_LEN,
					     "Profile")) ||
			    (rc = rd_mapping(r, &f)))
				return rc;
			break;
		case 4:
			if ((rc = sf_pb_want(&r->pb, &f, SF_PB_LEN,
					     "Profile")) ||
			    (rc = rd_location(r, &f)))
				return rc;
			break;
		case 5:
			if ((rc = sf_pb_want(&r->pb, &f, SF_PB_LEN,
					     "Profile")) ||
			    (rc = rd_function(r, &f)))
				return rc;
			break;
		case 6:
			if ((rc = sf_pb_want(&r->pb, &f, SF_PB_LEN,
					     "Profile")) ||
			    (rc = MORE(r, strs, nstrs, cstrs)))
				return rc;
			r->strs[r->nstrs].off = (uint32_t)f.data;
			r->strs[r->nstrs].len = (uint32_t)f.v;
			r->nstrs++;
			break;
		case 11:
			if ((rc = sf_pb_want(&r->pb, &f, SF_PB_LEN,
					     "Profile")) ||
			    (rc = rd_vtype(r, &f, &r->period_type)))
				return rc;
			r->has_period_type = true;
			break;
		case 13:
			if ((rc = sf_pb_repeated(&r->pb, &f, "Profile",
						 add_comment, NULL)))
				return rc;
			break;
		case 7: case 8: case 9: case 10: case 12: case 14:
			if ((rc = sf_pb_want(&r->pb, &f, SF_PB_VARINT,
					     "Profile")))
				return rc;
			if (f.num == 7) {
				r->drop = f.v;
				r->drop_at = f.at;
			} else if (f.num == 8) {
				r->keep = f.v;
				r->keep_at = f.at;
			}
			else if (f.num == 9)
				r->time_nanos = (int64_t)f.v;
			else if (f.num == 10)
				r->duration_nanos = (int64_t)f.v;
			else if (f.num == 12)
				r->period = (int64_t)f.v;
			else {
				r->default_type = f.v;
				r->default_at = f.at;
			}
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
		return sf_pb_error(&r->pb, at,
				   "string index %" PRIu64 " out of range (the "
				   "string table has %zu entries)",
				   idx, r->nstrs);
	*s = (const char *)r->pb.b + r->strs[idx].off;
	*len = r->strs[idx].len;
	return 0;
}

static const char *intern(struct rd *r, uint64_t idx, size_t at, int *rc)
{
	const char *s = NULL;
	size_t len = 0;

	if ((*rc = str_at(r, idx, at, &s, &len)))
		return NULL;
	if (len > r->pb.ctx->limits.max_name) {
		*rc = sf_pb_error(&r->pb, at,
				  "string of %zu bytes exceeds --max-name",
				  len);
		return NULL;
	}
	s = sf_profile_strn(r->p, r->pb.ctx, s, len);
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
		return sf_error_nomem(r->pb.ctx);
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
			return sf_pb_error(&r->pb, at,
					   "duplicate %s id %" PRIu64, what,
					   m->pairs[i].id);
		}
	if (max <= 4 * (uint64_t)n + 1024) {
		if (!(m->direct = sf_calloc((size_t)max + 1,
					    sizeof(*m->direct))))
			return sf_error_nomem(r->pb.ctx);
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
			return sf_pb_error(&r->pb, r->maps[i].at,
					   "mapping with the "
					   "reserved id 0");
	for (size_t i = 0; i < r->nfuncs; i++)
		if (!r->funcs[i].id)
			return sf_pb_error(&r->pb, r->funcs[i].at,
					   "function with the "
					   "reserved id 0");
	for (size_t i = 0; i < r->nlocs; i++)
		if (!r->locs[i].id)
			return sf_pb_error(&r->pb, r->locs[i].at,
					   "location with the "
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
		return sf_error_nomem(r->pb.ctx);
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
		return sf_error_nomem(r->pb.ctx);
	for (size_t i = 0; i < r->nlocs; i++) {
		struct ploc *l = &r->locs[i];
		struct sf_frame f;
		const char *module = NULL;
		if (l->mapping) {
			long m = idmap_get(&r->mapmap, l->mapping);
			if (m < 0)
				return sf_pb_error(
					&r->pb, l->at,
					"location %" PRIu64
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
			if ((rc = sf_profile_frame(r->p, r->pb.ctx, &f,
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
					return sf_pb_error(
						&r->pb, l->at,
						"location %" PRIu64
						" refers to function "
						"%" PRIu64 ", which is not "
						"in the profile",
						l->id, ln->func);
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
			if ((rc = sf_profile_frame(r->p, r->pb.ctx, &f,
						   &r->frames[r->nframes++])))
				return rc;
		}
		l->nframes = (uint32_t)(r->nframes - l->frame0);
	}
	return 0;
}

static int add_locid(struct sf_pb_dec *d, void *arg, uint64_t v,
		      size_t at)
{
	struct rd *r = (struct rd *)d;
	size_t *n = arg;

	(void)at;
	if (*n >= r->clocbuf) {
		size_t nc = r->clocbuf ? r->clocbuf * 2 : 256;
		uint64_t *nb = sf_reallocarray(r->locbuf, nc, sizeof(*nb));
		if (!nb)
			return sf_error_nomem(r->pb.ctx);
		r->locbuf = nb;
		r->clocbuf = nc;
	}
	r->locbuf[(*n)++] = v;
	return 0;
}

struct valctx { double *w; size_t n; size_t at; };

static int add_value(struct sf_pb_dec *d, void *arg, uint64_t v,
		      size_t at)
{
	struct rd *r = (struct rd *)d;
	struct valctx *vc = arg;

	if (vc->n >= r->ntypes)
		return sf_pb_error(&r->pb, at,
				   "sample has more values than the %zu sample "
				   "types",
				   r->ntypes);
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
			return sf_error_nomem(r->pb.ctx);
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
static int rd_sample(struct rd *r, const struct sf_pb_field *sf, double *w)
{
	size_t pos = sf->data, end = sf->data + sf->v;
	size_t nloc = 0, used = 0;
	struct valctx vc = { w, 0, sf->at };
	struct sf_pb_field g;
	int rc;
	/* label bookkeeping: offsets into scratch, resolved at the end */
	struct { size_t k, v; } *tmp = NULL;
	const char *tname = NULL;
	int64_t tid = SF_NO_ID, pid = SF_NO_ID;
	bool has_thread = false;
	size_t ntmp = 0, ctmp = 0;

	memset(w, 0, r->p->d.ntypes * sizeof(*w));
	while (pos < end) {
		if ((rc = sf_pb_field(&r->pb, &pos, end, &g)))
			goto out;
		if (g.num == 1) {
			if ((rc = sf_pb_repeated(&r->pb, &g, "Sample",
						 add_locid, &nloc)))
				goto out;
		} else if (g.num == 2) {
			if ((rc = sf_pb_repeated(&r->pb, &g, "Sample",
						 add_value, &vc)))
				goto out;
		} else if (g.num == 3) {
			uint64_t key = 0, str = 0, unit = 0;
			int64_t num = 0;
			size_t p2 = g.data, e2 = g.data + g.v;
			struct sf_pb_field h;
			const char *ks, *vs, *us;
			size_t kl, vl, ul;
			if ((rc = sf_pb_want(&r->pb, &g, SF_PB_LEN, "Sample")))
				goto out;
			while (p2 < e2) {
				if ((rc = sf_pb_field(&r->pb, &p2, e2, &h)))
					goto out;
				if (h.num >= 1 && h.num <= 4 &&
				    (rc = sf_pb_want(&r->pb, &h, SF_PB_VARINT,
						     "Label")))
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
					rc = sf_error_nomem(r->pb.ctx);
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
		rc = sf_pb_error(&r->pb, sf->at,
				 "sample has %zu values but the profile "
				 "has %zu sample types",
				 vc.n, r->ntypes);
		goto out;
	}
	/* frames, leaf first */
	size_t nfr = 0;
	for (size_t i = 0; i < nloc; i++) {
		long li = idmap_get(&r->locmap, r->locbuf[i]);
		if (li < 0) {
			rc = sf_pb_error(&r->pb, sf->at,
					 "sample refers to location %" PRIu64
					 ", which is not in the profile",
					 r->locbuf[i]);
			goto out;
		}
		const struct ploc *l = &r->locs[li];
		/* before the memory: one location of 4,096 inline lines
		 * named 2M times would be 8G frames */
		if (nfr + l->nframes > r->pb.ctx->limits.max_depth) {
			rc = sf_error_at(r->pb.ctx, SF_ELIMIT, r->pb.name,
					 r->pb.base + sf->at,
					 "sample has more than %llu frames "
					 "(--max-depth)", (unsigned long long)
					 r->pb.ctx->limits.max_depth);
			goto out;
		}
		if (nfr + l->nframes > r->cstackbuf) {
			size_t nc = r->cstackbuf ? r->cstackbuf : 256;
			while (nc < nfr + l->nframes)
				nc *= 2;
			sf_frame_id *nb = sf_reallocarray(r->stackbuf, nc,
							  sizeof(*nb));
			if (!nb) {
				rc = sf_error_nomem(r->pb.ctx);
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
	if ((rc = sf_profile_stack(r->p, r->pb.ctx, r->stackbuf, nfr, true,
				   &stack))) {
		/* the model's error (too deep) has no place: the sample's */
		sf_error_place_at(r->pb.ctx, r->pb.name, r->pb.base + sf->at);
		goto out;
	}
	sf_labels_id lid = 0;
	if (ntmp) {
		if (ntmp > r->clabels) {
			void *nl = sf_reallocarray(r->labels, ntmp,
						   sizeof(*r->labels));
			if (!nl) {
				rc = sf_error_nomem(r->pb.ctx);
				goto out;
			}
			r->labels = nl;
			r->clabels = ntmp;
		}
		for (size_t i = 0; i < ntmp; i++) {
			r->labels[i].key = r->scratch + tmp[i].k;
			r->labels[i].value = r->scratch + tmp[i].v;
		}
		if ((rc = sf_profile_labels(r->p, r->pb.ctx, r->labels, ntmp,
					    &lid)))
			goto out;
	}
	sf_thread_idx th = SF_NO_THREAD;
	if (has_thread && (rc = sf_profile_thread(r->p, r->pb.ctx, pid, tid,
						  tname, &th)))
		goto out;
	rc = sf_profile_add_sample(r->p, r->pb.ctx, stack, th, lid, SF_NO_TIME,
				   w);
out:
	free(tmp);
	return rc;
}

static int pass_samples(struct rd *r)
{
	size_t pos = 0;
	struct sf_pb_field f;
	double *w = sf_calloc(r->p->d.ntypes ? r->p->d.ntypes : 1,
			      sizeof(*w));
	int rc = 0;
	size_t k = 0;

	if (!w)
		return sf_error_nomem(r->pb.ctx);
	while (pos < r->pb.size) {
		r->pb.top = true;
		rc = sf_pb_field(&r->pb, &pos, r->pb.size, &f);
		r->pb.top = false;
		if (rc)
			break;
		if (f.num != 2)
			continue;
		if ((++k & 0xffff) == 0 && sf_interrupted(r->pb.ctx)) {
			rc = sf_error(r->pb.ctx, SF_EINTR, NULL, 0,
				      "interrupted");
			break;
		}
		if (!r->ntypes) {
			rc = sf_pb_error(&r->pb, f.at,
					 "profile has samples but no sample "
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
		return sf_error_nomem(r->pb.ctx);
	rc = sf_profile_set_prop(r->p, r->pb.ctx, key, v);
	free(v);
	return rc;
}

static int rd_meta(struct rd *r, bool first)
{
	struct sf_profile *p = r->p;
	int rc;

	/* sample types, mapped to the model's */
	if (r->ntypes && !(r->tmap = sf_calloc(r->ntypes, sizeof(*r->tmap))))
		return sf_error_nomem(r->pb.ctx);
	for (size_t i = 0; i < r->ntypes; i++) {
		const char *t, *u;
		if (!(t = intern(r, r->types[i].type, r->types[i].at, &rc)) ||
		    !(u = intern(r, r->types[i].unit, r->types[i].at, &rc)))
			return rc;
		if ((rc = sf_profile_sample_type(p, r->pb.ctx, t, u,
						 &r->tmap[i])))
			return rc;
	}
	const char *want = sf_ctx_opt(r->pb.ctx, "sample-type");
	size_t def = r->ntypes ? r->ntypes - 1 : 0;
	if (r->default_type) {
		const char *s;
		size_t len;
		if ((rc = str_at(r, r->default_type, r->default_at, &s,
				 &len)))
			return rc;
		for (size_t i = 0; i < r->ntypes; i++) {
			if (r->types[i].type < r->nstrs &&
			    r->strs[r->types[i].type].len == len &&
			    !memcmp(r->pb.b + r->strs[r->types[i].type].off, s,
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
			return sf_error(r->pb.ctx, SF_EUSAGE, r->pb.name, 0,
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
	if (r->drop && (rc = set_prop_str(r, "pprof.drop_frames", r->drop,
					  r->drop_at)))
		return rc;
	if (r->keep && (rc = set_prop_str(r, "pprof.keep_frames", r->keep,
					  r->keep_at)))
		return rc;
	for (size_t i = 0; i < r->ncomments; i++) {
		char key[40];
		snprintf(key, sizeof(key), "pprof.comment.%zu", i);
		if ((rc = set_prop_str(r, key, r->comments[i],
				       r->comment_at[i])))
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
	free(r->comment_at);
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
		return sf_pb_error(&r->pb, r->pb.size,
				   "not a pprof profile: no string table "
				   "(field 6) up to the end");
	if (r->strs[0].len)
		return sf_pb_error(&r->pb, r->strs[0].off,
				   "string_table[0] must be the "
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
	r.pb.ctx = ctx;
	r.pb.name = sf_input_name(in);
	r.pb.base = sf_input_offset(in);
	if (max > SF_PB_MAX)
		max = SF_PB_MAX;
	if ((rc = sf_input_slurp(in, ctx, (size_t)max, &data, &size)))
		return rc;
	r.pb.b = (const unsigned char *)data;
	r.pb.size = size;
	if ((rc = pass_tables(&r)) || (rc = check_strings(&r)) ||
	    (rc = resolve_locations(&r)) ||
	    (rc = rd_meta(&r, first)) ||
	    /* distinct samples make at least one stack each, often a leaf
	     * and its caller: sizing the index for twice the samples at
	     * once spares the last rehash, where the old and the doubled
	     * index are live together (12 MB of the peak of bench/pprof.sh) */
	    (rc = sf_profile_reserve_stacks(p, ctx, 2 * r.nsamples)) ||
	    (rc = pass_samples(&r)))
		goto out;
out:
	rd_free(&r);
	free(data);
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
	.write = sf_pprof__write,
	.caps = SF_CAP_THREADS | SF_CAP_WEIGHTS | SF_CAP_TYPES |
		SF_CAP_INLINE | SF_CAP_LOCATIONS | SF_CAP_LABELS,
	.binary = true,
	.takes_kept = true,
	.priority = 3,
	.read_options = pprof_ropts,
};
