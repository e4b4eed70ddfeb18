/*
 * reuse.c - samples without a stop from what a thread held and provably
 * still holds (see capture.h, "Reuse is exact" and "Catching up"): a
 * thread that has not run since its last stop is counted again, and
 * ticks skipped inside a stop's window get that stop's stack.
 */
#include "capture_int.h"

#include <stdio.h>
#include <string.h>

/* Is the thread, right now, blocked in the system call its last stop
 * interrupted, with every input of the last unwinding unchanged?  See
 * capture.h for the argument.  On success the current schedstat becomes
 * the baseline of later ticks. */
static bool reuse_check(struct sfc_session *s, struct sfc_cthread *c,
			uint64_t run, uint64_t slices)
{
#if defined(__x86_64__)
	char path[80], buf[512];
	unsigned long long v[9];
	uint64_t run2, slices2;
	const sfc_regs *r = &c->regs;

	c->base = false;
	snprintf(path, sizeof(path), "/proc/%d/task/%d/syscall", (int)s->pid,
		 (int)c->tid);
	if (sfc__read_small(path, buf, sizeof(buf)) <= 0)
		return false;
	/* "NR ARG1..ARG6 SP PC" while blocked in a call; "running" or
	 * "-1 SP PC" otherwise */
	if (sscanf(buf, "%llu %llx %llx %llx %llx %llx %llx %llx %llx",
		   &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7],
		   &v[8]) != 9)
		return false;
	/* -ERESTART_RESTARTBLOCK comes back as restart_syscall */
	unsigned long long nr = (long long)r->rax == -516 ? 219 : r->orig_rax;
	if (v[0] != nr || v[1] != r->rdi || v[2] != r->rsi ||
	    v[3] != r->rdx || v[4] != r->r10 || v[5] != r->r8 ||
	    v[6] != r->r9 || v[7] != r->rsp || v[8] != r->rip)
		return false;
	if (sfc__read_mem(s->mem, c->copy_base, c->copy_len, s->cmp) !=
		    c->copy_len ||
	    memcmp(s->cmp, c->copy, c->copy_len))
		return false;
	/* the sources read asleep (kernel.c): back in the call its stop
	 * interrupted, the stop's record missing (read too late or not at
	 * all): read it now, inside the schedstat proof */
	uint32_t rec[SFC_NSRC];
	for (size_t i = 0; i < SFC_NSRC; i++) {
		const struct sfc_source *src = sfc__sources[i];
		rec[i] = c->rec[i];
		if (!rec[i] && src->read_asleep &&
		    src->read_asleep(s, NULL, c, 0, &rec[i]))
			rec[i] = 0;
	}
	/* the state now: the stop may have found it runnable only because
	 * the previous sample's detach had just woken it */
	struct sfc_stat stt;
	if (!sfc__task_stat(s, c->tid, &stt))
		return false;
	if (sfc__sched_read(s, c, &run2, &slices2) || run2 != run ||
	    slices2 != slices)
		return false;
	c->state = stt.state;
	/* the name too (found, so nothing is allocated: c stays valid) */
	uint32_t id;
	if (sfc__thread_get(s, c->tid, stt.comm, &id))
		return false;
	c->base = true;
	memcpy(c->rec, rec, sizeof(c->rec));
	c->base_time = sfc__mono();
	c->run = run;
	c->slices = slices;
	return true;
#else
	return false;
#endif
}

/* May the thread's last stack be counted again now?  Sets *verify when
 * it may but verify_reuse wants a real stop to compare with, *old when
 * the baseline predates this tick (the thread has not run since the
 * previous tick either). */
