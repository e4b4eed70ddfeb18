/*
 * capture.c - the session (capture.h): open the target (and the
 * processes it adds), run the ticks (tick.c) on their schedule, suspend,
 * sum the statistics, close.  Several processes are one session each,
 * ticked together; the first is the head.
 */
#include "capture_int.h"

#include <dirent.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The boost of the sampling thread during sfc_run (no_boost): the
 * lowest real-time priority where permitted, else this nice value. */
#define SFC_BOOST_NICE (-10)

/* The sampling thread's scheduling before sfc_run raised it, to give
 * back at its end. */
struct boost {
	bool rt, nice;
	int policy, nice0;
	struct sched_param param;
};

/* Raise the calling thread (Linux: these calls act on one thread).  On a
 * loaded machine a sampler at nice -10 still waits for a CPU at most of
 * its wake-ups (half of its wall time, measured at load 12 on 2 CPUs):
 * its ticks fall behind and are skipped, and the threads that ran
 * meanwhile lose those samples while sleeping ones are paid from their
 * unchanged schedstat (docs/PERFORMANCE.md, session 11).  SCHED_FIFO at
 * priority 1 takes a CPU at once whenever a tick is due; the sampler
 * sleeps between ticks, and the kernel's real-time throttling still
 * leaves other tasks their share if a tick ever ran on.  The command it
 * starts was forked before, and SCHED_RESET_ON_FORK keeps any later
 * child out of it. */
static void boost_nice(struct boost *b)
{
	id_t self = (id_t)gettid();

	errno = 0;
	b->nice0 = getpriority(PRIO_PROCESS, self);
	b->nice = !errno && b->nice0 > SFC_BOOST_NICE &&
		  !setpriority(PRIO_PROCESS, self, SFC_BOOST_NICE);
}

static void boost_up(struct boost *b)
{
	struct sched_param rt = { .sched_priority = 1 };

	memset(b, 0, sizeof(*b));
	b->policy = sched_getscheduler(0);
	if (b->policy == SCHED_OTHER && !sched_getparam(0, &b->param) &&
	    !sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, &rt))
		b->rt = true;
	else
		boost_nice(b);
}

/* Half a second of ticks with no time left to sleep: a rate (or a
 * target) this machine cannot keep up with.  At real-time priority the
 * sampler would then hold a CPU from every other task, the target's and
 * the shell's included, until the kernel's throttling: it goes back to
 * nice -10 for the rest of the capture. */
static void boost_demote(struct boost *b)
{
	if (!b->rt)
		return;
	sched_setscheduler(0, b->policy, &b->param);
	b->rt = false;
	boost_nice(b);
}

static void boost_down(const struct boost *b)
{
	if (b->rt)
		sched_setscheduler(0, b->policy, &b->param);
	if (b->nice)
		setpriority(PRIO_PROCESS, (id_t)gettid(), b->nice0);
}

/* "COMM [PPID]" of the target's parent, for the report's header */
static void read_parent(struct sfc_session *s)
{
	char path[64], buf[512], comm[64];
	struct sfc_stat stt;
	const char *q;
	long ppid;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)s->pid);
	ssize_t n = sfc__read_small(path, buf, sizeof(buf));
	if (n <= 0 || sfc_parse_stat(buf, (size_t)n, &stt) ||
	    !(q = strrchr(buf, ')')) || sscanf(q + 1, " %*c %ld", &ppid) != 1)
		return;
	snprintf(path, sizeof(path), "/proc/%ld/comm", ppid);
	if (sfc__read_small(path, comm, sizeof(comm)) <= 0)
		snprintf(comm, sizeof(comm), "???");
	comm[strcspn(comm, "\n")] = 0;
	snprintf(s->parent, sizeof(s->parent), "%s [%ld]", comm, ppid);
}

/* The target's resident memory now and at its peak (VmRSS, VmHWM: the
 * nearest Linux has to macOS's physical footprint), kept from the last
 * read while it lived. */
static void read_footprint(struct sfc_session *s)
{
	char path[64], buf[4096];
	long rss, hwm;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)s->mem);
	if (sfc__read_small(path, buf, sizeof(buf)) <= 0)
		return;
	rss = sfc_status_field(buf, "VmRSS");
	hwm = sfc_status_field(buf, "VmHWM");
	if (rss < 0 || hwm < 0)
		return;
	s->rss = (int64_t)rss * 1024;
	s->rss_peak = (int64_t)hwm * 1024;
}

