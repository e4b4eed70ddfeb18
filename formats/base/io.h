/*
 * io.h - streaming input and buffered output.
 *
 * struct sf_input reads a file descriptor or a memory buffer, inflates gzip
 * transparently (detected by its magic, any number of concatenated members),
 * and offers three views of the same stream:
 *   - sf_input_peek: the first bytes, for format detection, without
 *     consuming them;
 *   - sf_input_line: the next line (LF-terminated; the LF is not returned,
 *     a CR before it is), scanned with memchr over a large buffer; the line
 *     number is tracked for messages;
 *   - sf_input_read / sf_input_byte: raw bytes, with the byte offset
 *     tracked for messages.
 * Only the current buffer is held in memory (1 MiB, grown for a longer line
 * up to ctx->limits.max_line), never the whole input; a reader that takes
 * lines by their length may instead read a regular file where it is
 * mapped, a window at a time (sf_input_view).  All zlib calls sit in
 * io.c (input) and output.c (output).
 *
 * struct sf_output is one buffered writer: to a file descriptor, a growable
 * memory buffer, or through gzip.  Errors are sticky: after the first
 * failed write, later writes do nothing, and sf_output_close() reports the
 * error (SF_EIO, or SF_EPIPE when the reader went away).  A named output is
 * written to a temporary file in the same directory and renamed into place
 * by sf_output_commit(); sf_output_abort() (or a failed commit) removes it,
 * so an error never leaves a partial file behind.
 */
#ifndef SF_IO_H
#define SF_IO_H

#include "sf.h"
#include <stdbool.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

struct sf_input;

/* Open `path` ("-" or NULL = stdin).  The name is used in messages. */
int sf_input_open(struct sf_input **out, struct sf_ctx *ctx,
		  const char *path);
/* Read from memory; `data` must outlive the input. */
int sf_input_mem(struct sf_input **out, struct sf_ctx *ctx, const void *data,
		 size_t size, const char *name);
void sf_input_close(struct sf_input *in);

const char *sf_input_name(const struct sf_input *in);
bool sf_input_gzipped(const struct sf_input *in);

/* Up to `want` bytes from the current position without consuming them.
 * *got may be less at the end of input.  The pointer stays valid until the
 * next call on in. */
int sf_input_peek(struct sf_input *in, struct sf_ctx *ctx, size_t want,
		  const unsigned char **data, size_t *got);

/* Next line.  Returns 1 with the line and its length set (the LF removed, a final CR
 * removed too if `strip_cr`), 0 at the end of input, negative on error.  A
 * last line without LF is returned as a line.  The pointer stays valid
 * until the next call. */
int sf_input_line(struct sf_input *in, struct sf_ctx *ctx, char **line,
		  size_t *len);
/* Number of the line returned last (1-based). */
uint64_t sf_input_lineno(const struct sf_input *in);

/* Count `n` lines before the input's first byte: for an input that is a
 * part of a larger one, so line numbers in messages are the whole's.
 * Call it before the first line is read. */
void sf_input_set_lineno(struct sf_input *in, uint64_t n);

/* For reading a file in parts (sf_read_parallel).  sf_input_file_size:
 * true, with the file's size, when `in` is a regular uncompressed file of
 * which nothing has been consumed (a peek is fine); false for standard
 * input from a pipe, gzip data, an empty file, a memory input.  Then
 * sf_input_pread reads bytes at any offset without moving the stream, and
 * sf_input_range opens bytes [offset, offset + size) of it as an input of
 * its own (same name; `whole` must outlive it), read with pread, so parts
 * can be read on several threads at once.  A range input still sniffs the
 * gzip magic at its start: do not start one at bytes 1f 8b. */
bool sf_input_file_size(struct sf_input *in, uint64_t *size);
long sf_input_pread(struct sf_input *in, struct sf_ctx *ctx, void *buf,
		    size_t n, uint64_t offset);
