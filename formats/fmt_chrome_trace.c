/*
 * fmt_chrome_trace.c - the Trace Event Format of chrome://tracing, Chrome
 * DevTools and Perfetto: a JSON array of events, or an object whose
 * "traceEvents" holds them.
 *
 * Reading.  A trace holds either sampled CPU profiles or duration events:
 *   - sampled: "Profile" / "ProfileChunk" events (ph "P": V8 CPU profile
 *     nodes, samples and timeDeltas, spread over chunks, keyed by pid and
 *     id), or the JSON Object Format's "stackFrames" + "samples".  When a
 *     trace has samples, they are the profile and duration events are
 *     ignored (they are Chrome's own tasks, not the program's stacks).
 *     V8 samples weigh 1 in ("samples", "count") and the time to the next
 *     sample in ("wall", "microseconds"), as in the cpuprofile reader.
 *   - duration events: B/E pairs and X (complete) events build a stack per
 *     (pid, tid); the time between two consecutive events of a thread is
 *     one sample of the stack open in between, weighted in ("wall",
 *     "microseconds").  Events are ordered by time (ends before begins at
 *     equal times, longer X events outside shorter ones).  An E that names
 *     a frame below the top closes the frames above it too; an E matching
 *     nothing is ignored; frames open at the end are dropped (warnings
 *     count all three).
 *   - "M" thread_name events name the threads.
 * A file cut off before its closing `]` (Chrome writes traces that way
 * when it stops early) is read up to its last complete event.
 *
 * Writing: B/E events per thread, one begin per frame entered and one end
 * per frame left between consecutive samples (so runs of samples with a
 * common prefix stay one event), and thread_name metadata.  Each sample
 * lasts its default-type weight when that is a time, meta.period when the
 * weight is a count and the period a time, else 1 us per unit; timestamps,
 * when present, place the samples (the line never goes backwards).
 * Loadable by Chrome DevTools (Performance panel), chrome://tracing,
 * Perfetto and speedscope.
 */
#include "webjson.h"
#include "text.h"
#include "strbuf.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int trace_probe(const unsigned char *d, size_t n)
{
	size_t i = sf_probe_skip_space(d, n);

	if (i >= n || (d[i] != '[' && d[i] != '{'))
		return 0;
	if (sf_webjson__has(d, n, "\"sftools-profile\""))
		return 0;
	if (d[i] == '{' && sf_webjson__has(d, n, "\"traceEvents\""))
		return 70;
	if (sf_webjson__has(d, n, "\"ph\"") &&
	    sf_webjson__has(d, n, "\"ts\""))
		return d[i] == '[' ? 70 : 40;
	return 0;
}

/* ----- reading ----- */

struct tev {
	double ts;
	double k2;          /* tie-break at equal ts, see ev_cmp */
	uint32_t seq;
	uint8_t begin;      /* 1 = B, 0 = E */
	const char *name;   /* NULL: an E without a name */
};

struct tthread {
	int64_t pid, tid;
	const char *name;
	struct tev *ev;
	size_t n, cap;
	bool has_th;
	sf_thread_idx th;
};

/* A V8 profile delivered in chunks, keyed by (pid, id). */
struct vprof {
	int64_t pid, tid;
	const char *id;
	double start;
	bool has_start;
	double cur;
	struct sf_cpuprof nodes;
	struct { int64_t node; double t; } *smp;   /* resolved at the end:
						     * nodes may come later */
	size_t n, cap;
};

struct rd {
	struct sf_profile *p;
	struct sf_ctx *ctx;
	const char *name;
	struct tthread *th;
	size_t nth, cth;
	struct vprof *vp;
	size_t nvp, cvp;
	uint32_t seq;
	double *w;
	size_t no_dur, no_dur_at;   /* X events without "dur" */
};

static struct tthread *thread_of(struct rd *r, int64_t pid, int64_t tid)
{
	for (size_t i = r->nth; i-- > 0;)
		if (r->th[i].pid == pid && r->th[i].tid == tid)
			return &r->th[i];
	if (sf_grow(&r->th, &r->cth, r->nth + 1, sizeof(*r->th)))
		return NULL;
	struct tthread *t = &r->th[r->nth++];
	memset(t, 0, sizeof(*t));
	t->pid = pid;
	t->tid = tid;
	return t;
}

static int model_thread(struct rd *r, struct tthread *t, sf_thread_idx *out)
{
	int rc;

	if (!t->has_th) {
		if ((rc = sf_profile_thread(r->p, r->ctx, t->pid, t->tid,
					    t->name, &t->th)))
			return rc;
		t->has_th = true;
	}
	*out = t->th;
	return 0;
}

static int push_ev(struct rd *r, struct tthread *t, double ts, double k2,
		   bool begin, const char *name)
{
	if (sf_grow(&t->ev, &t->cap, t->n + 1, sizeof(*t->ev)))
		return sf_error_nomem(r->ctx);
	t->ev[t->n++] = (struct tev){ ts, k2, r->seq++, begin, name };
	return 0;
}

/* Order at equal ts: ends before begins; among X begins the longer first
 * (k2 = -dur), among X ends the later-started first (k2 = -start); plain
 * B/E events keep their file order (k2 = -inf puts them first). */
