/*
 * perfdata_unwind.c - the user stacks of `perf record --call-graph dwarf`
 * samples, unwound with elfutils libdwfl (perfdata.h).
 *
 * Such a sample carries the user registers (PERF_SAMPLE_REGS_USER) and a
 * copy of the top of the user stack (PERF_SAMPLE_STACK_USER); its call
 * chain holds only the kernel part.  As sfcapture does for its own
 * samples (sampler-core/unwind.c), libdwfl unwinds it through
 * Dwfl_Thread_Callbacks whose registers are the sampled ones and whose
 * memory is the copy, and outside it what perf's unwinder reads there
 * (perf_word).
 * The modules are the ELF files the process's MMAP/MMAP2 records map at
 * that time (dwfl_report_elf at the load bias the map's start and pgoff
 * give), one Dwfl per process, made again when those change.
 *
 * libdwfl reads a module's debug file (for .debug_frame) where .eh_frame
 * does not unwind a frame, once per process; a debug file with compressed
 * sections is inflated once here and handed to every later process
 * (find_debuginfo).
 *
 * What perf script prints for the same sample (Debian's perf unwinds
 * with libunwind): the sampled ip, then each caller's return address
 * minus one (a call site, not the next instruction), at most 127
 * addresses, zero addresses skipped.  Where libunwind finds no unwind
 * entry for a frame it guesses, otherwise than libdwfl would; this
 * reader then takes libunwind's guess (libunwind_guess), so the stacks
 * are perf's.
 */
#include "perfdata.h"
#include "cfi.h"

#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* entries of the memo of CFI lookups (a power of two) */
#define CFI_MEMO 8192

/* perf script's default --max-stack (PERF_MAX_STACK_DEPTH) */
#define UNWIND_MAX 127

/* perf's register numbers (arch/x86/include/uapi/asm/perf_regs.h,
 * arch/arm64/include/uapi/asm/perf_regs.h) of DWARF's registers 0..n-1
 * and of the pc and the stack pointer. */
static const int x86_64_regs[] = {
	0 /* ax */, 3 /* dx */, 2 /* cx */, 1 /* bx */, 4 /* si */,
	5 /* di */, 6 /* bp */, 7 /* sp */, 16, 17, 18, 19, 20, 21, 22, 23,
};
#define X86_64_PC 8
#define X86_64_SP 7
#define ARM64_PC 32
#define ARM64_SP 31

/* The sample being unwound (the callbacks' argument). */
struct unw {
	const struct pd_ustack *us;
	uint64_t mask;           /* the attr's sample_regs_user */
	int machine;             /* EM_X86_64 or EM_AARCH64 */
	uint64_t sp;
	uint64_t *pcs;
	size_t n;
	bool failed;             /* a read of memory no map holds */
	bool last_zero;          /* the last read gave 0 */
	const struct pd_proc *pr;
	/* libunwind's guess at a frame perf has no tables for (x86_64):
	 * unwinding starts again from these, rip/rsp/rbp only */
	bool resume, resumed, r_bp_known;
	/* libunwind's "same value" for a callee-saved register that libdw
	 * leaves undefined: the last values known (DWARF rbx, rbp,
	 * r12-r15), the last frame's rsp; carry: start again at the last
	 * frame with them (skip_first: it is recorded already) */
	uint64_t cs[16], last_sp;
	unsigned cs_known;
	bool carry, skip_first;
	bool guessed_end;        /* libunwind's guess ended the stack */
	size_t n0;               /* pcs before this run of libdwfl */
	bool tramp;              /* the last frame was a signal trampoline */
	uint64_t r_pc, r_sp, r_bp;
};

/* The sampled value of perf register r, if the sample has it. */
static bool reg(const struct unw *u, int r, Dwarf_Word *out)
{
	if (r >= 64 || !(u->mask >> r & 1))
		return false;
	size_t i = (size_t)__builtin_popcountll(u->mask & ((1ull << r) - 1));
	if (i >= u->us->nregs)
		return false;
	*out = rd64(u->us->regs + i * 8);
	return true;
}

static pid_t cb_next_thread(Dwfl *dwfl, void *arg, void **thread_arg)
{
	return 0;   /* one thread at a time, dwfl_getthread_frames asks */
}

