/*
 * capture.h - the capture engine behind sfcapture: sample every thread of
 * a live process with ptrace, unwind the copies with DWARF CFI (libdw) or
 * frame pointers, symbolize once at the end, and emit the samples into a
 * profile (formats/model/profile.h).  It knows no file format, never prints and
 * never exits.
 *
 * One tick (every 1/hz seconds on an absolute CLOCK_MONOTONIC schedule):
 *   1. rescan /proc/PID/task.  For each thread read
 *      /proc/PID/task/TID/schedstat (run time and timeslice count, from a
 *      file kept open).  A thread that has not been scheduled since a
 *      moment when it provably held the registers and stack of its last
 *      real stop is counted again with that stack, without stopping it
 *      ("reused" sample, see below).  The others have their name and
 *      state read from /proc/PID/task/TID/stat BEFORE stopping them (a
 *      stopped thread looks idle).  A thread that is asleep in a system
 *      call is read where it sleeps, without a stop (below);
 *   2. PTRACE_SEIZE and PTRACE_INTERRUPT every thread that must be
 *      stopped, then, as each stop arrives through one waitpid(-1,
 *      __WALL) dispatcher with a deadline (signals that arrive meanwhile
 *      are re-injected at once; with more than one CPU it polls for up to
 *      50 us before it sleeps): copy the stack from a little below the
 *      thread's last sp up to the end of its outermost frame (the stop
 *      is reported before the thread has left its CPU, and it runs no
 *      user code from then on), PTRACE_GETREGSET(NT_PRSTATUS), keep the
 *      copy if it holds sp (plus the 128-byte red zone below it on
 *      x86_64), else copy the top `stack_bytes` now with
 *      process_vm_readv, PTRACE_DETACH.  A stop that comes after the
 *      tick's deadline is read and released as soon as it comes, also
 *      while the sampler waits for the next tick.  The waits for
 *      the threads to reach their stops overlap; each thread is paused
 *      only for its own copy.  With all_stop every thread is stopped
 *      before the first is read, and all are released together;
 *   3. with the target running again, unwind the copies and intern the
 *      stacks as addresses (module + offset is resolved at the end).
 *
 * Reuse is exact, not an estimate.  A stop wakes a blocked thread: after
 * the detach it runs once to restart its system call, so schedstat always
 * moves once after a real stop.  The baseline is therefore taken at a
 * later tick, and only when (a) the stop found the thread inside a system
 * call the kernel restarts (x86_64: rax is -ERESTARTSYS, -ERESTARTNOINTR,
 * -ERESTARTNOHAND or -ERESTART_RESTARTBLOCK), (b) /proc/.../syscall now
 * shows it blocked in that call (or restart_syscall) with the same six
 * arguments, sp and pc, (c) the stack bytes the unwinder read are the same
 * (read again with process_vm_readv), and (d) schedstat did not move
 * while (b) and (c) were read.  From then on, equal schedstat means the
 * thread has not run, so its registers and stack are those of the copy.
 * Ticks skipped because the sampler fell behind are filled, with their
 * scheduled times, for threads whose baseline is older than the skipped
 * tick and still holds: they did not run in between either.
 *
 * Reading without a stop (x86_64, with reuse, not with all_stop or
 * no_peek): a thread in state S that ran since its last sample is read
 * as it sleeps.  Between two reads of its schedstat that give the same
 * values it was on no CPU, so its user registers and stack did not change
 * in between; inside that span /proc/PID/task/TID/syscall gives the
 * registers the kernel saved when it entered the call (the call number,
 * the six argument registers, sp and pc) and process_vm_readv copies the
 * stack below and above sp.  The copy is unwound at once with only those
 * registers known: libdw fails, rather than guesses, where a CFI rule
 * needs another (rbp in code built with frame pointers, rbx ...), and a
 * stack that does not unwind completely through known modules is
 * dropped and the thread stopped as before.  So a sample read this way
 * (label stopless=1) is exactly the stack a stop would have found, and
 * the thread is never interrupted: no EINTR from epoll_wait, no
 * restarted call.  When the scan's schedstat read (at the tick's start)
 * gave the same values too, the proof reaches back to it: the read's
 * window [scan read, second read] pays ticks skipped inside it, like a
 * stop's window below, and the reuse baseline starts just after it.
 * These reads run after the scan, before the stops of the tick.
 *
 * Running threads without a stop (x86_64, DWARF, not all_stop or
 * no_perf, while fewer of the target's threads are runnable than there
 * are CPUs): a per-thread task-clock perf event armed for one overflow
 * at the tick makes the kernel copy the thread's user registers and the
 * top of its stack from its timer interrupt (perf.c).  The sample is
 * unwound at once and kept only when it reaches an outermost frame, like
 * a read without a stop (perf copies no red zone); otherwise, or when no
 * sample comes within 100 us, the thread is stopped.  Label
 * stopless=perf.
 *
 * Catching up (a tick that overran, above all the first, which must stop
 * every thread): a stop also pays every skipped tick inside its window,
 * with label reused=catchup.  The window runs from PTRACE_INTERRUPT to
 * PTRACE_DETACH, in which the tracee runs none of its own code, and
 * starts instead at the scan's schedstat read when a read just after the
 * interrupt finds the same values (the thread was on no CPU in between,
 * so it already held the stop's state).  And while a tick overruns, the
 * schedstat of the threads it has released is read a quarter period
 * before each tick it overruns; a baseline taken later with the same
 * values dates from that read, so the skipped ticks after it are filled
 * as above (reused=1).  The two spans never overlap (the read comes after
 * the detach), so no tick is paid twice, and every other sample of a
 * skipped tick stays missed.
 * Not checked: callee-saved registers other than sp (a thread that left
 * the call and came back to the same pc and sp with the same stack bytes
 * but another rbx would pass (b)-(d); the unwinder reads them only where
 * CFI says so, which needs a different path to the same pc and sp).  The
 * state label of a reused sample is read when the baseline is taken (a
 * thread woken since but not yet run keeps it).  Reuse
 * is off where schedstat is missing, with on_cpu, with no_reuse, and on
 * architectures other than x86_64.  verify_reuse stops the thread anyway
 * and counts reused stacks that differ from the real one (tests).
 *
 * Several processes (sfc_add, the children option): one session per
 * process, each with its own threads, modules and samples, ticked
 * together by sfc_run; a ptrace event is handed to the session of its
 * thread; sfc_emit emits them all (threads keep their pid).  Children are
 * found by listing /proc/PID/task/TID/children at every tick, not with
 * PTRACE_O_TRACEFORK, which would keep the parents traced.
 *
 * sfc_open raises the soft RLIMIT_NOFILE to the hard limit (one open
 * schedstat file per thread); when descriptors run out, files are opened
 * per read instead.
 *
 * Never PTRACE_ATTACH, SIGSTOP or PTRACE_O_EXITKILL: if sfcapture dies
 * (even by SIGKILL) the kernel releases every seized thread.  A thread
 * that was group-stopped (Ctrl-Z) stays stopped.  A thread that does not
 * stop within half a period (at most stop_timeout_ns: it waits for a
 * CPU, or is in D state) is left pending and counted missed; when its
 * stop comes it is read, released, and recorded at its tick's time, and
 * every later tick that found it still pending gets the same stack
 * (sample label reused=late): from the interrupt to the stop a tracee
 * runs no user code.  Ticks thus keep their schedule.
 *
 * Observer effect: a stop interrupts a blocked system call.  read, futex
 * and nanosleep restart transparently, but epoll_wait (and other calls
 * listed in signal(7) as never restarted) return EINTR to the program.
 * Blocked threads read without a stop see neither; the others (state D,
 * a stack that needs more registers, no_peek) see it once per stop.
 *
 * Errors: sfc_open and sfc_run return 0 or a negative sf_code with
 * ctx->err set; target problems (no such process, permission, another
 * tracer) are SF_EINPUT with a message that says how to proceed.
 * Oddities met while sampling (truncated stacks, threads that could not be
 * stopped in time) are counted warnings (sf_warn).
 */
