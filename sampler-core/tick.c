/*
 * tick.c - one tick of the sampling loop (see capture.h for the
 * protocol): list the threads, count again those that have not run
 * (reuse.c), read sleeping ones without a stop (peek.c) and running ones
 * from a perf sample (perf.c), have the others stopped and read
 * (stop.c), then, with the target running again, record the copies
 * (record.c).  Every ptrace request comes from the thread that called
 * sfc_run; SIGCHLD stays blocked and is only the wake-up of the
 * dispatcher (stop.c).
 */
#include "capture_int.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static bool wanted(const struct sfc_session *s, pid_t tid)
{
	if (!s->o.tids)
		return true;
	for (size_t i = 0; i < s->o.ntids; i++)
		if (s->o.tids[i] == tid)
			return true;
	return false;
}

/* Threads gone since the last tick: release their file and copy. */
static void forget_gone(struct sfc_session *s)
{
	for (size_t i = 0; i < s->nthreads; i++) {
		struct sfc_cthread *c = &s->threads[i];
		if (c->seen == s->tickno)
			continue;
		/* its id may come back as another thread's */
		c->stack_hi = 0;
		sfc__perf_close(c);
		if (c->fd < 0 && !c->copy)
			continue;
		if (c->fd >= 0)
			close(c->fd);
		c->fd = -1;
		free(c->copy);
		c->copy = NULL;
		c->copy_cap = 0;
		c->have = c->base = false;
	}
}

/* The threads the last scan listed are due n more samples each (per
 * thread, sched - taken is what it missed). */
void sfc__sched_listed(struct sfc_session *s, uint64_t n)
{
	for (size_t i = 0; i < s->nthreads; i++)
		if (s->threads[i].listed == s->tickno)
			s->threads[i].sched += n;
}

static int scan(struct sfc_session *s, struct sf_ctx *ctx)
{
	char path[64];
	struct dirent *de;
	size_t alive = 0, listed = 0;
	DIR *d;
	int rc;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)s->pid);
	s->ncur = 0;
	s->tickno++;
	if (!(d = opendir(path))) {
		s->st.target_exited = true;
		return 0;
	}
	while ((de = readdir(d))) {
		struct sfc_stat stt;
		char *end;
		long tid = strtol(de->d_name, &end, 10);
		uint32_t id;
		bool verify = false;
		if (*end || tid <= 0)
			continue;
		bool known = sfc__thread_find(s, (pid_t)tid, &id);
		if (s->reuse && known && wanted(s, (pid_t)tid) &&
		    !sfc__is_pending(s, (pid_t)tid)) {
			struct sfc_cthread *c = &s->threads[id];
			bool old;
			c->seen = s->tickno;
			if (sfc__reusable(s, c, &verify, &old)) {
				/* it has not run: alive, and where it was */
				alive++;
				listed++;
				c->listed = s->tickno;
				if (sf_grow(&s->reu, &s->capreu,
					  s->nreu + 1, sizeof(*s->reu))) {
					closedir(d);
					return sf_error_nomem(ctx);
				}
				s->reu[s->nreu++] = id << 1 | old;
				continue;
			}
		}
		if (!sfc__task_stat(s, (pid_t)tid, &stt))
			continue;
		alive++;
		/* the memory of a process whose main thread exited is read
		 * through a live thread */
		if (s->leader_gone && s->mem_tick != s->tickno) {
			s->mem = (pid_t)tid;
			s->mem_tick = s->tickno;
		}
		if (!wanted(s, (pid_t)tid))
			continue;
		if (s->o.on_cpu && stt.state != 'R')
			continue;
		listed++;
		const struct sfc_thr *pt = sfc__pending_find(s, (pid_t)tid);
		if (known)
			s->threads[id].listed = s->tickno;
		if (pt) {
			/* owed: this tick, and the skipped ones since its
			 * interrupt (those are counted missed below) */
			int64_t t_int = pt->t_int;
			/* "t" is our own stop, on which it waits: its state
			 * is the one its tick found */
			if (stt.state == 't')
				stt.state = pt->state;
			s->st.missed++;
			for (uint64_t k = 0; k < s->nlate; k++) {
				int64_t at = s->late_first +
					     (int64_t)k * s->period;
				if (at >= t_int &&
				    sfc__owe(s, (pid_t)tid, stt.state, at)) {
					closedir(d);
					return sf_error_nomem(ctx);
				}
			}
			if (sfc__owe(s, (pid_t)tid, stt.state, sfc__mono())) {
				closedir(d);
				return sf_error_nomem(ctx);
			}
			continue;
		}
		if (sf_grow(&s->cur, &s->capcur, s->ncur + 1,
			    sizeof(*s->cur))) {
			closedir(d);
			return sf_error_nomem(ctx);
		}
		struct sfc_thr *t = &s->cur[s->ncur];
		memset(t, 0, sizeof(*t));
		t->tid = (pid_t)tid;
		t->state = stt.state;
		t->verify = verify;
		if (sfc__thread_get(s, t->tid, stt.comm, &t->tidx)) {
			closedir(d);
			return sf_error_nomem(ctx);
		}
		struct sfc_cthread *c = &s->threads[t->tidx];
		c->seen = c->listed = s->tickno;
		c->ck = false;
		/* the start of this stop's window (window_start, fill_windows),
		 * or of a read without a stop (peek) */
		if (s->reuse &&
		    !sfc__sched_read(s, c, &t->ck_run, &t->ck_slices)) {
			t->ck = true;
			t->ck_time = sfc__mono();
		}
		s->ncur++;
	}
	closedir(d);
	if (!alive)
		s->st.target_exited = true;
	s->st.threads_now = (uint32_t)listed;
	/* Ticks skipped because we fell behind: a thread that has not run
	 * since before the previous tick held its stack all along, so those
	 * samples are exact too, and so are those of a thread whose last stop
	 * held it at that tick (fill_windows); the others' are missed. */
	uint64_t filled = 0;
	for (uint64_t k = 0; k < s->nlate; k++) {
		int64_t at = s->late_first + (int64_t)k * s->period;
		if ((rc = sfc__fill_windows(s, ctx, at, &filled)))
			return rc;
		for (size_t i = 0; i < s->nreu; i++) {
			struct sfc_cthread *c = &s->threads[s->reu[i] >> 1];
			/* the baseline must be older than the sample */
			if (!(s->reu[i] & 1) || c->base_time > at)
				continue;
			filled++;
			s->st.truncated += c->truncated;
			if ((rc = sfc__add_sample(s, ctx, s->reu[i] >> 1,
						  c->node, c->state, at,
						  SFC_REUSED, c->rec)))
				return rc;
		}
	}
	s->st.missed += s->nlate * listed - filled;
	sfc__sched_listed(s, 1 + s->nlate);
	s->nlate = 0;
	s->nwins = 0;
	int64_t now = sfc__mono();
	for (size_t i = 0; i < s->nreu; i++) {
		uint32_t id = s->reu[i] >> 1;
		s->st.truncated += s->threads[id].truncated;
		if ((rc = sfc__add_sample(s, ctx, id, s->threads[id].node,
					  s->threads[id].state, now, SFC_REUSED,
					  s->threads[id].rec)))
			return rc;
	}
	s->nreu = 0;
	forget_gone(s);
	if (s->capcur * s->slot > 0 && s->ncur) {
		void *q = realloc(s->stacks, s->capcur * s->slot);
		if (!q)
			return sf_error_nomem(ctx);
		s->stacks = q;
	}
	return 0;
}

