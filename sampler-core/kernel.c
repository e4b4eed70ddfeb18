/*
 * kernel.c - the kernel side of a blocked sample (a capture source, see
 * docs/capture-sources.md): the system call a thread waits in, the
 * argument that explains the wait (a file descriptor and what it is, a
 * futex address), the wait channel, and, where /proc lets us read it
 * (root), the kernel stack.
 *
 * A thread's kernel side is read just before it is stopped (a stop
 * interrupts the call, so the kernel stack read after it would show the
 * stop), or between the two schedstat reads of a read without a stop.
 * A stop keeps the record only when its registers show the thread still
 * inside the same call (kern_match).  Records are interned: a
 * sample carries a record id (0: none).
 */
#include "capture_int.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* One record: "NR\nSYSCALL\nFD\nFD-TARGET\nFUTEX\nWCHAN\nKFRAME..." (kernel
 * frames innermost first, one a line; empty fields when unknown). */
struct krec {
	char *key;
	long long nr;           /* the call as /proc showed it */
	long long shown;        /* the call it names (restart_syscall:
				 * the call restarted) */
};

/* a socket inode already described */
struct ksock {
	unsigned long ino;
	char *desc;
};

struct sfc_kern {
	struct krec *recs;      /* recs[0] unused: id 0 is "none" */
	size_t nrecs, caprecs;
	struct sf_idx idx;
	struct ksock *socks;
	size_t nsocks, capsocks;
	bool no_stack;          /* /proc/.../stack refused: said once */
	struct {                /* the last call named for a thread, */
		pid_t tid;      /* direct-mapped by tid: what a */
		long long nr;   /* restart_syscall restarts */
	} last[1024];
	char buf[16384];
};

/* this source's state, behind the session */
#define KERN(s) ((struct sfc_kern *)(s)->src[SFC_SRC_kernel])

#define SC(n) [__NR_##n] = #n,
static const char *const sc_names[] = {
	/* calls of every architecture (asm-generic and x86-64) */
	SC(read) SC(write) SC(close) SC(nanosleep) SC(wait4) SC(pread64)
	SC(pwrite64) SC(readv) SC(writev) SC(sendfile) SC(flock)
#ifdef __NR_open
	/* the older calls x86-64 keeps and asm-generic dropped */
	SC(open) SC(poll) SC(select) SC(pause) SC(epoll_wait) SC(vfork)
	SC(fork) SC(alarm) SC(renameat)
#endif
#ifdef __NR_ioctl
	SC(ioctl) SC(fcntl) SC(fsync) SC(fdatasync) SC(sched_yield)
	SC(mmap) SC(munmap) SC(brk) SC(msync) SC(accept) SC(accept4)
	SC(connect) SC(recvfrom) SC(recvmsg) SC(sendto) SC(sendmsg)
	SC(recvmmsg) SC(sendmmsg) SC(futex) SC(clock_nanosleep)
	SC(epoll_pwait) SC(ppoll) SC(pselect6) SC(waitid) SC(openat)
	SC(rt_sigsuspend) SC(rt_sigtimedwait) SC(clone) SC(execve)
	SC(exit) SC(exit_group) SC(io_getevents) SC(restart_syscall)
	SC(splice) SC(tee) SC(sync) SC(syncfs) SC(semop) SC(semtimedop)
	SC(msgrcv) SC(msgsnd) SC(mq_timedreceive) SC(mq_timedsend)
	SC(getrandom) SC(copy_file_range) SC(sync_file_range)
	SC(fallocate) SC(mkdirat) SC(unlinkat) SC(getdents64)
	SC(newfstatat) SC(statx) SC(madvise) SC(mprotect) SC(kill)
	SC(tgkill) SC(getpid) SC(gettid)
#endif
#ifdef __NR_io_uring_enter
	SC(io_uring_enter)
#endif
#ifdef __NR_epoll_pwait2
	SC(epoll_pwait2)
#endif
#ifdef __NR_futex_waitv
	SC(futex_waitv)
#endif
#ifdef __NR_clone3
	SC(clone3)
#endif
};
#undef SC

/* calls whose first argument is the file descriptor waited on */
static bool fd_call(long long nr)
{
	static const int fdc[] = {
		__NR_read, __NR_write, __NR_pread64, __NR_pwrite64,
		__NR_readv, __NR_writev, __NR_flock,
#ifdef __NR_epoll_wait
		__NR_epoll_wait,
#endif
		__NR_ioctl, __NR_fsync, __NR_fdatasync, __NR_accept,
		__NR_accept4, __NR_connect, __NR_recvfrom, __NR_recvmsg,
		__NR_recvmmsg, __NR_sendto, __NR_sendmsg, __NR_sendmmsg,
		__NR_epoll_pwait, __NR_getdents64, __NR_splice,
	};

	for (size_t i = 0; i < sizeof(fdc) / sizeof(*fdc); i++)
		if (fdc[i] == nr)
			return true;
	return false;
}