static int ev_cmp(const void *a, const void *b)
{
	const struct tev *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if (x->begin != y->begin)
		return x->begin ? 1 : -1;
	if (x->k2 != y->k2)
		return x->k2 < y->k2 ? -1 : 1;
	/* X ends with equal start: the one declared later is inside */
	if (!x->begin && isfinite(x->k2))
		return x->seq > y->seq ? -1 : 1;
	return x->seq < y->seq ? -1 : (x->seq > y->seq);
}

static struct vprof *vprof_of(struct rd *r, int64_t pid, const char *id)
{
	for (size_t i = 0; i < r->nvp; i++)
		if (r->vp[i].pid == pid && !strcmp(r->vp[i].id, id))
			return &r->vp[i];
	if (sf_grow(&r->vp, &r->cvp, r->nvp + 1, sizeof(*r->vp)))
		return NULL;
	struct vprof *v = &r->vp[r->nvp++];
	memset(v, 0, sizeof(*v));
	v->pid = pid;
	v->id = id;
	return v;
}

static int chunk(struct rd *r, struct json_object *e, size_t i, int64_t pid,
		 int64_t tid, double ts)
{
	struct json_object *data = sf_webjson__get(sf_webjson__get(e, "args"),
						   "data");
	const char *id = sf_webjson__str(e, "id");
	char idb[32];
	int64_t x;
	int rc;

	if (id && !(id = sf_profile_str(r->p, r->ctx, id)))
		return sf_error_nomem(r->ctx);
	if (!id) {
		if (sf_webjson__int(sf_webjson__get(e, "id"), &x))
			snprintf(idb, sizeof(idb), "%lld", (long long)x);
		else
			snprintf(idb, sizeof(idb), "-");
		id = sf_profile_str(r->p, r->ctx, idb);
		if (!id)
			return sf_error_nomem(r->ctx);
	}
	struct vprof *v = vprof_of(r, pid, id);
	if (!v)
		return sf_error_nomem(r->ctx);
	if (!strcmp(sf_webjson__str(e, "name"), "Profile")) {
		double st;
		v->tid = tid;
		if (sf_webjson__num(sf_webjson__get(data, "startTime"), &st)) {
			v->start = v->cur = st;
			v->has_start = true;
		}
		return 0;
	}
	if (!v->has_start) {
		v->start = v->cur = ts;
		v->has_start = true;
		v->tid = tid;
	}
	struct json_object *cp = sf_webjson__get(data, "cpuProfile");
	struct json_object *nodes = sf_webjson__arr(cp, "nodes");
	struct json_object *smp = sf_webjson__arr(cp, "samples");
	struct json_object *dl = sf_webjson__arr(data, "timeDeltas");
	if (nodes && (rc = sf_cpuprof__add_nodes(&v->nodes, r->p, r->ctx,
						nodes, r->name,
						sf_webjson__line(e))))
		return rc;
	size_t ns = smp ? json_object_array_length(smp) : 0;
	if (ns && (!dl || json_object_array_length(dl) != ns))
		return sf_error(r->ctx, SF_EINPUT, r->name,
				sf_webjson__line(dl ? dl : smp),
				"traceEvents[%zu]: ProfileChunk needs one "
				"timeDelta per sample", i);
	for (size_t k = 0; k < ns; k++) {
		int64_t nid;
		double d;
		if (!sf_webjson__int(json_object_array_get_idx(smp, k), &nid) ||
		    !sf_webjson__num(json_object_array_get_idx(dl, k), &d))
			return sf_error(r->ctx, SF_EINPUT, r->name,
					sf_webjson__line(smp),
					"traceEvents[%zu]: ProfileChunk "
					"samples and timeDeltas must be "
					"numbers", i);
		v->cur += d;
		if (sf_grow(&v->smp, &v->cap, v->n + 1, sizeof(*v->smp)))
			return sf_error_nomem(r->ctx);
		v->smp[v->n].node = nid;
		v->smp[v->n++].t = v->cur;
	}
	return 0;
}

