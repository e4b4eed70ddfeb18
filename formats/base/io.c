/* io.c - streaming input: files, stdin and memory, gzip inflated
 * transparently, lines, ranges of a file for its parts, and a file read
 * where it is mapped (io.h).  The buffered output is output.c. */
#include "io.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#define IN_BUF (1u << 20)
#define ZBUF (256u << 10)

struct sf_input {
	char *name;
	int fd;
	bool own_fd;
	const unsigned char *mem;   /* raw source when reading memory */
	size_t memsize, mempos;
	bool raw_eof;

	bool gz;
	bool gz_done;               /* a member ended and no data follows */
	z_stream zs;
	unsigned char *zbuf;        /* compressed bytes */
	uint64_t total_out;

	unsigned char *buf;         /* decompressed bytes [pos, end) */
	size_t cap, pos, end;
	bool eof;                   /* no more bytes beyond `end` */
	uint64_t base;              /* stream offset of buf[0] */
	uint64_t lineno;
	size_t scanned;             /* bytes after pos known to hold no LF */
	/* sf_input_view: the lines are read where they are, not NUL-
	 * terminated.  buf is a window of the file mapped (view_map,
	 * view_len bytes: file pages, then a page of zeroes), which fill()
	 * moves on (view_slide); the stream is the file's bytes
	 * [view_start, view_stop).  Or the memory input's own bytes
	 * (view_map NULL, eof at once). */
	bool view;
	void *view_map;
	size_t view_len;
	uint64_t view_start, view_stop;
	bool range;                 /* sf_input_range: bytes [rpos, rend)
				     * of fd, read with pread */
	uint64_t rpos, rend;
};

static int io_error(struct sf_ctx *ctx, const char *name, const char *what)
{
	return sf_error(ctx, SF_EIO, name, 0, "%s: %s", what, strerror(errno));
}

/* Read raw (possibly compressed) bytes. */
static long raw_read(struct sf_input *in, struct sf_ctx *ctx, void *dst,
		     size_t n)
{
	if (in->raw_eof)
		return 0;
	if (in->range) {
		uint64_t left = in->rend - in->rpos;
		if (n > left)
			n = (size_t)left;
		for (;;) {
			ssize_t r = n ? pread(in->fd, dst, n, (off_t)in->rpos) :
					0;
			if (r > 0) {
				in->rpos += (uint64_t)r;
				return (long)r;
			}
			if (r == 0) {
				in->raw_eof = true;
				return 0;
			}
			if (errno != EINTR)
				return io_error(ctx, in->name, "read error");
			if (sf_interrupted(ctx))
				return sf_error(ctx, SF_EINTR, in->name, 0,
						"interrupted");
		}
	}
	if (in->mem) {
		size_t k = in->memsize - in->mempos;
		if (k > n)
			k = n;
		memcpy(dst, in->mem + in->mempos, k);
		in->mempos += k;
		if (!k)
			in->raw_eof = true;
		return (long)k;
	}
	for (;;) {
		ssize_t r = read(in->fd, dst, n);
		if (r >= 0) {
			if (r == 0)
				in->raw_eof = true;
			return (long)r;
		}
		if (errno == EINTR) {
			if (sf_interrupted(ctx))
				return sf_error(ctx, SF_EINTR, in->name, 0,
						"interrupted");
			continue;
		}
		return io_error(ctx, in->name, "read error");
	}
}

static int gz_start(struct sf_input *in, struct sf_ctx *ctx)
{
	memset(&in->zs, 0, sizeof(in->zs));
	/* 16 + MAX_WBITS: gzip wrapper only */
	if (inflateInit2(&in->zs, 16 + MAX_WBITS) != Z_OK)
		return sf_error(ctx, SF_ENOMEM, in->name, 0,
				"cannot start gzip decompression");
	return 0;
}

/* Append decompressed bytes to buf[end..cap).  Sets in->eof at the end. */
static int view_slide(struct sf_input *in, struct sf_ctx *ctx);