static bool cb_get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_arg)
{
	*thread_arg = arg;
	return true;
}

/* A word of the stack copy at addr (perf's access_mem takes the copy's
 * last word for outside too). */
static bool copy_word(const struct unw *u, uint64_t addr, uint64_t *out)
{
	if (addr < u->sp || addr - u->sp >= u->us->len ||
	    u->us->len - (addr - u->sp) <= sizeof(*out))
		return false;
	memcpy(out, u->us->stack + (addr - u->sp), sizeof(*out));
	return true;
}

/*
 * len bytes of the file mapped at pc, as perf's access_mem reads memory
 * outside the stack copy (from the file of pc's map): through the
 * libdwfl module of that file, which is reported at another place where
 * pc's map is not the first.  False for a map of no ELF file.
 */
static bool code_bytes(const struct pd_state *st, const struct unw *u,
		       Dwfl *dwfl, uint64_t pc, unsigned char *out, size_t len)
{
	const struct pd_map *m = sf_pd__map_find(u->pr, pc), *m0 = NULL;
	const char *name = NULL;
	Dwarf_Addr bias;
	size_t size;

	if (!m)
		return false;
	for (size_t i = 0; i < u->pr->n && !m0; i++)
		if (u->pr->maps[i].dso == m->dso)
			m0 = &u->pr->maps[i];
	uint64_t off = pc - m->start + m->pgoff;
	Dwfl_Module *mod = dwfl_addrmodule(dwfl, m0->start - m0->pgoff + off);
	Elf *elf = mod ? dwfl_module_getelf(mod, &bias) : NULL;
	char *raw = elf ? elf_rawfile(elf, &size) : NULL;
	if (raw)
		name = dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL,
					NULL, NULL);
	if (!name || strcmp(name, st->dsos[m->dso].name) || off > size ||
	    size - off < len)
		return false;
	memcpy(out, raw + off, len);
	return true;
}

/*
 * A word as perf's access_mem gives it to its unwinder: from the copy;
 * outside it, where a map of the process holds the address, what
 * access_dso_mem reads from that map's file, or where there is none
 * (the [stack] beyond the copy, the heap) a read that fails with a
 * positive code, which libunwind takes for a read of 0.  False (a
 * failed read) where no map holds it.
 */
static bool perf_word(const struct pd_state *st, const struct unw *u,
		      Dwfl *dwfl, uint64_t addr, uint64_t *out)
{
	unsigned char b[8];

	if (copy_word(u, addr, out))
		return true;
	*out = 0;
	if (!sf_pd__map_find(u->pr, addr))
		return false;
	if (code_bytes(st, u, dwfl, addr, b, sizeof(b)))
		memcpy(out, b, sizeof(b));
	return true;
}

/* Memory as perf's unwinder reads it (perf_word): libdwfl then unwinds
 * from the values libunwind would use. */
static bool cb_memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result,
			   void *arg)
{
	struct pd_state *st = arg;
	struct unw *u = st->unw;
	uint64_t w;

	if (!perf_word(st, u, dwfl, addr, &w)) {
		u->failed = true;
		return false;
	}
	u->last_zero = !w;
	*result = w;
	return true;
}

static bool cb_set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	struct pd_state *st = arg;
	const struct unw *u = st->unw;
	Dwarf_Word w, pc;

	if (u->carry) {
		/* the last frame again, its callee-saved registers as
		 * libunwind keeps them */
		pc = u->pcs[u->n - 1];
		for (int i = 0; i < 16; i++)
			if ((u->cs_known >> i & 1) &&
			    !dwfl_thread_state_registers(thread, i, 1, &u->cs[i]))
				return false;
		if (!dwfl_thread_state_registers(thread, 7, 1, &u->last_sp) ||
		    !dwfl_thread_state_registers(thread, 16, 1, &pc))
			return false;
	} else if (u->resumed) {
		/* the caller libunwind guessed: its pc is the return address
		 * minus one already, as libunwind looks it up */
		pc = u->r_pc;
		if ((u->r_bp_known &&
		     !dwfl_thread_state_registers(thread, 6, 1, &u->r_bp)) ||
		    !dwfl_thread_state_registers(thread, 7, 1, &u->r_sp) ||
		    !dwfl_thread_state_registers(thread, 16, 1, &pc))
			return false;
	} else if (u->machine == EM_X86_64) {
		for (int i = 0; i < 16; i++)
			if (reg(u, x86_64_regs[i], &w) &&
			    !dwfl_thread_state_registers(thread, i, 1, &w))
				return false;
		/* DWARF register 16 is rip too: the PLT's CFA expression
		 * reads it */
		if (!reg(u, X86_64_PC, &pc) ||
		    !dwfl_thread_state_registers(thread, 16, 1, &pc))
			return false;
	} else {
		for (int i = 0; i < 32; i++)
			if (reg(u, i, &w) &&
			    !dwfl_thread_state_registers(thread, i, 1, &w))
				return false;
		if (!reg(u, ARM64_PC, &pc))
			return false;
	}
	dwfl_thread_state_register_pc(thread, pc);
	return true;
}

