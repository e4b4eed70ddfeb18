/*
 * source.h - internal to sampler-core: capture sources besides native
 * unwinding (docs/capture-sources.md).  Each is one file with the same
 * four roles: open with the session, read a thread at a sample (while its
 * state is proven), give frames and labels (or names) at emit, close.
 */
#ifndef SF_SOURCE_H
#define SF_SOURCE_H

#include "capture_int.h"

/* kernel.c: the kernel side of a blocked sample */
int sfc__kern_open(struct sfc_session *s);
void sfc__kern_close(struct sfc_session *s);
/* Read tid's system call, its fd or futex, wait channel and (root)
 * kernel stack as an interned record (*out, 0: not in a call).  `prev`:
 * the thread's last record (a restart_syscall is named after it), else
 * `was`: the call number its last stop interrupted (-1: unknown).
 * ctx may be NULL: no warning, -1 when out of memory. */
int sfc__kern_read(struct sfc_session *s, struct sf_ctx *ctx, pid_t tid,
		   uint32_t prev, long long was, uint32_t *out);
/* Do the registers of a stop show the thread inside rec's call? */
bool sfc__kern_match(const struct sfc_session *s, uint32_t rec,
		     const sfc_regs *r);
/* Push rec's kernel frames (NAME_[k], outermost first) onto *stack and
 * add its labels (syscall, fd, fd.target, futex, wchan) at
 * labels[*nlabels] (room for 5; the strings last until the next call). */
int sfc__kern_emit(struct sfc_session *s, struct sf_ctx *ctx,
		   struct sf_profile *p, uint32_t rec, sf_stack_id *stack,
		   struct sf_label *labels, size_t *nlabels);
/* "read" for a system call number, else the number in buf */
const char *sfc__syscall_name(long long nr, char *buf, size_t size);

/* python.c: CPython frames in place of _PyEval_EvalFrameDefault */
int sfc__py_open(struct sfc_session *s);
void sfc__py_close(struct sfc_session *s);
/* Is a CPython runtime found, its layout checked?  (Looked for again
 * when the modules change.) */
bool sfc__py_active(struct sfc_session *s);
/* Read t's Python frames into t->py (0: none); t is stopped, or the
 * caller proves the read consistent. */
void sfc__py_read(struct sfc_session *s, struct sfc_thr *t);
/* Rebuild the stack of `node` (frames fid) with record rec's Python
 * frames in place of its _PyEval_EvalFrameDefault frames, into *stack
 * (unchanged when nothing was replaced). */
int sfc__py_emit(struct sfc_session *s, struct sf_ctx *ctx,
		 struct sf_profile *p, uint32_t rec, uint32_t node,
		 const sf_frame_id *fid, sf_stack_id *stack);
/* The property capture.python_samples, and the warning, if any */
int sfc__py_report(struct sfc_session *s, struct sf_ctx *ctx,
		   struct sf_profile *p);

/* inline.c: the inlined subroutines holding pc (innermost ... up to its
 * function, `outer` its frame) as frames of their own, recorded for
 * address index `addr`; every address gets an entry (maybe empty). */
int sfc__inline_frames(struct sfc_session *s, struct sf_ctx *ctx,
		       struct sf_profile *p, Dwfl_Module *mod, uint64_t pc,
		       const struct sf_frame *outer, uint32_t addr);
/* Push address addr's frame (fid[addr]) and then its inlined frames onto
 * *st. */
int sfc__push_addr(struct sfc_session *s, struct sf_ctx *ctx,
		   struct sf_profile *p, const sf_frame_id *fid, uint32_t addr,
		   sf_stack_id *st);

/* plt.c: "name@plt" when addr (an address of elf's own, bias removed)
 * is in a PLT entry, into buf; else NULL (and elsewhere than x86-64) */
const char *sfc__plt_name(Elf *elf, uint64_t addr, char *buf, size_t size);

/* jitmap.c: names for JIT code from /tmp/perf-PID.map */
#define SFC_JITMAP_MAX ((off_t)64 << 20)
/* Open path for reading only if it is a regular file owned by `owner`
 * or root, not a symbolic link, at most max bytes (O_NOFOLLOW |
 * O_NONBLOCK: a FIFO is never waited on).  1 with *fd open; 0 when there
 * is no such file; -1 with the reason in why. */
int sfc__open_owned(const char *path, uid_t owner, off_t max, int *fd,
		    char *why, size_t whysize);
/* The target's perf map (empty when there is none; one warning when it
 * is refused); NULL when out of memory. */
struct sfc_jitmap *sfc__jit_load(struct sfc_session *s, struct sf_ctx *ctx);
/* The name of the entry holding pc, or NULL */
const char *sfc__jit_find(const struct sfc_jitmap *m, uint64_t pc);
void sfc__jit_free(struct sfc_jitmap *m);

#endif