/* A thread of process pid that is not a zombie, or 0. */
static pid_t live_thread(pid_t pid)
{
	char path[64];
	struct dirent *de;
	struct sfc_session tmp;
	struct sfc_stat stt;
	pid_t found = 0;
	DIR *d;

	memset(&tmp, 0, sizeof(tmp));
	tmp.pid = pid;
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	if (!(d = opendir(path)))
		return 0;
	while (!found && (de = readdir(d))) {
		long tid = strtol(de->d_name, NULL, 10);
		if (tid > 0 && tid != pid && sfc__task_stat(&tmp, (pid_t)tid,
							    &stt))
			found = (pid_t)tid;
	}
	closedir(d);
	return found;
}

/* Open one process's session.  `later`: found during the capture (a
 * child), possibly inside its exec: modules that cannot be read yet are
 * read by the ticks (open_modules), not an error. */
static int open_one(struct sfc_session **out, struct sf_ctx *ctx,
		    const struct sfc_options *o, bool later)
{
	char path[64], buf[4096];
	struct sfc_session *s;
	struct stat sb;
	pid_t mem = o->pid;
	int rc;

	*out = NULL;
	snprintf(path, sizeof(path), "/proc/%d", (int)o->pid);
	if (o->pid <= 0 || stat(path, &sb) < 0)
		return sf_error(ctx, SF_EINPUT, NULL, 0,
				"no such process: %d", (int)o->pid);
	snprintf(path, sizeof(path), "/proc/%d/status", (int)o->pid);
	if (sfc__read_small(path, buf, sizeof(buf)) > 0) {
		long tracer = sfc_status_field(buf, "TracerPid");
		char st[8] = "";
		const char *q = strstr(buf, "State:");
		if (q)
			sscanf(q + 6, " %7s", st);
		/* a main thread that called pthread_exit is a zombie while
		 * the other threads run on */
		if ((st[0] == 'Z' || st[0] == 'X') &&
		    !(mem = live_thread(o->pid)))
			return sf_error(ctx, SF_EINPUT, NULL, 0,
					"process %d has exited (zombie)",
					(int)o->pid);
		if (tracer > 0 && tracer != (long)getpid()) {
			struct sfc_session tmp;
			memset(&tmp, 0, sizeof(tmp));
			tmp.pid = o->pid;
			sfc__explain_eperm(&tmp, ctx, o->pid);
			return SF_EINPUT;
		}
	}
	if (!(s = sf_calloc(1, sizeof(*s))))
		return sf_error_nomem(ctx);
	s->o = *o;
	if (s->o.hz <= 0)
		s->o.hz = 100;
	if (s->o.stack_bytes < 4096)
		s->o.stack_bytes = 4096;
	if (s->o.stack_bytes > 64 * 4096)
		s->o.stack_bytes = 64 * 4096;
	if (!s->o.max_frames)
		s->o.max_frames = 512;
	if (s->o.stop_timeout_ns <= 0)
		s->o.stop_timeout_ns = 20 * 1000000;
	s->pid = o->pid;
	s->mem = mem;
	s->leader_gone = mem != o->pid;
	/* jitmap.c: the user whose files about the target are believed */
	struct stat pst;
	char pp[32];
	snprintf(pp, sizeof(pp), "/proc/%d", (int)s->pid);
	s->uid = stat(pp, &pst) ? (uid_t)-1 : pst.st_uid;
	s->slot = s->o.stack_bytes + SFC_REDZONE;
	s->cmp = sf_calloc(1, s->slot);
	s->hist = sf_calloc(SFC_HIST + 1, sizeof(uint64_t));
	s->recent = sf_calloc(SFC_RECENT, sizeof(uint32_t));
	s->frames = sf_calloc(s->o.max_frames + 1, sizeof(uint64_t));
	/* address 0 and node 0 are reserved ("[truncated]", empty stack) */
	s->addrs = sf_calloc(64, sizeof(*s->addrs));
	s->nodes = sf_calloc(64, sizeof(*s->nodes));
	if (!s->hist || !s->recent || !s->frames || !s->addrs || !s->nodes ||
	    !s->cmp || sfc__src_open(s)) {
		sfc_close(s);
		return sf_error_nomem(ctx);
	}
	s->naddrs = 1;
	s->nnodes = 1;
	s->rss = s->rss_peak = -1;
	read_parent(s);
	s->settling = true;
	s->refresh_tick = UINT32_MAX;
	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)mem);
	ssize_t n = sfc__read_small(path, s->command, sizeof(s->command));
	for (ssize_t i = 0; i + 1 < n; i++)
		if (!s->command[i])
			s->command[i] = ' ';
	/* SIGCHLD only wakes the dispatcher */
	sigset_t chld;
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, &s->oldmask);
	sfc__exec_changed(s);
	snprintf(path, sizeof(path), "/proc/%d/task/%d/schedstat", (int)o->pid,
		 (int)o->pid);
