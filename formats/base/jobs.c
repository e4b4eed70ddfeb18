/* jobs.c - how many threads one job may use, running a job's tasks on
 * them, and the hook by which a reader of a part of a file asks whether
 * the part goes on (the contract is in sf.h, sf_jobs, sf_run_tasks and
 * sf_read_part_stop). */
#include "sf.h"

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>

int sf_thread_start(pthread_t *th, void *(*fn)(void *), void *arg)
{
	sigset_t all, old;

	sigfillset(&all);
	/* but those a fault raises on the thread that made it: blocked,
	 * they kill the process without reaching its handler (a mapped
	 * input cut short under a reader's thread: cli.c's SIGBUS line) */
	sigdelset(&all, SIGBUS);
	sigdelset(&all, SIGSEGV);
	sigdelset(&all, SIGFPE);
	sigdelset(&all, SIGILL);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	int r = pthread_create(th, NULL, fn, arg);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return r;
}

unsigned sf_jobs(const struct sf_ctx *ctx)
{
	const char *e = getenv("SF_JOBS");
	unsigned n = ctx->jobs;

	if (!n && e && *e) {
		char *end;
		unsigned long v = strtoul(e, &end, 10);
		if (!*end && v)
			n = v > SF_MAX_JOBS ? SF_MAX_JOBS : (unsigned)v;
	}
	if (!n) {
		cpu_set_t set;
		n = sched_getaffinity(0, sizeof(set), &set) ? 1 :
			(unsigned)CPU_COUNT(&set);
	}
	if (n < 1)
		n = 1;
	return n > SF_MAX_JOBS ? SF_MAX_JOBS : n;
}

struct runner {
	void (*fn)(void *arg, size_t k);
	void *arg;
	size_t first, step, ntasks;
};

static void run_share(const struct runner *r)
{
	for (size_t k = r->first; k < r->ntasks; k += r->step)
		r->fn(r->arg, k);
}

static void *run_thread(void *arg)
{
	run_share(arg);
	return NULL;
}

void sf_run_tasks(unsigned jobs, size_t ntasks,
		  void (*fn)(void *arg, size_t k), void *arg)
{
	struct runner r[SF_MAX_JOBS];
	pthread_t th[SF_MAX_JOBS];
	bool started[SF_MAX_JOBS] = { false };
	size_t n = jobs < 1 ? 1 : jobs > SF_MAX_JOBS ? SF_MAX_JOBS : jobs;

	if (n > ntasks)
		n = ntasks ? ntasks : 1;
	for (size_t t = 0; t < n; t++)
		r[t] = (struct runner){ fn, arg, t, n, ntasks };
	for (size_t t = 1; t < n; t++)
		started[t] = !sf_thread_start(&th[t], run_thread, &r[t]);
	run_share(&r[0]);
	for (size_t t = 1; t < n; t++) {
		if (started[t])
			pthread_join(th[t], NULL);
		else
			run_share(&r[t]);
	}
}

/* The part the calling thread reads, if any: set by sf_read_parallel
 * (formats/parallel.c), which a format's reader may not call. */
static _Thread_local const struct sf_part_hook *part_hook;

void sf_part_hook_set(const struct sf_part_hook *hook)
{
	part_hook = hook;
}

uint64_t sf_read_part_limit(void)
{
	return part_hook ? part_hook->limit(part_hook->arg) : UINT64_MAX;
}

bool sf_read_part_stop(uint64_t offset, uint64_t *limit)
{
	if (!part_hook) {
		*limit = UINT64_MAX;
		return false;
	}
	return part_hook->stop(part_hook->arg, offset, limit);
}
