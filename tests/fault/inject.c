/*
 * inject.c - an LD_PRELOAD shim that makes read(), write(), close() and
 * fsync() misbehave on demand, to test that sftools checks every I/O call
 * (the idea of jq's src/inject_errors.c, driven by an environment variable
 * instead of file names).
 *
 *   cc -shared -fPIC -o inject.so tests/fault/inject.c -ldl
 *   SF_FAULT=SPEC[,SPEC...] LD_PRELOAD=./inject.so sfconv ...
 *
 * SPEC is one of
 *   OP:N:ERR     the Nth call of OP fails with errno ERR (only that one)
 *   OP:N+:ERR    the Nth call and every later one fail (a full disk)
 *   shortread    every read() returns at most 1..7 bytes
 *   shortwrite   every write() writes at most 1..7 bytes
 *   signal:OP:N:SIG   raise signal SIG (INT, TERM, HUP, KILL) before the
 *                Nth OP
 *   notmpfile    open() with O_TMPFILE fails with EOPNOTSUPP, as on a file
 *                system without unnamed temporary files
 *   cutmapped    a regular file mapped read-only is cut to half its size
 *                right after mmap() maps it, as another process truncating
 *                an input while it is read would (reads past the new end
 *                raise SIGBUS)
 * OP is read, write, close or fsync; ERR is ENOSPC, EIO, EPIPE, EFBIG,
 * EINTR or EAGAIN.  Calls are counted per OP.  write, close and fsync count
 * (and fail) only on descriptors open for writing other than stderr, so
 * messages still get out and closing an input does not count; read counts
 * every descriptor.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

enum op { OP_READ, OP_WRITE, OP_CLOSE, OP_FSYNC, NOPS };

struct rule {
	enum op op;
	unsigned long n;
	int sticky;
	int err;      /* errno, or 0 for a signal rule */
	int sig;
};

static struct rule rules[16];
static int nrules;
static int short_read, short_write, no_tmpfile;
static unsigned long calls[NOPS];
static int parsed;

static ssize_t (*real_read)(int, void *, size_t);
static ssize_t (*real_write)(int, const void *, size_t);
static int (*real_close)(int);
static int (*real_fsync)(int);

static int op_of(const char *s, size_t n)
{
	static const char *const names[NOPS] = { "read", "write", "close",
						 "fsync" };
	for (int i = 0; i < NOPS; i++)
		if (strlen(names[i]) == n && !strncmp(s, names[i], n))
			return i;
	return -1;
}