static int one_event(struct rd *r, struct json_object *e, size_t i)
{
	const char *ph = sf_webjson__str(e, "ph");
	const char *name = sf_webjson__str(e, "name");
	int64_t pid = 0, tid = 0;
	double ts = 0, dur;
	struct tthread *t;

	if (!e || !json_object_is_type(e, json_type_object))
		return sf_error(r->ctx, SF_EINPUT, r->name, 0,
				"traceEvents[%zu]: expected an object", i);
	if (!ph)
		return 0;   /* not an event we know; ignore like viewers */
	sf_webjson__int(sf_webjson__get(e, "pid"), &pid);
	sf_webjson__int(sf_webjson__get(e, "tid"), &tid);
	bool has_ts = sf_webjson__num(sf_webjson__get(e, "ts"), &ts);
	switch (ph[0]) {
	case 'M':
		if (name && !strcmp(name, "thread_name")) {
			const char *tn = sf_webjson__str(
				sf_webjson__get(e, "args"), "name");
			if (!(t = thread_of(r, pid, tid)))
				return sf_error_nomem(r->ctx);
			/* the event is freed after this call: keep copies */
			if (tn && !(t->name = sf_profile_str(r->p, r->ctx, tn)))
				return sf_error_nomem(r->ctx);
		}
		return 0;
	case 'P':
		if (name && (!strcmp(name, "Profile") ||
			     !strcmp(name, "ProfileChunk")))
			return chunk(r, e, i, pid, tid, ts);
		return 0;
	case 'B':
	case 'E':
	case 'X':
		break;
	default:
		return 0;
	}
	if (!has_ts)
		return sf_error(r->ctx, SF_EINPUT, r->name,
				sf_webjson__line(e),
				"traceEvents[%zu]: \"%s\" event without a "
				"numeric \"ts\"", i, ph);
	if (!(t = thread_of(r, pid, tid)))
		return sf_error_nomem(r->ctx);
	if (name && !(name = sf_profile_str(r->p, r->ctx, name)))
		return sf_error_nomem(r->ctx);
	if (ph[0] == 'B')
		return push_ev(r, t, ts, -INFINITY, true,
			       name ? name : "(unnamed)");
	if (ph[0] == 'E')
		return push_ev(r, t, ts, -INFINITY, false, name);
	if (!sf_webjson__num(sf_webjson__get(e, "dur"), &dur) || dur < 0) {
		if (!r->no_dur++)
			r->no_dur_at = i;
		return 0;
	}
	if (dur == 0)
		return 0;   /* holds no time, and no child with time */
	if (!name)
		name = "(unnamed)";
	int rc = push_ev(r, t, ts, -dur, true, name);
	return rc ? rc : push_ev(r, t, ts + dur, -ts, false, name);
}

/* Each trace event as the parser meets it (struct sf_webjson_divert). */
static int event_cb(void *ud, size_t index, const char *key, size_t n,
		    struct json_object *e, uint64_t line)
{
	struct rd *r = ud;
	int rc;

	if ((n & 0xffff) == 0 && sf_interrupted(r->ctx))
		return sf_error(r->ctx, SF_EINTR, NULL, 0, "interrupted");
	if ((rc = one_event(r, e, n)))
		sf_error_place(r->ctx, NULL, line);
	return rc;
}

static int add(struct rd *r, sf_stack_id s, sf_thread_idx th,
	       const uint32_t *types, const double *vals, size_t nv,
	       int64_t time)
{
	memset(r->w, 0, r->p->d.ntypes * sizeof(*r->w));
	for (size_t k = 0; k < nv; k++)
		r->w[types[k]] = vals[k];
	return sf_profile_add_sample(r->p, r->ctx, s, th, 0, time, r->w);
}

/* Duration events of one thread into samples. */
static int replay(struct rd *r, struct tthread *t, uint32_t tw)
{
	struct op { const char *name; sf_stack_id s; } *st = NULL;
	const char **pend = NULL;     /* unmatched ends at the current ts */
	size_t n = 0, cap = 0, np = 0, cp = 0;
	double last = 0;
	int rc = 0;
	sf_thread_idx th;

	if (t->n)
		qsort(t->ev, t->n, sizeof(*t->ev), ev_cmp);
	for (size_t i = 0; i < t->n && !rc; i++) {
		struct tev *e = &t->ev[i];
		if (i && e->ts > last) {
			if (n) {
				double v = e->ts - last;
				if ((rc = model_thread(r, t, &th)) ||
				    (rc = add(r, st[n - 1].s, th, &tw, &v, 1,
					      (int64_t)llround(last * 1000))))
					break;
			}
			if (np)
				sf_warn(r->ctx, "chrome-trace.unmatched-end",
					"%s: an end event matches no open "
					"event; ignored", r->name);
			np = 0;
		}
		last = e->ts;
		if (e->begin) {
			/* a zero-length B/E pair whose E sorted first */
			size_t k;
			for (k = 0; k < np; k++)
				if (pend[k] && !strcmp(pend[k], e->name))
					break;
			if (k < np) {
				pend[k] = pend[--np];
				continue;
			}
			sf_frame_id f;
			sf_stack_id s;
			if (sf_grow(&st, &cap, n + 1, sizeof(*st))) {
				rc = sf_error_nomem(r->ctx);
				break;
			}
			if ((rc = sf_profile_frame_named(r->p, r->ctx, e->name,
							 strlen(e->name), NULL,
							 &f)) ||
			    (rc = sf_profile_stack_push(r->p, r->ctx,
							n ? st[n - 1].s : 0, f,
							&s)))
				break;
			st[n].name = e->name;
			st[n++].s = s;
			continue;
		}
		if (n && (!e->name || !strcmp(st[n - 1].name, e->name))) {
			n--;
			continue;
		}
		size_t j = n;
		while (j-- > 0)
			if (!strcmp(st[j].name, e->name))
				break;
		if (j < n) {
			sf_warn(r->ctx, "chrome-trace.end-not-innermost",
				"%s: an end event closes '%s' while inner "
				"events are open; they are closed too",
				r->name, e->name);
			n = j;
			continue;
		}
		if (sf_grow(&pend, &cp, np + 1, sizeof(*pend))) {
			rc = sf_error_nomem(r->ctx);
			break;
		}
		pend[np++] = e->name;
	}
	if (!rc && np)
		sf_warn(r->ctx, "chrome-trace.unmatched-end", "%s: an end "
			"event matches no open event; ignored", r->name);
	if (!rc && n)
		sf_warn(r->ctx, "chrome-trace.unclosed", "%s: events still "
			"open at the end of a thread are dropped", r->name);
	free(st);
	free(pend);
	return rc;
}

