/*
 * fmt_sbsprof.c - SBCL sb-sprof sample vectors dumped as text
 * ("sbsprof-samples 1"), the format docs/formats.md defines (section
 * "sbsprof") and contrib/sbcl/sb-sprof-export.lisp writes.
 *
 * Reading: one sample per sample line, frames leaf first (a run of equal
 * consecutive lines, as sb-sprof repeats a trace by its hit count, is one
 * sample weighing the run's length).  A
 * frame's kind letter becomes frame.kind ("lisp", "assembler", "foreign",
 * "code", "unknown"); an N frame is named "<unknown>"; @source gives the
 * frame's file.  The stored pc-or-offset is not kept: for Lisp frames it is
 * an offset into the function, and keeping it would split one function
 * into one frame per sampled pc.  Threads are (tid = the dump's thread
 * number, name), so equally named threads stay apart.  @mode picks the
 * sample type: cpu and time count samples with a period of
 * @sample-interval in nanoseconds (period type cpu or wall); alloc counts
 * allocation-region overflows ("alloc", "count"), which are not time.
 *
 * Writing: the same dump from any profile, one line per sample (weights
 * repeated as whole lines), grouped by thread; frames of other formats
 * without a kind are written as L frames.
 */
#include "records.h"
#include "text.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAGIC "sbsprof-samples 1"

static const struct {
	char letter;
	const char *word;
} kinds[] = {
	{ 'L', "lisp" }, { 'A', "assembler" }, { 'F', "foreign" },
	{ 'C', "code" }, { 'N', "unknown" },
};

/* ----- reading ----- */

struct src {
	const char *raw;    /* interned */
	const char *path;   /* interned */
};

struct fcache {
	char *text;
	size_t len;
	sf_frame_id frame;
};

struct rd {
	struct sf_profile *p;
	struct sf_ctx *ctx;
	struct sf_input *in;
	const char *name;
	char *tmp;              /* unescape buffer */
	size_t tmpcap;
	struct src *srcs;
	size_t nsrcs, capsrcs;
	struct sf_idx srcidx;
	struct fcache *fc;
	size_t nfc, capfc;
	struct sf_idx fcidx;
	sf_thread_idx *threads;
	size_t nthreads, capthreads;
	sf_frame_id *frames;
	size_t capframes;
	char *last;             /* frames text of the previous line */
	size_t lastlen, lastcap;
	sf_stack_id laststack;
	bool havelast;
	double *w;
	uint32_t type;
	bool typed;
	/* a run of equal consecutive lines, not yet added */
	bool pending;
	sf_stack_id pstack;
	sf_thread_idx pthread;
	uint64_t prun;
	char mode[8];
	double interval;
	uint64_t lines, declared;
	bool has_declared;
};

static int bad(struct rd *r, const char *fmt, const char *arg)
{
	return sf_error(r->ctx, SF_EINPUT, r->name, sf_input_lineno(r->in),
			fmt, arg);
}

/* Unescape s[0..n) into r->tmp; returns the length. */
static int unescape(struct rd *r, const char *s, size_t n, size_t *len)
{
	size_t k = 0;

	if (n + 1 > r->tmpcap) {
		size_t cap = r->tmpcap ? r->tmpcap : 256;
		while (cap < n + 1)
			cap *= 2;
		char *t = realloc(r->tmp, cap);
		if (!t)
			return sf_error_nomem(r->ctx);
		r->tmp = t;
		r->tmpcap = cap;
	}
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (c == '\\' && i + 1 < n) {
			char e = s[i + 1];
			char v = e == '\\' ? '\\' : e == 't' ? '\t' :
				 e == 'n' ? '\n' : e == 'r' ? '\r' : 0;
			if (v) {
				r->tmp[k++] = v;
				i++;
				continue;
			}
		}
		if (c == '\\')
			sf_warn(r->ctx, "sbsprof.bad-escape",
				"%s:%llu: a backslash not followed by \\, t, n "
				"or r is kept as it is", r->name,
				(unsigned long long)sf_input_lineno(r->in));
		r->tmp[k++] = c;
	}
	r->tmp[k] = 0;
	*len = k;
	return 0;
}

