/* hash.c - the open-addressing table of ids (hash.h): insertion, growth
 * and freeing; finding is inline in the header. */
#include "hash.h"
#include "sf.h"

#include <stdlib.h>
#include <string.h>

/*
 * From 2 MiB up the slots are a mapping of their own in huge pages
 * (sf_big_reserve), not calloc's: glibc maps a block that large in 4 KiB
 * pages, and an insert reads a slot before it writes it, so each page
 * took two faults, the zero page's and the copy's.  A timeline's stack
 * index grows to 4 MiB by doubling: 3,000 of the collapsed row's page
 * faults on the reader's thread, where a huge page is one.  Smaller
 * slots are on the heap, written once when made.
 */
#define SLOTS_BIG ((size_t)2 << 20)

static void slots_free(uint64_t *slots, size_t bytes)
{
	if (bytes)
		sf_big_free(slots, bytes);
	else
		free(slots);
}

/* Rehash into ncap slots (a power of two, above twice the entries). */
static bool idx_resize(struct sf_idx *t, size_t ncap)
{
	if (ncap > ((size_t)1 << 32))
		return false;   /* tags hold 32 bits of position */
	uint64_t *ns = NULL;
	size_t bytes = 0;

	/* a fresh mapping is zeroes; on the heap they are written here,
	 * not left to calloc: a fresh page written first takes one fault,
	 * where an insert's read of it took two */
	if (ncap * sizeof(*ns) < SLOTS_BIG ||
	    sf_big_reserve(&ns, &bytes, ncap * sizeof(*ns))) {
		bytes = 0;
		if (!(ns = sf_malloc(ncap * sizeof(*ns))))
			return false;
		memset(ns, 0, ncap * sizeof(*ns));
	}
	for (size_t i = 0; i < t->cap; i++) {
		uint64_t v = t->slots[i];
		if (!v)
			continue;
		size_t j = (v >> 32) & (ncap - 1);
		while (ns[j])
			j = (j + 1) & (ncap - 1);
		ns[j] = v;
	}
	slots_free(t->slots, t->bytes);
	t->slots = ns;
	t->cap = ncap;
	t->bytes = bytes;
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
	slots_free(t->slots, t->bytes);
	memset(t, 0, sizeof(*t));
}

void sf_idx_keep(struct sf_idx *t, struct sf_ctx *ctx)
{
	if (t->bytes)
		sf_big_keep(ctx, t->slots, t->bytes);
	else
		free(t->slots);
	memset(t, 0, sizeof(*t));
}