static const char *syscall_name(long long nr, char *buf, size_t size)
{
	if (nr >= 0 && (size_t)nr < sizeof(sc_names) / sizeof(*sc_names) &&
	    sc_names[nr])
		return sc_names[nr];
	snprintf(buf, size, "%lld", nr);
	return buf;
}

static int kern_open(struct sfc_session *s)
{
	struct sfc_kern *k = sf_calloc(1, sizeof(*k));

	if (!(s->src[SFC_SRC_kernel] = k))
		return -1;
	k->nrecs = 1;
	return 0;
}

static void kern_close(struct sfc_session *s)
{
	struct sfc_kern *k = KERN(s);

	if (!k)
		return;
	for (size_t i = 1; i < k->nrecs; i++)
		free(k->recs[i].key);
	free(k->recs);
	for (size_t i = 0; i < k->nsocks; i++)
		free(k->socks[i].desc);
	free(k->socks);
	sf_idx_free(&k->idx);
	free(k);
	s->src[SFC_SRC_kernel] = NULL;
}

/* Append text to b (at *len, room size), dropping what does not fit and
 * any newline (the field separator). */
static void put(char *b, size_t *len, size_t size, const char *text)
{
	for (; *text && *len + 1 < size; text++)
		b[(*len)++] = *text == '\n' ? ' ' : *text;
	b[*len] = 0;
}

/* End a field */
static void sep(char *b, size_t *len, size_t size)
{
	if (*len + 1 < size)
		b[(*len)++] = '\n';
	b[*len] = 0;
}

/* "ADDR:PORT" from /proc/net's hex "0100007F:1F90" (IPv4) or 32 hex
 * digits (IPv6, shown as hex groups) */
static void net_addr(const char *hex, char *out, size_t size)
{
	unsigned a, port;
	const char *c = strchr(hex, ':');

	if (!c || sscanf(c + 1, "%x", &port) != 1) {
		snprintf(out, size, "?");
		return;
	}
	if (c - hex == 8 && sscanf(hex, "%8x", &a) == 1) {
		snprintf(out, size, "%u.%u.%u.%u:%u", a & 255, a >> 8 & 255,
			 a >> 16 & 255, a >> 24, port);
		return;
	}
	snprintf(out, size, "[%.*s]:%u", (int)(c - hex), hex, port);
}

/* Look for socket inode `ino` in /proc/PID/net/FILE; its description
 * into out.  The TCP/UDP tables: "sl local rem st tx:rx tr:when retr uid
 * timeout inode"; unix: "Num RefCount Protocol Flags Type St Inode
 * Path". */
static bool sock_in(pid_t pid, const char *file, unsigned long ino,
		    char *out, size_t size)
{
	char path[64], *line = NULL;
	size_t cap = 0;
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/net/%s", (int)pid, file);
	if (!(f = fopen(path, "re")))
		return false;
	/* the header line */
	if (getline(&line, &cap, f) < 0)
		goto out;
	while (!found && getline(&line, &cap, f) > 0) {
		char loc[64], rem[64], upath[256] = "";
		unsigned long i;
		unsigned st;
		if (!strcmp(file, "unix")) {
			if (sscanf(line, "%*s %*s %*s %*s %*s %*s %lu %255s", &i,
				   upath) < 1 || i != ino)
				continue;
			snprintf(out, size, "unix %s", *upath ? upath : "-");
			found = true;
			continue;
		}
		if (sscanf(line, "%*s %63s %63s %x %*s %*s %*s %*s %*s %lu",
			   loc, rem, &st, &i) != 4 || i != ino)
			continue;
		char l[80], r[80];
		net_addr(loc, l, sizeof(l));
		net_addr(rem, r, sizeof(r));
		snprintf(out, size, "%.*s %s->%s", (int)strcspn(file, "6"),
			 file, l, r);
		found = true;
	}
out:
	free(line);
	fclose(f);
	return found;
}

