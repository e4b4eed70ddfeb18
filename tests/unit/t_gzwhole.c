/* t_gzwhole.c - the whole-stream gzip of io.c's sf_output_set_gzip (the
 * pprof writer's): for stream sizes around the buffer's edges (empty, one
 * byte, its first 256 KiB, a few MiB that grow it into a mapping of its
 * own), written in pieces of random sizes to a file, zlib's gzip reader
 * inflates the file, as ONE member with nothing after it, to exactly the
 * bytes written; the same bytes whether the stream and the gzip'd bytes
 * at commit are made in pages the context keeps (filled with other bytes
 * before, as the pprof writer's arrays are) or in fresh ones.  And
 * sf_gzip_fast refuses a buffer too small instead of overrunning it. */
#include "unit.h"
#include "gzwhole.h"
#include "io.h"
#include "sf.h"

#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>
#include <zlib.h>

static unsigned char *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	unsigned char *d = NULL;
	size_t cap = 0;

	*n = 0;
	if (!f)
		return NULL;
	for (;;) {
		if (*n == cap && !(d = realloc(d, cap = cap * 2 + 65536)))
			break;
		size_t r = fread(d + *n, 1, cap - *n, f);
		if (!r)
			break;
		*n += r;
	}
	fclose(f);
	return d;
}

/* Does zlib's gzip reader inflate g[0..gn) to in[0..n), one member, no
 * more? */
static bool inflates_to(const unsigned char *g, size_t gn,
			const unsigned char *in, size_t n)
{
	z_stream zs;
	unsigned char *out = malloc(n + 1);
	bool ok;

	memset(&zs, 0, sizeof(zs));
	if (!out || inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK) {
		free(out);
		return false;
	}
	zs.next_in = (unsigned char *)g;
	zs.avail_in = (uInt)gn;
	zs.next_out = out;
	zs.avail_out = (uInt)n + 1;
	int zr = inflate(&zs, Z_FINISH);
	ok = zr == Z_STREAM_END && zs.avail_in == 0 && zs.total_out == n &&
	     (n == 0 || !memcmp(out, in, n));
	inflateEnd(&zs);
	free(out);
	return ok;
}

/* Keep n bytes of `c` in ctx (n 0: nothing). */
static void keep(struct sf_ctx *ctx, size_t n, int c)
{
	unsigned char *k = NULL;
	size_t kcap = 0;

	if (n && !sf_big_resize(&k, &kcap, n)) {
		memset(k, c, kcap);
		sf_big_keep(ctx, k, kcap);
	}
}

/* Write in[0..n) through a gzip'd output into `path`, in pieces of 1 to
 * 5,000 bytes, with `kept` bytes of other content kept in the context
 * first and 2 * kept more before the commit (0: none).  The file's
 * bytes, or NULL. */
static unsigned char *write_gz(const char *path, const unsigned char *in,
			       size_t n, size_t kept, size_t *gn)
{
	struct sf_ctx ctx;
	struct sf_output *o;

	sf_ctx_init(&ctx);
	keep(&ctx, kept, 0xab);
	if (sf_output_open(&o, &ctx, path, false)) {
		sf_ctx_free(&ctx);
		return NULL;
	}
	if (sf_output_set_gzip(o, &ctx)) {
		sf_output_abort(o);
		sf_ctx_free(&ctx);
		return NULL;
	}
	sf_big_drop(&ctx);
	for (size_t off = 0; off < n;) {
		size_t m = 1 + unit_rnd(5000);
		if (m > n - off)
			m = n - off;
		sf_output_write(o, in + off, m);
		off += m;
	}
	keep(&ctx, 2 * kept, 0xcd);
	int rc = sf_output_commit(o, &ctx);
	sf_ctx_free(&ctx);
	return rc ? NULL : slurp(path, gn);
}

int main(void)
{
	size_t sizes[] = { 0, 1, 100000, (256u << 10) - 1, (256u << 10) + 1,
			   3u << 20 };
	size_t max = 3u << 20;
	unsigned char *in = malloc(max);
	const char *tmp = getenv("TMPDIR");
	char path[4096];
	snprintf(path, sizeof(path), "%s/t_gzwhole.XXXXXX", tmp ? tmp : "/tmp");
	int fd = mkstemp(path);

	if (!in || fd < 0)
		return 1;
	close(fd);
	/* compressible but not trivial: numbers as text, some random */
	for (size_t i = 0; i < max; i++)
		in[i] = (unsigned char)(i % 7 == 0 ? (char)('0' + unit_rnd(10)) :
					"sample;frame "[i % 13]);
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		size_t n = sizes[k], an = 0, bn = 0;
		char name[80];
		unsigned char *a = write_gz(path, in, n, 0, &an);
		unsigned char *b = write_gz(path, in, n, 4u << 20, &bn);
		snprintf(name, sizeof(name), "gzwhole-inflates-%zu", n);
		CHECK(name, a && inflates_to(a, an, in, n));
		snprintf(name, sizeof(name), "gzwhole-header-%zu", n);
		CHECK(name, a && an >= 18 && a[0] == 0x1f && a[1] == 0x8b &&
			    a[2] == 8);
		snprintf(name, sizeof(name), "gzwhole-same-kept-%zu", n);
		CHECK(name, a && b && an == bn && !memcmp(a, b, an));
		free(a);
		free(b);
	}
	/* the room for the bound, one byte short of what it needs */
	size_t n = 100000, bound = sf_gzip_fast_bound(n);
	unsigned char *z = malloc(bound);
	size_t zn = z ? sf_gzip_fast(in, n, z, bound) : 0;
	CHECK("gzwhole-fits-bound", zn > 18 && zn <= bound &&
	      inflates_to(z, zn, in, n));
	CHECK("gzwhole-too-small", zn && !sf_gzip_fast(in, n, z, zn - 1));
	free(z);
	unlink(path);
	free(in);
	return unit_failed;
}
