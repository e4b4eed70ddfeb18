/*
 * unwind.c - native unwinding of stack copies with elfutils libdwfl (a
 * capture source, docs/capture-sources.md: the first row, it makes the
 * stack the other sources decorate).
 *
 * The modules are the image's (image.c); ELF and CFI are loaded lazily
 * by libdwfl, once per module.  Unwinding never touches the live
 * process: dwfl_attach_state gets our own Dwfl_Thread_Callbacks whose
 * registers and memory are the snapshot taken while the thread was
 * stopped (the technique of ddprof and eu-stacktrace).  libdwfl tries
 * .eh_frame, then .debug_frame, then the architecture's frame-pointer
 * step.  A read outside the copy fails, which ends the stack (reported as
 * truncated).  The addresses are named at the end (name.c).
 */
#include "capture_int.h"
#include "cfi.h"

#include <dwarf.h>
#include <stdlib.h>
#include <string.h>

/* ----- the snapshot as a Dwfl process ----- */

static pid_t cb_next_thread(Dwfl *dwfl, void *arg, void **thread_arg)
{
	return 0;   /* we only ask for one thread at a time */
}

static bool cb_get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_arg)
{
	struct sfc_session *s = arg;

	if (!s->unw || s->unw->tid != tid)
		return false;
	*thread_arg = s;
	return true;
}

static bool cb_memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result,
			   void *arg)
{
	struct sfc_session *s = arg;
	uint64_t sp = s->unw->stack_base;

	if (addr < sp || addr - sp > s->unw->stack_len ||
	    s->unw->stack_len - (addr - sp) < sizeof(Dwarf_Word)) {
		s->unw_short |= addr >= sp && s->unw->short_copy;
		return false;
	}
	memcpy(result, s->unw_stack + (addr - sp), sizeof(Dwarf_Word));
	if (addr + sizeof(Dwarf_Word) > s->unw_hi)
		s->unw_hi = addr + sizeof(Dwarf_Word);
	return true;
}

static bool cb_set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	struct sfc_session *s = arg;
	const sfc_regs *r = &s->unw->regs;
#if defined(__x86_64__)
	/* DWARF order: rax rdx rcx rbx rsi rdi rbp rsp r8..r15 rip */
	Dwarf_Word w[17] = {
		r->rax, r->rdx, r->rcx, r->rbx, r->rsi, r->rdi, r->rbp,
		r->rsp, r->r8,  r->r9,  r->r10, r->r11, r->r12, r->r13,
		r->r14, r->r15, r->rip,
	};
	if (s->unw->partial) {
		/* read without a stop: only what /proc/.../syscall shows (rdx;
		 * rsi rdi; rsp r8 r9 r10; the pc).  The others stay unset, so
		 * a CFI rule that needs one fails instead of guessing. */
		if (!dwfl_thread_state_registers(thread, 1, 1, w + 1) ||
		    !dwfl_thread_state_registers(thread, 4, 2, w + 4) ||
		    !dwfl_thread_state_registers(thread, 7, 4, w + 7))
			return false;
		dwfl_thread_state_register_pc(thread, r->rip);
		return true;
	}
	if (!dwfl_thread_state_registers(thread, 0, 17, w))
		return false;
	dwfl_thread_state_register_pc(thread, r->rip);
#else
	/* x0..x30, sp */
	Dwarf_Word w[32];
	for (int i = 0; i < 31; i++)
		w[i] = r->regs[i];
	w[31] = r->sp;
	if (!dwfl_thread_state_registers(thread, 0, 32, w))
		return false;
	dwfl_thread_state_register_pc(thread, r->pc);
#endif
	return true;
}

static const Dwfl_Thread_Callbacks snapshot_callbacks = {
	.next_thread = cb_next_thread,
	.get_thread = cb_get_thread,
	.memory_read = cb_memory_read,
	.set_initial_registers = cb_set_initial_registers,
};

/* ----- unwinding ----- */

static int frame_cb(Dwfl_Frame *f, void *arg)
{
	struct sfc_session *s = arg;
	Dwarf_Addr pc;
	bool act;
	Dwarf_Word sp;

	if (!dwfl_frame_pc(f, &pc, &act))
		return DWARF_CB_ABORT;
	uint64_t at = act || !pc ? pc : pc - 1;
	if (dwfl_frame_reg(f, SFC_DWARF_SP, &sp) == 0) {
		/* the stack pointer grows toward the callers; anything else
		 * is a corrupt stack that could make us loop.  The one
		 * exception: the innermost frame's caller may have the same
		 * sp when the return address is in a register (__vfork
		 * after its "pop %rdi": CFA = rsp, ra = rdi) */
		if (s->nframes && (sp < s->last_sp ||
				   (sp == s->last_sp && s->nframes > 1))) {
			s->unw_bad = true;
			return DWARF_CB_ABORT;
		}
		s->last_sp = sp;
	}
	if (s->nframes >= s->o.max_frames) {
		s->unw_bad = true;
		return DWARF_CB_ABORT;
	}
	s->frames[s->nframes++] = at;
	return DWARF_CB_OK;
}