int sf_input_range(struct sf_input **out, struct sf_ctx *ctx,
		   const struct sf_input *whole, uint64_t offset,
		   uint64_t size);

/* Read the rest of `in` in place, without copying it into a buffer: a
 * regular uncompressed file (or sf_input_range of one) is mapped a
 * window at a time (16 MiB, moved on as the lines go by, larger for a
 * longer line), a memory input that ends with a LF is read where it is.
 * For a line reader that takes its lines by their length alone:
 * afterwards the lines of sf_input_line are not NUL-terminated (the byte
 * after a line is its LF or CR, or a zero after a last line without LF)
 * and must not be written to.  Only where nothing was consumed (a peek
 * is fine), and for a file only where the windows of sf_jobs threads
 * take at most 1/16 of ctx->limits.max_memory (they take address
 * space).  Returns 1 when `in` is read so from now on, 0 when it is read
 * as before; never fails.  A range is mapped as it was cut, and a file
 * cut short while it is read so raises SIGBUS on the reading thread, as
 * with sf_input_map. */
int sf_input_view(struct sf_input *in, struct sf_ctx *ctx);

/* The unread bytes already in the buffer (no read is done; possibly none),
 * for a reader that recognises a run of lines it has seen before and skips
 * them whole.  The pointer stays valid until the next call on in. */
const char *sf_input_buffered(const struct sf_input *in, size_t *len);
/* Consume `n` bytes of what sf_input_buffered returned; they hold `lines`
 * whole lines (each ending with its LF), counted into the line number. */
void sf_input_skip(struct sf_input *in, size_t n, uint64_t lines);

/* Exactly `n` bytes into `buf`: returns 1, or 0 if the input ended first
 * (then *got says how many were read), negative on error. */
int sf_input_read(struct sf_input *in, struct sf_ctx *ctx, void *buf,
		  size_t n, size_t *got);
/* Up to `n` bytes; returns the count (0 at the end) or a negative code. */
long sf_input_read_some(struct sf_input *in, struct sf_ctx *ctx, void *buf,
			size_t n);
/* Byte offset of the next byte to be read (decompressed stream). */
uint64_t sf_input_offset(const struct sf_input *in);
/* Whole rest of the input into a malloc'ed buffer (NUL-terminated), for
 * formats whose parser needs it (JSON).  Bounded by `max`: SF_ELIMIT. */
int sf_input_slurp(struct sf_input *in, struct sf_ctx *ctx, size_t max,
		   char **data, size_t *size);
/* The same without the copy, for a regular uncompressed file of which
 * nothing has been consumed (sf_input_file_size): the file mapped whole,
 * read-only, *data valid (*size bytes, not NUL-terminated) until
 * sf_input_unmap.  Returns 1 when mapped; 0 when `in` is no such file or
 * the map failed (read it with sf_input_slurp then), negative on error
 * (SF_ELIMIT past `max`, as sf_input_slurp).  A file cut short while it
 * is mapped raises SIGBUS on a read past its new end. */
int sf_input_map(struct sf_input *in, struct sf_ctx *ctx, size_t max,
		 const unsigned char **data, size_t *size);
void sf_input_unmap(const unsigned char *data, size_t size);
/* The same in parts, for a reader that streams through the mapping and
 * so keeps no more of the file resident than a reader of pieces would:
 * give back data[from..to), which it has passed and will not read again,
 * where `from` is the last call's `to` (0 the first time).  A page goes
 * once all of it is passed: its resident page is dropped at once, its
 * address space unmapped once all of its SF_INPUT_UNMAP_STEP (counted
 * from data) is passed; to == size unmaps the rest of the mapping and
 * stands for sf_input_unmap, which must not follow a call of this. */
#define SF_INPUT_UNMAP_STEP ((size_t)256 << 20)
void sf_input_unmap_part(const unsigned char *data, size_t size,
			 size_t from, size_t to);

