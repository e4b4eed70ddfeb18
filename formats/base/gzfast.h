/*
 * gzfast.h - the pprof output's gzip (output.c's sf_output_set_gzip): one
 * gzip member made by igzip (Intel's ISA-L) at level 3, fed in pieces as
 * the writer fills its buffers, so that on two jobs it runs on the
 * output's second thread beside the writer.  Internal to formats/base;
 * io.h declares the other function of gzfast.c, sf_gzip_mem.
 *
 * On the 26.7 MB message of bench/'s 400,000-sample timeline igzip's
 * level 3 takes about half of libdeflate's level 1 for 0.2 % more bytes
 * (docs/DEPENDENCIES.md; levels 1 and 2, faster, gave bytes that
 * depended on the load address, gzfast.c).  Its bytes depend on the data and on where the
 * pieces are cut, which output.c's buffers fix at every -j; and on the CPU's
 * class (x86-64 with SSE4.2 or not, another architecture), as any
 * compressor with code for each class may: readers inflate them alike.
 */
#ifndef SF_GZFAST_H
#define SF_GZFAST_H

#include <stdbool.h>
#include <stddef.h>

struct sf_gzfast;

/* Each piece of compressed output, in order. */
typedef void sf_gzfast_emit(void *arg, const unsigned char *p, size_t n);

/* A new member's compressor (about 400 KiB), or NULL for ENOMEM. */
struct sf_gzfast *sf_gzfast_new(void);
/* Compress in[0..n) (the member's end, trailer included, if `last`),
 * through out[0..cap) (cap > 0), calling emit(arg, ...) each time out
 * fills and at the end.  0, or -1 if igzip fails (never on valid
 * arguments); nothing more may be fed after `last` or a failure. */
int sf_gzfast_feed(struct sf_gzfast *z, const void *in, size_t n, bool last,
		   unsigned char *out, size_t cap, sf_gzfast_emit *emit,
		   void *arg);
void sf_gzfast_free(struct sf_gzfast *z);

#endif
