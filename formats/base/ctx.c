/* ctx.c - error records, counted warnings, options, allocation. */
#include "sf.h"

#include <stdatomic.h>

#include <errno.h>
#include <stdbool.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

void sf_ctx_init(struct sf_ctx *ctx)
{
	memset(ctx, 0, sizeof(*ctx));
	ctx->limits.max_depth = SF_DEFAULT_MAX_DEPTH;
	ctx->limits.max_name = SF_DEFAULT_MAX_NAME;
	ctx->limits.max_nesting = SF_DEFAULT_MAX_NESTING;
	ctx->limits.max_line = SF_DEFAULT_MAX_LINE;
	ctx->limits.max_decompressed = SF_DEFAULT_MAX_DECOMPRESSED;
	ctx->limits.max_records = SF_DEFAULT_MAX_RECORDS;
	ctx->limits.max_memory = sf_default_max_memory();
}

uint64_t sf_heap_in_use(void)
{
	struct mallinfo2 mi = mallinfo2();

	return (uint64_t)mi.uordblks + (uint64_t)mi.hblkhd;
}

uint64_t sf_default_max_memory(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
	uint64_t ram = pages > 0 && size > 0 ?
		(uint64_t)pages * (uint64_t)size : 0;
	/* in a container the cgroup's limit (v2) is the RAM there is */
	FILE *f = fopen("/sys/fs/cgroup/memory.max", "re");
	unsigned long long cg;
	if (f) {
		if (fscanf(f, "%llu", &cg) == 1 && cg && (!ram || cg < ram))
			ram = cg;
		fclose(f);
	}
	return ram / 2 > SF_MIN_MAX_MEMORY ? ram / 2 : SF_MIN_MAX_MEMORY;
}

void sf_ctx_free(struct sf_ctx *ctx)
{
	for (size_t i = 0; i < ctx->nwarnings; i++) {
		free(ctx->warnings[i].kind);
		free(ctx->warnings[i].first);
	}
	free(ctx->warnings);
	for (size_t i = 0; i < ctx->nopts; i++) {
		free(ctx->opts[i].name);
		free(ctx->opts[i].value);
	}
	free(ctx->opts);
	sf_big_drop(ctx);
	ctx->warnings = NULL;
	ctx->nwarnings = 0;
	ctx->opts = NULL;
	ctx->nopts = 0;
}

static void set_source(struct sf_error *e, const char *source)
{
	snprintf(e->source, sizeof(e->source), "%s", source ? source : "");
}

int sf_error(struct sf_ctx *ctx, int code, const char *source, uint64_t line,
	     const char *fmt, ...)
{
	va_list ap;

	if (ctx->err.code)
		return code;
	ctx->err.code = code;
	set_source(&ctx->err, source);
	ctx->err.line = line;
	ctx->err.offset = 0;
	ctx->err.has_offset = 0;
	va_start(ap, fmt);
	vsnprintf(ctx->err.msg, sizeof(ctx->err.msg), fmt, ap);
	va_end(ap);
	return code;
}

int sf_error_at(struct sf_ctx *ctx, int code, const char *source,
		uint64_t offset, const char *fmt, ...)
{
	va_list ap;

	if (ctx->err.code)
		return code;
	ctx->err.code = code;
	set_source(&ctx->err, source);
	ctx->err.line = 0;
	ctx->err.offset = offset;
	ctx->err.has_offset = 1;
	va_start(ap, fmt);
	vsnprintf(ctx->err.msg, sizeof(ctx->err.msg), fmt, ap);
	va_end(ap);
	return code;
}

int sf_error_nomem(struct sf_ctx *ctx)
{
	return sf_error(ctx, SF_ENOMEM, NULL, 0, "out of memory");
}

void sf_error_place(struct sf_ctx *ctx, const char *source, uint64_t line)
{
	if (!ctx->err.code)
		return;
	if (source && !ctx->err.source[0])
		set_source(&ctx->err, source);
	if (line && !ctx->err.line)
		ctx->err.line = line;
}

void sf_error_place_at(struct sf_ctx *ctx, const char *source,
		       uint64_t offset)
{
	if (!ctx->err.code)
		return;
	if (source && !ctx->err.source[0])
		set_source(&ctx->err, source);
	if (!ctx->err.line && !ctx->err.has_offset) {
		ctx->err.offset = offset;
		ctx->err.has_offset = 1;
	}
}

void sf_error_clear(struct sf_ctx *ctx)
{
	memset(&ctx->err, 0, sizeof(ctx->err));
}

void sf_error_format(const struct sf_error *e, char *buf, size_t size)
{
	if (e->source[0] && e->line)
		snprintf(buf, size, "%s:%llu: %s", e->source,
			 (unsigned long long)e->line, e->msg);
	else if (e->source[0] && e->has_offset)
		snprintf(buf, size, "%s: byte %llu: %s", e->source,
			 (unsigned long long)e->offset, e->msg);
	else if (e->source[0])
		snprintf(buf, size, "%s: %s", e->source, e->msg);
	else
		snprintf(buf, size, "%s", e->msg);
}