/*
 * The JSON Object Format's "stackFrames" + "samples", read member by
 * member and sample by sample as the document is parsed (struct
 * sf_webjson_divert), so that neither is a json-c tree: a frame keeps
 * its key, name and parent key as text and its line; a sample the five
 * values the reader takes from it.  The frames may come after the
 * samples, so both wait for the end of the document.
 */
#define NO_TEXT SIZE_MAX

struct oframe {
	size_t key, name, parent;   /* offsets in the text, or NO_TEXT */
	bool object;                /* the value is an object */
	bool bad_parent;            /* its parent is no string or integer */
	bool has_stack;
	sf_stack_id stack;          /* once made */
	uint64_t line;
};

struct osample {
	int64_t pid, tid;
	double ts, weight;
	bool has_ts, bad_weight;
	size_t key;                 /* of its frame, or NO_TEXT */
	uint64_t line;              /* 0 when it is no object */
};

struct objfmt {
	struct sf_ctx *ctx;
	struct oframe *f;
	size_t nf, cf;
	struct osample *s;
	size_t ns, cs;
	struct sf_sbuf text;        /* keys, names, each with its NUL */
	struct sf_idx idx;          /* frame key -> index */
};

static void objfmt_free(struct objfmt *o)
{
	free(o->f);
	free(o->s);
	sf_sbuf_free(&o->text);
	sf_idx_free(&o->idx);
}

/* Keep `s` (NULL: none) in the text; *off its offset. */
static bool keep_text(struct objfmt *o, const char *s, size_t *off)
{
	size_t at = o->text.len;

	*off = NO_TEXT;
	if (!s)
		return true;
	if (!sf_sbuf_add(&o->text, s, strlen(s) + 1))
		return false;
	*off = at;
	return true;
}

/* A frame key or a sample's "sf" as the text the frames are keyed by: a
 * string, or an integer written in decimal; NULL for anything else. */
static const char *frame_key(struct json_object *v, char *buf, size_t size)
{
	int64_t k;

	if (v && json_object_is_type(v, json_type_string))
		return json_object_get_string(v);
	if (!sf_webjson__int(v, &k))
		return NULL;
	snprintf(buf, size, "%lld", (long long)k);
	return buf;
}

static bool oframe_eq(const void *ctx, uint32_t id, const void *key)
{
	const struct objfmt *o = ctx;

	return !strcmp(o->text.s + o->f[id].key, key);
}

static struct oframe *oframe_find(const struct objfmt *o, const char *key)
{
	uint32_t id;

	if (!key || !sf_idx_find(&o->idx, sf_hash(key, strlen(key)),
				 oframe_eq, o, key, &id))
		return NULL;
	return &o->f[id];
}

static bool is_container(struct json_object *v)
{
	return v && (json_object_is_type(v, json_type_object) ||
		     json_object_is_type(v, json_type_array));
}

static int frame_member_cb(void *ud, size_t index, const char *key,
			   size_t n, struct json_object *v, uint64_t line)
{
	struct objfmt *o = ud;
	struct json_object *par = sf_webjson__get(v, "parent");
	struct oframe fr = { 0 };
	char kb[32];
	uint32_t id;

	if (!n) {
		/* json-c keeps the last "stackFrames" of a root that has
		 * two */
		o->nf = 0;
		sf_idx_free(&o->idx);
		memset(&o->idx, 0, sizeof(o->idx));
	}
	fr.object = v && json_object_is_type(v, json_type_object);
	fr.line = is_container(v) ? line : 0;
	/* a JSON null parent is no parent, as json-c's tree gives it */
	fr.bad_parent = par && !frame_key(par, kb, sizeof(kb));
	if (!keep_text(o, key, &fr.key) ||
	    !keep_text(o, sf_webjson__str(v, "name"), &fr.name) ||
	    !keep_text(o, par ? frame_key(par, kb, sizeof(kb)) : NULL,
		       &fr.parent))
		return sf_error_nomem(o->ctx);
	/* a key given twice: the last value, as json-c keeps it */
	uint64_t h = sf_hash(key, strlen(key));
	if (sf_idx_find(&o->idx, h, oframe_eq, o, key, &id)) {
		o->f[id] = fr;
		return 0;
	}
	if (o->nf >= UINT32_MAX ||
	    sf_grow(&o->f, &o->cf, o->nf + 1, sizeof(*o->f)) ||
	    !sf_idx_insert(&o->idx, h, (uint32_t)o->nf))
		return sf_error_nomem(o->ctx);
	o->f[o->nf++] = fr;
	return 0;
}