static bool src_eq(const void *c, uint32_t id, const void *k)
{
	const struct rd *r = c;

	return r->srcs[id].raw == k;   /* interned */
}

static bool fc_eq(const void *c, uint32_t id, const void *k)
{
	const struct rd *r = c;
	const struct fcache *key = k;

	return r->fc[id].len == key->len &&
	       !memcmp(r->fc[id].text, key->text, key->len);
}

/* Split s[0..n) on TAB into at most max fields. */
static size_t split(char *s, size_t n, char **f, size_t *fl, size_t max)
{
	size_t k = 0, start = 0;

	for (size_t i = 0; i <= n && k < max; i++) {
		if (i == n || s[i] == '\t') {
			f[k] = s + start;
			fl[k] = i - start;
			k++;
			start = i + 1;
		}
	}
	return k;
}

static bool parse_u64(const char *s, size_t n, uint64_t *out)
{
	uint64_t v = 0;

	if (!n || n > 19)
		return false;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	*out = v;
	return true;
}

static int set_types(struct rd *r)
{
	struct sf_profile *p = r->p;
	uint32_t t;
	int rc;

	if (r->typed)
		return 0;
	r->typed = true;
	bool alloc = !strcmp(r->mode, "alloc");
	if ((rc = sf_profile_sample_type(p, r->ctx, alloc ? "alloc" :
					 "samples", "count", &t)))
		return rc;
	if (!p->d.nsamples && p->d.ntypes == 1) {
		p->d.meta.default_type = t;
		if (r->mode[0] && !alloc) {
			p->d.meta.period_type.type = sf_profile_str(p, r->ctx,
				!strcmp(r->mode, "cpu") ? "cpu" : "wall");
			p->d.meta.period_type.unit = sf_profile_str(p, r->ctx,
				"nanoseconds");
			if (r->interval > 0)
				p->d.meta.period = nearbyint(r->interval *
							     1e9);
		}
		if (alloc && (rc = sf_profile_set_prop(p, r->ctx,
						       "sbsprof.mode",
						       "alloc")))
			return rc;
	}
	if (!(r->w = sf_calloc(p->d.ntypes, sizeof(*r->w))))
		return sf_error_nomem(r->ctx);
	r->w[t] = 1;
	r->type = t;
	return 0;
}

/* sb-sprof repeats each trace by its hit count: a run of equal lines is
 * parsed once and added as that many samples (an aggregating profile
 * folds them into one that counts them all, so reports say as many
 * samples as sb-sprof does). */
static int flush(struct rd *r)
{
	int rc = 0;

	if (!r->pending)
		return 0;
	r->pending = false;
	for (uint64_t i = 0; i < r->prun && !rc; i++)
		rc = sf_profile_add_sample(r->p, r->ctx, r->pstack,
					   r->pthread, 0, SF_NO_TIME, r->w);
	return rc;
}

