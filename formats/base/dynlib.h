/*
 * dynlib.h - shared libraries loaded the first time they are needed.
 *
 * libxml2 (which brings ICU and libstdc++) and Graphviz's libgvc (which
 * brings cgraph, ltdl, expat and more) cost more to load than most runs of
 * sfconv or sfanalyze take: linked into the programs they were two thirds
 * of each program's start-up, paid by every run, while only the SVG
 * writer, the xctrace reader and call-graph pictures call them.  Those
 * load them with dlopen when they first run.
 *
 * A user keeps the functions it calls in a table of typed pointers
 * (`__typeof__(fn) *fn;`) and, after the table, defines each name as a
 * macro for its pointer (formats/util/xmllib.h, analyze/cgdot.c).  The
 * programs do not link the library, so a call that bypasses the table
 * fails to link instead of failing at run time.
 */
#ifndef SF_DYNLIB_H
#define SF_DYNLIB_H

#include "sf.h"

#include <stddef.h>

struct sf_dynlib {
	const char *what;               /* "libxml2", for messages */
	const char *soname;             /* "libxml2.so.2" */
	const char *const *names;       /* the symbols, in table order */
	void *table;                    /* a struct of n function pointers */
	size_t n;
	int state;                      /* 0 untried, 1 loaded, -1 failed */
	char why[200];                  /* dlerror() of the failure */
};

/* The initializer of a struct sf_dynlib for `table`, a struct whose
 * members are exactly the pointers FUNCS(X) declares, in that order
 * (FUNCS is an X-macro: X(fn) X(fn2) ...). */
#define SF_DYNLIB_NAME_(f) #f,
#define SF_DYNLIB_INIT(what, soname, table, FUNCS)                        \
	{ what, soname, (const char *const[]){ FUNCS(SF_DYNLIB_NAME_) },   \
	  &(table), sizeof(table) / sizeof(void (*)(void)), 0, "" }

/* Load `l` unless it is loaded; safe from several threads.  The handle is
 * never closed.  A library or symbol that cannot be loaded is SF_EIO
 * ("cannot load libxml2 (libxml2.so.2): ..."), every time it is asked
 * for, and leaves the table untouched. */
int sf_dynlib_load(struct sf_dynlib *l, struct sf_ctx *ctx);

#endif
