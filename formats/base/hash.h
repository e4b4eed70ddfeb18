/*
 * hash.h - internal: an open-addressing table of 32-bit ids.
 *
 * The table stores ids (indexes into some array the caller owns) with their
 * 64-bit hashes; equality is decided by the caller, so one table type serves
 * strings, frames, stacks, threads and samples, and the analyses' functions,
 * tree nodes and call-graph edges.  Usage:
 *
 *     uint64_t h = sf_hash(...);
 *     for (sf_idx_iter it = sf_idx_first(&t, h); ...)
 *
 * is wrapped by sf_idx_find() taking an equality callback.  Load factor is
 * kept at or below 1/2; the table doubles.  Only 32 bits of each hash
 * are kept (the slot and a tag); `eq` always decides.  Hashing is XXH3 (libxxhash).
 */
#ifndef SF_HASH_H
#define SF_HASH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
/* inlined: most keys are short (a frame line, two ids), where a call
 * into the shared library costs as much as the hashing */
#ifndef XXH_INLINE_ALL
#define XXH_INLINE_ALL
#endif
#include <xxhash.h>

struct sf_idx {
	/* One 8-byte slot per entry: the low 32 bits of the hash (forced
	 * non-zero; 0 = empty slot) in the high half, the id in the low
	 * half, so a probe touches one cache line, not two arrays. */
	uint64_t *slots;
	size_t cap;         /* power of two (at most 2^32), or 0 */
	size_t n;
	size_t bytes;       /* the slots' own mapping's bytes (hash.c), or
			     * 0: they are on the heap */
};

static inline uint64_t sf_idx_tag(uint64_t h)
{
	uint32_t t = (uint32_t)h;

	return t ? t : 1;
}

static inline uint64_t sf_hash(const void *data, size_t len)
{
	uint64_t h = XXH3_64bits(data, len);

	return h ? h : 1;
}

static inline uint64_t sf_hash_u64(uint64_t a, uint64_t b)
{
	uint64_t k[2] = { a, b };

	return sf_hash(k, sizeof(k));
}

typedef bool (*sf_idx_eq)(const void *ctx, uint32_t id, const void *key);

/* Find: returns true and *id if an entry with hash `h` satisfies `eq`;
 * finding none, leaves in *slot the empty slot the search ended at
 * (SIZE_MAX when the table has none), for sf_idx_put: a find and an
 * insert in one probe. */
static inline bool sf_idx_find_slot(const struct sf_idx *t, uint64_t h,
				    sf_idx_eq eq, const void *ctx,
				    const void *key, uint32_t *id,
				    size_t *slot)
{
	*slot = SIZE_MAX;
	if (!t->cap)
		return false;
	size_t mask = t->cap - 1;
	uint64_t tag = sf_idx_tag(h);
	for (size_t i = tag & mask;; i = (i + 1) & mask) {
		uint64_t v = t->slots[i];
		if (!v) {
			*slot = i;
			return false;
		}
		if ((v >> 32) == tag && eq(ctx, (uint32_t)v, key)) {
			*id = (uint32_t)v;
			return true;
		}
	}
}

/* Find: returns true and *id if an entry with hash `h` satisfies `eq`. */
static inline bool sf_idx_find(const struct sf_idx *t, uint64_t h,
			       sf_idx_eq eq, const void *ctx, const void *key,
			       uint32_t *id)
{
	size_t slot;

	return sf_idx_find_slot(t, h, eq, ctx, key, id, &slot);
}

/* Insert without checking for an equal entry.  Returns false on ENOMEM. */
bool sf_idx_insert(struct sf_idx *t, uint64_t h, uint32_t id);

/* Insert id (hash h) at the slot sf_idx_find_slot just gave for h, with
 * nothing inserted since; where that would pass half full, as
 * sf_idx_insert (which grows the table).  False on ENOMEM. */
static inline bool sf_idx_put(struct sf_idx *t, size_t slot, uint64_t h,
			      uint32_t id)
{
	if (slot == SIZE_MAX || (t->n + 1) * 2 > t->cap)
		return sf_idx_insert(t, h, id);
	t->slots[slot] = sf_idx_tag(h) << 32 | id;
	t->n++;
	return true;
}

/* Make room for n entries in all, so that no doubling (which holds the old
 * and the new slots at once) happens below that.  False on ENOMEM. */
bool sf_idx_reserve(struct sf_idx *t, size_t n);
void sf_idx_free(struct sf_idx *t);
/* sf_idx_free, with slots that are a mapping of their own kept in ctx
 * for a later stage to take (sf_big_keep: faulted in, not zeroes). */
struct sf_ctx;
void sf_idx_keep(struct sf_idx *t, struct sf_ctx *ctx);

#endif
