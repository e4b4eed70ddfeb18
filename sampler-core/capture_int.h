/*
 * capture_int.h - internal to sampler-core: the session shared by its
 * files (README.md lists them and what each may call), and each file's
 * functions for the files above it.
 */
#ifndef SF_CAPTURE_INT_H
#define SF_CAPTURE_INT_H

#include "capture.h"
#include "hash.h"
#include "name.h"
#include "source.h"

#include <elfutils/libdwfl.h>
#include <signal.h>
#include <sys/user.h>

#if defined(__x86_64__)
typedef struct user_regs_struct sfc_regs;
#define SFC_PC(r) ((uint64_t)(r).rip)
#define SFC_SP(r) ((uint64_t)(r).rsp)
#define SFC_FP(r) ((uint64_t)(r).rbp)
#define SFC_DWARF_SP 7
/* the System V ABI lets a function use 128 bytes below sp without moving
 * it: a CFA rule may read a register saved there (after "pop %rbp") */
#define SFC_REDZONE 128
#elif defined(__aarch64__)
#include <asm/ptrace.h>
typedef struct user_pt_regs sfc_regs;
#define SFC_PC(r) ((uint64_t)(r).pc)
#define SFC_SP(r) ((uint64_t)(r).sp)
#define SFC_FP(r) ((uint64_t)(r).regs[29])
#define SFC_DWARF_SP 31
#define SFC_REDZONE 0
#else
#error "sfcapture supports x86_64 and aarch64"
#endif

/* ptrace state of a thread in the current tick */
enum { PS_IDLE, PS_SEIZED, PS_STOPPED, PS_DONE, PS_GONE, PS_FAILED };

struct sfc_thr {
	pid_t tid;
	uint32_t tidx;          /* index into s->threads */
	char state;             /* from /proc before stopping */
	int ps;
	int64_t t_int;          /* when PTRACE_INTERRUPT was sent */
	sfc_regs regs;
	uint64_t stack_base;    /* address of the first byte copied (sp
				 * minus the red zone) */
	size_t stack_len;       /* bytes copied into the tick's stack buffer */
	bool have;              /* registers and stack copied */
	uint32_t map_seq;       /* s->map_seq when they were copied */
	bool verify;            /* stopped although reusable (verify_reuse):
				 * its stack must equal the reused one */
	bool short_copy;        /* the copy ends at the thread's known
				 * outermost frame (sfc_cthread.stack_hi) */
	bool partial;           /* registers from /proc/.../syscall (a read
				 * without a stop): only sp, pc and the
				 * argument registers are known */
	bool strict;            /* registers and stack from a perf sample
				 * (no red zone): kept only when CFI unwinds
				 * it to an outermost frame */
	bool armed;             /* its perf event waits for this tick's
				 * sample */
	bool verify_peek;       /* stopped although read without a stop
				 * (verify_reuse): its stack must equal that
				 * read's when it provably did not run */
	/* the stop's catch-up window (see sfc__fill_windows in reuse.c and
	 * scan in tick.c): schedstat read at the scan (ck_*, ck_time when
	 * the read had ended), and whether a read just after the interrupt
	 * found it unchanged (then the thread had not run since ck_time) */
	bool ck;
	uint64_t ck_run, ck_slices;
	int64_t ck_time;
	int64_t win_lo;         /* first moment the stop's state is proven */
	int64_t t_rel;          /* just before PTRACE_DETACH */
	bool win;               /* a stop of this tick (not a late one) */
	uint64_t order;         /* who is stopped first (order_cur) */
	uint32_t rec[SFC_NSRC]; /* the sources' records (source.h): read
				 * before the stop (read_asleep) or while
				 * stopped (read_stopped) */
};

/* A stop that came after its tick's deadline: the registers and stack
 * read when it came (grab), recorded at the next tick. */
struct sfc_late {
	struct sfc_thr t;
	unsigned char *stack;   /* s->slot bytes */
};

/* A tick that found a thread still pending: that thread has run no user
 * code since it was interrupted (a tracee reaches its stop before it
 * returns to user space), so its stop, when it comes, is an exact sample
 * of this tick too.  Counted missed until then (record_late). */
struct sfc_owed {
	pid_t tid;
	char state;             /* read from /proc at that tick */
	int64_t at;             /* the tick's time */
};

/* A thread of the capture, across ticks.  After every real stop it keeps
 * the unwinder's inputs (registers, and the bytes of the copy that the
 * unwinder read) so that a later tick can prove that the thread still
 * holds them without stopping it (see reuse_check in reuse.c). */