#if defined(__x86_64__)
	s->reuse = !s->o.no_reuse && !s->o.on_cpu && access(path, R_OK) == 0;
#endif
	s->peek = s->reuse && !s->o.no_peek && !s->o.all_stop;
	long ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	s->ncpus = ncpus > 0 ? (size_t)ncpus : 1;
	s->spin = s->ncpus > 1;
#if defined(__x86_64__)
	s->perf = !s->o.no_perf && !s->o.all_stop &&
		  s->o.unwind == SFC_UNWIND_DWARF;
#endif
	if (s->reuse) {
		/* one schedstat descriptor per thread */
		struct rlimit rl;
		if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < rl.rlim_max) {
			rl.rlim_cur = rl.rlim_max;
			setrlimit(RLIMIT_NOFILE, &rl);
		}
	}
	/* a command just started may still be inside its exec: wait for
	 * its memory map (see sfc__open_modules) before giving up */
	while (o->is_child && !sfc__open_modules(s, ctx) &&
	       !s->st.target_exited) {
		struct timespec ts = { 0, 2000000 };
		nanosleep(&ts, NULL);
	}
	if (!s->dwfl && !later && (rc = sfc__dwfl_open(s, ctx))) {
		sfc_close(s);
		return rc;
	}
	*out = s;
	return 0;
}

int sfc_open(struct sfc_session **out, struct sf_ctx *ctx,
	     const struct sfc_options *o)
{
	int rc = open_one(out, ctx, o, false);
	struct sfc_session *s = *out;

	if (rc)
		return rc;
	if (!(s->procs = sf_calloc(4, sizeof(*s->procs)))) {
		sfc_close(s);
		*out = NULL;
		return sf_error_nomem(ctx);
	}
	s->capprocs = 4;
	s->procs[s->nprocs++] = s;
	s->head = s;
	return 0;
}

/* Open process pid into the capture of head h (`later`: see open_one). */
static int add_proc(struct sfc_session *h, struct sf_ctx *ctx, pid_t pid,
		    bool later)
{
	struct sfc_options o = h->o;
	struct sfc_session *q;
	int rc;

	o.pid = pid;
	o.is_child = false;
	if (sf_grow(&h->procs, &h->capprocs, h->nprocs + 1,
		    sizeof(*h->procs)))
		return sf_error_nomem(ctx);
	if ((rc = open_one(&q, ctx, &o, later)))
		return rc;
	q->later = later;
	free(q->hist);
	q->hist = h->hist;
	q->shared = true;
	q->head = h;
	q->period = h->period;
	q->start_mono = h->start_mono;
	q->start_real = h->start_real;
	h->procs[h->nprocs++] = q;
	return 0;
}

int sfc_add(struct sfc_session *s, struct sf_ctx *ctx, pid_t pid)
{
	for (size_t i = 0; i < s->nprocs; i++)
		if (s->procs[i]->pid == pid)
			return 0;
	return add_proc(s, ctx, pid, false);
}

int sfc_start(struct sfc_session **out, struct sf_ctx *ctx,
	      struct sfc_options *o, char *const *argv, int *status)
{
	int rc, ignored;

	*out = NULL;
	if (argv) {
		if ((rc = sfc_launch(&o->pid, ctx, argv)))
			return rc;
		o->is_child = true;
		o->children = !o->no_children;
	}
	if ((rc = sfc_open(out, ctx, o))) {
		/* a command that ended before the first sample: nothing was
		 * captured, and its status is what the caller reports (a
		 * script that runs it under sfcapture must not fail because
		 * it was quick) */
		if (argv && waitpid(o->pid, status, WNOHANG) == o->pid) {
			sf_error_clear(ctx);
			return 1;
		}
		goto fail;
	}
	for (size_t i = 1; i < o->npids; i++)
		if ((rc = sfc_add(*out, ctx, o->pids[i])))
			goto fail;
	return 0;
fail:
	if (argv)
		sfc_end_child(o->pid, &ignored);
	return rc;
}