void sf_warn(struct sf_ctx *ctx, const char *kind, const char *fmt, ...)
{
	va_list ap;
	char msg[512];
	struct sf_warning *w;

	for (size_t i = 0; i < ctx->nwarnings; i++) {
		if (!strcmp(ctx->warnings[i].kind, kind)) {
			ctx->warnings[i].count++;
			return;
		}
	}
	w = sf_reallocarray(ctx->warnings, ctx->nwarnings + 1, sizeof(*w));
	if (!w)
		return; /* a lost warning is better than a failed conversion */
	ctx->warnings = w;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	w = &ctx->warnings[ctx->nwarnings];
	w->kind = strdup(kind);
	w->first = strdup(msg);
	w->count = 1;
	if (!w->kind || !w->first) {
		free(w->kind);
		free(w->first);
		return;
	}
	ctx->nwarnings++;
}

int sf_ctx_set_opt(struct sf_ctx *ctx, const char *name, const char *value)
{
	char *v = strdup(value ? value : "1");
	struct sf_opt *o;

	if (!v)
		return sf_error_nomem(ctx);
	for (size_t i = 0; i < ctx->nopts; i++) {
		if (!strcmp(ctx->opts[i].name, name)) {
			free(ctx->opts[i].value);
			ctx->opts[i].value = v;
			return 0;
		}
	}
	o = sf_reallocarray(ctx->opts, ctx->nopts + 1, sizeof(*o));
	if (!o) {
		free(v);
		return sf_error_nomem(ctx);
	}
	ctx->opts = o;
	o[ctx->nopts].name = strdup(name);
	o[ctx->nopts].value = v;
	if (!o[ctx->nopts].name) {
		free(v);
		return sf_error_nomem(ctx);
	}
	ctx->nopts++;
	return 0;
}

const char *sf_ctx_opt(const struct sf_ctx *ctx, const char *name)
{
	for (size_t i = 0; i < ctx->nopts; i++)
		if (!strcmp(ctx->opts[i].name, name))
			return ctx->opts[i].value;
	return NULL;
}

int sf_ctx_flag(const struct sf_ctx *ctx, const char *name)
{
	const char *v = sf_ctx_opt(ctx, name);

	return v && strcmp(v, "0") != 0;
}

/* Huge pages for the heap.  A model of a few hundred thousand stacks is
 * tens of MB, written once; in 4 KiB pages that is thousands of page
 * faults, and on a virtual machine each costs microseconds: half the time
 * of `sfanalyze --callgraph` on 20,000 random stacks went to them.  So the
 * heap is advised to use transparent huge pages (MADV_HUGEPAGE), as
 * glibc's glibc.malloc.hugetlb=1 tunable does, which a program cannot set
 * for itself once running.  The break only grows, and each growth is a
 * new mapping without the advice, so the part above the last advised
 * address is advised whenever an allocation helper sees the break has
 * moved: memory is advised before most of it is first written (all of it
 * when M_TOP_PAD makes the break grow in large steps; see cli.c).  Advice
 * changes no byte; where the kernel has no huge pages it is ignored. */
#define HUGE_PAGE ((uintptr_t)2 << 20)
#define HEAP_ADVISE_MIN ((size_t)64 << 10)

#if defined(__GLIBC__) && defined(MADV_HUGEPAGE)
extern char end;        /* the end of the program's data: the heap is above */
#endif

void sf_heap_advise(void)
{
#if defined(__GLIBC__) && defined(MADV_HUGEPAGE)
	static _Atomic uintptr_t advised;
	uintptr_t top = (uintptr_t)sbrk(0) & ~(HUGE_PAGE - 1);
	uintptr_t lo = atomic_load_explicit(&advised, memory_order_relaxed);
	uintptr_t from = lo;

	if (top == lo || top == (uintptr_t)-1 ||
	    !atomic_compare_exchange_strong(&advised, &lo, top))
		return;         /* nothing new, or another thread does it */
	if (!from)
		from = ((uintptr_t)&end + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
	/* below the heap nothing is mapped: madvise skips the gap (and
	 * says ENOMEM, which does not matter) */
	if (from < top)
		(void)madvise((void *)from, top - from, MADV_HUGEPAGE);
#endif
}

/* After an allocation of n elements of `size` bytes: a large one may
 * have moved the break.  Returns p. */
static void *advised(void *p, size_t n, size_t size)
{
	if (p && size && n >= HEAP_ADVISE_MIN / size)
		sf_heap_advise();
	return p;
}

void *sf_malloc(size_t n)
{
	return advised(malloc(n ? n : 1), n, 1);
}

void *sf_calloc(size_t n, size_t size)
{
	return advised(calloc(n ? n : 1, size ? size : 1), n, size);
}

void *sf_reallocarray(void *p, size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size) {
		errno = ENOMEM;
		return NULL;
	}
	return advised(realloc(p, (n && size) ? n * size : 1), n, size);
}