static const Dwfl_Thread_Callbacks sample_callbacks = {
	.next_thread = cb_next_thread,
	.get_thread = cb_get_thread,
	.memory_read = cb_memory_read,
	.set_initial_registers = cb_set_initial_registers,
};

/*
 * A copy of the debug file `in` with its compressed sections inflated,
 * in a memory file: -1 where it has none (or .zdebug ones, or the copy
 * fails).  libdwfl reads a module's debug file when .eh_frame does not
 * unwind a frame (to try .debug_frame), and libdw inflates every
 * compressed section of it as it opens it (libc6-dbg's: tens of MB), once
 * for each process: most of what was left of a --call-graph dwarf
 * conversion of a few processes.  The copy holds the same bytes libdw
 * would inflate them into, so it reads the same.
 */
static int inflate_copy(int in)
{
	Elf *src = elf_begin(in, ELF_C_READ_MMAP, NULL), *dst = NULL;
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;
	GElf_Shdr sh;
	size_t nph, shstr;
	bool any = false;
	int fd = -1;

	if (!src || elf_kind(src) != ELF_K_ELF || !gelf_getehdr(src, &eh) ||
	    elf_getphdrnum(src, &nph) || elf_getshdrstrndx(src, &shstr) ||
	    shstr >= SHN_LORESERVE)
		goto out;
	while ((scn = elf_nextscn(src, scn))) {
		const char *name;
		if (!gelf_getshdr(scn, &sh) ||
		    !(name = elf_strptr(src, shstr, sh.sh_name)) ||
		    !strncmp(name, ".zdebug", 7))
			goto out;
		if (sh.sh_flags & SHF_COMPRESSED)
			any = true;
	}
	if (!any || (fd = memfd_create("sfconv-debug", MFD_CLOEXEC)) < 0 ||
	    !(dst = elf_begin(fd, ELF_C_WRITE, NULL)) ||
	    !gelf_newehdr(dst, gelf_getclass(src)) ||
	    (nph && !gelf_newphdr(dst, nph)))
		goto fail;
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(src, (int)i, &ph) ||
		    !gelf_update_phdr(dst, (int)i, &ph))
			goto fail;
	}
	while ((scn = elf_nextscn(src, scn))) {
		Elf_Scn *o = elf_newscn(dst);
		Elf_Data *d, *od;
		if (!o || !gelf_getshdr(scn, &sh) ||
		    ((sh.sh_flags & SHF_COMPRESSED) &&
		     (elf_compress(scn, 0, 0) < 0 || !gelf_getshdr(scn, &sh))) ||
		    !(od = elf_newdata(o)))
			goto fail;
		if ((d = elf_getdata(scn, NULL))) {
			od->d_buf = d->d_buf;
			od->d_type = d->d_type;
			od->d_size = d->d_size;
			od->d_align = d->d_align;
			od->d_version = d->d_version;
		}
		if (!gelf_update_shdr(o, &sh))
			goto fail;
	}
	eh.e_shstrndx = (GElf_Half)shstr;
	if (!gelf_update_ehdr(dst, &eh) || elf_update(dst, ELF_C_WRITE) < 0)
		goto fail;
	elf_end(dst);
	elf_end(src);
	return fd;
fail:
	if (dst)
		elf_end(dst);
	if (fd >= 0)
		close(fd);
	fd = -1;
out:
	if (src)
		elf_end(src);
	return fd;
}

