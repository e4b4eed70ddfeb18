/*
 * json_fast.c - the native JSON reader's loop: each piece of input goes
 * to yajl (json_events.c handles its events), except the "stacks" and
 * "samples" sections laid out as our own writer lays them out, and the
 * plain frames of the "frames" section (fast_frames), which the fast
 * path below reads itself.
 */
#include "json_read.h"

#include <stdlib.h>
#include <string.h>

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
 * exactly, byte by byte, and hands each element to the same
 * sf_json__elem_field() and sf_json__elem_end() that the yajl callbacks
 * use, so the model cannot differ.
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
/* The mapped input is given back in steps of this many bytes (see
 * piece_done) */
#define GIVE_STEP ((size_t)2 << 20)
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
 * Samples are the bulk, and the generic element loop below costs a call
 * per value and a cache miss per fold: the model's sample the hint names,
 * its weights and its count are each a random access.  So a "samples"
 * section is read FAST_BATCH elements at a time when they are the
 * writer's plainest kind -- every value `null` or an integer of at most
 * 18 digits with no sign (so it cannot overflow) -- and the loop over the
 * batch prefetches ahead of the element it folds: the hint slot of the
 * element AHEAD_SLOT further on, the sample that slot names AHEAD_SAMPLE
 * further on (as fmt_lines.c does).  Each element is then folded exactly
 * as the generic loop would fold it, in the same order, with the same
 * checks and errors: the values are the ones sf_json__elem_field() would
 * have stored, and prefetching only moves memory into the cache.  An
 * element of any other kind (a sign, a fraction, an exponent, a null
 * weight, a cut) ends the batch, and the generic loop takes it.
 * A "stacks" section is read the same way (without hint slots or
 * weights): on a timeline, where nearly every sample is a stack of its
 * own, its [parent, frame] pairs are most of the document, and the
 * generic loop scanned each number twice (num_end, then num_int behind
 * a call per value): 12 % of `sfconv timeline-400k.json --to collapsed`.
 */
#define FAST_BATCH 32
#define AHEAD_SLOT 8
#define AHEAD_SAMPLE 4
/*
 * Most stack nodes of a timeline (nine in ten) continue a chain: the
 * node's parent is the element just before it, which was new, so the
 * model makes it the next new node without a lookup, and a run of them
 * goes to the model at once (sf_profile_stack_chain, at most CHAIN_MAX
 * a call), their map entries too.  Only the other nodes, a chain's
 * head, look up their parent's children, cache misses: the prefetch
 * of those lookups runs AHEAD_HEAD0, AHEAD_HEAD1 and AHEAD_HEAD2 heads
 * ahead (sf_profile_stack_prefetch's stages), not elements.
 */
#define CHAIN_MAX 64
#define AHEAD_HEAD0 12
#define AHEAD_HEAD1 6
#define AHEAD_HEAD2 3

/* The hint slot of sample s (as sample_end() in json_events.c finds it), or
 * NULL when it has none or its values are out of range (its fold will
 * say so). */
static uint32_t *sample_slot(const struct rd *r, const struct fast_sample *s)
{
	if (!r->hint || !(s->okm & 1) || (uint64_t)s->v[0] >= r->smap.n)
		return NULL;
	if (s->nullm & 2)
		return &r->hint[(size_t)s->v[0] * r->hstride];
	if (!(s->okm & 2) || (uint64_t)s->v[1] >= r->thmap.n)
		return NULL;
	return &r->hint[(size_t)s->v[0] * r->hstride + (size_t)s->v[1] + 1];
}

/* Up to FAST_BATCH plain samples or stack nodes from p, each with the
 * separator the writer puts before it: how many. */
static size_t plain_batch(const struct rd *r, const unsigned char *p,
			  const unsigned char *e, size_t maxnum,
			  struct fast_sample *b)
{
	bool samples = r->key == K_SAMPLES;
	size_t k, nw = samples ? r->ntypes : 0;

	for (k = 0; k < FAST_BATCH; k++) {
		if (r->fast_n + k) {
			if (p >= e || *p != ',')
				break;
			p++;
		}
		if (e - p < 2 || p[0] != '\n' || p[1] != '[' ||
		    !(p = plain_elem(p + 2, e, maxnum, nw, &b[k])))
			break;
		b[k].end = p;
		b[k].slot = samples ? sample_slot(r, &b[k]) : NULL;
	}
	return k;
}

