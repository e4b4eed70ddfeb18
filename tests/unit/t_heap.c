/*
 * t_heap.c - the allocation helpers advise the heap to use transparent
 * huge pages (sf_heap_advise, formats/model/ctx.c) and keep realloc's
 * contract.  The advice is read back from the kernel: the mapping that
 * holds a large block must carry VM_HUGEPAGE ("hg" in the VmFlags line of
 * /proc/self/smaps), whether or not huge pages were free to back it.
 * Skipped where the kernel has no transparent huge pages, or where malloc
 * does not take large blocks from the break (sanitizers replace it).
 */
#include "sf.h"
#include "unit.h"

#include <malloc.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
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
	return unit_failed;
}