static int fill(struct sf_input *in, struct sf_ctx *ctx)
{
	size_t room = in->cap - 1 - in->end;   /* keep one byte for a NUL */

	if (in->view && !in->eof)
		return view_slide(in, ctx);
	if (in->eof || !room)
		return 0;
	if (!in->gz) {
		long r = raw_read(in, ctx, in->buf + in->end, room);
		if (r < 0)
			return (int)r;
		if (r == 0)
			in->eof = true;
		in->end += (size_t)r;
		return 0;
	}
	for (;;) {
		if (in->gz_done) {
			in->eof = true;
			return 0;
		}
		if (!in->zs.avail_in && !in->raw_eof) {
			long r = raw_read(in, ctx, in->zbuf, ZBUF);
			if (r < 0)
				return (int)r;
			in->zs.next_in = in->zbuf;
			in->zs.avail_in = (uInt)r;
		}
		if (!in->zs.avail_in && in->raw_eof)
			return sf_error_at(ctx, SF_EINPUT, in->name,
					   in->base + in->end,
					   "truncated gzip data (the "
					   "compressed stream ends early)");
		in->zs.next_out = in->buf + in->end;
		in->zs.avail_out = (uInt)(room > UINT32_MAX ? UINT32_MAX :
					  room);
		int zr = inflate(&in->zs, Z_NO_FLUSH);
		size_t got = (size_t)(in->zs.next_out - (in->buf + in->end));
		in->end += got;
		in->total_out += got;
		if (in->total_out > ctx->limits.max_decompressed)
			return sf_error(ctx, SF_ELIMIT, in->name, 0,
					"decompressed input exceeds %llu bytes "
					"(--max-decompressed)",
					(unsigned long long)
					ctx->limits.max_decompressed);
		if (zr == Z_STREAM_END) {
			/* another member may follow */
			if (!in->zs.avail_in && !in->raw_eof) {
				long r = raw_read(in, ctx, in->zbuf, ZBUF);
				if (r < 0)
					return (int)r;
				in->zs.next_in = in->zbuf;
				in->zs.avail_in = (uInt)r;
			}
			if (in->zs.avail_in >= 2 && in->zs.next_in[0] == 0x1f &&
			    in->zs.next_in[1] == 0x8b) {
				inflateReset(&in->zs);
			} else {
				if (in->zs.avail_in)
					sf_warn(ctx, "gzip.trailing",
						"%s: trailing bytes after gzip "
						"data ignored", in->name);
				in->gz_done = true;
			}
		} else if (zr != Z_OK && zr != Z_BUF_ERROR) {
			return sf_error_at(ctx, SF_EINPUT, in->name,
					   in->base + in->end,
					   "corrupt gzip data: %s",
					   in->zs.msg ? in->zs.msg : "error");
		}
		if (got)
			return 0;
		if (zr == Z_BUF_ERROR && in->raw_eof && !in->zs.avail_in)
			return sf_error_at(ctx, SF_EINPUT, in->name,
					   in->base + in->end,
					   "truncated gzip data");
	}
}

static int input_init(struct sf_input *in, struct sf_ctx *ctx)
{
	unsigned char head[4];
	long r;
	size_t n = 0;

	if (sf_big_resize(&in->buf, &in->cap, IN_BUF))
		return sf_error(ctx, SF_ENOMEM, in->name, 0, "out of memory");
	/* sniff the gzip magic from the raw stream */
	while (n < 2) {
		r = raw_read(in, ctx, head + n, 2 - n);
		if (r < 0)
			return (int)r;
		if (r == 0)
			break;
		n += (size_t)r;
	}
	if (n == 2 && head[0] == 0x1f && head[1] == 0x8b) {
		int rc;
		in->gz = true;
		if (!(in->zbuf = malloc(ZBUF)))
			return sf_error(ctx, SF_ENOMEM, in->name, 0,
					"out of memory");
		if ((rc = gz_start(in, ctx)))
			return rc;
		memcpy(in->zbuf, head, 2);
		in->zs.next_in = in->zbuf;
		in->zs.avail_in = 2;
		/* top up so inflate sees the header */
		r = raw_read(in, ctx, in->zbuf + 2, ZBUF - 2);
		if (r < 0)
			return (int)r;
		in->zs.avail_in += (uInt)r;
	} else {
		memcpy(in->buf, head, n);
		in->end = n;
		if (n < 2)
			in->eof = in->raw_eof;
	}
	return 0;
}