/* Prefetch the sample that the hint slot names (its fields, weights and
 * count).  A macro, not a function: GCC finds that a function doing
 * nothing but prefetch has no effect and drops its calls. */
#define AHEAD_SAMPLE_AT(p, slot)                                              \
	do {                                                                  \
		const uint32_t *s_ = (slot);                                  \
		uint32_t id_;                                                 \
		if (s_ && (id_ = *s_) < (p)->d.nsamples) {                    \
			__builtin_prefetch(&(p)->d.samples[id_]);             \
			__builtin_prefetch(                                   \
				&(p)->d.weights[(size_t)id_ * (p)->d.ntypes]); \
			if ((p)->d.counts)                                    \
				__builtin_prefetch(&(p)->d.counts[id_], 1);   \
		}                                                             \
	} while (0)

/* Stage `stage` of the model's prefetch for the push of stack node
 * [parent, frame] (unchecked yet: out of range, nothing). */
static void ahead_push(const struct rd *r, uint64_t parent, uint64_t frame,
		       int stage)
{
	if (parent < r->smap.n && frame < r->fmap.n)
		sf_profile_stack_prefetch(r->p, u32v_at(&r->smap, parent),
					  u32v_at(&r->fmap, frame), stage);
}

/* Fold the element of the fast path's next line, its values in r->v
 * (and r->wf): n values, bit k of okm and nullm as sf_json__elem_field()
 * sets them.  0, or FAST_ERR. */
static int fold_one(struct rd *r, uint32_t n, uint32_t okm, uint32_t nullm)
{
	r->n = n;
	r->okm = okm;
	r->nullm = nullm;
	r->wbad = false;
	r->fast_line++;
	if (!sf_json__elem_end(r))
		return FAST_ERR;
	r->fast_n++;
	return 0;
}

/*
 * The chain at the start of the n [parent, frame] pairs pv, the first
 * being the section's element r->idx: the nodes each under the element
 * just before it (at most CHAIN_MAX), when the element before the first
 * made the newest node.  Folded as fold_one would fold each, in the
 * same order and to the same model and map: how many (0: none, fold
 * the next by itself, which also says what a limit or no memory stops
 * at), or SIZE_MAX when out of memory (r->rc).
 */
static size_t fold_chain(struct rd *r, const uint32_t *pv, size_t n)
{
	sf_frame_id fr[CHAIN_MAX];
	size_t m = 0, idx = r->idx;
	uint32_t id = (uint32_t)r->p->d.nstacks;

	if (u32v_at(&r->smap, idx) + 1 != id)
		return 0;
	for (; m < n && m < CHAIN_MAX && pv[2 * m] == idx + m &&
	       pv[2 * m + 1] < r->fmap.n; m++)
		fr[m] = u32v_at(&r->fmap, pv[2 * m + 1]);
	if (!m || !sf_profile_stack_chain(r->p, r->ctx, fr, m))
		return 0;
	if (!sf_json__u32v_run(r, &r->smap, id, m))
		return SIZE_MAX;
	/* the state fold_one leaves after the last */
	r->n = 2;
	r->okm = 3;
	r->nullm = 0;
	r->wbad = false;
	r->v[0] = pv[2 * m - 2];
	r->v[1] = pv[2 * m - 1];
	r->idx += m;
	r->fast_line += m;
	r->fast_n += m;
	return m;
}

/* The first of the pairs pv[i..n) that is not a chain's continuation
 * (its parent is not the element before it; the pairs start at the
 * section's element base), or n. */
static size_t next_head(const uint32_t *pv, size_t n, size_t base, size_t i)
{
	while (i < n && pv[2 * i] == base + i)
		i++;
	return i;
}

/* The heads of a block, found once by one scan ahead (the pairs come
 * from the other thread's cache: a scan per prefetch stage was a third
 * of the folding) and kept until folded. */
#define HEADS_RING 32

struct heads {
	uint32_t at[HEADS_RING];  /* head k is at[k % HEADS_RING] */
	size_t found, used;       /* heads found, heads folded */
	size_t scan;              /* the scan's next pair */
};

