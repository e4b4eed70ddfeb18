/* t_jobs.c - the library's threads (base/jobs.c): sf_run_tasks runs
 * every task exactly once for any number of jobs, and every thread the
 * library starts has every signal blocked, so that SIGINT and SIGPIPE
 * are taken by the program's thread, whose loops check the interrupted
 * flag, while the caller's own mask is left as it was. */
#include "unit.h"
#include "sf.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>

struct tally {
	atomic_uint runs[64];
	pthread_t caller;
	atomic_uint off_caller, off_caller_blocked;
};

static bool all_blocked(void)
{
	sigset_t cur;

	pthread_sigmask(SIG_BLOCK, NULL, &cur);
	return sigismember(&cur, SIGINT) == 1 &&
	       sigismember(&cur, SIGPIPE) == 1 &&
	       sigismember(&cur, SIGTERM) == 1;
}

static void task(void *arg, size_t k)
{
	struct tally *t = arg;

	atomic_fetch_add(&t->runs[k], 1);
	if (!pthread_equal(pthread_self(), t->caller)) {
		atomic_fetch_add(&t->off_caller, 1);
		if (all_blocked())
			atomic_fetch_add(&t->off_caller_blocked, 1);
	}
}

static void *probe(void *arg)
{
	*(bool *)arg = all_blocked();
	return NULL;
}

int main(void)
{
	unsigned cases = 0, exact = 0, off = 0, off_blocked = 0;

	for (unsigned jobs = 0; jobs <= 5; jobs++)
		for (size_t n = 0; n <= 40; n++) {
			static struct tally t;
			memset(&t, 0, sizeof(t));
			t.caller = pthread_self();
			sf_run_tasks(jobs, n, task, &t);
			bool once = true;
			for (size_t k = 0; k < 64; k++)
				once &= atomic_load(&t.runs[k]) == (k < n);
			cases++;
			exact += once;
			off += atomic_load(&t.off_caller);
			off_blocked += atomic_load(&t.off_caller_blocked);
		}
	CHECK("jobs: sf_run_tasks runs every task once, for 0-5 jobs and "
	      "0-40 tasks", exact == cases);
	CHECK("jobs: some tasks ran on other threads", off > 0);
	CHECK("jobs: every other thread had SIGINT, SIGPIPE and SIGTERM "
	      "blocked", off_blocked == off);

	bool blocked = false;
	pthread_t th;
	int r = sf_thread_start(&th, probe, &blocked);
	CHECK("jobs: sf_thread_start starts a thread", r == 0);
	if (!r)
		pthread_join(th, NULL);
	CHECK("jobs: the started thread has the signals blocked", blocked);
	CHECK("jobs: the caller's own signals stay unblocked", !all_blocked());
	return unit_failed;
}