int sfc_end_command(struct sfc_session *s, int *status)
{
	const struct sfc_stats *st = sfc_stats(s);

	if (!s->o.is_child)
		return -1;
	*status = st->child_status;
	return st->child_status_valid ? 0 : sfc_end_child(s->pid, status);
}

/* The children of every thread of the capture's live processes that are
 * not sampled yet join it (children option).  A child that cannot be
 * opened now (it exits, or its exec is under way) is tried again at the
 * next tick. */
static int discover(struct sfc_session *h, struct sf_ctx *ctx)
{
	char path[96], buf[4096];
	size_t n = h->nprocs;

	for (size_t i = 0; i < n; i++) {
		struct sfc_session *q = h->procs[i];
		if (q->done)
			continue;
		for (size_t k = 0; k < q->nthreads; k++) {
			if (q->threads[k].seen != q->tickno)
				continue;
			snprintf(path, sizeof(path),
				 "/proc/%d/task/%d/children", (int)q->pid,
				 (int)q->threads[k].tid);
			if (sfc__read_small(path, buf, sizeof(buf)) <= 0)
				continue;
			for (char *c = buf, *end; *c; c = end) {
				long pid = strtol(c, &end, 10);
				if (end == c)
					break;
				bool known = false;
				for (size_t j = 0; j < h->nprocs && !known; j++)
					known = h->procs[j]->pid == (pid_t)pid;
				for (size_t j = 0; j < h->nskip && !known; j++)
					known = h->skip[j] == (pid_t)pid;
				if (known || pid <= 0)
					continue;
				int rc = add_proc(h, ctx, (pid_t)pid, true);
				if (rc == SF_ENOMEM)
					return rc;
				if (!rc)
					continue;
				/* gone already, or refused (set-uid, traced):
				 * not tried again */
				sf_error_clear(ctx);
				if (sf_grow(&h->skip, &h->capskip, h->nskip + 1,
					    sizeof(*h->skip)))
					return sf_error_nomem(ctx);
				h->skip[h->nskip++] = (pid_t)pid;
			}
		}
	}
	return 0;
}

static int u32_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static int64_t recent_median(struct sfc_session *s)
{
	int64_t m = 0;

	if (s->nrecent) {
		qsort(s->recent, s->nrecent, sizeof(uint32_t), u32_cmp);
		m = s->recent[s->nrecent / 2];
	}
	s->nrecent = 0;
	return m;
}

static bool suspending(const struct sfc_session *s)
{
	return s->o.suspend && *s->o.suspend && s->o.on_suspend;
}

/* Before the sampler stops (SIGTSTP): no thread may stay held, so wait
 * for the stops still on their way (seized threads cannot be released
 * before they stop: a thread in uninterruptible sleep for over a second
 * stays seized, and stops once it wakes), read and release them (the
 * next tick records them), then let the caller stop us. */
static void suspend(struct sfc_session *s)
{
	int64_t deadline = sfc__mono() + 1000000000;

	for (size_t i = 0; i < s->nprocs; i++)
		while (s->procs[i]->npending &&
		       sfc__dispatch_one(s->procs[i], deadline) > 0)
			;
	s->o.on_suspend(s->o.suspend_arg);
}

/* A process of the capture that exited: its descriptors go (a build
 * starts thousands). */
static void retire(struct sfc_session *q)
{
	for (size_t i = 0; i < q->nthreads; i++) {
		struct sfc_cthread *c = &q->threads[i];
		if (c->fd >= 0)
			close(c->fd);
		c->fd = -1;
		sfc__perf_close(c);
	}
}

/* A thread of some process of the capture is left pending. */
static bool any_pending(const struct sfc_session *s)
{
	for (size_t i = 0; i < s->nprocs; i++)
		if (s->procs[i]->npending)
			return true;
	return false;
}