/* Before head h.used is folded: stage 0 for those up to AHEAD_HEAD0
 * further on (found now), then stages 1 and 2 for the one AHEAD_HEAD1
 * and AHEAD_HEAD2 further on. */
static void heads_ahead(const struct rd *r, const uint32_t *pv, size_t n,
			size_t base, struct heads *h)
{
	while (h->found <= h->used + AHEAD_HEAD0 &&
	       (h->scan = next_head(pv, n, base, h->scan)) < n) {
		const uint32_t *e = &pv[2 * h->scan];
		h->at[h->found++ % HEADS_RING] = (uint32_t)h->scan++;
		ahead_push(r, e[0], e[1], 0);
	}
	size_t k1 = h->used + AHEAD_HEAD1, k2 = h->used + AHEAD_HEAD2;
	if (k1 < h->found)
		ahead_push(r, pv[2 * h->at[k1 % HEADS_RING]],
			   pv[2 * h->at[k1 % HEADS_RING] + 1], 1);
	if (k2 < h->found)
		ahead_push(r, pv[2 * h->at[k2 % HEADS_RING]],
			   pv[2 * h->at[k2 % HEADS_RING] + 1], 2);
}

/* Fold the n [parent, frame] pairs pv (a block the thread reading ahead
 * parsed, json_ahead.c, or plain elements of a batch): chains at once
 * (fold_chain), the rest one by one, prefetching what the model's
 * lookup of a head's parent reads.  0, or FAST_ERR. */
static int fold_pairs(struct rd *r, const uint32_t *pv, size_t n)
{
	size_t base = r->idx;
	struct heads h = { .found = 0 };

	for (size_t i = 0; i < n;) {
		size_t m = fold_chain(r, pv + 2 * i, n - i);
		if (m == SIZE_MAX)
			return FAST_ERR;
		if (m) {
			i += m;
			continue;
		}
		/* a chain whose head repeated a node is looked up too,
		 * unfetched */
		if (pv[2 * i] != base + i) {
			heads_ahead(r, pv, n, base, &h);
			h.used++;
		}
		r->v[0] = pv[2 * i];
		r->v[1] = pv[2 * i + 1];
		if (fold_one(r, 2, 3, 0))
			return FAST_ERR;
		i++;
	}
	return 0;
}

/* Fold the batch b[0..nb) in order, as the generic loop would: 0, or
 * FAST_ERR when an element is invalid (r->rc).  Samples: prefetch their
 * hint slots and samples; stack nodes that are plain pairs go to
 * fold_pairs. */
static int fold_batch(struct rd *r, const unsigned char *base,
		      struct fast_sample *b, size_t nb, size_t *used)
{
	bool stacks = r->key == K_STACKS;

	if (!stacks) {
		for (size_t i = 0; i < nb && i < AHEAD_SLOT; i++)
			if (b[i].slot)
				__builtin_prefetch(b[i].slot);
		for (size_t i = 0; i < nb && i < AHEAD_SAMPLE; i++)
			AHEAD_SAMPLE_AT(r->p, b[i].slot);
	}
	for (size_t i = 0; i < nb; i++) {
		const struct fast_sample *s = &b[i];
		if (stacks) {
			uint32_t pv[2 * FAST_BATCH];
			size_t k = 0;
			for (; i + k < nb && s[k].n == 2 && s[k].okm == 3 &&
			       s[k].v[0] <= UINT32_MAX &&
			       s[k].v[1] <= UINT32_MAX; k++) {
				pv[2 * k] = (uint32_t)s[k].v[0];
				pv[2 * k + 1] = (uint32_t)s[k].v[1];
			}
			if (k) {
				if (fold_pairs(r, pv, k))
					return FAST_ERR;
				i += k - 1;
				*used = (size_t)(s[k - 1].end - base);
				continue;
			}
		} else {
			if (i + AHEAD_SLOT < nb && b[i + AHEAD_SLOT].slot)
				__builtin_prefetch(b[i + AHEAD_SLOT].slot);
			if (i + AHEAD_SAMPLE < nb)
				AHEAD_SAMPLE_AT(r->p, b[i + AHEAD_SAMPLE].slot);
		}
		memcpy(r->v, s->v, sizeof(r->v));
		if (r->key == K_SAMPLES && r->ntypes)
			memcpy(r->wf, s->wf, r->ntypes * sizeof(*r->wf));
		if (fold_one(r, s->n, s->okm, s->nullm))
			return FAST_ERR;
		*used = (size_t)(s->end - base);
	}
	return 0;
}

