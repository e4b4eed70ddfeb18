/*
 * perf_lines.c - the line cache of the `perf script` reader: the text of
 * a frame line -> the frames it makes, parsed once (perf_script.h).
 */
#include "perf_script.h"

#include <stdlib.h>
#include <string.h>

/* Make the frames of one stack line into st->lc.fids (appended, leaf
 * first); returns 0 and the count. */
static int frames_of_line(struct perf_state *st, const struct stack_line *sl,
			  uint32_t *count)
{
	struct sf_ctx *ctx = st->ctx;
	struct line_cache *lc = &st->lc;
	const char *raw = sl->func;
	size_t rn = sl->func_len;
	const char *mod = sl->mod;
	size_t mn = sl->mod_len;
	int rc;

	/* strip "+0x<hex>" symbol offsets */
	for (size_t i = rn; i >= 3; i--) {
		if (raw[i - 3] != '+' || raw[i - 2] != '0' || raw[i - 1] != 'x')
			continue;
		size_t k = i;
		bool ok = k < rn;
		for (; k < rn; k++) {
			char c = raw[k];
			if (!(is_digit(c) || (c >= 'a' && c <= 'f') ||
			      (st->o.inferno && c >= 'A' && c <= 'F'))) {
				ok = false;
				break;
			}
		}
		if (ok)
			rn = i - 3;
		break;
	}
	*count = 0;
	if (rn && raw[0] == '(')
		return 0;   /* a process name in the stack: skipped */
	if (st->o.inferno) {
		st->tmp.len = 0;
		if (!sf_fix_rust_symbol(&st->tmp, raw, rn))
			return sf_error_nomem(ctx);
		raw = st->tmp.s ? st->tmp.s : "";
		rn = st->tmp.len;
	}
	/* split on "->": later parts are inlined into the earlier ones */
	size_t nparts = 0;
	const char *parts[64];
	size_t plen[64];
	const char *q = raw, *end = raw + rn;
	for (;;) {
		const char *a = q;
		while (a + 1 < end && !(a[0] == '-' && a[1] == '>'))
			a++;
		if (a + 1 >= end)
			a = end;
		if (nparts < 64) {
			parts[nparts] = q;
			plen[nparts] = (size_t)(a - q);
			nparts++;
		}
		if (a == end)
			break;
		q = a + 2;
	}
	/* perl's split drops trailing empty fields */
	if (!st->o.inferno)
		while (nparts > 1 && !plen[nparts - 1])
			nparts--;
	bool kernel = st->o.inferno ? sf_perf__inferno_is_kernel(mod, mn) :
				      sf_perf__perl_is_kernel(mod, mn);
	bool jit = st->o.inferno ? sf_perf__inferno_is_jit(mod, mn) :
				   sf_perf__is_perf_map(mod, mn);
	uint64_t addr = SF_NO_ADDR;
	if (sl->pc_len && sl->pc_len <= 16) {
		uint64_t v = 0;
		size_t k;
		for (k = 0; k < sl->pc_len; k++) {
			char c = sl->pc[k];
			int d = is_digit(c) ? c - '0' :
				(c >= 'a' && c <= 'f') ? c - 'a' + 10 :
				(c >= 'A' && c <= 'F') ? c - 'A' + 10 : -1;
			if (d < 0)
				break;
			v = v * 16 + (uint64_t)d;
		}
		if (k == sl->pc_len)
			addr = v;
	}
	struct sf_sbuf *b = &st->name;
	sf_frame_id ids[64];
	for (size_t i = 0; i < nparts; i++) {
		const char *f = parts[i];
		size_t fl = plen[i];
		b->len = 0;
		if (!sf_sbuf_reserve(b, fl + mn + sl->pc_len + 16))
			return sf_error_nomem(ctx);
		if (fl == 9 && !memcmp(f, "[unknown]", 9) &&
		    !(st->o.inferno && mn == 9 &&
		      !memcmp(mod, "[unknown]", 9) && !st->o.addrs)) {
			const char *base;
			size_t bl;
			if (mn == 9 && !memcmp(mod, "[unknown]", 9)) {
				base = "unknown";
				bl = 7;
			} else {
				const char *sl2 = mod + mn;
				while (sl2 > mod && sl2[-1] != '/')
					sl2--;
				base = sl2;
				bl = (size_t)(mod + mn - sl2);
			}
			sf_sbuf_add(b, "[", 1);
			sf_sbuf_add(b, base, bl);
			if (st->o.addrs) {
				sf_sbuf_add(b, " <", 2);
				sf_sbuf_add(b, sl->pc, sl->pc_len);
				sf_sbuf_add(b, ">", 1);
			}
			sf_sbuf_add(b, "]", 1);
		} else {
			sf_sbuf_add(b, f, fl);
		}
		if (st->o.inferno)
			sf_perf__tidy_inferno(b, 0);
		else
			sf_perf__tidy_perl(b, 0);
		if (st->java && memchr(b->s, '/', b->len) && b->len &&
		    b->s[0] == 'L') {
			memmove(b->s, b->s + 1, b->len - 1);
			b->len--;
			b->s[b->len] = 0;
		}
		if (i > 0) {
			if (st->o.inferno || !mem_has(b->s, b->len, "_[i]"))
				sf_sbuf_add(b, "_[i]", 4);
		} else if (st->o.kernel && kernel) {
			sf_sbuf_add(b, "_[k]", 4);
		} else if (st->o.jit && jit) {
			if (st->o.inferno || !mem_has(b->s, b->len, "_[j]"))
				sf_sbuf_add(b, "_[j]", 4);
		}
		struct sf_frame fr;
		sf_frame_init(&fr);
		fr.name = b->s;
		/* perf script --inline prints inlined callees as
		 * "ip name (inlined)" */
		bool inlined_dso = mn == 7 && !memcmp(mod, "inlined", 7);
		if (inlined_dso)
			fr.flags |= SF_FRAME_INLINE;
		if (!(mn == 9 && !memcmp(mod, "[unknown]", 9)) && mn &&
		    !inlined_dso) {
			/* not st->tmp: the parts may point into it */
			st->modbuf.len = 0;
			if (!sf_sbuf_add(&st->modbuf, mod, mn))
				return sf_error_nomem(ctx);
			fr.module = st->modbuf.s;
		}
		fr.address = addr;
		fr.kind = kernel ? st->k_kernel : jit ? st->k_jit : NULL;
		if (i > 0)
			fr.flags |= SF_FRAME_INLINE;
		if ((rc = sf_profile_frame(st->p, ctx, &fr, &ids[i])))
			return rc;
	}
	/* leaf first: the last inlined part is the innermost */
	if (lc->nfids + nparts > lc->cap_fids) {
		size_t ncap = lc->cap_fids ? lc->cap_fids * 2 : 1024;
		while (ncap < lc->nfids + nparts)
			ncap *= 2;
		sf_frame_id *nf = sf_reallocarray(lc->fids, ncap, sizeof(*nf));
		if (!nf)
			return sf_error_nomem(ctx);
		lc->fids = nf;
		lc->cap_fids = ncap;
	}
	for (size_t i = 0; i < nparts; i++)
		lc->fids[lc->nfids++] = ids[nparts - 1 - i];
	*count = (uint32_t)nparts;
	return 0;
}

