/*
 * fmt_speedscope.c - speedscope's file format
 * (https://www.speedscope.app/file-format-schema.json).
 *
 *   {"$schema": ..., "shared": {"frames": [{"name", "file", "line",
 *    "col"}]}, "profiles": [{"type": "sampled", "name", "unit",
 *    "startValue", "endValue", "samples": [[frame, ...]], "weights": [...]}
 *    | {"type": "evented", ..., "events": [{"type": "O"|"C", "frame",
 *    "at"}]}], "activeProfileIndex", "exporter", "name"}
 *
 * Reading: the bulk of the file (events, samples, weights) is parsed one
 * element at a time into compact arrays, never into json-c objects, so
 * memory is a few times the input at most.  Each profile becomes one thread
 * named after the profile.  The
 * unit picks the sample type: "none" -> ("samples", "count"), "bytes" ->
 * ("space", "bytes"), a time unit -> ("time", unit).  Sampled profiles keep
 * their samples in order (stacks root first).  Evented profiles become one
 * sample per interval between events, weighted by its length, timed when
 * the unit is a time; closing a frame that is not the innermost open one is
 * an error (as in speedscope); frames still open at the end are closed at
 * endValue with a warning.
 *
 * Writing: one "sampled" profile per thread (samples without a thread in
 * one more), named after the thread, weights in the default sample type
 * with its unit when speedscope knows it (else "none"); a default that is
 * a plain sample count gives way to a time type beside it.
 */
#include "webjson.h"
#include "text.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int speedscope_probe(const unsigned char *d, size_t n)
{
	size_t i = sf_probe_skip_space(d, n);

	if (i >= n || d[i] != '{')
		return 0;
	if (sf_webjson__has(d, n, "speedscope.app/file-format-schema"))
		return 90;
	if (sf_webjson__has(d, n, "\"shared\"") &&
	    sf_webjson__has(d, n, "\"profiles\"") &&
	    sf_webjson__has(d, n, "\"frames\""))
		return 50;
	return 0;
}

/* ----- reading ----- */

/* The bulk of a profile, kept compact while the document is parsed (see
 * struct sf_webjson_divert): events, samples and weights. */
struct ev {
	double at;
	uint32_t frame;         /* EV_BAD_FRAME: outside 0 .. UINT32_MAX - 1,
				 * so out of range of any frame table */
	bool open;
};  /* 16 bytes: an evented file's events are most of its bulk */

#define EV_BAD_FRAME UINT32_MAX

struct side {
	struct ev *ev;
	size_t nev, cev;
	int64_t *fr;            /* frames of all samples, root first */
	size_t nfr, cfr;
	size_t *off;            /* sample i: fr[off[i] .. off[i + 1]) */
	size_t noff, coff;
	double *w;
	size_t nw, cw;
	bool has_events, has_samples, has_weights;
	struct sf_webjson_runs lev, lsmp;   /* lines of events, samples */
	/* the header, kept when the profile ends: the profiles are
	 * diverted too, so a file of many profiles is no tree either */
	char *type, *pname, *unit;          /* NULL: none, or no string */
	double start, end;                  /* startValue (0), endValue */
	uint64_t line;
};

struct rd {
	struct sf_profile *p;
	struct sf_ctx *ctx;
	const char *name;
	sf_frame_id *fmap;      /* shared.frames[i] -> model frame */
	size_t nframes, cfmap;
	double *w;
	struct side *side;
	size_t nside, capside;
	size_t nprof;           /* profiles ended so far */
	uint64_t pline;         /* line of the profile being read */
};

static int bad(struct rd *r, uint64_t line, const char *fmt, size_t a,
	       size_t b)
{
	char m[256];

	snprintf(m, sizeof(m), fmt, a, b);
	return sf_error(r->ctx, SF_EINPUT, r->name, line, "%s", m);
}

static bool more(void **a, size_t *cap, size_t n, size_t size)
{
	if (n < *cap)
		return true;
	size_t nc = *cap ? *cap * 2 : 4;
	void *q = sf_reallocarray(*a, nc, size);
	if (!q)
		return false;
	*a = q;
	*cap = nc;
	return true;
}