/*
 * libdwfl's own search for a module's debug file, then its inflated copy
 * where it has compressed sections.  The search gives the same file for
 * the same module file, build-id and debug link, so its answer is kept
 * under those: the first time the search runs (libdwfl then opens what it
 * found itself), later the copy is handed over without it.
 */
static int find_debuginfo(Dwfl_Module *mod, void **userdata,
			  const char *modname, Dwarf_Addr base,
			  const char *file_name, const char *debuglink_file,
			  GElf_Word debuglink_crc, char **debuginfo_file_name)
{
	struct pd_state *st = *userdata;
	struct sf_sbuf key = { 0 };
	const unsigned char *bid = NULL;
	GElf_Addr vaddr;
	char crc[16], hexb[3];
	size_t i;

	if (!st || st->slow)
		goto search;
	int bl = dwfl_module_build_id(mod, &bid, &vaddr);
	snprintf(crc, sizeof(crc), "%08x", (unsigned)debuglink_crc);
	if (!sf_sbuf_adds(&key, file_name ? file_name : "") ||
	    !sf_sbuf_add(&key, "\n", 1) ||
	    !sf_sbuf_adds(&key, debuglink_file ? debuglink_file : "") ||
	    !sf_sbuf_add(&key, "\n", 1) || !sf_sbuf_adds(&key, crc))
		goto search;
	for (int k = 0; k < bl; k++) {
		snprintf(hexb, sizeof(hexb), "%02x", bid[k]);
		if (!sf_sbuf_add(&key, hexb, 2))
			goto search;
	}
	for (i = 0; i < st->ndbgs; i++)
		if (!strcmp(st->dbgs[i].key, key.s))
			break;
	if (i < st->ndbgs && st->dbgs[i].fd >= 0) {
		int copy = dup(st->dbgs[i].fd);
		char *name = strdup(st->dbgs[i].path);
		if (copy >= 0 && name) {
			sf_sbuf_free(&key);
			*debuginfo_file_name = name;
			return copy;
		}
		if (copy >= 0)
			close(copy);
		free(name);
		goto search;
	}
	if (i == st->ndbgs) {
		int fd = dwfl_standard_find_debuginfo(mod, userdata, modname,
						      base, file_name,
						      debuglink_file,
						      debuglink_crc,
						      debuginfo_file_name);
		char *path = fd >= 0 && *debuginfo_file_name ?
			     strdup(*debuginfo_file_name) : NULL;
		if (!path || !grow((void **)&st->dbgs, &st->cap_dbgs,
				   st->ndbgs + 1, sizeof(*st->dbgs))) {
			free(path);
			sf_sbuf_free(&key);
			return fd;
		}
		st->dbgs[st->ndbgs++] = (struct pd_dbg){ key.s, path,
							 inflate_copy(fd) };
		return fd;
	}
search:
	sf_sbuf_free(&key);
	return dwfl_standard_find_debuginfo(mod, userdata, modname, base,
					    file_name, debuglink_file,
					    debuglink_crc, debuginfo_file_name);
}

/*
 * A memory file holding this process's vdso, -1 where there is none.
 * perf reads the vdso's unwind tables from its own vdso, copied into a
 * file (vdso__dso_findnew in perf's util/vdso.c), the recording's being
 * the same where perf script runs on the kernel that recorded; so does
 * this reader.
 */
static int vdso_copy(struct pd_state *st)
{
	char line[512];
	unsigned long lo, hi;
	FILE *f;

	if (st->vdso_tried)
		return st->vdso_fd;
	st->vdso_tried = true;
	st->vdso_fd = -1;
	if (!(f = fopen("/proc/self/maps", "re")))
		return -1;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "[vdso]") &&
		    sscanf(line, "%lx-%lx", &lo, &hi) == 2 && hi > lo) {
			int fd = memfd_create("sfconv-vdso", MFD_CLOEXEC);
			if (fd >= 0 &&
			    write(fd, (const void *)lo, hi - lo) ==
				    (ssize_t)(hi - lo))
				st->vdso_fd = fd;
			else if (fd >= 0)
				close(fd);
			break;
		}
	fclose(f);
	return st->vdso_fd;
}