static int osample_cb(void *ud, size_t index, const char *key, size_t n,
		      struct json_object *e, uint64_t line)
{
	struct objfmt *o = ud;
	struct osample s = { 0, 0, 0, 1, false, false, NO_TEXT, 0 };
	struct json_object *wv = sf_webjson__get(e, "weight");
	char kb[32];

	if (!n)
		o->ns = 0;   /* the last "samples", as json-c keeps it */
	sf_webjson__int(sf_webjson__get(e, "pid"), &s.pid);
	sf_webjson__int(sf_webjson__get(e, "tid"), &s.tid);
	s.has_ts = sf_webjson__num(sf_webjson__get(e, "ts"), &s.ts);
	s.bad_weight = wv && !sf_webjson__num(wv, &s.weight);
	s.line = is_container(e) ? line : 0;
	if (!keep_text(o, frame_key(sf_webjson__get(e, "sf"), kb,
				    sizeof(kb)), &s.key) ||
	    sf_grow(&o->s, &o->cs, o->ns + 1, sizeof(*o->s)))
		return sf_error_nomem(o->ctx);
	o->s[o->ns++] = s;
	return 0;
}

/* The stack of frame `fo` (named `key`): its chain of parents up to one
 * whose stack is made, then the stacks down from there. */
static int frame_stack(struct rd *r, struct objfmt *o, struct oframe *fo,
		       const char *key, sf_stack_id *out)
{
	struct oframe *chain[256];
	size_t n = 0;
	sf_stack_id s = SF_STACK_EMPTY;
	int rc;

	for (;;) {
		if (!fo || !fo->object)
			return sf_error(r->ctx, SF_EINPUT, r->name,
					n ? chain[n - 1]->line : 0,
					"stackFrames: no frame '%s'", key);
		if (fo->has_stack) {
			s = fo->stack;
			break;
		}
		if (n == sizeof(chain) / sizeof(chain[0]))
			return sf_error(r->ctx, SF_ELIMIT, r->name, fo->line,
					"stackFrames: a chain deeper than %zu "
					"frames", n);
		chain[n++] = fo;
		if (fo->bad_parent)
			return sf_error(r->ctx, SF_EINPUT, r->name, fo->line,
					"stackFrames: bad parent");
		if (fo->parent == NO_TEXT)
			break;
		key = o->text.s + fo->parent;
		fo = oframe_find(o, key);
		for (size_t k = 0; k < n; k++)
			if (chain[k] == fo)
				return sf_error(r->ctx, SF_EINPUT, r->name,
						fo->line,
						"stackFrames: a frame is its "
						"own ancestor");
	}
	while (n) {
		struct oframe *f = chain[--n];
		const char *nm = f->name != NO_TEXT ? o->text.s + f->name :
						      "(unnamed)";
		sf_frame_id fid;
		if ((rc = sf_profile_frame_named(r->p, r->ctx, nm, strlen(nm),
						 NULL, &fid)) ||
		    (rc = sf_profile_stack_push(r->p, r->ctx, s, fid, &s)))
			return rc;
		f->stack = s;
		f->has_stack = true;
	}
	*out = s;
	return 0;
}

static int object_samples(struct rd *r, struct objfmt *o, uint32_t tc)
{
	int rc;

	for (size_t i = 0; i < o->ns; i++) {
		const struct osample *e = &o->s[i];
		double wt = e->weight;
		sf_stack_id s = SF_STACK_EMPTY;
		sf_thread_idx th;
		if (e->bad_weight)
			return sf_error(r->ctx, SF_EINPUT, r->name, e->line,
					"samples[%zu]: weight must be a "
					"number", i);
		if (e->key != NO_TEXT) {
			const char *key = o->text.s + e->key;
			if ((rc = frame_stack(r, o, oframe_find(o, key), key,
					      &s))) {
				/* a sample naming a frame that is not
				 * there */
				sf_error_place(r->ctx, NULL, e->line);
				return rc;
			}
		}
		struct tthread *t = thread_of(r, e->pid, e->tid);
		if (!t)
			return sf_error_nomem(r->ctx);
		if ((rc = model_thread(r, t, &th)) ||
		    (rc = add(r, s, th, &tc, &wt, 1,
			      e->has_ts ? (int64_t)llround(e->ts * 1000) :
					  SF_NO_TIME)))
			return rc;
	}
	return 0;
}

static int trace_read(struct sf_profile *p, struct sf_input *in,
		      struct sf_ctx *ctx)
{
	struct json_object *root;
	struct rd r = { 0 };
	int rc;
	uint32_t tc = 0, tw = 0;
	uint64_t last = 0;

