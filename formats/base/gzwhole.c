/* gzwhole.c - gzip of a whole buffer in one call (contracts: gzwhole.h,
 * and io.h for sf_gzip_mem). */
#include "gzwhole.h"
#include "io.h"

#include <libdeflate.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

size_t sf_gzip_fast_bound(size_t n)
{
	/* NULL: a bound that holds for every level */
	return libdeflate_gzip_compress_bound(NULL, n);
}

size_t sf_gzip_fast(const void *in, size_t n, void *out, size_t cap)
{
	struct libdeflate_compressor *c = libdeflate_alloc_compressor(1);
	size_t r;

	if (!c)
		return 0;
	r = libdeflate_gzip_compress(c, in, n, out, cap);
	libdeflate_free_compressor(c);
	return r;
}

int sf_gzip_mem(struct sf_ctx *ctx, const void *data, size_t n,
		unsigned char **out, size_t *outlen)
{
	z_stream zs;

	memset(&zs, 0, sizeof(zs));
	*out = NULL;
	if (deflateInit2(&zs, 6, Z_DEFLATED, 16 + MAX_WBITS, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK)
		return sf_error(ctx, SF_ENOMEM, NULL, 0,
				"cannot start gzip compression");
	uLong cap = deflateBound(&zs, (uLong)n);
	unsigned char *b = malloc(cap);
	if (!b) {
		deflateEnd(&zs);
		return sf_error(ctx, SF_ENOMEM, NULL, 0, "out of memory");
	}
	zs.next_in = (Bytef *)(uintptr_t)data;
	zs.avail_in = (uInt)n;
	zs.next_out = b;
	zs.avail_out = (uInt)cap;
	int zr = deflate(&zs, Z_FINISH);
	*outlen = zs.total_out;
	deflateEnd(&zs);
	if (zr != Z_STREAM_END) {
		free(b);
		return sf_error(ctx, SF_ENOMEM, NULL, 0,
				"gzip compression failed");
	}
	*out = b;
	return 0;
}