void sf_pd__unwind_done(struct pd_state *st)
{
	for (size_t i = 0; i < st->ndbgs; i++) {
		free(st->dbgs[i].key);
		free(st->dbgs[i].path);
		if (st->dbgs[i].fd >= 0)
			close(st->dbgs[i].fd);
	}
	free(st->dbgs);
	if (st->vdso_tried && st->vdso_fd >= 0)
		close(st->vdso_fd);
	free(st->cfi_memo);
}

static const Dwfl_Callbacks offline_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = find_debuginfo,
};

/* The ELF file perf unwinds a dso with: its copy in the build-id cache
 * (perf record keeps one), else the file named, if it has the recorded
 * build-id; for the vdso, perf's own.  Empty when there is none. */
static void elf_path(struct pd_state *st, const struct pd_dso *d, char *out,
		     size_t size)
{
	unsigned char b[20];

	out[0] = 0;
	if (!strcmp(d->name, "[vdso]")) {
		int fd = vdso_copy(st);
		if (fd >= 0)
			snprintf(out, size, "/proc/self/fd/%d", fd);
		return;
	}
	if (d->name[0] != '/' || sf_perf__is_perf_map(d->name, strlen(d->name)))
		return;
	if (d->bid_len) {
		sf_pd__cache_path(d->bid, d->bid_len, "elf", out, size);
		if (access(out, R_OK) == 0)
			return;
		out[0] = 0;
		if (sf_elf_build_id(d->name, b) != d->bid_len ||
		    memcmp(b, d->bid, d->bid_len))
			return;
	}
	snprintf(out, size, "%s", d->name);
}

/* The load bias of a file mapped at m->start from file offset m->pgoff:
 * where the PT_LOAD segment holding that offset, writable and executable
 * as the map is, puts its p_vaddr (a data map's page may hold the end of
 * a read-only segment too). */
static bool load_bias(Elf *elf, const struct pd_map *m, uint64_t *bias,
		      int *machine)
{
	uint64_t start = m->start, pgoff = m->pgoff;
	size_t n;
	GElf_Ehdr eh;

	if (!gelf_getehdr(elf, &eh) || elf_getphdrnum(elf, &n))
		return false;
	*machine = eh.e_machine;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD ||
		    !(ph.p_flags & PF_X) != !(m->prot & 4) ||
		    !(ph.p_flags & PF_W) != !(m->prot & 2))
			continue;
		uint64_t align = ph.p_align > 1 ? ph.p_align : 1;
		uint64_t off = ph.p_offset & ~(align - 1);
		if (pgoff < off ||
		    pgoff - off >= ph.p_offset - off + ph.p_filesz)
			continue;
		*bias = start - (ph.p_vaddr - (ph.p_offset - pgoff));
		return true;
	}
	return false;
}

/* Report the file of a map to `dwfl`, once per file: at the place its
 * first map (by address) gives, as perf's unwinder takes a file's unwind
 * tables from one place even where an image left maps behind (a process
 * that forked, then exec'd the same library elsewhere). */
static void report_map(struct pd_state *st, struct pd_proc *pr,
		       const struct pd_map *m, bool *seen)
{
	struct pd_dso *d = &st->dsos[m->dso];
	char path[4200];
	uint64_t bias;
	int machine = 0;

	if (seen[m->dso] || d->not_elf)
		return;
	elf_path(st, d, path, sizeof(path));
	if (!path[0]) {
		d->not_elf = true;
		return;
	}
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *elf = fd >= 0 ? elf_begin(fd, ELF_C_READ_MMAP, NULL) : NULL;
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		d->not_elf = true;
	} else if (load_bias(elf, m, &bias, &machine)) {
		/* libdwfl keeps the fd on success (and reads it itself) */
		Dwfl_Module *mod = dwfl_report_elf(pr->dwfl, d->name, path, fd,
						   bias, true);
		if (mod) {
			/* for find_debuginfo */
			void **ud;
			if (dwfl_module_info(mod, &ud, NULL, NULL, NULL, NULL,
					     NULL, NULL))
				*ud = st;
			seen[m->dso] = true;
			if (!pr->machine)
				pr->machine = machine;
			elf_end(elf);
			return;
		}
	}
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
}

/* What the modules of a process depend on: its maps of files that may
 * be ELF, and where (anonymous maps come and go often, as malloc maps
 * memory, and change no module). */