struct sfc_cthread {
	pid_t tid;
	char name[64];
	int fd;                 /* open task/TID/schedstat, -1 */
	uint64_t run, slices;   /* schedstat at the baseline */
	int64_t base_time;      /* when the baseline was taken */
	bool base;              /* run/slices name a moment when the thread
				 * provably held `regs` and `copy` */
	bool cand;              /* the last stop found it inside a system
				 * call the kernel restarts */
	bool have;              /* regs, copy, node and state are set */
	bool truncated;         /* node starts with [truncated] */
	char state;
	uint32_t node;          /* stack of the last real stop */
	uint32_t seen;          /* last tick that listed it */
	uint32_t listed;        /* last tick that counted it as scheduled */
	/* The last tick's stop, and the span [win_lo, win_hi] in which the
	 * thread provably held that stop's registers and stack: from the
	 * interrupt (or from a schedstat read before it, when a read after
	 * it showed the thread had not run in between) to the detach.  A
	 * tick skipped in that span gets the stop's stack (scan). */
	bool win;
	bool win_trunc;
	char win_state;
	uint32_t win_node;
	int64_t win_lo, win_hi;
	/* schedstat read after that stop's detach, during a tick that
	 * overran (sfc__sweep in reuse.c), and the earliest moment these
	 * values were seen: if a later baseline finds the same values, the
	 * thread held the stop's stack from ck_time on */
	bool ck;
	uint64_t ck_run, ck_slices;
	int64_t ck_time;
	/* End of the highest word any complete unwinding of this thread has
	 * read (its outermost frame, which does not move while the thread
	 * lives); 0: unknown, or a copy ending there once proved too short.
	 * Stops then copy only up to it (sfc__copy_stack). */
	uint64_t stack_hi;
	uint64_t last_sp;       /* sp at its last stop (grab) */
	uint64_t sched;         /* samples due: ticks (skipped ones too)
				 * that listed it, less those that found it
				 * gone; sched - taken is its missed count */
	uint64_t taken;         /* samples taken (add_sample) */
	int pfd;                /* perf event (perf.c), -1 */
	uint32_t perf_after;    /* tick from which it may be armed again */
	void *pmap;             /* its ring buffer, NULL */
	size_t pmap_len;
	sfc_regs regs;
	uint64_t copy_base;
	size_t copy_len, copy_cap;
	unsigned char *copy;
	uint32_t rec[SFC_NSRC]; /* the sources' records of `node` */
	uint32_t win_rec[SFC_NSRC]; /* ... and of `win_node` */
};

struct sfc_addr {
	uint64_t pc;            /* call site (pc - 1 for return addresses) */
	uint32_t gen;           /* program image: +1 at every exec */
	uint32_t tag;           /* its namers' tag (name.h) when it was
				 * sampled: the perf map entry holding pc
				 * (jitmap.c), or 0 */
	Dwfl_Module *mod;       /* NULL until known */
};

struct sfc_node {
	uint32_t parent;
	uint32_t addr;
};

/* Where a sample's stack came from (its label in sfc_emit) */
enum sfc_how {
	SFC_STOP,               /* a stop of its tick: no label */
	SFC_REUSED,             /* counted again without stopping the
				 * thread (reused=1) */
	SFC_LATE,               /* taken from a later stop, struct sfc_owed
				 * (reused=late) */
	SFC_CATCHUP,            /* a skipped tick paid from a stop whose
				 * window covers it, sfc_cthread.win
				 * (reused=catchup) */
	SFC_PEEK,               /* read asleep without a stop (stopless=1) */
	SFC_PERF,               /* a running thread's perf sample
				 * (stopless=perf) */
	SFC_NHOW
};

struct sfc_sample {
	int64_t time;
	uint32_t thread;
	uint32_t stack;
	char state;
	unsigned char how;      /* enum sfc_how */
	uint32_t rec[SFC_NSRC]; /* the sources' records, 0: none */
};

/* How long the dispatcher polls waitpid for a stop the tick waits for
 * before it sleeps in sigtimedwait.  A running thread reaches its stop a
 * few microseconds after PTRACE_INTERRUPT, and the stop is reported
 * before the thread has left its CPU; a sampler asleep then must first be
 * woken and scheduled, and the thread stays stopped for all of that
 * (20-37 us median here, against 7-9 us when polling).  Only with more
 * than one CPU: on one, the poll would only keep the thread from its
 * stop. */
