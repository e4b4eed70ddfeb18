/*
 * t_heap.c - the allocation helpers advise the heap to use transparent
 * huge pages (sf_heap_advise, formats/base/ctx.c) and keep realloc's
 * contract.  The advice is read back from the kernel: the mapping that
 * holds a large block must carry VM_HUGEPAGE ("hg" in the VmFlags line of
 * /proc/self/smaps), whether or not huge pages were free to back it.
 * Skipped where the kernel has no transparent huge pages, or where malloc
 * does not take large blocks from the break (sanitizers replace it).
 *
 * Big buffers (sf_big_grow, sf_big_resize) keep their contents through
 * every growth; from 256 KiB up each is a mapping of its own, 2 MiB
 * aligned and sized and advised the same way, and is never shrunk.  Under
 * AddressSanitizer they are plain malloc blocks, and only the contents
 * are checked.
 *
 * A big buffer kept in the context for a later stage (sf_big_keep) is
 * taken (sf_big_take) in whole 2 MiB pieces from its start, with the
 * bytes the stage before wrote, the rest kept for the next taker; a
 * second kept is joined after the first (their pages moved, not copied),
 * a reservation only partly written keeps its written part
 * (sf_big_keep_used), and a room larger than what is kept starts with
 * the kept pages (sf_big_reserve_kept); the context frees its own in
 * sf_ctx_free; a buffer given (sf_big_give) is kept only where the
 * context says a later stage takes it (keep_given).  Under
 * AddressSanitizer none is kept.
 */
#include "sf.h"
#include "unit.h"

#include <malloc.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The VmFlags of the mapping holding addr, and whether it is the heap. */
static bool vma_flags(uintptr_t addr, char *flags, size_t size, bool *heap)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	char line[512];
	bool in = false, found = false;

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;
		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2) {
			in = addr >= lo && addr < hi;
			if (in)
				*heap = strstr(line, "[heap]") != NULL;
			continue;
		}
		if (in && !strncmp(line, "VmFlags:", 8)) {
			snprintf(flags, size, "%s", line + 8);
			found = true;
			break;
		}
	}
	fclose(f);
	return found;
}

#if !defined(__SANITIZE_ADDRESS__)
/* A room of 8 MiB (sf_big_reserve) whose first 3 MiB hold `c`: the
 * reservation a stage writes in part.  NULL when it cannot be had. */
static unsigned char *room_3_of_8(unsigned char c, size_t *cap)
{
	const size_t mb = (size_t)1 << 20;
	unsigned char *u = NULL;

	*cap = 0;
	if (sf_big_reserve(&u, cap, 8 * mb))
		return NULL;
	memset(u, c, 3 * mb);
	return u;
}
#endif