static int header(struct rd *r, char *line, size_t len)
{
	char *f[4];
	size_t fl[4], len2;
	size_t n = split(line, len, f, fl, 4);
	int rc;

#define IS(word) (fl[0] == sizeof(word) - 1 && !memcmp(f[0], word, fl[0]))
	if (IS("@thread")) {
		uint64_t i;
		if (n != 3 || !parse_u64(f[1], fl[1], &i))
			return bad(r, "expected '@thread' TAB NUMBER TAB NAME%s",
				   "");
		if (i != r->nthreads)
			return bad(r, "@thread numbers must be 0, 1, ... in "
				   "order%s", "");
		if ((rc = unescape(r, f[2], fl[2], &len2)))
			return rc;
		if (r->nthreads == r->capthreads) {
			size_t cap = r->capthreads ? r->capthreads * 2 : 16;
			sf_thread_idx *nt = sf_reallocarray(r->threads, cap,
							    sizeof(*nt));
			if (!nt)
				return sf_error_nomem(r->ctx);
			r->threads = nt;
			r->capthreads = cap;
		}
		if (strlen(r->tmp) != len2)
			return bad(r, "thread name holds a NUL byte%s", "");
		rc = sf_profile_thread(r->p, r->ctx, SF_NO_ID,
				       (int64_t)r->nthreads,
				       len2 ? r->tmp : NULL,
				       &r->threads[r->nthreads]);
		if (rc)
			return rc;
		r->nthreads++;
		return 0;
	}
	if (r->lines) {
		f[0][fl[0]] = 0;
		return bad(r, "header '%s' after the first sample line (only "
			   "@thread and @end may follow samples)", f[0]);
	}
	if (IS("@source")) {
		if (n != 3)
			return bad(r, "expected '@source' TAB NAME TAB PATH%s",
				   "");
		if ((rc = unescape(r, f[1], fl[1], &len2)))
			return rc;
		const char *raw = sf_profile_strn(r->p, r->ctx, r->tmp, len2);
		if ((rc = unescape(r, f[2], fl[2], &len2)))
			return rc;
		const char *path = sf_profile_strn(r->p, r->ctx, r->tmp, len2);
		if (!raw || !path)
			return r->ctx->err.code;
		uint64_t h = sf_hash(&raw, sizeof(raw));
		uint32_t id;
		if (sf_idx_find(&r->srcidx, h, src_eq, r, raw, &id))
			return 0;
		if (r->nsrcs == r->capsrcs) {
			size_t cap = r->capsrcs ? r->capsrcs * 2 : 64;
			struct src *ns = sf_reallocarray(r->srcs, cap,
							 sizeof(*ns));
			if (!ns)
				return sf_error_nomem(r->ctx);
			r->srcs = ns;
			r->capsrcs = cap;
		}
		r->srcs[r->nsrcs] = (struct src){ raw, path };
		if (!sf_idx_insert(&r->srcidx, h, (uint32_t)r->nsrcs))
			return sf_error_nomem(r->ctx);
		r->nsrcs++;
		return 0;
	}
	if (n != 2)
		return bad(r, "expected '@NAME' TAB VALUE%s", "");
	if (IS("@mode")) {
		if (!((fl[1] == 3 && !memcmp(f[1], "cpu", 3)) ||
		      (fl[1] == 4 && !memcmp(f[1], "time", 4)) ||
		      (fl[1] == 5 && !memcmp(f[1], "alloc", 5))))
			return bad(r, "@mode must be cpu, time or alloc%s", "");
		memcpy(r->mode, f[1], fl[1]);
		r->mode[fl[1]] = 0;
		return 0;
	}
	if (IS("@sample-interval")) {
		double d;
		if (!sf_parse_weight(f[1], fl[1], &d) || !(d > 0) ||
		    !isfinite(d))
			return bad(r, "@sample-interval must be a positive "
				   "number of seconds%s", "");
		r->interval = d;
		return 0;
	}
	const char *key = IS("@lisp") ? "sbsprof.lisp" :
			  IS("@trace-count") ? "sbsprof.trace-count" :
			  IS("@unique-trace-count") ?
			  "sbsprof.unique-trace-count" : NULL;
	if (IS("@sample-count")) {
		if (!parse_u64(f[1], fl[1], &r->declared))
			return bad(r, "@sample-count must be a whole number%s",
				   "");
		r->has_declared = true;
		return 0;
	}
	if (!key) {
		f[0][fl[0]] = 0;
		sf_warn(r->ctx, "sbsprof.unknown-header",
			"%s:%llu: unknown header '%s' ignored", r->name,
			(unsigned long long)sf_input_lineno(r->in), f[0]);
		return 0;
	}
	uint64_t v;
	if (!IS("@lisp") && !parse_u64(f[1], fl[1], &v)) {
		f[0][fl[0]] = 0;
		return bad(r, "expected a whole number after '%s'", f[0]);
	}
	if ((rc = unescape(r, f[1], fl[1], &len2)))
		return rc;
	/* the first input's values win when merging */
	if (sf_profile_prop(r->p, key))
		return 0;
	return sf_profile_set_prop(r->p, r->ctx, key, r->tmp);
#undef IS
}