int sf_input_open(struct sf_input **out, struct sf_ctx *ctx,
		  const char *path)
{
	struct sf_input *in = calloc(1, sizeof(*in));
	bool is_stdin = !path || !strcmp(path, "-");
	int rc;

	if (!in || !(in->name = strdup(is_stdin ? "-" : path))) {
		free(in);
		return sf_error(ctx, SF_ENOMEM, path, 0, "out of memory");
	}
	if (is_stdin) {
		in->fd = 0;
	} else {
		in->fd = open(path, O_RDONLY | O_CLOEXEC);
		if (in->fd < 0) {
			rc = sf_error(ctx, SF_EIO, path, 0,
				      "cannot open: %s", strerror(errno));
			free(in->name);
			free(in);
			return rc;
		}
		struct stat st;
		if (!fstat(in->fd, &st) && S_ISDIR(st.st_mode)) {
			close(in->fd);
			free(in->name);
			free(in);
			return sf_error(ctx, SF_EIO, path, 0,
					"cannot read: is a directory");
		}
		in->own_fd = true;
	}
	if ((rc = input_init(in, ctx))) {
		sf_input_close(in);
		return rc;
	}
	*out = in;
	return 0;
}

int sf_input_mem(struct sf_input **out, struct sf_ctx *ctx, const void *data,
		 size_t size, const char *name)
{
	struct sf_input *in = calloc(1, sizeof(*in));
	int rc;

	if (!in || !(in->name = strdup(name ? name : "<memory>"))) {
		free(in);
		return sf_error(ctx, SF_ENOMEM, name, 0, "out of memory");
	}
	in->fd = -1;
	in->mem = data ? data : (const unsigned char *)"";
	in->memsize = size;
	if ((rc = input_init(in, ctx))) {
		sf_input_close(in);
		return rc;
	}
	*out = in;
	return 0;
}

void sf_input_close(struct sf_input *in)
{
	if (!in)
		return;
	if (in->gz)
		inflateEnd(&in->zs);
	if (in->own_fd)
		close(in->fd);
	free(in->zbuf);
	if (in->view_map)
		munmap(in->view_map, in->view_len);
	else if (!in->view)
		sf_big_free(in->buf, in->cap);
	free(in->name);
	free(in);
}

const char *sf_input_name(const struct sf_input *in)
{
	return in->name;
}

bool sf_input_gzipped(const struct sf_input *in)
{
	return in->gz;
}

/* Move unread bytes to the front of the buffer. */
static void compact(struct sf_input *in)
{
	if (!in->pos || in->view)
		return;
	memmove(in->buf, in->buf + in->pos, in->end - in->pos);
	in->base += in->pos;
	in->end -= in->pos;
	in->pos = 0;
}

/* Make room for at least `want` unread bytes in the buffer. */
static int reserve(struct sf_input *in, struct sf_ctx *ctx, size_t want)
{
	compact(in);
	if (want + 1 <= in->cap || in->view)
		return 0;     /* a view holds all there is */
	size_t ncap = in->cap;
	/* double, but stop at what is needed: sf_input_line asks for at
	 * most max_line + 2 bytes, and overshooting that (it used to grow
	 * 4x per step) ran out of memory before --max-line could refuse */
	while (ncap < want + 1)
		ncap = ncap * 2 < want + 1 ? ncap * 2 : want + 1;
	if (sf_big_resize(&in->buf, &in->cap, ncap))
		return sf_error(ctx, SF_ENOMEM, in->name, 0, "out of memory");
	return 0;
}

int sf_input_peek(struct sf_input *in, struct sf_ctx *ctx, size_t want,
		  const unsigned char **data, size_t *got)
{
	int rc;

	if (in->end - in->pos < want && (rc = reserve(in, ctx, want)))
		return rc;
	while (in->end - in->pos < want && !in->eof)
		if ((rc = fill(in, ctx)))
			return rc;
	*data = in->buf + in->pos;
	*got = in->end - in->pos < want ? in->end - in->pos : want;
	return 0;
}