/* What socket `ino` is (cached: /proc/net is read once per socket) */
static const char *sock_desc(struct sfc_session *s, unsigned long ino)
{
	static const char *const files[] = { "tcp", "tcp6", "udp", "udp6",
					     "unix" };
	struct sfc_kern *k = KERN(s);
	char d[400] = "";

	for (size_t i = 0; i < k->nsocks; i++)
		if (k->socks[i].ino == ino)
			return k->socks[i].desc;
	for (size_t i = 0; i < sizeof(files) / sizeof(*files); i++)
		if (sock_in(s->pid, files[i], ino, d, sizeof(d)))
			break;
	if (sf_grow(&k->socks, &k->capsocks, k->nsocks + 1,
		    sizeof(*k->socks)))
		return NULL;
	char *c = strdup(d);
	if (!c)
		return NULL;
	k->socks[k->nsocks].ino = ino;
	k->socks[k->nsocks++].desc = c;
	return c;
}

static bool rec_eq(const void *c, uint32_t id, const void *key)
{
	const struct sfc_kern *k = c;

	return !strcmp(k->recs[id].key, key);
}

static int kern_read(struct sfc_session *s, struct sf_ctx *ctx, pid_t tid,
		     uint32_t prev, long long was, uint32_t *out)
{
	struct sfc_kern *k = KERN(s);
	char path[96], buf[512], link[300], nb[24], *b = k->buf;
	size_t len = 0, size = sizeof(k->buf);
	unsigned long long v[3];
	long long nr;
	ssize_t n;

	*out = 0;
	if (!k)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/task/%d/syscall", (int)s->pid,
		 (int)tid);
	/* "NR ARG1..ARG6 SP PC" only while blocked in a call */
	if (sfc__read_small(path, buf, sizeof(buf)) <= 0 ||
	    sscanf(buf, "%lld %llx %llx", &nr, &v[1], &v[2]) != 3 || nr < 0)
		return 0;
	long long shown = nr;
#ifdef __NR_restart_syscall
	/* a call interrupted by our last stop restarts as restart_syscall:
	 * it is still the call that stop saw */
	size_t slot = (size_t)tid % 1024;
	if (nr == __NR_restart_syscall && prev && prev < k->nrecs)
		shown = k->recs[prev].shown;
	else if (nr == __NR_restart_syscall && was >= 0 &&
		 was != __NR_restart_syscall)
		shown = was;
	else if (nr == __NR_restart_syscall && k->last[slot].tid == tid)
		/* interrupted again inside the restarted call: the call
		 * named when it was first seen */
		shown = k->last[slot].nr;
	if (shown != __NR_restart_syscall) {
		k->last[slot].tid = tid;
		k->last[slot].nr = shown;
	}
#endif
	/* the call as read first (kern_match compares it), then as
	 * named */
	snprintf(nb, sizeof(nb), "%lld", nr);
	put(b, &len, size, nb);
	sep(b, &len, size);
	put(b, &len, size, syscall_name(shown, nb, sizeof(nb)));
	sep(b, &len, size);
	if (fd_call(shown) && v[1] < INT32_MAX) {
		snprintf(nb, sizeof(nb), "%d", (int)v[1]);
		put(b, &len, size, nb);
		snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)s->pid,
			 (int)v[1]);
		n = readlink(path, link, sizeof(link) - 1);
		link[n > 0 ? n : 0] = 0;
		sep(b, &len, size);
		put(b, &len, size, link);
		unsigned long ino;
		const char *d;
		if (sscanf(link, "socket:[%lu]", &ino) == 1 &&
		    (d = sock_desc(s, ino)) && *d) {
			put(b, &len, size, " ");
			put(b, &len, size, d);
		}
		sep(b, &len, size);
	} else {
		sep(b, &len, size);
		sep(b, &len, size);
	}
#ifdef __NR_futex
	if (shown == __NR_futex) {
		snprintf(buf, sizeof(buf), "0x%llx", v[1]);
		put(b, &len, size, buf);
	}