#ifndef SF_CAPTURE_H
#define SF_CAPTURE_H

#include "profile.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

enum sfc_unwind { SFC_UNWIND_DWARF = 0, SFC_UNWIND_FP = 1 };

struct sfc_options {
	pid_t pid;              /* target process (the first of pids) */
	const pid_t *pids;      /* every process named (sfc_options_set
				 * "pid", malloc'ed, the caller's:
				 * free((void *)o->pids)); sfc_open opens
				 * `pid`, sfc_add the others */
	size_t npids;
	bool children;          /* follow the processes the targets start
				 * (and theirs) for the whole capture: each
				 * tick lists the children of every thread
				 * (/proc/PID/task/TID/children) and samples
				 * the new ones from that tick on */
	bool is_child;          /* we started it (sfcapture -- CMD): its exit
				 * status is collected by the dispatcher */
	bool no_children;       /* sfc_start: a command started there is
				 * followed into its children unless this
				 * is set */
	double hz;              /* samples per second per thread (> 0) */
	int64_t duration_ns;    /* 0: until *stop or the target exits */
	const pid_t *tids;      /* only these threads (NULL: all) */
	size_t ntids;
	bool on_cpu;            /* only threads in state R */
	bool all_stop;          /* stop all threads, then sample them */
	enum sfc_unwind unwind;
	size_t stack_bytes;     /* stack copied per sample (default 32K) */
	unsigned max_frames;    /* frames kept per stack (default 512) */
	int64_t stop_timeout_ns; /* longest wait for one thread's stop
				  * (default 20ms; a tick waits at most
				  * half a period) */
	bool no_demangle;
	bool source_lines;      /* add file:line (slower symbolization) */
	bool no_reuse;          /* stop every thread at every tick */
	bool no_boost;          /* keep our scheduling (see sfc_run) */
	bool verify_reuse;      /* stop reusable threads too and compare the
				 * stacks (st.reuse_verified, reuse_mismatch);
				 * likewise read blocked threads without a
				 * stop, then stop them and compare
				 * (st.peek_verified, peek_mismatch) */
	bool no_perf;           /* stop a running thread rather than sample
				 * it with a perf event (see "Running
				 * threads without a stop") */
	bool no_python;         /* no CPython frames (python.c) */
	bool verify_symbols;    /* name each address with libdwfl's own
				 * search too (dwfl_module_addrinfo) and
				 * count the answers that differ from the
				 * symbol index's (capture.symbols_*) */
	bool no_peek;           /* stop a blocked thread that ran since its
				 * last sample rather than read it as it
				 * sleeps (see "Reading without a stop") */
	/* Suspension (sfcapture's SIGTSTP): when *suspend is non-zero at a
	 * tick's end, sfc_run waits (up to 1 s) for the stops still on
	 * their way and releases them, so that no thread of the target is
	 * held, then calls on_suspend(suspend_arg), which returns once the
	 * capture may go on (SIGCONT) and clears *suspend.  Ticks are not
	 * scheduled meanwhile (none is missed); the time counts toward
	 * duration_ns.  NULL: never. */
	volatile int *suspend;
	void (*on_suspend)(void *arg);
	void *suspend_arg;
};

