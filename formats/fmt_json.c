/*
 * fmt_json.c - the native, lossless JSON form of the model
 * ("format": "sftools-profile", "version": 1).  docs/profile.schema.json is
 * the schema; docs/formats.md explains each member.
 *
 * Writing streams: the top-level object is written by hand, and each array
 * element (frame, stack, sample, ...) is one json-c object serialised and
 * freed at once, so memory does not grow with the output.  Reading parses
 * with json-c's incremental tokener (depth capped by --max-nesting) and
 * validates every index before it touches the model.
 *
 * Determinism: members in a fixed order, elements in model order, numbers
 * in their shortest exact form; reading a file this writer made and
 * writing it again gives the same bytes.
 */
#include "text.h"

#include <errno.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define JSON_FLAGS (JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)

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

/* ----- writing ----- */

static struct json_object *jnum(double v)
{
	char b[40];

	if (v == floor(v) && fabs(v) < 9.007199254740992e15)
		return json_object_new_int64((int64_t)v);
	sf_format_num(b, sizeof(b), v);
	return json_object_new_double_s(v, b);
}

static struct json_object *jstr(const char *s)
{
	return s ? json_object_new_string(s) : NULL;
}

/* Serialise and free `o`, writing it after `sep`. */
static void emit(struct sf_output *out, const char *sep,
		 struct json_object *o)
{
	size_t len;
	const char *s;

	sf_output_puts(out, sep);
	s = json_object_to_json_string_length(o, JSON_FLAGS, &len);
	sf_output_write(out, s, len);
	json_object_put(o);
}

static struct json_object *frame_obj(const struct sf_frame *f)
{
	struct json_object *o = json_object_new_object();
	char b[32];

	json_object_object_add(o, "name", jstr(f->name));
	if (f->module)
		json_object_object_add(o, "module", jstr(f->module));
	if (f->file)
		json_object_object_add(o, "file", jstr(f->file));
	if (f->line)
		json_object_object_add(o, "line",
				       json_object_new_int64(f->line));
	if (f->column)
		json_object_object_add(o, "column",
				       json_object_new_int64(f->column));
	if (f->address != SF_NO_ADDR) {
		snprintf(b, sizeof(b), "0x%" PRIx64, f->address);
		json_object_object_add(o, "address", jstr(b));
	}
	if (f->flags & SF_FRAME_INLINE)
		json_object_object_add(o, "inline",
				       json_object_new_boolean(1));
	if (f->kind)
		json_object_object_add(o, "kind", jstr(f->kind));
	if (f->flags & SF_FRAME_HAS_AUX)
		json_object_object_add(o, "aux",
				       json_object_new_int64(f->aux));
	return o;
}

static struct json_object *type_obj(const struct sf_sample_type *t)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "type", jstr(t->type));
	json_object_object_add(o, "unit", jstr(t->unit));
	return o;
}

static struct json_object *meta_obj(const struct sf_profile *p)
{
	const struct sf_meta *m = &p->d.meta;
	struct json_object *o = json_object_new_object();

	if (m->source_format)
		json_object_object_add(o, "source_format",
				       jstr(m->source_format));
	if (m->period_type.type)
		json_object_object_add(o, "period_type",
				       type_obj(&m->period_type));
	if (m->period)
		json_object_object_add(o, "period", jnum(m->period));
	if (m->start_time != SF_NO_TIME)
		json_object_object_add(o, "start_time",
				       json_object_new_int64(m->start_time));
	if (m->duration != SF_NO_TIME)
		json_object_object_add(o, "duration",
				       json_object_new_int64(m->duration));
	json_object_object_add(o, "default_sample_type",
			       json_object_new_int64(m->default_type));
	if (m->nprops) {
		struct json_object *a = json_object_new_array();
		for (size_t i = 0; i < m->nprops; i++) {
			struct json_object *kv = json_object_new_array();
			json_object_array_add(kv, jstr(m->props[i].key));
			json_object_array_add(kv, jstr(m->props[i].value));
			json_object_array_add(a, kv);
		}
		json_object_object_add(o, "properties", a);
	}
	return o;
}

static int json_write(const struct sf_profile *p, struct sf_output *out,
		      struct sf_ctx *ctx)
{
	const char *sep;

	sf_output_puts(out, "{\"format\":\"sftools-profile\",\"version\":1,"
			    "\n\"meta\":");
	emit(out, "", meta_obj(p));

