/*
 * dynlib.c - loading a shared library on first use (see dynlib.h).
 */
#include "dynlib.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* Resolve every symbol first and fill the table only when all are there,
 * so a failed load leaves nothing half-usable. */
static int load(struct sf_dynlib *l)
{
	void *h = dlopen(l->soname, RTLD_NOW | RTLD_LOCAL);

	if (!h) {
		snprintf(l->why, sizeof(l->why), "%s", dlerror());
		return -1;
	}
	for (size_t i = 0; i < l->n; i++) {
		if (!dlsym(h, l->names[i])) {
			snprintf(l->why, sizeof(l->why), "no symbol %s",
				 l->names[i]);
			dlclose(h);
			return -1;
		}
	}
	for (size_t i = 0; i < l->n; i++) {
		void *p = dlsym(h, l->names[i]);
		/* POSIX: a function's address travels as a void * */
		memcpy((char *)l->table + i * sizeof(void (*)(void)), &p,
		       sizeof(p));
	}
	return 1;
}

int sf_dynlib_load(struct sf_dynlib *l, struct sf_ctx *ctx)
{
	pthread_mutex_lock(&lock);
	if (!l->state)
		l->state = load(l);
	int state = l->state;
	pthread_mutex_unlock(&lock);
	if (state > 0)
		return 0;
	return sf_error(ctx, SF_EIO, NULL, 0, "cannot load %s (%s): %s",
			l->what, l->soname, l->why);
}