static int order_cmp(const void *a, const void *b)
{
	const struct sfc_thr *x = a, *y = b;

	if (x->order != y->order)
		return x->order > y->order ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

/* Who is interrupted first: a tick that cannot finish in time (the
 * machine is busy) leaves pending, and counts missed, the threads
 * interrupted last, as those have the least time to reach their stop.
 * Running threads first (a sleeping one was read without a stop or
 * stops at once), and among them those that missed most so far; so the
 * misses do not keep falling on the threads that run. */
static void order_cur(struct sfc_session *s)
{
	for (size_t i = 0; i < s->ncur; i++) {
		const struct sfc_cthread *c = &s->threads[s->cur[i].tidx];
		uint64_t missed = c->sched > c->taken ? c->sched - c->taken : 0;
		s->cur[i].order = (uint64_t)(s->cur[i].state == 'R') << 62 |
				  (missed & ((UINT64_C(1) << 62) - 1));
	}
	if (s->ncur)   /* never qsort(NULL, 0): cur is unset before a thread */
		qsort(s->cur, s->ncur, sizeof(*s->cur), order_cmp);
}

int sfc__tick(struct sfc_session *s, struct sf_ctx *ctx)
{
	int rc;

	sfc__drain(s);
	/* before an exec check: a late stack belongs to the image it was
	 * read from */
	if ((rc = sfc__record_late(s, ctx)))
		return rc;
	if (s->st.target_exited)
		return 0;
	if (sfc__exec_changed(s) && (rc = sfc__on_exec(s, ctx)))
		return rc;
	if (!sfc__open_modules(s, ctx)) {
		/* still inside the exec: nothing to unwind against yet */
		s->st.missed += s->st.threads_now;
		sfc__sched_listed(s, 1);
		return 0;
	}
	if (s->module_miss && sfc__mono() - s->last_refresh > 100000000) {
		sfc__dwfl_refresh(s);
		s->module_miss = false;
		s->last_refresh = sfc__mono();
		sfc__forget_stacks(s);
	}
	if ((rc = scan(s, ctx)) || s->st.target_exited)
		return rc;
	if (s->peek && (rc = sfc__peek_all(s, ctx)))
		return rc;
	/* a source may read threads only while they are stopped (python.c) */
	if (s->perf && !s->o.all_stop && !sfc__src_needs_stop(s) &&
	    (rc = sfc__perf_all(s, ctx)))
		return rc;
	order_cur(s);
	/* the sources read a blocked thread before the stop interrupts
	 * its call (kernel.c) */
	for (size_t i = 0; i < s->ncur; i++) {
		struct sfc_thr *t = &s->cur[i];
		if ((t->state == 'S' || t->state == 'D') &&
		    (rc = sfc__src_read_asleep(s, ctx, t)))
			return rc;
	}
	size_t sb = s->slot;
	if (s->o.all_stop) {
		int64_t t0 = sfc__mono();
		for (size_t i = 0; i < s->ncur; i++) {
			if ((rc = sfc__seize(s, ctx, &s->cur[i])))
				goto undo;
			sfc__window_start(s, &s->cur[i]);
		}
		for (size_t i = 0; i < s->ncur; i++)
			if (s->cur[i].ps == PS_SEIZED &&
			    (rc = sfc__wait_stopped(s, ctx, &s->cur[i],
					       s->o.stop_timeout_ns)))
				goto undo;
		for (size_t i = 0; i < s->ncur; i++)
			if (s->cur[i].ps == PS_STOPPED)
				sfc__grab(s, &s->cur[i], s->stacks + i * sb);
		for (size_t i = 0; i < s->ncur; i++)
			if (s->cur[i].ps == PS_STOPPED)
				sfc__release(s, &s->cur[i], t0);
	} else {
		/* Interrupt every thread that must be stopped, then copy and
		 * release each as soon as its stop arrives: the waits for the
		 * threads to reach their stops overlap (on a loaded machine a
		 * woken thread may wait milliseconds for a CPU), while each
		 * thread is paused only for its own copy.
		 * A thread not stopped within half a period (it waits for a
		 * CPU, or sleeps in D) is left pending: it runs no user code
		 * until its stop, so that stop pays this tick and the next
		 * ones it is still pending for (owe, record_late), and the
		 * ticks keep their schedule for the threads that run. */
		int64_t deadline = 0, wait = s->o.stop_timeout_ns;
		if (wait > s->period / 2)
			wait = s->period / 2;
		size_t first = 0;
		/* a sweep a quarter period before each tick this one overruns
		 * (only the reads that end before a tick serve it) */
		int64_t sweep_at = s->sched + s->period - s->period / 4;
		for (size_t i = 0; i < s->ncur; i++) {
			if ((rc = sfc__seize(s, ctx, &s->cur[i])))
				goto undo;
			sfc__window_start(s, &s->cur[i]);
			deadline = s->cur[i].t_int + wait;
			/* read the stops that came meanwhile: with hundreds
			 * of threads to interrupt, the first would otherwise
			 * stay stopped until the last was interrupted */
			while (sfc__dispatch_one(s, 0) > 0)
				;
			for (size_t j = first; j <= i; j++) {
				struct sfc_thr *t = &s->cur[j];
				if (t->ps == PS_STOPPED) {
					sfc__grab(s, t, s->stacks + j * sb);
					sfc__release(s, t, t->t_int);
				}
				if (t->ps != PS_SEIZED && j == first)
					first++;
			}
			if (s->reuse && sfc__mono() >= sweep_at) {
				sfc__sweep(s, i + 1);
				sweep_at += s->period;
			}
		}
		s->spinning = s->spin;
		s->spin_from = 0;
		for (;;) {
			bool waiting = false;
			for (size_t i = first; i < s->ncur; i++) {
				struct sfc_thr *t = &s->cur[i];
				if (t->ps == PS_STOPPED) {
					sfc__grab(s, t, s->stacks + i * sb);
					sfc__release(s, t, t->t_int);
				}
				if (t->ps == PS_SEIZED)
					waiting = true;
				else if (i == first)
					first++;
			}
			if (!waiting || sfc__dispatch_one(s, deadline) <= 0)
				break;
		}
		s->spinning = false;
		/* past the deadline: what stopped meanwhile is still read,
		 * the rest is left to the dispatcher */
		for (size_t i = first; i < s->ncur; i++)
			if (s->cur[i].ps == PS_SEIZED &&
			    (rc = sfc__wait_stopped(s, ctx, &s->cur[i], wait)))
				goto undo;
		for (size_t i = first; i < s->ncur; i++) {
			struct sfc_thr *t = &s->cur[i];
			if (t->ps == PS_STOPPED) {
				sfc__grab(s, t, s->stacks + i * sb);
				sfc__release(s, t, t->t_int);
			}
		}
	}
	/* the target runs again: unwind the copies */
	for (size_t i = 0; i < s->ncur; i++) {
		struct sfc_thr *t = &s->cur[i];
		if (t->have) {
			t->win = true;
			if ((rc = sfc__record(s, ctx, t, s->stacks + i * sb)))
				return rc;
		} else if (t->ps != PS_GONE) {
			s->st.missed++;
		} else {
			/* gone: it was not due */
			s->threads[t->tidx].sched--;
		}
	}
	return 0;
undo:
	/* never leave a thread seized: stop what we started */
	for (size_t i = 0; i < s->ncur; i++) {
		struct sfc_thr *t = &s->cur[i];
		if (t->ps == PS_SEIZED)
			sfc__wait_stopped(s, ctx, t, s->o.stop_timeout_ns);
		if (t->ps == PS_STOPPED)
			sfc__release(s, t, t->t_int);
	}
	return rc;
}