	sf_output_puts(out, ",\n\"sample_types\":[");
	for (size_t i = 0; i < p->d.ntypes; i++)
		emit(out, i ? "," : "", type_obj(&p->d.types[i]));
	if (!p->d.ntypes) {
		/* a profile with no samples may have no type yet (an empty
		 * perf script); the document always names one */
		struct sf_sample_type dflt = { "samples", "count" };
		emit(out, "", type_obj(&dflt));
	}

	sf_output_puts(out, "],\n\"threads\":[");
	for (size_t i = 0; i < p->d.nthreads; i++) {
		const struct sf_thread *t = &p->d.threads[i];
		struct json_object *o = json_object_new_object();
		if (t->pid != SF_NO_ID)
			json_object_object_add(o, "pid",
					       json_object_new_int64(t->pid));
		if (t->tid != SF_NO_ID)
			json_object_object_add(o, "tid",
					       json_object_new_int64(t->tid));
		if (t->name)
			json_object_object_add(o, "name", jstr(t->name));
		if (t->input)
			json_object_object_add(o, "input",
					       json_object_new_int64(t->input));
		emit(out, i ? ",\n" : "\n", o);
	}

	sf_output_puts(out, "],\n\"frames\":[");
	for (size_t i = 0; i < p->d.nframes; i++)
		emit(out, i ? ",\n" : "\n", frame_obj(&p->d.frames[i]));

	/* stacks[k] describes node k+1: [parent, frame] */
	sf_output_puts(out, "],\n\"stacks\":[");
	for (size_t i = 1; i < p->d.nstacks; i++) {
		sf_output_puts(out, i > 1 ? ",\n[" : "\n[");
		sf_output_u64(out, p->d.stacks[i].parent);
		sf_output_putc(out, ',');
		sf_output_u64(out, p->d.stacks[i].frame);
		sf_output_putc(out, ']');
	}

	sf_output_puts(out, "],\n\"label_sets\":[");
	for (size_t i = 1; i < p->d.nlabel_sets; i++) {
		const struct sf_label_set *s = &p->d.label_sets[i];
		struct json_object *a = json_object_new_array();
		for (uint32_t j = 0; j < s->n; j++) {
			struct json_object *kv = json_object_new_array();
			json_object_array_add(kv, jstr(s->labels[j].key));
			json_object_array_add(kv, jstr(s->labels[j].value));
			json_object_array_add(a, kv);
		}
		emit(out, i > 1 ? ",\n" : "\n", a);
	}

	/* samples: [stack, thread|null, time|null, labels, w1, ..., wn] */
	sf_output_puts(out, "],\n\"samples\":[");
	sep = "\n";
	for (size_t i = 0; i < p->d.nsamples; i++) {
		const struct sf_sample *s = &p->d.samples[i];
		if ((i & 0xffff) == 0 && sf_interrupted(ctx))
			return sf_error(ctx, SF_EINTR, NULL, 0, "interrupted");
		sf_output_puts(out, sep);
		sep = ",\n";
		sf_output_putc(out, '[');
		sf_output_u64(out, s->stack);
		sf_output_putc(out, ',');
		if (s->thread == SF_NO_THREAD)
			sf_output_puts(out, "null");
		else
			sf_output_u64(out, s->thread);
		sf_output_putc(out, ',');
		if (s->time == SF_NO_TIME)
			sf_output_puts(out, "null");
		else
			sf_output_i64(out, s->time);
		sf_output_putc(out, ',');
		sf_output_u64(out, s->labels);
		for (size_t t = 0; t < p->d.ntypes; t++) {
			sf_output_putc(out, ',');
			sf_output_num(out, sf_weight(p, i, (uint32_t)t));
		}
		sf_output_putc(out, ']');
	}
	sf_output_puts(out, "]}\n");
	return 0;
}

/* ----- reading ----- */

struct rd {
	struct sf_profile *p;
	struct sf_ctx *ctx;
	const char *name;
	char path[128];   /* where in the document, for messages */
};

static int bad(struct rd *r, const char *what)
{
	return sf_error(r->ctx, SF_EINPUT, r->name, 0, "%s: %s", r->path,
			what);
}

