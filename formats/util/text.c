/* text.c - shared pieces of the text formats. */
#include "text.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

bool sf_parse_weight(const char *s, size_t n, double *out)
{
	char buf[64];
	char *end;
	uint64_t v = 0;
	size_t i;

	if (!n || n >= sizeof(buf))
		return false;
	/* fast path: plain digits */
	for (i = 0; i < n && s[i] >= '0' && s[i] <= '9' && i < 18; i++)
		v = v * 10 + (uint64_t)(s[i] - '0');
	if (i == n) {
		*out = (double)v;
		return true;
	}
	if (!((s[0] >= '0' && s[0] <= '9') || s[0] == '.'))
		return false;
	memcpy(buf, s, n);
	buf[n] = 0;
	errno = 0;
	double d = strtod(buf, &end);
	if (end != buf + n || errno == ERANGE || !isfinite(d) || d < 0)
		return false;
	*out = d;
	return true;
}

bool sf_parse_i64(const char *s, size_t n, int64_t *out)
{
	char buf[32];
	char *end;

	if (!n || n >= sizeof(buf))
		return false;
	if (n <= 18) {
		/* plain digits (every id of a perf event line): no copy and
		 * no strtoll; 18 digits cannot overflow */
		int64_t v = 0;
		size_t i = 0;
		while (i < n && s[i] >= '0' && s[i] <= '9')
			v = v * 10 + (s[i++] - '0');
		if (i == n) {
			*out = v;
			return true;
		}
	}
	memcpy(buf, s, n);
	buf[n] = 0;
	if (!((buf[0] >= '0' && buf[0] <= '9') || buf[0] == '-'))
		return false;
	errno = 0;
	long long v = strtoll(buf, &end, 10);
	if (end != buf + n || errno)
		return false;
	*out = v;
	return true;
}

void sf_stack_cache_free(struct sf_stack_cache *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->texts[i]);
	free(c->texts);
	free(c->lens);
	free(c->ids);
	sf_idx_free(&c->idx);
	memset(c, 0, sizeof(*c));
}

struct textkey {
	const char *s;
	size_t len;
};

static bool text_eq(const void *c, uint32_t id, const void *k)
{
	const struct sf_stack_cache *cache = c;
	const struct textkey *key = k;

	return cache->lens[id] == key->len &&
	       !memcmp(cache->texts[id], key->s, key->len);
}

int sf_stack_from_text(struct sf_profile *p, struct sf_ctx *ctx,
		       struct sf_stack_cache *cache, const char *text,
		       size_t len, sf_stack_id *out)
{
	struct textkey key = { text, len };
	uint64_t h = 0;
	uint32_t id;
	int rc;

	if (!len) {
		*out = SF_STACK_EMPTY;
		return 0;
	}
	if (cache && !cache->off) {
		h = sf_hash(text, len);
		if (sf_idx_find(&cache->idx, h, text_eq, cache, &key, &id)) {
			cache->hits++;
			*out = cache->ids[id];
			return 0;
		}
	}
	sf_stack_id s = SF_STACK_EMPTY;
	const char *q = text, *end = text + len;
	for (;;) {
		const char *semi = memchr(q, ';', (size_t)(end - q));
		const char *fe = semi ? semi : end;
		sf_frame_id f;
		if ((rc = sf_profile_frame_named(p, ctx, q, (size_t)(fe - q),
						 NULL, &f)) ||
		    (rc = sf_profile_stack_push(p, ctx, s, f, &s)))
			return rc;
		if (!semi)
			break;
		q = semi + 1;
	}
	if (cache && !cache->off && cache->n == cache->cap &&
	    cache->n >= 65536 && cache->hits < cache->n) {
		sf_stack_cache_free(cache);
		cache->off = true;
	}
	if (cache && !cache->off) {
		if (cache->n == cache->cap) {
			size_t ncap = cache->cap ? cache->cap * 2 : 256;
			char **t = sf_reallocarray(cache->texts, ncap,
						   sizeof(*t));
			if (t)
				cache->texts = t;
			uint32_t *l = sf_reallocarray(cache->lens, ncap,
						      sizeof(*l));
			if (l)
				cache->lens = l;
			sf_stack_id *ids = sf_reallocarray(cache->ids, ncap,
							   sizeof(*ids));
			if (ids)
				cache->ids = ids;
			if (!t || !l || !ids)
				return sf_error_nomem(ctx);
			cache->cap = ncap;
		}
		if (len <= UINT32_MAX) {
			char *copy = sf_strndup(text, len);
			if (!copy)
				return sf_error_nomem(ctx);
			id = (uint32_t)cache->n;
			cache->texts[id] = copy;
			cache->lens[id] = (uint32_t)len;
			cache->ids[id] = s;
			if (!sf_idx_insert(&cache->idx, h, id)) {
				free(copy);
				return sf_error_nomem(ctx);
			}
			cache->n++;
		}
	}
	*out = s;
	return 0;
}

