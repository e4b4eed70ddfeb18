/*
 * perfdata_inline.c - the inlined functions perf script prints for a user
 * address (perfdata.h).
 *
 * perf (tools/perf/util/machine.c, append_inlines) asks addr2line -i -f
 * about every user entry of a call chain, frame-pointer or DWARF, in
 * the file its symbols came from, when that file has a .debug_line
 * section.  Each function addr2line names, innermost first, becomes one
 * line: "ip name+off (dso)" when the name is the ELF symbol's, else
 * "ip name+off (inlined)".  An address addr2line knows nothing of keeps
 * its one line.
 *
 * addr2line is not run here: the same list comes from libdw's scopes of
 * the address (as eu-addr2line -i -f gives it): the inlined subroutines
 * and the subprogram holding it, named by their linkage name, else their
 * name, through the abstract origin.  Where no DWARF function holds the
 * address (assembler without DWARF functions) addr2line names the ELF
 * symbol it finds, which is binutils' choice among aliases (better_fit in
 * bfd/elf.c), not perf's: kept here as the symbols of the file in table
 * order.
 */
#include "perfdata.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct bsym {
	uint64_t addr, size;
	const char *name;        /* in the ELF's string table */
	size_t shndx, order;
	bool func;
};

struct pd_dwarf {
	int fd;
	Elf *elf;
	Dwarf *dw;
	struct bsym *syms;       /* sorted by address, then table order */
	size_t nsyms;
	struct sec {
		uint64_t addr, size;
		size_t idx;
	} *secs;                 /* allocated sections */
	size_t nsecs;
};

static int cmp_bsym(const void *x, const void *y)
{
	const struct bsym *a = x, *b = y;

	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	return a->order < b->order ? -1 : a->order > b->order;
}

static bool has_debug_line(Elf *elf)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return false;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *n;
		if (gelf_getshdr(scn, &sh) &&
		    (n = elf_strptr(elf, shstrndx, sh.sh_name)) &&
		    !strcmp(n, ".debug_line"))
			return true;
	}
	return false;
}

/* The candidates binutils' _bfd_elf_find_function weighs: symbols of the
 * .symtab that may be functions (_bfd_elf_maybe_function_sym). */
static void load_bsyms(struct pd_dwarf *w)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	size_t cap = 0;

	while ((scn = elf_nextscn(w->elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_flags & SHF_ALLOC) {
			struct sec *ns = sf_reallocarray(w->secs, w->nsecs + 1,
							 sizeof(*ns));
			if (!ns)
				return;
			w->secs = ns;
			w->secs[w->nsecs++] = (struct sec){
				sh.sh_addr, sh.sh_size, elf_ndxscn(scn) };
		}
		if (sh.sh_type != SHT_SYMTAB || !sh.sh_entsize)
			continue;
		Elf_Data *data = elf_getdata(scn, NULL);
		size_t n = data ? sh.sh_size / sh.sh_entsize : 0;
		for (size_t i = 1; i < n; i++) {
			GElf_Sym s;
			const char *name;
			if (!gelf_getsym(data, (int)i, &s) ||
			    !(name = elf_strptr(w->elf, sh.sh_link,
						s.st_name)) ||
			    !*name || s.st_shndx == SHN_UNDEF ||
			    s.st_shndx >= SHN_LORESERVE)
				continue;
			int type = GELF_ST_TYPE(s.st_info);
			if (type == STT_SECTION || type == STT_FILE ||
			    type == STT_OBJECT || type == STT_TLS)
				continue;
			/* annobin's markers are not functions */
			if (!s.st_size &&
			    GELF_ST_BIND(s.st_info) == STB_LOCAL &&
			    type == STT_NOTYPE &&
			    GELF_ST_VISIBILITY(s.st_other) == STV_HIDDEN)
				continue;
			if (!grow((void **)&w->syms, &cap, w->nsyms + 1,
				  sizeof(*w->syms)))
				return;
			w->syms[w->nsyms++] = (struct bsym){
				s.st_value, s.st_size ? s.st_size : 1, name,
				s.st_shndx, w->nsyms,
				type == STT_FUNC || type == STT_GNU_IFUNC };
		}
	}
	qsort(w->syms, w->nsyms, sizeof(*w->syms), cmp_bsym);
}

/* Does binutils' better_fit take `s` over `best`, both at one address
 * (s later in the table)? */
static bool fits_better(const struct bsym *s, const struct bsym *best,
			uint64_t addr)
{
	if (addr - best->addr >= best->size)
		return s->size > best->size;
	if (addr - s->addr >= s->size)
		return false;
	if (s->func != best->func)
		return s->func;
	return s->size < best->size;
}

/* binutils' choice (_bfd_elf_find_function): of the symbols of the
 * address's section, the nearest at or below it; of several there, in
 * table order, the one better_fit keeps. */
