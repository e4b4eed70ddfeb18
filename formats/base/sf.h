/*
 * sf.h - the sftools library: context, diagnostics and limits.
 *
 * Every library call takes a `struct sf_ctx`.  The context carries
 *
 *   - the error record of the last failure (code, input name, line or byte
 *     offset, message).  Library functions never print and never exit:
 *     they return 0 on success or a negative `enum sf_code` and fill
 *     ctx->err.  The first error wins: a caller that wraps a failure must
 *     not overwrite the lower-level message (sf_error() is a no-op when an
 *     error is already set).
 *   - warnings, counted per kind: a reader that tolerates an oddity on every
 *     line calls sf_warn() every time, and the program prints each kind
 *     once with its count (sf_ctx_warning_at()).
 *   - limits on hostile input (stack depth, name length, nesting,
 *     decompressed size).  Defaults are documented in docs/RELIABILITY.md;
 *     programs raise them from options.
 *   - format options: `--pid`, `--thread-prefix` and the like, looked up by
 *     name (sf_ctx_opt()).  Formats declare the options they understand in
 *     their `struct sf_format` so the programs can build their command
 *     line from the format table.
 *
 * Ownership: the context owns its messages; sf_ctx_free() releases them.
 */
#ifndef SF_SF_H
#define SF_SF_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdarg.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SF_VERSION "0.1.0"

enum sf_code {
	SF_OK = 0,
	SF_EINPUT = -1,   /* malformed input: the program exits 1 */
	SF_EIO = -2,      /* read/write failure, full disk: exit 3 */
	SF_ENOMEM = -3,   /* out of memory: exit 3 */
	SF_ELIMIT = -4,   /* input exceeds a configured limit: exit 1 */
	SF_EUSAGE = -5,   /* bad option or format name: exit 2 */
	SF_EPIPE = -6,    /* reader of our output went away: exit quietly */
	SF_EINTR = -7,    /* interrupted by a signal (SIGINT/SIGTERM) */
	SF_EUNSUP = -8,   /* the format cannot do that (e.g. write-only) */
};

/* Where an error happened.  `line` and `offset` are 0 when unknown; line
 * numbers start at 1, byte offsets at 0 (so `has_offset` tells offset 0
 * from "no offset"). */
struct sf_error {
	int code;
	char source[256];       /* input or output name, "-" for stdin */
	uint64_t line;
	uint64_t offset;
	int has_offset;
	char msg[512];
};

struct sf_warning {
	char *kind;             /* a short key, e.g. "sampler.lowercase-tid" */
	char *first;            /* the first message of that kind */
	uint64_t count;
};

struct sf_limits {
	uint64_t max_depth;         /* frames in one stack */
	uint64_t max_name;          /* bytes in one name */
	uint64_t max_nesting;       /* JSON/XML nesting */
	uint64_t max_line;          /* bytes in one text line */
	uint64_t max_decompressed;  /* bytes out of gzip */
	uint64_t max_records;       /* records a writer makes by repeating
				     * samples (sbsprof, sampler, cpuprofile) */
	uint64_t max_memory;        /* bytes of memory for the whole run:
				     * readers refuse what would need more
				     * (the programs also cap their address
				     * space at it) */
};

#define SF_DEFAULT_MAX_DEPTH (1u << 20)          /* 1,048,576 frames */
#define SF_DEFAULT_MAX_NAME (1u << 20)           /* 1 MiB */
#define SF_DEFAULT_MAX_NESTING 512u
#define SF_DEFAULT_MAX_LINE (256u << 20)         /* 256 MiB */
#define SF_DEFAULT_MAX_DECOMPRESSED (64ull << 30) /* 64 GiB */
#define SF_DEFAULT_MAX_RECORDS (256u << 20)      /* 268,435,456 */
/* max_memory's default: half the RAM (or of the cgroup's memory.max when
 * that is lower), at least SF_MIN_MAX_MEMORY */
#define SF_MIN_MAX_MEMORY (1ull << 30)           /* 1 GiB */
uint64_t sf_default_max_memory(void);
/* Bytes of heap in use (malloc'd and mmap'd by malloc), 0 where the
 * allocator cannot say (sanitizers): for readers that must check the
 * budget themselves because a library they use ignores failed
 * allocations (json-c). */
uint64_t sf_heap_in_use(void);

struct sf_opt {
	char *name;
	char *value;            /* "1" for flags */
};

struct sf_ctx {
	struct sf_error err;
	struct sf_warning *warnings;
	size_t nwarnings;
	struct sf_limits limits;
	struct sf_opt *opts;
	size_t nopts;
	volatile int *interrupted;  /* if set and non-zero, long loops stop
				     * with SF_EINTR */
	unsigned jobs;              /* threads one job may use; 0: the
				     * default (see sf_jobs) */
	void *spare;                /* a buffer given back for a later
				     * stage of the job (sf_big_keep) */
	size_t spare_cap;
	bool keep_given;            /* a later stage takes what loading
				     * gives up (sf_big_give): set by a
				     * caller whose writer does (format.h,
				     * takes_kept) */
};