static bool read_word(struct sfc_session *s, const struct sfc_thr *t,
		      const unsigned char *stack, uint64_t addr, uint64_t *out)
{
	uint64_t sp = t->stack_base;

	if (addr < sp || addr - sp > t->stack_len ||
	    t->stack_len - (addr - sp) < 8) {
		s->unw_short |= addr >= sp && t->short_copy;
		return false;
	}
	memcpy(out, stack + (addr - sp), 8);
	if (addr + 8 > s->unw_hi)
		s->unw_hi = addr + 8;
	return true;
}

/* Frame records {previous fp, return address} linked through the frame
 * pointer (x86_64 rbp, aarch64 x29).  Callers of frameless leaf functions
 * and of libc code built without frame pointers are lost. */
static bool unwind_fp(struct sfc_session *s, const struct sfc_thr *t,
		      const unsigned char *stack)
{
	uint64_t fp = SFC_FP(t->regs), next, ret;

	s->frames[s->nframes++] = SFC_PC(t->regs);
#if defined(__aarch64__)
	/* a leaf keeps its return address in the link register */
	if (t->regs.regs[30] && s->nframes < s->o.max_frames)
		s->frames[s->nframes++] = t->regs.regs[30] - 1;
#endif
	while (s->nframes < s->o.max_frames) {
		if (!fp)
			return true;    /* the outermost frame */
		if ((fp & 7) || !read_word(s, t, stack, fp, &next) ||
		    !read_word(s, t, stack, fp + 8, &ret))
			return false;
		if (!ret)
			return true;
		s->frames[s->nframes++] = ret - 1;
		if (next && next <= fp)
			return false;
		fp = next;
	}
	return false;
}

static int run_dwfl(struct sfc_session *s, const struct sfc_thr *t,
		    const unsigned char *stack)
{
	s->unw = t;
	s->unw_stack = stack;
	int rc = dwfl_getthread_frames(s->dwfl, t->tid, frame_cb, s);
	s->unw = NULL;
	return rc;
}

#if defined(__x86_64__)
/* Does CFI cover pc: .eh_frame, or with `debug` .debug_frame?  The
 * latter comes with the whole DWARF of a debug file: it is asked of the
 * file's own Dwfl (symidx.c), which reads it once for all processes. */
static bool has_cfi(struct sfc_session *s, uint64_t pc, bool debug)
{
	Dwfl_Module *mod = dwfl_addrmodule(s->dwfl, pc);
	Dwarf_Addr bias;
	Dwarf_CFI *cfi;
	Dwarf_Frame *fr;
	struct sfc_symidx *x;

	if (!mod)
		return false;
	if (debug && dwfl_module_getelf(mod, &bias) &&
	    !sfc__symidx_get(&s->head->symidx, mod, &x))
		mod = sfc__symidx_dwarf(x, &s->head->cbs, mod, bias, &pc);
	cfi = debug ? dwfl_module_dwarf_cfi(mod, &bias)
		    : dwfl_module_eh_cfi(mod, &bias);
	if (cfi && !dwarf_cfi_addrframe(cfi, pc - bias, &fr)) {
		free(fr);
		return true;
	}
	return false;
}

/* Is pc in clone or clone3 (glibc's names, with or without "__" and
 * "__GI_")?  Asked only for a pc without CFI; the answers for the last
 * few such pcs in a module are kept (a symbol lookup scans the symbol
 * table).  A pc in no module is not an answer: it may be in a libc not
 * reported yet, and a "no" kept would outlive the refresh that adds it. */
static bool in_clone(struct sfc_session *s, uint64_t pc)
{
	for (int i = 0; i < 8; i++)
		if (s->clone_pc[i] == pc)
			return s->clone_yes[i];
	Dwfl_Module *mod = dwfl_addrmodule(s->dwfl, pc);
	const char *name = mod ? dwfl_module_addrname(mod, pc) : NULL;
	bool yes = false;
	if (name) {
		if (!strncmp(name, "__GI_", 5))
			name += 5;
		while (*name == '_')
			name++;
		yes = !strcmp(name, "clone") || !strcmp(name, "clone3");
	}
	if (!mod)
		return false;
	s->clone_pc[s->clone_next % 8] = pc;
	s->clone_yes[s->clone_next++ % 8] = yes;
	return yes;
}

/* The instructions right after the clone/clone3 system call have no CFI
 * (glibc ends the FDE before the syscall, as the child's is wrong).  In
 * the child (rax 0) the thread has no caller yet: the pc is its outermost
 * frame, and whatever lies above sp (the new thread's descriptor, or an
 * earlier thread's frames on a reused stack) must not be read as frames.
 * In the parent the return address is at [sp].  orig_rax cannot tell
 * (a new thread's first stop may show -1): the function is looked up.
 * Returns 1 when the stack is decided (child), 0 otherwise; sets
 * *frameless for the parent. */
