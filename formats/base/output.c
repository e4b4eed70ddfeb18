/* output.c - buffered output (io.h): to a file written through an unnamed
 * or named temporary file and put in place at commit, to a descriptor, or
 * to memory; gzip by zlib or, for pprof, by igzip (gzfast.h), on a second
 * thread with two jobs (outthread.h). */
#include "io.h"
#include "gzfast.h"
#include "outthread.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#define OUT_BUF (256u << 10)

struct sf_output {
	char *name;
	char *final_path;
	char *tmp_path;
	int fd;
	bool anon;         /* fd is an unnamed O_TMPFILE file: tmp_path is
			    * the name it gets linked to at commit */
	bool close_fd;     /* fd opened directly (not a temporary file) */
	bool is_mem;
	bool gz;
	z_stream zs;
	unsigned char *zout;
	unsigned char *buf;
	size_t len, cap;
	int failed;       /* 0, SF_EIO or SF_EPIPE */
	int err_no;
	bool may_thread;  /* compress on a second thread (sf_output_threads) */
	struct sf_outthread *zt;   /* doing so, or NULL */
	struct sf_gzfast *gzf;  /* gzip by igzip (sf_output_set_gzip): in
				 * place of zs, through zout */
};

/* The temporary file being written, for signal handlers. */
static char *volatile g_tmp_path;

void sf_output_signal_cleanup(void)
{
	char *p = g_tmp_path;

	if (p)
		unlink(p);
}

/* A write failure into *failed and *err_no: the output's own, or the
 * compressing thread's. */
static void fail_into(int *failed, int *err_no, int err)
{
	if (*failed)
		return;
	*err_no = err;
	*failed = err == EPIPE ? SF_EPIPE : SF_EIO;
}

static void out_fail(struct sf_output *o, int err)
{
	fail_into(&o->failed, &o->err_no, err);
}

static void write_all(int fd, const unsigned char *p, size_t n, int *failed,
		      int *err_no)
{
	while (n && !*failed) {
		ssize_t r = write(fd, p, n);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			fail_into(failed, err_no, errno);
			return;
		}
		p += r;
		n -= (size_t)r;
	}
}

static void write_fd(struct sf_output *o, const unsigned char *p, size_t n)
{
	write_all(o->fd, p, n, &o->failed, &o->err_no);
}

struct emit_to {
	struct sf_output *o;
	int *failed, *err_no;
};

static void emit_fd(void *arg, const unsigned char *p, size_t n)
{
	struct emit_to *e = arg;

	write_all(e->o->fd, p, n, e->failed, e->err_no);
}

/* Compress in[0..n) with `zflush` (Z_FINISH: the end) and write what
 * comes out. */
static void deflate_out(struct sf_output *o, unsigned char *in, size_t n,
			int zflush, int *failed, int *err_no)
{
	if (o->gzf) {
		struct emit_to e = { o, failed, err_no };
		if (sf_gzfast_feed(o->gzf, in, n, zflush == Z_FINISH,
				   o->zout, OUT_BUF, emit_fd, &e)) {
			errno = EIO;
			fail_into(failed, err_no, EIO);
		}
		return;
	}
	o->zs.next_in = in;
	o->zs.avail_in = (uInt)n;
	do {
		o->zs.next_out = o->zout;
		o->zs.avail_out = OUT_BUF;
		int zr = deflate(&o->zs, zflush);
		if (zr == Z_STREAM_ERROR) {
			errno = EIO;
			fail_into(failed, err_no, EIO);
			return;
		}
		write_all(o->fd, o->zout, OUT_BUF - o->zs.avail_out, failed,
			  err_no);
	} while (o->zs.avail_out == 0 && !*failed);
}

/* The output's compressing thread's work (outthread.h): one buffer. */
static void deflate_job(void *arg, unsigned char *buf, size_t len, int flag,
			int *failed, int *err_no)
{
	deflate_out(arg, buf, len, flag, failed, err_no);
}