static struct json_object *member(struct json_object *o, const char *k,
				  json_type want, bool required, struct rd *r,
				  int *rc)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, k, &v) || !v) {
		if (required) {
			snprintf(r->path, sizeof(r->path), "%s", k);
			*rc = bad(r, "missing member");
		}
		return NULL;
	}
	if (!json_object_is_type(v, want)) {
		snprintf(r->path, sizeof(r->path), "%s", k);
		*rc = bad(r, want == json_type_string ? "expected a string" :
			     want == json_type_array ? "expected an array" :
			     want == json_type_object ? "expected an object" :
			     want == json_type_int ? "expected an integer" :
						     "wrong type");
		return NULL;
	}
	return v;
}

static bool get_int(struct json_object *v, int64_t lo, int64_t hi,
		    int64_t *out)
{
	if (!v || !json_object_is_type(v, json_type_int))
		return false;
	errno = 0;
	int64_t x = json_object_get_int64(v);
	if (errno || x < lo || x > hi)
		return false;
	*out = x;
	return true;
}

static bool get_num(struct json_object *v, double *out)
{
	if (!v || !(json_object_is_type(v, json_type_int) ||
		    json_object_is_type(v, json_type_double)))
		return false;
	*out = json_object_get_double(v);
	return isfinite(*out);
}

static const char *opt_str(struct json_object *o, const char *k)
{
	struct json_object *v;

	if (json_object_object_get_ex(o, k, &v) &&
	    json_object_is_type(v, json_type_string))
		return json_object_get_string(v);
	return NULL;
}

static int read_pairs(struct rd *r, struct json_object *a,
		      struct sf_label **out, size_t *n)
{
	size_t len = json_object_array_length(a);
	struct sf_label *l = sf_calloc(len, sizeof(*l));

	if (!l)
		return sf_error(r->ctx, SF_ENOMEM, NULL, 0, "out of memory");
	for (size_t i = 0; i < len; i++) {
		struct json_object *kv = json_object_array_get_idx(a, i);
		if (!json_object_is_type(kv, json_type_array) ||
		    json_object_array_length(kv) != 2 ||
		    !json_object_is_type(json_object_array_get_idx(kv, 0),
					 json_type_string) ||
		    !json_object_is_type(json_object_array_get_idx(kv, 1),
					 json_type_string)) {
			free(l);
			return bad(r, "expected [\"key\", \"value\"] pairs");
		}
		l[i].key = json_object_get_string(
			json_object_array_get_idx(kv, 0));
		l[i].value = json_object_get_string(
			json_object_array_get_idx(kv, 1));
	}
	*out = l;
	*n = len;
	return 0;
}

static int read_meta(struct rd *r, struct json_object *m)
{
	struct sf_profile *p = r->p;
	struct json_object *v;
	int64_t x;
	double d;

	snprintf(r->path, sizeof(r->path), "meta");
	if (!json_object_is_type(m, json_type_object))
		return bad(r, "expected an object");
	/* the first input's source format wins when merging */
	if (!p->d.nsamples && opt_str(m, "source_format"))
		p->d.meta.source_format = sf_profile_str(p, r->ctx,
			opt_str(m, "source_format"));
	if (json_object_object_get_ex(m, "period_type", &v)) {
		const char *t = opt_str(v, "type"), *u = opt_str(v, "unit");
		if (!t || !u)
			return bad(r, "period_type needs type and unit");
		p->d.meta.period_type.type = sf_profile_str(p, r->ctx, t);
		p->d.meta.period_type.unit = sf_profile_str(p, r->ctx, u);
	}
	if (json_object_object_get_ex(m, "period", &v)) {
		if (!get_num(v, &d))
			return bad(r, "period: expected a number");
		p->d.meta.period = d;
	}
	if (json_object_object_get_ex(m, "start_time", &v)) {
		if (!get_int(v, INT64_MIN + 1, INT64_MAX, &x))
			return bad(r, "start_time: expected an integer");
		p->d.meta.start_time = x;
	}
	if (json_object_object_get_ex(m, "duration", &v)) {
		if (!get_int(v, INT64_MIN + 1, INT64_MAX, &x))
			return bad(r, "duration: expected an integer");
		p->d.meta.duration = x;
	}
	if (json_object_object_get_ex(m, "default_sample_type", &v)) {
		if (!get_int(v, 0, UINT32_MAX, &x))
			return bad(r, "default_sample_type: expected an "
				      "index");
		p->d.meta.default_type = (uint32_t)x;
	}
	if (json_object_object_get_ex(m, "properties", &v)) {
		struct sf_label *l;
		size_t n;
		int rc;
		if (!json_object_is_type(v, json_type_array))
			return bad(r, "properties: expected an array");
		if ((rc = read_pairs(r, v, &l, &n)))
			return rc;
		for (size_t i = 0; i < n && !rc; i++)
			rc = sf_profile_set_prop(p, r->ctx, l[i].key,
						 l[i].value);
		free(l);
		if (rc)
			return rc;
	}
	return 0;
}