int main(void)
{
	const size_t mb = (size_t)1 << 20;
	FILE *thp = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");

	if (!thp) {
		printf("SKIP: heap-advised: the kernel has no transparent "
		       "huge pages\n");
		return 0;
	}
	fclose(thp);
	/* as sfanalyze's main does: large blocks from the break */
	mallopt(M_MMAP_THRESHOLD, 256 << 20);

	/* contents survive growth through the advised path */
	size_t cap = 0;
	uint32_t *a = NULL;
	bool same = true;
	for (uint32_t i = 0; i < 6 * mb; i++) {
		if (sf_grow(&a, &cap, (size_t)i + 1, sizeof(*a)))
			return 1;
		a[i] = i * 2654435761u;
	}
	for (uint32_t i = 0; i < 6 * mb; i++)
		same = same && a[i] == i * 2654435761u;
	CHECK("heap-grow-keeps-contents", same && cap >= 6 * mb);

	char flags[512] = "";
	bool heap = false;
	uintptr_t mid = (uintptr_t)a + 3 * mb * sizeof(*a);
	if (!vma_flags(mid, flags, sizeof(flags), &heap) || !heap) {
		printf("SKIP: heap-advised: malloc does not take large blocks "
		       "from the break here\n");
	} else {
		CHECK("heap-advised", strstr(flags, " hg") != NULL);
	}
	free(a);

	/* big buffers: contents kept from 64 KiB through 8 MiB */
	unsigned char *b = NULL;
	size_t bcap = 0;
	bool kept = true, steps_ok = true;
	for (size_t i = 0; i < 8 * mb; i++) {
		size_t was = bcap;
		if (sf_big_grow(&b, &bcap, i + 1))
			return 1;
		if (bcap != was && bcap < 2 * was)
			steps_ok = false;       /* growth at least doubles */
		b[i] = (unsigned char)(i * 131 + (i >> 12));
	}
	for (size_t i = 0; i < 8 * mb; i++)
		kept = kept && b[i] == (unsigned char)(i * 131 + (i >> 12));
	CHECK("big-grow-keeps-contents", kept && bcap >= 8 * mb && steps_ok);
#if defined(__SANITIZE_ADDRESS__)
	printf("SKIP: big-mapping: AddressSanitizer build, big buffers are "
	       "malloc blocks\n");
	struct sf_ctx actx;
	unsigned char *m = NULL;
	size_t mcap = 0;
	sf_ctx_init(&actx);
	if (sf_big_resize(&m, &mcap, 8 * mb))
		return 1;
	sf_big_keep(&actx, m, mcap);      /* freed: LeakSanitizer checks */
	m = NULL;
	CHECK("big-keep-none-under-asan", !actx.spare &&
	      sf_big_take(&actx, &m, &mcap, 1) && !m &&
	      sf_big_reserve_kept(&actx, &m, &mcap, 8 * mb) && !m);
	sf_ctx_free(&actx);
#else
	CHECK("big-mapping-aligned", ((uintptr_t)b & (2 * mb - 1)) == 0 &&
	      bcap % (2 * mb) == 0);
	heap = false;
	flags[0] = 0;
	CHECK("big-mapping-advised",
	      vma_flags((uintptr_t)b + bcap / 2, flags, sizeof(flags), &heap) &&
	      !heap && strstr(flags, " hg") != NULL);
	size_t before = bcap;
	unsigned char *same_b = b;
	CHECK("big-never-shrinks", !sf_big_resize(&b, &bcap, 300 << 10) &&
	      b == same_b && bcap == before);
	/* exactly at the threshold: a 2 MiB mapping, contents kept */
	unsigned char *c = NULL;
	size_t ccap = 0;
	bool ck = !sf_big_resize(&c, &ccap, 100 << 10);
	CHECK("big-small-is-exact", ck && ccap == (100 << 10));
	memset(c, 0x5a, ccap);
	ck = !sf_big_resize(&c, &ccap, 256 << 10);
	bool ckept = ck;
	for (size_t i = 0; ck && i < (100 << 10); i++)
		ckept = ckept && c[i] == 0x5a;
	CHECK("big-threshold-maps", ck && ccap == 2 * mb &&
	      ((uintptr_t)c & (2 * mb - 1)) == 0 && ckept);
	sf_big_free(c, ccap);

	struct sf_ctx ctx;
	sf_ctx_init(&ctx);
	unsigned char *k = NULL, *t1 = NULL, *t2 = NULL, *t3 = NULL;
	size_t kcap = 0, t1cap = 0, t2cap = 0, t3cap = 0;
	if (sf_big_resize(&k, &kcap, 8 * mb))
		return 1;
	memset(k, 0x77, kcap);
	sf_big_keep(&ctx, k, kcap);
	CHECK("big-take-piece", !sf_big_take(&ctx, &t1, &t1cap, 3 * mb) &&
	      t1 == k && t1cap == 4 * mb && t1[0] == 0x77 &&
	      t1[t1cap - 1] == 0x77);
	CHECK("big-take-too-much", sf_big_take(&ctx, &t2, &t2cap, 5 * mb) &&
	      !t2 && !t2cap);
	CHECK("big-take-small", !sf_big_take(&ctx, &t2, &t2cap, 1) &&
	      t2 == k + 4 * mb && t2cap == 2 * mb && t2[0] == 0x77);
	CHECK("big-take-last", !sf_big_take(&ctx, &t3, &t3cap, 1) &&
	      t3 == k + 6 * mb && t3cap == 2 * mb &&
	      sf_big_take(&ctx, &t2, &t2cap, 1));
	/* a second kept joins the first: one mapping, the second's pages
	 * (just written) then the first's, moved (their old places are
	 * unmapped) */
	memset(t1, 0x11, t1cap);
	memset(t3, 0x33, t3cap);
	sf_big_keep(&ctx, t1, t1cap);
	sf_big_keep(&ctx, t3, t3cap);
	unsigned char *j = ctx.spare;
	CHECK("big-keep-joins", j && ctx.spare_cap == 6 * mb &&
	      ((uintptr_t)j & (2 * mb - 1)) == 0 && j[0] == 0x33 &&
	      j[2 * mb - 1] == 0x33 && j[2 * mb] == 0x11 &&
	      j[6 * mb - 1] == 0x11 &&
	      !vma_flags((uintptr_t)t1, flags, sizeof(flags), &heap) &&
	      !vma_flags((uintptr_t)t3, flags, sizeof(flags), &heap));
	sf_big_keep(NULL, t2, t2cap);
	CHECK("big-keep-no-ctx-frees",
	      !vma_flags((uintptr_t)t2, flags, sizeof(flags), &heap));
	/* a room of 8 MiB of which 3 MiB were written: 4 MiB kept, joined
	 * before the 6, the untouched rest given back */
	size_t ucap;
	unsigned char *u = room_3_of_8(0x55, &ucap);
	if (!u)
		return 1;
	sf_big_keep_used(&ctx, u, ucap, 3 * mb);
	j = ctx.spare;
	CHECK("big-keep-used", j && ctx.spare_cap == 10 * mb &&
	      j[0] == 0x55 && j[3 * mb - 1] == 0x55 && j[3 * mb] == 0 &&
	      j[4 * mb] == 0x33 && j[6 * mb] == 0x11 &&
	      !vma_flags((uintptr_t)u + 6 * mb, flags, sizeof(flags), &heap));
	/* a room larger than what is kept: the kept pages first, then
	 * fresh zeroed ones */
	unsigned char *r = NULL;
	size_t rcap = 0;
	CHECK("big-reserve-kept-start",
	      !sf_big_reserve_kept(&ctx, &r, &rcap, 15 * mb) &&
	      rcap == 16 * mb && !ctx.spare && !ctx.spare_cap &&
	      r[0] == 0x55 && r[4 * mb] == 0x33 && r[6 * mb] == 0x11 &&
	      r[10 * mb] == 0 && r[16 * mb - 1] == 0);
	/* one at least as large: taken from it, the rest still kept */
	j = r;
	sf_big_keep(&ctx, r, rcap);
	r = NULL;
	rcap = 0;
	CHECK("big-reserve-kept-take",
	      !sf_big_reserve_kept(&ctx, &r, &rcap, 5 * mb) &&
	      r == j && rcap == 6 * mb && r[4 * mb] == 0x33 &&
	      ctx.spare == j + 6 * mb && ctx.spare_cap == 10 * mb);
	sf_big_free(r, rcap);
	sf_ctx_free(&ctx);
	CHECK("big-kept-freed-with-ctx", !ctx.spare &&
	      !vma_flags((uintptr_t)j + 8 * mb, flags, sizeof(flags), &heap));
	/* given (sf_big_give): freed unless the caller said a later stage
	 * takes it, then kept as sf_big_keep_used keeps it */
	size_t gcap;
	unsigned char *g = room_3_of_8(0x66, &gcap);
	if (!g)
		return 1;
	sf_big_give(&ctx, g, gcap, 3 * mb);
	CHECK("big-give-frees", !ctx.spare &&
	      !vma_flags((uintptr_t)g, flags, sizeof(flags), &heap));
	if (!(g = room_3_of_8(0x66, &gcap)))
		return 1;
	ctx.keep_given = true;
	sf_big_give(&ctx, g, gcap, 3 * mb);
	j = ctx.spare;
	CHECK("big-give-keeps", j == g && ctx.spare_cap == 4 * mb &&
	      j[3 * mb - 1] == 0x66 &&
	      !vma_flags((uintptr_t)g + 4 * mb, flags, sizeof(flags), &heap));
	sf_ctx_free(&ctx);
#endif
	sf_big_free(b, bcap);
	return unit_failed;
}