/*
 * With sf_output_threads, a gzip output's buffers are compressed and
 * written on a second thread while the writer fills the next one.  The
 * thread makes the same deflate calls, with the same input and flush, in
 * the same order as on the writer's thread, so the bytes are the same;
 * only when they are made changes.  It owns zs, zout and fd while it
 * runs.  No thread (out of memory, none can be started): as without.
 */
static void gz_thread_start(struct sf_output *o)
{
	if (o->may_thread && (o->gz || o->gzf) && !o->is_mem && !o->zt)
		o->zt = sf_outthread_start(deflate_job, o, malloc(o->cap));
}

static void gz_thread_stop(struct sf_output *o)
{
	sf_outthread_stop(o->zt, &o->failed, &o->err_no);
	o->zt = NULL;
}

static void flush_buf(struct sf_output *o, int zflush)
{
	if (o->failed || o->is_mem)
		return;
	if (!o->gz && !o->gzf) {
		write_fd(o, o->buf, o->len);
		o->len = 0;
		return;
	}
	if (o->zt) {
		/* hand the filled buffer over and go on with the other (or,
		 * after a failure, this one: the caller may still copy into
		 * it) */
		o->buf = sf_outthread_hand(o->zt, o->buf, o->len, zflush,
					   &o->failed, &o->err_no);
		o->len = 0;
		return;
	}
	deflate_out(o, o->buf, o->len, zflush, &o->failed, &o->err_no);
	o->len = 0;
}

static int output_alloc(struct sf_output **out, struct sf_ctx *ctx,
			const char *name)
{
	struct sf_output *o = calloc(1, sizeof(*o));

	if (!o || !(o->name = strdup(name)) ||
	    !(o->buf = malloc(o->cap = OUT_BUF))) {
		if (o) {
			free(o->name);
			free(o);
		}
		return sf_error(ctx, SF_ENOMEM, name, 0, "out of memory");
	}
	o->fd = -1;
	*out = o;
	return 0;
}

/* Put a fresh ".BASE.XXXXXX" name (BASE cut so that the name fits in
 * NAME_MAX) for `path` into o->tmp_path. */
static int tmp_name(struct sf_output *o, struct sf_ctx *ctx, const char *path)
{
	const char *slash = strrchr(path, '/');
	size_t dirlen = slash ? (size_t)(slash - path) + 1 : 0;
	const char *base = slash ? slash + 1 : path;
	size_t blen = strlen(base), n = dirlen + blen + 16;

	if (blen > NAME_MAX - 8)
		blen = NAME_MAX - 8;
	if (!o->tmp_path && !(o->tmp_path = malloc(n)))
		return sf_error(ctx, SF_ENOMEM, path, 0, "out of memory");
	snprintf(o->tmp_path, n, "%.*s.%.*s.XXXXXX", (int)dirlen, path,
		 (int)blen, base);
	return 0;
}

/* Fill the XXXXXX that ends o->tmp_path with random letters. */
static void tmp_random(struct sf_output *o)
{
	static const char abc[] = "abcdefghijklmnopqrstuvwxyz"
				  "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	unsigned char r[6];
	char *x = o->tmp_path + strlen(o->tmp_path) - 6;

	if (getrandom(r, sizeof(r), 0) != (ssize_t)sizeof(r)) {
		unsigned long v = (unsigned long)getpid() ^
				  (unsigned long)(uintptr_t)o ^
				  (unsigned long)random();
		for (int i = 0; i < 6; i++, v >>= 5)
			r[i] = (unsigned char)v;
	}
	for (int i = 0; i < 6; i++)
		x[i] = abc[r[i] % (sizeof(abc) - 1)];
}