#define SFC_SPIN_NS 50000
/* Bytes copied past the known end of a thread's outermost frame */
#define SFC_STACK_SLACK 256
#define SFC_HIST 100000         /* 1 µs buckets up to 100 ms, then one */
#define SFC_RECENT 4096
#define SFC_ADDR_TRUNCATED 0    /* reserved address id: "[truncated]" */
/* Pages of JIT code remembered (direct-mapped by page number): a JIT's
 * hot code spans hundreds of pages, and a page not remembered costs a
 * read of the memory map (at most one per tick) */
#define SFC_ANON 1024

struct sfc_session {
	struct sfc_options o;
	pid_t pid;
	pid_t mem;              /* whose memory and map are read: pid, or a
				 * live thread once the main thread exited
				 * (pthread_exit; its memory is gone) */
	bool leader_gone;
	uint32_t mem_tick;      /* tick that last picked mem */
	Dwfl *dwfl;
	Dwfl_Callbacks cbs;     /* must outlive dwfl */
	bool attached;          /* dwfl_attach_state done */
	char *debuginfo_path;
	sigset_t oldmask;

	struct sfc_thr *cur;    /* this tick's threads */
	size_t ncur, capcur;
	unsigned char *stacks;  /* capcur * slot */
	size_t slot;            /* stack_bytes + SFC_REDZONE */
	unsigned char *cmp;     /* slot bytes: reuse_check reads here */

	struct sfc_thr *pending; /* seized, stop not consumed yet (past its
				 * tick's deadline) */
	size_t npending, cappending;
	struct sfc_late *late;  /* late stops read, to be recorded */
	size_t nlateq, caplateq;
	struct sfc_owed *owed;  /* ticks that found a thread pending */
	size_t nowed, capowed;

	/* unwinding one snapshot */
	const struct sfc_thr *unw;
	const unsigned char *unw_stack;
	uint64_t *frames;
	size_t nframes;
	uint64_t last_sp;
	uint64_t unw_hi;        /* end of the highest word the unwinder read */
	bool unw_short;         /* it asked for a word past a short copy */
	uint64_t clone_pc[8];   /* pcs without CFI seen lately ... */
	bool clone_yes[8];      /* ... and whether they are in clone
				 * (forgotten when the modules change) */
	unsigned clone_next;
	uint32_t map_seq;       /* +1 at every read of the memory map into
				 * the modules (open, refresh) */
	uint64_t anon_pg[SFC_ANON]; /* page + 1 of leaf pcs found in no
				 * module by a map read after their stop
				 * (JIT code), this image; 0: empty */
	bool unw_bad;

	struct sfc_cthread *threads;
	size_t nthreads;
	struct sf_idx thread_idx;
	struct sfc_addr *addrs;
	size_t naddrs;
	struct sf_idx addr_idx;
	struct sfc_node *nodes;     /* nodes[0] is the empty stack */
	size_t nnodes;
	struct sf_idx node_idx;
	struct sfc_sample *samples;
	size_t nsamples, capsamples;

	uint64_t *hist;
	uint32_t *recent;       /* stop times (ns) since the last progress */
	size_t nrecent;

