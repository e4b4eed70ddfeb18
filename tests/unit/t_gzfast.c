/* t_gzfast.c - the pprof output's gzip (output.c's sf_output_set_gzip, by
 * igzip through gzfast.c): for stream sizes around the output buffer's
 * edges (empty, one byte, 256 KiB and either side of it, a few MiB),
 * zlib's gzip reader inflates the file, as ONE member with nothing after
 * it, to exactly the bytes written; the bytes are the same whether they
 * were written in random pieces or in one, with or without the output's
 * second thread, and through an output opened for zlib's gzip and
 * switched over (`-o x.pb.gz`).  And sf_gzfast_feed passes every piece
 * of its output on, in order, whatever the size of its output room. */
#include "unit.h"
#include "gzfast.h"
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

/* Write in[0..n) through a gzip'd output into `path`, in pieces of 1 to
 * `piece` bytes (0: one piece), with `jobs` threads, opened for zlib's
 * gzip first if `gzopen`.  The file's bytes, or NULL. */
static unsigned char *write_gz(const char *path, const unsigned char *in,
			       size_t n, size_t piece, unsigned jobs,
			       bool gzopen, size_t *gn)
{
	struct sf_ctx ctx;
	struct sf_output *o;

	sf_ctx_init(&ctx);
	if (sf_output_open(&o, &ctx, path, gzopen)) {
		sf_ctx_free(&ctx);
		return NULL;
	}
	sf_output_threads(o, jobs);
	if (sf_output_set_gzip(o, &ctx)) {
		sf_output_abort(o);
		sf_ctx_free(&ctx);
		return NULL;
	}
	for (size_t off = 0; off < n;) {
		size_t m = piece ? 1 + unit_rnd(piece) : n;
		if (m > n - off)
			m = n - off;
		sf_output_write(o, in + off, m);
		off += m;
	}
	int rc = sf_output_commit(o, &ctx);
	sf_ctx_free(&ctx);
	return rc ? NULL : slurp(path, gn);
}

/* sf_gzfast_feed's output, gathered */
struct sink {
	unsigned char *d;
	size_t n, cap;
};

static void sink_emit(void *arg, const unsigned char *p, size_t n)
{
	struct sink *k = arg;

	if (k->n + n > k->cap) {
		k->cap = (k->n + n) * 2;
		k->d = realloc(k->d, k->cap);
	}
	if (k->d) {
		memcpy(k->d + k->n, p, n);
		k->n += n;
	}
}

int main(void)
{
	size_t sizes[] = { 0, 1, 100000, (256u << 10) - 1, 256u << 10,
			   (256u << 10) + 1, 3u << 20 };
	size_t max = 3u << 20;
	unsigned char *in = malloc(max);
	const char *tmp = getenv("TMPDIR");
	char path[4096];
	snprintf(path, sizeof(path), "%s/t_gzfast.XXXXXX", tmp ? tmp : "/tmp");
	int fd = mkstemp(path);

	if (!in || fd < 0)
		return 1;
	close(fd);
	/* compressible but not trivial: numbers as text, some random */
	for (size_t i = 0; i < max; i++)
		in[i] = (unsigned char)(i % 7 == 0 ? (char)('0' + unit_rnd(10)) :
					"sample;frame "[i % 13]);
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		size_t n = sizes[k], an = 0, bn = 0, cn = 0, dn = 0;
		char name[80];
		/* random pieces, one piece, each with and without the
		 * output's second thread, and through `-o x.gz`'s zlib
		 * stream switched over */
		unsigned char *a = write_gz(path, in, n, 5000, 1, false, &an);
		unsigned char *b = write_gz(path, in, n, 0, 2, false, &bn);
		unsigned char *c = write_gz(path, in, n, 70000, 2, true, &cn);
		unsigned char *d = write_gz(path, in, n, 1, 1, true, &dn);
		snprintf(name, sizeof(name), "gzfast-inflates-%zu", n);
		CHECK(name, a && inflates_to(a, an, in, n));
		snprintf(name, sizeof(name), "gzfast-header-%zu", n);
		CHECK(name, a && an >= 18 && a[0] == 0x1f && a[1] == 0x8b &&
			    a[2] == 8);
		snprintf(name, sizeof(name), "gzfast-same-pieces-%zu", n);
		CHECK(name, a && b && an == bn && !memcmp(a, b, an));
		snprintf(name, sizeof(name), "gzfast-same-threads-%zu", n);
		CHECK(name, a && c && an == cn && !memcmp(a, c, an));
		snprintf(name, sizeof(name), "gzfast-same-switched-%zu", n);
		CHECK(name, a && d && an == dn && !memcmp(a, d, an));
		free(a);
		free(b);
		free(c);
		free(d);
	}
	/* what igzip does at the edge of its output room: each piece
	 * passed on in order, none lost, whatever the room's size */
	for (size_t cap = 1; cap <= 65536; cap *= 8) {
		char name[80];
		struct sf_gzfast *z = sf_gzfast_new();
		unsigned char *out = malloc(cap);
		struct sink sk = { NULL, 0, 0 };
		int rc = z && out ? 0 : -1;
		for (size_t off = 0; !rc && off < 300000; off += 100000)
			rc = sf_gzfast_feed(z, in + off, 100000,
					    off + 100000 == 300000, out, cap,
					    sink_emit, &sk);
		snprintf(name, sizeof(name), "gzfast-room-%zu", cap);
		CHECK(name, !rc && sk.d && inflates_to(sk.d, sk.n, in, 300000));
		free(sk.d);
		free(out);
		sf_gzfast_free(z);
	}
	unlink(path);
	free(in);
	return unit_failed;
}