/* The compact side of profile `index`. */
static int side_of(struct rd *r, size_t index, struct side **out)
{
	if (index >= r->nside) {
		size_t nn = index + 1;
		/* doubled, not one more per profile: 300,000 profiles */
		if (nn > r->capside) {
			size_t cap = r->capside ? 2 * r->capside : 16;
			cap = cap < nn ? nn : cap;
			void *q = sf_reallocarray(r->side, cap,
						  sizeof(*r->side));
			if (!q)
				return sf_error_nomem(r->ctx);
			r->side = q;
			r->capside = cap;
		}
		memset(r->side + r->nside, 0,
		       (nn - r->nside) * sizeof(*r->side));
		r->nside = nn;
	}
	*out = &r->side[index];
	return 0;
}

/* A profile's events, samples or weights, met while the profile itself
 * is parsed (the inner divert): it is profile number r->nprof. */
static int element(void *ud, size_t index, const char *key, size_t n,
		   struct json_object *e, uint64_t line)
{
	struct rd *r = ud;
	struct side *sd;
	int rc;

	index = r->nprof;
	if ((rc = side_of(r, index, &sd)))
		return rc;
	if (!strcmp(key, "events")) {
		const char *ty = sf_webjson__str(e, "type");
		struct ev v;
		int64_t f;
		sd->has_events = true;
		if (!ty || (strcmp(ty, "O") && strcmp(ty, "C")) ||
		    !sf_webjson__num(sf_webjson__get(e, "at"), &v.at) ||
		    !sf_webjson__int(sf_webjson__get(e, "frame"), &f))
			return sf_error(r->ctx, SF_EINPUT, r->name, line,
					"profiles[%zu].events[%zu]: expected "
					"{\"type\": \"O\"|\"C\", \"frame\": "
					"index, \"at\": number}", index, n);
		v.open = ty[0] == 'O';
		v.frame = f < 0 || f >= EV_BAD_FRAME ? EV_BAD_FRAME :
						       (uint32_t)f;
		if (!more((void **)&sd->ev, &sd->cev, sd->nev, sizeof(v)) ||
		    sf_webjson__runs_note(&sd->lev, r->ctx, sd->nev, line))
			return sf_error_nomem(r->ctx);
		sd->ev[sd->nev++] = v;
	} else if (!strcmp(key, "samples")) {
		size_t d;
		sd->has_samples = true;
		if (!e || !json_object_is_type(e, json_type_array))
			return sf_error(r->ctx, SF_EINPUT, r->name, line,
					"profiles[%zu].samples[%zu]: expected "
					"an array of frame indexes", index, n);
		d = json_object_array_length(e);
		if (sf_webjson__runs_note(&sd->lsmp, r->ctx,
					  sd->noff ? sd->noff - 1 : 0, line))
			return SF_ENOMEM;
		if (!sd->noff) {
			if (!more((void **)&sd->off, &sd->coff, 0,
				  sizeof(*sd->off)))
				return sf_error_nomem(r->ctx);
			sd->off[sd->noff++] = 0;
		}
		for (size_t j = 0; j < d; j++) {
			int64_t f;
			if (!sf_webjson__int(json_object_array_get_idx(e, j),
					     &f))
				return sf_error(r->ctx, SF_EINPUT, r->name,
						line, "profiles[%zu].samples"
						"[%zu]: expected frame "
						"indexes", index, n);
			if (!more((void **)&sd->fr, &sd->cfr, sd->nfr,
				  sizeof(*sd->fr)))
				return sf_error_nomem(r->ctx);
			sd->fr[sd->nfr++] = f;
		}
		if (!more((void **)&sd->off, &sd->coff, sd->noff,
			  sizeof(*sd->off)))
			return sf_error_nomem(r->ctx);
		sd->off[sd->noff++] = sd->nfr;
	} else {
		double w;
		sd->has_weights = true;
		if (!sf_webjson__num(e, &w))
			return sf_error(r->ctx, SF_EINPUT, r->name, line,
					"profiles[%zu].weights[%zu]: expected "
					"a number", index, n);
		if (!more((void **)&sd->w, &sd->cw, sd->nw, sizeof(w)))
			return sf_error_nomem(r->ctx);
		sd->w[sd->nw++] = w;
	}
	return 0;
}

static int keep_str(struct rd *r, struct json_object *o, const char *k,
		    char **out)
{
	const char *s = sf_webjson__str(o, k);

	if (s && !(*out = strdup(s)))
		return sf_error_nomem(r->ctx);
	return 0;
}

/* A profile, its bulk already gone to element(): its header. */
static int profile_cb(void *ud, size_t index, const char *key, size_t n,
		      struct json_object *po, uint64_t line)
{
	struct rd *r = ud;
	struct side *sd;
	int rc;