	r.p = p;
	r.ctx = ctx;
	r.name = sf_input_name(in);
	/* events are handled one by one as they are parsed: the tree
	 * never holds them (a Chrome recording can be hundreds of MB) */
	struct objfmt obj = { .ctx = ctx };
	static const char *const frames_key[] = { "stackFrames", NULL };
	static const char *const samples_key[] = { "samples", NULL };
	const struct sf_webjson_divert sdv = {
		.keys = samples_key, .element = osample_cb, .ud = &obj };
	const struct sf_webjson_divert fdv = {
		.keys = frames_key, .element = frame_member_cb, .ud = &obj,
		.members = true, .next = &sdv };
	/* what the reader reads from the tree; others are checked and
	 * dropped */
	static const char *const root_keys[] = { "traceEvents", "samples",
						 "stackFrames", NULL };
	struct sf_webjson_divert dv = {
		.root_array = true, .top = "traceEvents", .element = event_cb,
		.ud = &r, .next = &fdv, .root_keys = root_keys };
	root = NULL;
	if ((rc = sf_webjson__parse_divert(in, ctx, true,
					   "chrome-trace.truncated", &dv,
					   &root, &last)))
		goto out;
	bool objsamples = sf_webjson__arr(root, "samples") &&
			  sf_webjson__get(root, "stackFrames");
	if (!json_object_is_type(root, json_type_array) &&
	    !sf_webjson__arr(root, "traceEvents") && !objsamples) {
		rc = sf_error(ctx, SF_EINPUT, r.name, last,
			      "not a trace: expected an array of events or "
			      "an object with \"traceEvents\"");
		goto out;
	}
	size_t nvs = 0;
	for (size_t i = 0; i < r.nvp; i++)
		nvs += r.vp[i].n;
	if ((rc = sf_profile_default_type(p, ctx, &tc)))
		goto out;
	if (nvs || objsamples) {
		if ((rc = sf_profile_sample_type(p, ctx, "samples", "count",
						 &tc)))
			goto out;
		if (!p->d.nsamples)
			p->d.meta.default_type = tc;
	}
	if (nvs || !objsamples) {
		if ((rc = sf_profile_sample_type(p, ctx, "wall",
						 "microseconds", &tw)))
			goto out;
		if (!nvs && !p->d.nsamples)
			p->d.meta.default_type = tw;
	}
	if (!(r.w = sf_calloc(p->d.ntypes, sizeof(*r.w)))) {
		rc = sf_error_nomem(r.ctx);
		goto out;
	}
	if (objsamples) {
		if ((rc = object_samples(&r, &obj, tc)))
			goto out;
	} else if (nvs) {
		for (size_t i = 0; i < r.nvp; i++) {
			struct vprof *v = &r.vp[i];
			struct tthread *t;
			sf_thread_idx th;
			uint32_t ty[2] = { tc, tw };
			if (!v->n)
				continue;
			if (!(t = thread_of(&r, v->pid, v->tid))) {
				rc = sf_error_nomem(r.ctx);
				goto out;
			}
			if ((rc = model_thread(&r, t, &th)))
				goto out;
			for (size_t k = 0; k < v->n; k++) {
				double val[2] = { 1, 0 };
				sf_stack_id s;
				if (!sf_cpuprof__has(&v->nodes,
						    v->smp[k].node)) {
					/* its chunk was lost */
					sf_warn(ctx, "chrome-trace.lost-node",
						"%s: a sample's node %lld is "
						"not in the trace; sample "
						"dropped", r.name, (long long)
						v->smp[k].node);
					continue;
				}
				if ((rc = sf_cpuprof__stack(&v->nodes, p, ctx,
							   v->smp[k].node,
							   r.name, &s)))
					goto out;
				if (k + 1 < v->n && v->smp[k + 1].t >
						    v->smp[k].t)
					val[1] = v->smp[k + 1].t - v->smp[k].t;
				if ((rc = add(&r, s, th, ty, val, 2,
					      (int64_t)llround(v->smp[k].t *
							       1000))))
					goto out;
			}
		}
	} else {
		for (size_t i = 0; i < r.no_dur; i++)
			sf_warn(ctx, "chrome-trace.no-dur", "%s: "
				"traceEvents[%zu]: X event without a "
				"duration ignored", r.name, r.no_dur_at);
		for (size_t i = 0; i < r.nth; i++)
			if ((rc = replay(&r, &r.th[i], tw)))
				goto out;
	}
	/* names may arrive after the first sample */
	for (size_t i = 0; i < r.nth; i++)
		if (r.th[i].has_th && r.th[i].name &&
		    (rc = sf_profile_thread_set_name(p, ctx, r.th[i].th,
						     r.th[i].name)))
			goto out;
out:
	if (rc)
		sf_error_place(ctx, r.name, last);
	objfmt_free(&obj);
	for (size_t i = 0; i < r.nth; i++)
		free(r.th[i].ev);
	free(r.th);
	for (size_t i = 0; i < r.nvp; i++) {
		sf_cpuprof__free(&r.vp[i].nodes);
		free(r.vp[i].smp);
	}
	free(r.vp);
	free(r.w);
	json_object_put(root);
	return rc;
}

/* ----- writing ----- */

struct wr {
	struct sf_output *out;
	const struct sf_profile *p;
	int64_t pid, tid;
	bool any;
};

static void ev_head(struct wr *w, const char *ph, const char *name)
{
	sf_output_puts(w->out, w->any ? ",\n{\"ph\":\"" : "\n{\"ph\":\"");
	w->any = true;
	sf_output_puts(w->out, ph);
	sf_output_puts(w->out, "\",\"pid\":");
	sf_output_i64(w->out, w->pid);
	sf_output_puts(w->out, ",\"tid\":");
	sf_output_i64(w->out, w->tid);
	sf_output_puts(w->out, ",\"name\":");
	sf_webjson__put_str(w->out, name);
}

