/*
 * stop.c - stopping threads: PTRACE_SEIZE and PTRACE_INTERRUPT, the
 * dispatcher that reaps every ptrace event (waitpid(-1, __WALL |
 * WNOHANG), woken by SIGCHLD through sigtimedwait), reading a stopped
 * thread's registers and stack, and releasing it.  Stops that come after
 * their tick's deadline are kept here (pending, late, owed) for
 * record.c to record.
 */
#include "capture_int.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef PTRACE_EVENT_STOP
#define PTRACE_EVENT_STOP 128
#endif

/* ----- the dispatcher ----- */

static struct sfc_thr *find_cur(struct sfc_session *s, pid_t tid)
{
	for (size_t i = 0; i < s->ncur; i++)
		if (s->cur[i].tid == tid)
			return &s->cur[i];
	return NULL;
}

/* Remove tid from the pending stops; its entry is copied to *out when
 * out is not NULL.  False when it was not pending. */
static bool pending_take(struct sfc_session *s, pid_t tid,
			 struct sfc_thr *out)
{
	for (size_t i = 0; i < s->npending; i++) {
		if (s->pending[i].tid == tid) {
			if (out)
				*out = s->pending[i];
			s->pending[i] = s->pending[--s->npending];
			return true;
		}
	}
	return false;
}

const struct sfc_thr *sfc__pending_find(const struct sfc_session *s,
					  pid_t tid)
{
	for (size_t i = 0; i < s->npending; i++)
		if (s->pending[i].tid == tid)
			return &s->pending[i];
	return NULL;
}

bool sfc__is_pending(const struct sfc_session *s, pid_t tid)
{
	return sfc__pending_find(s, tid) != NULL;
}

/* This tick (or a skipped one, at `at`) found tid still pending: owe it
 * the sample its stop will give (struct sfc_owed).  It is counted missed
 * by the caller until record_late pays it. */
int sfc__owe(struct sfc_session *s, pid_t tid, char state, int64_t at)
{
	if (sf_grow(&s->owed, &s->capowed, s->nowed + 1, sizeof(*s->owed)))
		return -1;
	s->owed[s->nowed++] = (struct sfc_owed){ tid, state, at };
	return 0;
}


/* Bound on the late stops kept between two ticks (each holds a stack
 * copy); past it a late stop is only released, as before. */
#define SFC_LATE_MAX 256

/* A stop that arrived after its deadline: the thread is stopped anyway,
 * so read it now and release it (its tick counted it missed; the next
 * tick records it, see record_late).  On a loaded machine this is what
 * gives a thread its first complete copy, from which later ticks can
 * reuse its stack. */
static void take_late(struct sfc_session *s, pid_t w)
{
	struct sfc_thr t;
	unsigned char *stack = NULL;

	if (!pending_take(s, w, &t))
		return;
	if (s->nlateq < SFC_LATE_MAX && !s->st.target_exited &&
	    !sf_grow(&s->late, &s->caplateq, s->nlateq + 1,
		     sizeof(*s->late)) &&
	    (stack = malloc(s->slot))) {
		t.ps = PS_STOPPED;
		t.have = false;
		sfc__grab(s, &t, stack);
		sfc__release(s, &t, t.t_int);
		if (t.have) {
			s->late[s->nlateq].t = t;
			s->late[s->nlateq++].stack = stack;
			return;
		}
		free(stack);
		return;
	}
	free(stack);
	ptrace(PTRACE_DETACH, w, 0, 0);
}

/* The session whose thread w is: s, or another process of its capture
 * (events of every tracee come through one waitpid). */
static struct sfc_session *owner(struct sfc_session *s, pid_t w)
{
	const struct sfc_session *h = s->head;

	if (!h || h->nprocs < 2 || find_cur(s, w) ||
	    sfc__pending_find(s, w) || w == s->pid)
		return s;
	for (size_t i = 0; i < h->nprocs; i++) {
		struct sfc_session *q = h->procs[i];
		if (q != s && (find_cur(q, w) || sfc__pending_find(q, w) ||
			       w == q->pid))
			return q;
	}
	return s;
}

