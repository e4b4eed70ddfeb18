/* t_gzblocks.c - the block gzip of base/gzblocks.c: for message sizes
 * around the block and batch edges (empty, one byte, a block exactly, a
 * batch exactly, so that the last put is empty, and several batches),
 * zlib's own gzip reader inflates the output, as one member with nothing
 * after it, to exactly the input; and the bytes are the same for 1, 2
 * and 5 jobs and whether the stream is put at once or batch by batch as
 * io.c puts it.  An empty last put after a full batch would end the
 * stream with an empty block instead: io.c never makes one (the batch
 * is handed over only when more bytes follow), and the size 2 * T
 * checks that the two ways agree. */
#include "unit.h"
#include "gzblocks.h"

#include <stdbool.h>
#include <stdlib.h>
#include <zlib.h>

struct sink {
	unsigned char *d;
	size_t n, cap;
};

static void sink_write(void *arg, const unsigned char *p, size_t n)
{
	struct sink *s = arg;

	if (s->n + n > s->cap) {
		s->cap = (s->n + n) * 2;
		s->d = realloc(s->d, s->cap);
	}
	memcpy(s->d + s->n, p, n);
	s->n += n;
}

/* Compress in[0..n) on `jobs` threads, put at once or batch by batch. */
static struct sink gz(const unsigned char *in, size_t n, unsigned jobs,
		      bool batches)
{
	struct sink s = { 0 };
	struct sf_gzb *z = sf_gzb_new(1, jobs);
	size_t batch = SF_GZB_BATCH * SF_GZB_BLOCK, off = 0;

	if (batches) {
		/* io.c hands a full batch over when more bytes follow, the
		 * rest (a full batch too, at an edge) at commit */
		for (; n - off > batch; off += batch)
			sf_gzb_put(z, in + off, batch, false, sink_write, &s);
	}
	sf_gzb_put(z, in + off, n - off, true, sink_write, &s);
	sf_gzb_free(z);
	return s;
}

/* Does zlib's gzip reader inflate g to in[0..n), one member, no more? */
static bool inflates_to(const struct sink *g, const unsigned char *in,
			size_t n)
{
	z_stream zs;
	unsigned char *out = malloc(n + 1);
	bool ok;

	memset(&zs, 0, sizeof(zs));
	if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK)
		return false;
	zs.next_in = g->d;
	zs.avail_in = (uInt)g->n;
	zs.next_out = out;
	zs.avail_out = (uInt)n + 1;
	int zr = inflate(&zs, Z_FINISH);
	ok = zr == Z_STREAM_END && zs.avail_in == 0 && zs.total_out == n &&
	     (n == 0 || !memcmp(out, in, n));
	inflateEnd(&zs);
	free(out);
	return ok;
}

int main(void)
{
	size_t B = SF_GZB_BLOCK, T = SF_GZB_BATCH * SF_GZB_BLOCK;
	size_t sizes[] = { 0, 1, 100000, B - 1, B, B + 1, T, T + 7,
			   2 * T, 3 * T - 5 };
	size_t max = 3 * T;
	unsigned char *in = malloc(max);

	/* compressible but not trivial: numbers as text, some random */
	for (size_t i = 0; i < max; i++)
		in[i] = (unsigned char)(i % 7 == 0 ? (char)('0' + unit_rnd(10)) :
					"sample;frame "[i % 13]);
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		size_t n = sizes[k];
		char name[80];
		struct sink one = gz(in, n, 1, true);
		snprintf(name, sizeof(name), "gzblocks-inflates-%zu", n);
		CHECK(name, inflates_to(&one, in, n));
		snprintf(name, sizeof(name), "gzblocks-header-%zu", n);
		CHECK(name, one.n >= 18 && one.d[0] == 0x1f &&
			    one.d[1] == 0x8b && one.d[8] == 4);
		static const unsigned jobs[] = { 2, 5 };
		for (size_t j = 0; j < 2; j++) {
			for (int b = 0; b < 2; b++) {
				struct sink o = gz(in, n, jobs[j], b);
				snprintf(name, sizeof(name),
					 "gzblocks-same-j%u-%s-%zu", jobs[j],
					 b ? "batches" : "once", n);
				CHECK(name, o.n == one.n &&
					    !memcmp(o.d, one.d, one.n));
				free(o.d);
			}
		}
		free(one.d);
	}
	free(in);
	return unit_failed;
}
