/* hash.c - the open-addressing table of ids (hash.h): insertion, growth
 * and freeing; finding is inline in the header. */
#include "hash.h"
#include "sf.h"

#include <stdlib.h>
#include <string.h>

/* Rehash into ncap slots (a power of two, above twice the entries). */
static bool idx_resize(struct sf_idx *t, size_t ncap)
{
	if (ncap > ((size_t)1 << 32))
		return false;   /* tags hold 32 bits of position */
	uint64_t *ns = sf_calloc(ncap, sizeof(*ns));

	if (!ns)
		return false;
	for (size_t i = 0; i < t->cap; i++) {
		uint64_t v = t->slots[i];
		if (!v)
			continue;
		size_t j = (v >> 32) & (ncap - 1);
		while (ns[j])
			j = (j + 1) & (ncap - 1);
		ns[j] = v;
	}
	free(t->slots);
	t->slots = ns;
	t->cap = ncap;
	return true;
}

bool sf_idx_reserve(struct sf_idx *t, size_t n)
{
	size_t ncap = t->cap ? t->cap : 64;

	while (n * 2 > ncap) {
		if (ncap > ((size_t)1 << 32))
			return false;
		ncap *= 2;
	}
	return ncap == t->cap || idx_resize(t, ncap);
}

bool sf_idx_insert(struct sf_idx *t, uint64_t h, uint32_t id)
{
	if ((t->n + 1) * 2 > t->cap &&
	    !idx_resize(t, t->cap ? t->cap * 2 : 64))
		return false;
	size_t mask = t->cap - 1;
	uint64_t tag = sf_idx_tag(h);
	size_t i = tag & mask;
	while (t->slots[i])
		i = (i + 1) & mask;
	t->slots[i] = tag << 32 | id;
	t->n++;
	return true;
}

void sf_idx_free(struct sf_idx *t)
{
	free(t->slots);
	memset(t, 0, sizeof(*t));
}