	if ((rc = side_of(r, n, &sd)))
		return rc;
	r->nprof = n + 1;
	sd->line = line;
	sd->end = NAN;
	sf_webjson__num(sf_webjson__get(po, "startValue"), &sd->start);
	sf_webjson__num(sf_webjson__get(po, "endValue"), &sd->end);
	/* an empty array never reaches element(): its key is still in the
	 * profile */
	if (sf_webjson__arr(po, "events"))
		sd->has_events = true;
	if (sf_webjson__arr(po, "samples"))
		sd->has_samples = true;
	if (sf_webjson__arr(po, "weights"))
		sd->has_weights = true;
	if ((rc = keep_str(r, po, "type", &sd->type)) ||
	    (rc = keep_str(r, po, "name", &sd->pname)))
		return rc;
	return keep_str(r, po, "unit", &sd->unit);
}

/* Each of shared.frames as the parser meets it (struct
 * sf_webjson_divert): a model frame at once, so the frames are never a
 * json-c tree (about 1 KB a frame). */
static int frame_cb(void *ud, size_t index, const char *key, size_t n,
		    struct json_object *fo, uint64_t line)
{
	struct rd *r = ud;
	struct sf_frame f;
	int64_t x;
	int rc;

	sf_frame_init(&f);
	f.name = sf_webjson__str(fo, "name");
	if (!f.name)
		return bad(r, line, "shared.frames[%zu]: expected an object "
			   "with a \"name\"", n, 0);
	if (strlen(f.name) > r->ctx->limits.max_name)
		return bad(r, line, "shared.frames[%zu]: name exceeds "
			   "--max-name", n, 0);
	f.file = sf_webjson__str(fo, "file");
	if (sf_webjson__int(sf_webjson__get(fo, "line"), &x) &&
	    x > 0 && x <= UINT32_MAX)
		f.line = (uint32_t)x;
	if (sf_webjson__int(sf_webjson__get(fo, "col"), &x) &&
	    x > 0 && x <= UINT32_MAX)
		f.column = (uint32_t)x;
	if (sf_grow(&r->fmap, &r->cfmap, r->nframes + 1, sizeof(*r->fmap)))
		return sf_error_nomem(r->ctx);
	if ((rc = sf_profile_frame(r->p, r->ctx, &f, &r->fmap[r->nframes])))
		return rc;
	r->nframes++;
	return 0;
}

static int unit_type(struct rd *r, const char *unit, uint32_t *t, double *ns)
{
	double us = sf_webjson__unit_us(unit);

	*ns = us * 1000;
	if (!unit || !strcmp(unit, "none"))
		return sf_profile_sample_type(r->p, r->ctx, "samples", "count",
					      t);
	if (!strcmp(unit, "bytes"))
		return sf_profile_sample_type(r->p, r->ctx, "space", "bytes",
					      t);
	if (us)
		return sf_profile_sample_type(r->p, r->ctx, "time", unit, t);
	return sf_error(r->ctx, SF_EINPUT, r->name, r->pline,
			"unknown speedscope unit '%s'", unit);
}

static int add(struct rd *r, sf_stack_id s, sf_thread_idx th, uint32_t t,
	       double weight, int64_t time)
{
	memset(r->w, 0, r->p->d.ntypes * sizeof(*r->w));
	r->w[t] = weight;
	return sf_profile_add_sample(r->p, r->ctx, s, th, 0, time, r->w);
}

static int read_sampled(struct rd *r, struct side *sd, size_t pi,
			sf_thread_idx th, uint32_t t)
{
	sf_frame_id *fr = NULL;
	size_t cap = 0;
	int rc = 0;

	if (!sd->has_samples)
		return bad(r, r->pline, "profiles[%zu]: a sampled profile needs "
			      "\"samples\"", pi, 0);
	size_t ns = sd->noff ? sd->noff - 1 : 0;
	if (sd->has_weights && sd->nw != ns)
		return bad(r, r->pline, "profiles[%zu]: %zu samples but a "
			      "different "
			      "number of weights", pi, ns);
	for (size_t i = 0; i < ns && !rc; i++) {
		size_t d = sd->off[i + 1] - sd->off[i];
		sf_stack_id s;
		if (d > cap) {
			void *q = sf_reallocarray(fr, d, sizeof(*fr));
			if (!q) {
				rc = sf_error_nomem(r->ctx);
				break;
			}
			fr = q;
			cap = d;
		}
		for (size_t j = 0; j < d; j++) {
			int64_t f = sd->fr[sd->off[i] + j];
			if (f < 0 || (uint64_t)f >= r->nframes) {
				rc = bad(r, sf_webjson__runs_line(&sd->lsmp, i),
					 "profiles[%zu].samples[%zu]: frame "
					    "index out of range", pi, i);
				goto out;
			}
			fr[j] = r->fmap[f];
		}
		if ((rc = sf_profile_stack(r->p, r->ctx, fr, d, false, &s)))
			break;
		rc = add(r, s, th, t, sd->has_weights ? sd->w[i] : 1,
			 SF_NO_TIME);
	}
out:
	free(fr);
	return rc;
}