static void handle_event(struct sfc_session *s, pid_t w, int st)
{
	s = owner(s, w);
	struct sfc_thr *t = find_cur(s, w);

	if (WIFEXITED(st) || WIFSIGNALED(st)) {
		if (t)
			t->ps = PS_GONE;
		pending_take(s, w, NULL);
		if (w == s->pid && s->o.is_child) {
			s->st.child_status = st;
			s->st.child_status_valid = true;
			s->st.target_exited = true;
		}
		return;
	}
	if (!WIFSTOPPED(st))
		return;
	int ev = st >> 16, sig = WSTOPSIG(st);
	if (ev == PTRACE_EVENT_STOP) {
		/* interrupt stop (SIGTRAP) or group-stop (SIGSTOP...):
		 * either way the thread is ours to read now */
		if (t && t->ps == PS_SEIZED) {
			t->ps = PS_STOPPED;
			return;
		}
		/* a stop that arrived after its deadline */
		take_late(s, w);
		return;
	}
	/* signal-delivery-stop: hand the signal back at once and keep
	 * waiting for the interrupt stop (storing it until the detach would
	 * re-trap on every resume and delay it for the whole capture) */
	ptrace(PTRACE_CONT, w, 0, (void *)(uintptr_t)(ev ? 0 : sig));
}

/* Handle one event, waiting until `deadline` at most.  Returns 1 if an
 * event was handled, 0 at the deadline or when nothing can come. */
int sfc__dispatch_one(struct sfc_session *s, int64_t deadline)
{
	sigset_t chld;

	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	for (;;) {
		int st;
		pid_t w = waitpid(-1, &st, __WALL | WNOHANG);
		if (w > 0) {
			s->spin_from = 0;
			handle_event(s, w, st);
			return 1;
		}
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return 0;       /* ECHILD: no tracee, no child */
		int64_t now = sfc__mono();
		if (now >= deadline)
			return 0;
		/* a stop being waited for in a tick: look again at once for a
		 * while (see SFC_SPIN_NS) before sleeping */
		if (s->spinning) {
			if (!s->spin_from)
				s->spin_from = now;
			if (now - s->spin_from < SFC_SPIN_NS)
				continue;
		}
		int64_t left = deadline - now;
		struct timespec ts = { left / 1000000000, left % 1000000000 };
		/* EINTR (our SIGINT handler) or a timeout: look again */
		sigtimedwait(&chld, NULL, &ts);
	}
}

/* Consume every event that is already there. */
void sfc__drain(struct sfc_session *s)
{
	while (sfc__dispatch_one(s, 0) > 0)
		;
}

/* ----- stopping one thread ----- */

static void thread_gone_or(struct sfc_session *s, struct sfc_thr *t, int ps)
{
	struct sfc_stat stt;

	t->ps = sfc__task_stat(s, t->tid, &stt) ? ps : PS_GONE;
}

/* The tracer of thread tid other than us (its pid, its name into comm),
 * or 0. */
static long other_tracer(const struct sfc_session *s, pid_t tid,
			 char *comm, size_t size)
{
	char path[80], status[4096];
	long tracer;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/status", (int)s->pid,
		 (int)tid);
	if (sfc__read_small(path, status, sizeof(status)) <= 0)
		return 0;
	tracer = sfc_status_field(status, "TracerPid");
	if (tracer <= 0 || tracer == (long)getpid())
		return 0;
	snprintf(comm, size, "?");
	snprintf(path, sizeof(path), "/proc/%ld/comm", tracer);
	if (sfc__read_small(path, comm, size) > 0)
		comm[strcspn(comm, "\n")] = 0;
	return tracer;
}

void sfc__lost(struct sfc_session *s, pid_t tid)
{
	char comm[64];
	long tracer;

	if (s->st.ended[0])
		return;
	if ((tracer = other_tracer(s, tid, comm, sizeof(comm))))
		snprintf(s->st.ended, sizeof(s->st.ended),
			 "another tracer, process %ld (%s), attached to "
			 "thread %d", tracer, comm, (int)tid);
	else
		snprintf(s->st.ended, sizeof(s->st.ended),
			 "thread %d can no longer be traced (permission "
			 "denied)", (int)tid);
}