/* Fill `o` with the defaults (100 Hz, DWARF, 32 KiB, 512 frames). */
void sfc_options_init(struct sfc_options *o);
/* Set the option sfcapture spells --NAME from its text (NULL for a flag):
 * "pid" (repeatable; ids separated by commas), "children",
 * "no-children", "frequency", "duration" (seconds), "threads" (ids
 * separated by commas), "on-cpu", "all-stop", "unwind" (dwarf|fp),
 * "stack-bytes" (4K..256K), "stack-frames", "lines", "no-demangle",
 * "no-python", "no-reuse", "no-peek", "no-perf", "verify-reuse",
 * "verify-symbols", "no-boost".  SF_EUSAGE with
 * "option '--NAME' needs ..." for a bad value.  The list "threads" makes
 * is malloc'ed and the caller's: free((void *)o->tids). */
int sfc_options_set(struct sfc_options *o, struct sf_ctx *ctx,
		    const char *name, const char *value);

struct sfc_stats {
	int64_t elapsed_ns;
	uint64_t ticks;            /* ticks run */
	uint64_t ticks_late;       /* ticks skipped because we fell behind */
	uint64_t samples;          /* thread samples taken (reused included) */
	uint64_t reused;           /* of which counted again without a stop */
	uint64_t reuse_verified;   /* verify_reuse: reusable samples stopped
				    * anyway whose stack equals the reused */
	uint64_t reuse_mismatch;   /* ... whose stack differs (a bug) */
	uint64_t peeked;           /* of the samples taken, read from a
				    * blocked thread without stopping it
				    * (label stopless=1) */
	uint64_t perf_samples;     /* of the samples taken, from a running
				    * thread's perf event, without a stop
				    * (label stopless=perf) */
	uint64_t perf_armed;       /* perf events armed for a sample (0: the
				    * perf path was never used, e.g. as many
				    * threads were runnable as there are
				    * CPUs) */
	uint64_t peek_verified;    /* verify_reuse: such reads whose thread
				    * was then stopped, had provably not run
				    * in between, and gave the same stack */
	uint64_t peek_mismatch;    /* ... and gave another stack (a bug) */
	uint64_t missed;           /* thread samples that could not be taken
				    * in time (late ticks x threads, threads
				    * that did not stop, EPERM) */
	uint64_t late;             /* of the samples taken, from a stop that
				    * came after its deadline (the thread was
				    * counted missed, then read when it
				    * stopped; its sample keeps the time of
				    * the tick that asked for it), and from
				    * the ticks that found it still pending
				    * (label reused=late) */
	uint64_t catchup;          /* of the samples taken, for ticks skipped
				    * because we fell behind, from a stop of
				    * this thread whose window covers the
				    * tick (label reused=catchup) */
	uint64_t truncated;        /* stacks whose unwinding stopped early */
	uint32_t threads_now;      /* threads in the last tick */
	uint32_t threads_seen;
	int64_t stop_ns_last;      /* median stop per thread since the
				    * previous progress call */
	bool target_exited;        /* the target ended during the capture */
	char ended[160];           /* why the capture ended early although
				    * the target lives ("another tracer,
				    * process N (gdb), attached to thread T"),
				    * "" otherwise: the samples so far are
				    * kept, sfc_run returns 0 */
	bool child_status_valid;
	int child_status;          /* wait status, when is_child */
};