int sf_input_line(struct sf_input *in, struct sf_ctx *ctx, char **line,
		  size_t *len)
{
	int rc;

	for (;;) {
		unsigned char *start = in->buf + in->pos;
		size_t avail = in->end - in->pos;
		unsigned char *lf = avail > in->scanned ?
			memchr(start + in->scanned, '\n', avail - in->scanned) :
			NULL;
		if (lf) {
			size_t n = (size_t)(lf - start);
			/* a line that fits in the buffer is checked too, so
			 * --max-line means the same for every line */
			if (n > ctx->limits.max_line)
				goto too_long;
			if (!in->view)
				*lf = 0;
			in->pos += n + 1;
			in->scanned = 0;
			in->lineno++;
			if (n && start[n - 1] == '\r') {
				n--;
				if (!in->view)
					start[n] = 0;
			}
			*line = (char *)start;
			*len = n;
			return 1;
		}
		in->scanned = avail;
		if (in->eof) {
			if (!avail)
				return 0;
			if (avail > ctx->limits.max_line)
				goto too_long;
			if (!in->view)
				in->buf[in->end] = 0;   /* cap > end always */
			in->pos = in->end;
			in->scanned = 0;
			in->lineno++;
			if (avail && start[avail - 1] == '\r') {
				avail--;
				if (!in->view)
					start[avail] = 0;
			}
			*line = (char *)start;
			*len = avail;
			return 1;
		}
		if (avail > ctx->limits.max_line)
			goto too_long;
		if (in->pos) {
			compact(in);
		} else if (in->end + 1 >= in->cap) {
			/* room for the longest allowed line, its LF and a
			 * NUL, and no more: a longer line is refused above
			 * once max_line + 1 bytes are in */
			uint64_t lim = ctx->limits.max_line > UINT64_MAX - 2 ?
				UINT64_MAX : ctx->limits.max_line + 2;
			size_t want = in->cap * 2 - 1;
			if (lim < (uint64_t)want + 1)
				want = (size_t)lim - 1;
			if ((rc = reserve(in, ctx, want)))
				return rc;
		}
		if ((rc = fill(in, ctx)))
			return rc;
	}
too_long:
	return sf_error(ctx, SF_ELIMIT, in->name, in->lineno + 1,
			"line longer than %llu bytes (--max-line)",
			(unsigned long long)ctx->limits.max_line);
}

uint64_t sf_input_lineno(const struct sf_input *in)
{
	return in->lineno;
}

void sf_input_set_lineno(struct sf_input *in, uint64_t n)
{
	in->lineno = n;
}

bool sf_input_file_size(struct sf_input *in, uint64_t *size)
{
	struct stat st;

	/* nothing consumed: the bytes read so far are the file's first */
	if (in->mem || in->range || in->gz || in->fd < 0 || in->base ||
	    in->pos || in->lineno || fstat(in->fd, &st) ||
	    !S_ISREG(st.st_mode) || st.st_size <= 0 ||
	    lseek(in->fd, 0, SEEK_CUR) != (off_t)in->end)
		return false;
	*size = (uint64_t)st.st_size;
	return true;
}

long sf_input_pread(struct sf_input *in, struct sf_ctx *ctx, void *buf,
		    size_t n, uint64_t offset)
{
	for (;;) {
		ssize_t r = pread(in->fd, buf, n, (off_t)offset);
		if (r >= 0)
			return (long)r;
		if (errno != EINTR)
			return io_error(ctx, in->name, "read error");
		if (sf_interrupted(ctx))
			return sf_error(ctx, SF_EINTR, in->name, 0,
					"interrupted");
	}
}

int sf_input_range(struct sf_input **out, struct sf_ctx *ctx,
		   const struct sf_input *whole, uint64_t offset,
		   uint64_t size)
{
	struct sf_input *in = calloc(1, sizeof(*in));
	int rc;

	if (!in || !(in->name = strdup(whole->name))) {
		free(in);
		return sf_error(ctx, SF_ENOMEM, whole->name, 0,
				"out of memory");
	}
	in->fd = whole->fd;
	in->range = true;
	in->rpos = offset;
	in->rend = offset + size;
	if ((rc = input_init(in, ctx))) {
		sf_input_close(in);
		return rc;
	}
	*out = in;
	return 0;
}

const char *sf_input_buffered(const struct sf_input *in, size_t *len)
{
	*len = in->end - in->pos;
	return (const char *)in->buf + in->pos;
}

void sf_input_skip(struct sf_input *in, size_t n, uint64_t lines)
{
	if (n > in->end - in->pos)
		n = in->end - in->pos;
	in->pos += n;
	in->scanned = 0;
	in->lineno += lines;
}

long sf_input_read_some(struct sf_input *in, struct sf_ctx *ctx, void *buf,
			size_t n)
{
	int rc;

	if (in->pos == in->end) {
		in->base += in->pos;
		in->pos = in->end = 0;
		in->scanned = 0;
		while (in->pos == in->end && !in->eof)
			if ((rc = fill(in, ctx)))
				return rc;
	}
	size_t k = in->end - in->pos;
	if (k > n)
		k = n;
	memcpy(buf, in->buf + in->pos, k);
	in->pos += k;
	in->scanned = 0;
	return (long)k;
}