int sf_grow(void *arr, size_t *cap, size_t need, size_t size)
{
	void **a = arr;

	if (need <= *cap)
		return 0;
	size_t n = *cap > 16 ? *cap : 16;
	while (n < need) {
		if (n > SIZE_MAX / 2)
			return -1;
		n *= 2;
	}
	void *q = sf_reallocarray(*a, n, size);
	if (!q)
		return -1;
	*a = q;
	*cap = n;
	return 0;
}

/* Big buffers.  A reader's input buffer and its caches of text are
 * written once, megabytes at a time; in 4 KiB pages each new page is a
 * fault, and on a virtual machine a fault costs about 20 us (perf
 * script -> collapsed on 3 MB of distinct records spent half its time in
 * them).  glibc's large blocks are mappings, but not 2 MiB aligned, so
 * huge-page advice cannot take on them, and the heap advice above reaches
 * neither them nor a thread's arena.  So from 256 KiB up such a buffer is
 * a mapping of its own, 2 MiB aligned and sized, advised to use
 * transparent huge pages: one fault per 2 MiB.  Below that, realloc. */
#if defined(__SANITIZE_ADDRESS__)
/* under AddressSanitizer every buffer comes from its malloc, which checks
 * each access; a mapping of our own would not be checked */
#define BIG_MIN SIZE_MAX
#else
#define BIG_MIN ((size_t)256 << 10)
#endif

static size_t big_round(size_t n)
{
	return (n + HUGE_PAGE - 1) & ~(size_t)(HUGE_PAGE - 1);
}