static int read_doc(struct rd *r, struct json_object *root)
{
	struct sf_profile *p = r->p;
	struct sf_ctx *ctx = r->ctx;
	struct json_object *a, *v;
	int rc = 0;
	int64_t x;
	uint32_t *tmap = NULL, *fmap = NULL, *smap = NULL, *lmap = NULL;
	size_t ntypes, nthreads, nframes, nstacks, nlabels;
	double *w = NULL;

	r->path[0] = 0;
	if (!json_object_is_type(root, json_type_object))
		return bad(r, "expected a JSON object");
	const char *fmt = opt_str(root, "format");
	if (!fmt || strcmp(fmt, "sftools-profile"))
		return bad(r, "not an sftools profile (\"format\" must be "
			      "\"sftools-profile\")");
	if (!json_object_object_get_ex(root, "version", &v) ||
	    !get_int(v, 1, 1, &x)) {
		snprintf(r->path, sizeof(r->path), "version");
		return bad(r, "unsupported version (this build reads "
			      "version 1)");
	}
	if (json_object_object_get_ex(root, "meta", &v) &&
	    (rc = read_meta(r, v)))
		return rc;

	/* sample types: map file index -> model index */
	if (!(a = member(root, "sample_types", json_type_array, true, r, &rc)))
		return rc;
	ntypes = json_object_array_length(a);
	if (!ntypes) {
		snprintf(r->path, sizeof(r->path), "sample_types");
		return bad(r, "at least one sample type is needed");
	}
	if (!(tmap = sf_calloc(ntypes, sizeof(*tmap))))
		return sf_error(ctx, SF_ENOMEM, NULL, 0, "out of memory");
	for (size_t i = 0; i < ntypes; i++) {
		struct json_object *t = json_object_array_get_idx(a, i);
		snprintf(r->path, sizeof(r->path), "sample_types[%zu]", i);
		const char *ty = json_object_is_type(t, json_type_object) ?
					 opt_str(t, "type") : NULL;
		const char *un = ty ? opt_str(t, "unit") : NULL;
		if (!ty || !un) {
			rc = bad(r, "expected {\"type\", \"unit\"}");
			goto out;
		}
		if ((rc = sf_profile_sample_type(p, ctx, ty, un, &tmap[i])))
			goto out;
	}
	if (p->d.meta.default_type >= ntypes) {
		snprintf(r->path, sizeof(r->path), "meta.default_sample_type");
		rc = bad(r, "index out of range");
		goto out;
	}
	p->d.meta.default_type = tmap[p->d.meta.default_type];

	if (!(a = member(root, "threads", json_type_array, true, r, &rc)))
		goto out;
	nthreads = json_object_array_length(a);
	if (!(tmap = realloc(tmap, (ntypes + nthreads + 1) *
			     sizeof(*tmap)))) {
		rc = sf_error(ctx, SF_ENOMEM, NULL, 0, "out of memory");
		goto out;
	}
	uint32_t *thmap = tmap + ntypes;
	for (size_t i = 0; i < nthreads; i++) {
		struct json_object *t = json_object_array_get_idx(a, i);
		int64_t pid = SF_NO_ID, tid = SF_NO_ID, input = 0;
		snprintf(r->path, sizeof(r->path), "threads[%zu]", i);
		if (!json_object_is_type(t, json_type_object)) {
			rc = bad(r, "expected an object");
			goto out;
		}
		if ((json_object_object_get_ex(t, "pid", &v) &&
		     !get_int(v, INT64_MIN + 1, INT64_MAX, &pid)) ||
		    (json_object_object_get_ex(t, "tid", &v) &&
		     !get_int(v, INT64_MIN + 1, INT64_MAX, &tid)) ||
		    (json_object_object_get_ex(t, "input", &v) &&
		     !get_int(v, 0, UINT32_MAX, &input))) {
			rc = bad(r, "pid, tid and input must be integers");
			goto out;
		}
		uint32_t saved = p->d.input;
		/* keep the inputs of a merged profile apart, offset by the
		 * input this file is */
		sf_profile_begin_input(p, saved + (uint32_t)input);
		rc = sf_profile_thread(p, ctx, pid, tid, opt_str(t, "name"),
				       &thmap[i]);
		sf_profile_begin_input(p, saved);
		if (rc)
			goto out;
	}

	if (!(a = member(root, "frames", json_type_array, true, r, &rc)))
		goto out;
	nframes = json_object_array_length(a);
	if (!(fmap = sf_calloc(nframes, sizeof(*fmap)))) {
		rc = sf_error(ctx, SF_ENOMEM, NULL, 0, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < nframes; i++) {
		struct json_object *fo = json_object_array_get_idx(a, i);
		struct sf_frame f;
		snprintf(r->path, sizeof(r->path), "frames[%zu]", i);
		if (!json_object_is_type(fo, json_type_object) ||
		    !(v = member(fo, "name", json_type_string, true, r,
				 &rc))) {
			snprintf(r->path, sizeof(r->path), "frames[%zu]", i);
			sf_error_clear(ctx);
			rc = bad(r, "expected an object with a \"name\"");
			goto out;
		}
		sf_frame_init(&f);
		f.name = json_object_get_string(v);
		if (strlen(f.name) != (size_t)json_object_get_string_len(v)) {
			rc = bad(r, "name holds a NUL character");
			goto out;
		}
		f.module = opt_str(fo, "module");
		f.file = opt_str(fo, "file");
		f.kind = opt_str(fo, "kind");
		if (json_object_object_get_ex(fo, "line", &v)) {
			if (!get_int(v, 0, UINT32_MAX, &x)) {
				rc = bad(r, "line: expected an integer");
				goto out;
			}
			f.line = (uint32_t)x;
		}
		if (json_object_object_get_ex(fo, "column", &v)) {
			if (!get_int(v, 0, UINT32_MAX, &x)) {
				rc = bad(r, "column: expected an integer");
				goto out;
			}
			f.column = (uint32_t)x;
		}
		if (json_object_object_get_ex(fo, "aux", &v)) {
			if (!get_int(v, 0, UINT32_MAX, &x)) {
				rc = bad(r, "aux: expected an integer");
				goto out;
			}
			f.aux = (uint32_t)x;
			f.flags |= SF_FRAME_HAS_AUX;
		}
		const char *addr = opt_str(fo, "address");
		if (addr) {
			char *end;
			errno = 0;
			unsigned long long ad = strtoull(addr, &end, 16);
			if (strncmp(addr, "0x", 2) || *end || errno ||
			    ad == SF_NO_ADDR) {
				rc = bad(r, "address: expected \"0xHEX\"");
				goto out;
			}
			f.address = ad;
		}
		if (json_object_object_get_ex(fo, "inline", &v) &&
		    json_object_get_boolean(v))
			f.flags |= SF_FRAME_INLINE;
		if (strlen(f.name) > ctx->limits.max_name) {
			rc = bad(r, "name exceeds --max-name");
			goto out;
		}
		if ((rc = sf_profile_frame(p, ctx, &f, &fmap[i])))
			goto out;
	}

	if (!(a = member(root, "stacks", json_type_array, true, r, &rc)))
		goto out;
	nstacks = json_object_array_length(a);
	if (!(smap = sf_calloc(nstacks + 1, sizeof(*smap)))) {
		rc = sf_error(ctx, SF_ENOMEM, NULL, 0, "out of memory");
		goto out;
	}
	smap[0] = SF_STACK_EMPTY;
	for (size_t i = 0; i < nstacks; i++) {
		struct json_object *s = json_object_array_get_idx(a, i);
		int64_t parent, frame;
		snprintf(r->path, sizeof(r->path), "stacks[%zu]", i);
		if (!json_object_is_type(s, json_type_array) ||
		    json_object_array_length(s) != 2 ||
		    !get_int(json_object_array_get_idx(s, 0), 0, (int64_t)i,
			     &parent) ||
		    !get_int(json_object_array_get_idx(s, 1), 0,
			     (int64_t)nframes - 1, &frame)) {
			rc = bad(r, "expected [parent, frame] with parent "
				    "below this node and a valid frame index");
			goto out;
		}
		if ((rc = sf_profile_stack_push(p, ctx, smap[parent],
						fmap[frame], &smap[i + 1])))
			goto out;
	}

	nlabels = 0;
	if ((a = member(root, "label_sets", json_type_array, false, r, &rc)))
		nlabels = json_object_array_length(a);
	else if (rc)
		goto out;
	if (!(lmap = sf_calloc(nlabels + 1, sizeof(*lmap)))) {
		rc = sf_error(ctx, SF_ENOMEM, NULL, 0, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < nlabels; i++) {
		struct json_object *s = json_object_array_get_idx(a, i);
		struct sf_label *l;
		size_t n;
		snprintf(r->path, sizeof(r->path), "label_sets[%zu]", i);
		if (!json_object_is_type(s, json_type_array)) {
			rc = bad(r, "expected an array of pairs");
			goto out;
		}
		if ((rc = read_pairs(r, s, &l, &n)))
			goto out;
		rc = sf_profile_labels(p, ctx, l, n, &lmap[i + 1]);
		free(l);
		if (rc)
			goto out;
	}

	if (!(a = member(root, "samples", json_type_array, true, r, &rc)))
		goto out;
	size_t nsamples = json_object_array_length(a);
	size_t nt = p->d.ntypes;
	if (!(w = sf_calloc(nt, sizeof(*w)))) {
		rc = sf_error(ctx, SF_ENOMEM, NULL, 0, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < nsamples; i++) {
		struct json_object *s = json_object_array_get_idx(a, i);
		int64_t stack, thread = -1, time = SF_NO_TIME, labels;
		if ((i & 0xffff) == 0 && sf_interrupted(ctx)) {
			rc = sf_error(ctx, SF_EINTR, NULL, 0, "interrupted");
			goto out;
		}
		snprintf(r->path, sizeof(r->path), "samples[%zu]", i);
		if (!json_object_is_type(s, json_type_array) ||
		    json_object_array_length(s) != 4 + ntypes) {
			rc = bad(r, "expected [stack, thread, time, labels, "
				    "one weight per sample type]");
			goto out;
		}
		struct json_object *th = json_object_array_get_idx(s, 1);
		struct json_object *tm = json_object_array_get_idx(s, 2);
		if (!get_int(json_object_array_get_idx(s, 0), 0,
			     (int64_t)nstacks, &stack) ||
		    (th && !get_int(th, 0, (int64_t)nthreads - 1, &thread)) ||
		    (tm && !get_int(tm, INT64_MIN + 1, INT64_MAX, &time)) ||
		    !get_int(json_object_array_get_idx(s, 3), 0,
			     (int64_t)nlabels, &labels)) {
			rc = bad(r, "stack, thread, time or labels out of "
				    "range");
			goto out;
		}
		memset(w, 0, nt * sizeof(*w));
		for (size_t t = 0; t < ntypes; t++) {
			double d;
			if (!get_num(json_object_array_get_idx(s, 4 + t), &d)) {
				rc = bad(r, "weights must be finite numbers");
				goto out;
			}
			w[tmap[t]] += d;
		}
		if ((rc = sf_profile_add_sample(p, ctx, smap[stack],
						th ? thmap[thread] :
						     SF_NO_THREAD,
						lmap[labels], time, w)))
			goto out;
	}
out:
	free(tmap);
	free(fmap);
	free(smap);
	free(lmap);
	free(w);
	return rc;
}

/*
 * json-c holds the whole document as a tree and, in 0.16, ignores a failed
 * allocation while it appends to a string (the string is silently cut
 * short).  So the bytes are checked before json-c sees them: no string may
 * be longer than --max-name (a frame name, a label, a path: all are
 * names), and the document no longer than --max-decompressed, which for
 * this format bounds the plain input too since all of it is held.
 */
struct jscan {
	bool in_str, esc;
	uint64_t slen;     /* raw bytes of the current string so far */
	uint64_t total;    /* bytes of the document so far */
};

static int json_scan(struct jscan *j, const char *b, size_t n,
		     struct sf_input *in, struct sf_ctx *ctx, uint64_t line)
{
	j->total += n;
	if (j->total > ctx->limits.max_decompressed)
		return sf_error(ctx, SF_ELIMIT, sf_input_name(in), line,
				"JSON document larger than %llu bytes "
				"(--max-decompressed)",
				(unsigned long long)
				ctx->limits.max_decompressed);
	for (size_t i = 0; i < n; i++) {
		char c = b[i];
		if (!j->in_str) {
			if (c == '"') {
				j->in_str = true;
				j->slen = 0;
			}
			continue;
		}
		if (j->esc)
			j->esc = false;
		else if (c == '\\')
			j->esc = true;
		else if (c == '"') {
			j->in_str = false;
			continue;
		}
		if (++j->slen > ctx->limits.max_name) {
			for (size_t k = 0; k < i; k++)
				line += b[k] == '\n';
			return sf_error(ctx, SF_ELIMIT, sf_input_name(in),
					line, "JSON string longer than %llu "
					"bytes (--max-name)",
					(unsigned long long)
					ctx->limits.max_name);
		}
	}
	return 0;
}

static int json_read(struct sf_profile *p, struct sf_input *in,
		     struct sf_ctx *ctx)
{
	struct jscan scan = { 0 };
	struct json_tokener *tok;
	struct json_object *root = NULL;
	char buf[1 << 16];
	uint64_t line = 1;
	int rc = 0;
	enum json_tokener_error jerr = json_tokener_continue;

	tok = json_tokener_new_ex((int)(ctx->limits.max_nesting > 0x7fffffff ?
					0x7fffffff :
					ctx->limits.max_nesting));
	if (!tok)
		return sf_error(ctx, SF_ENOMEM, NULL, 0, "out of memory");
	for (;;) {
		long n = sf_input_read_some(in, ctx, buf, sizeof(buf));
		if (n < 0) {
			rc = (int)n;
			goto out;
		}
		if (n == 0)
			break;
		if ((rc = json_scan(&scan, buf, (size_t)n, in, ctx, line)))
			goto out;
		root = json_tokener_parse_ex(tok, buf, (int)n);
		jerr = json_tokener_get_error(tok);
		size_t used = (size_t)json_tokener_get_parse_end(tok);
		for (size_t i = 0; i < used; i++)
			line += buf[i] == '\n';
		if (jerr == json_tokener_continue)
			continue;
		if (jerr != json_tokener_success) {
			rc = sf_error(ctx, SF_EINPUT, sf_input_name(in), line,
				      "invalid JSON: %s",
				      json_tokener_error_desc(jerr));
			goto out;
		}
		/* only white space may follow the document */
		for (size_t i = used; i < (size_t)n; i++) {
			if (buf[i] != ' ' && buf[i] != '\n' &&
			    buf[i] != '\r' && buf[i] != '\t') {
				rc = sf_error(ctx, SF_EINPUT,
					      sf_input_name(in), line,
					      "unexpected data after the "
					      "JSON document");
				goto out;
			}
			line += buf[i] == '\n';
		}
		for (;;) {
			n = sf_input_read_some(in, ctx, buf, sizeof(buf));
			if (n < 0) {
				rc = (int)n;
				goto out;
			}
			if (n == 0)
				break;
			for (long i = 0; i < n; i++) {
				if (buf[i] != ' ' && buf[i] != '\n' &&
				    buf[i] != '\r' && buf[i] != '\t') {
					rc = sf_error(ctx, SF_EINPUT,
						      sf_input_name(in), line,
						      "unexpected data after "
						      "the JSON document");
					goto out;
				}
				line += buf[i] == '\n';
			}
		}
		break;
	}
	if (!root) {
		rc = sf_error(ctx, SF_EINPUT, sf_input_name(in), line,
			      jerr == json_tokener_continue ?
			      "truncated JSON: the document ends early" :
			      "invalid JSON");
		goto out;
	}
	struct rd r = { p, ctx, sf_input_name(in), "" };
	rc = read_doc(&r, root);
out:
	json_object_put(root);
	json_tokener_free(tok);
	return rc;
}

static const char *const json_ext[] = { ".json", NULL };

const struct sf_format sf_format_json = {
	.name = "json",
	.description = "sftools native JSON, lossless (docs/profile.schema.json)",
	.extensions = json_ext,
	.probe = json_probe,
	.read = json_read,
	.write = json_write,
	.caps = SF_CAP_THREADS | SF_CAP_TIME | SF_CAP_WEIGHTS | SF_CAP_TYPES |
		SF_CAP_INLINE | SF_CAP_LOCATIONS | SF_CAP_LABELS |
		SF_CAP_ORDER,
	.needs_order = true,
	.priority = 5,
};
