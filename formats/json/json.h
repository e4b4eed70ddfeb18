/*
 * json.h - internal to the native JSON format: fmt_json.c holds the format
 * entry and the probe; json_fast.c the reader's loop and its layout fast
 * path, json_events.c the reader's handling of yajl's events (json_read.h,
 * their shared state); json_write.c the json-c writer; json_scan.c the
 * reader's pre-scan of each piece of input; json_ahead.c the reader's
 * second thread, which parses stack nodes ahead of it.
 */
#ifndef SF_JSON_H
#define SF_JSON_H

#include "text.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* The format's `read` entry, in json_fast.c (contract: format.h, struct
 * sf_format). */
int sf_json__read(struct sf_profile *p, struct sf_input *in,
		  struct sf_ctx *ctx);
/* The format's `write` entry (contract: format.h, struct sf_format). */
int sf_json__write(const struct sf_profile *p, struct sf_output *out,
		   struct sf_ctx *ctx);

/* Newlines in b[0..n). */
uint64_t sf_json__count_nl(const unsigned char *b, size_t n);

/* p[0..8) as one word, p[0] its lowest byte. */
static inline uint64_t sf_json__load8(const unsigned char *p)
{
	uint64_t x;

	memcpy(&x, p, 8);
	if (__BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__)
		x = __builtin_bswap64(x);
	return x;
}

/* The bytes of word x (sf_json__load8) equal to c: the high bit of each
 * (the lowest such bit is exact; a borrow only reaches the bytes after
 * it). */
static inline uint64_t sf_json__eq8(uint64_t x, unsigned char c)
{
	const uint64_t ones = 0x0101010101010101u;

	x ^= c * ones;
	return (x - ones) & ~x & (ones << 7);
}

/* The bytes of p[0..8) that are a '"', a '\\' or a control byte, as
 * sf_json__eq8 marks them.  The fast path's plain strings (json_fast.c)
 * and the pre-scan's strings (json_scan.c) skip eight bytes at a time
 * with it. */
static inline uint64_t sf_json__special8(const unsigned char *p)
{
	const uint64_t ones = 0x0101010101010101u;
	uint64_t x = sf_json__load8(p);

	return sf_json__eq8(x, '"') | sf_json__eq8(x, '\\') |
	       ((x - 0x20 * ones) & ~x & (ones << 7));
}

/*
 * Before yajl sees a piece, bound what yajl would have to buffer: a token
 * cut by the end of a piece is copied and grown until it ends, so no
 * string may be longer than --max-name (a frame name, a label, a path:
 * all are names), nor a number or literal; and the document is no longer
 * than --max-decompressed.
 */
struct jscan {
	bool in_str, esc;
	uint64_t slen;     /* raw bytes of the current string so far */
	uint64_t run;      /* bytes of the number or literal at the end */
	uint64_t total;    /* bytes of the document so far */
};

/* Check the next n bytes of the document, b[0..n), which start on line
 * `line` of `in`: SF_ELIMIT (with the line where the bound is crossed)
 * when the document passes --max-decompressed, or a string, number or
 * literal passes --max-name.  Zero-initialise `j` before the first piece. */
int sf_json__scan(struct jscan *j, const unsigned char *b, size_t n,
		  struct sf_input *in, struct sf_ctx *ctx, uint64_t line);

#endif
