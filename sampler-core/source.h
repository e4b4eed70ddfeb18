/*
 * source.h - internal to sampler-core: the capture sources
 * (docs/capture-sources.md).  A source adds to a sample what native
 * unwinding does not give: the kernel side of a wait, an interpreter's
 * frames.  Each is one file exporting a const struct sfc_source, and one
 * row of SFC_SOURCES below; the sampling loop and emit call the sources
 * only through the table (source.c), never by name.
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

/* The table, one row per source, in the order emit calls them: a source
 * that rebuilds the native stack comes before one that pushes frames
 * above its leaf.  A row NAME is the sfc_source_NAME its file defines. */
#define SFC_SOURCES(X)                                                    \
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

/* ----- naming helpers of native unwinding (unwind.c) ----- */

/* inline.c: the inlined subroutines holding pc (innermost ... up to its
 * function, `outer` its frame) as frames of their own, recorded for
 * address index `addr`; every address gets an entry (maybe empty). */
int sfc__inline_frames(struct sfc_session *s, struct sf_ctx *ctx,
		       struct sf_profile *p, Dwfl_Module *mod, uint64_t pc,
		       const struct sf_frame *outer, uint32_t addr);
/* The names of the inlined subroutines holding pc in mod (innermost
 * first, up to its function; "[inlined]" for one without a name), at
 * most max; how many (0 without DWARF). */
int sfc__inline_names(Dwfl_Module *mod, uint64_t pc, const char **names,
		      int max);
/* Push address addr's frame (fid[addr]) and then its inlined frames onto
 * *st. */
int sfc__push_addr(struct sfc_session *s, struct sf_ctx *ctx,
		   struct sf_profile *p, const sf_frame_id *fid, uint32_t addr,
		   sf_stack_id *st);

/* plt.c: "name@plt" when addr (an address of elf's own, bias removed)
 * is in a PLT entry, into buf; else NULL (and elsewhere than x86-64) */
const char *sfc__plt_name(Elf *elf, uint64_t addr, char *buf, size_t size);

/* symidx.c: one sorted symbol index per ELF file, shared by the
 * processes that map it, answering as dwfl_module_addrinfo does.  A set
 * holds the indexes of one capture (the head's); it is made on the first
 * call, and owns the indexes and their names. */
struct sfc_symidx;
struct sfc_symidx_set;
/* The index of mod's file in *set, made from mod's symbol table on first
 * use (*out stays NULL when the file has neither build id nor a file
 * to stat); -1 when out of memory. */
int sfc__symidx_get(struct sfc_symidx_set **set, Dwfl_Module *mod,
		    struct sfc_symidx **out);
/* The symbol dwfl_module_addrinfo names for pc in a module of x's file
 * whose main file's bias is `bias` (dwfl_module_getelf), into *name
 * (NULL: none; valid while x lives) and the offset into it, *off: 1.
 * 0 when libdwfl must be asked (no index, or a case it does not
 * reproduce; see symidx.c). */
int sfc__symidx_find(const struct sfc_symidx *x, uint64_t bias, uint64_t pc,
		     const char **name, uint64_t *off);
/* The module to ask for x's DWARF (inlined scopes, lines) about pc of
 * mod, a module of x's file whose main file's bias is `bias`: the file
 * alone in a Dwfl of x's own (made on first use with the callbacks cbs,
 * which must outlive x), so that its DWARF is read and decompressed once
 * for all processes, and *pc moved to it; else mod, *pc unchanged (no
 * build id, or the file at mod's path is not the one mapped). */
Dwfl_Module *sfc__symidx_dwarf(struct sfc_symidx *x, const Dwfl_Callbacks *cbs,
			       Dwfl_Module *mod, uint64_t bias, uint64_t *pc);
void sfc__symidx_free(struct sfc_symidx *x);
void sfc__symidx_set_free(struct sfc_symidx_set *set);

/* jitmap.c: names for JIT code from /tmp/perf-PID.map */
#define SFC_JITMAP_MAX ((off_t)64 << 20)
/* Open path for reading only if it is a regular file owned by `owner`
 * or root, not a symbolic link, at most max bytes (O_NOFOLLOW |
 * O_NONBLOCK: a FIFO is never waited on).  1 with *fd open; 0 when there
 * is no such file; -1 with the reason in why. */
int sfc__open_owned(const char *path, uid_t owner, off_t max, int *fd,
		    char *why, size_t whysize);
/* Read what the target's perf map gained, at most once per tick (s->jit,
 * made on the first call; one warning when the map is refused); -1 when
 * out of memory. */
int sfc__jit_poll(struct sfc_session *s, struct sf_ctx *ctx);
/* The entry of the map as read so far that holds pc (its number, kept
 * with the address), or 0 */
uint32_t sfc__jit_holder(const struct sfc_session *s, uint64_t pc);
/* The whole map, read to its end, and the mapped jitdump's records; the
 * caller owns it (s->jit is taken).  NULL when out of memory. */
struct sfc_jitmap *sfc__jit_load(struct sfc_session *s, struct sf_ctx *ctx);
/* The name of entry `held` (sfc__jit_holder when pc was sampled), or
 * when 0 of the last entry holding pc; NULL when none */
const char *sfc__jit_find(const struct sfc_jitmap *m, uint64_t pc,
			  uint32_t held);
void sfc__jit_free(struct sfc_jitmap *m);

#endif
