/*
 * jitmap.c - names for JIT code from the target's perf map,
 * /tmp/perf-PID.map ("START SIZE name" in hex, one entry a line, perf's
 * JIT interface): an address namer, asked before any module
 * (docs/capture-sources.md).
 *
 * The file sits in a world-writable directory under a name anyone can
 * guess, so it is believed only when it is a regular file owned by the
 * target's user or by root, opened without following a symlink and
 * without waiting on a FIFO (O_NOFOLLOW | O_NONBLOCK), and read up to
 * SFC_JITMAP_MAX bytes in all.  Otherwise one warning says why and JIT
 * frames stay unnamed.  The file stays open while the capture runs and
 * what it gains is read once per tick: an address is named by the entry
 * that held it when it was first sampled (a JIT that frees code and
 * reuses the range writes a new entry; node does), and an address no
 * entry held then by the last entry written for it.  Control bytes in a name are shown as \xNN: the name is
 * the target's text, and reports print it to terminals.
 */
#include "capture_int.h"

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
};

/* The entries in the order written: entry k (1-based) is v[k - 1], and a
 * later entry wins over an earlier one holding the same address (a JIT
 * reuses freed code).  The map is read as it grows, once per tick
 * (sfc__jit_poll), so that an address is named by the entry that held
 * it when it was sampled (sfc__jit_holder), not by the last one. */