/* Fold the n samples sv of a block the thread reading ahead parsed
 * (json_ahead.c), FAST_BATCH at a time as plain_batch's batches: 0, or
 * FAST_ERR. */
static int fold_samples(struct rd *r, const unsigned char *base,
			struct fast_sample *sv, size_t n, size_t *used)
{
	for (size_t i = 0; i < n; i += FAST_BATCH) {
		size_t nb = n - i < FAST_BATCH ? n - i : FAST_BATCH;
		for (size_t k = i; k < i + nb; k++)
			sv[k].slot = sample_slot(r, &sv[k]);
		if (fold_batch(r, base, sv + i, nb, used))
			return FAST_ERR;
	}
	return 0;
}

/* The longest number the fast path reads itself. */
static size_t fast_maxnum(const struct rd *r)
{
	return r->ctx->limits.max_name < FAST_NUM ?
		       (size_t)r->ctx->limits.max_name : FAST_NUM;
}

/* The separator and the line the writer puts before an element opened
 * by `open`: 1 with *pp past them, or 0 with *st FAST_MORE (cut by the
 * end of the piece) or FAST_STOP (not the writer's layout). */
static int elem_open(const struct rd *r, const unsigned char **pp,
		     const unsigned char *e, unsigned char open,
		     enum fast_st *st)
{
	const unsigned char *p = *pp;

	*st = FAST_MORE;
	if (r->fast_n) {
		if (p >= e)
			return 0;
		if (*p++ != ',')
			goto stop;
	}
	if (e - p < 2)
		return 0;
	if (p[0] != '\n' || p[1] != open)
		goto stop;
	*pp = p + 2;
	return 1;
stop:
	*st = FAST_STOP;
	return 0;
}

/*
 * The frames section of the layout sftools writes: "\n{" "\"name\":\"...\""
 * ... "}" elements.  yajl's events and the member lookup per value were
 * most of the reader's 60 ms in the 50,000 frames of a timeline, before
 * its stacks.  Only the common shape is read here: members name, module,
 * file, kind and address, each a string with no escape and no control
 * byte (yajl would hand over the same bytes; it does not check UTF-8),
 * an address "0x" and 1 to 16 hex digits that is not SF_NO_ADDR.  Any
 * other element (another member, a number, an escape, a bad address)
 * is left to yajl whole, with the rest of the section, so every message
 * and every frame stays as yajl's path makes them.
 */
enum { FR_NAME, FR_MODULE, FR_FILE, FR_KIND, FR_ADDRESS, FR_N };

/* The member whose name is s[0..n), or FR_N. */
static int frame_member(const unsigned char *s, size_t n)
{
	static const char *const names[FR_N] = {
		"name", "module", "file", "kind", "address"
	};

	for (int i = 0; i < FR_N; i++)
		if (strlen(names[i]) == n && !memcmp(names[i], s, n))
			return i;
	return FR_N;
}

/* The string after its '"' at p: its closing '"', or e (cut by the end
 * of the piece), or NULL (an escape or a control byte: not plain).
 * Eight bytes at a time: names are 10 to 100 bytes. */
static const unsigned char *plain_str(const unsigned char *p,
				      const unsigned char *e)
{
	for (; e - p >= 8; p += 8) {
		uint64_t m = sf_json__special8(p);
		if (m) {
			p += __builtin_ctzll(m) >> 3;
			return *p == '"' ? p : NULL;
		}
	}
	for (; p < e; p++) {
		if (*p == '"')
			return p;
		if (*p == '\\' || *p < 0x20)
			return NULL;
	}
	return e;
}

/* "0x" and 1 to 16 hex digits, as address_of's strtoull would take
 * them: 1 and the value, or 0. */