/* s->gst: the statistics summed over the processes */
static void sum_stats(struct sfc_session *s)
{
	struct sfc_stats *g = &s->gst;

	*g = s->st;
	g->target_exited = true;
	for (size_t i = 0; i < s->nprocs; i++) {
		const struct sfc_stats *q = &s->procs[i]->st;
		g->target_exited &= q->target_exited;
		if (!g->ended[0] && q->ended[0])
			memcpy(g->ended, q->ended, sizeof(g->ended));
		if (!i)
			continue;
		g->samples += q->samples;
		g->reused += q->reused;
		g->reuse_verified += q->reuse_verified;
		g->reuse_mismatch += q->reuse_mismatch;
		g->peeked += q->peeked;
		g->perf_samples += q->perf_samples;
		g->perf_armed += q->perf_armed;
		g->peek_verified += q->peek_verified;
		g->peek_mismatch += q->peek_mismatch;
		g->missed += q->missed;
		g->late += q->late;
		g->catchup += q->catchup;
		g->truncated += q->truncated;
		g->threads_now += s->procs[i]->done ? 0 : q->threads_now;
		g->threads_seen += q->threads_seen;
	}
}

/* After the last tick of process q: skipped ticks no scan came to fill
 * (only the last tick's stops can still pay them), stops still due
 * (consumed and released, bounded), the exit status of our child. */
static int run_end(struct sfc_session *q, struct sf_ctx *ctx)
{
	uint64_t filled = 0;
	int rc = 0;

	for (uint64_t k = 0; k < q->nlate && !rc; k++)
		rc = sfc__fill_windows(q, ctx,
				       q->late_first + (int64_t)k * q->period,
				       &filled);
	q->st.missed += q->nlate * q->st.threads_now - filled;
	sfc__sched_listed(q, q->nlate);
	q->nlate = 0;
	int64_t deadline = sfc__mono() + 100000000;
	while (q->npending && sfc__dispatch_one(q, deadline) > 0)
		;
	if (!rc)
		rc = sfc__record_late(q, ctx);
	if (q->st.target_exited && q->o.is_child && !q->st.child_status_valid) {
		/* the child exited between ticks: collect its status */
		int st;
		pid_t w;
		while ((w = waitpid(q->pid, &st, 0)) < 0 && errno == EINTR)
			;
		if (w == q->pid) {
			q->st.child_status = st;
			q->st.child_status_valid = true;
		}
	}
	return rc;
}

int sfc_run(struct sfc_session *s, struct sf_ctx *ctx, volatile int *stop,
	    void (*progress)(const struct sfc_stats *st, void *arg),
	    void *arg)
{
	int64_t period = (int64_t)(1e9 / s->o.hz);
	struct timespec rt;
	int rc = 0;

	if (period < 1000)
		period = 1000;
	struct boost boost = { 0 };

	if (!s->o.no_boost)
		boost_up(&boost);
	clock_gettime(CLOCK_REALTIME, &rt);
	s->start_real = (int64_t)rt.tv_sec * 1000000000 + rt.tv_nsec;
	s->start_mono = sfc__mono();
	for (size_t i = 0; i < s->nprocs; i++) {
		s->procs[i]->period = period;
		s->procs[i]->start_real = s->start_real;
		s->procs[i]->start_mono = s->start_mono;
	}
	int64_t next = s->start_mono, last_progress = s->start_mono;
	int64_t busy_since = 0;
	int64_t end = s->o.duration_ns > 0 ? s->start_mono + s->o.duration_ns
					   : INT64_MAX;
	while (!*stop) {
		if (suspending(s)) {
			suspend(s);
			/* no tick was due while we were stopped */
			next = sfc__mono();
			busy_since = 0;
			for (size_t i = 0; i < s->nprocs; i++)
				s->procs[i]->nlate = 0;
			continue;
		}
		/* every process's tick; one that exited (or met another
		 * tracer) is ticked no more */
		bool live = false, ended = false;
		for (size_t i = 0; i < s->nprocs && !rc; i++) {
			struct sfc_session *q = s->procs[i];
			if (q->done)
				continue;
			q->sched = next;
			rc = sfc__tick(q, ctx);
			q->st.ticks++;
			/* the memory figures of the report's header */
			if (q == s && (q->st.ticks & 63) == 1 &&
			    !q->st.target_exited)
				read_footprint(q);
			q->done = q->st.target_exited || q->st.ended[0] ||
				  q->refused;
			if (q->done && q != s)
				retire(q);
			ended |= q->st.ended[0] != 0;
			live |= !q->done;
		}
		if (!rc && !ended && s->o.children) {
			size_t n0 = s->nprocs;
			rc = discover(s, ctx);
			live |= s->nprocs > n0;
		}
		/* a command we started ends the capture when it exits, as
		 * perf record's does, whatever it left running */
		if (rc || ended || !live || (s->o.is_child && s->done))
			break;
		int64_t now = sfc__mono();
		next += period;
		/* no sleep before the next tick (see boost_demote) */
		if (now < next)
			busy_since = 0;
		else if (!busy_since)
			busy_since = now;
		else if (now - busy_since > 500000000)
			boost_demote(&boost);
		/* a tick more than one period late is skipped, not run in a
		 * burst: the next scan fills its samples for the threads that
		 * did not run meanwhile and counts the others' as missed */
		while (now - next >= period && next < end) {
			for (size_t i = 0; i < s->nprocs; i++) {
				struct sfc_session *q = s->procs[i];
				if (q->done)
					continue;
				if (!q->nlate)
					q->late_first = next;
				q->nlate++;
				q->st.ticks_late++;
			}
			next += period;
		}
		if (next >= end)
			break;
		s->st.elapsed_ns = now - s->start_mono;
		if (progress && now - last_progress >= 200000000) {
			s->st.stop_ns_last = recent_median(s);
			sum_stats(s);
			progress(sfc_stats(s), arg);
			last_progress = now;
		}
		/* a thread left pending stays stopped until its stop is read:
		 * wait for those stops rather than sleep past them */
		while (!*stop && !suspending(s) && any_pending(s) &&
		       sfc__dispatch_one(s, next) > 0)
			;
		struct timespec ts = { next / 1000000000, next % 1000000000 };
		while (!*stop && !suspending(s) &&
		       clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts,
				       NULL) == EINTR)
			;
	}
	s->st.elapsed_ns = sfc__mono() - s->start_mono;
	boost_down(&boost);
	if (!s->st.target_exited)
		read_footprint(s);
	for (size_t i = 0; i < s->nprocs; i++) {
		int r = run_end(s->procs[i], ctx);
		if (!rc)
			rc = r;
		s->procs[i]->st.elapsed_ns = s->st.elapsed_ns;
	}
	sum_stats(s);
	return rc;
}