/* Room in st->frames for `more` frames and the root frame. */
int sf_perf__frames_room(struct perf_state *st, size_t more)
{
	if (st->nframes + more + 1 <= st->cap_frames)
		return 0;
	size_t ncap = st->cap_frames ? st->cap_frames * 2 : 256;
	while (ncap < st->nframes + more + 1)
		ncap *= 2;
	sf_frame_id *nf = sf_reallocarray(st->frames, ncap, sizeof(*nf));
	if (!nf)
		return sf_error_nomem(st->ctx);
	st->frames = nf;
	st->cap_frames = ncap;
	return 0;
}

/* Once the line cache holds PERF_LINE_CACHE_MAX bytes of text, new lines
 * are parsed each time instead (memory stays bounded on inputs where
 * almost every line is new). */
static int uncached_line(struct perf_state *st, const struct stack_line *sl)
{
	struct line_cache *lc = &st->lc;
	size_t first = lc->nfids;
	uint32_t n;
	int rc;

	if ((rc = frames_of_line(st, sl, &n)) ||
	    (rc = sf_perf__frames_room(st, n)))
		return rc;
	if (n)
		memcpy(st->frames + st->nframes, lc->fids + first,
		       n * sizeof(sf_frame_id));
	st->nframes += n;
	lc->nfids = first;
	return 0;
}

