/*
 * source.h - internal to sampler-core: the capture sources
 * (docs/capture-sources.md).  A source reads something per sample: the
 * native stack, the kernel side of a wait, an interpreter's frames.
 * Each is one file exporting a const struct sfc_source, and one row of
 * SFC_SOURCES below; the sampling loop and emit call the sources only
 * through the table (source.c), never by name.  (What names addresses at
 * the end is a namer, name.h.)
 *
 * A source keeps its state behind the session and names what it read at
 * a sample by a record id (0: nothing), one per source, kept in the
 * sample, in the thread (for samples counted again without a stop) and in
 * its window (catch-up samples).
 */
#ifndef SF_SOURCE_H
#define SF_SOURCE_H

#include "profile.h"

#include <elfutils/libdwfl.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct sfc_session;
struct sfc_thr;
struct sfc_cthread;

/* The table, one row per source, in the order emit calls them: native
 * unwinding first (it makes the stack), a source that rebuilds the
 * native stack before one that pushes frames above its leaf.  A row NAME
 * is the sfc_source_NAME its file defines. */
#define SFC_SOURCES(X)                                                    \
	X(native)       /* unwind.c: the native stack */                  \
	X(python)       /* python.c: CPython frames */                    \
	X(kernel)       /* kernel.c: the kernel side of a blocked sample */

enum {
#define SFC_SRC_ID(name) SFC_SRC_##name,
	SFC_SOURCES(SFC_SRC_ID)
#undef SFC_SRC_ID
	SFC_NSRC
};

/* Labels the sources may add to one sample, all together */
#define SFC_SRC_LABELS 8

/* One source.  Every role but name may be NULL: the source has no part
 * there.  Roles are called from the sampling thread only. */
struct sfc_source {
	const char *name;
	/* With the session (its state behind s, left NULL when the source
	 * is off); -1 when out of memory.  close is also called after a
	 * failed open. */
	int (*open)(struct sfc_session *s);
	void (*close)(struct sfc_session *s);
	/* The modules of a program image were just read (s->dwfl, at the
	 * start and after an exec): make ready to work in them.  0, or a
	 * negative sf_code. */
	int (*image)(struct sfc_session *s, struct sf_ctx *ctx);
	/* Unwind the copy of thread t (registers t->regs, its stack in
	 * `stack`) into s->frames, leaf first: true when the stack is
	 * complete, false when unwinding stopped early.  `fresh`: the
	 * modules were read after t's stop, so a leaf pc in none of them is
	 * in no mapped file (JIT code) and may be unwound by guessing (rbp,
	 * [sp]).  Otherwise such a leaf may be in a library not reported
	 * yet, and the words a guess would read may be stale (a new
	 * thread's stack): only the leaf is recorded, and false returned.
	 * The first row with this role makes every stack; unwinders are not
	 * chained. */
	bool (*unwind)(struct sfc_session *s, const struct sfc_thr *t,
		       const unsigned char *stack, bool fresh);
	/* Read thread c, asleep in a system call, into *out (0: nothing),
	 * while what it reads is provably the thread's state at the
	 * sample: just before a stop interrupts it, between the two
	 * schedstat reads of a read without a stop, or when a baseline for
	 * reuse is taken (then ctx is NULL: no warning).  prev is c's last
	 * record of this source.  0, or a negative sf_code. */
	int (*read_asleep)(struct sfc_session *s, struct sf_ctx *ctx,
			   const struct sfc_cthread *c, uint32_t prev,
			   uint32_t *out);
	/* Read t while it is stopped (at the end of sfc__grab), or inside
	 * the proof of a read without a stop, into *out (0: nothing). */
	void (*read_stopped)(struct sfc_session *s, const struct sfc_thr *t,
			     uint32_t *out);
	/* After a stop: do its registers (t->regs) show the thread still
	 * where the asleep read found it (rec)?  False drops the record;
	 * NULL keeps it. */
	bool (*match)(const struct sfc_session *s, uint32_t rec,
		      const struct sfc_thr *t);
	/* Must running threads be stopped rather than read from a perf
	 * sample (the source reads stopped threads only)? */
	bool (*needs_stop)(struct sfc_session *s);
	/* At emit, for a sample holding record rec on stack node `node`
	 * (frames fid): rebuild or extend *stack, and add up to max_labels
	 * labels at labels[*nlabels] (the strings last until the next
	 * call). */
	int (*emit)(struct sfc_session *s, struct sf_ctx *ctx,
		    struct sf_profile *p, uint32_t rec, uint32_t node,
		    const sf_frame_id *fid, sf_stack_id *stack,
		    struct sf_label *labels, size_t *nlabels);
	/* After every sample is emitted: properties, and warnings */
	int (*report)(struct sfc_session *s, struct sf_ctx *ctx,
		      struct sf_profile *p);
	unsigned max_labels;
};

#define SFC_SRC_DECL(name) extern const struct sfc_source sfc_source_##name;
SFC_SOURCES(SFC_SRC_DECL)
#undef SFC_SRC_DECL

/* source.c: the table, and each role called over it */
extern const struct sfc_source *const sfc__sources[SFC_NSRC];
/* Open every source; -1 when out of memory (then close them all). */
int sfc__src_open(struct sfc_session *s);
void sfc__src_close(struct sfc_session *s);
/* image of every source (after the modules are read) */
int sfc__src_image(struct sfc_session *s, struct sf_ctx *ctx);
/* The stack of t's copy by the first source that unwinds (the unwind
 * role); false with an empty stack when none does */
bool sfc__src_unwind(struct sfc_session *s, const struct sfc_thr *t,
		     const unsigned char *stack, bool fresh);
/* read_asleep of every source into t->rec (prev: the thread's records) */
int sfc__src_read_asleep(struct sfc_session *s, struct sf_ctx *ctx,
			 struct sfc_thr *t);
/* read_stopped of every source into t->rec */
void sfc__src_read_stopped(struct sfc_session *s, struct sfc_thr *t);
/* After t's stop: drop the records the stop does not confirm (all of
 * them when `stopped` is false: the sample came from no stop). */
void sfc__src_confirm(const struct sfc_session *s, struct sfc_thr *t,
		      bool stopped);
/* Does a source want running threads stopped? */
bool sfc__src_needs_stop(struct sfc_session *s);
/* Emit the records rec[] of one sample onto *stack and labels (room for
 * SFC_SRC_LABELS more); *relabel when a source that adds labels held a
 * record (the sample's label set is then labels[0..*nlabels)). */
int sfc__src_emit(struct sfc_session *s, struct sf_ctx *ctx,
		  struct sf_profile *p, const uint32_t *rec, uint32_t node,
		  const sf_frame_id *fid, sf_stack_id *stack,
		  struct sf_label *labels, size_t *nlabels, bool *relabel);
int sfc__src_report(struct sfc_session *s, struct sf_ctx *ctx,
		    struct sf_profile *p);

#endif