bool sfc__reusable(struct sfc_session *s, struct sfc_cthread *c,
		   bool *verify, bool *old)
{
	uint64_t run, slices;

	*old = false;
	if (!c->have || sfc__sched_read(s, c, &run, &slices))
		return false;
	*old = c->base && run == c->run && slices == c->slices;
	if (!*old && !(c->cand && reuse_check(s, c, run, slices))) {
		c->base = false;
		return false;
	}
	/* a new baseline with the values a sweep saw: the thread has been
	 * on no CPU since that read, so it held the copy since then too */
	if (!*old && c->ck && c->ck_run == run && c->ck_slices == slices &&
	    c->ck_time < c->base_time) {
		c->base_time = c->ck_time;
		*old = true;
	}
	if (s->o.verify_reuse) {
		*verify = true;
		return false;
	}
	return true;
}

/* Pay a tick skipped at `at` (the sampler fell behind) from the last
 * tick's stops, for each thread counted in this tick whose window
 * [win_lo, win_hi] holds `at`.  Why such a sample is exact, not an
 * estimate: from PTRACE_INTERRUPT to PTRACE_DETACH a tracee runs none of
 * its own code (it reaches its stop before it returns to user space,
 * then stays stopped until the detach; win_hi is read before the
 * detach), so its user registers and stack are the ones the stop read
 * throughout; and when schedstat (run time and timeslice count, which
 * grow whenever the thread is on a CPU, the current run included) read
 * at the scan (ck_time, taken once the read had ended) is unchanged when
 * read again after the interrupt was sent, the thread was not on a CPU
 * at any moment in between, so it already held that state at ck_time
 * (win_lo).  Nothing is inferred outside the window: a thread that ran
 * between its detach and `at` (every stop wakes a blocked thread, which
 * then restarts its call) is not paid here, only through a baseline
 * (base_time <= at, filled by scan), so the two never pay the same tick.
 * *filled counts the samples added. */
int sfc__fill_windows(struct sfc_session *s, struct sf_ctx *ctx,
		      int64_t at, uint64_t *filled)
{
	for (size_t i = 0; i < s->nwins; i++) {
		struct sfc_cthread *c = &s->threads[s->wins[i]];
		if (c->listed != s->tickno || !c->win || at < c->win_lo ||
		    at > c->win_hi)
			continue;
		int rc = sfc__add_sample(s, ctx, s->wins[i], c->win_node,
					 c->win_state, at, SFC_CATCHUP,
					 c->win_rec);
		if (rc)
			return rc;
		s->st.catchup++;
		s->st.truncated += c->win_trunc;
		(*filled)++;
	}
	return 0;
}

/* Just after the interrupt: where the stop's window starts (see
 * fill_windows).  The read comes after PTRACE_INTERRUPT, so a thread
 * that the interrupt woke and that got a CPU before the read only loses
 * the early start (conservative); equal values mean it was on no CPU
 * from the scan's read to the interrupt. */
void sfc__window_start(struct sfc_session *s, struct sfc_thr *t)
{
	uint64_t run, slices;

	t->win_lo = t->t_int;
	if (t->ps == PS_SEIZED && t->ck &&
	    !sfc__sched_read(s, &s->threads[t->tidx], &run, &slices) &&
	    run == t->ck_run && slices == t->ck_slices)
		t->win_lo = t->ck_time;
}

/* The tick overruns: read the schedstat of its threads already released,
 * keeping for each the earliest moment its current values were seen (a
 * thread's values only grow, so equal values later mean it was on no CPU
 * from that moment on).  A thread released a moment ago may not have
 * restarted its call yet: its values move later and this read proves
 * nothing; the next sweep may. */
void sfc__sweep(struct sfc_session *s, size_t n)
{
	uint64_t run, slices;

	for (size_t i = 0; i < n; i++) {
		if (s->cur[i].ps != PS_DONE)
			continue;
		struct sfc_cthread *c = &s->threads[s->cur[i].tidx];
		if (sfc__sched_read(s, c, &run, &slices))
			continue;
		if (c->ck && run == c->ck_run && slices == c->ck_slices)
			continue;
		c->ck = true;
		c->ck_run = run;
		c->ck_slices = slices;
		c->ck_time = sfc__mono();
	}
}