static int plain_addr(const unsigned char *s, size_t n, uint64_t *out)
{
	uint64_t v = 0;

	if (n < 3 || n > 18 || s[0] != '0' || s[1] != 'x')
		return 0;
	for (size_t i = 2; i < n; i++) {
		unsigned c = s[i], d;
		if (c - '0' < 10)
			d = c - '0';
		else if ((c | 0x20) - 'a' < 6)
			d = (c | 0x20) - 'a' + 10;
		else
			return 0;
		v = v << 4 | d;
	}
	*out = v;
	return v != SF_NO_ADDR;
}

/* Read whole frames from b[0..n), as fast_section reads stack nodes. */
static enum fast_st fast_frames(struct rd *r, const unsigned char *b,
				size_t n, size_t *used)
{
	const unsigned char *p = b, *e = b + n;

	*used = 0;
	for (;;) {
		const unsigned char *v[FR_N] = { NULL };
		size_t vn[FR_N] = { 0 };
		uint64_t addr = 0;
		enum fast_st st;

		if (!elem_open(r, &p, e, '{', &st))
			return st;
		for (;;) {
			const unsigned char *k, *q;
			int m;
			if (p >= e)
				return FAST_MORE;
			if (*p++ != '"')
				return FAST_STOP;
			if (!(q = plain_str(p, e)))
				return FAST_STOP;
			if (e - q < 3)
				return FAST_MORE;
			if ((m = frame_member(p, (size_t)(q - p))) == FR_N ||
			    q[1] != ':' || q[2] != '"')
				return FAST_STOP;
			k = q + 3;
			if (!(q = plain_str(k, e)))
				return FAST_STOP;
			if (e - q < 2)
				return FAST_MORE;
			v[m] = k;
			vn[m] = (size_t)(q - k);
			p = q + 2;
			if (q[1] == '}')
				break;
			if (q[1] != ',')
				return FAST_STOP;
		}
		if (v[FR_ADDRESS] &&
		    !plain_addr(v[FR_ADDRESS], vn[FR_ADDRESS], &addr))
			return FAST_STOP;
		/* what elem_begin and elem_member would have set */
		memset(r->s, 0, sizeof(r->s));
		memset(r->iv, 0, sizeof(r->iv));
		r->name_nul = r->inl = false;
		r->addr = v[FR_ADDRESS] ? 1 : 0;
		r->addr_v = addr;
		for (int i = FR_NAME; i <= FR_KIND; i++)
			if (v[i] && !(r->s[i] = sf_profile_strn(
					      r->p, r->ctx, (const char *)v[i],
					      vn[i]))) {
				r->rc = sf_error_nomem(r->ctx);
				return FAST_ERR;
			}
		r->fast_line++;
		if (!sf_json__elem_end(r))
			return FAST_ERR;
		r->fast_n++;
		*used = (size_t)(p - b);
	}
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
	size_t maxnum = fast_maxnum(r);

	if (r->key == K_FRAMES)
		return fast_frames(r, b, n, used);
	*used = 0;
	for (;;) {
		/* the end of what to parse before the thread's next block */
		const unsigned char *lim = e;
		if (r->ahead) {
			size_t at = (size_t)(p - r->map), np, end;
			size_t s = sf_json__ahead_next(r->ahead, at);
			if (s == at) {
				const uint32_t *pv = NULL;
				struct fast_sample *sv = NULL;
				if (r->key == K_SAMPLES)
					sv = sf_json__ahead_samples(
						r->ahead, &np, &end);
				else
					pv = sf_json__ahead_pairs(r->ahead,
								  &np, &end);
				/* whole in the next piece */
				if (r->map + end > e)
					return FAST_MORE;
				if (sv ? fold_samples(r, b, sv, np, used) :
					 fold_pairs(r, pv, np))
					return FAST_ERR;
				sf_json__ahead_done(r->ahead);
				p = r->map + end;
				*used = (size_t)(p - b);
				continue;
			}
			if (s != SIZE_MAX && r->map + s < e)
				lim = r->map + s;
		}
		if ((r->key == K_SAMPLES && r->ntypes <= FAST_TYPES) ||
		    r->key == K_STACKS) {
			struct fast_sample batch[FAST_BATCH];
			size_t nb = plain_batch(r, p, lim, maxnum, batch);
			if (nb) {
				if (fold_batch(r, b, batch, nb, used))
					return FAST_ERR;
				p = batch[nb - 1].end;
				continue;
			}
		}
		enum fast_st st;
		if (!elem_open(r, &p, e, '[', &st))
			return st;
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
				sf_json__elem_field(r, V_NULL, NULL, 0);
				p += 4;
			} else {
				q = num_end(p, e);
				if (!q)
					return e - p <= FAST_NUM ?
						       FAST_MORE : FAST_STOP;
				if ((size_t)(q - p) > maxnum)
					return FAST_STOP;
				sf_json__elem_field(r, V_NUM, (const char *)p,
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
		if (!sf_json__elem_end(r))
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
		return sf_json__parse_error(r, st, false);
	if (r->capturing &&
	    !sf_json__def_append(r, &r->def[r->capturing], b + r->cap_from,
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
	       (r->key == K_SAMPLES || r->key == K_STACKS ||
		r->key == K_FRAMES);
}

/* Give the section back to yajl at the fast path's last boundary, which
 * is b[0] (n bytes left). */
static int fast_stop(struct rd *r, const unsigned char *b, size_t n)
{
	/* frames of other shapes are common (lines, inline): not a
	 * failure of the hook */
	if (r->strict && r->key != K_FRAMES && (!n || b[0] != ']')) {
		sf_json__fail(r, sf_json__key_names[r->key], false,
			      "SF_JSON_STRICT: not the writer's layout");
		return r->rc;
	}
	r->fast = false;
	r->lnum = r->fast_line;
	sf_json__ahead_stop(r->ahead);
	r->ahead = NULL;
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
	static const char sm[] = "\n\"samples\":[", st[] = "\n\"stacks\":[",
			  fr[] = "\n\"frames\":[";
	const unsigned char *p = b, *e = b + n;

	if (r->slow || (r->done[K_SAMPLES] && r->done[K_STACKS]))
		return NULL;
	while ((p = memchr(p, '\n', (size_t)(e - p)))) {
		if (!r->done[K_FRAMES] && (size_t)(e - p) >= sizeof(fr) - 1 &&
		    !memcmp(p, fr, sizeof(fr) - 1))
			return p + sizeof(fr) - 1;
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
				if ((r->key == K_STACKS ||
				     (r->key == K_SAMPLES &&
				      r->ntypes <= FAST_TYPES)) &&
				    r->map && !r->ahead && sf_jobs(r->ctx) > 1)
					sf_json__ahead_start(
						&r->ahead, r->p, r->map,
						r->map_size,
						(size_t)(buf + pos - r->map),
						fast_maxnum(r),
						r->key == K_SAMPLES, r->ntypes,
						&r->smap);
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
	/* The input ends just after an element the fast path read, with
	 * nothing left over to stop it above: give the section back to
	 * yajl all the same, so that r->lnum counts the elements' lines and
	 * "ends early" names the last line, as without the fast path (it
	 * named the line the section began on). */
	if (eof && r->fast && pos == avail &&
	    (rc = fast_stop(r, buf + pos, 0)))
		return rc;
	*taken = pos;
	return 0;
}

/*
 * The pieces of input: read into a buffer, or, from a regular file, taken
 * in place from the file mapped whole (sf_input_map).  A timeline
 * document is tens of megabytes; reading copied it twice (the kernel's
 * page cache into the input's buffer, then into ours), 7 % of loading
 * one.  The pieces are the same size either way, each starts with what
 * the last one left, and parse_piece() reads them alike.
 */
struct pieces {
	struct sf_input *in;
	const unsigned char *map;  /* the file, or NULL: read into buf */
	size_t size, off;          /* its size; where the next piece starts */
	size_t kept;               /* the mapping from here on is kept */
	unsigned char *buf;
	size_t carry;              /* bytes of the last piece not taken */
};

/* The next piece, at *b: the carry and then *n new bytes (0 at the end);
 * 0 or a negative code. */
static int piece_next(struct pieces *pc, struct sf_ctx *ctx,
		      const unsigned char **b, size_t *n)
{
	if (pc->map) {
		size_t left = pc->size - pc->off - pc->carry;
		*b = pc->map + pc->off;
		*n = left < JSON_CHUNK ? left : JSON_CHUNK;
		return 0;
	}
	long got = sf_input_read_some(pc->in, ctx, pc->buf + pc->carry,
				      JSON_CHUNK);
	if (got < 0)
		return (int)got;
	*b = pc->buf;
	*n = (size_t)got;
	return 0;
}

/* The piece's first `taken` bytes are parsed; keep the rest.  The
 * thread reading ahead, if any, may still read the map past them. */
static void piece_done(struct pieces *pc, struct sf_json_ahead *a, size_t n,
		       size_t taken)
{
	pc->carry = pc->carry + n - taken;
	if (pc->map) {
		pc->off += taken;
		/* what is parsed is not read again: resident memory stays
		 * bounded, as when reading.  Given back GIVE_STEP at a time,
		 * not a piece at a time: each give-back (its pages dropped,
		 * io.c) while the other threads run stops them all to flush
		 * their TLBs */
		if (pc->off - pc->kept >= GIVE_STEP) {
			size_t to = sf_json__ahead_give(a, pc->off);
			if (to > pc->kept) {
				sf_input_unmap_part(pc->map, pc->size,
						    pc->kept, to);
				pc->kept = to;
			}
		}
	} else
		memmove(pc->buf, pc->buf + taken, pc->carry);
}

int sf_json__read(struct sf_profile *p, struct sf_input *in,
		  struct sf_ctx *ctx)
{
	struct jscan scan = { 0 };
	struct rd r = { 0 };
	struct pieces pc = { .in = in };
	const char *slow = getenv("SF_JSON_SLOW");
	const char *strict = getenv("SF_JSON_STRICT");
	uint64_t fsize;
	size_t taken = 0;
	yajl_status st;
	int rc = 0;

	r.p = p;
	r.ctx = ctx;
	r.name = sf_input_name(in);
	r.line0 = r.lnum = 1;
	r.slow = slow && *slow && strcmp(slow, "0");
	r.strict = strict && *strict && strcmp(strict, "0");
	r.first_input = !p->d.nsamples;
	/* a file over --max-decompressed is read, so that the scan below
	 * stops it where it crosses the limit, with that line */
	if (sf_input_file_size(in, &fsize) &&
	    fsize <= ctx->limits.max_decompressed &&
	    sf_input_map(in, ctx, (size_t)fsize, &pc.map, &pc.size) != 1)
		pc.map = NULL;
	r.map = pc.map;
	r.map_size = pc.size;
	if ((!pc.map && !(pc.buf = sf_malloc(JSON_CHUNK + FAST_CARRY + 16))) ||
	    !(r.h = sf_json__parser(&r))) {
		sf_input_unmap_part(pc.map, pc.size, 0, pc.size);
		free(pc.buf);
		return sf_error_nomem(ctx);
	}
	for (;;) {
		const unsigned char *b = NULL;
		size_t n = 0;
		if (sf_interrupted(ctx)) {
			rc = sf_error(ctx, SF_EINTR, NULL, 0, "interrupted");
			goto out;
		}
		if ((rc = piece_next(&pc, ctx, &b, &n)))
			goto out;
		if (n > 0) {
			if ((rc = sf_json__scan(&scan, b + pc.carry, n, in,
						ctx,
						r.lnum + sf_json__count_nl(
								 b, pc.carry))))
				goto out;
			r.last_nl = b[pc.carry + n - 1] == '\n';
		}
		if ((rc = parse_piece(&r, b, pc.carry + n, n == 0, &taken)))
			goto out;
		piece_done(&pc, r.ahead, n, taken);
		if (n == 0)
			break;
	}
	r.chunk = NULL;
	r.line0 = r.lnum;
	st = yajl_complete_parse(r.h);
	if (st != yajl_status_ok) {
		rc = sf_json__parse_error(&r, st, true);
		goto out;
	}
	if (r.strict && ((r.seen[K_STACKS] && !r.took[K_STACKS]) ||
			 (r.seen[K_SAMPLES] && !r.took[K_SAMPLES]))) {
		rc = sf_json__end_fail(&r, "", "SF_JSON_STRICT: a section "
				       "was not read by the fast path");
		goto out;
	}
	rc = sf_json__finish(&r);
out:
	sf_json__ahead_stop(r.ahead);
	yajl_free(r.h);
	sf_json__rd_free(&r);
	sf_input_unmap_part(pc.map, pc.size, pc.kept, pc.size);
	free(pc.buf);
	return rc;
}
