/*
 * perf_cache.c - the stack cache of the two perf readers (perf.h says
 * what it maps).
 */
#include "perf.h"

#include <stdlib.h>
#include <string.h>

struct akey {
	const void *p;
	size_t n;
};

static bool akey_eq(const void *cache, uint32_t id, const void *k)
{
	const struct sf_perf_acache *c = cache;
	const struct akey *key = k;
	const struct sf_perf_aent *e = &c->ents[id];

	return e->len == key->n && !memcmp(c->keys + e->off, key->p, key->n);
}

bool sf_perf__acache_find(const struct sf_perf_acache *c, const void *key,
			  size_t bytes, uint64_t h, sf_stack_id *out)
{
	struct akey k = { key, bytes };
	uint32_t id;

	if (!sf_idx_find(&c->idx, h, akey_eq, c, &k, &id))
		return false;
	*out = c->ents[id].stack;
	return true;
}

int sf_perf__acache_add(struct sf_perf_acache *c, struct sf_ctx *ctx,
			const void *key, size_t bytes, uint64_t h,
			sf_stack_id stack, size_t max)
{
	if (bytes > max || c->len > max - bytes || c->nents >= UINT32_MAX)
		return 0;
	if (c->nents == c->cap_ents) {
		size_t ncap = c->cap_ents ? c->cap_ents * 2 : 1024;
		struct sf_perf_aent *ne = sf_reallocarray(c->ents, ncap,
							  sizeof(*ne));
		if (!ne)
			return sf_error_nomem(ctx);
		c->ents = ne;
		c->cap_ents = ncap;
	}
	if (c->len + bytes > c->cap) {
		size_t ncap = c->cap ? c->cap * 2 : 65536;
		while (ncap < c->len + bytes)
			ncap *= 2;
		unsigned char *nk = realloc(c->keys, ncap);
		if (!nk)
			return sf_error_nomem(ctx);
		c->keys = nk;
		c->cap = ncap;
	}
	if (bytes)
		memcpy(c->keys + c->len, key, bytes);
	c->ents[c->nents] = (struct sf_perf_aent){ c->len, bytes, stack };
	if (!sf_idx_insert(&c->idx, h, (uint32_t)c->nents))
		return sf_error_nomem(ctx);
	c->len += bytes;
	c->nents++;
	return 0;
}

void sf_perf__acache_free(struct sf_perf_acache *c)
{
	sf_idx_free(&c->idx);
	free(c->keys);
	free(c->ents);
}