int sf_input_read(struct sf_input *in, struct sf_ctx *ctx, void *buf,
		  size_t n, size_t *got)
{
	size_t done = 0;

	while (done < n) {
		long r = sf_input_read_some(in, ctx, (char *)buf + done,
					    n - done);
		if (r < 0)
			return (int)r;
		if (r == 0)
			break;
		done += (size_t)r;
	}
	if (got)
		*got = done;
	return done == n ? 1 : 0;
}

uint64_t sf_input_offset(const struct sf_input *in)
{
	return in->base + in->pos;
}

int sf_input_slurp(struct sf_input *in, struct sf_ctx *ctx, size_t max,
		   char **data, size_t *size)
{
	size_t cap = 1u << 16, n = 0;
	char *d;

	/* a format that must hold all of its input honours
	 * --max-decompressed for plain input too */
	if (max > ctx->limits.max_decompressed)
		max = (size_t)ctx->limits.max_decompressed;
	if (!(d = malloc(cap)))
		return sf_error(ctx, SF_ENOMEM, in->name, 0, "out of memory");
	for (;;) {
		if (cap - n < 4096) {
			char *nd = realloc(d, cap * 2);
			if (!nd) {
				free(d);
				return sf_error(ctx, SF_ENOMEM, in->name, 0,
						"out of memory");
			}
			d = nd;
			cap *= 2;
		}
		long r = sf_input_read_some(in, ctx, d + n, cap - n - 1);
		if (r < 0) {
			free(d);
			return (int)r;
		}
		if (r == 0)
			break;
		n += (size_t)r;
		if (n > max) {
			free(d);
			return sf_error(ctx, SF_ELIMIT, in->name, 0,
					"input larger than %zu bytes, the "
					"limit for this format", max);
		}
	}
	d[n] = 0;
	*data = d;
	*size = n;
	return 0;
}

/* The page size less one. */
static size_t page_mask(void)
{
	long pg = sysconf(_SC_PAGESIZE);

	return pg > 0 ? (size_t)pg - 1 : 4095;
}

/* A view's window: VIEW_WIN bytes of the file at a time (SF_VIEW_WINDOW,
 * for the tests: smaller), as the 1 MiB buffer was at a time, so that a
 * view takes little more address space than reading did (a mapping of
 * the whole file, or of each thread's part, broke runs near
 * --max-memory).  Moving on is an munmap and an mmap every VIEW_WIN. */
#define VIEW_WIN ((size_t)16 << 20)

static size_t view_win(void)
{
	const char *e = getenv("SF_VIEW_WINDOW");

	if (e && *e) {
		char *end;
		unsigned long long v = strtoull(e, &end, 10);
		if (!*end && v)
			return (size_t)v;
	}
	return VIEW_WIN;
}

/* Map the stream's bytes from file offset `from` on, at least `want` of
 * them (all that is left if fewer), as the window: buf[0] is the byte at
 * `from`.  The old window goes.  0, or -1 when the mapping fails
 * (nothing changed). */
static int view_map_at(struct sf_input *in, uint64_t from, size_t want)
{
	uint64_t mask = page_mask();
	uint64_t at = from & ~mask;
	uint64_t to = from + want;

	if (to > in->view_stop || to < from)
		to = in->view_stop;
	size_t flen = (size_t)(to - at);
	/* the file's pages, then one of zeroes: after a last line cut off
	 * in its page comes a zero, as in a buffer */
	size_t len = (size_t)(((uint64_t)flen + mask) & ~mask) +
		     (size_t)mask + 1;
	void *r = mmap(NULL, len, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);
	if (r == MAP_FAILED)
		return -1;
	if (mmap(r, flen, PROT_READ, MAP_PRIVATE | MAP_FIXED, in->fd,
		 (off_t)at) == MAP_FAILED) {
		munmap(r, len);
		return -1;
	}
	if (in->view_map)
		munmap(in->view_map, in->view_len);
	in->view_map = r;
	in->view_len = len;
	in->buf = (unsigned char *)r + (from - at);
	in->end = (size_t)(to - from);
	in->cap = in->end + 1;
	in->eof = in->raw_eof = to == in->view_stop;
	return 0;
}

/* fill() for a view: the window from the first unread byte on, twice
 * as long as what is unread if that is more than VIEW_WIN (a longer
 * line, up to --max-line as the buffer grew). */
static int view_slide(struct sf_input *in, struct sf_ctx *ctx)
{
	size_t left = in->end - in->pos, want = view_win();
	uint64_t from = in->view_start + in->base + in->pos;

	if (left > want / 2)
		want = left * 2;
	if (view_map_at(in, from, want))
		return sf_error(ctx, SF_ENOMEM, in->name, 0,
				"out of memory (mapping the input)");
	in->base += in->pos;
	in->pos = 0;
	return 0;
}