static void *big_map(size_t n)
{
	size_t len = n + HUGE_PAGE;
	unsigned char *m = mmap(NULL, len, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (m == MAP_FAILED)
		return NULL;
	uintptr_t a = ((uintptr_t)m + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
	size_t head = a - (uintptr_t)m;
	if (head)
		munmap(m, head);
	if (len - head > n)
		munmap((unsigned char *)a + n, len - head - n);
#ifdef MADV_HUGEPAGE
	(void)madvise((void *)a, n, MADV_HUGEPAGE);
#endif
	return (void *)a;
}

void sf_big_free(void *p, size_t cap)
{
	if (!p)
		return;
	if (cap >= BIG_MIN)
		munmap(p, cap);
	else
		free(p);
}

int sf_big_resize(void *buf, size_t *cap, size_t n)
{
	void **b = buf;

	if (*cap >= BIG_MIN && n <= *cap)
		return 0;       /* a mapping is never shrunk */
	if (n < BIG_MIN) {
		void *q = realloc(*b, n ? n : 1);
		if (!q)
			return -1;
		*b = q;
		*cap = n;
		return 0;
	}
	if (n > SIZE_MAX - HUGE_PAGE * 2)
		return -1;
	n = big_round(n);
	if (n == *cap)
		return 0;
	if (*cap >= BIG_MIN) {
		/* the kernel moves the pages, no copy: growing a buffer to
		 * N bytes never needs 1.5 N of memory or address space (an
		 * endless line used twice --max-line).  The new place may
		 * not be 2 MiB-aligned; huge pages still fill its inside. */
		void *m = mremap(*b, *cap, n, MREMAP_MAYMOVE);
		if (m != MAP_FAILED) {
			*b = m;
			*cap = n;
			return 0;
		}
	}
	void *q = big_map(n);
	if (!q)
		return -1;
	if (*cap)
		memcpy(q, *b, *cap < n ? *cap : n);
	sf_big_free(*b, *cap);
	*b = q;
	*cap = n;
	return 0;
}

int sf_big_reserve(void *buf, size_t *cap, size_t n)
{
	if (n > SIZE_MAX - HUGE_PAGE * 2 || big_round(n) < BIG_MIN)
		return -1;
	return sf_big_resize(buf, cap, n);
}

void sf_big_populate(void *buf, size_t cap, size_t from, size_t to)
{
#ifdef MADV_POPULATE_WRITE
	uintptr_t a, b;

	if (cap < BIG_MIN || from >= to || from >= cap)
		return;
	if (to > cap)
		to = cap;
	a = (uintptr_t)buf + from;
	b = (uintptr_t)buf + to;
	a &= ~(uintptr_t)4095;
	b = (b + 4095) & ~(uintptr_t)4095;
	/* a kernel before 5.14 says EINVAL: the writer then faults the
	 * pages in itself, as without this */
	(void)madvise((void *)a, b - a, MADV_POPULATE_WRITE);
#else
	(void)buf;
	(void)cap;
	(void)from;
	(void)to;
#endif
}

/* Move the pages of the mapping [from, from + len) to `to` (a mapping's
 * part of len bytes, both 2 MiB-aligned): the kernel moves page tables,
 * so the pages stay faulted in (huge ones whole), nothing is copied or
 * zeroed, and what was at `to` is unmapped.  false when it cannot. */
static bool big_move(void *from, size_t len, void *to)
{
#ifdef MREMAP_FIXED
	return mremap(from, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, to) !=
	       MAP_FAILED;
#else
	(void)from;
	(void)len;
	(void)to;
	return false;
#endif
}

void sf_big_keep(struct sf_ctx *ctx, void *buf, size_t cap)
{
	if (!ctx || cap < BIG_MIN) {
		sf_big_free(buf, cap);
		return;
	}
	if (ctx->spare) {
		/* both, one after the other in a mapping of their own: a
		 * taker of more than either gets the pages of both (the
		 * stack tree's arrays, one as large as the other).  The new
		 * one first: a stage has just written its pages, where the
		 * one kept before may end in a reservation's pages never
		 * touched (sf_big_keep of a room written in part), and a
		 * taker gets the first pages first */
		size_t a = big_round(cap), b = big_round(ctx->spare_cap);
		unsigned char *m = big_map(a + b);
		if (m && big_move(buf, a, m)) {
			buf = m;
			cap = a;
			if (big_move(ctx->spare, b, m + a)) {
				ctx->spare = m;
				ctx->spare_cap = a + b;
				return;
			}
			munmap(m + a, b);
		} else if (m) {
			munmap(m, a + b);
		}
		/* else the larger, as before */
		if (cap <= ctx->spare_cap) {
			sf_big_free(buf, cap);
			return;
		}
		sf_big_free(ctx->spare, ctx->spare_cap);
	}
	ctx->spare = buf;
	ctx->spare_cap = cap;
}

void sf_big_keep_used(struct sf_ctx *ctx, void *buf, size_t cap,
		      size_t used)
{
	size_t u = big_round(used);

	if (!ctx || cap < BIG_MIN || u < BIG_MIN) {
		sf_big_free(buf, cap);
		return;
	}
	/* a room reserved for the most entries a stage might write, of
	 * which it wrote `used` bytes: the rest was never touched */
	if (u < big_round(cap)) {
		munmap((unsigned char *)buf + u, big_round(cap) - u);
		cap = u;
	}
	sf_big_keep(ctx, buf, cap);
}

void sf_big_give(struct sf_ctx *ctx, void *buf, size_t cap, size_t used)
{
	sf_big_keep_used(ctx && ctx->keep_given ? ctx : NULL, buf, cap, used);
}

int sf_big_take(struct sf_ctx *ctx, void *buf, size_t *cap, size_t n)
{
	void **b = buf;

	if (!ctx->spare || ctx->spare_cap < n)
		return -1;
	/* the whole 2 MiB pieces past n stay kept, for the next taker (a
	 * mapping can be unmapped in parts) */
	size_t take = big_round(n ? n : 1);
	if (take + BIG_MIN > ctx->spare_cap)
		take = ctx->spare_cap;
	*b = ctx->spare;
	*cap = take;
	ctx->spare = take < ctx->spare_cap ?
		     (unsigned char *)ctx->spare + take : NULL;
	ctx->spare_cap -= take;
	return 0;
}

int sf_big_reserve_kept(struct sf_ctx *ctx, void *buf, size_t *cap, size_t n)
{
	void **b = buf;

	if (!sf_big_take(ctx, buf, cap, n))
		return 0;
	if (sf_big_reserve(buf, cap, n))
		return -1;
	/* fewer kept than reserved: the kept pages become the first of
	 * the room, the rest stays address space */
	size_t k = ctx->spare ? big_round(ctx->spare_cap) : 0;
	if (k && k <= *cap && big_move(ctx->spare, k, *b)) {
		ctx->spare = NULL;
		ctx->spare_cap = 0;
	}
	return 0;
}

void sf_big_drop(struct sf_ctx *ctx)
{
	sf_big_free(ctx->spare, ctx->spare_cap);
	ctx->spare = NULL;
	ctx->spare_cap = 0;
}

int sf_big_grow(void *buf, size_t *cap, size_t need)
{
	if (need <= *cap)
		return 0;
	size_t n = *cap ? *cap : 65536;
	while (n < need) {
		if (n > SIZE_MAX / 4)
			return -1;
		n *= 2;
	}
	return sf_big_resize(buf, cap, n);
}

char *sf_strndup(const char *s, size_t n)
{
	char *d = malloc(n + 1);

	if (!d)
		return NULL;
	memcpy(d, s, n);
	d[n] = 0;
	return d;
}
