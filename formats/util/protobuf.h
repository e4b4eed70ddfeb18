/*
 * protobuf.h - internal: the protobuf wire format, decoded and encoded by
 * hand, as much of it as pprof's profile.proto uses: varints, fixed 32/64-bit
 * fields (read and skipped), length-delimited fields (strings, bytes,
 * sub-messages) and repeated scalars, packed or not.  No schema, no
 * reflection, no allocation when decoding: the caller walks the fields of
 * a message and picks the numbers it knows.  docs/DEPENDENCIES.md says why
 * this is not protobuf-c.
 *
 * Decoding works on a whole message held in memory (struct sf_pb_dec).
 * Every length and varint is checked against the bytes left in its
 * enclosing message before it is used, and every error names the byte
 * offset of the offending tag or varint in the input stream (base + offset
 * in the buffer) through sf_error_at: "FILE: byte N: what is wrong".
 *
 * Encoding appends to a growable buffer (struct sf_pb_buf); an allocation
 * failure sets `oom` and makes every later append a no-op, so a writer
 * checks once at the end.
 */
#ifndef SF_PROTOBUF_H
#define SF_PROTOBUF_H

#include "io.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* protobuf: a message is at most 2 GiB */
#define SF_PB_MAX ((size_t)INT32_MAX)

/* wire types */
enum { SF_PB_VARINT = 0, SF_PB_I64 = 1, SF_PB_LEN = 2, SF_PB_I32 = 5 };

/* ---- probing: no context, no errors, for a format's magic probe ---- */

/* One varint at d[*i] (advancing *i): 1 if well formed, 0 if the window
 * d[0..n) ends inside it, -1 if malformed (more than 10 bytes). */
int sf_pb_probe_varint(const unsigned char *d, size_t n, size_t *i,
		       uint64_t *v);

/* Are all fields of d[0..n) varint or length-delimited fields whose tag
 * byte is in `ok` (a bit per tag byte < 64), with lengths inside d? */
bool sf_pb_probe_sub(const unsigned char *d, size_t n, uint64_t ok);

/* ---- decoding ---- */

struct sf_pb_dec {
	struct sf_ctx *ctx;
	const char *name;         /* input name, for errors */
	const unsigned char *b;   /* the message; not owned */
	size_t size;
	uint64_t base;            /* stream offset of b[0] */
	bool top;                 /* decoding a top-level field: errors say
				   * "the input" instead of "the enclosing
				   * message" */
};

/* One field, as sf_pb_field decoded it. */
struct sf_pb_field {
	uint32_t num;
	unsigned wt;
	uint64_t v;          /* varint value, fixed value, or length */
	size_t at;           /* offset of the tag */
	size_t data;         /* offset of the payload (SF_PB_LEN) */
};

/* Fail with SF_EINPUT at byte base + `at`; returns the error code. */
int sf_pb_error(struct sf_pb_dec *d, size_t at, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The varint at b[*pos], which must end before `end`; advances *pos. */
int sf_pb_varint(struct sf_pb_dec *d, size_t *pos, size_t end,
		 uint64_t *v);

/* The next field of the message ending at `end`; advances *pos past it
 * (past the payload of a length-delimited field, which is checked to fit).
 * Wire types 3 and 4 (groups) are errors. */
int sf_pb_field(struct sf_pb_dec *d, size_t *pos, size_t end,
		struct sf_pb_field *f);

/* An error unless field `f` of message `msg` has wire type `wt`. */
int sf_pb_want(struct sf_pb_dec *d, const struct sf_pb_field *f,
	       unsigned wt, const char *msg);

/* A repeated scalar field of message `msg`, packed or not: calls `each`
 * with `arg`, each value and its offset; stops at the first non-zero
 * return and returns it. */
int sf_pb_repeated(struct sf_pb_dec *d, const struct sf_pb_field *f,
		   const char *msg,
		   int (*each)(struct sf_pb_dec *, void *, uint64_t, size_t),
		   void *arg);

/* ---- encoding ---- */

/* Zero-initialise; free(d) when done. */
struct sf_pb_buf {
	unsigned char *d;
	size_t n, cap;
	bool oom;
};

void sf_pb_put_raw(struct sf_pb_buf *b, const void *p, size_t n);

/* sf_pb_put_varint where the buffer may lack room for the longest varint
 * (10 bytes): it grows, or is out of memory. */
void sf_pb__put_varint_grow(struct sf_pb_buf *b, uint64_t v);

/* Inline, written in place when the buffer has room: the pprof writer
 * puts about a dozen per location and one per frame of every sample,
 * and as calls into this file they were most of the instructions of
 * emitting a location (docs/PERFORMANCE.md, session 26). */
static inline void sf_pb_put_varint(struct sf_pb_buf *b, uint64_t v)
{
	if (b->oom || b->cap - b->n < 10) {
		sf_pb__put_varint_grow(b, v);
		return;
	}
	unsigned char *d = b->d + b->n;
	for (; v > 0x7f; v >>= 7)
		*d++ = (unsigned char)(v | 0x80);
	*d++ = (unsigned char)v;
	b->n = (size_t)(d - b->d);
}

static inline void sf_pb_put_tag(struct sf_pb_buf *b, uint32_t field,
				 unsigned wt)
{
	sf_pb_put_varint(b, (uint64_t)field << 3 | wt);
}

/* A varint field; proto3 leaves zero values out, and so does this. */
static inline void sf_pb_put_uint(struct sf_pb_buf *b, uint32_t field,
				  uint64_t v)
{
	if (!v)
		return;
	sf_pb_put_tag(b, field, SF_PB_VARINT);
	sf_pb_put_varint(b, v);
}

/* A length-delimited field. */
void sf_pb_put_bytes(struct sf_pb_buf *b, uint32_t field, const void *p,
		     size_t n);

/* A length-delimited field of b written in place: sf_pb_open puts its
 * tag and one byte for its length and returns a mark; what is appended to
 * b until sf_pb_close(b, mark) is the field's content, whose length is
 * then written in that byte (a length of 128 or more moves the content
 * by the bytes it needs more).  The same bytes as a sub-message made in
 * a buffer of its own and appended with sf_pb_put_msg, without the copy. */
size_t sf_pb_open(struct sf_pb_buf *b, uint32_t field);
void sf_pb_close(struct sf_pb_buf *b, size_t mark);

/* Append sub-message `sub` as field `field` of `b`, and empty `sub` (an
 * out-of-memory in either is carried to both). */
void sf_pb_put_msg(struct sf_pb_buf *b, uint32_t field,
		   struct sf_pb_buf *sub);

/* Write the bytes of `b` to `o` and empty it (write errors are sticky in
 * `o`). */
void sf_pb_flush(struct sf_output *o, struct sf_pb_buf *b);

#endif