static int read_evented(struct rd *r, struct side *sd, size_t pi,
			sf_thread_idx th, uint32_t t, double ns_per_unit)
{
	struct { sf_stack_id stack; uint32_t frame; } *open = NULL;
	size_t n = 0, cap = 0;
	double last = 0, end = NAN;
	int rc = 0;

	if (!sd->has_events)
		return bad(r, r->pline, "profiles[%zu]: an evented profile "
			      "needs "
			      "\"events\"", pi, 0);
	last = sd->start;
	end = sd->end;
	size_t ne = sd->nev;
	for (size_t i = 0; i <= ne && !rc; i++) {
		struct ev *e = i < ne ? &sd->ev[i] : NULL;
		double at;
		if ((i & 0xffff) == 0 && sf_interrupted(r->ctx)) {
			rc = sf_error(r->ctx, SF_EINTR, NULL, 0,
				      "interrupted");
			break;
		}
		if (!e) {
			if (!n)
				break;
			sf_warn(r->ctx, "speedscope.unclosed", "%s: profile "
				"%zu ends with frames still open; closed at "
				"endValue", r->name, pi);
			at = isfinite(end) && end > last ? end : last;
		} else {
			at = e->at;
			if (e->frame >= r->nframes) {
				rc = bad(r, sf_webjson__runs_line(&sd->lev, i),
				 "profiles[%zu].events[%zu]: frame "
					    "index out of range", pi, i);
				break;
			}
		}
		if (at < last) {
			rc = bad(r, sf_webjson__runs_line(&sd->lev, i),
				 "profiles[%zu].events[%zu]: events go back "
				    "in time", pi, i);
			break;
		}
		/* the interval since the last event belongs to the open
		 * stack */
		if (n && at > last &&
		    (rc = add(r, open[n - 1].stack, th, t, at - last,
			      ns_per_unit ? (int64_t)llround(
				      last * ns_per_unit) : SF_NO_TIME)))
			break;
		last = at;
		if (!e)
			break;
		if (e->open) {
			sf_stack_id s;
			if (!more((void **)&open, &cap, n, sizeof(*open))) {
				rc = sf_error_nomem(r->ctx);
				break;
			}
			if ((rc = sf_profile_stack_push(
				     r->p, r->ctx, n ? open[n - 1].stack :
						       SF_STACK_EMPTY,
				     r->fmap[e->frame], &s)))
				break;
			open[n].stack = s;
			open[n++].frame = e->frame;
		} else {
			if (!n || open[n - 1].frame != e->frame) {
				rc = bad(r, sf_webjson__runs_line(&sd->lev, i),
				 "profiles[%zu].events[%zu]: closes "
					    "a frame that is not the innermost "
					    "open one", pi, i);
				break;
			}
			n--;
		}
	}
	free(open);
	return rc;
}

static int speedscope_read(struct sf_profile *p, struct sf_input *in,
			   struct sf_ctx *ctx)
{
	static const char *const bulk[] = { "events", "samples", "weights",
					    NULL };
	struct json_object *root = NULL, *frames, *profiles;
	static const char *const frame_keys[] = { "frames", NULL };
	struct rd r = { .p = p, .ctx = ctx, .name = sf_input_name(in) };
	/* shared.frames, then profiles[i].events/samples/weights */
	struct sf_webjson_divert fdv = { .top = "shared", .keys = frame_keys,
					 .element = frame_cb, .ud = &r,
					 .top_object = true };
	/* what the reader reads from the tree; others are checked and
	 * dropped */
	static const char *const root_keys[] = { "shared", "profiles",
						 "name", NULL };
	static const char *const profile_keys[] = { "type", "name", "unit",
						    "startValue", "endValue",
						    "events", "samples",
						    "weights", NULL };
	/* a profile's bulk, and any array or object among its members
	 * that the reader does not read, never reach the profile's tree
	 * (the frames go through the same parser: they hold no arrays) */
	struct sf_webjson_divert idv = { .keys = bulk, .element = element,
					 .ud = &r, .root_keys = profile_keys };
	struct sf_webjson_divert dv = { .top = "profiles",
					.element = profile_cb, .ud = &r,
					.inner = &idv, .next = &fdv,
					.root_keys = root_keys };
	uint64_t last = 0;
	int rc;