static uint64_t modules_key(const struct pd_state *st,
			    const struct pd_proc *pr)
{
	uint64_t h = 0;

	for (size_t i = 0; i < pr->n; i++) {
		const struct pd_map *m = &pr->maps[i];
		const struct pd_dso *d = &st->dsos[m->dso];
		if (d->not_elf || d->name[0] != '/')
			continue;
		h = sf_hash_u64(m->start - m->pgoff, h ^ m->dso);
	}
	return h;
}

/* The Dwfl of a process for its maps as they are now. */
static Dwfl *proc_dwfl(struct pd_state *st, struct pd_proc *pr)
{
	if (pr->dwfl && pr->dwfl_gen == pr->gen)
		return pr->attached ? pr->dwfl : NULL;
	uint64_t key = modules_key(st, pr);
	pr->dwfl_gen = pr->gen;
	if (pr->dwfl && pr->dwfl_key == key)
		return pr->attached ? pr->dwfl : NULL;
	if (pr->dwfl)
		dwfl_end(pr->dwfl);
	pr->dwfl_key = key;
	pr->attached = false;
	pr->machine = 0;
	if (!(pr->dwfl = dwfl_begin(&offline_callbacks)))
		return NULL;
	bool *seen = calloc(st->ndsos ? st->ndsos : 1, sizeof(*seen));
	if (!seen)
		return NULL;
	elf_version(EV_CURRENT);
	dwfl_report_begin(pr->dwfl);
	for (size_t i = 0; i < pr->n; i++)
		report_map(st, pr, &pr->maps[i], seen);
	free(seen);
	dwfl_report_end(pr->dwfl, NULL, NULL);
	if ((pr->machine == EM_X86_64 || pr->machine == EM_AARCH64) &&
	    dwfl_attach_state(pr->dwfl, NULL, (pid_t)pr->pid,
			      &sample_callbacks, st))
		pr->attached = true;
	return pr->attached ? pr->dwfl : NULL;
}

/*
 * Does perf's libunwind find no unwind entry for pc, in an ELF file?
 * Where the file's CFI does not cover pc (_init, _fini, code without
 * tables); and where pc is in a map of a file that is not where the file
 * was reported: perf reads a file's unwind table at one place, the
 * lowest map of that file (read_unwind_spec_eh_frame in perf's
 * util/unwind-libunwind-local.c), as report_map reports it, so for a pc
 * in another map of that file (a process that forked, then exec'd and
 * mapped the same library elsewhere, the old maps left in place: every
 * libc frame of a program a shell started) its search of the table
 * finds nothing.
 */
static bool no_unwind_entry(struct pd_state *st, const struct unw *u,
			    Dwfl *dwfl, uint64_t pc)
{
	if (dwfl_addrmodule(dwfl, pc)) {
		/* the modules key names the files and their places, so
		 * (key, pc) gives one answer */
		uint64_t key = u->pr->dwfl_key;
		if (!st->cfi_memo &&
		    !(st->cfi_memo = calloc(CFI_MEMO, sizeof(*st->cfi_memo))))
			return !sf_cfi_covers(dwfl, pc);
		struct pd_cfi_memo *e =
			&st->cfi_memo[sf_hash_u64(pc, key) & (CFI_MEMO - 1)];
		if (e->key != key || e->pc != pc || !e->pc)
			*e = (struct pd_cfi_memo){ key, pc,
						   sf_cfi_covers(dwfl, pc) };
		return !e->covers;
	}
	const struct pd_map *m = sf_pd__map_find(u->pr, pc);
	return m && !st->dsos[m->dso].not_elf && st->dsos[m->dso].name[0] == '/';
}

/*
 * libunwind's x86_64 guess where it found no unwind entry (the frame
 * chain branch of unw_step in its x86_64/Gstep.c): with f's rbp non-zero,
 * at most 0x4000 above its rsp (libunwind's CFA of the frame) and [rbp]
 * readable, the return address is [rbp + 8], the caller's rbp [rbp] and
 * its rsp that CFA plus 16 (not rbp + 16: libunwind adds 16 to the CFA it
 * had, so a guess through a frame whose rbp is not its CFA minus 16 reads
 * the next return address from a wrong slot, as perf script shows it);
 * the other registers are lost.  False where libunwind stops.  A return
 * address of 0 is recorded as perf shows it (0 minus one) and ends the
 * stack.
 */