/*
 * The temporary file for a named output.  Where the file system allows
 * it, an unnamed O_TMPFILE file in the directory of `path`: it has no
 * name until the commit links it, so nothing is left behind whatever
 * kills the process.  Elsewhere ".BASE.XXXXXX" beside it (see
 * docs/RELIABILITY.md).  Over an existing regular file, the new file gets
 * its permission bits and group (and owner, for root), so -o does not
 * widen a 0600 file.
 */
static int open_tmp(struct sf_output *o, struct sf_ctx *ctx, const char *path)
{
	const char *slash = strrchr(path, '/');
	struct stat old;
	bool had = !stat(path, &old);
	int rc;

	if (!(o->final_path = strdup(path)))
		return sf_error(ctx, SF_ENOMEM, path, 0, "out of memory");
	if ((rc = tmp_name(o, ctx, path)))
		return rc;
	char *dir = slash ? strndup(path, (size_t)(slash - path) + 1) :
			    strdup(".");
	if (!dir)
		return sf_error(ctx, SF_ENOMEM, path, 0, "out of memory");
	o->fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
	free(dir);
	if (o->fd >= 0) {
		o->anon = true;
	} else {
		/* Signals stay blocked from the file's creation until the
		 * handler can find it: a SIGINT in between (a test sees the
		 * file appear and sends one at once) would leave it behind. */
		sigset_t all, oldmask;
		sigfillset(&all);
		pthread_sigmask(SIG_BLOCK, &all, &oldmask);
		o->fd = mkostemp(o->tmp_path, O_CLOEXEC);
		if (o->fd >= 0)
			g_tmp_path = o->tmp_path;
		pthread_sigmask(SIG_SETMASK, &oldmask, NULL);
		if (o->fd < 0) {
			rc = sf_error(ctx, SF_EIO, path, 0, "cannot create: %s",
				      strerror(errno));
			free(o->tmp_path);
			o->tmp_path = NULL;
			return rc;
		}
	}
	if (had) {
		/* root may keep the owner too; a user keeps the group when
		 * it is one of theirs (else the file gets theirs) */
		if (fchown(o->fd, old.st_uid, old.st_gid) &&
		    fchown(o->fd, (uid_t)-1, old.st_gid))
			old.st_mode &= ~(mode_t)S_ISGID;
		fchmod(o->fd, old.st_mode & 07777);
	} else {
		/* mkstemp makes 0600; give the file the usual mode */
		mode_t um = umask(0);
		umask(um);
		fchmod(o->fd, 0666 & ~um);
	}
	return 0;
}

/* Give the unnamed file its temporary name (at commit, before the
 * rename).  Signals are blocked until the handler can find the name. */
static int link_tmp(struct sf_output *o)
{
	char proc[64];
	sigset_t all, oldmask;
	int r = -1;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", o->fd);
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &oldmask);
	for (int tries = 0; tries < 100; tries++) {
		tmp_random(o);
		/* AT_EMPTY_PATH needs CAP_DAC_READ_SEARCH; /proc does not */
		r = linkat(o->fd, "", AT_FDCWD, o->tmp_path, AT_EMPTY_PATH);
		if (r && errno != EEXIST)
			r = linkat(AT_FDCWD, proc, AT_FDCWD, o->tmp_path,
				   AT_SYMLINK_FOLLOW);
		if (!r || errno != EEXIST)
			break;
	}
	if (!r) {
		o->anon = false;
		g_tmp_path = o->tmp_path;
	}
	pthread_sigmask(SIG_SETMASK, &oldmask, NULL);
	return r;
}

