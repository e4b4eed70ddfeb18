/* sf_input_unmap_part (formats/base/io.c): which pages of a mapped input
 * each call gives back.  A page passed is dropped from the process's
 * page tables while the mapping stays (the present bit of
 * /proc/self/pagemap), the last call unmaps it all (mincore() fails with
 * ENOMEM on an address that is not mapped).  The expected pages follow
 * from io.h's contract and the page size, worked out by hand below. */
#include "unit.h"
#include "sf.h"
#include "io.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

static size_t pg;

/* Is the page at p mapped? */
static bool mapped(const unsigned char *p)
{
	unsigned char v;

	return mincore((void *)p, pg, &v) == 0 || errno != ENOMEM;
}

/* Is the page at p in this process's page tables (read, and not dropped
 * since)?  -1 when pagemap cannot be read. */
static int present(const unsigned char *p)
{
	uint64_t e;
	int fd = open("/proc/self/pagemap", O_RDONLY);
	ssize_t n = -1;

	if (fd >= 0) {
		n = pread(fd, &e, sizeof(e),
			  (off_t)((uintptr_t)p / pg * sizeof(e)));
		close(fd);
	}
	return n == (ssize_t)sizeof(e) ? (int)(e >> 63) : -1;
}

/* Read one byte of every page of d[0..n). */
static unsigned touch(const unsigned char *d, size_t n)
{
	unsigned s = 0;

	for (size_t i = 0; i < n; i += pg)
		s += ((const volatile unsigned char *)d)[i];
	return s;
}

/* A file of n bytes (in memory: no path) mapped whole, as
 * sf_input_map maps a regular file. */
static unsigned char *map_file(size_t n)
{
	int fd = memfd_create("sf-unmap", MFD_CLOEXEC);
	unsigned char *d = MAP_FAILED;

	if (fd < 0)
		return NULL;
	if (!ftruncate(fd, (off_t)n))
		d = mmap(NULL, n, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	return d == MAP_FAILED ? NULL : d;
}

int main(void)
{
	pg = (size_t)sysconf(_SC_PAGESIZE);

	/* three pages and a bit: a call gives back only the pages it is
	 * past; the last call (to == size) the rest, the tail page too */
	size_t size = 3 * pg + 100;
	unsigned char *d = map_file(size);
	CHECK("unmap-part-map", d != NULL);
	if (!d)
		return 1;
	touch(d, size);
	CHECK("unmap-part-pagemap", present(d) == 1 && present(d + 3 * pg) == 1);
	sf_input_unmap_part(d, size, 0, pg + 10);
	CHECK("unmap-part-passed-page",
	      present(d) == 0 && present(d + pg) == 1 && mapped(d));
	sf_input_unmap_part(d, size, pg + 10, 2 * pg);
	CHECK("unmap-part-next-page",
	      present(d + pg) == 0 && present(d + 2 * pg) == 1);
	sf_input_unmap_part(d, size, 2 * pg, size);
	CHECK("unmap-part-rest", !mapped(d) && !mapped(d + pg) &&
	      !mapped(d + 2 * pg) && !mapped(d + 3 * pg));

	/* past a whole SF_INPUT_UNMAP_STEP (256 MiB, a sparse file: only
	 * the pages read below are ever present): the step is unmapped,
	 * the passed page after it only dropped, and the step is not
	 * unmapped twice; the last call unmaps from the step on */
	size_t st = SF_INPUT_UNMAP_STEP;
	CHECK("unmap-part-step-is-256MiB", st == (size_t)256 << 20);
	size = st + 3 * pg + 100;
	if (!(d = map_file(size)))
		return 1;
	touch(d, pg);
	touch(d + st - pg, 4 * pg);
	sf_input_unmap_part(d, size, 0, st + pg + 10);
	CHECK("unmap-part-step-unmapped", !mapped(d) && !mapped(d + st - pg));
	CHECK("unmap-part-step-after-dropped",
	      mapped(d + st) && present(d + st) == 0 &&
	      present(d + st + pg) == 1);
	/* what is mapped since in the step given back (as malloc or another
	 * thread may) must outlive the calls after: a step unmapped twice
	 * would take it away */
	unsigned char *in0 = mmap(d, pg, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
				  -1, 0);
	unsigned char *in1 = mmap(d + st - pg, pg, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
				  -1, 0);
	CHECK("unmap-part-step-reuse", in0 == d && in1 == d + st - pg);
	sf_input_unmap_part(d, size, st + pg + 10, st + 2 * pg);
	CHECK("unmap-part-step-next-page",
	      mapped(d + st) && present(d + st + pg) == 0 &&
	      present(d + st + 2 * pg) == 1);
	CHECK("unmap-part-step-not-twice", mapped(in0) && mapped(in1));
	sf_input_unmap_part(d, size, st + 2 * pg, size);
	CHECK("unmap-part-step-rest",
	      !mapped(d + st) && !mapped(d + st + 3 * pg));
	CHECK("unmap-part-step-rest-not-twice", mapped(in0) && mapped(in1));
	munmap(in0, pg);
	munmap(in1, pg);

	/* a reader that reached the end and calls once more from there
	 * (json_fast.c's exit path does) must leave alone whatever was
	 * mapped since at those addresses (put there with MAP_FIXED: they
	 * were just given back, and nothing else runs) */
	size = pg + 100;
	if (!(d = map_file(size)))
		return 1;
	sf_input_unmap_part(d, size, 0, size);
	unsigned char *other = mmap(d, 2 * pg, PROT_READ | PROT_WRITE,
				    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
				    -1, 0);
	CHECK("unmap-part-reuse", other == d);
	sf_input_unmap_part(d, size, size, size);
	CHECK("unmap-part-end-again-keeps-others",
	      mapped(other) && mapped(other + pg));
	munmap(other, 2 * pg);
	return unit_failed;
}