	if ((rc = sf_webjson__parse_divert(in, ctx, false,
					   "speedscope.truncated", &dv,
					   &root, &last)))
		goto out;
	frames = sf_webjson__arr(sf_webjson__get(root, "shared"), "frames");
	profiles = sf_webjson__arr(root, "profiles");
	if (!frames || !profiles) {
		rc = sf_error(ctx, SF_EINPUT, r.name, last,
			      "not a speedscope file: needs \"shared\": "
			      "{\"frames\": [...]} and \"profiles\": [...]");
		goto out;
	}
	/* the sample types first, so every weight vector is complete */
	size_t np = r.nprof;
	uint32_t first_type = UINT32_MAX;
	for (size_t i = 0; i < np; i++) {
		uint32_t t;
		double ns;
		r.pline = r.side[i].line;
		if ((rc = unit_type(&r, r.side[i].unit, &t, &ns)))
			goto out;
		if (first_type == UINT32_MAX)
			first_type = t;
	}
	if (!p->d.nsamples && first_type != UINT32_MAX)
		p->d.meta.default_type = first_type;
	if (!(r.w = sf_calloc(p->d.ntypes + 1, sizeof(*r.w)))) {
		rc = sf_error_nomem(ctx);
		goto out;
	}
	for (size_t i = 0; i < np; i++) {
		struct side *sd = &r.side[i];
		const char *ty = sd->type;
		const char *pn = sd->pname;
		char nb[32];
		uint32_t t;
		double ns;
		sf_thread_idx th;
		r.pline = sd->line;
		if ((rc = unit_type(&r, sd->unit, &t, &ns)))
			goto out;
		if (!pn) {
			snprintf(nb, sizeof(nb), "profile %zu", i);
			pn = nb;
		}
		if ((rc = sf_profile_thread(p, ctx, SF_NO_ID, SF_NO_ID, pn,
					    &th)))
			goto out;
		if (ty && !strcmp(ty, "sampled"))
			rc = read_sampled(&r, sd, i, th, t);
		else if (ty && !strcmp(ty, "evented"))
			rc = read_evented(&r, sd, i, th, t, ns);
		else
			rc = bad(&r, r.pline, "profiles[%zu]: \"type\" must be "
				     "\"sampled\" or \"evented\"", i, 0);
		if (rc)
			goto out;
	}
	const char *nm = sf_webjson__str(root, "name");
	if (nm && (rc = sf_profile_set_prop(p, ctx, "speedscope.name", nm)))
		goto out;
out:
	if (rc)
		sf_error_place(ctx, r.name, last);
	for (size_t i = 0; i < r.nside; i++) {
		free(r.side[i].lev.v);
		free(r.side[i].lsmp.v);
		free(r.side[i].ev);
		free(r.side[i].fr);
		free(r.side[i].off);
		free(r.side[i].w);
		free(r.side[i].type);
		free(r.side[i].pname);
		free(r.side[i].unit);
	}
	free(r.side);
	free(r.fmap);
	free(r.w);
	json_object_put(root);
	return rc;
}

/* ----- writing ----- */

static const char *speedscope_unit(const char *u)
{
	static const char *const ok[] = { "nanoseconds", "microseconds",
		"milliseconds", "seconds", "bytes", NULL };

	for (size_t i = 0; u && ok[i]; i++)
		if (!strcmp(u, ok[i]))
			return ok[i];
	return "none";
}

static int speedscope_write(const struct sf_profile *p, struct sf_output *out,
			    struct sf_ctx *ctx)
{
	size_t *order, *start, ng;
	sf_thread_idx *threads;
	sf_frame_id *buf = NULL;
	uint32_t t = p->d.meta.default_type;
	int rc;

