/*
 * fmt_supersampler.c - Apple Sampler / Shark traces ("@supersamplerV1.0"),
 * the format docs/formats.md defines (section "sampler": grammar, worked
 * example).
 *
 * The file mixes text and raw big-endian 32-bit integers, so the reader
 * works by length and never splits on LF: ids, counts and frame ids hold
 * TAB, LF, '@' and NUL bytes in real files.  It keeps a small buffer of its
 * own over sf_input_read_some() so the byte offset of every item is known
 * for messages, and it reads a record's frame ids in bounded chunks: a
 * count is checked against --max-depth before anything is allocated, and a
 * truncated record fails when the input ends, never by allocating from an
 * unchecked count.
 *
 * Model mapping: a thread block is a thread (tid = its 16-bit id, name = the
 * thread symbol's name, usually "Thread_XXXX"); a record is one sample
 * in ("samples", "count"), frames leaf first (a run of equal consecutive
 * records is one sample weighing the run's length); a symbol's name is
 * the frame name, its library the module, its `unknown` word frame.aux
 * (SF_FRAME_HAS_AUX).  Record words other than "1 0 1" are kept as the
 * label "sampler.words" (e.g. "1 0 2").  library2: writers put the library
 * there too; the reader keeps library2 only when library is empty (as the
 * module) and otherwise warns ("sampler.library2") when the two differ.
 *
 * Writing follows the grammar exactly; see sampler_write().  Reading a file
 * this writer made and writing it again gives the same bytes.
 */
#include "format.h"
#include "hash.h"
#include "records.h"
#include "text.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAGIC "@supersamplerV1.0\n"
#define SYMTAB "@symboltableV1.1\n"
#define THREAD_WORD "@threadV1.0"
#define TID_WORD "tid="              /* a mapped thread's library field */
#define FIRST_ID 0x2122u        /* the original writer's first id */
#define CHUNK 1024              /* frame ids read at a time */

/* ----- reading ----- */

struct sym {
	uint32_t id;
	uint32_t unknown;
	const char *name;       /* interned */
	const char *lib;        /* interned; "" if empty */
	const char *lib2;
	sf_frame_id frame;      /* UINT32_MAX until a record uses it */
};

struct rd {
	struct sf_profile *p;
	struct sf_input *in;
	struct sf_ctx *ctx;
	const char *name;
	unsigned char buf[1 << 16];
	size_t pos, end;
	uint64_t base;          /* input offset of buf[0] */
	bool eof;
	struct sym *syms;
	size_t nsyms, capsyms;
	struct sf_idx symidx;   /* symbol id -> index into syms */
	char *text;             /* scratch for text fields */
	size_t textcap;
	sf_frame_id *frames;
	size_t capframes;
	uint32_t type;
	double *w;
	unsigned char seen[65536 / 8];  /* thread ids already seen */
	/* a run of equal consecutive records, not yet added */
	bool pending;
	sf_stack_id pstack;
	sf_thread_idx pthread;
	sf_labels_id plabels;
	uint64_t prun;
	/* the frame ids of the last record (if at most CHUNK) and its stack:
	 * a repeated record costs a memcmp, not a lookup per frame */
	bool prevvalid;
	uint32_t prevcount;
	sf_stack_id prevstack;
	unsigned char prevraw[4 * CHUNK];
};

/* Add the pending run of equal records as one sample weighing its length:
 * memory follows distinct runs, not records (idle threads and the
 * writers' repeated records are long runs), and writing the sample back
 * repeats the record as often. */
static int flush(struct rd *r)
{
	int rc;

	if (!r->pending)
		return 0;
	r->pending = false;
	r->w[r->type] = (double)r->prun;
	rc = sf_profile_add_sample(r->p, r->ctx, r->pstack, r->pthread,
				   r->plabels, SF_NO_TIME, r->w);
	r->w[r->type] = 1;
	return rc;
}

static uint64_t off(const struct rd *r)
{
	return r->base + r->pos;
}

static int bad(struct rd *r, uint64_t at, const char *what)
{
	return sf_error_at(r->ctx, SF_EINPUT, r->name, at, "%s", what);
}

/* Make at least one byte available unless the input ended. */
static int fill(struct rd *r)
{
	if (r->pos < r->end || r->eof)
		return 0;
	r->base += r->end;
	r->pos = r->end = 0;
	long n = sf_input_read_some(r->in, r->ctx, r->buf, sizeof(r->buf));
	if (n < 0)
		return (int)n;
	if (n == 0)
		r->eof = true;
	r->end = (size_t)n;
	return 0;
}

/* Next byte without consuming it: *c is -1 at the end of input. */
static int peek(struct rd *r, int *c)
{
	int rc = fill(r);

	if (rc)
		return rc;
	*c = r->pos < r->end ? r->buf[r->pos] : -1;
	return 0;
}

/* Up to n bytes into dst; *got says how many (fewer only at the end). */
static int get(struct rd *r, void *dst, size_t n, size_t *got)
{
	size_t done = 0;
	int rc;

	while (done < n) {
		if ((rc = fill(r)))
			return rc;
		if (r->pos == r->end)
			break;
		size_t k = r->end - r->pos;
		if (k > n - done)
			k = n - done;
		memcpy((char *)dst + done, r->buf + r->pos, k);
		r->pos += k;
		done += k;
	}
	*got = done;
	return 0;
}