	struct sfc_stats st;
	int64_t start_mono, start_real;
	bool module_miss;
	uint32_t gen;           /* exec count: addresses of different images
				 * never share an entry */
	char exe[512];          /* /proc/PID/exe at the last check */
	unsigned long exe_ino;
	uint64_t auxv;          /* hash of /proc/PID/auxv at the last check */
	Dwfl **old;             /* images before an exec: their modules stay
				 * valid for symbolization at the end */
	size_t nold;
	int64_t last_refresh;
	int64_t open_since;     /* modules not open since (an exec still
				 * in progress), 0 when open */
	uint32_t refresh_tick;  /* tick of the last in-tick module refresh */
	bool settling;          /* the memory map is still filling in (just
				 * started, exec'd, or the last refresh found
				 * a missing module): refresh without waiting */
	char command[256];
	char parent[96];        /* "COMM [PPID]" of the target's parent */
	int64_t rss, rss_peak;  /* VmRSS, VmHWM (bytes) at the last look,
				 * -1: none yet (read_footprint) */
	bool fatal_checked;
	uint32_t *wins;         /* threads with a window from the last tick */
	size_t nwins, capwins;
	uint32_t *reu;          /* this tick's reusable threads: id << 1 |
				 * (baseline older than this tick) */
	size_t nreu, capreu;
	uint64_t nlate;         /* ticks skipped since the last scan */
	int64_t late_first;     /* time of the first of them */
	int64_t period;
	int64_t sched;          /* when the current tick was due */
	bool reuse;             /* schedstat reuse on (x86_64, file present,
				 * not no_reuse, not on_cpu) */
	bool peek;              /* read sleeping threads without a stop
				 * (reuse, not all_stop, not no_peek) */
	uint32_t tickno;
	bool perf;              /* sample running threads with a perf event
				 * instead of a stop (perf.c) */
	int perf_errno;         /* why perf_event_open was refused; 0: not */
	bool perf_warned;       /* head: the refusal was said */
	size_t ncpus;           /* online CPUs */
	bool spin;              /* more than one CPU: spinning may pay */
	bool spinning;          /* the tick waits for its stops: the
				 * dispatcher polls before it sleeps */
	int64_t spin_from;      /* when the current poll began; 0: none */
	/* Several processes (-p A,B; children followed): one session per
	 * process, each with its own threads, modules and samples.  The
	 * first is the head: procs lists them all, the head first; sfc_run
	 * ticks them together, the dispatcher hands each ptrace event to
	 * the session of its thread, sfc_emit emits them all.  hist is the
	 * head's (shared). */
	struct sfc_session *head;
	struct sfc_session **procs;
	size_t nprocs, capprocs;
	bool done;              /* exited or ended: ticked no more */
	bool later;             /* a child found during the capture */
	bool refused;           /* such a child that ptrace refuses (set-uid,
				 * another tracer): dropped, its samples
				 * kept */
	pid_t *skip;            /* head: children that could not be opened
				 * (not tried again) */
	size_t nskip, capskip;
	bool shared;            /* hist belongs to the head */
	struct sfc_stats gst;   /* sums over procs (sfc_stats) */
	void *src[SFC_NSRC];    /* each source's state (source.h), NULL
				 * when it is off */
	struct {                /* inline.c: per address, its inlined */
		uint32_t off, n; /* frames in inl_ids (set by */
	} *inl;                 /* symbolization) */
	size_t capinl;
	sf_frame_id *inl_ids;
	size_t ninl_ids, capinl_ids;
	uid_t uid;              /* the target's user (owner of /proc/PID):
				 * files it may write are believed
				 * (jitmap.c) */
	struct sfc_jitmap *jit; /* the perf map read so far (jitmap.c) */
	struct sfc_symidx_set *symidx; /* head: the symbol index and own
				 * Dwfl of each file, shared by all procs
				 * (symidx.c; the symbols row frees it) */
	uint64_t sym_verified;  /* head, verify_symbols: answers (a name; an
				 * address's lines and inlined functions)
				 * the shared index and Dwfl gave as the
				 * process's own Dwfl does ... */
	uint64_t sym_mismatch;  /* ... and otherwise (a bug) */
};

/* read.c: the bottom of sampler-core (it calls no other file of it):
 * the clock, small /proc files, a thread's stat and schedstat, the
 * target's memory */
int64_t sfc__mono(void);
/* Read a small /proc file into buf (NUL-terminated); -1 with errno. */
ssize_t sfc__read_small(const char *path, char *buf, size_t size);
/* Read and parse /proc/PID/task/TID/stat into *out; false when the
 * thread is gone (no file, unparsable, zombie or dead). */
bool sfc__task_stat(const struct sfc_session *s, pid_t tid,
		    struct sfc_stat *out);
/* Run time (ns) and timeslice count of c, from its schedstat file (kept
 * open in c->fd).  -1 when the thread is gone or the file unreadable. */
int sfc__sched_read(struct sfc_session *s, struct sfc_cthread *c,
		    uint64_t *run, uint64_t *slices);
/* Copy len bytes of the target at addr; returns the bytes copied (a
 * prefix: the copy stops at the first unmapped page, or after the 80th
 * page). */
size_t sfc__read_mem(pid_t pid, uint64_t addr, size_t len,
		     unsigned char *buf);
/* Copy the ranges r[0..n), one after another into buf, in one system
 * call; returns the bytes copied (a prefix: the copy stops at the first
 * unmapped page, or after 256 pages). */
struct sfc_range {
	uint64_t addr;
	size_t len;
};
size_t sfc__read_ranges(pid_t pid, const struct sfc_range *r, size_t n,
			unsigned char *buf);

