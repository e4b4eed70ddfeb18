/* outthread.c - a second thread consuming an output's full buffers in
 * order (contract: outthread.h). */
#include "outthread.h"
#include "sf.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

struct sf_outthread {
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	sf_outthread_fn *fn;
	void *arg;
	unsigned char *spare;   /* the buffer the writer is not filling */
	size_t len;             /* bytes of `spare` to consume, when busy */
	int flag;
	bool busy, quit;
	int failed, err_no;     /* written by the thread only while busy */
};

static void *run(void *arg)
{
	struct sf_outthread *t = arg;

	pthread_mutex_lock(&t->mu);
	for (;;) {
		while (!t->busy && !t->quit)
			pthread_cond_wait(&t->cv, &t->mu);
		if (!t->busy)
			break;
		pthread_mutex_unlock(&t->mu);
		if (!t->failed)
			t->fn(t->arg, t->spare, t->len, t->flag, &t->failed,
			      &t->err_no);
		pthread_mutex_lock(&t->mu);
		t->busy = false;
		pthread_cond_broadcast(&t->cv);
	}
	pthread_mutex_unlock(&t->mu);
	return NULL;
}

struct sf_outthread *sf_outthread_start(sf_outthread_fn *fn, void *arg,
					unsigned char *spare)
{
	struct sf_outthread *t = spare ? calloc(1, sizeof(*t)) : NULL;

	if (!t) {
		free(spare);
		return NULL;
	}
	t->fn = fn;
	t->arg = arg;
	t->spare = spare;
	pthread_mutex_init(&t->mu, NULL);
	pthread_cond_init(&t->cv, NULL);
	int r = sf_thread_start(&t->th, run, t);
	if (r) {
		pthread_mutex_destroy(&t->mu);
		pthread_cond_destroy(&t->cv);
		free(t->spare);
		free(t);
		return NULL;
	}
	return t;
}

void sf_outthread_wait(struct sf_outthread *t, int *failed, int *err_no)
{
	pthread_mutex_lock(&t->mu);
	while (t->busy)
		pthread_cond_wait(&t->cv, &t->mu);
	if (t->failed && !*failed) {
		*failed = t->failed;
		*err_no = t->err_no;
	}
	pthread_mutex_unlock(&t->mu);
}

unsigned char *sf_outthread_hand(struct sf_outthread *t, unsigned char *full,
				 size_t len, int flag, int *failed,
				 int *err_no)
{
	unsigned char *next;

	sf_outthread_wait(t, failed, err_no);
	if (*failed)
		return full;
	pthread_mutex_lock(&t->mu);
	next = t->spare;
	t->spare = full;
	t->len = len;
	t->flag = flag;
	t->busy = true;
	pthread_cond_broadcast(&t->cv);
	pthread_mutex_unlock(&t->mu);
	return next;
}

void sf_outthread_stop(struct sf_outthread *t, int *failed, int *err_no)
{
	if (!t)
		return;
	sf_outthread_wait(t, failed, err_no);
	pthread_mutex_lock(&t->mu);
	t->quit = true;
	pthread_cond_broadcast(&t->cv);
	pthread_mutex_unlock(&t->mu);
	pthread_join(t->th, NULL);
	pthread_mutex_destroy(&t->mu);
	pthread_cond_destroy(&t->cv);
	free(t->spare);
	free(t);
}