static const char *bsym_name(const struct pd_dwarf *w, uint64_t addr)
{
	size_t sec, lo = 0, hi = w->nsyms, i;

	for (i = 0; i < w->nsecs; i++)
		if (addr >= w->secs[i].addr &&
		    addr - w->secs[i].addr < w->secs[i].size)
			break;
	if (i == w->nsecs)
		return NULL;
	sec = w->secs[i].idx;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (w->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	while (lo && w->syms[lo - 1].shndx != sec)
		lo--;
	if (!lo)
		return NULL;
	uint64_t at = w->syms[lo - 1].addr;
	size_t first = lo - 1;
	while (first && w->syms[first - 1].addr == at)
		first--;
	const struct bsym *best = NULL;
	for (i = first; i < lo; i++) {
		const struct bsym *s = &w->syms[i];
		if (s->shndx == sec && (!best || fits_better(s, best, addr)))
			best = s;
	}
	return best ? best->name : NULL;
}

static void dwarf_close(struct pd_dwarf *w)
{
	if (w->dw)
		dwarf_end(w->dw);
	if (w->elf)
		elf_end(w->elf);
	if (w->fd >= 0)
		close(w->fd);
	free(w->syms);
	free(w->secs);
	free(w);
}

void sf_pd__dwarf_free(struct pd_dwarf *w)
{
	if (w)
		dwarf_close(w);
}

/* Open the file perf would give addr2line: NULL when it has no
 * .debug_line (perf then asks nothing). */
static struct pd_dwarf *dwarf_open(const char *path)
{
	struct pd_dwarf *w = calloc(1, sizeof(*w));

	if (!w)
		return NULL;
	elf_version(EV_CURRENT);
	w->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (w->fd < 0 ||
	    !(w->elf = elf_begin(w->fd, ELF_C_READ_MMAP, NULL)) ||
	    elf_kind(w->elf) != ELF_K_ELF || !has_debug_line(w->elf)) {
		dwarf_close(w);
		return NULL;
	}
	w->dw = dwarf_begin_elf(w->elf, DWARF_C_READ, NULL);
	load_bsyms(w);
	return w;
}

static const char *die_name(Dwarf_Die *die)
{
	Dwarf_Attribute at;
	const char *n;

	if ((dwarf_attr_integrate(die, DW_AT_linkage_name, &at) ||
	     dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &at)) &&
	    (n = dwarf_formstring(&at)))
		return n;
	return dwarf_diename(die) ? dwarf_diename(die) :
	       (dwarf_attr_integrate(die, DW_AT_name, &at) ?
		dwarf_formstring(&at) : NULL);
}

static bool is_function(Dwarf_Die *die)
{
	int tag = dwarf_tag(die);

	return tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine ||
	       tag == DW_TAG_entry_point;
}

/* The length of the range of `die` that holds addr, 0 if none does. */
static uint64_t range_len(Dwarf_Die *die, uint64_t addr)
{
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off = 0;

	while ((off = dwarf_ranges(die, off, &base, &lo, &hi)) > 0)
		if (addr >= lo && addr < hi)
			return hi - lo;
	return 0;
}

/* binutils takes, of the functions holding the address, the one of the
 * smallest range, and of equals the last: assembler gives each alias of
 * a function its own DW_TAG_subprogram over the same range, where
 * libdw's scopes hold the first. */
static void last_equal(Dwarf_Die *die, uint64_t addr)
{
	uint64_t best = range_len(die, addr);
	Dwarf_Die sib = *die, next;

	while (best && dwarf_siblingof(&sib, &next) == 0) {
		sib = next;
		uint64_t len;
		if (is_function(&sib) && (len = range_len(&sib, addr)) &&
		    len <= best) {
			*die = sib;
			best = len;
		}
	}
}

int sf_pd__inlines(struct pd_dso *d, uint64_t off, const char **names,
		   size_t max, size_t *n)
{
	uint64_t addr;

	*n = 0;
	if (!d->dwarf_tried) {
		const char *src = sf_symtab_source(d->syms);
		d->dwarf_tried = true;
		if (!src && d->name[0] == '/' &&
		    !sf_perf__is_perf_map(d->name, strlen(d->name)))
			src = d->name;
		if (src)
			d->dwarf = dwarf_open(src);
	}
	if (!d->dwarf || !sf_symtab_vaddr(d->syms, off, &addr))
		return 0;
	struct pd_dwarf *w = d->dwarf;
	Dwarf_Die cu, *scopes = NULL;
	int ns = 0;
	if (w->dw && dwarf_addrdie(w->dw, addr, &cu))
		ns = dwarf_getscopes(&cu, addr, &scopes);
	/* dwarf_getscopes follows an inlined instance with the containers
	 * of its abstract definition: the caller comes from the instance's
	 * own containers (dwarf_getscopes_die), as eu-addr2line -i does */
	for (int i = 0; i < ns && *n < max; i++) {
		if (!is_function(&scopes[i]))
			continue;
		if (!*n)
			last_equal(&scopes[i], addr);
		const char *name = die_name(&scopes[i]);
		names[(*n)++] = name ? name : "??";
		if (dwarf_tag(&scopes[i]) != DW_TAG_inlined_subroutine)
			break;
		Dwarf_Die *up = NULL;
		int nu = dwarf_getscopes_die(&scopes[i], &up);
		free(scopes);
		scopes = up;
		ns = nu;
		i = 0;   /* up[0] is the instance itself */
	}
	free(scopes);
	if (!*n) {
		const char *name = bsym_name(w, addr);
		if (name)
			names[(*n)++] = name;
	}
	return 0;
}