static uint32_t be32(const unsigned char *b)
{
	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 |
	       (uint32_t)b[2] << 8 | b[3];
}

/* Text up to the next TAB or LF (consumed; returned in *term, -1 at the
 * end of input) into r->text, at most `max` bytes. */
static int text_field(struct rd *r, size_t max, size_t *len, int *term)
{
	size_t n = 0;
	int rc;

	for (;;) {
		if ((rc = fill(r)))
			return rc;
		if (r->pos == r->end) {
			*term = -1;
			break;
		}
		size_t i = r->pos;
		while (i < r->end && r->buf[i] != '\t' && r->buf[i] != '\n')
			i++;
		size_t k = i - r->pos;
		const unsigned char *nul = memchr(r->buf + r->pos, 0, k);
		if (nul)
			return sf_error_at(r->ctx, SF_EINPUT, r->name,
					   off(r) + (uint64_t)(nul - (r->buf +
								r->pos)),
					   "NUL byte in a text field (names "
					   "are C strings in the model)");
		if (n + k > max)
			return sf_error_at(r->ctx, SF_ELIMIT, r->name, off(r),
					   "text field longer than %llu bytes "
					   "(--max-name)",
					   (unsigned long long)max);
		if (n + k + 1 > r->textcap) {
			size_t cap = r->textcap ? r->textcap : 256;
			while (cap < n + k + 1)
				cap *= 2;
			char *t = realloc(r->text, cap);
			if (!t)
				return sf_error_nomem(r->ctx);
			r->text = t;
			r->textcap = cap;
		}
		memcpy(r->text + n, r->buf + r->pos, k);
		n += k;
		r->pos = i;
		if (i < r->end) {
			*term = r->buf[i];
			r->pos++;
			break;
		}
	}
	*len = n;
	return 0;
}

/* An '@' word up to TAB or LF (at most 31 bytes): *term as text_field. */
static int at_word(struct rd *r, char *w, size_t cap, int *term)
{
	size_t n = 0;
	int c, rc;

	for (;;) {
		if ((rc = peek(r, &c)))
			return rc;
		if (c == -1 || c == '\t' || c == '\n' || n + 1 >= cap)
			break;
		w[n++] = (char)c;
		r->pos++;
	}
	w[n] = 0;
	*term = c;
	if (c == '\t' || c == '\n')
		r->pos++;
	return 0;
}

static int expect(struct rd *r, const char *lit, const char *what)
{
	size_t n = strlen(lit);
	char b[32];
	size_t got;
	uint64_t at = off(r);
	int rc = get(r, b, n, &got);

	if (rc)
		return rc;
	for (size_t i = 0; i < n; i++)
		if (i >= got || b[i] != lit[i])
			return bad(r, at + i, what);
	return 0;
}

static bool sym_eq(const void *c, uint32_t id, const void *k)
{
	const struct rd *r = c;

	return r->syms[id].id == *(const uint32_t *)k;
}

static struct sym *find_sym(struct rd *r, uint32_t id)
{
	uint32_t i;

	if (sf_idx_find(&r->symidx, sf_hash_u64(id, 0), sym_eq, r, &id, &i))
		return &r->syms[i];
	return NULL;
}

/* One symbol entry; the leading TAB is consumed. */
static int read_symbol(struct rd *r)
{
	unsigned char b[9];
	size_t got, len = 0;
	int term = 0, rc;
	uint64_t at = off(r);
	struct sym s = { 0 };
	const char **fields[3] = { &s.name, &s.lib, &s.lib2 };

	if ((rc = get(r, b, 9, &got)))
		return rc;
	if (got < 9 || b[4] != '\t')
		return bad(r, at + (got < 9 ? got : 4),
			   got < 9 ? "truncated symbol entry: expected id, "
				     "TAB and the unknown word" :
				     "expected TAB after the symbol id");
	s.id = be32(b);
	s.unknown = be32(b + 5);
	at = off(r);
	if ((rc = get(r, b, 1, &got)))
		return rc;
	if (got < 1 || b[0] != '\t')
		return bad(r, at, "expected TAB before the symbol name");
	for (int f = 0; f < 3; f++) {
		at = off(r);
		if ((rc = text_field(r, r->ctx->limits.max_name, &len, &term)))
			return rc;
		if (term != (f < 2 ? '\t' : '\n'))
			return bad(r, off(r) - (term >= 0),
				   f == 0 ? "expected TAB after the symbol name" :
				   f == 1 ? "expected TAB after the symbol "
					    "library" :
					    "expected LF after the symbol's "
					    "second library");
		if (!(*fields[f] = sf_profile_strn(r->p, r->ctx, r->text,
						   len)))
			return r->ctx->err.code;
	}
	s.frame = UINT32_MAX;
	if (find_sym(r, s.id)) {
		sf_warn(r->ctx, "sampler.duplicate-symbol",
			"%s: symbol id 0x%08x defined twice; the first wins",
			r->name, s.id);
		return 0;
	}
	if (r->nsyms == r->capsyms) {
		size_t cap = r->capsyms ? r->capsyms * 2 : 256;
		struct sym *ns = sf_reallocarray(r->syms, cap, sizeof(*ns));
		if (!ns)
			return sf_error_nomem(r->ctx);
		r->syms = ns;
		r->capsyms = cap;
	}
	r->syms[r->nsyms] = s;
	if (!sf_idx_insert(&r->symidx, sf_hash_u64(s.id, 0),
			   (uint32_t)r->nsyms))
		return sf_error_nomem(r->ctx);
	r->nsyms++;
	return 0;
}

