/*
 * an_map.h - internal to analyze/: an open-addressing map from 64-bit keys
 * to 32-bit values (ids), for the hot loops of the view and call graph.
 * Load factor at most 1/2; the table doubles.  Key UINT64_MAX is reserved.
 */
#ifndef SF_AN_MAP_H
#define SF_AN_MAP_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

struct sf_an_map {
	uint64_t *keys;   /* UINT64_MAX = empty */
	uint32_t *vals;
	size_t cap, n;
};

static inline uint64_t sf_an_mix(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	x ^= x >> 31;
	return x;
}

/* Returns a pointer to the value slot of `key`, or NULL when absent. */
static inline uint32_t *sf_an_map_get(const struct sf_an_map *m, uint64_t key)
{
	if (!m->cap)
		return NULL;
	size_t mask = m->cap - 1;
	for (size_t i = sf_an_mix(key) & mask;; i = (i + 1) & mask) {
		if (m->keys[i] == key)
			return &m->vals[i];
		if (m->keys[i] == UINT64_MAX)
			return NULL;
	}
}

static inline bool sf_an_map_grow(struct sf_an_map *m)
{
	size_t ncap = m->cap ? m->cap * 2 : 1024;
	uint64_t *k = malloc(ncap * sizeof(*k));
	uint32_t *v = malloc(ncap * sizeof(*v));

	if (!k || !v) {
		free(k);
		free(v);
		return false;
	}
	for (size_t i = 0; i < ncap; i++)
		k[i] = UINT64_MAX;
	for (size_t i = 0; i < m->cap; i++) {
		if (m->keys[i] == UINT64_MAX)
			continue;
		size_t j = sf_an_mix(m->keys[i]) & (ncap - 1);
		while (k[j] != UINT64_MAX)
			j = (j + 1) & (ncap - 1);
		k[j] = m->keys[i];
		v[j] = m->vals[i];
	}
	free(m->keys);
	free(m->vals);
	m->keys = k;
	m->vals = v;
	m->cap = ncap;
	return true;
}

/* Make room for n keys in all (so no doubling, which holds the old and
 * the new table at once, happens below that).  False on ENOMEM. */
static inline bool sf_an_map_reserve(struct sf_an_map *m, size_t n)
{
	while (n * 2 > m->cap)
		if (!sf_an_map_grow(m))
			return false;
	return true;
}

/* Insert a key known to be absent.  Returns false on ENOMEM. */
static inline bool sf_an_map_put(struct sf_an_map *m, uint64_t key,
				 uint32_t val)
{
	if ((m->n + 1) * 2 > m->cap && !sf_an_map_grow(m))
		return false;
	size_t mask = m->cap - 1;
	size_t i = sf_an_mix(key) & mask;
	while (m->keys[i] != UINT64_MAX)
		i = (i + 1) & mask;
	m->keys[i] = key;
	m->vals[i] = val;
	m->n++;
	return true;
}

static inline void sf_an_map_free(struct sf_an_map *m)
{
	free(m->keys);
	free(m->vals);
	m->keys = NULL;
	m->vals = NULL;
	m->cap = m->n = 0;
}

#endif