struct sfc_jitmap {
	struct jit_sym *v;
	size_t n, cap;
	uint32_t *ord;          /* indexes of v by start, then by index */
	size_t nord, capord;
	uint64_t lo, hi;        /* the range the entries cover */
	uint64_t maxsize;       /* of the largest entry: how far back an
				 * entry starting before pc may reach */
	int fd;                 /* the map while it may grow, else -1 */
	bool refused, full, polled;
	uint32_t tick;          /* of the last read */
	uint32_t retry;         /* no map yet: the tick to look again */
	off_t got;              /* bytes of the map read */
	char *buf;              /* a line still being written */
	size_t nbuf, capbuf;
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

static int add(struct sfc_jitmap *m, uint64_t start, uint64_t size,
	       const char *name, size_t len)
{
	if (!size)
		return 0;
	if (sf_grow(&m->v, &m->cap, m->n + 1, sizeof(*m->v)))
		return -1;
	char *c = escape_name(name, len);
	if (!c)
		return -1;
	m->v[m->n].start = start;
	m->v[m->n].size = size;
	m->v[m->n].name = c;
	if (!m->n || start < m->lo)
		m->lo = start;
	if (!m->n || start + size > m->hi)
		m->hi = start + size;
	m->n++;
	if (size > m->maxsize)
		m->maxsize = size;
	return 0;
}

/* A perf map's complete lines, "START SIZE name" in hex; the bytes
 * used, or -1 when out of memory */
static ssize_t parse_map(struct sfc_jitmap *m, char *text, size_t len)
{
	char *l = text;

	for (char *end = text + len; l < end;) {
		char *e = memchr(l, '\n', (size_t)(end - l));
		if (!e)
			break;          /* a line still being written */
		*e = 0;
		char *e1, *e2;
		uint64_t st = strtoull(l, &e1, 16);
		uint64_t sz = strtoull(e1, &e2, 16);
		if (e1 != l && e2 != e1 && *e2 == ' ' &&
		    add(m, st, sz, e2 + 1, strlen(e2 + 1)))
			return -1;
		l = e + 1;
	}
	return l - text;
}

/* A jitdump (perf's tools/perf/Documentation/jitdump-specification.txt):
 * a 40-byte header ("JiTD" as a native u32, version, header size, ...),
 * then records {u32 id, u32 size, u64 time, body}; JIT_CODE_LOAD (id 0)
 * is {u32 pid, u32 tid, u64 vma, u64 code_addr, u64 code_size, u64
 * index, name NUL, code}.  Other records are skipped, and a record cut
 * short (still being written) ends the file. */
static int parse_dump(struct sfc_jitmap *m, const unsigned char *b,
		      size_t len)
{
	uint32_t magic, hsize;

	if (len < 40)
		return 0;
	memcpy(&magic, b, 4);
	memcpy(&hsize, b + 8, 4);
	if (magic != 0x4A695444 || hsize < 40 || hsize > len)
		return 0;
	for (size_t at = hsize; len - at >= 16;) {
		uint32_t id, size;
		memcpy(&id, b + at, 4);
		memcpy(&size, b + at + 4, 4);
		if (size < 16 || size > len - at)
			break;
		if (id == 0 && size >= 16 + 40 + 1) {
			uint64_t addr, csize;
			const unsigned char *name = b + at + 16 + 40;
			size_t room = size - 16 - 40;
			const unsigned char *nul = memchr(name, 0, room);
			memcpy(&addr, b + at + 16 + 16, 8);
			memcpy(&csize, b + at + 16 + 24, 8);
			if (nul && add(m, addr, csize, (const char *)name,
				       (size_t)(nul - name)))
				return -1;
		}
		at += size;
	}
	return 0;
}

/* Read a file another user could have planted (sfc__open_owned's rule),
 * up to SFC_JITMAP_MAX bytes, into *out (*len bytes); 0 with *out NULL
 * when there is none or it is refused (one warning of `kind`). */
static int read_owned(struct sfc_session *s, struct sf_ctx *ctx,
		      const char *path, const char *kind, char **out,
		      size_t *len)
{
	char why[200];
	int fd;

	*out = NULL;
	*len = 0;
	int ok = sfc__open_owned(path, s->uid, SFC_JITMAP_MAX, &fd, why,
				 sizeof(why));
	if (ok < 0)
		sf_warn(ctx, kind, "'%s' ignored (%s): JIT frames stay unnamed",
			path, why);
	if (ok <= 0)
		return 0;
	/* the file may still grow: read at most the bound, then stop */
	size_t cap = 1 << 16;
	char *text = malloc(cap);
	ssize_t n;
	while (text) {
		if (*len == cap) {
			if (cap >= (size_t)SFC_JITMAP_MAX) {
				sf_warn(ctx, kind,
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
		n = read(fd, text + *len, cap - *len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		*len += (size_t)n;
	}
	close(fd);
	*out = text;
	return text ? 0 : -1;
}

/* The path of the target's mapped jit-PID.dump (the runtime maps it so
 * that perf finds it), from /proc/PID/maps; false when none */
static bool dump_path(const struct sfc_session *s, char *out, size_t size)
{
	char path[64], want[32], *line = NULL;
	size_t cap = 0;
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)s->pid);
	snprintf(want, sizeof(want), "/jit-%d.dump", (int)s->pid);
	if (!(f = fopen(path, "re")))
		return false;
	while (!found && getline(&line, &cap, f) > 0) {
		char *p = strchr(line, '/');
		if (!p)
			continue;
		p[strcspn(p, "\n")] = 0;
		size_t pl = strlen(p), wl = strlen(want);
		if (pl >= wl && !strcmp(p + pl - wl, want) && pl < size) {
			memcpy(out, p, pl + 1);
			found = true;
		}
	}
	free(line);
	fclose(f);
	return found;
}

static int by_start(const void *a, const void *b, void *arg)
{
	const struct sfc_jitmap *m = arg;
	uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;

	if (m->v[i].start != m->v[j].start)
		return m->v[i].start < m->v[j].start ? -1 : 1;
	return i < j ? -1 : i > j;
}

/* Put the entries added since the last merge into ord: sorted among
 * themselves, then merged from the back (they all come after the old
 * ones at an equal start). */
static int merge(struct sfc_jitmap *m)
{
	size_t old = m->nord, k = m->n;

	if (old == m->n)
		return 0;
	if (sf_grow(&m->ord, &m->capord, m->n, sizeof(*m->ord)))
		return -1;
	for (size_t i = old; i < m->n; i++)
		m->ord[i] = (uint32_t)i;
	qsort_r(m->ord + old, m->n - old, sizeof(*m->ord), by_start, m);
	/* the new ones, sorted, move to the top of a scratch copy */
	uint32_t *add = malloc((m->n - old) * sizeof(*add));
	if (!add)
		return -1;
	memcpy(add, m->ord + old, (m->n - old) * sizeof(*add));
	size_t i = old, j = m->n - old;
	while (j) {
		if (i && by_start(&m->ord[i - 1], &add[j - 1], m) > 0)
			m->ord[--k] = m->ord[--i];
		else
			m->ord[--k] = add[--j];
	}
	free(add);
	m->nord = m->n;
	return 0;
}

static struct sfc_jitmap *jit_new(void)
{
	struct sfc_jitmap *m = sf_calloc(1, sizeof(*m));

	if (m)
		m->fd = -1;
	return m;
}

/* Read what the perf map gained since the last read (sfc__open_owned's
 * rule when it is first opened; the bound counts every byte read) */
static int map_read(struct sfc_session *s, struct sf_ctx *ctx,
		    struct sfc_jitmap *m)
{
	char path[64], why[200];

	if (m->refused || m->full)
		return 0;
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)s->pid);
	if (m->fd < 0) {
		int ok = sfc__open_owned(path, s->uid, SFC_JITMAP_MAX, &m->fd,
					 why, sizeof(why));
		if (ok < 0) {
			m->refused = true;
			sf_warn(ctx, "capture.perf_map", "'%s' ignored (%s): JIT "
				"frames stay unnamed", path, why);
		}
		if (ok <= 0)
			return 0;
	}
	for (;;) {
		if (m->capbuf - m->nbuf < 4096) {
			size_t cap = m->capbuf ? m->capbuf * 2 : 1 << 16;
			char *q = realloc(m->buf, cap);
			if (!q)
				return -1;
			m->buf = q;
			m->capbuf = cap;
		}
		ssize_t n = read(m->fd, m->buf + m->nbuf, m->capbuf - m->nbuf);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (n > SFC_JITMAP_MAX - m->got) {
			n = (ssize_t)(SFC_JITMAP_MAX - m->got);
			m->full = true;
		}
		m->got += n;
		m->nbuf += (size_t)n;
		ssize_t used = parse_map(m, m->buf, m->nbuf);
		if (used < 0)
			return -1;
		memmove(m->buf, m->buf + used, m->nbuf - (size_t)used);
		m->nbuf -= (size_t)used;
		if (m->full) {
			sf_warn(ctx, "capture.perf_map", "'%s' read up to its "
				"bound of %lld bytes: later JIT entries are "
				"not named", path, (long long)SFC_JITMAP_MAX);
			close(m->fd);
			m->fd = -1;
			break;
		}
	}
	return merge(m);
}

int sfc__jit_poll(struct sfc_session *s, struct sf_ctx *ctx)
{
	struct sfc_jitmap *m = s->jit;

	if (!m && !(m = s->jit = jit_new()))
		return -1;
	if (m->polled && m->tick == s->tickno)
		return 0;
	/* most processes never write a map: look for one every 16 ticks
	 * (an address sampled before it is found takes the last entry
	 * written for it) */
	if (m->fd < 0 && m->polled && s->tickno - m->retry >= 1u << 31)
		return 0;
	m->polled = true;
	m->tick = s->tickno;
	int rc = map_read(s, ctx, m);
	if (m->fd < 0)
		m->retry = s->tickno + 16;
	return rc;
}

/* The number of the last entry holding pc, or 0 */
static uint32_t holder(const struct sfc_jitmap *m, uint64_t pc)
{
	size_t lo = 0, hi = m ? m->nord : 0;
	uint32_t best = 0;

	if (!hi || pc < m->lo || pc >= m->hi)
		return 0;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (m->v[m->ord[mid]].start <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* the entries starting at or before pc, back as far as the largest
	 * one reaches */
	for (size_t k = lo; k-- > 0;) {
		const struct jit_sym *e = &m->v[m->ord[k]];
		if (pc - e->start >= m->maxsize)
			break;
		if (pc - e->start < e->size && m->ord[k] + 1 > best)
			best = m->ord[k] + 1;
	}
	return best;
}

uint32_t sfc__jit_holder(const struct sfc_session *s, uint64_t pc)
{
	return holder(s->jit, pc);
}

struct sfc_jitmap *sfc__jit_load(struct sfc_session *s, struct sf_ctx *ctx)
{
	struct sfc_jitmap *m = s->jit ? s->jit : jit_new();
	char path[4096], *text = NULL;
	size_t len;
	int rc;

	s->jit = NULL;
	if (!m)
		return NULL;
	/* what the map gained since the last tick */
	rc = map_read(s, ctx, m);
	/* a jitdump, where the runtime writes one (node --perf-prof, Java
	 * with an agent, Python 3.13 -X perf_jit): read at the end, its
	 * records after the map's entries */
	if (!rc && dump_path(s, path, sizeof(path)) &&
	    !(rc = read_owned(s, ctx, path, "capture.jitdump", &text,
			      &len)) && text)
		rc = parse_dump(m, (const unsigned char *)text, len);
	free(text);
	if (rc || merge(m)) {
		sfc__jit_free(m);
		return NULL;
	}
	return m;
}

const char *sfc__jit_find(const struct sfc_jitmap *m, uint64_t pc,
			  uint32_t held)
{
	uint32_t k = held && m && held <= m->n ? held : holder(m, pc);

	return k ? m->v[k - 1].name : NULL;
}

void sfc__jit_free(struct sfc_jitmap *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->n; i++)
		free(m->v[i].name);
	if (m->fd >= 0)
		close(m->fd);
	free(m->v);
	free(m->ord);
	free(m->buf);
	free(m);
}

/* ----- the namer (name.h) ----- */

static int jit_begin(struct sfc_session *s, struct sf_ctx *ctx, void **state)
{
	if (!(*state = sfc__jit_load(s, ctx)))
		return sf_error_nomem(ctx);
	return 0;
}

static void jit_end(struct sfc_session *s, void *state)
{
	sfc__jit_free(state);
}

/* An entry wins over a module whose range merely spans the JIT heap
 * (node maps part of its text far above the rest, and libdwfl's module
 * covers the gap): the address leaves its module. */
static int jit_lookup(struct sfc_session *s, struct sf_ctx *ctx, void *state,
		    struct sfc_naming *a, struct sf_frame *f)
{
	const char *name = sfc__jit_find(state, a->pc, a->tag);

	if (!name)
		return 0;
	f->name = name;
	f->kind = "jit";
	f->address = a->pc;
	a->mod = NULL;
	return 1;
}

static void jit_close(struct sfc_session *s)
{
	sfc__jit_free(s->jit);
	s->jit = NULL;
}

const struct sfc_namer sfc_namer_jitmap = {
	.name = "jitmap",
	.poll = sfc__jit_poll,
	.tag = sfc__jit_holder,
	.begin = jit_begin,
	.end = jit_end,
	.lookup = jit_lookup,
	.close = jit_close,
};