int sf_input_view(struct sf_input *in, struct sf_ctx *ctx)
{
	/* nothing consumed: buf holds the stream's first `end` bytes */
	if (in->view || in->gz || in->pos || in->base || in->lineno)
		return 0;
	if (in->mem) {
		/* the memory's own bytes; a last LF ends every line */
		if (!in->memsize || in->mem[in->memsize - 1] != '\n' ||
		    in->mempos != in->end)
			return 0;
		sf_big_free(in->buf, in->cap);
		in->buf = (unsigned char *)(uintptr_t)in->mem;
		in->end = in->memsize;
		in->cap = in->end + 1;
		in->eof = in->raw_eof = true;
		in->scanned = 0;
		in->view = true;
		return 1;
	}
	unsigned char *buf = in->buf;
	size_t cap = in->cap;
	uint64_t size;
	/* a window per thread, each at most 1/16 of the memory budget's
	 * share of a thread, as it takes address space */
	if ((uint64_t)view_win() * sf_jobs(ctx) * 16 > ctx->limits.max_memory)
		return 0;
	if (in->range) {
		/* a range of a regular file (sf_read_parallel's parts), as the
		 * file was cut into parts: a file cut short since raises
		 * SIGBUS, as it does under a whole-file view, not a short
		 * part */
		in->view_start = in->rpos - in->end;
		in->view_stop = in->rend;
	} else if (sf_input_file_size(in, &size)) {
		in->view_start = 0;
		in->view_stop = size;
	} else {
		return 0;
	}
	if (in->view_stop <= in->view_start ||
	    view_map_at(in, in->view_start, view_win())) {
		in->buf = buf;
		in->cap = cap;
		return 0;
	}
	sf_big_free(buf, cap);
	in->scanned = 0;
	in->view = true;
	return 1;
}

int sf_input_map(struct sf_input *in, struct sf_ctx *ctx, size_t max,
		 const unsigned char **data, size_t *size)
{
	uint64_t n;

	if (max > ctx->limits.max_decompressed)
		max = (size_t)ctx->limits.max_decompressed;
	if (!sf_input_file_size(in, &n))
		return 0;
	if (n > max)
		return sf_error(ctx, SF_ELIMIT, in->name, 0,
				"input larger than %zu bytes, the limit for "
				"this format", max);
	void *m = mmap(NULL, (size_t)n, PROT_READ, MAP_PRIVATE, in->fd, 0);
	if (m == MAP_FAILED)
		return 0;
	*data = m;
	*size = (size_t)n;
	return 1;
}

void sf_input_unmap(const unsigned char *data, size_t size)
{
	if (data)
		munmap((void *)data, size);
}

void sf_input_unmap_part(const unsigned char *data, size_t size,
			 size_t from, size_t to)
{
	size_t mask = page_mask();
	/* what the calls before unmapped: every whole step below `from` */
	size_t gone = from / SF_INPUT_UNMAP_STEP * SF_INPUT_UNMAP_STEP;

	/* from == size: the call that reached the end unmapped the rest
	 * of the mapping, and those pages may be another mapping's by now */
	if (!data || from >= size)
		return;
	if (to >= size) {
		munmap((void *)(data + gone), ((size + mask) & ~mask) - gone);
		return;
	}
	/* The pages passed are dropped, and unmapped only a whole step at
	 * a time: munmap takes the process's memory map for writing, so it
	 * waits for every page fault and MADV_POPULATE_WRITE under way on
	 * the other threads, and they all wait behind it.  Where the
	 * kernel hands out pages its host has taken back (a VM's free page
	 * reporting), one such populate call lasts milliseconds, and the
	 * reader, unmapping every 2 MiB, stood still through them 50 times
	 * a timeline.  MADV_DONTNEED takes the map for reading and frees
	 * the same resident pages; the address space (which --max-memory
	 * caps) goes back by the step.  The page holding `from` was not
	 * dropped by the last call unless all of it was passed; the one
	 * holding `to` is not dropped yet. */
	size_t upto = to / SF_INPUT_UNMAP_STEP * SF_INPUT_UNMAP_STEP;
	if (upto > gone)
		munmap((void *)(data + gone), upto - gone);
	from &= ~mask;
	if (from < upto)
		from = upto;
	to &= ~mask;
	if (from < to)
		madvise((void *)(data + from), to - from, MADV_DONTNEED);
}