/* stop.c: stopping, reading and releasing threads */
/* PTRACE_SEIZE and PTRACE_INTERRUPT t (t->t_int, ps = PS_SEIZED); a
 * thread that is gone is marked so; an error only for the first thread's
 * EPERM (explained) or out of memory. */
int sfc__seize(struct sfc_session *s, struct sf_ctx *ctx,
	       struct sfc_thr *t);
/* Say why ptrace of thread tid was refused (Yama, another tracer, the
 * user). */
void sfc__explain_eperm(struct sfc_session *s, struct sf_ctx *ctx,
			pid_t tid);
/* Thread tid can no longer be traced mid-capture (another tracer
 * attached to it): set st.ended, which ends the capture after this tick
 * with the samples taken so far. */
void sfc__lost(struct sfc_session *s, pid_t tid);
/* Wait until t->t_int + wait for t's stop; past it, t is left pending
 * (read when its stop comes, see sfc__owe) and a warning is counted. */
int sfc__wait_stopped(struct sfc_session *s, struct sf_ctx *ctx,
		      struct sfc_thr *t, int64_t wait);
/* Handle one ptrace event, waiting until `deadline` at most.  1 if an
 * event was handled, 0 at the deadline or when nothing can come. */
int sfc__dispatch_one(struct sfc_session *s, int64_t deadline);
/* Handle every event that is already there. */
void sfc__drain(struct sfc_session *s);
/* Copy a stopped thread's registers and stack into t and `stack`
 * (t->have when both were read). */
void sfc__grab(struct sfc_session *s, struct sfc_thr *t,
	       unsigned char *stack);
/* PTRACE_DETACH t and record how long it was stopped since t0. */
void sfc__release(struct sfc_session *s, struct sfc_thr *t, int64_t t0);
/* Copy the stack of t (its registers read) into `stack`: from the red
 * zone below sp up to stack_bytes above sp, or only up to the end of the
 * thread's outermost frame when an earlier unwinding found it (plus
 * SFC_STACK_SLACK); sets t->stack_base, t->stack_len, t->short_copy. */
void sfc__copy_stack(struct sfc_session *s, struct sfc_thr *t,
		     unsigned char *stack);
/* The pending entry of tid (seized, stop not consumed), or NULL. */
const struct sfc_thr *sfc__pending_find(const struct sfc_session *s,
					pid_t tid);
bool sfc__is_pending(const struct sfc_session *s, pid_t tid);
/* A tick (at `at`) found tid still pending: owe it the sample its stop
 * will give (struct sfc_owed); the caller counts it missed until
 * record_late pays it.  -1 when out of memory. */
int sfc__owe(struct sfc_session *s, pid_t tid, char state, int64_t at);

/* perf.c: sampling a running thread without a stop */
/* Arm c's perf event (opened and mapped the first time) for one sample;
 * false when it cannot (s->perf turns off where perf is refused). */
bool sfc__perf_arm(struct sfc_session *s, struct sfc_cthread *c);
/* The sample the armed event took, into t (registers, stack from sp,
 * t_int = its time) and `stack`: 1, or 0 while there is none. */
int sfc__perf_take(struct sfc_session *s, struct sfc_cthread *c,
		   struct sfc_thr *t, unsigned char *stack);
/* Disarm c's event and drop what it wrote. */
void sfc__perf_cancel(struct sfc_cthread *c);
/* After sfc__perf_arm turned perf off: one warning for the capture
 * (kind capture.perf_refused) naming kernel.perf_event_paranoid. */
void sfc__perf_refused(struct sfc_session *s, struct sf_ctx *ctx);
void sfc__perf_close(struct sfc_cthread *c);

/* Sample this tick's running threads without a stop: arm each one's
 * perf event, wait a moment for the samples, unwind them at once; a
 * thread whose sample did not come or does not unwind completely stays
 * in s->cur to be stopped. */
int sfc__perf_all(struct sfc_session *s, struct sf_ctx *ctx);

/* intern.c: threads, addresses, stack nodes, samples */
/* The thread tid (added, with `name`, when new; a new name replaces the
 * old); -1 when out of memory. */
int sfc__thread_get(struct sfc_session *s, pid_t tid, const char *name,
		    uint32_t *out);
bool sfc__thread_find(struct sfc_session *s, pid_t tid, uint32_t *out);
/* Intern s->frames (leaf first) as a stack node, under [truncated] when
 * incomplete; *known: every frame is in a known module. */
