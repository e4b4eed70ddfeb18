/*
 * collapsed_crew.c - the second thread that runs the collapsed writer's
 * parts (collapsed_levels.c).
 */
#include "collapsed.h"

#include <stdatomic.h>
#include <stdlib.h>

/*
 * The second thread that runs parts, kept for the whole build (a level
 * has four steps of parts, a timeline 26 levels).  Either thread takes
 * the next part of a step as it comes free, so the writer never waits
 * for a thread that has taken nothing: on a machine whose other core is
 * busy, the writer's thread runs every part itself, about as fast as
 * one job, where waiting at each step for a thread to be scheduled cost
 * more than the parts saved.  Which thread runs a part changes no byte:
 * parts write disjoint memory, or one bit alone by atomic stores
 * (collapsed_levels.c, part_flags).
 */
struct crew {
	pthread_mutex_t lock;
	pthread_cond_t work;       /* a new step, or the end */
	pthread_cond_t idle;       /* the helper holds no step */
	void (*fn)(void *arg, size_t k);
	void *arg;
	size_t ntasks;
	atomic_size_t next;        /* the next part to take */
	atomic_ulong step;         /* steps given (written under lock) */
	atomic_bool busy;          /* the helper holds a step (the same) */
	atomic_bool quit;          /* (the same) */
	pthread_t thread;
};

static void crew_take(struct crew *c, void (*fn)(void *, size_t),
		      void *arg, size_t ntasks)
{
	size_t k;

	while ((k = atomic_fetch_add(&c->next, 1)) < ntasks)
		fn(arg, k);
}

/*
 * A thread that waits spins CREW_SPIN pauses (tens of microseconds)
 * before it sleeps.  A timeline's levels give the helper a step about
 * every millisecond and the writer waits for the helper's part at the
 * end of each; asleep, each wait ended in a wake-up through the kernel,
 * which in a VM is an interrupt to the other virtual CPU and its exit
 * through the host.  Nothing but time depends on it: what a spin sees is
 * checked again under the lock.
 */
#define CREW_SPIN 2000

static void crew_pause(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ volatile("yield");
#endif
}

static void *crew_thread(void *arg)
{
	struct crew *c = arg;
	unsigned long seen = 0;

	for (;;) {
		for (int i = 0; i < CREW_SPIN && !atomic_load(&c->quit) &&
				atomic_load(&c->step) == seen; i++)
			crew_pause();
		pthread_mutex_lock(&c->lock);
		while (!c->quit && c->step == seen)
			pthread_cond_wait(&c->work, &c->lock);
		if (c->quit)
			break;
		seen = c->step;
		void (*fn)(void *, size_t) = c->fn;
		void *farg = c->arg;
		size_t n = c->ntasks;
		/* while busy, no new step is given (sf_collapsed__crew_run) */
		c->busy = true;
		pthread_mutex_unlock(&c->lock);
		crew_take(c, fn, farg, n);
		pthread_mutex_lock(&c->lock);
		c->busy = false;
		pthread_cond_broadcast(&c->idle);
		pthread_mutex_unlock(&c->lock);
	}
	pthread_mutex_unlock(&c->lock);
	return NULL;
}

static void crew_free(struct crew *c)
{
	pthread_mutex_destroy(&c->lock);
	pthread_cond_destroy(&c->work);
	pthread_cond_destroy(&c->idle);
	free(c);
}

/* Returns the crew, or NULL (then every part runs on this thread). */
struct crew *sf_collapsed__crew_start(void)
{
	struct crew *c = sf_calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	pthread_mutex_init(&c->lock, NULL);
	pthread_cond_init(&c->work, NULL);
	pthread_cond_init(&c->idle, NULL);
	atomic_init(&c->next, 0);
	atomic_init(&c->step, 0);
	atomic_init(&c->busy, false);
	atomic_init(&c->quit, false);
	if (sf_thread_start(&c->thread, crew_thread, c)) {
		crew_free(c);
		return NULL;
	}
	return c;
}

/* Run fn(arg, k) for k in [0, ntasks), and return when all have run. */
void sf_collapsed__crew_run(struct crew *c, size_t ntasks,
			    void (*fn)(void *arg, size_t k), void *arg)
{
	if (!c || ntasks < 2) {
		for (size_t k = 0; k < ntasks; k++)
			fn(arg, k);
		return;
	}
	pthread_mutex_lock(&c->lock);
	while (c->busy)
		pthread_cond_wait(&c->idle, &c->lock);
	c->fn = fn;
	c->arg = arg;
	c->ntasks = ntasks;
	atomic_store(&c->next, 0);
	c->step++;
	pthread_cond_signal(&c->work);
	pthread_mutex_unlock(&c->lock);
	crew_take(c, fn, arg, ntasks);
	/* every part is taken: wait only for one the helper runs */
	for (int i = 0; i < CREW_SPIN && atomic_load(&c->busy); i++)
		crew_pause();
	pthread_mutex_lock(&c->lock);
	while (c->busy)
		pthread_cond_wait(&c->idle, &c->lock);
	pthread_mutex_unlock(&c->lock);
}

/* End the helper (it holds no step: sf_collapsed__crew_run waited)
 * and free c. */
void sf_collapsed__crew_stop(struct crew *c)
{
	if (c) {
		pthread_mutex_lock(&c->lock);
		c->quit = true;
		pthread_cond_signal(&c->work);
		pthread_mutex_unlock(&c->lock);
		pthread_join(c->thread, NULL);
		crew_free(c);
	}
}
