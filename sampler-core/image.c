/*
 * image.c - the target's program image: its modules (libdwfl, from
 * /proc/PID/maps: dwfl_linux_proc_report) opened and read again when a
 * stack passes through code they do not cover, an exec noticed and the
 * new image loaded (the old one kept to name the addresses sampled
 * before).
 */
#include "capture_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Load each module's ELF and CFI now, so the first samples do not pay
 * for it (opening libc's separate debug file takes a good part of a
 * second here). */
static int warm_module(Dwfl_Module *mod, void **userdata, const char *name,
		       Dwarf_Addr start, void *arg)
{
	Dwarf_Addr bias;

	if (dwfl_module_getelf(mod, &bias))
		dwfl_module_eh_cfi(mod, &bias);
	return DWARF_CB_OK;
}

/* The modules are about to change: what was cached per address may
 * now mean something else (after an exec, the same pc is another
 * image's code). */
static void modules_changed(struct sfc_session *s, bool new_image)
{
	s->map_seq++;
	memset(s->clone_pc, 0, sizeof(s->clone_pc));
	memset(s->clone_yes, 0, sizeof(s->clone_yes));
	s->clone_next = 0;
	if (new_image)
		memset(s->anon_pg, 0, sizeof(s->anon_pg));
}

static void report(struct sfc_session *s, bool add)
{
	modules_changed(s, false);
	if (add)
		dwfl_report_begin_add(s->dwfl);
	else
		dwfl_report_begin(s->dwfl);
	dwfl_linux_proc_report(s->dwfl, s->mem);
	dwfl_report_end(s->dwfl, NULL, NULL);
	dwfl_getmodules(s->dwfl, warm_module, s, 0);
}

int sfc__dwfl_open(struct sfc_session *s, struct sf_ctx *ctx)
{
	modules_changed(s, true);
	s->cbs.find_elf = dwfl_linux_proc_find_elf;
	s->cbs.find_debuginfo = dwfl_standard_find_debuginfo;
	s->cbs.debuginfo_path = &s->debuginfo_path;
	if (!(s->dwfl = dwfl_begin(&s->cbs)))
		return sf_error(ctx, SF_ENOMEM, NULL, 0,
				"cannot start libdwfl: %s", dwfl_errmsg(-1));
	dwfl_report_begin(s->dwfl);
	int e = dwfl_linux_proc_report(s->dwfl, s->mem);
	dwfl_report_end(s->dwfl, NULL, NULL);
	dwfl_getmodules(s->dwfl, warm_module, s, 0);
	if (e == EACCES || e == EPERM) {
		/* another user's process: say what would let us read it */
		sfc__explain_eperm(s, ctx, s->pid);
		return SF_EINPUT;
	}
	if (e > 0)
		return sf_error(ctx, SF_EINPUT, NULL, 0,
				"cannot read the memory map of process %d: %s",
				(int)s->pid, strerror(e));
	/* the sources ready themselves for the new modules (native
	 * unwinding attaches its snapshot unwinder) */
	return sfc__src_image(s, ctx);
}

void sfc__dwfl_refresh(struct sfc_session *s)
{
	/* keep the modules we know (their addresses are interned), add the
	 * new ones (dlopen, or the libraries of a program just started) */
	if (s->dwfl)
		report(s, true);
}

/* Did the unwinding just done pass through code no module covers, while
 * the memory map may be newer than our modules?  Just after a start or an
 * exec the dynamic linker is still mapping the libraries: a thread in
 * read() inside a libc we have not reported yet has no CFI, and its
 * callers would be lost ("[unknown] (0x0)").  Then report the modules
 * again, at most once per tick, and without the 100 ms wait of sfc__tick()
 * while the map is settling; a pc that stays unknown after a refresh (JIT
 * code) ends the settling.  True when the stack should be unwound again. */
bool sfc__refresh_for(struct sfc_session *s)
{
	size_t i;

	if (!s->dwfl || s->refresh_tick == s->tickno)
		return false;
	for (i = 0; i < s->nframes; i++)
		if (!dwfl_addrmodule(s->dwfl, s->frames[i]))
			break;
	if (i == s->nframes)
		return false;
	if (!s->settling && sfc__mono() - s->last_refresh <= 100000000)
		return false;
	uint64_t pc = s->frames[i];
	sfc__dwfl_refresh(s);
	s->refresh_tick = s->tickno;
	s->last_refresh = sfc__mono();
	s->settling = dwfl_addrmodule(s->dwfl, pc) != NULL;
	return s->settling;
}


/* Before unwinding t: make the modules cover its leaf pc, or prove that
 * no mapped file does.  Modules read before t's stop may lack the
 * library it runs in (a thread's first instructions in a libc the
 * dynamic linker mapped after our last read, a dlopen, an exec since the
 * tick began), and unwinding from a pc in no module guesses (rbp, [sp]):
 * on a new thread's stack those words are stale.  So the map is read
 * again, unless it was read after t's stop already, or t's page stayed
 * in no module after such a read (JIT code: no refresh every tick).
 * *fresh is false when the modules could not be read (t's leaf is then
 * all there is to record). */