int sf_output_open(struct sf_output **out, struct sf_ctx *ctx,
		   const char *path, bool gzip)
{
	struct sf_output *o;
	bool is_stdout = !path || !strcmp(path, "-");
	int rc;

	if ((rc = output_alloc(&o, ctx, is_stdout ? "-" : path)))
		return rc;
	struct stat st;
	if (is_stdout) {
		o->fd = 1;
	} else if (!stat(path, &st) && !S_ISREG(st.st_mode)) {
		/* a device, FIFO or socket (/dev/null, a named pipe): write
		 * to it directly; a temporary file renamed over it would
		 * replace the device with a regular file */
		o->fd = open(path, O_WRONLY | O_CLOEXEC);
		if (o->fd < 0) {
			rc = sf_error(ctx, SF_EIO, path, 0, "cannot open: %s",
				      strerror(errno));
			sf_output_abort(o);
			return rc;
		}
		o->close_fd = true;
	} else if ((rc = open_tmp(o, ctx, path))) {
		sf_output_abort(o);
		return rc;
	}
	if (gzip) {
		o->gz = true;
		if (!(o->zout = malloc(OUT_BUF)) ||
		    deflateInit2(&o->zs, 6, Z_DEFLATED, 16 + MAX_WBITS, 8,
				 Z_DEFAULT_STRATEGY) != Z_OK) {
			o->gz = false;
			sf_output_abort(o);
			return sf_error(ctx, SF_ENOMEM, path, 0,
					"cannot start gzip compression");
		}
	}
	*out = o;
	return 0;
}

int sf_output_set_gzip(struct sf_output *o, struct sf_ctx *ctx)
{
	if (o->gzf || o->is_mem)
		return 0;
	if (o->gz) {
		/* opened as gzip (-o x.pb.gz): the same bytes as to a pipe,
		 * unless the stream has begun */
		gz_thread_stop(o);
		if (o->zs.total_in || o->failed) {
			gz_thread_start(o);
			return 0;
		}
		deflateEnd(&o->zs);
		o->gz = false;
	}
	if ((!o->zout && !(o->zout = malloc(OUT_BUF))) ||
	    !(o->gzf = sf_gzfast_new()))
		return sf_error(ctx, SF_ENOMEM, o->name, 0, "out of memory");
	gz_thread_start(o);
	return 0;
}

void sf_output_threads(struct sf_output *o, unsigned jobs)
{
	o->may_thread = jobs > 1;
	gz_thread_start(o);
}

int sf_output_mem(struct sf_output **out, struct sf_ctx *ctx)
{
	int rc = output_alloc(out, ctx, "<memory>");

	if (!rc)
		(*out)->is_mem = true;
	return rc;
}

const char *sf_output_mem_data(const struct sf_output *o, size_t *size)
{
	*size = o->len;
	return (const char *)o->buf;
}

void sf_output_mem_clear(struct sf_output *o)
{
	/* an output in memory fails only when it cannot grow: cleared, it
	 * may be used again */
	o->len = 0;
	o->failed = 0;
	o->err_no = 0;
}

void sf_output_write(struct sf_output *o, const void *buf, size_t n)
{
	/* nothing to write: a caller may pass an empty name's NULL text,
	 * which memcpy must never see, even with n 0 */
	if (o->failed || !n)
		return;
	if (o->len + n > o->cap) {
		if (o->is_mem) {
			size_t ncap = o->cap;
			while (ncap < o->len + n)
				ncap *= 2;
			unsigned char *nb = realloc(o->buf, ncap);
			if (!nb) {
				out_fail(o, ENOMEM);
				return;
			}
			o->buf = nb;
			o->cap = ncap;
		} else if (o->gzf) {
			/* the buffer filled whole before it is compressed:
			 * the pieces, and so igzip's bytes, do not depend on
			 * the writes' sizes */
			const unsigned char *p = buf;
			while (o->len + n > o->cap && !o->failed) {
				size_t k = o->cap - o->len;
				memcpy(o->buf + o->len, p, k);
				o->len = o->cap;
				p += k;
				n -= k;
				flush_buf(o, Z_NO_FLUSH);
			}
			if (o->failed)
				return;
			buf = p;
		} else {
			flush_buf(o, Z_NO_FLUSH);
			if (n >= o->cap) {
				/* large block: write through */
				if (!o->gz) {
					write_fd(o, buf, n);
				} else {
					o->len = 0;
					const unsigned char *p = buf;
					while (n && !o->failed) {
						size_t k = n < o->cap ? n :
								      o->cap;
						memcpy(o->buf, p, k);
						o->len = k;
						flush_buf(o, Z_NO_FLUSH);
						p += k;
						n -= k;
					}
				}
				return;
			}
		}
	}
	memcpy(o->buf + o->len, buf, n);
	o->len += n;
}