static void ev_frame(struct wr *w, bool begin, sf_frame_id fid, double ts)
{
	const struct sf_frame *f = &w->p->d.frames[fid];

	ev_head(w, begin ? "B" : "E", f->name);
	sf_output_puts(w->out, ",\"cat\":\"sftools\",\"ts\":");
	sf_webjson__put_num(w->out, ts);
	if (begin && (f->file || f->module || f->line)) {
		const char *sep = "";
		sf_output_puts(w->out, ",\"args\":{");
		if (f->module) {
			sf_output_puts(w->out, "\"module\":");
			sf_webjson__put_str(w->out, f->module);
			sep = ",";
		}
		if (f->file) {
			sf_output_puts(w->out, sep);
			sf_output_puts(w->out, "\"file\":");
			sf_webjson__put_str(w->out, f->file);
			sep = ",";
		}
		if (f->line) {
			sf_output_puts(w->out, sep);
			sf_output_puts(w->out, "\"line\":");
			sf_output_u64(w->out, f->line);
		}
		sf_output_putc(w->out, '}');
	}
	sf_output_putc(w->out, '}');
}

/* A trace names a thread by (pid, tid) alone, and its reader puts a
 * thread's events in time order: two groups written under one pair whose
 * times overlap would read back as one thread, their frames interleaved.
 * A group keeps its pair when no earlier group under that pair is still
 * running at its start (a thread that exec'd and changed its name keeps
 * its tid); otherwise it gets a tid no thread of the profile has. */
struct tid_slot {
	int64_t pid, tid;
	size_t g;
};

struct trace_ids {
	int64_t *pid, *tid;     /* per group, as the thread gives them */
	size_t *lead;           /* per group: the first group of its pair */
	double *end;            /* per lead: where its pair's last group ended */
	bool *used;             /* per lead: a group was written under it */
	int64_t fresh;          /* the next new tid */
	int step;               /* +1 above every tid, -1 below them */
	size_t renamed;
};

static void trace_ids_free(struct trace_ids *ids)
{
	free(ids->pid);
	free(ids->tid);
	free(ids->lead);
	free(ids->end);
	free(ids->used);
}

static int slot_cmp(const void *a, const void *b)
{
	const struct tid_slot *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->g < y->g ? -1 : x->g > y->g;
}

static int trace_ids_init(struct trace_ids *ids, const struct sf_profile *p,
			  struct sf_ctx *ctx, const sf_thread_idx *threads,
			  size_t ng)
{
	size_t n = ng ? ng : 1;
	struct tid_slot *sl = sf_calloc(n, sizeof(*sl));
	int64_t hi = 0, lo = 0;

	*ids = (struct trace_ids){ 0 };
	ids->pid = sf_calloc(n, sizeof(*ids->pid));
	ids->tid = sf_calloc(n, sizeof(*ids->tid));
	ids->lead = sf_calloc(n, sizeof(*ids->lead));
	ids->end = sf_calloc(n, sizeof(*ids->end));
	ids->used = sf_calloc(n, sizeof(*ids->used));
	if (!sl || !ids->pid || !ids->tid || !ids->lead || !ids->end ||
	    !ids->used) {
		free(sl);
		trace_ids_free(ids);
		return sf_error_nomem(ctx);
	}
	for (size_t g = 0; g < ng; g++) {
		const struct sf_thread *th = threads[g] == SF_NO_THREAD ?
			NULL : &p->d.threads[threads[g]];
		int64_t tid = th && th->tid != SF_NO_ID ? th->tid :
			(th ? (int64_t)threads[g] + 1 : 0);
		ids->pid[g] = th && th->pid != SF_NO_ID ? th->pid : 1;
		ids->tid[g] = tid;
		sl[g] = (struct tid_slot){ ids->pid[g], tid, g };
		hi = tid > hi ? tid : hi;
		lo = tid < lo ? tid : lo;
	}
	qsort(sl, ng, sizeof(*sl), slot_cmp);
	for (size_t k = 0; k < ng; k++)
		ids->lead[sl[k].g] = k && sl[k].pid == sl[k - 1].pid &&
			sl[k].tid == sl[k - 1].tid ? ids->lead[sl[k - 1].g] :
			sl[k].g;
	free(sl);
	/* new tids count up from above every tid (down from below them if
	 * that would pass INT64_MAX) */
	ids->step = hi < INT64_MAX - (int64_t)ng ? 1 : -1;
	ids->fresh = ids->step > 0 ? hi + 1 : lo - 1;
	return 0;
}

/* The tid group g is written under, given the time it starts at. */
static int64_t trace_ids_take(struct trace_ids *ids, size_t g, double start)
{
	size_t l = ids->lead[g];

	if (ids->used[l] && start < ids->end[l]) {
		int64_t t = ids->fresh;
		ids->fresh += ids->step;
		ids->renamed++;
		return t;
	}
	ids->used[l] = true;
	ids->end[l] = start;
	return ids->tid[g];
}