int sfc__leaf_check(struct sfc_session *s, struct sf_ctx *ctx,
		    const struct sfc_thr *t, bool *fresh)
{
	uint64_t pc = SFC_PC(t->regs), pg = pc >> 12;
	int rc;

	*fresh = true;
	if (s->dwfl && dwfl_addrmodule(s->dwfl, pc))
		return 0;
	if (s->anon_pg[pg % SFC_ANON] == pg + 1)
		return 0;
	if (s->map_seq == t->map_seq) {
		if (sfc__exec_changed(s)) {
			if ((rc = sfc__on_exec(s, ctx)))
				return rc;
		} else if (s->dwfl) {
			sfc__dwfl_refresh(s);
			s->last_refresh = sfc__mono();
		}
	}
	if (!s->dwfl || s->map_seq == t->map_seq) {
		*fresh = false;
		return 0;
	}
	if (!dwfl_addrmodule(s->dwfl, pc))
		s->anon_pg[pg % SFC_ANON] = pg + 1;
	return 0;
}

/* The modules changed: stacks unwound before may read differently now. */
void sfc__forget_stacks(struct sfc_session *s)
{
	for (size_t i = 0; i < s->nthreads; i++) {
		s->threads[i].have = s->threads[i].base = false;
		s->threads[i].stack_hi = 0;
	}
}

/* Did the target exec another program?  Compare /proc/PID/exe (path and
 * inode).  Returns true after the first call when it changed. */
bool sfc__exec_changed(struct sfc_session *s)
{
	char path[64], exe[sizeof(s->exe)];
	struct stat sb;
	bool first = !s->exe[0];

	snprintf(path, sizeof(path), "/proc/%d/exe", (int)s->mem);
	ssize_t n = readlink(path, exe, sizeof(exe) - 1);
	if (n < 0 || stat(path, &sb) < 0)
		return false;
	exe[n] = 0;
	/* a program that execs itself keeps path and inode: its auxiliary
	 * vector (entry point and random bytes' address, which ASLR moves)
	 * tells the images apart */
	char aux[1024];
	snprintf(path, sizeof(path), "/proc/%d/auxv", (int)s->mem);
	ssize_t an = sfc__read_small(path, aux, sizeof(aux));
	uint64_t ah = an > 0 ? sf_hash(aux, (size_t)an) : 0;
	if (!first && !strcmp(exe, s->exe) &&
	    s->exe_ino == (unsigned long)sb.st_ino && (!ah || ah == s->auxv))
		return false;
	memcpy(s->exe, exe, (size_t)n + 1);
	s->exe_ino = (unsigned long)sb.st_ino;
	if (ah)
		s->auxv = ah;
	return !first;
}


/* How long a memory map may stay unreadable after an exec before the
 * target counts as gone (a set-uid program we may not trace). */
#define SFC_EXEC_GRACE_NS 2000000000

/* Open the modules of the current image.  Just after an exec (and for a
 * command we just started, whose close-on-exec pipe closes before the
 * kernel has mapped the new program) /proc/PID/maps can be half built and
 * libdwfl fails on it: then the modules stay closed (s->dwfl NULL) and
 * the next call tries again, for SFC_EXEC_GRACE_NS.  False while closed. */
bool sfc__open_modules(struct sfc_session *s, struct sf_ctx *ctx)
{
	if (s->dwfl)
		return true;
	if (!s->open_since)
		s->open_since = sfc__mono();
	if (!sfc__dwfl_open(s, ctx)) {
		s->open_since = 0;
		return true;
	}
	sf_error_clear(ctx);
	if (s->dwfl)
		dwfl_end(s->dwfl);
	s->dwfl = NULL;
	s->attached = false;
	if (sfc__mono() - s->open_since > SFC_EXEC_GRACE_NS)
		s->st.target_exited = true;
	return false;
}

/* After an exec: a new Dwfl for the new image; the old one is kept, its
 * modules still name the addresses sampled before. */
static int reload(struct sfc_session *s, struct sf_ctx *ctx)
{
	void *q = sf_reallocarray(s->old, s->nold + 1, sizeof(Dwfl *));

	if (!q)
		return sf_error_nomem(ctx);
	s->old = q;
	if (s->dwfl)
		s->old[s->nold++] = s->dwfl;
	s->dwfl = NULL;
	s->attached = false;
	s->gen++;
	s->open_since = 0;
	sfc__open_modules(s, ctx);
	return 0;
}

/* The target exec'd (exec_changed said so): the new image's modules, and
 * no stack of the old one is counted again. */
int sfc__on_exec(struct sfc_session *s, struct sf_ctx *ctx)
{
	int rc;

	if ((rc = reload(s, ctx)))
		return rc;
	s->module_miss = false;
	s->last_refresh = sfc__mono();
	s->settling = true;
	sfc__forget_stacks(s);
	return 0;
}
