/*
 * gzblocks.h - one gzip member compressed in fixed blocks on several
 * threads, pigz's way, with bytes that depend on the data only (not on
 * the threads).  Internal to formats/base: io.c's gzip outputs of
 * sf_output_set_gzip (the pprof writer) are its one user.
 *
 * The stream is cut every SF_GZB_BLOCK bytes.  Each block is compressed
 * as raw deflate on its own, primed with the 32 KiB before it (so it
 * loses almost nothing to the cut), and ended with a sync flush (a final
 * block for the last one), which leaves it on a byte boundary; the
 * blocks are written in order between one gzip header and the trailer,
 * whose CRC-32 is combined from the blocks' own.  One decompressor
 * stream (gzip -d, zlib's inflate) reads the whole.
 */
#ifndef SF_GZBLOCKS_H
#define SF_GZBLOCKS_H

#include <stdbool.h>
#include <stddef.h>

/* The block size, and how many blocks a batch handed over holds.  The
 * bytes depend on the block size only.  A batch of 4 (1 MiB), not 8:
 * the last two batches are compressed after the writer's last byte, so
 * the smaller they are, the sooner the output is done, and the two
 * buffers going back and forth are smaller (850 fewer page faults on a
 * 30 MB message). */
#define SF_GZB_BLOCK (256u << 10)
#define SF_GZB_BATCH 4u

struct sf_gzb;

/* A compressor at zlib `level` running on up to `jobs` threads (this one
 * included).  NULL when out of memory. */
struct sf_gzb *sf_gzb_new(int level, unsigned jobs);
/* From now on, up to `jobs` threads. */
void sf_gzb_jobs(struct sf_gzb *z, unsigned jobs);
/* Where the compressed bytes go, in order. */
typedef void sf_gzb_write_fn(void *arg, const unsigned char *p, size_t n);
/* Compress buf[0..len), the next bytes of the stream, and pass what
 * comes out to emit(arg, ...): a whole number of blocks unless `last`
 * (then the trailer follows).  The gzip header goes before the first.
 * The bytes depend on the stream and on where the last put begins: put
 * a batch that is not last only when more bytes follow (io.c does), so
 * that the last put is empty only for an empty stream.
 * Returns 0, or -1 when deflate failed (then the stream is broken and
 * nothing more should be put). */
int sf_gzb_put(struct sf_gzb *z, const unsigned char *buf, size_t len,
	       bool last, sf_gzb_write_fn *emit, void *arg);
void sf_gzb_free(struct sf_gzb *z);

#endif