static bool libunwind_guess(const struct pd_state *st, Dwfl_Frame *f,
			    struct unw *u)
{
	Dwfl *dwfl = dwfl_thread_dwfl(dwfl_frame_thread(f));
	Dwarf_Word sp, bp;
	uint64_t next_bp, ra;
	unsigned char c[16];

	if (dwfl_frame_reg(f, 7, &sp))
		return false;
	u->r_bp_known = !dwfl_frame_reg(f, 6, &bp);
	if (code_bytes(st, u, dwfl, u->pcs[u->n - 1], c, sizeof(c)) &&
	    c[0] == 0xff && c[1] == 0x25 && c[6] == 0x68 && c[11] == 0xe9) {
		/* a lazy-binding PLT entry (jmp *x(%rip); push $n; jmp):
		 * the return address at rsp, rbp kept */
		if (!perf_word(st, u, dwfl, sp, &ra))
			return false;
		u->r_sp = sp + 8;
		u->r_bp = bp;
	} else {
		if (!u->r_bp_known || !bp || bp < sp || bp - sp > 0x4000 ||
		    !perf_word(st, u, dwfl, bp, &next_bp) ||
		    !perf_word(st, u, dwfl, bp + 8, &ra))
			return false;
		u->r_sp = sp + 16;
		u->r_bp = next_bp;
		u->r_bp_known = true;
	}
	if (!ra) {
		u->pcs[u->n++] = UINT64_MAX;
		return false;
	}
	u->r_pc = ra - 1;
	return true;
}

static int frame_cb(Dwfl_Frame *f, void *arg)
{
	struct pd_state *st = arg;
	struct unw *u = st->unw;
	Dwarf_Addr pc;
	bool act;

	if (!dwfl_frame_pc(f, &pc, &act))
		return DWARF_CB_ABORT;
	if (u->machine == EM_X86_64) {
		static const unsigned saved[] = { 3, 6, 12, 13, 14, 15 };
		Dwarf_Word v;
		for (size_t i = 0; i < sizeof(saved) / sizeof(*saved); i++)
			if (!dwfl_frame_reg(f, saved[i], &v)) {
				u->cs[saved[i]] = v;
				u->cs_known |= 1u << saved[i];
			}
		if (!dwfl_frame_reg(f, 7, &v))
			u->last_sp = v;
	}
	if (u->skip_first) {
		u->skip_first = false;
		return DWARF_CB_OK;
	}
	/* the caller of code in no ELF file (the stack, the heap, a JIT's
	 * code, or no map at all) is libdwfl's guess by the frame pointer;
	 * perf finds no file to read unwind tables from there and ends the
	 * stack (in a file without tables for the address libunwind
	 * guesses too, and it has the vdso's: the guess is left to stand
	 * for both) */
	if (u->n && !dwfl_addrmodule(dwfl_thread_dwfl(dwfl_frame_thread(f)),
				     u->pcs[u->n - 1])) {
		const struct pd_map *m = sf_pd__map_find(u->pr,
							 u->pcs[u->n - 1]);
		if (!m || (st->dsos[m->dso].not_elf &&
			   strcmp(st->dsos[m->dso].name, "[vdso]")))
			return DWARF_CB_ABORT;
	}
	/* a caller whose return address reads as 0 (ld.so's start-up
	 * code, before its frames are set up) is kept: perf's libunwind
	 * takes that step too and prints 0 minus one, "[unknown]".
	 * libdwfl calls both a signal trampoline's frame (__restore_rt,
	 * whose caller it unwinds with the 'S' CFI) and the interrupted
	 * frame above it activations; perf takes one less from every
	 * return address but the interrupted frame's (perf's get_entries
	 * asks libunwind's unw_is_signal_frame), the trampoline's
	 * included */
	if (act && u->n > u->n0) {
		act = u->tramp;
		u->tramp = !u->tramp;
	} else {
		u->tramp = false;
	}
	u->pcs[u->n++] = act ? pc : pc - 1;
	if (u->n >= UNWIND_MAX)
		return DWARF_CB_ABORT;
	/* where perf has no unwind entry for the pc, libunwind's guess,
	 * not libdwfl's (which follows the frame pointer correctly):
	 * unwinding goes on from the registers it gives */
	if (u->machine == EM_X86_64 &&
	    no_unwind_entry(st, u, dwfl_thread_dwfl(dwfl_frame_thread(f)),
			    u->pcs[u->n - 1])) {
		u->resume = libunwind_guess(st, f, u);
		u->guessed_end = !u->resume;
		return DWARF_CB_ABORT;
	}
	return DWARF_CB_OK;
}