void sf_write_name_text(struct sf_output *o, const char *name)
{
	const char *s = name, *run = name;

	for (; *s; s++) {
		char c = *s;
		if (c != ';' && c != '\n' && c != '\r' && c != '\t')
			continue;
		sf_output_write(o, run, (size_t)(s - run));
		sf_output_putc(o, c == ';' ? ':' : ' ');
		run = s + 1;
	}
	sf_output_write(o, run, (size_t)(s - run));
}

void sf_write_stack_text(struct sf_output *o, const struct sf_profile *p,
			 sf_stack_id stack, const char *prefix)
{
	uint32_t depth = p->d.stacks[stack].depth;
	sf_frame_id small[256], *fr = small;

	if (prefix) {
		sf_write_name_text(o, prefix);
		if (depth)
			sf_output_putc(o, ';');
	}
	if (!depth)
		return;
	if (depth > 256 && !(fr = sf_calloc(depth, sizeof(*fr)))) {
		/* out of memory: walk leaf to root, quadratically */
		for (uint32_t i = 0; i < depth; i++) {
			sf_stack_id s = stack;
			for (uint32_t j = depth - 1; j > i; j--)
				s = p->d.stacks[s].parent;
			if (i)
				sf_output_putc(o, ';');
			sf_write_name_text(o,
				p->d.frames[p->d.stacks[s].frame].name);
		}
		return;
	}
	sf_profile_stack_frames(p, stack, fr);
	for (uint32_t i = 0; i < depth; i++) {
		if (i)
			sf_output_putc(o, ';');
		sf_write_name_text(o, p->d.frames[fr[i]].name);
	}
	if (fr != small)
		free(fr);
}

int sf_text_line_check(struct sf_ctx *ctx, const char *name, uint64_t lineno,
		       bool *first, char **line, size_t *len)
{
	if (*first) {
		*first = false;
		if (*len >= 3 && !memcmp(*line, "\xef\xbb\xbf", 3)) {
			*line += 3;
			*len -= 3;
		}
	}
	if (memchr(*line, 0, *len))
		return sf_error(ctx, SF_EINPUT, name, lineno,
				"unexpected NUL byte in a text line "
				"(binary data?)");
	return 0;
}

void sf_text_guard_mark(struct sf_output *o, const char *name, size_t len)
{
	const unsigned char *d = (const unsigned char *)name;

	if ((len >= 3 && !memcmp(d, "\xef\xbb\xbf", 3)) ||
	    (len >= 2 && ((d[0] == 0xfe && d[1] == 0xff) ||
			  (d[0] == 0xff && d[1] == 0xfe))))
		sf_output_putc(o, '\n');
}

size_t sf_text_split_lines(const char *data, size_t size, size_t pos)
{
	if (!pos || pos > size)
		return pos ? size : 0;
	const char *lf = memchr(data + pos - 1, '\n', size - (pos - 1));
	return lf ? (size_t)(lf - data) + 1 : size;
}

size_t sf_probe_skip_space(const unsigned char *d, size_t n)
{
	size_t i = 0;

	if (n >= 3 && d[0] == 0xef && d[1] == 0xbb && d[2] == 0xbf)
		i = 3;
	while (i < n && (d[i] == ' ' || d[i] == '\t' || d[i] == '\r' ||
			 d[i] == '\n'))
		i++;
	return i;
}

bool sf_probe_prefix(const unsigned char *d, size_t n, const char *s)
{
	size_t l = strlen(s);

	return n >= l && !memcmp(d, s, l);
}
