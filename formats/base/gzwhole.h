/*
 * gzwhole.h - gzip of a whole buffer in one call, for io.c's output of
 * sf_output_set_gzip (pprof).  Internal to formats/base; io.h declares
 * the other function of gzwhole.c, sf_gzip_mem.
 *
 * libdeflate at level 1, as Go's runtime/pprof writes its profiles: on
 * a 29.9 MB pprof message 0.11 s of one thread, against zlib's level 1
 * 0.32 s (docs/DEPENDENCIES.md).  libdeflate compresses whole buffers
 * only, in one member whose bytes depend on the data alone.
 */
#ifndef SF_GZWHOLE_H
#define SF_GZWHOLE_H

#include <stddef.h>

/* The most bytes sf_gzip_fast may write for n bytes of input. */
size_t sf_gzip_fast_bound(size_t n);
/* Compress in[0..n) into one gzip member in out[0..cap): its length, or
 * 0 when it does not fit (never with cap of sf_gzip_fast_bound(n)) or
 * memory for the compressor's state (about 1 MiB) is short. */
size_t sf_gzip_fast(const void *in, size_t n, void *out, size_t cap);

#endif
