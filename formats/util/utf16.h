/*
 * utf16.h - internal: UTF-16 text (with a byte order mark) read as UTF-8.
 *
 * Windows tools (PowerShell's `>` redirection, some profilers' exports)
 * write text as UTF-16 with a BOM; speedscope accepts such collapsed
 * stacks.  Text readers call sf_utf16_input() once before reading: when the
 * input starts with a UTF-16 BOM (FF FE little-endian, FE FF big-endian)
 * that the text after it confirms (sf_utf16_mark) it
 * returns a new input holding the rest of the text transcoded to UTF-8 (no
 * BOM), which the reader then uses instead.  The transcoded text is held in
 * memory, bounded by ctx->limits.max_decompressed; invalid UTF-16 (an
 * unpaired surrogate) becomes U+FFFD, an odd final byte is an error.
 */
#ifndef SF_UTF16_H
#define SF_UTF16_H

#include "io.h"

/* 1 for a UTF-16LE BOM at d[0..1], 2 for UTF-16BE, else 0. */
int sf_utf16_bom(const unsigned char *d, size_t n);

/* The same, but only for a mark the text after it confirms: within the
 * first SF_UTF16_LOOK bytes of `d` (the start of the input), a code unit
 * after the mark is a LF, TAB, space or ';', as every line of stack text
 * holds one.  FE FF or FF FE is also how a frame name may begin in 8-bit
 * text (names are carried byte-exact); such text is read as it is.  A
 * confirming unit holds a NUL byte, which 8-bit text may not, so no
 * readable 8-bit text is ever taken for UTF-16. */
#define SF_UTF16_LOOK 4096
int sf_utf16_mark(const unsigned char *d, size_t n);

/* A streaming transcoder; zero-initialise, set `be`. */
struct sf_utf16 {
	int be;
	int have_byte;          /* a code unit's first byte is pending */
	unsigned char byte;
	uint32_t high;          /* pending high surrogate, or 0 */
};

/* Transcode n bytes of UTF-16 to UTF-8 into `out`, which must have room
 * for 2 * n + 4 bytes; returns the bytes written.  With `last`, a pending
 * surrogate is flushed (as U+FFFD) and *odd is set if a byte is left. */
size_t sf_utf16_to_utf8(struct sf_utf16 *c, const unsigned char *in,
			size_t n, char *out, bool last, bool *odd);

/* If `in` starts with a confirmed UTF-16 BOM: *out = a memory input with the UTF-8
 * text (named like `in`) and *buf its storage (free after closing *out).
 * Otherwise *out = NULL and `in` is untouched. */
int sf_utf16_input(struct sf_input **out, char **buf, struct sf_input *in,
		   struct sf_ctx *ctx);

/* For probes: transcode the UTF-16 bytes after a BOM at the start of `d`
 * into `out` (size bytes); returns the length, 0 if `d` has no confirmed
 * BOM. */
size_t sf_utf16_probe(const unsigned char *d, size_t n, char *out,
		      size_t size);

#endif