	if (t >= p->d.ntypes)
		t = 0;
	/* a plain sample count with a time kept beside it (a .cpuprofile's
	 * timeDeltas): the time, which speedscope shows for such input */
	if (p->d.ntypes && !strcmp(p->d.types[t].type, "samples") &&
	    !strcmp(p->d.types[t].unit, "count"))
		for (uint32_t k = 0; k < p->d.ntypes; k++)
			if (k != t && sf_webjson__unit_us(p->d.types[k].unit) >
					      0) {
				t = k;
				break;
			}
	if ((rc = sf_webjson__by_thread(p, ctx, &order, &start, &threads,
					&ng)))
		return rc;
	size_t maxd = sf_profile_max_depth(p);
	if (!(buf = sf_calloc(maxd + 1, sizeof(*buf)))) {
		rc = sf_error_nomem(ctx);
		goto out;
	}
	const char *unit = speedscope_unit(p->d.ntypes ?
					   p->d.types[t].unit : NULL);
	if (p->d.ntypes && strcmp(unit, "none") &&
	    strcmp(unit, p->d.types[t].unit))
		unit = "none";
	if (p->d.ntypes && !strcmp(unit, "none") &&
	    strcmp(p->d.types[t].unit, "count"))
		sf_warn(ctx, "speedscope.unit", "speedscope has no unit '%s'; "
			"weights written with unit \"none\"",
			p->d.types[t].unit);

	sf_output_puts(out, "{\"$schema\":\"https://www.speedscope.app/"
			    "file-format-schema.json\",\n\"exporter\":"
			    "\"sftools " SF_VERSION "\",\n\"name\":");
	const char *nm = sf_profile_prop(p, "speedscope.name");
	sf_webjson__put_str(out, nm ? nm : "sftools profile");
	sf_output_puts(out, ",\n\"activeProfileIndex\":0,\n\"shared\":"
			    "{\"frames\":[");
	for (size_t i = 0; i < p->d.nframes; i++) {
		const struct sf_frame *f = &p->d.frames[i];
		sf_output_puts(out, i ? ",\n{\"name\":" : "\n{\"name\":");
		sf_webjson__put_str(out, f->name);
		if (f->file) {
			sf_output_puts(out, ",\"file\":");
			sf_webjson__put_str(out, f->file);
		}
		if (f->line) {
			sf_output_puts(out, ",\"line\":");
			sf_output_u64(out, f->line);
		}
		if (f->column) {
			sf_output_puts(out, ",\"col\":");
			sf_output_u64(out, f->column);
		}
		sf_output_putc(out, '}');
	}
	sf_output_puts(out, "]},\n\"profiles\":[");
	for (size_t g = 0; g < ng; g++) {
		char name[256];
		double total = 0;
		sf_webjson__thread_name(p, threads[g], ng > 1 ?
					"(no thread)" : "all", name,
					sizeof(name));
		for (size_t k = start[g]; k < start[g + 1]; k++)
			total += sf_weight(p, order[k], t);
		sf_output_puts(out, g ? ",\n{\"type\":\"sampled\",\"name\":" :
				       "\n{\"type\":\"sampled\",\"name\":");
		sf_webjson__put_str(out, name);
		sf_output_puts(out, ",\"unit\":\"");
		sf_output_puts(out, unit);
		sf_output_puts(out, "\",\"startValue\":0,\"endValue\":");
		sf_webjson__put_num(out, total);
		sf_output_puts(out, ",\n\"samples\":[");
		for (size_t k = start[g]; k < start[g + 1]; k++) {
			sf_stack_id s = p->d.samples[order[k]].stack;
			size_t d = sf_profile_stack_frames(p, s, buf);
			sf_output_puts(out, k > start[g] ? ",\n[" : "\n[");
			for (size_t j = 0; j < d; j++) {
				if (j)
					sf_output_putc(out, ',');
				sf_output_u64(out, buf[j]);
			}
			sf_output_putc(out, ']');
		}
		sf_output_puts(out, "],\n\"weights\":[");
		for (size_t k = start[g]; k < start[g + 1]; k++) {
			if (k > start[g])
				sf_output_putc(out, ',');
			sf_webjson__put_num(out, sf_weight(p, order[k], t));
		}
		sf_output_puts(out, "]}");
	}
	sf_output_puts(out, "]}\n");
out:
	free(buf);
	free(order);
	free(start);
	free(threads);
	return rc;
}

static const char *const speedscope_ext[] = { ".speedscope.json", NULL };

const struct sf_format sf_format_speedscope = {
	.name = "speedscope",
	.description = "speedscope JSON (sampled and evented profiles)",
	.extensions = speedscope_ext,
	.probe = speedscope_probe,
	.read = speedscope_read,
	.write = speedscope_write,
	.caps = SF_CAP_THREADS | SF_CAP_WEIGHTS | SF_CAP_ORDER |
		SF_CAP_LOCATIONS,
	.needs_order = true,
	.priority = 10,
};
