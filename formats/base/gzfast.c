/* gzfast.c - the pprof output's gzip by igzip, fed in pieces (contracts:
 * gzfast.h), and zlib's gzip of a buffer in one call (io.h,
 * sf_gzip_mem). */
#include "gzfast.h"
#include "io.h"

#include <isa-l.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

struct sf_gzfast {
	struct isal_zstream s;
	uint8_t level_buf[ISAL_DEF_LVL3_DEFAULT];
};

struct sf_gzfast *sf_gzfast_new(void)
{
	struct sf_gzfast *z = malloc(sizeof(*z));

	if (!z)
		return NULL;
	isal_deflate_init(&z->s);
	/* level 3, not 1 or 2: on this project's Xeon host (libisal 2.30)
	 * levels 1 and 2 compressed the same message to other bytes in
	 * about one process in 100-400, by where the program was loaded
	 * (never with address randomisation off): a 4-byte match taken or
	 * left as literals.  Level 3's matcher gave one output in 4,000
	 * processes on each of five messages; it costs 81 ms where level 1
	 * took 51 on the timeline's 26.7 MB, for 0.9 % fewer bytes
	 * (docs/DEPENDENCIES.md). */
	z->s.level = 3;
	z->s.level_buf = z->level_buf;
	z->s.level_buf_size = sizeof(z->level_buf);
	z->s.gzip_flag = IGZIP_GZIP;
	z->s.flush = NO_FLUSH;
	return z;
}

int sf_gzfast_feed(struct sf_gzfast *z, const void *in, size_t n, bool last,
		   unsigned char *out, size_t cap, sf_gzfast_emit *emit,
		   void *arg)
{
	/* avail_in and avail_out are 32 bits */
	const size_t step = (size_t)1 << 30;
	const uint8_t *i = n ? in : (const uint8_t *)"", *end = i + n;

	if (cap > step)
		cap = step;
	do {
		size_t k = (size_t)(end - i) < step ? (size_t)(end - i) : step;
		z->s.next_in = (uint8_t *)(uintptr_t)i;
		z->s.avail_in = (uint32_t)k;
		i += k;
		z->s.end_of_stream = last && i == end;
		/* until igzip has taken this input and, at the end, written
		 * the trailer: out filled (avail_out 0) may mean more */
		for (;;) {
			uint32_t had = z->s.avail_in;
			z->s.next_out = out;
			z->s.avail_out = (uint32_t)cap;
			if (isal_deflate(&z->s) != COMP_OK)
				return -1;
			size_t made = cap - z->s.avail_out;
			if (made)
				emit(arg, out, made);
			if (z->s.internal_state.state == ZSTATE_END ||
			    (!z->s.end_of_stream && !z->s.avail_in &&
			     z->s.avail_out))
				break;
			if (!made && z->s.avail_in == had)
				return -1;      /* no progress: never loop */
		}
	} while (i < end);
	return 0;
}

void sf_gzfast_free(struct sf_gzfast *z)
{
	free(z);
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