/* ----- output ----- */

struct sf_output;

/* Open `path` ("-" or NULL = stdout).  A named file is written through a
 * temporary file.  `gzip` compresses.  */
int sf_output_open(struct sf_output **out, struct sf_ctx *ctx,
		   const char *path, bool gzip);
/* Compress everything written from now on with gzip at level 1, as one
 * gzip member made by igzip (gzfast.h) from the output's buffers as they
 * fill, on the output's second thread where it has one
 * (sf_output_threads), unless `o` is a memory output.  The bytes depend
 * on the data and the writes' sizes, never on the threads.  An output
 * opened with gzip (level 6, zlib's stream) is switched over if nothing
 * was compressed yet, so that `-o x.pb.gz` and a pipe get the same
 * bytes.  Call it before the first write: for writers whose format is
 * always compressed (pprof).  Returns 0 or SF_ENOMEM. */
int sf_output_set_gzip(struct sf_output *o, struct sf_ctx *ctx);
/* How many threads the output may use (sfconv's -j).  With two or more,
 * a gzip output (opened with `gzip`, or sf_output_set_gzip's) compresses
 * and writes on a second thread while the writer fills the next buffer.  The compressor gets the
 * same input with the same flushes in the same order, so the bytes do not
 * change.  Where no thread can be started the output compresses on the
 * caller's thread.  A write failure shows up in sf_output_failed at the
 * next buffer or at commit. */
void sf_output_threads(struct sf_output *o, unsigned jobs);
/* An output into a growable memory buffer (tests, nested writers). */
int sf_output_mem(struct sf_output **out, struct sf_ctx *ctx);
/* The bytes written so far to a memory output. */
const char *sf_output_mem_data(const struct sf_output *o, size_t *size);
/* Empty a memory output, keeping its buffer for the next bytes; a
 * failure to grow it is forgotten too. */
void sf_output_mem_clear(struct sf_output *o);

void sf_output_write(struct sf_output *o, const void *buf, size_t n);
void sf_output_puts(struct sf_output *o, const char *s);
void sf_output_putc(struct sf_output *o, int c);
void sf_output_printf(struct sf_output *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Decimal integer, fast. */
void sf_output_u64(struct sf_output *o, uint64_t v);
void sf_output_i64(struct sf_output *o, int64_t v);
/* A weight: integral values as integers, others in the shortest form that
 * reads back to the same double. */
void sf_output_num(struct sf_output *o, double v);
/* Non-zero once a write failed. */
int sf_output_failed(const struct sf_output *o);
/* The name for messages ("-" for stdout). */
const char *sf_output_name(const struct sf_output *o);

/* Flush, finish gzip, check close, and rename a temporary file into
 * place.  Frees `o`.  Returns 0 or SF_EIO/SF_EPIPE with ctx->err set. */
int sf_output_commit(struct sf_output *o, struct sf_ctx *ctx);
/* Discard: remove the temporary file.  Frees `o`.  Safe with NULL. */
void sf_output_abort(struct sf_output *o);
/* Remove the temporary file of the output being written, if any.  Only
 * async-signal-safe calls: for SIGINT/SIGTERM handlers. */
void sf_output_signal_cleanup(void);

/* Compress data[0..n) into one gzip member in a new malloc'ed buffer
 * (*out, *outlen; the caller frees it), for a writer that embeds
 * compressed bytes in its output (the HTML report).  n must be below
 * 4 GiB.  Returns 0 or SF_ENOMEM with ctx->err set. */
int sf_gzip_mem(struct sf_ctx *ctx, const void *data, size_t n,
		unsigned char **out, size_t *outlen);
/* Shortest decimal form of a double that reads back exactly ("%.17g"
 * trimmed); integral values print without a decimal point. */
int sf_format_num(char *buf, size_t size, double v);

#ifdef __cplusplus
}
#endif
#endif