int sf_pd__unwind(struct pd_state *st, const struct pd_thread *th,
		  const struct pd_attr *a, const struct pd_ustack *us,
		  size_t *n)
{
	struct pd_proc *pr;
	uint64_t pcs[UNWIND_MAX];
	struct unw u = { .us = us, .mask = a->regs_user, .pcs = pcs };
	Dwarf_Word w;
	int rc;

	if (th->pid < 0)
		return 0;
	if ((rc = sf_pd__proc_of(st, th->pid, &pr)))
		return rc;
	Dwfl *dwfl = proc_dwfl(st, pr);
	u.pr = pr;
	u.machine = pr->machine ? pr->machine : EM_X86_64;
	if (u.machine == EM_AARCH64 ? !reg(&u, ARM64_SP, &w) :
				      !reg(&u, X86_64_SP, &w))
		return 0;
	u.sp = w;
	if (dwfl && us->stack) {
		st->unw = &u;
		size_t carried = 0;
		do {
			u.resume = false;
			u.n0 = u.n;
			u.failed = false;
			u.last_zero = false;
			rc = dwfl_getthread_frames(dwfl, (pid_t)th->tid,
						   frame_cb, st);
			u.resumed = true;
			u.carry = u.skip_first = false;
			/* libdwfl stopped (rc 0) with neither a return address
			 * of 0 nor a failed read: a register its CFA needs
			 * is undefined for libdw (rbx, unsaved yet in
			 * _dl_fixup, below _dl_runtime_resolve_xsavec, whose
			 * CFA is rbx+32); libunwind keeps it and goes on, so
			 * start again at that frame, once */
			if (!u.resume && rc == 0 && !u.last_zero && !u.failed &&
			    !u.guessed_end && u.machine == EM_X86_64 &&
			    u.n > carried && u.n < UNWIND_MAX &&
			    pcs[u.n - 1] != UINT64_MAX &&
			    dwfl_addrmodule(dwfl, pcs[u.n - 1]) &&
			    !sf_cfi_outermost(dwfl, pcs[u.n - 1])) {
				carried = u.n;
				u.resume = u.carry = u.skip_first = true;
			}
		} while (u.resume && u.n < UNWIND_MAX);
		st->unw = NULL;
		/* libdwfl ends the stack (rc 0) without a frame where the
		 * return address (the last register it reads) is 0 (a stack deeper than its copy, whose
		 * next return address in [stack] reads as 0 as in perf;
		 * ld.so's start-up; a caller read from a wrong slot) or
		 * where the CFI marks the outermost frame.  perf's libunwind
		 * takes the first step, to address 0, shown as 0 minus one,
		 * "[unknown]"; not where a read failed (no map: the step
		 * fails) nor where its guess ended the stack */
		if (!u.guessed_end && !u.failed && rc == 0 && u.last_zero &&
		    u.n && u.n < UNWIND_MAX && pcs[u.n - 1] != UINT64_MAX &&
		    dwfl_addrmodule(dwfl, pcs[u.n - 1]) &&
		    !sf_cfi_outermost(dwfl, pcs[u.n - 1]))
			pcs[u.n++] = UINT64_MAX;
	}
	/* perf shows the sampled ip even where nothing unwinds, but
	 * nothing for a sample without a stack copy or of a process
	 * without maps (perf's unwinder is set up as a map is added:
	 * unwind__prepare_access in util/maps.c) */
	if (!u.n && us->stack && us->len && pr->n &&
	    reg(&u, u.machine == EM_AARCH64 ? ARM64_PC : X86_64_PC, &w))
		pcs[u.n++] = w;
	return sf_pd__resolve_user(st, th, pcs, u.n, n);
}

void sf_pd__unwind_free(struct pd_proc *pr)
{
	if (pr->dwfl)
		dwfl_end(pr->dwfl);
	pr->dwfl = NULL;
}