/* The frame for one "K 0xHEX name" field. */
static int frame(struct rd *r, char *s, size_t n, sf_frame_id *out)
{
	struct fcache key = { s, n, 0 };
	uint64_t h = sf_hash(s, n);
	uint32_t id;
	int rc;

	if (sf_idx_find(&r->fcidx, h, fc_eq, r, &key, &id)) {
		*out = r->fc[id].frame;
		return 0;
	}
	size_t k;
	for (k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
		if (n && s[0] == kinds[k].letter)
			break;
	size_t i = 4;
	if (k == sizeof(kinds) / sizeof(kinds[0]) || n < 5 || s[1] != ' ' ||
	    s[2] != '0' || s[3] != 'x')
		goto malformed;
	while (i < n && ((s[i] >= '0' && s[i] <= '9') ||
			 (s[i] >= 'a' && s[i] <= 'f')))
		i++;
	if (i == 4 || i - 4 > 16 || (i < n && s[i] != ' ') ||
	    (i == n && s[0] != 'N'))
		goto malformed;
	size_t len;
	if (i < n) {
		if ((rc = unescape(r, s + i + 1, n - i - 1, &len)))
			return rc;
	} else {
		len = 0;
	}
	struct sf_frame f;
	sf_frame_init(&f);
	f.kind = kinds[k].word;
	f.name = len ? r->tmp : "<unknown>";
	if (len > r->ctx->limits.max_name)
		return sf_error(r->ctx, SF_ELIMIT, r->name,
				sf_input_lineno(r->in),
				"frame name longer than %llu bytes "
				"(--max-name)",
				(unsigned long long)r->ctx->limits.max_name);
	if (len) {
		const char *raw = sf_profile_strn(r->p, r->ctx, r->tmp, len);
		if (!raw)
			return r->ctx->err.code;
		f.name = raw;
		if (r->nsrcs && sf_idx_find(&r->srcidx,
					    sf_hash(&raw, sizeof(raw)), src_eq,
					    r, raw, &id))
			f.file = r->srcs[id].path;
	}
	if ((rc = sf_profile_frame(r->p, r->ctx, &f, out)))
		return rc;
	if (r->nfc == r->capfc) {
		size_t cap = r->capfc ? r->capfc * 2 : 256;
		struct fcache *nc = sf_reallocarray(r->fc, cap, sizeof(*nc));
		if (!nc)
			return sf_error_nomem(r->ctx);
		r->fc = nc;
		r->capfc = cap;
	}
	if (!(r->fc[r->nfc].text = sf_strndup(s, n)))
		return sf_error_nomem(r->ctx);
	r->fc[r->nfc].len = n;
	r->fc[r->nfc].frame = *out;
	if (!sf_idx_insert(&r->fcidx, h, (uint32_t)r->nfc))
		return sf_error_nomem(r->ctx);
	r->nfc++;
	return 0;
malformed:
	return bad(r, "expected a frame 'K 0xHEX NAME' with K one of L, A, "
		   "F, C, N and HEX in lowercase%s", "");
}

static int sample_line(struct rd *r, char *line, size_t len)
{
	char *tab = memchr(line, '\t', len);
	uint64_t th, n;
	int rc;

	if (!tab || !parse_u64(line, (size_t)(tab - line), &th))
		return bad(r, "expected 'THREAD' TAB 'COUNT' TAB frames... "
			   "or an '@' header%s", "");
	if (th >= r->nthreads)
		return bad(r, "thread number not declared by an earlier "
			   "@thread line%s", "");
	char *rest = tab + 1;
	size_t restlen = len - (size_t)(rest - line);
	if ((rc = set_types(r)))
		return rc;
	sf_stack_id stack;
	if (r->havelast && restlen == r->lastlen &&
	    !memcmp(rest, r->last, restlen)) {
		stack = r->laststack;   /* traces repeat by their hit count */
	} else {
		char *t2 = memchr(rest, '\t', restlen);
		size_t cl = t2 ? (size_t)(t2 - rest) : restlen;
		if (!parse_u64(rest, cl, &n))
			return bad(r, "expected a frame count after the thread "
				   "number%s", "");
		if (n > r->ctx->limits.max_depth)
			return sf_error(r->ctx, SF_ELIMIT, r->name,
					sf_input_lineno(r->in),
					"%llu frames exceed the depth limit "
					"(--max-depth)", (unsigned long long)n);
		if (n > r->capframes) {
			sf_frame_id *nf = sf_reallocarray(r->frames, n,
							  sizeof(*nf));
			if (!nf)
				return sf_error_nomem(r->ctx);
			r->frames = nf;
			r->capframes = n;
		}
		/* save the text before frame() reuses buffers */
		if (restlen + 1 > r->lastcap) {
			char *nl = realloc(r->last, restlen + 1);
			if (!nl)
				return sf_error_nomem(r->ctx);
			r->last = nl;
			r->lastcap = restlen + 1;
		}
		memcpy(r->last, rest, restlen);
		r->lastlen = restlen;
		r->havelast = false;
		char *s = rest + cl;
		char *end = rest + restlen;
		uint64_t k = 0;
		while (s < end) {
			s++;   /* the TAB */
			char *e = memchr(s, '\t', (size_t)(end - s));
			if (!e)
				e = end;
			if (k == n)
				break;
			if ((rc = frame(r, s, (size_t)(e - s),
					&r->frames[k])))
				return rc;
			k++;
			s = e;
		}
		if (k != n || s < end)
			return bad(r, "the frame count does not match the "
				   "number of frames on the line%s", "");
		if ((rc = sf_profile_stack(r->p, r->ctx, r->frames, n, true,
					   &stack)))
			return rc;
		r->laststack = stack;
		r->havelast = true;
	}
	r->lines++;
	if (r->pending && r->pstack == stack && r->pthread == r->threads[th]) {
		r->prun++;
		return 0;
	}
	if ((rc = flush(r)))
		return rc;
	r->pending = true;
	r->pstack = stack;
	r->pthread = r->threads[th];
	r->prun = 1;
	return 0;
}

static int read_all(struct rd *r)
{
	char *line;
	size_t len;
	int rc;
	bool ended = false;

	rc = sf_input_line(r->in, r->ctx, &line, &len);
	if (rc < 0)
		return rc;
	if (rc == 0 || len != strlen(MAGIC) || memcmp(line, MAGIC, len))
		return sf_error(r->ctx, SF_EINPUT, r->name, 1,
				"expected 'sbsprof-samples 1' (a dump of "
				"another version, or not a dump)");
	while ((rc = sf_input_line(r->in, r->ctx, &line, &len)) > 0) {
		if (sf_interrupted(r->ctx))
			return sf_error(r->ctx, SF_EINTR, NULL, 0,
					"interrupted");
		if (ended) {
			sf_warn(r->ctx, "sbsprof.after-end",
				"%s:%llu: data after @end ignored", r->name,
				(unsigned long long)sf_input_lineno(r->in));
			continue;
		}
		if (len == 4 && !memcmp(line, "@end", 4)) {
			ended = true;
			if ((rc = flush(r)))
				return rc;
			continue;
		}
		rc = line[0] == '@' ? header(r, line, len) :
				      sample_line(r, line, len);
		if (rc) {
			if (!r->ctx->err.line && !r->ctx->err.has_offset)
				r->ctx->err.line = sf_input_lineno(r->in);
			if (!r->ctx->err.source[0])
				snprintf(r->ctx->err.source,
					 sizeof(r->ctx->err.source), "%s",
					 r->name);
			return rc;
		}
	}
	if (rc < 0)
		return rc;
	if (!ended)
		return sf_error(r->ctx, SF_EINPUT, r->name,
				sf_input_lineno(r->in) + 1,
				"missing '@end': the dump is truncated");
	if (r->has_declared && r->declared != r->lines) {
		char b[80];
		snprintf(b, sizeof(b), "%llu sample lines but @sample-count "
			 "says %llu", (unsigned long long)r->lines,
			 (unsigned long long)r->declared);
		return sf_error(r->ctx, SF_EINPUT, r->name,
				sf_input_lineno(r->in), "%s", b);
	}
	return set_types(r);
}

static int sbsprof_read(struct sf_profile *p, struct sf_input *in,
			struct sf_ctx *ctx)
{
	struct rd r = { .p = p, .ctx = ctx, .in = in,
			.name = sf_input_name(in) };
	int rc = read_all(&r);

	free(r.tmp);
	free(r.srcs);
	sf_idx_free(&r.srcidx);
	for (size_t i = 0; i < r.nfc; i++)
		free(r.fc[i].text);
	free(r.fc);
	sf_idx_free(&r.fcidx);
	free(r.threads);
	free(r.frames);
	free(r.last);
	free(r.w);
	return rc;
}

static int sbsprof_probe(const unsigned char *d, size_t n)
{
	if (!sf_probe_prefix(d, n, MAGIC))
		return 0;
	n -= strlen(MAGIC);
	d += strlen(MAGIC);
	return n && (d[0] == '\n' || d[0] == '\r') ? 100 : 0;
}

/* ----- writing ----- */

static void put_escaped(struct sf_output *o, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '\\': sf_output_puts(o, "\\\\"); break;
		case '\t': sf_output_puts(o, "\\t"); break;
		case '\n': sf_output_puts(o, "\\n"); break;
		case '\r': sf_output_puts(o, "\\r"); break;
		default: sf_output_putc(o, *s);
		}
	}
}