struct sfc_session;

/* Check the target (exists, not traced by someone else, we may trace it:
 * the first thread is sampled once as a trial) and load its modules. */
int sfc_open(struct sfc_session **out, struct sf_ctx *ctx,
	     const struct sfc_options *o);

/* Sample until *stop becomes non-zero, the duration ends or the target
 * exits.  `progress` (may be NULL) is called about 5 times a second.
 * Every thread is detached when this returns, whatever the outcome.
 * Unless no_boost, the calling thread runs at SCHED_FIFO priority 1
 * meanwhile where it may (root, CAP_SYS_NICE or RLIMIT_RTPRIO), else at
 * nice -10 where it may, else unchanged, then gets its scheduling back: a
 * loaded machine (or a target whose threads keep every CPU busy) would
 * otherwise keep the sampler waiting for a CPU, its ticks would fall
 * behind and lose the samples of the threads that ran. */
int sfc_run(struct sfc_session *s, struct sf_ctx *ctx,
	    volatile int *stop,
	    void (*progress)(const struct sfc_stats *st, void *arg),
	    void *arg);

/* Open the capture o describes: with argv, first start that command as
 * the target (sfc_launch; o->pid and is_child set, and o->children unless
 * o->no_children, as perf record follows a command), then sfc_open
 * o->pid and sfc_add the other o->pids.  Returns 1 when the command ended
 * before its first sample (nothing captured; *status its wait status),
 * else as sfc_open; on an error no command started here is left
 * running. */
int sfc_start(struct sfc_session **out, struct sf_ctx *ctx,
	      struct sfc_options *o, char *const *argv, int *status);

/* After sfc_run: the command sfc_start started, ended if it outlived the
 * capture (sfc_end_child), its wait status in *status.  0 when it had
 * ended by itself, 1 when it was ended here, -1 when there is none or it
 * cannot be waited for. */
int sfc_end_command(struct sfc_session *s, int *status);