void sfc__explain_eperm(struct sfc_session *s, struct sf_ctx *ctx,
			pid_t tid)
{
	char path[64], status[4096], self[4096], scope_s[16];
	long tracer, uid = -1, scope = -1;
	bool cap = false;

	/* a debugger attaches thread by thread: ask the thread refused */
	snprintf(path, sizeof(path), "/proc/%d/task/%d/status", (int)s->pid,
		 (int)tid);
	if (sfc__read_small(path, status, sizeof(status)) < 0)
		status[0] = 0;
	tracer = sfc_status_field(status, "TracerPid");
	uid = sfc_status_field(status, "Uid");
	if (sfc__read_small("/proc/sys/kernel/yama/ptrace_scope", scope_s,
		       sizeof(scope_s)) > 0)
		scope = strtol(scope_s, NULL, 10);
	if (sfc__read_small("/proc/self/status", self, sizeof(self)) > 0) {
		const char *c = strstr(self, "CapEff:");
		if (c)
			cap = (strtoull(c + 7, NULL, 16) >> 19) & 1;
	}
	if (tracer > 0) {
		char comm[64] = "?";
		snprintf(path, sizeof(path), "/proc/%ld/comm", tracer);
		if (sfc__read_small(path, comm, sizeof(comm)) > 0)
			comm[strcspn(comm, "\n")] = 0;
		sf_error(ctx, SF_EINPUT, NULL, 0,
			 "cannot trace process %d: it is already traced by "
			 "process %ld (%s); detach that debugger first",
			 (int)s->pid, tracer, comm);
	} else if (scope == 3) {
		sf_error(ctx, SF_EINPUT, NULL, 0,
			 "cannot trace process %d: permission denied: "
			 "kernel.yama.ptrace_scope is 3 (ptrace disabled "
			 "until reboot)", (int)s->pid);
	} else if (uid >= 0 && uid != (long)geteuid() && !cap) {
		sf_error(ctx, SF_EINPUT, NULL, 0,
			 "cannot trace process %d: permission denied: it "
			 "belongs to user %ld and you are user %ld; run "
			 "sfcapture as that user, as root, or with "
			 "CAP_SYS_PTRACE", (int)s->pid,
			 uid, (long)geteuid());
	} else if (scope >= 1 && !cap) {
		sf_error(ctx, SF_EINPUT, NULL, 0,
			 "cannot trace process %d: permission denied: "
			 "kernel.yama.ptrace_scope is %ld (only a parent may "
			 "trace); start the program under sfcapture "
			 "(sfcapture -- CMD), run as root, or set "
			 "'sysctl kernel.yama.ptrace_scope=0'", (int)s->pid,
			 scope);
	} else if (!cap) {
		sf_error(ctx, SF_EINPUT, NULL, 0,
			 "cannot trace process %d: permission denied: "
			 "missing CAP_SYS_PTRACE (in a container: docker run "
			 "--cap-add SYS_PTRACE)", (int)s->pid);
	} else {
		sf_error(ctx, SF_EINPUT, NULL, 0,
			 "cannot trace process %d: permission denied "
			 "(a security module or seccomp forbids ptrace)",
			 (int)s->pid);
	}
}

int sfc__seize(struct sfc_session *s, struct sf_ctx *ctx,
		 struct sfc_thr *t)
{
	if (ptrace(PTRACE_SEIZE, t->tid, 0, 0) < 0) {
		int e = errno;
		if (e == ESRCH) {
			t->ps = PS_GONE;
			return 0;
		}
		/* EPERM also comes from a thread that is exiting */
		thread_gone_or(s, t, PS_FAILED);
		if (t->ps == PS_GONE)
			return 0;
		/* refused before the first sample: the capture never
		 * started (an error); later, a debugger attached or the
		 * program changed its credentials: the capture ends early
		 * with what it has (sfc_stats()->ended) */
		if (e == EPERM && !s->fatal_checked && !s->st.samples) {
			sfc__explain_eperm(s, ctx, t->tid);
			return SF_EINPUT;
		}
		if (e == EPERM && s->later) {
			/* a child we may not trace (set-uid, or a debugger
			 * holds it): only that process leaves the capture */
			if (!s->refused)
				sf_warn(ctx, "capture.child-refused",
					"cannot trace process %d (%s), started "
					"by a target: it is not sampled from "
					"now on", (int)s->pid, s->command);
			s->refused = true;
			return 0;
		}
		if (e == EPERM) {
			sfc__lost(s, t->tid);
			return 0;
		}
		sf_warn(ctx, "capture.seize",
			"cannot stop thread %d: %s", (int)t->tid, strerror(e));
		return 0;
	}
	s->fatal_checked = true;
	t->t_int = sfc__mono();
	/* ESRCH here: the thread is exiting; its exit event will come */
	ptrace(PTRACE_INTERRUPT, t->tid, 0, 0);
	t->ps = PS_SEIZED;
	return 0;
}

static int pending_add(struct sfc_session *s, const struct sfc_thr *t)
{
	if (sf_grow(&s->pending, &s->cappending, s->npending + 1,
		    sizeof(*s->pending)))
		return -1;
	s->pending[s->npending++] = *t;
	return 0;
}

int sfc__wait_stopped(struct sfc_session *s, struct sf_ctx *ctx,
			struct sfc_thr *t, int64_t wait)
{
	int64_t deadline = t->t_int + wait;