static int sym_frame(struct rd *r, struct sym *s, sf_frame_id *out)
{
	struct sf_frame f;
	int rc;

	if (s->frame != UINT32_MAX) {
		*out = s->frame;
		return 0;
	}
	sf_frame_init(&f);
	f.name = s->name;
	f.module = s->lib[0] ? s->lib : NULL;
	if (s->lib2 != s->lib) {
		if (!s->lib[0])
			f.module = s->lib2;
		else
			sf_warn(r->ctx, "sampler.library2",
				"%s: symbol 0x%08x has a second library "
				"'%s' unlike its library '%s'; only the first "
				"is kept", r->name, s->id, s->lib2, s->lib);
	}
	f.aux = s->unknown;
	f.flags = SF_FRAME_HAS_AUX;
	if ((rc = sf_profile_frame(r->p, r->ctx, &f, &s->frame)))
		return rc;
	*out = s->frame;
	return 0;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* The thread id after "@threadV1.0" TAB, up to and with its LF. */
static int thread_header(struct rd *r, sf_thread_idx *out)
{
	char b[17];
	size_t n = 0;
	uint64_t at = off(r);
	unsigned id = 0;
	int c, rc;

	for (;;) {
		if ((rc = peek(r, &c)))
			return rc;
		if (c == -1 || c == '\n' || n == 16)
			break;
		b[n++] = (char)c;
		r->pos++;
	}
	if (c != '\n' || n != 4)
		return bad(r, at, "expected a thread id of exactly 4 hex "
			   "digits and LF after '@threadV1.0' TAB");
	r->pos++;
	for (size_t i = 0; i < 4; i++) {
		int v = hexval((unsigned char)b[i]);
		if (v < 0)
			return bad(r, at + i, "expected a thread id of "
				   "exactly 4 hex digits after "
				   "'@threadV1.0' TAB");
		id = id << 4 | (unsigned)v;
	}
	/* lowercase hex is accepted quietly (docs/formats.md, sampler) */
	if (r->seen[id >> 3] & (1u << (id & 7)))
		sf_warn(r->ctx, "sampler.repeated-thread",
			"%s: thread %04X has more than one block; merged",
			r->name, id);
	r->seen[id >> 3] |= (unsigned char)(1u << (id & 7));

	const struct sym *s = find_sym(r, id);
	char name[16];
	if (!s) {
		sf_warn(r->ctx, "sampler.thread-symbol",
			"%s: thread %04X is not in the symbol table; named "
			"Thread_%04X", r->name, id, id);
		snprintf(name, sizeof(name), "Thread_%04X", id);
	}
	/* our writer keeps a thread id that does not fit the 16-bit field
	 * in the thread symbol's library: "tid=123456" */
	int64_t tid = (int64_t)id, v;
	if (s && !strncmp(s->lib, TID_WORD, strlen(TID_WORD)) &&
	    sf_parse_i64(s->lib + strlen(TID_WORD),
			 strlen(s->lib + strlen(TID_WORD)), &v) && v >= 0)
		tid = v;
	return sf_profile_thread(r->p, r->ctx, SF_NO_ID, tid,
				 s ? s->name : name, out);
}

/* One record; the leading TAB is consumed.  `start` is its offset. */
static int read_record(struct rd *r, sf_thread_idx thread, uint64_t start)
{
	unsigned char h[16], b[4 * CHUNK];
	size_t got;
	uint64_t at = off(r);
	int rc;

	if ((rc = get(r, h, 16, &got)))
		return rc;
	if (got < 16) {
		return sf_error_at(r->ctx, SF_EINPUT, r->name, at + got,
				   "truncated record (starts at byte %llu): "
				   "expected 16 header bytes, the input ends",
				   (unsigned long long)start);
	}
	uint32_t w1 = be32(h), w2 = be32(h + 4), w3 = be32(h + 8);
	uint32_t count = be32(h + 12);
	if (count > r->ctx->limits.max_depth)
		return sf_error_at(r->ctx, SF_ELIMIT, r->name, at + 12,
				   "record frame count %lu exceeds the depth "
				   "limit %llu (--max-depth)",
				   (unsigned long)count,
				   (unsigned long long)r->ctx->limits.max_depth);
	/* frames arrive in chunks: memory follows the bytes really read */
	bool same = false;
	for (uint32_t done = 0; done < count;) {
		uint32_t k = count - done < CHUNK ? count - done : CHUNK;
		uint64_t cat = off(r);
		if ((rc = get(r, b, 4 * (size_t)k, &got)))
			return rc;
		if (got < 4 * (size_t)k)
			return sf_error_at(r->ctx, SF_EINPUT, r->name,
					   cat + got,
					   "truncated record (starts at byte "
					   "%llu): expected %lu frame ids, the "
					   "input ends after %lu",
					   (unsigned long long)start,
					   (unsigned long)count,
					   (unsigned long)(done + got / 4));
		if (done + k > r->capframes) {
			size_t cap = r->capframes ? r->capframes : CHUNK;
			while (cap < done + k)
				cap *= 2;
			sf_frame_id *nf = sf_reallocarray(r->frames, cap,
							  sizeof(*nf));
			if (!nf)
				return sf_error_nomem(r->ctx);
			r->frames = nf;
			r->capframes = cap;
		}
		if (count <= CHUNK && r->prevvalid && r->prevcount == count &&
		    !memcmp(b, r->prevraw, 4 * (size_t)k)) {
			same = true;
			break;
		}
		for (uint32_t i = 0; i < k; i++) {
			uint32_t id = be32(b + 4 * i);
			struct sym *s = find_sym(r, id);
			if (!s)
				return sf_error_at(r->ctx, SF_EINPUT, r->name,
						   cat + 4 * i,
						   "frame id 0x%08lx is not in "
						   "the symbol table",
						   (unsigned long)id);
			if ((rc = sym_frame(r, s, &r->frames[done + i])))
				return rc;
		}
		done += k;
	}
	at = off(r);
	unsigned char lf;
	if ((rc = get(r, &lf, 1, &got)))
		return rc;
	if (got < 1 || lf != '\n')
		return sf_error_at(r->ctx, SF_EINPUT, r->name, at,
				   "expected LF after the %lu frame ids of the "
				   "record that starts at byte %llu",
				   (unsigned long)count,
				   (unsigned long long)start);

	sf_stack_id stack = r->prevstack;
	sf_labels_id labels = 0;
	if (!same) {
		if ((rc = sf_profile_stack(r->p, r->ctx, r->frames, count,
					   true, &stack)))
			return rc;
		r->prevvalid = count <= CHUNK;
		if (r->prevvalid) {
			memcpy(r->prevraw, b, 4 * (size_t)count);
			r->prevcount = count;
			r->prevstack = stack;
		}
	}
	if (w1 != 1 || w2 != 0 || w3 != 1) {
		char v[40];
		snprintf(v, sizeof(v), "%lu %lu %lu", (unsigned long)w1,
			 (unsigned long)w2, (unsigned long)w3);
		sf_warn(r->ctx, "sampler.record-words",
			"%s: byte %llu: record words '%s' instead of '1 0 1' "
			"(kept as the label sampler.words)", r->name,
			(unsigned long long)start, v);
		struct sf_label l = { "sampler.words", v };
		if ((rc = sf_profile_labels(r->p, r->ctx, &l, 1, &labels)))
			return rc;
	}
	if (r->pending && r->pstack == stack && r->pthread == thread &&
	    r->plabels == labels) {
		r->prun++;
		return 0;
	}
	if ((rc = flush(r)))
		return rc;
	r->pending = true;
	r->pstack = stack;
	r->pthread = thread;
	r->plabels = labels;
	r->prun = 1;
	return 0;
}

/* After the final "@end" word (its terminator in `term`). */
static int finish(struct rd *r, int term)
{
	int c, rc;

	if ((rc = flush(r)))
		return rc;
	if (term == -1) {
		sf_warn(r->ctx, "sampler.end-without-lf",
			"%s: the final '@end' has no LF", r->name);
		return 0;
	}
	if ((rc = peek(r, &c)))
		return rc;
	if (c != -1) {
		sf_warn(r->ctx, "sampler.trailing-bytes",
			"%s: byte %llu: data after the final '@end' ignored",
			r->name, (unsigned long long)off(r));
		/* drain, so a pipe writer is not cut off */
		while (!r->eof) {
			r->pos = r->end;
			if ((rc = fill(r)))
				return rc;
		}
	}
	return 0;
}

static int read_all(struct rd *r)
{
	char w[32];
	int c, term, rc;
	uint64_t at;

	if ((rc = expect(r, MAGIC, "expected '@supersamplerV1.0' and LF")) ||
	    (rc = expect(r, SYMTAB, "expected '@symboltableV1.1' and LF")))
		return rc;
	/* symbol table, ended by "@end" or (seed dialect) the first block */
	bool block = false;
	for (;;) {
		if ((rc = peek(r, &c)))
			return rc;
		at = off(r);
		if (c == '\t') {
			r->pos++;
			if ((rc = read_symbol(r)))
				return rc;
			continue;
		}
		if (c == '@') {
			if ((rc = at_word(r, w, sizeof(w), &term)))
				return rc;
			if (!strcmp(w, "@end") && term == '\n')
				break;
			if (!strcmp(w, THREAD_WORD) && term == '\t') {
				block = true;
				break;
			}
			if (!strcmp(w, "@end") && term == -1)
				return bad(r, at, "expected LF after the "
					   "symbol table's '@end', then thread "
					   "blocks and a final '@end'");
		}
		if (c == -1)
			return bad(r, at, "missing final '@end': the input "
				   "ends inside the symbol table");
		return bad(r, at, "expected a symbol entry (TAB), '@end' or "
			   "'@threadV1.0' in the symbol table");
	}
	if (!block) {
		if ((rc = peek(r, &c)))
			return rc;
		at = off(r);
		if (c != '@')
			return bad(r, at, c == -1 ?
				   "missing final '@end' after the symbol "
				   "table" :
				   "expected '@threadV1.0' or '@end' after "
				   "the symbol table");
		if ((rc = at_word(r, w, sizeof(w), &term)))
			return rc;
		if (!strcmp(w, "@end") && (term == '\n' || term == -1))
			return finish(r, term);
		if (strcmp(w, THREAD_WORD) || term != '\t')
			return bad(r, at, "expected '@threadV1.0' TAB or "
				   "'@end' after the symbol table");
	}
	/* thread blocks; we are just after "@threadV1.0" TAB */
	for (;;) {
		sf_thread_idx thread;
		if ((rc = thread_header(r, &thread)))
			return rc;
		for (;;) {
			if (sf_interrupted(r->ctx))
				return sf_error(r->ctx, SF_EINTR, NULL, 0,
						"interrupted");
			if ((rc = peek(r, &c)))
				return rc;
			at = off(r);
			if (c != '\t')
				break;
			r->pos++;
			if ((rc = read_record(r, thread, at)))
				return rc;
		}
		if (c == -1)
			return bad(r, at, "missing final '@end': the input "
				   "ends after a record");
		if (c != '@')
			return bad(r, at, "expected a record (TAB), "
				   "'@threadV1.0' or the final '@end'");
		if ((rc = at_word(r, w, sizeof(w), &term)))
			return rc;
		if (!strcmp(w, "@end") && (term == '\n' || term == -1))
			return finish(r, term);
		if (strcmp(w, THREAD_WORD) || term != '\t')
			return bad(r, at, "expected '@threadV1.0' TAB or the "
				   "final '@end'");
	}
}

static int sampler_read(struct sf_profile *p, struct sf_input *in,
			struct sf_ctx *ctx)
{
	struct rd *r = sf_calloc(1, sizeof(*r));
	int rc;

	if (!r)
		return sf_error_nomem(ctx);
	r->p = p;
	r->in = in;
	r->ctx = ctx;
	r->name = sf_input_name(in);
	r->base = sf_input_offset(in);
	if (!(rc = sf_profile_sample_type(p, ctx, "samples", "count",
					  &r->type))) {
		if (!p->d.nsamples && p->d.ntypes == 1)
			p->d.meta.default_type = r->type;
		if (!(r->w = sf_calloc(p->d.ntypes, sizeof(*r->w))))
			rc = sf_error_nomem(ctx);
		else
			r->w[r->type] = 1;
	}
	if (!rc)
		rc = read_all(r);
	sf_idx_free(&r->symidx);
	free(r->syms);
	free(r->text);
	free(r->frames);
	free(r->w);
	free(r);
	return rc;
}

static int sampler_probe(const unsigned char *d, size_t n)
{
	return sf_probe_prefix(d, n, MAGIC) ? 100 : 0;
}

/* ----- writing ----- */

/* A symbol the writer emits; texts are sanitised (no TAB or LF). */
struct wsym {
	const char *name, *lib;   /* may point into the profile */
	char *own_name, *own_lib; /* sanitised copies, when needed */
	uint32_t aux;
};

struct wr {
	const struct sf_profile *p;
	struct sf_ctx *ctx;
	struct wsym *syms;
	size_t nsyms, cap;
	struct sf_idx idx;
	uint32_t *sym_of_frame;   /* frame -> symbol index, or UINT32_MAX */
	bool sanitised;
};

/* NULL if `s` needs no change, else a malloc'ed copy with LF -> '/' and
 * TAB -> ' '.  *fail on allocation failure. */
static char *sanitise(const char *s, bool *changed, bool *fail)
{
	if (!s || !strpbrk(s, "\t\n"))
		return NULL;
	char *c = sf_strndup(s, strlen(s));
	if (!c) {
		*fail = true;
		return NULL;
	}
	for (char *q = c; *q; q++) {
		if (*q == '\n')
			*q = '/';
		else if (*q == '\t')
			*q = ' ';
	}
	*changed = true;
	return c;
}

static uint64_t wsym_hash(const char *name, const char *lib, uint32_t aux)
{
	return sf_hash_u64(sf_hash(name, strlen(name)) ^
			   sf_hash(lib, strlen(lib)) * 31, aux);
}

struct wkey {
	const char *name, *lib;
	uint32_t aux;
};

static bool wsym_eq(const void *c, uint32_t id, const void *k)
{
	const struct wr *w = c;
	const struct wkey *key = k;
	const struct wsym *s = &w->syms[id];

	return s->aux == key->aux && !strcmp(s->name, key->name) &&
	       !strcmp(s->lib, key->lib);
}

/* Symbol index of frame f, made on first use. */
static int frame_sym(struct wr *w, sf_frame_id f, uint32_t *out)
{
	const struct sf_frame *fr = &w->p->d.frames[f];
	bool fail = false;

	if (w->sym_of_frame[f] != UINT32_MAX) {
		*out = w->sym_of_frame[f];
		return 0;
	}
	char *on = sanitise(fr->name, &w->sanitised, &fail);
	char *ol = sanitise(fr->module, &w->sanitised, &fail);
	if (fail) {
		free(on);
		free(ol);
		return sf_error_nomem(w->ctx);
	}
	struct wkey key = { on ? on : fr->name,
			    ol ? ol : fr->module ? fr->module : "",
			    (fr->flags & SF_FRAME_HAS_AUX) ? fr->aux : 0 };
	uint64_t h = wsym_hash(key.name, key.lib, key.aux);
	uint32_t id;
	if (sf_idx_find(&w->idx, h, wsym_eq, w, &key, &id)) {
		free(on);
		free(ol);
	} else {
		if (w->nsyms == w->cap) {
			size_t cap = w->cap ? w->cap * 2 : 256;
			struct wsym *ns = sf_reallocarray(w->syms, cap,
							  sizeof(*ns));
			if (!ns) {
				free(on);
				free(ol);
				return sf_error_nomem(w->ctx);
			}
			w->syms = ns;
			w->cap = cap;
		}
		id = (uint32_t)w->nsyms;
		w->syms[id] = (struct wsym){ key.name, key.lib, on, ol,
					     key.aux };
		if (!sf_idx_insert(&w->idx, h, id))
			return sf_error_nomem(w->ctx);
		w->nsyms++;
	}
	w->sym_of_frame[f] = id;
	*out = id;
	return 0;
}

static void be32_put(unsigned char *b, uint32_t v)
{
	b[0] = (unsigned char)(v >> 24);
	b[1] = (unsigned char)(v >> 16);
	b[2] = (unsigned char)(v >> 8);
	b[3] = (unsigned char)v;
}

static void put32(struct sf_output *o, uint32_t v)
{
	unsigned char b[4];

	be32_put(b, v);
	sf_output_write(o, b, 4);
}

static void put_symbol(struct sf_output *o, uint32_t id, uint32_t unknown,
		       const char *name, const char *lib)
{
	sf_output_putc(o, '\t');
	put32(o, id);
	sf_output_putc(o, '\t');
	put32(o, unknown);
	sf_output_putc(o, '\t');
	sf_output_puts(o, name);
	sf_output_putc(o, '\t');
	sf_output_puts(o, lib);
	sf_output_putc(o, '\t');
	sf_output_puts(o, lib);
	sf_output_putc(o, '\n');
}

/* The 16-bit id of each thread block in bid[]: the thread's own id when
 * it fits and no earlier thread has it, else the lowest free id from
 * FIRST_ID up; a real id replaced so is stated in a warning here and, as
 * "tid=N", in the thread symbol's library field (the reader restores it).
 * Returns the first frame symbol id: above every thread id, so thread and
 * frame symbols never share an id. */
static uint32_t block_ids(const struct sf_profile *p, struct sf_ctx *ctx,
			  size_t nblocks, uint32_t *bid)
{
	static const uint32_t none = UINT32_MAX;
	unsigned char used[0x10000 / 8];
	uint32_t next = FIRST_ID, top = 0;
	char list[360];
	size_t n = 0, nmapped = 0, unlisted = 0;

	memset(used, 0, sizeof(used));
	for (size_t b = 0; b < nblocks; b++) {
		int64_t tid = b < p->d.nthreads ? p->d.threads[b].tid : SF_NO_ID;
		bid[b] = none;
		if (tid >= 0 && tid <= 0xffff &&
		    !(used[tid >> 3] & (1u << (tid & 7)))) {
			bid[b] = (uint32_t)tid;
			used[tid >> 3] |= (unsigned char)(1u << (tid & 7));
		}
	}
	list[0] = 0;
	for (size_t b = 0; b < nblocks; b++) {
		if (bid[b] == none) {
			while (used[next >> 3] & (1u << (next & 7)))
				next = (next + 1) & 0xffff;
			bid[b] = next;
			used[next >> 3] |= (unsigned char)(1u << (next & 7));
			int64_t tid = b < p->d.nthreads ? p->d.threads[b].tid :
							  SF_NO_ID;
			if (tid != SF_NO_ID) {
				char one[48];
				int k = snprintf(one, sizeof(one),
						 "%s%" PRId64 " as %04X",
						 nmapped ? ", " : "", tid,
						 (unsigned)next);
				if (!unlisted && n + (size_t)k + 24 < sizeof(list)) {
					memcpy(list + n, one, (size_t)k + 1);
					n += (size_t)k;
				} else {
					unlisted++;
				}
				nmapped++;
			}
		}
		if (bid[b] > top)
			top = bid[b];
	}
	if (unlisted)
		snprintf(list + n, sizeof(list) - n, ", and %zu more",
			 unlisted);
	if (nmapped)
		sf_warn(ctx, "sampler.tid-mapped",
			"%zu thread id%s did not fit Sampler's 16-bit thread "
			"field and %s replaced (the thread's symbol says "
			"tid=ID): %s", nmapped, nmapped > 1 ? "s" : "",
			nmapped > 1 ? "were" : "was", list);
	return top + 1 > FIRST_ID + nblocks ? top + 1
					    : FIRST_ID + (uint32_t)nblocks;
}

/* Say in one line what of `p` a Sampler trace cannot hold. */
static void say_dropped(const struct sf_profile *p, struct sf_ctx *ctx,
			uint32_t counted)
{
	char what[400], keys[200];
	size_t n = 0, nk = 0;
	bool pid = false, file = false, addr = false, inl = false,
	     kind = false, col = false;

	keys[0] = 0;
	for (size_t i = 0; i < p->d.nthreads; i++)
		pid |= p->d.threads[i].pid != SF_NO_ID;
	for (size_t i = 0; i < p->d.nframes; i++) {
		const struct sf_frame *f = &p->d.frames[i];
		file |= f->file != NULL || f->line;
		col |= f->column != 0;
		addr |= f->address != SF_NO_ADDR;
		inl |= (f->flags & SF_FRAME_INLINE) != 0;
		kind |= f->kind != NULL;
	}
	/* label keys in use, but sampler.words (written as record words) */
	for (size_t i = 1; i < p->d.nlabel_sets; i++) {
		const struct sf_label_set *ls = &p->d.label_sets[i];
		for (uint32_t j = 0; j < ls->n; j++) {
			const char *k = ls->labels[j].key;
			size_t kl = strlen(k);
			bool seen = false;
			if (!strcmp(k, "sampler.words"))
				continue;
			for (const char *q = keys; (q = strstr(q, k)); q++)
				if ((q == keys || q[-1] == ' ') &&
				    (q[kl] == ',' || q[kl] == 0))
					seen = true;
			if (!seen && nk + kl + 3 < sizeof(keys))
				nk += (size_t)snprintf(keys + nk,
						       sizeof(keys) - nk,
						       "%s%s", nk ? ", " : "",
						       k);
		}
	}
	struct {
		bool on;
		const char *word;
	} items[] = {
		{ p->d.has_time, "timestamps" },
		{ pid, "process ids" },
		{ file, "source files and lines" },
		{ col, "columns" },
		{ addr, "addresses" },
		{ inl, "inline marks" },
		{ kind, "frame kinds" },
		{ p->d.ntypes > 1, "sample types other than the one counted" },
		{ nk > 0, "sample labels" },
	};
	for (size_t i = 0; i < sizeof(items) / sizeof(items[0]); i++)
		if (items[i].on && n < sizeof(what))
			n += (size_t)snprintf(what + n, sizeof(what) - n,
					      "%s%s", n ? ", " : "",
					      items[i].word);
	if (nk && n < sizeof(what))
		n += (size_t)snprintf(what + n, sizeof(what) - n, " (%s)",
				      keys);
	if (p->d.ntypes > 1 && n < sizeof(what))
		snprintf(what + n, sizeof(what) - n, "; records count '%s'",
			 p->d.types[counted].type);
	if (n)
		sf_warn(ctx, "sampler.dropped", "Sampler output drops %s",
			what);
}

static int sampler_write(const struct sf_profile *p, struct sf_output *out,
			 struct sf_ctx *ctx)
{
	struct wr w = { .p = p, .ctx = ctx };
	size_t nthr = p->d.nthreads, nsamp = p->d.nsamples;
	size_t *order = NULL, *first = NULL;
	uint32_t *bid = NULL;
	uint64_t *reps = NULL;
	unsigned char *rbuf = NULL;
	int rc = 0;
	struct sf_records plan;
	bool rounded = false, bad_words = false;
	uint64_t total = 0;

	/* threads: the profile's, then one for samples without a thread */
	bool orphans = false;
	for (size_t i = 0; i < nsamp; i++)
		if (p->d.samples[i].thread == SF_NO_THREAD)
			orphans = true;
	size_t nblocks = nthr + orphans;
	if (nblocks > 0x10000)
		return sf_error(ctx, SF_ELIMIT, NULL, 0,
				"too many threads for Sampler: %zu (at most "
				"%u)", nblocks, 0x10000u);
	/* refused here, before anything is written, when the weights are
	 * not sample counts and no --period scales them */
	if ((rc = sf_records_plan(p, ctx, "Sampler records", &plan)))
		return rc;
	if (!(bid = sf_calloc(nblocks + 1, sizeof(*bid)))) {
		rc = sf_error_nomem(ctx);
		goto out;
	}
	uint32_t fid0 = block_ids(p, ctx, nblocks, bid);

	order = sf_calloc(nsamp ? nsamp : 1, sizeof(*order));
	first = sf_calloc(nblocks + 1, sizeof(*first));
	reps = sf_calloc(nsamp ? nsamp : 1, sizeof(*reps));
	w.sym_of_frame = sf_calloc(p->d.nframes ? p->d.nframes : 1,
				   sizeof(*w.sym_of_frame));
	uint32_t maxdepth = sf_profile_max_depth(p);
	rbuf = sf_calloc((size_t)maxdepth + 5, 4);
	if (!order || !first || !reps || !w.sym_of_frame || !rbuf) {
		rc = sf_error_nomem(ctx);
		goto out;
	}
	memset(w.sym_of_frame, 0xff, (p->d.nframes ? p->d.nframes : 1) *
					     sizeof(*w.sym_of_frame));

	/* samples grouped by block, in profile order within a block */
	for (size_t i = 0; i < nsamp; i++) {
		sf_thread_idx th = p->d.samples[i].thread;
		first[(th == SF_NO_THREAD ? nthr : th) + 1]++;
	}
	for (size_t b = 0; b < nblocks; b++)
		first[b + 1] += first[b];
	{
		size_t *fill_at = sf_calloc(nblocks + 1, sizeof(*fill_at));
		if (!fill_at) {
			rc = sf_error_nomem(ctx);
			goto out;
		}
		memcpy(fill_at, first, (nblocks + 1) * sizeof(*fill_at));
		for (size_t i = 0; i < nsamp; i++) {
			sf_thread_idx th = p->d.samples[i].thread;
			order[fill_at[th == SF_NO_THREAD ? nthr : th]++] = i;
		}
		free(fill_at);
	}

	/* records per sample, then symbols in order of first appearance */
	for (size_t k = 0; k < nsamp; k++) {
		size_t i = order[k];
		if ((rc = sf_records_whole(p, ctx, &plan, i, 4294967295.0,
					   "a number of Sampler records",
					   &reps[i], &rounded)))
			goto out;
		total += reps[i];
		if (total > UINT32_MAX) {
			rc = sf_error(ctx, SF_ELIMIT, NULL, 0,
				      "more than %lu Sampler records "
				      "would be written",
				      (unsigned long)UINT32_MAX);
			goto out;
		}
		if (!reps[i])
			continue;
		for (sf_stack_id s = p->d.samples[i].stack; s;
		     s = p->d.stacks[s].parent) {
			uint32_t id;
			if ((rc = frame_sym(&w, p->d.stacks[s].frame, &id)))
				goto out;
		}
	}
	if (rounded)
		sf_warn(ctx, "sampler.weight-rounded",
			"weights that are not whole numbers of samples were "
			"rounded to whole Sampler records");

	sf_output_puts(out, MAGIC SYMTAB);
	for (size_t b = 0; b < nblocks; b++) {
		char tn[16], lib[32];
		const char *name = b < nthr ? p->d.threads[b].name : NULL;
		bool fail = false;
		snprintf(tn, sizeof(tn), "Thread_%04X", (unsigned)bid[b]);
		char *own = sanitise(name, &w.sanitised, &fail);
		if (fail) {
			rc = sf_error_nomem(ctx);
			goto out;
		}
		const char *n = own ? own : name ? name : tn;
		if (b < nthr && p->d.threads[b].tid != SF_NO_ID &&
		    p->d.threads[b].tid != (int64_t)bid[b]) {
			snprintf(lib, sizeof(lib), TID_WORD "%" PRId64,
				 p->d.threads[b].tid);
			put_symbol(out, bid[b], 0, n, lib);
		} else {
			put_symbol(out, bid[b], 0, n, n);
		}
		free(own);
	}
	for (size_t s = 0; s < w.nsyms; s++)
		put_symbol(out, fid0 + (uint32_t)s, w.syms[s].aux,
			   w.syms[s].name, w.syms[s].lib);
	if (w.sanitised)
		sf_warn(ctx, "sampler.name-sanitised",
			"names with TAB or LF cannot be written to Sampler: "
			"LF became '/' and TAB a space");
	sf_output_puts(out, "@end\n");

	for (size_t b = 0; b < nblocks; b++) {
		sf_output_printf(out, THREAD_WORD "\t%04X\n", (unsigned)bid[b]);
		for (size_t k = first[b]; k < first[b + 1]; k++) {
			size_t i = order[k];
			const struct sf_sample *sm = &p->d.samples[i];
			uint32_t words[3] = { 1, 0, 1 };
			if ((k & 0xffff) == 0 && sf_interrupted(ctx)) {
				rc = sf_error(ctx, SF_EINTR, NULL, 0,
					      "interrupted");
				goto out;
			}
			if (sm->labels) {
				const char *v = sf_profile_label(p, sm->labels,
							"sampler.words");
				unsigned long a, bb, c;
				char extra;
				if (v && sscanf(v, "%lu %lu %lu%c", &a, &bb,
						&c, &extra) == 3 &&
				    a <= UINT32_MAX && bb <= UINT32_MAX &&
				    c <= UINT32_MAX) {
					words[0] = (uint32_t)a;
					words[1] = (uint32_t)bb;
					words[2] = (uint32_t)c;
				} else if (v) {
					bad_words = true;
				}
			}
			/* the record's bytes once, then as often as the
			 * weight says */
			size_t n = 0;
			unsigned char *q = rbuf;
			*q++ = '\t';
			for (int j = 0; j < 3; j++, q += 4)
				be32_put(q, words[j]);
			q += 4;   /* count, below */
			for (sf_stack_id s = sm->stack; s;
			     s = p->d.stacks[s].parent, n++, q += 4)
				be32_put(q, fid0 + w.sym_of_frame[
						 p->d.stacks[s].frame]);
			be32_put(rbuf + 13, (uint32_t)n);
			*q++ = '\n';
			for (uint64_t rep = 0; rep < reps[i]; rep++)
				sf_output_write(out, rbuf, (size_t)(q - rbuf));
		}
	}
	sf_output_puts(out, "@end\n");
	if (bad_words)
		sf_warn(ctx, "sampler.bad-words-label",
			"a sampler.words label is not three numbers; "
			"'1 0 1' written instead");
	say_dropped(p, ctx, plan.type);
out:
	for (size_t s = 0; s < w.nsyms; s++) {
		free(w.syms[s].own_name);
		free(w.syms[s].own_lib);
	}
	free(w.syms);
	sf_idx_free(&w.idx);
	free(w.sym_of_frame);
	free(order);
	free(first);
	free(bid);
	free(reps);
	free(rbuf);
	return rc;
}

static const char *const sampler_ext[] = { ".trace", NULL };

static const struct sf_option sampler_wopts[] = {
	SF_RECORDS_OPTION,
	{ NULL, NULL, NULL },
};

const struct sf_format sf_format_sampler = {
	.name = "sampler",
	.description = "Apple Sampler/Shark trace (@supersamplerV1.0)",
	.extensions = sampler_ext,
	.probe = sampler_probe,
	.read = sampler_read,
	.write = sampler_write,
	/* weights: whole numbers as repeated records; labels: sampler.words;
	 * modules are kept, and say_dropped() names the files, addresses
	 * and labels the writer drops */
	.caps = SF_CAP_THREADS | SF_CAP_ORDER | SF_CAP_LABELS |
		SF_CAP_WEIGHTS | SF_CAP_LOCATIONS,
	.binary = true,
	.needs_order = true,
	.priority = 5,
	.write_options = sampler_wopts,
};