/* The cache key's hash: the text's, told apart by the java flag. */
uint64_t sf_perf__key_hash(const struct line_key *key)
{
	uint64_t h = sf_hash(key->s, key->n) ^
		     (key->java ? 0x9e3779b97f4a7c15ull : 0);
	return h ? h : 1;
}

/* Append the frames a cache entry stands for to the current event. */
int sf_perf__append_cached(struct perf_state *st, const struct line_cache *c,
			   const struct line_ent *e)
{
	int rc;

	if ((rc = sf_perf__frames_room(st, e->n)))
		return rc;
	if (e->n)
		memcpy(st->frames + st->nframes, c->fids + e->first,
		       e->n * sizeof(sf_frame_id));
	st->nframes += e->n;
	return 0;
}

bool sf_perf__line_eq(const void *c, uint32_t id, const void *k)
{
	const struct line_cache *lc = c;
	const struct line_key *key = k;
	const struct line_ent *e = &lc->ents[id];

	return e->len == key->n && e->java == key->java &&
	       !memcmp(lc->text + e->off, key->s, key->n);
}

/* Append the frames of a stack line to the current event. */
int sf_perf__on_stack_line(struct perf_state *st, const char *l, size_t n)
{
	struct line_cache *lc = &st->lc;
	struct sf_ctx *ctx = st->ctx;
	size_t i = 0;
	uint32_t id;
	int rc;

	while (i < n && is_space(l[i]))
		i++;
	struct line_key key = { l + i, n - i, st->java };
	uint64_t h = sf_perf__key_hash(&key);
	if (!sf_idx_find(&lc->idx, h, sf_perf__line_eq, lc, &key, &id)) {
		struct stack_line sl;
		/* a line seen before was checked then */
		if (memchr(l, 0, n))
			return sf_error(ctx, SF_EINPUT, sf_input_name(st->in),
					st->cur_line,
					"NUL byte: not perf script text");
		bool ok = st->o.inferno ?
			  sf_perf__parse_stack_line_inferno(l, n, &sl) :
			  sf_perf__parse_stack_line(l, n, &sl);
		if (!ok) {
			st->warned = true;
			sf_warn(ctx, "perf.unrecognized-line",
				"%s:%llu: skipped a line that is not a frame "
				"('ip symbol (dso)')", sf_input_name(st->in),
				(unsigned long long)st->cur_line);
			return 0;
		}
		if (lc->text_len + key.n > PERF_LINE_CACHE_MAX)
			return uncached_line(st, &sl);
		if (lc->nents == lc->cap_ents) {
			size_t ncap = lc->cap_ents ? lc->cap_ents * 2 : 1024;
			struct line_ent *ne = sf_reallocarray(lc->ents, ncap,
							      sizeof(*ne));
			if (!ne)
				return sf_error_nomem(ctx);
			lc->ents = ne;
			lc->cap_ents = ncap;
		}
		if (sf_big_grow(&lc->text, &lc->text_cap,
				lc->text_len + key.n))
			return sf_error_nomem(ctx);
		struct line_ent *e = &lc->ents[lc->nents];
		e->first = (uint32_t)lc->nfids;
		if ((rc = frames_of_line(st, &sl, &e->n)))
			return rc;
		if (key.n)
			memcpy(lc->text + lc->text_len, key.s, key.n);
		e->off = lc->text_len;
		e->len = (uint32_t)key.n;
		e->java = st->java;
		lc->text_len += key.n;
		id = (uint32_t)lc->nents;
		if (!sf_idx_insert(&lc->idx, h, id))
			return sf_error_nomem(ctx);
		lc->nents++;
	}
	/* lines come leaf first; a line's own frames are stored leaf first */
	return sf_perf__append_cached(st, lc, &lc->ents[id]);
}