int sfc__intern(struct sfc_session *s, struct sf_ctx *ctx, bool complete,
		uint32_t *out, bool *known);
/* A sample of thread tidx at `time` (sfc__mono), with the sources'
 * records rec[SFC_NSRC]. */
int sfc__add_sample(struct sfc_session *s, struct sf_ctx *ctx,
		    uint32_t tidx, uint32_t node, char state, int64_t time,
		    enum sfc_how how, const uint32_t *rec);

/* image.c: the target's modules, and its execs */
/* Open the modules of the current image (s->map_seq +1, the caches of
 * the previous image forgotten), and ready the sources for them
 * (sfc__src_image). */
int sfc__dwfl_open(struct sfc_session *s, struct sf_ctx *ctx);
/* Read the memory map into the modules again, keeping the known ones
 * (s->map_seq +1). */
void sfc__dwfl_refresh(struct sfc_session *s);
/* Did the target exec another program since the last call?  (False at
 * the first.) */
bool sfc__exec_changed(struct sfc_session *s);
/* After an exec: the new image's modules; no stack of the old one is
 * counted again. */
int sfc__on_exec(struct sfc_session *s, struct sf_ctx *ctx);
/* Open the modules of the current image unless open; false while they
 * cannot be read yet (inside an exec; the target counts as exited after
 * a grace time). */
bool sfc__open_modules(struct sfc_session *s, struct sf_ctx *ctx);
/* The modules changed: no kept stack is counted again. */
void sfc__forget_stacks(struct sfc_session *s);
/* Before unwinding t: modules that cover its leaf pc, or proof that no
 * mapped file does (*fresh false when they could not be read). */
int sfc__leaf_check(struct sfc_session *s, struct sf_ctx *ctx,
		    const struct sfc_thr *t, bool *fresh);
/* After unwinding: read the modules again when a frame fell in none
 * while the map may be newer; true when the stack should be unwound
 * again. */
bool sfc__refresh_for(struct sfc_session *s);

/* record.c: copies become samples */
/* Keep what the unwinder read of t's copy in c, for later reuse. */
int sfc__keep_copy(struct sfc_session *s, struct sfc_cthread *c,
		   const struct sfc_thr *t, const unsigned char *stack);
/* After unwinding a copy of c: where its outermost frame ends. */
void sfc__stack_end(struct sfc_session *s, struct sfc_cthread *c,
		    bool complete);
/* Unwind and record t's copy (stack) as a sample of its tick. */
int sfc__record(struct sfc_session *s, struct sf_ctx *ctx,
		struct sfc_thr *t, const unsigned char *stack);
/* The rest of sfc__record once the stack is a node: the audits, the
 * window, the copy kept for reuse, the sample. */
int sfc__settle(struct sfc_session *s, struct sf_ctx *ctx,
		struct sfc_thr *t, const unsigned char *stack, uint32_t node,
		bool complete, bool known, enum sfc_how how);
/* Record the late stops read since the last tick, at their ticks. */
int sfc__record_late(struct sfc_session *s, struct sf_ctx *ctx);

/* reuse.c: samples from what a thread provably still holds */
/* May c's last stack be counted again now?  *verify: it may, but
 * verify_reuse wants a stop to compare; *old: the baseline predates
 * this tick. */
bool sfc__reusable(struct sfc_session *s, struct sfc_cthread *c,
		   bool *verify, bool *old);
/* Pay a tick skipped at `at` from the windows of the last tick's stops
 * (*filled counts the samples added). */
int sfc__fill_windows(struct sfc_session *s, struct sf_ctx *ctx,
		      int64_t at, uint64_t *filled);
/* Just after t's interrupt: where its stop's window starts. */
void sfc__window_start(struct sfc_session *s, struct sfc_thr *t);
/* The tick overruns: read the schedstat of s->cur[0..n) released. */
void sfc__sweep(struct sfc_session *s, size_t n);

/* peek.c: read this tick's sleeping threads without a stop where that
 * works; the others stay in s->cur to be stopped. */
int sfc__peek_all(struct sfc_session *s, struct sf_ctx *ctx);

/* tick.c */
/* One tick of process s (the schedule is sfc_run's). */
int sfc__tick(struct sfc_session *s, struct sf_ctx *ctx);
/* The threads the last scan listed are due n more samples each. */
void sfc__sched_listed(struct sfc_session *s, uint64_t n);

#endif