/* Add process pid to the capture of `s` (before sfc_run): sampled with
 * the same options, its samples keep their process.  Errors as
 * sfc_open's. */
int sfc_add(struct sfc_session *s, struct sf_ctx *ctx, pid_t pid);

/* The statistics of the capture: with several processes, their sums
 * (target_exited: every one has exited; child_*: the first process's). */
const struct sfc_stats *sfc_stats(const struct sfc_session *s);

/* Median and 99th percentile of the time one thread was stopped per
 * sample (ns; 0 when nothing was sampled). */
void sfc_stop_time(const struct sfc_session *s, int64_t *median,
		   int64_t *p99);

/* Symbolize the unique addresses and add every sample to `p`: sample type
 * ("samples", "count"), threads (pid, tid, name), label "state"
 * (running, sleeping, disk-wait, stopped, traced, zombie, idle, other),
 * label "reused" = "1" on samples counted again without a stop, "late"
 * on ticks paid by a stop that came late, "catchup" on skipped ticks
 * paid by a stop whose window holds them; properties capture.missed,
 * capture.reused, capture.ticks_skipped, capture.catchup,
 * capture.perf_armed, and per thread capture.taken:TID and
 * capture.missed:TID (the samples due to it, ticks skipped included,
 * less those taken: the sum over threads is capture.missed); time in ns since meta.start_time, metadata (period, start, duration,
 * capture.* props, source format "sfcapture").  Call
 * sf_profile_set_aggregate first if wanted. */
int sfc_emit(struct sfc_session *s, struct sf_ctx *ctx,
	     struct sf_profile *p);

/* The capture told to a person, one line at a time to line(text, arg):
 * why it ended early, the samples and how they were taken, how long the
 * target was stopped per sample, the samples with Python frames (p:
 * what sfc_emit filled). */
void sfc_summary(const struct sfc_session *s, const struct sf_profile *p,
		 void (*line)(const char *text, void *arg), void *arg);

/* Detach anything still seized (bounded wait) and free. Safe with NULL. */
void sfc_close(struct sfc_session *s);

/* Start argv[0] (searched in PATH) as a child with argv, for sfc_open
 * with is_child; *out gets its pid.  The exec is confirmed through a
 * close-on-exec pipe, so a missing command is an error here (SF_EINPUT,
 * "cannot run 'CMD': ...") rather than an empty capture.  The child
 * starts with no signal blocked and SIGPIPE at its default. */
int sfc_launch(pid_t *out, struct sf_ctx *ctx, char *const *argv);
/* End a child that outlived the capture: SIGTERM, up to 2 s to exit,
 * then SIGKILL; reaps it and gives its wait status.  Returns 0 when it
 * had ended by itself, 1 when it was ended here, -1 when it cannot be
 * waited for (reaped already: see sfc_stats()->child_status_valid). */
int sfc_end_child(pid_t pid, int *status);

/* ----- /proc parsing (exposed for unit tests) ----- */

/* One line of /proc/PID/stat (or task/TID/stat): the comm may contain
 * spaces and ')' (it ends at the LAST ')').  Returns 0 or -1. */
struct sfc_stat {
	pid_t pid;
	char comm[64];
	char state;             /* 'R', 'S', 'D', 'T', 't', 'Z', 'X', 'I' */
};
int sfc_parse_stat(const char *buf, size_t len, struct sfc_stat *out);

/* The word used for the "state" label: "running", "sleeping", ... */
const char *sfc_state_name(char state);

/* One line of /proc/PID/maps.  `path` points into `line` (not
 * NUL-terminated: path_len); empty for anonymous mappings.  `deleted` is
 * set and " (deleted)" removed from path_len when the file is gone;
 * `special` for "[vdso]", "[stack]", "[heap]" ... Returns 0 or -1. */
struct sfc_map {
	uint64_t start, end, offset;
	uint64_t inode;
	char perms[5];
	const char *path;
	size_t path_len;
	bool deleted;
	bool special;
};
int sfc_parse_maps_line(const char *line, size_t len, struct sfc_map *out);

/* TracerPid from the text of /proc/PID/status; -1 if absent. */
long sfc_status_field(const char *status, const char *field);

#ifdef __cplusplus
}
#endif
#endif