static bool name_eq(const void *c, uint32_t id, const void *k)
{
	const struct sf_profile *p = c;

	return p->d.frames[id].name == k;   /* interned */
}

static char kind_letter(const char *kind)
{
	for (size_t k = 0; kind && k < sizeof(kinds) / sizeof(kinds[0]); k++)
		if (!strcmp(kind, kinds[k].word))
			return kinds[k].letter;
	return 'L';
}

static int sbsprof_write(const struct sf_profile *p, struct sf_output *out,
			 struct sf_ctx *ctx)
{
	size_t nthr = p->d.nthreads, nsamp = p->d.nsamples;
	uint64_t *reps = NULL, total = 0, unique = 0;
	struct sf_records rec;
	bool rounded = false, orphans = false;
	int rc = 0;
	const char *mode = NULL;

	/* which weight counts lines: the rule of the Sampler and cpuprofile
	 * writers (records.h), so a weight in nanoseconds is never written
	 * as that many lines: a sample the input counted is one line, a
	 * collapsed weight needs --period */
	if ((rc = sf_records_plan(p, ctx, "sb-sprof sample lines", &rec)))
		return rc;
	if (!(reps = sf_calloc(nsamp ? nsamp : 1, sizeof(*reps))))
		return sf_error_nomem(ctx);
	for (size_t i = 0; i < nsamp; i++) {
		if ((rc = sf_records_whole(p, ctx, &rec, i, 4294967295.0,
					   "sample lines", &reps[i],
					   &rounded)))
			goto out;
		total += reps[i];
		unique += reps[i] != 0;
		if (p->d.samples[i].thread == SF_NO_THREAD && reps[i])
			orphans = true;
	}
	if (rounded)
		sf_warn(ctx, "sbsprof.weight-rounded",
			"weights that are not whole numbers of samples were "
			"rounded to whole sample lines");