const struct sfc_stats *sfc_stats(const struct sfc_session *s)
{
	return s->nprocs > 1 ? &s->gst : &s->st;
}

void sfc_stop_time(const struct sfc_session *s, int64_t *median,
		   int64_t *p99)
{
	uint64_t total = 0, acc = 0;
	bool have_med = false;

	*median = *p99 = 0;
	for (size_t i = 0; i <= SFC_HIST; i++)
		total += s->hist[i];
	if (!total)
		return;
	for (size_t i = 0; i <= SFC_HIST; i++) {
		acc += s->hist[i];
		if (!have_med && acc * 2 >= total) {
			*median = (int64_t)i * 1000;
			have_med = true;
		}
		if (acc * 100 >= total * 99) {
			*p99 = (int64_t)i * 1000;
			return;
		}
	}
}

void sfc_close(struct sfc_session *s)
{
	if (!s)
		return;
	/* the other processes first: the head's signal mask is the
	 * caller's */
	if (s->head == s)
		for (size_t i = s->nprocs; i-- > 1;)
			sfc_close(s->procs[i]);
	free(s->procs);
	free(s->skip);
	int64_t deadline = sfc__mono() + 100000000;
	while (s->npending && sfc__dispatch_one(s, deadline) > 0)
		;
	if (s->dwfl)
		dwfl_end(s->dwfl);
	for (size_t i = 0; i < s->nold; i++)
		dwfl_end(s->old[i]);
	free(s->old);
	sigprocmask(SIG_SETMASK, &s->oldmask, NULL);
	for (size_t i = 0; i < s->nthreads; i++) {
		if (s->threads[i].fd >= 0)
			close(s->threads[i].fd);
		sfc__perf_close(&s->threads[i]);
		free(s->threads[i].copy);
	}
	sf_idx_free(&s->thread_idx);
	sf_idx_free(&s->addr_idx);
	sf_idx_free(&s->node_idx);
	free(s->threads);
	free(s->addrs);
	free(s->nodes);
	free(s->samples);
	free(s->cur);
	free(s->reu);
	free(s->wins);
	free(s->stacks);
	free(s->pending);
	for (size_t i = 0; i < s->nlateq; i++)
		free(s->late[i].stack);
	free(s->late);
	free(s->owed);
	if (!s->shared)
		free(s->hist);
	free(s->recent);
	free(s->frames);
	free(s->cmp);
	sfc__src_close(s);
	sfc__jit_free(s->jit);
	free(s->inl);
	free(s->inl_ids);
	sfc__symidx_set_free(s->symidx);
	free(s);
}