void sf_output_puts(struct sf_output *o, const char *s)
{
	sf_output_write(o, s, strlen(s));
}

void sf_output_putc(struct sf_output *o, int c)
{
	if (o->len < o->cap) {
		o->buf[o->len++] = (unsigned char)c;
		return;
	}
	char ch = (char)c;
	sf_output_write(o, &ch, 1);
}

void sf_output_printf(struct sf_output *o, const char *fmt, ...)
{
	char small[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n < sizeof(small)) {
		sf_output_write(o, small, (size_t)n);
		return;
	}
	char *big = malloc((size_t)n + 1);
	if (!big) {
		out_fail(o, ENOMEM);
		return;
	}
	va_start(ap, fmt);
	vsnprintf(big, (size_t)n + 1, fmt, ap);
	va_end(ap);
	sf_output_write(o, big, (size_t)n);
	free(big);
}

int sf_output_failed(const struct sf_output *o)
{
	return o->failed;
}

const char *sf_output_name(const struct sf_output *o)
{
	return o->name;
}

static void output_free(struct sf_output *o)
{
	gz_thread_stop(o);
	if (o->gz)
		deflateEnd(&o->zs);
	sf_gzfast_free(o->gzf);
	free(o->zout);
	free(o->buf);
	free(o->name);
	free(o->final_path);
	free(o->tmp_path);
	free(o);
}

int sf_output_commit(struct sf_output *o, struct sf_ctx *ctx)
{
	int rc = 0;

	if (o->is_mem) {
		output_free(o);
		return 0;
	}
	flush_buf(o, o->gz || o->gzf ? Z_FINISH : Z_NO_FLUSH);
	gz_thread_stop(o);
	if (!o->failed && o->tmp_path && fsync(o->fd) && errno != EINVAL)
		out_fail(o, errno);
	if (!o->failed && o->anon && link_tmp(o))
		out_fail(o, errno);
	/* stdout is not closed here: a pipe reader that went away shows up
	 * as EPIPE on the writes above */
	if (o->tmp_path || o->close_fd) {
		if (close(o->fd) && !o->failed)
			out_fail(o, errno);
		o->fd = -1;
	}
	if (o->failed) {
		if (o->failed == SF_EPIPE)
			rc = sf_error(ctx, SF_EPIPE, o->name, 0,
				      "broken pipe");
		else
			rc = sf_error(ctx, SF_EIO, o->name, 0,
				      "write error: %s", strerror(o->err_no));
		sf_output_abort(o);
		return rc;
	}
	if (o->tmp_path) {
		if (rename(o->tmp_path, o->final_path)) {
			rc = sf_error(ctx, SF_EIO, o->final_path, 0,
				      "cannot rename into place: %s",
				      strerror(errno));
			sf_output_abort(o);
			return rc;
		}
		g_tmp_path = NULL;
	}
	output_free(o);
	return 0;
}

void sf_output_abort(struct sf_output *o)
{
	if (!o)
		return;
	/* the compressing thread writes to fd until it ends */
	gz_thread_stop(o);
	if (o->close_fd && o->fd >= 0)
		close(o->fd);
	if (o->tmp_path) {
		if (o->fd >= 0)
			close(o->fd);
		if (!o->anon)
			unlink(o->tmp_path);
		if (g_tmp_path == o->tmp_path)
			g_tmp_path = NULL;
	}
	output_free(o);
}