#endif
	sep(b, &len, size);
	snprintf(path, sizeof(path), "/proc/%d/task/%d/wchan", (int)s->pid,
		 (int)tid);
	if (sfc__read_small(path, buf, sizeof(buf)) > 0 && strcmp(buf, "0"))
		put(b, &len, size, buf);
	if (!k->no_stack) {
		snprintf(path, sizeof(path), "/proc/%d/task/%d/stack",
			 (int)s->pid, (int)tid);
		char st[4096];
		errno = 0;
		if (sfc__read_small(path, st, sizeof(st)) <= 0 &&
		    errno) {
			if ((errno == EACCES || errno == EPERM) && ctx) {
				k->no_stack = true;
				sf_warn(ctx, "capture.kernel_stack",
					"kernel stacks are not captured: "
					"reading /proc/PID/task/TID/stack "
					"needs root (CAP_SYS_ADMIN)");
			}
		} else {
			/* "[<0>] pipe_read+0x2d4/0x460" a line, innermost
			 * first */
			for (char *l = st, *e; *l; l = e + !!*e) {
				e = l + strcspn(l, "\n");
				char *f = strchr(l, ' ');
				if (f && f < e) {
					f++;
					size_t fl = strcspn(f, "+\n");
					if (f + fl > e)
						fl = (size_t)(e - f);
					if (fl && len + fl + 2 < size) {
						b[len++] = '\n';
						memcpy(b + len, f, fl);
						len += fl;
						b[len] = 0;
					}
				}
			}
		}
	}
	uint64_t h = sf_hash(b, len);
	uint32_t id;
	if (sf_idx_find(&k->idx, h, rec_eq, k, b, &id)) {
		*out = id;
		return 0;
	}
	char *key = NULL;
	if (sf_grow(&k->recs, &k->caprecs, k->nrecs + 1, sizeof(*k->recs)) ||
	    !(key = strdup(b)))
		return ctx ? sf_error_nomem(ctx) : -1;
	id = (uint32_t)k->nrecs;
	k->recs[id].key = key;
	k->recs[id].nr = nr;
	k->recs[id].shown = shown;
	k->nrecs++;
	if (!sf_idx_insert(&k->idx, h, id))
		return ctx ? sf_error_nomem(ctx) : -1;
	*out = id;
	return 0;
}

static bool kern_match(const struct sfc_session *s, uint32_t rec,
		       const struct sfc_thr *t)
{
	const sfc_regs *r = &t->regs;

	if (!rec || !KERN(s) || rec >= KERN(s)->nrecs)
		return false;
#if defined(__x86_64__)
	/* the stop interrupted the call: -ERESTART* or -EINTR */
	long long ax = (long long)r->rax;
	return (long long)r->orig_rax == KERN(s)->recs[rec].nr &&
	       (ax == -4 || ax == -512 || ax == -513 || ax == -514 ||
		ax == -516);
#else
	/* the registers of a stop do not say here whether it interrupted
	 * a call: keep nothing rather than guess */
	(void)r;
	return false;
#endif
}

static int kern_emit(struct sfc_session *s, struct sf_ctx *ctx,
		     struct sf_profile *p, uint32_t rec, uint32_t node,
		     const sf_frame_id *fid, sf_stack_id *stack,
		     struct sf_label *labels, size_t *nlabels)
{
	static const char *const keys[] = { "syscall", "fd", "fd.target",
					    "futex", "wchan" };
	struct sfc_kern *k = KERN(s);
	const char *c;
	size_t i = 0;
	int rc;

	if (!rec || !k || rec >= k->nrecs)
		return 0;
	c = strchr(k->recs[rec].key, '\n') + 1;
	/* the fields point into the record: cut a copy in k->buf */
	snprintf(k->buf, sizeof(k->buf), "%s", c);
	char *f = k->buf, *e;
	for (; i < 5; i++, f = e + 1) {
		e = f + strcspn(f, "\n");
		bool last = !*e;
		*e = 0;
		if (*f)
			labels[(*nlabels)++] = (struct sf_label){ keys[i], f };
		if (last)
			return 0;
	}
	/* kernel frames, innermost first: push the outermost first */
	char *fr[256];
	size_t nf = 0;
	for (; nf < 256; f = e + 1) {
		e = f + strcspn(f, "\n");
		bool last = !*e;
		*e = 0;
		if (*f)
			fr[nf++] = f;
		if (last)
			break;
	}
	char name[300];
	while (nf-- > 0) {
		struct sf_frame fm;
		sf_frame_id id;
		sf_frame_init(&fm);
		snprintf(name, sizeof(name), "%s_[k]", fr[nf]);
		fm.name = name;
		fm.module = "[kernel.kallsyms]";
		fm.kind = "kernel";
		if ((rc = sf_profile_frame(p, ctx, &fm, &id)) ||
		    (rc = sf_profile_stack_push(p, ctx, *stack, id, stack)))
			return rc;
	}
	return 0;
}

/* Read c asleep: `was` is the call its last stop interrupted, when the
 * registers of that stop are kept (a restart_syscall is named after
 * it). */
static int kern_read_asleep(struct sfc_session *s, struct sf_ctx *ctx,
			    const struct sfc_cthread *c, uint32_t prev,
			    uint32_t *out)
{
#if defined(__x86_64__)
	long long was = c->have ? (long long)c->regs.orig_rax : -1;
#else
	long long was = -1;
#endif

	return kern_read(s, ctx, c->tid, prev, was, out);
}

const struct sfc_source sfc_source_kernel = {
	.name = "kernel",
	.open = kern_open,
	.close = kern_close,
	.read_asleep = kern_read_asleep,
	.match = kern_match,
	.emit = kern_emit,
	.max_labels = 5,
};