	if (p->d.ntypes && !strcmp(p->d.types[rec.type].type, "alloc"))
		mode = "alloc";
	else if (p->d.meta.period_type.type &&
		 !strcmp(p->d.meta.period_type.type, "cpu"))
		mode = "cpu";
	else if (p->d.meta.period_type.type &&
		 !strcmp(p->d.meta.period_type.type, "wall"))
		mode = "time";

	sf_output_puts(out, MAGIC "\n");
	const char *lisp = sf_profile_prop(p, "sbsprof.lisp");
	if (lisp) {
		sf_output_puts(out, "@lisp\t");
		put_escaped(out, lisp);
		sf_output_putc(out, '\n');
	}
	if (mode)
		sf_output_printf(out, "@mode\t%s\n", mode);
	if (mode && strcmp(mode, "alloc") && p->d.meta.period > 0 &&
	    p->d.meta.period_type.unit &&
	    !strcmp(p->d.meta.period_type.unit, "nanoseconds")) {
		char b[40];
		sf_format_num(b, sizeof(b), p->d.meta.period / 1e9);
		sf_output_printf(out, "@sample-interval\t%s\n", b);
	}
	const char *tc = sf_profile_prop(p, "sbsprof.trace-count");
	const char *uc = sf_profile_prop(p, "sbsprof.unique-trace-count");
	uint64_t v;
	sf_output_puts(out, "@trace-count\t");
	if (tc && parse_u64(tc, strlen(tc), &v) && v >= total)
		sf_output_puts(out, tc);
	else
		sf_output_u64(out, total);
	sf_output_puts(out, "\n@unique-trace-count\t");
	if (uc && parse_u64(uc, strlen(uc), &v))
		sf_output_puts(out, uc);
	else
		sf_output_u64(out, unique);
	sf_output_puts(out, "\n@sample-count\t");
	sf_output_u64(out, total);
	sf_output_putc(out, '\n');
	for (size_t i = 0; i < nthr + orphans; i++) {
		sf_output_printf(out, "@thread\t%zu\t", i);
		put_escaped(out, i < nthr ? p->d.threads[i].name :
					    "(no thread)");
		sf_output_putc(out, '\n');
	}
	/* sources, once per name, in frame order */
	struct sf_idx seen = { 0 };
	for (size_t f = 0; f < p->d.nframes; f++) {
		const struct sf_frame *fr = &p->d.frames[f];
		uint32_t id;
		if (!fr->file)
			continue;
		uint64_t h = sf_hash(&fr->name, sizeof(fr->name));
		if (sf_idx_find(&seen, h, name_eq, p, fr->name, &id))
			continue;
		if (!sf_idx_insert(&seen, h, (uint32_t)f)) {
			sf_idx_free(&seen);
			rc = sf_error_nomem(ctx);
			goto out;
		}
		sf_output_puts(out, "@source\t");
		put_escaped(out, fr->name);
		sf_output_putc(out, '\t');
		put_escaped(out, fr->file);
		sf_output_putc(out, '\n');
	}
	sf_idx_free(&seen);
	/* samples grouped by thread, as sb-sprof's vector is */
	for (size_t b = 0; b < nthr + orphans; b++) {
		for (size_t i = 0; i < nsamp; i++) {
			const struct sf_sample *s = &p->d.samples[i];
			size_t sb = s->thread == SF_NO_THREAD ? nthr :
								s->thread;
			if (sb != b || !reps[i])
				continue;
			if ((i & 0xffff) == 0 && sf_interrupted(ctx)) {
				rc = sf_error(ctx, SF_EINTR, NULL, 0,
					      "interrupted");
				goto out;
			}
			for (uint64_t k = 0; k < reps[i]; k++) {
				sf_output_u64(out, b);
				sf_output_putc(out, '\t');
				sf_output_u64(out, p->d.stacks[s->stack].depth);
				for (sf_stack_id n = s->stack; n;
				     n = p->d.stacks[n].parent) {
					const struct sf_frame *fr =
						&p->d.frames[p->d.stacks[n]
								     .frame];
					char kl = kind_letter(fr->kind);
					sf_output_printf(out, "\t%c 0x%llx",
						kl, (unsigned long long)
						(fr->address == SF_NO_ADDR ? 0 :
						 fr->address));
					sf_output_putc(out, ' ');
					if (kl != 'N')
						put_escaped(out, fr->name);
				}
				sf_output_putc(out, '\n');
			}
		}
	}
	sf_output_puts(out, "@end\n");
out:
	free(reps);
	return rc;
}

static const char *const sbsprof_ext[] = { ".sbsprof", NULL };

static const struct sf_option sbsprof_wopts[] = {
	SF_RECORDS_OPTION,
	{ NULL, NULL, NULL },
};

const struct sf_format sf_format_sbsprof = {
	.name = "sbsprof",
	.description = "SBCL sb-sprof sample dump (sbsprof-samples 1)",
	.extensions = sbsprof_ext,
	.probe = sbsprof_probe,
	.read = sbsprof_read,
	.write = sbsprof_write,
	.caps = SF_CAP_THREADS | SF_CAP_WEIGHTS,
	.priority = 5,
	.write_options = sbsprof_wopts,
};