static int errno_of(const char *s)
{
	static const struct { const char *n; int e; } t[] = {
		{ "ENOSPC", ENOSPC }, { "EIO", EIO }, { "EPIPE", EPIPE },
		{ "EFBIG", EFBIG }, { "EINTR", EINTR }, { "EAGAIN", EAGAIN },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (!strcmp(s, t[i].n))
			return t[i].e;
	return EIO;
}

static int signal_of(const char *s)
{
	if (!strcmp(s, "TERM"))
		return SIGTERM;
	if (!strcmp(s, "HUP"))
		return SIGHUP;
	if (!strcmp(s, "KILL"))
		return SIGKILL;
	return SIGINT;
}

/* Parse SF_FAULT once (the getenv copy is not modified). */
static void parse(void)
{
	char buf[512];
	const char *env = getenv("SF_FAULT");

	parsed = 1;
	real_read = (ssize_t (*)(int, void *, size_t))dlsym(RTLD_NEXT, "read");
	real_write = (ssize_t (*)(int, const void *, size_t))dlsym(RTLD_NEXT,
								 "write");
	real_close = (int (*)(int))dlsym(RTLD_NEXT, "close");
	real_fsync = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
	if (!env)
		return;
	strncpy(buf, env, sizeof(buf) - 1);
	buf[sizeof(buf) - 1] = 0;
	for (char *save, *spec = strtok_r(buf, ",", &save); spec;
	     spec = strtok_r(NULL, ",", &save)) {
		struct rule r = { 0 };
		char *f[4];
		int nf = 0;
		if (!strcmp(spec, "shortread")) {
			short_read = 1;
			continue;
		}
		if (!strcmp(spec, "shortwrite")) {
			short_write = 1;
			continue;
		}
		if (!strcmp(spec, "notmpfile")) {
			no_tmpfile = 1;
			continue;
		}
		if (!strcmp(spec, "cutmapped"))
			continue;       /* mmap() looks for it itself */
		for (char *s2, *t = strtok_r(spec, ":", &s2); t && nf < 4;
		     t = strtok_r(NULL, ":", &s2))
			f[nf++] = t;
		if (nf == 4 && !strcmp(f[0], "signal")) {
			r.op = (enum op)op_of(f[1], strlen(f[1]));
			r.n = strtoul(f[2], NULL, 10);
			r.sig = signal_of(f[3]);
		} else if (nf == 3) {
			size_t l = strlen(f[1]);
			r.op = (enum op)op_of(f[0], strlen(f[0]));
			r.n = strtoul(f[1], NULL, 10);
			r.sticky = l && f[1][l - 1] == '+';
			r.err = errno_of(f[2]);
		} else {
			continue;
		}
		if ((int)r.op >= 0 && nrules < 16)
			rules[nrules++] = r;
	}
}

/* Is `fd` one the write-side rules apply to? */
static int writable(int fd)
{
	int fl;

	if (fd == 2)
		return 0;
	fl = fcntl(fd, F_GETFL);
	return fl >= 0 && (fl & O_ACCMODE) != O_RDONLY;
}

/* Count a call of `op`; returns the errno to fail with, or 0. */
static int hit(enum op op)
{
	unsigned long k = ++calls[op];

	for (int i = 0; i < nrules; i++) {
		const struct rule *r = &rules[i];
		if (r->op != op)
			continue;
		if (r->sig && k == r->n)
			raise(r->sig);
		if (r->err && (k == r->n || (r->sticky && k > r->n)))
			return r->err;
	}
	return 0;
}

ssize_t read(int fd, void *buf, size_t n)
{
	int e;

	if (!parsed)
		parse();
	if ((e = hit(OP_READ))) {
		errno = e;
		return -1;
	}
	if (short_read && n > 1)
		n = n < 1 + calls[OP_READ] % 7 ? n : 1 + calls[OP_READ] % 7;
	return real_read(fd, buf, n);
}

ssize_t write(int fd, const void *buf, size_t n)
{
	int e;

	if (!parsed)
		parse();
	if (!writable(fd))
		return real_write(fd, buf, n);
	if ((e = hit(OP_WRITE))) {
		errno = e;
		return -1;
	}
	if (short_write && n > 1)
		n = n < 1 + calls[OP_WRITE] % 7 ? n : 1 + calls[OP_WRITE] % 7;
	return real_write(fd, buf, n);
}

int close(int fd)
{
	int e;

	if (!parsed)
		parse();
	if (!writable(fd))
		return real_close(fd);
	if ((e = hit(OP_CLOSE))) {
		/* like NFS or a full quota: the descriptor is gone anyway */
		real_close(fd);
		errno = e;
		return -1;
	}
	return real_close(fd);
}

int fsync(int fd)
{
	int e;

	if (!parsed)
		parse();
	if (!writable(fd))
		return real_fsync(fd);
	if ((e = hit(OP_FSYNC))) {
		errno = e;
		return -1;
	}
	return real_fsync(fd);
}

/* open(), and open64() as its alias (the same call on 64-bit glibc):
 * only notmpfile changes anything */
int open(const char *path, int flags, ...)
{
	mode_t mode = 0;
	va_list ap;
	int (*real)(const char *, int, ...);

	va_start(ap, flags);
	if (flags & (O_CREAT | __O_TMPFILE))
		mode = (mode_t)va_arg(ap, int);
	va_end(ap);
	if (!parsed)
		parse();
	if (no_tmpfile && (flags & O_TMPFILE) == O_TMPFILE) {
		errno = EOPNOTSUPP;
		return -1;
	}
	real = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, "open");
	return real(path, flags, mode);
}

int open64(const char *path, int flags, ...) __attribute__((alias("open")));

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	static void *(*real_mmap)(void *, size_t, int, int, int, off_t);
	struct stat st;
	char link[64], path[4096];
	void *p;
	ssize_t n;

	/* not parse(): a sanitizer's runtime maps memory before the
	 * environment is set up, and parse() reads SF_FAULT only once */
	static int cut_mapped = -1;
	const char *env = cut_mapped < 0 ? getenv("SF_FAULT") : NULL;
	if (env)
		cut_mapped = strstr(env, "cutmapped") != NULL;
	if (!real_mmap)
		real_mmap = (void *(*)(void *, size_t, int, int, int, off_t))
			dlsym(RTLD_NEXT, "mmap");
	p = real_mmap(addr, len, prot, flags, fd, off);
	if (cut_mapped != 1 || p == MAP_FAILED || fd < 0 || (prot & PROT_EXEC) ||
	    fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size < 2)
		return p;
	/* the descriptor is read-only: cut the file through its name */
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, path, sizeof(path) - 1);
	if (n > 0) {
		path[n] = 0;
		if (truncate(path, st.st_size / 2) == 0)
			cut_mapped = 0;    /* once */
	}
	return p;
}