static int clone_window(struct sfc_session *s, const struct sfc_thr *t,
			bool *frameless)
{
	*frameless = false;
	/* .debug_frame last, for a pc in clone only: libdwfl reads it with
	 * the whole DWARF of the debug file, decompressed (libc's takes a
	 * good part of a second), once per Dwfl */
	if (has_cfi(s, t->regs.rip, false) || !in_clone(s, t->regs.rip) ||
	    has_cfi(s, t->regs.rip, true))
		return 0;
	if (t->regs.rax == 0) {
		s->frames[s->nframes++] = t->regs.rip;
		return 1;
	}
	*frameless = true;
	return 0;
}
#endif

#if defined(__x86_64__)
/* Is pc in no ELF file's code?  libdwfl counts an anonymous mapping right
 * after a file's mapping as part of that file (its .bss), so JIT code
 * placed just above a mapped jitdump (which is no ELF) lies in the dump's
 * "module": a module without an ELF names no code. */
static bool jit_pc(Dwfl *dwfl, uint64_t pc)
{
	Dwfl_Module *mod = dwfl_addrmodule(dwfl, pc);
	Dwarf_Addr bias;

	return !mod || !dwfl_module_getelf(mod, &bias);
}
#endif

static bool native_unwind(struct sfc_session *s, const struct sfc_thr *t,
			  const unsigned char *stack, bool fresh)
{
	s->nframes = 0;
	s->unw_bad = false;
	s->last_sp = 0;
	s->unw_hi = t->stack_base;
	s->unw_short = false;
	/* a new thread stopped in the clone child inherits the parent's rbp
	 * (its own thread descriptor): followed as a frame pointer it gives
	 * the descriptor's dtv, a heap address, as the caller */
	if (!fresh && (!s->dwfl || !dwfl_addrmodule(s->dwfl, SFC_PC(t->regs)))) {
		s->frames[s->nframes++] = SFC_PC(t->regs);
		return false;
	}
	/* a read without a stop is kept only when CFI unwinds it with the
	 * registers known, from a pc in a known module, to a frame whose CFI
	 * says it has no caller: no guess, no frame-pointer walk.  libdwfl
	 * ends a stack quietly, as if at its outermost frame, when the rule
	 * for a return address needs a register that is not set, so its
	 * "done" is not enough. */
	if (t->partial || t->strict) {
		if (s->o.unwind != SFC_UNWIND_DWARF || !s->attached ||
		    !dwfl_addrmodule(s->dwfl, SFC_PC(t->regs)))
			return false;
		return run_dwfl(s, t, stack) == 0 && !s->unw_bad &&
		       s->nframes && sf_cfi_outermost(s->dwfl,
					       s->frames[s->nframes - 1]);
	}
	if (s->o.unwind == SFC_UNWIND_FP || !s->attached)
		return unwind_fp(s, t, stack);
	int rc;
	bool frameless = false;
#if defined(__x86_64__)
	if (clone_window(s, t, &frameless))
		return true;
#endif
	rc = frameless ? -1 : run_dwfl(s, t, stack);
	if (!s->nframes)
		s->frames[s->nframes++] = SFC_PC(t->regs);
#if defined(__x86_64__)
	/* A leaf in code no module covers (JIT code, see /tmp/perf-PID.map)
	 * has no CFI; libdwfl's fallback follows rbp, which JIT leaves
	 * rarely maintain.  Try the frameless guess: the return address is
	 * at [sp]; if it lands in a known module, unwind on from there. */
	uint64_t ret;
	if ((rc != 0 || s->unw_bad) && s->nframes <= 2 &&
	    (frameless || jit_pc(s->dwfl, SFC_PC(t->regs))) &&
	    read_word(s, t, stack, SFC_SP(t->regs), &ret) &&
	    dwfl_addrmodule(s->dwfl, ret)) {
		struct sfc_thr up = *t;
		up.regs.rip = ret;
		up.regs.rsp += 8;
		s->nframes = 1;
		s->unw_bad = false;
		s->last_sp = 0;
		rc = run_dwfl(s, &up, stack);
		if (s->nframes > 1)
			s->frames[1] = ret - 1;   /* a call site, not a pc */
	}
#endif
	return rc == 0 && !s->unw_bad;
}

/* The modules of a new image were read: unwind in them with libdwfl,
 * through our own Dwfl_Thread_Callbacks over the snapshot */
static int native_image(struct sfc_session *s, struct sf_ctx *ctx)
{
	if (s->o.unwind == SFC_UNWIND_DWARF) {
		if (dwfl_attach_state(s->dwfl, NULL, s->pid,
				      &snapshot_callbacks, s)) {
			s->attached = true;
		} else {
			sf_warn(ctx, "capture.nodwarf",
				"DWARF unwinding unavailable (%s); using frame "
				"pointers", dwfl_errmsg(-1));
			s->o.unwind = SFC_UNWIND_FP;
		}
	}
	return 0;
}

const struct sfc_source sfc_source_native = {
	.name = "native",
	.image = native_image,
	.unwind = native_unwind,
};