void sf_ctx_init(struct sf_ctx *ctx);
void sf_ctx_free(struct sf_ctx *ctx);
/* Record an error.  Returns `code`, so `return sf_error(...)` reads well.
 * Does nothing (but still returns `code`) when an error is already set. */
int sf_error(struct sf_ctx *ctx, int code, const char *source, uint64_t line,
	     const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* The same with a byte offset instead of a line (binary formats). */
int sf_error_at(struct sf_ctx *ctx, int code, const char *source,
		uint64_t offset, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
/* The one out-of-memory error: sf_error(ctx, SF_ENOMEM, NULL, 0, "out of
 * memory"); returns SF_ENOMEM. */
int sf_error_nomem(struct sf_ctx *ctx);
/* Give the error recorded in ctx the place it lacks: a layer that knows
 * where it is reading (the reader) fills in what a lower layer (the model,
 * a parser of one field) could not know, never overwriting it.  `source`
 * (unless NULL) becomes the error's source when that is empty; `line`
 * (unless 0) its line when it has none.  The _at form sets the byte
 * offset instead, when the error has neither line nor offset.  No-op
 * without an error. */
void sf_error_place(struct sf_ctx *ctx, const char *source, uint64_t line);
void sf_error_place_at(struct sf_ctx *ctx, const char *source,
		       uint64_t offset);
/* Clear a previous error (used by format detection, which tries). */
void sf_error_clear(struct sf_ctx *ctx);
/* "SOURCE:LINE: msg", "SOURCE: byte N: msg" or "SOURCE: msg" into buf. */
void sf_error_format(const struct sf_error *e, char *buf, size_t size);

/* Count a warning of `kind`; the message is kept for the first one only. */
void sf_warn(struct sf_ctx *ctx, const char *kind, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Format options.  sf_ctx_set_opt copies both strings and replaces an
 * earlier value.  sf_ctx_opt returns NULL when unset.  They hold what the
 * user typed: the command line (cmd/opt.c) stores them, formats read
 * them.  No layer passes a setting to another through them: an analysis
 * takes typed options (analyze.h), a format's needs are fields of its
 * table entry (format.h). */
int sf_ctx_set_opt(struct sf_ctx *ctx, const char *name, const char *value);
const char *sf_ctx_opt(const struct sf_ctx *ctx, const char *name);
int sf_ctx_flag(const struct sf_ctx *ctx, const char *name);

static inline int sf_interrupted(const struct sf_ctx *ctx)
{
	return ctx->interrupted && *ctx->interrupted;
}

/* Threads the library may use for one job (reading a large input, the
 * native JSON reader's second thread, writing collapsed stacks, building
 * and printing a large call graph): ctx->jobs if non-zero, else
 * the environment variable SF_JOBS, else the CPUs this process may run on
 * (sched_getaffinity), at most SF_MAX_JOBS (sfconv's and sfanalyze's -j
 * sets ctx->jobs).  Every output is the same for every number of jobs. */
#define SF_MAX_JOBS 64
unsigned sf_jobs(const struct sf_ctx *ctx);

/* Run fn(arg, k) for every k in [0, ntasks) on up to `jobs` threads
 * (this one included), and return when all have run: thread t runs the
 * tasks t, t + jobs, t + 2 jobs...  The tasks must touch disjoint memory
 * and must not depend on which thread runs them, so that the result is
 * the same for any `jobs`.  A thread that cannot be started leaves its
 * tasks to the calling thread, so every task runs whatever happens. */
/* Start a thread of the library (pthread_create's arguments and
 * result), with every signal blocked in it, so that a signal (SIGINT,
 * SIGPIPE) is taken by the program's own thread, whose loops check the
 * interrupted flag (struct sf_ctx); but for those a fault raises on the
 * thread that made it (SIGBUS, SIGSEGV, SIGFPE, SIGILL), which blocked
 * would kill the process without its handler.  Every thread the library
 * starts is started so. */
int sf_thread_start(pthread_t *th, void *(*fn)(void *), void *arg);

void sf_run_tasks(unsigned jobs, size_t ntasks,
		  void (*fn)(void *arg, size_t k), void *arg);

/* For a format's read function, reading a part of a file on one of
 * sf_read_parallel's threads (formats/format.h): at the start of the read
 * `*limit = sf_read_part_limit()`; then at each record start (a split
 * point) whose offset in the input (sf_input_offset) is at least *limit,
 * before reading on, sf_read_part_stop(offset, limit): true means end
 * the read there as at the end of the input (another thread took the
 * rest); it moves *limit on.  A record start past the limit not asked
 * about makes the file be read serially.  On a thread with no hook (any
 * read but sf_read_parallel's parts) the limit is UINT64_MAX.
 * sf_part_hook_set sets the calling thread's hook (NULL: none); the
 * hook's functions answer for those two. */
struct sf_part_hook {
	uint64_t (*limit)(void *arg);
	bool (*stop)(void *arg, uint64_t offset, uint64_t *limit);
	void *arg;
};
void sf_part_hook_set(const struct sf_part_hook *hook);
uint64_t sf_read_part_limit(void);
bool sf_read_part_stop(uint64_t offset, uint64_t *limit);

/* Allocation helpers: they return NULL on failure (callers report
 * SF_ENOMEM); sizes are checked for overflow. */
void *sf_malloc(size_t n);
void *sf_calloc(size_t n, size_t size);
void *sf_reallocarray(void *p, size_t n, size_t size);
/* The one growth rule for arrays: make *arr (of *cap elements of `size`
 * bytes) hold at least `need` elements, doubling from at least 16.
 * Returns 0, or -1 when out of memory (*arr and *cap are then unchanged;
 * callers report SF_ENOMEM). */
int sf_grow(void *arr, size_t *cap, size_t need, size_t size);
/* Advise the heap's new part to use transparent huge pages (ctx.c says
 * why); the allocation helpers call it after large allocations, and a
 * program may call it after setting M_TOP_PAD.  Thread-safe; changes no
 * data; does nothing where the C library or kernel lacks the means. */
void sf_heap_advise(void);
/* Byte buffers that grow large and are written once (input buffers,
 * caches of text).  sf_big_resize makes *buf (of *cap bytes) hold n bytes
 * (at least: from 1 MiB up the buffer is a mapping of its own in
 * transparent huge pages where the kernel has them, ctx.c says why, and
 * its size is rounded up to 2 MiB), keeping what fits.  sf_big_grow makes
 * it hold at least `need` bytes, doubling from 64 KiB.  Both return 0, or
 * -1 when out of memory (*buf and *cap unchanged).  Start from NULL and 0;
 * free with sf_big_free(*buf, *cap), never free(). */
int sf_big_resize(void *buf, size_t *cap, size_t n);
int sf_big_grow(void *buf, size_t *cap, size_t need);
void sf_big_free(void *p, size_t cap);
/* sf_big_resize to n bytes only where the buffer is then a mapping of its
 * own (n of 256 KiB or more, and not under AddressSanitizer): address
 * space, no page touched, so that a large bound costs no memory; else
 * -1 and nothing changed. */
int sf_big_reserve(void *buf, size_t *cap, size_t n);
/* Make bytes [from, to) of a buffer of `cap` bytes from sf_big_resize
 * present now (zeroed, writable), as a write would, where it is a mapping
 * of its own and the kernel can (Linux 5.14): for a thread that faults
 * pages in ahead of their writer.  Changes no data; safe while another
 * thread writes the buffer, not while it is resized or freed. */
void sf_big_populate(void *buf, size_t cap, size_t from, size_t to);
/* A buffer of sf_big_resize that one stage of a job is done with, kept in
 * ctx for a later stage to take (sf_big_take) instead of given back to
 * the kernel: its pages are faulted in and cleared already, which fresh
 * ones are not (a fault and a clearing of each 4 KiB).  ctx keeps one:
 * a second kept joins the first (their pages moved one after the other
 * into a mapping of their own, nothing copied), else where the kernel
 * cannot move pages the larger stays; a buffer that is no mapping of its
 * own, or with ctx NULL, is freed.  sf_ctx_free frees the one kept. */
void sf_big_keep(struct sf_ctx *ctx, void *buf, size_t cap);
/* The same for a buffer of which only the first `used` bytes were
 * written (a reservation, sf_big_reserve): the rest, never touched, is
 * given back, so that a taker gets written pages first.  Too little
 * used (under 256 KiB) and the whole is freed. */
void sf_big_keep_used(struct sf_ctx *ctx, void *buf, size_t cap,
		      size_t used);
/* sf_big_keep_used where ctx->keep_given says a later stage will take
 * it, else sf_big_free: for a stage whose buffers only some callers'
 * next stage can use (a reader's, with sfconv's writer after it). */
void sf_big_give(struct sf_ctx *ctx, void *buf, size_t cap, size_t used);
/* Take n bytes (rounded up to 2 MiB) of the buffer ctx keeps into *buf
 * and *cap when it holds that many: 0; else -1 and nothing changed.  What
 * is left of it stays kept, for the next taker.  Its bytes are whatever
 * the stage before left there, not zeroes.  Free it with sf_big_free. */
int sf_big_take(struct sf_ctx *ctx, void *buf, size_t *cap, size_t n);
/* sf_big_reserve's room for n bytes with the buffer ctx keeps as its
 * first pages (faulted in already; their bytes are not zeroes): all of
 * it from the kept buffer when that holds n bytes (sf_big_take), else
 * the kept pages moved to the room's start and the rest address space.
 * *buf must be NULL and *cap 0.  0, or -1 when neither can be had. */
int sf_big_reserve_kept(struct sf_ctx *ctx, void *buf, size_t *cap,
			size_t n);
/* Free the buffer ctx keeps, if any: for a stage that takes none, or
 * what is left after its takes, so that it is not held through the
 * stage's peak of memory. */
void sf_big_drop(struct sf_ctx *ctx);
char *sf_strndup(const char *s, size_t n);

#ifdef __cplusplus
}
#endif
#endif