/* Group g, written under its own pair, ended at END. */
static void trace_ids_ended(struct trace_ids *ids, size_t g, int64_t tid,
			    double end)
{
	size_t l = ids->lead[g];

	if (tid == ids->tid[g] && end > ids->end[l])
		ids->end[l] = end;
}

static int trace_write(const struct sf_profile *p, struct sf_output *out,
		       struct sf_ctx *ctx)
{
	size_t *order, *start, ng;
	sf_thread_idx *threads;
	sf_frame_id *open = NULL, *buf = NULL;
	struct trace_ids ids = { 0 };
	uint32_t t = p->d.meta.default_type;
	struct wr w = { out, p, 0, 0, false };
	int rc;

	if (t >= p->d.ntypes)
		t = 0;
	if ((rc = sf_webjson__by_thread(p, ctx, &order, &start, &threads,
					&ng)))
		return rc;
	if ((rc = trace_ids_init(&ids, p, ctx, threads, ng)))
		goto out;
	size_t maxd = sf_profile_max_depth(p);
	if (!(open = sf_calloc(maxd + 1, sizeof(*open))) ||
	    !(buf = sf_calloc(maxd + 1, sizeof(*buf)))) {
		rc = sf_error_nomem(ctx);
		goto out;
	}
	double unit_us = p->d.ntypes ?
		sf_webjson__unit_us(p->d.types[t].unit) : 0;
	double per_unit = unit_us;
	if (!per_unit) {
		double pu = sf_webjson__unit_us(p->d.meta.period_type.unit);
		per_unit = pu && p->d.meta.period > 0 &&
			   p->d.ntypes && !strcmp(p->d.types[t].unit,
						  "count") ?
				   pu * p->d.meta.period : 1;
	}

	sf_output_puts(out, "{\"traceEvents\":[");
	for (size_t g = 0; g < ng; g++) {
		const struct sf_thread *th = threads[g] == SF_NO_THREAD ?
			NULL : &p->d.threads[threads[g]];
		char name[256];
		/* where the group's first event will be: its first sample's
		 * time, else 0 */
		const struct sf_sample *s0 = &p->d.samples[order[start[g]]];
		w.pid = ids.pid[g];
		w.tid = trace_ids_take(&ids, g, s0->time != SF_NO_TIME ?
					       (double)s0->time / 1000 : 0);
		/* the name alone: readers add the tid themselves */
		if (th && th->name)
			snprintf(name, sizeof(name), "%s", th->name);
		else
			sf_webjson__thread_name(p, threads[g], "sftools", name,
						sizeof(name));
		ev_head(&w, "M", "thread_name");
		sf_output_puts(out, ",\"args\":{\"name\":");
		sf_webjson__put_str(out, name);
		sf_output_puts(out, "}}");

		size_t n = 0;
		double cursor = 0;
		bool started = false;
		for (size_t k = start[g]; k < start[g + 1]; k++) {
			const struct sf_sample *sm = &p->d.samples[order[k]];
			double dur = sf_weight(p, order[k], t) * per_unit;
			if ((k & 0xffff) == 0 && sf_interrupted(ctx)) {
				rc = sf_error(ctx, SF_EINTR, NULL, 0,
					      "interrupted");
				goto out;
			}
			if (sm->time != SF_NO_TIME) {
				double at = (double)sm->time / 1000;
				if (!started)
					cursor = at;
				if (at > cursor) {
					/* a gap: nothing runs in it */
					while (n)
						ev_frame(&w, false, open[--n],
							 cursor);
					cursor = at;
				}
			}
			started = true;
			if (!(dur > 0))
				continue;
			size_t d = sf_profile_stack_frames(p, sm->stack, buf);
			size_t c = 0;
			while (c < n && c < d && open[c] == buf[c])
				c++;
			while (n > c)
				ev_frame(&w, false, open[--n], cursor);
			for (; n < d; n++) {
				open[n] = buf[n];
				ev_frame(&w, true, open[n], cursor);
			}
			cursor += dur;
		}
		while (n)
			ev_frame(&w, false, open[--n], cursor);
		trace_ids_ended(&ids, g, w.tid, cursor);
	}
	if (ids.renamed)
		sf_warn(ctx, "chrome-trace.tid", "%zu thread%s share a pid "
			"and tid with another at the same time: written with "
			"new tids", ids.renamed,
			ids.renamed == 1 ? " would" : "s would");
	sf_output_puts(out, "],\n\"displayTimeUnit\":\"ms\",\"otherData\":"
			    "{\"exporter\":\"sftools " SF_VERSION "\"}}\n");
out:
	trace_ids_free(&ids);
	free(open);
	free(buf);
	free(order);
	free(start);
	free(threads);
	return rc;
}

static const char *const trace_ext[] = { ".trace.json", NULL };

const struct sf_format sf_format_chrome_trace = {
	.name = "chrome-trace",
	.description = "Chrome Trace Event JSON (chrome://tracing, DevTools, "
		       "Perfetto)",
	.extensions = trace_ext,
	.probe = trace_probe,
	.read = trace_read,
	.write = trace_write,
	.caps = SF_CAP_THREADS | SF_CAP_TIME | SF_CAP_WEIGHTS |
		SF_CAP_ORDER,
	.needs_order = true,
	.priority = 10,
};
