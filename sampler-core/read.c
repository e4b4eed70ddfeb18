/*
 * read.c - the bottom of sampler-core: the clock, small /proc files, a
 * thread's stat and schedstat, the target's memory.  It calls no other
 * file of sampler-core but procfs.c's parsers, so every file may call it.
 */
#include "capture_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

int64_t sfc__mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Read a small /proc file into buf (NUL-terminated); -1 with errno. */
ssize_t sfc__read_small(const char *path, char *buf, size_t size)
{
	int fd;
	ssize_t n, got = 0;

	do
		fd = open(path, O_RDONLY | O_CLOEXEC);
	while (fd < 0 && errno == EINTR);
	if (fd < 0)
		return -1;
	while ((size_t)got + 1 < size) {
		n = read(fd, buf + got, size - 1 - (size_t)got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += n;
	}
	close(fd);
	buf[got] = 0;
	return got;
}

bool sfc__task_stat(const struct sfc_session *s, pid_t tid,
		    struct sfc_stat *out)
{
	char path[64], buf[512];

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int)s->pid,
		 (int)tid);
	ssize_t n = sfc__read_small(path, buf, sizeof(buf));
	return n > 0 && !sfc_parse_stat(buf, (size_t)n, out) &&
	       out->state != 'Z' && out->state != 'X';
}

/* Run time (ns) and timeslice count of a thread, from its schedstat file
 * (kept open: a pread costs a fraction of an open).  -1 when the thread
 * is gone or the file cannot be read. */
int sfc__sched_read(struct sfc_session *s, struct sfc_cthread *c,
		    uint64_t *run, uint64_t *slices)
{
	char path[80], buf[96];
	unsigned long long r, w, n;
	ssize_t got;

	if (c->fd < 0) {
		snprintf(path, sizeof(path), "/proc/%d/task/%d/schedstat",
			 (int)s->pid, (int)c->tid);
		c->fd = open(path, O_RDONLY | O_CLOEXEC);
		if (c->fd < 0)
			return -1;
	}
	got = pread(c->fd, buf, sizeof(buf) - 1, 0);
	if (got <= 0) {
		close(c->fd);
		c->fd = -1;
		return -1;
	}
	buf[got] = 0;
	if (sscanf(buf, "%llu %llu %llu", &r, &w, &n) != 3)
		return -1;
	*run = r;
	*slices = n;
	return 0;
}

/* Copy len bytes of the target at addr; returns the bytes copied (a
 * prefix: the copy stops at the first unmapped page). */
size_t sfc__read_mem(pid_t pid, uint64_t addr, size_t len,
		       unsigned char *buf)
{
	struct iovec local, remote[80];
	size_t n = 0;

	/* one iovec per page: a partial read never splits an iovec, so the
	 * end of the stack mapping does not cost the whole copy */
	uint64_t a = addr, end = addr + len;
	while (a < end && n < sizeof(remote) / sizeof(remote[0])) {
		uint64_t next = (a | 4095) + 1;
		if (next > end)
			next = end;
		remote[n].iov_base = (void *)(uintptr_t)a;
		remote[n].iov_len = (size_t)(next - a);
		n++;
		a = next;
	}
	local.iov_base = buf;
	local.iov_len = len;
	ssize_t got = process_vm_readv(pid, &local, 1, remote, n, 0);
	return got > 0 ? (size_t)got : 0;
}

size_t sfc__read_blocks(pid_t pid, const uint64_t *addr, size_t n,
			size_t len, unsigned char *buf)
{
	struct iovec local, remote[256];
	size_t done = 0;

	while (done < n) {
		size_t k = n - done;
		if (k > sizeof(remote) / sizeof(remote[0]))
			k = sizeof(remote) / sizeof(remote[0]);
		for (size_t i = 0; i < k; i++) {
			remote[i].iov_base = (void *)(uintptr_t)addr[done + i];
			remote[i].iov_len = len;
		}
		local.iov_base = buf + done * len;
		local.iov_len = k * len;
		ssize_t got = process_vm_readv(pid, &local, 1, remote, k, 0);
		size_t whole = got > 0 ? (size_t)got / len : 0;
		done += whole;
		if (whole < k)
			break;
	}
	return done;
}