	while (t->ps == PS_SEIZED && sfc__dispatch_one(s, deadline) > 0)
		;
	if (t->ps == PS_SEIZED) {
		/* D state (NFS, a slow disk) or a dying process: do not stall
		 * the tick; the dispatcher detaches it when the stop comes */
		if (pending_add(s, t))
			return sf_error_nomem(ctx);
		t->ps = PS_FAILED;
		sf_warn(ctx, "capture.timeout",
			"thread %d did not stop within %.1f ms (waiting for "
			"a CPU, or in uninterruptible sleep): its samples "
			"come from its stop when that comes, and are "
			"counted missed if it never does", (int)t->tid,
			(double)wait / 1e6);
	}
	return 0;
}

/* Bytes below the last sp that an early copy starts at (grab). */
#define SFC_EARLY_BELOW 1024

void sfc__grab(struct sfc_session *s, struct sfc_thr *t,
	       unsigned char *stack)
{
	struct iovec io = { &t->regs, sizeof(t->regs) };
	struct sfc_cthread *c = &s->threads[t->tidx];
	uint64_t base = 0;
	size_t early = 0;

	/* the thread is stopped: a map read from now on covers its pc */
	t->map_seq = s->map_seq;
	/* Its stop has been reported, so it runs kernel code only until the
	 * detach: its stack is final already, while PTRACE_GETREGSET still
	 * waits for it to leave the CPU.  Copy first, from a little below
	 * its last sp up to its outermost frame: what the stop waits for
	 * then is the registers and the detach, not the copy. */
	if (c->stack_hi && c->stack_hi != UINT64_MAX &&
	    c->last_sp > SFC_REDZONE + SFC_EARLY_BELOW &&
	    c->last_sp < c->stack_hi) {
		base = c->last_sp - SFC_REDZONE - SFC_EARLY_BELOW;
		uint64_t want = c->stack_hi + SFC_STACK_SLACK - base;
		if (want <= s->slot)
			early = sfc__read_mem(s->mem, base, (size_t)want, stack);
	}
	if (ptrace(PTRACE_GETREGSET, t->tid, (void *)(uintptr_t)NT_PRSTATUS,
		   &io) < 0)
		return;
	uint64_t sp = SFC_SP(t->regs);
	c->last_sp = sp;
	if (early && sp - SFC_REDZONE >= base && sp < base + early) {
		size_t off = (size_t)(sp - SFC_REDZONE - base);
		memmove(stack, stack + off, early - off);
		t->stack_base = sp - SFC_REDZONE;
		t->stack_len = early - off;
		t->short_copy = true;
	} else {
		sfc__copy_stack(s, t, stack);
	}
	t->have = true;
	/* python.c: its frames, while it is stopped */
	sfc__src_read_stopped(s, t);
}

void sfc__copy_stack(struct sfc_session *s, struct sfc_thr *t,
		     unsigned char *stack)
{
	uint64_t sp = SFC_SP(t->regs), hi = s->threads[t->tidx].stack_hi;
	size_t len = s->o.stack_bytes;

	/* every copy pays for each byte while the thread waits: a thread's
	 * frames end where its outermost frame does, which stays put */
	t->short_copy = false;
	if (hi > sp && hi - sp + SFC_STACK_SLACK < len) {
		len = (size_t)(hi - sp) + SFC_STACK_SLACK;
		t->short_copy = true;
	}
	t->stack_base = sp - SFC_REDZONE;
	t->stack_len = sfc__read_mem(s->mem, t->stack_base, len + SFC_REDZONE,
				     stack);
	if (SFC_REDZONE && t->stack_len <= SFC_REDZONE) {
		/* sp at the bottom of its mapping: no red zone to copy */
		t->stack_base = sp;
		t->stack_len = sfc__read_mem(s->mem, sp, len, stack);
	}
}

void sfc__release(struct sfc_session *s, struct sfc_thr *t, int64_t t0)
{
	/* until here the thread has run none of its own code since the
	 * interrupt: the end of its catch-up window */
	t->t_rel = sfc__mono();
	/* the kernel keeps a group-stop (Ctrl-Z) across the detach */
	ptrace(PTRACE_DETACH, t->tid, 0, 0);
	t->ps = PS_DONE;
	int64_t d = sfc__mono() - t0;
	uint64_t us = (uint64_t)(d / 1000);
	s->hist[us < SFC_HIST ? us : SFC_HIST]++;
	if (s->nrecent < SFC_RECENT)
		s->recent[s->nrecent++] = d > UINT32_MAX ? UINT32_MAX
							: (uint32_t)d;
}
