/*
 * outthread.h - a second thread that takes an output's full buffers, one
 * at a time and in the order given, and runs a function on each (output.c's
 * gzip compression and write) while the writer fills the next buffer.
 * Internal to formats/base: output.c is its one user.
 *
 * Two buffers of one size go back and forth: the writer fills one while
 * the thread consumes the other.  A failure the function reports (its
 * *failed and *err_no, as output.c's output keeps them) stays with the thread
 * until the writer waits for it, then becomes the writer's if the writer
 * has none; after a failure the thread consumes nothing more.
 */
#ifndef SF_OUTTHREAD_H
#define SF_OUTTHREAD_H

#include <stddef.h>

/* Consume buf[0..len) with `flag`; report a failure in *failed, *err_no. */
typedef void sf_outthread_fn(void *arg, unsigned char *buf, size_t len,
			     int flag, int *failed, int *err_no);

struct sf_outthread;

/* Start the thread: fn(arg, ...) for each buffer handed over; `spare` is
 * the second buffer, owned from now on.  NULL when no thread could be
 * started (then `spare` is freed and the caller goes on alone). */
struct sf_outthread *sf_outthread_start(sf_outthread_fn *fn, void *arg,
					unsigned char *spare);
/* Wait until the buffer handed over last is consumed, and take its
 * failure into *failed, *err_no unless *failed is already set. */
void sf_outthread_wait(struct sf_outthread *t, int *failed, int *err_no);
/* Wait as above; unless that gave a failure, hand `full` (len bytes,
 * `flag`) over.  Returns the buffer to fill next: the other one, or
 * `full` itself after a failure. */
unsigned char *sf_outthread_hand(struct sf_outthread *t, unsigned char *full,
				 size_t len, int flag, int *failed,
				 int *err_no);
/* Wait as above, end the thread and free it with its spare buffer.
 * Safe with NULL. */
void sf_outthread_stop(struct sf_outthread *t, int *failed, int *err_no);

#endif
