/*
 * jitmap.c - names for JIT code from the target's perf map,
 * /tmp/perf-PID.map ("START SIZE name" in hex, one entry a line, perf's
 * JIT interface): a capture source that names addresses
 * (docs/capture-sources.md).
 *
 * The file sits in a world-writable directory under a name anyone can
 * guess, so it is believed only when it is a regular file owned by the
 * target's user or by root, opened without following a symlink and
 * without waiting on a FIFO (O_NOFOLLOW | O_NONBLOCK), and read up to
 * SFC_JITMAP_MAX bytes.  Otherwise one warning says why and JIT frames
 * stay unnamed.  Control bytes in a name are shown as \xNN: the name is
 * the target's text, and reports print it to terminals.
 */
#include "capture_int.h"
#include "source.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct jit_sym {
	uint64_t start, size;
	char *name;
	size_t seq;             /* line number: later entries win */
};

struct sfc_jitmap {
	struct jit_sym *v;
	size_t n, cap;
};

int sfc__open_owned(const char *path, uid_t owner, off_t max, int *fd,
		    char *why, size_t whysize)
{
	struct stat st;

	*fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (*fd < 0) {
		if (errno == ENOENT)
			return 0;
		snprintf(why, whysize, "%s",
			 errno == ELOOP ? "a symbolic link" : strerror(errno));
		return -1;
	}
	if (fstat(*fd, &st))
		snprintf(why, whysize, "%s", strerror(errno));
	else if (!S_ISREG(st.st_mode))
		snprintf(why, whysize, "not a regular file");
	else if (st.st_uid != owner && st.st_uid != 0)
		snprintf(why, whysize,
			 "owned by uid %u, not by the target's user (uid %u) "
			 "or root", (unsigned)st.st_uid, (unsigned)owner);
	else if (st.st_size > max)
		snprintf(why, whysize, "larger than %lld bytes",
			 (long long)max);
	else
		return 1;
	close(*fd);
	*fd = -1;
	return -1;
}

static int jit_cmp(const void *a, const void *b)
{
	const struct jit_sym *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* A copy of name[0..len) with control bytes as \xNN, or NULL */
static char *escape_name(const char *name, size_t len)
{
	char *o = malloc(len * 4 + 1), *p = o;

	if (!o)
		return NULL;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)name[i];
		if (c < 0x20 || c == 0x7f)
			p += sprintf(p, "\\x%02x", c);
		else
			*p++ = (char)c;
	}
	*p = 0;
	return o;
}

/* Parse the map's text into m (entries sorted by start, then line). */
static int parse(struct sfc_jitmap *m, char *text, size_t len)
{
	for (char *l = text, *end = text + len; l < end;) {
		char *e = memchr(l, '\n', (size_t)(end - l));
		if (!e)
			break;          /* a line still being written */
		*e = 0;
		char *e1, *e2;
		uint64_t st = strtoull(l, &e1, 16);
		uint64_t sz = strtoull(e1, &e2, 16);
		if (e1 != l && e2 != e1 && *e2 == ' ' && sz) {
			if (sf_grow(&m->v, &m->cap, m->n + 1, sizeof(*m->v)))
				return -1;
			char *name = escape_name(e2 + 1, strlen(e2 + 1));
			if (!name)
				return -1;
			m->v[m->n].start = st;
			m->v[m->n].size = sz;
			m->v[m->n].name = name;
			m->v[m->n].seq = m->n;
			m->n++;
		}
		l = e + 1;
	}
	if (m->n)
		qsort(m->v, m->n, sizeof(*m->v), jit_cmp);
	return 0;
}

struct sfc_jitmap *sfc__jit_load(struct sfc_session *s, struct sf_ctx *ctx)
{
	struct sfc_jitmap *m = sf_calloc(1, sizeof(*m));
	char path[64], why[200];
	int fd;

	if (!m)
		return NULL;
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)s->pid);
	int ok = sfc__open_owned(path, s->uid, SFC_JITMAP_MAX, &fd, why,
				 sizeof(why));
	if (ok < 0) {
		sf_warn(ctx, "capture.perf_map",
			"'%s' ignored (%s): JIT frames stay unnamed", path,
			why);
		return m;
	}
	if (!ok)
		return m;
	/* the file may still grow: read at most the bound, then stop */
	size_t cap = 1 << 16, len = 0;
	char *text = malloc(cap);
	ssize_t n;
	while (text) {
		if (len == cap) {
			if (cap >= (size_t)SFC_JITMAP_MAX) {
				sf_warn(ctx, "capture.perf_map",
					"'%s' read up to its bound of %lld "
					"bytes: later JIT entries are not "
					"named", path,
					(long long)SFC_JITMAP_MAX);
				break;
			}
			char *q = realloc(text, cap * 2);
			if (!q)
				break;
			text = q;
			cap *= 2;
		}
		n = read(fd, text + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	if (text && parse(m, text, len)) {
		sfc__jit_free(m);
		m = NULL;
	}
	free(text);
	return m;
}

const char *sfc__jit_find(const struct sfc_jitmap *m, uint64_t pc)
{
	size_t lo = 0, hi = m ? m->n : 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (m->v[mid].start <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* the last entry starting at or before pc (of those starting at
	 * the same address, the last written: a JIT may reuse a range) */
	if (lo && pc - m->v[lo - 1].start < m->v[lo - 1].size)
		return m->v[lo - 1].name;
	return NULL;
}

void sfc__jit_free(struct sfc_jitmap *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->n; i++)
		free(m->v[i].name);
	free(m->v);
	free(m);
}
