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

size_t sfc__read_ranges(pid_t pid, const struct sfc_range *r, size_t n,
			unsigned char *buf)
{
	struct iovec local, remote[256];
	size_t k = 0, len = 0;

	/* one iovec per page: a partial read never splits an iovec, so an
	 * unmapped page costs only what follows it */
	for (size_t i = 0; i < n; i++) {
		uint64_t a = r[i].addr, end = a + r[i].len;
		while (a < end) {
			if (k == sizeof(remote) / sizeof(remote[0]))
				goto full;
			uint64_t next = (a | 4095) + 1;
			if (next > end)
				next = end;
			remote[k].iov_base = (void *)(uintptr_t)a;
			remote[k].iov_len = (size_t)(next - a);
			len += remote[k++].iov_len;
			a = next;
		}
	}
full:
	local.iov_base = buf;
	local.iov_len = len;
	ssize_t got = k ? process_vm_readv(pid, &local, 1, remote, k, 0) : 0;
	return got > 0 ? (size_t)got : 0;
}

size_t sfc__read_mem(pid_t pid, uint64_t addr, size_t len,
		     unsigned char *buf)
{
	/* at most 80 pages, as the stack copies are sized */
	uint64_t cap = (addr & ~(uint64_t)4095) + 80 * 4096;
	struct sfc_range r = { addr, addr + len > cap ? (size_t)(cap - addr)
						      : len };

	return sfc__read_ranges(pid, &r, 1, buf);
}
