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
 *
 * libdw's dwarf_getscopes walks the unit's DIEs from its start for every
 * address (and again for the abstract origin of an inlined instance), and
 * dwarf_getscopes_die once more for each caller: in a large unit
 * (CPython's ceval.c) that is most of a --call-graph dwarf conversion.
 * So each unit is walked once, as libdw walks it (libdw_visit_scopes.c:
 * the DIEs that may hold scopes, in order), into a tree of the DIEs that
 * hold addresses, with their ranges; an address then descends that tree
 * as dwarf_getscopes descends the unit (at each level the first DIE
 * whose ranges hold it).  A unit libdw would walk otherwise (an imported
 * unit, a range list libdw fails to read) and an inlined instance whose
 * origin is not a subprogram of the unit are left to libdw, as is all of
 * it under SF_PERFDATA_SLOW=1 (tests/t-perfdata.sh compares the two).
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

#define NONE UINT32_MAX
#define SCOPE_DEPTH_MAX 256

/* A DIE of a unit that holds addresses, under its parent DIE that does
 * (NONE: the unit), before its next sibling that does. */
struct snode {
	Dwarf_Die die;
	uint32_t parent, next, child;
	uint32_t r0, nr;         /* its ranges: rng[r0 .. r0 + nr) */
	int tag;
};

/* The tree of one unit (struct pd_dwarf's units). */
struct sunit {
	bool libdw;              /* walked otherwise: libdw answers */
	struct snode *nodes;
	size_t n, cap;
	struct srange {
		uint64_t lo, hi;
	} *rng;
	size_t nrng, cap_rng;
	uintptr_t *subs;         /* the subprograms libdw's walk meets */
	size_t nsubs, cap_subs;  /* (by address of the DIE), sorted */
};

struct pd_dwarf {
	int fd;
	Elf *elf;
	Dwarf *dw;
	bool slow;               /* SF_PERFDATA_SLOW: libdw answers all */
	struct sunit *units;     /* by the offset of the unit's DIE */
	size_t nunits, cap_units;
	struct pd_map64 unit_idx;
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
	if (w->nsyms)   /* qsort's array must not be NULL, even empty */
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
	for (size_t i = 0; i < w->nunits; i++) {
		free(w->units[i].nodes);
		free(w->units[i].rng);
		free(w->units[i].subs);
	}
	free(w->units);
	m64_free(&w->unit_idx);
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
	const char *slow = getenv("SF_PERFDATA_SLOW");
	w->slow = slow && *slow && strcmp(slow, "0");
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

static bool is_function_tag(int tag)
{
	return tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine ||
	       tag == DW_TAG_entry_point;
}

static bool is_function(Dwarf_Die *die)
{
	return is_function_tag(dwarf_tag(die));
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

/* The functions at addr as libdw's scopes give them (the header). */
static void inlines_libdw(struct pd_dwarf *w, uint64_t addr,
			  const char **names, size_t max, size_t *n)
{
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
}

/* ----- the scope tree of a unit ----- */

/* The DIEs libdw's walk descends into (may_have_scopes). */
static bool may_have_scopes(int tag)
{
	switch (tag) {
	case DW_TAG_compile_unit: case DW_TAG_module:
	case DW_TAG_lexical_block: case DW_TAG_with_stmt:
	case DW_TAG_catch_block: case DW_TAG_try_block:
	case DW_TAG_entry_point: case DW_TAG_inlined_subroutine:
	case DW_TAG_subprogram: case DW_TAG_namespace:
	case DW_TAG_class_type: case DW_TAG_structure_type:
		return true;
	default:
		return false;
	}
}

/* The ranges of `die` into u->rng; false where libdw fails to read them
 * (its walk would stop or skip there: libdw answers).  A DIE with
 * neither DW_AT_high_pc nor DW_AT_ranges holds no address (dwarf_ranges
 * gives it none, or an error dwarf_getscopes takes for none). */
static bool add_ranges(struct sunit *u, Dwarf_Die *die, uint32_t *r0,
		       uint32_t *nr)
{
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off = 0;

	*r0 = (uint32_t)u->nrng;
	*nr = 0;
	if (!dwarf_hasattr(die, DW_AT_high_pc) &&
	    !dwarf_hasattr(die, DW_AT_ranges))
		return true;
	while ((off = dwarf_ranges(die, off, &base, &lo, &hi)) > 0) {
		if (!grow((void **)&u->rng, &u->cap_rng, u->nrng + 1,
			  sizeof(*u->rng)))
			return false;
		u->rng[u->nrng++] = (struct srange){ lo, hi };
		(*nr)++;
	}
	return off == 0;
}

/* Walk the children of `parent` as libdw_visit_scopes does, keeping
 * those that hold addresses under `pidx` when `held` (the parent holds
 * some: libdw looks no deeper under a DIE without the address). */
static bool walk_unit(struct sunit *u, Dwarf_Die *parent, uint32_t pidx,
		      bool held, int depth)
{
	Dwarf_Die c;
	uint32_t prev = NONE;
	int r = dwarf_child(parent, &c);

	if (r)
		return r > 0;
	if (depth > SCOPE_DEPTH_MAX)
		return false;
	do {
		int tag = dwarf_tag(&c);
		uint32_t me = NONE, r0, nr;
		if (tag == DW_TAG_imported_unit)
			return false;
		if (tag == DW_TAG_subprogram) {
			if (!grow((void **)&u->subs, &u->cap_subs,
				  u->nsubs + 1, sizeof(*u->subs)))
				return false;
			u->subs[u->nsubs++] = (uintptr_t)c.addr;
		}
		if (held) {
			if (!add_ranges(u, &c, &r0, &nr))
				return false;
			if (nr) {
				if (!grow((void **)&u->nodes, &u->cap,
					  u->n + 1, sizeof(*u->nodes)))
					return false;
				me = (uint32_t)u->n++;
				u->nodes[me] = (struct snode){
					c, pidx, NONE, NONE, r0, nr, tag };
				if (prev != NONE)
					u->nodes[prev].next = me;
				else if (pidx != NONE)
					u->nodes[pidx].child = me;
				prev = me;
			}
		}
		if (may_have_scopes(tag) && dwarf_haschildren(&c) > 0 &&
		    !walk_unit(u, &c, me, me != NONE, depth + 1))
			return false;
	} while ((r = dwarf_siblingof(&c, &c)) == 0);
	return r > 0;
}

static int cmp_uptr(const void *x, const void *y)
{
	uintptr_t a = *(const uintptr_t *)x, b = *(const uintptr_t *)y;

	return a < b ? -1 : a > b;
}

/* The tree of the unit `cu`, walked on first use; NULL without memory. */
static struct sunit *unit_of(struct pd_dwarf *w, Dwarf_Die *cu)
{
	uint64_t key = dwarf_dieoffset(cu);
	uint32_t id;

	if (m64_find(&w->unit_idx, key, &id))
		return &w->units[id];
	if (!grow((void **)&w->units, &w->cap_units, w->nunits + 1,
		  sizeof(*w->units)))
		return NULL;
	id = (uint32_t)w->nunits;
	struct sunit *u = &w->units[id];
	memset(u, 0, sizeof(*u));
	if (!m64_add(&w->unit_idx, key, id, w->cap_units))
		return NULL;
	w->nunits++;
	if (!walk_unit(u, cu, NONE, true, 0))
		u->libdw = true;
	if (u->nsubs)   /* a unit without subprograms has no array */
		qsort(u->subs, u->nsubs, sizeof(*u->subs), cmp_uptr);
	return u;
}

static uint64_t node_len(const struct sunit *u, uint32_t i, uint64_t addr)
{
	const struct snode *s = &u->nodes[i];

	for (uint32_t k = 0; k < s->nr; k++)
		if (addr >= u->rng[s->r0 + k].lo && addr < u->rng[s->r0 + k].hi)
			return u->rng[s->r0 + k].hi - u->rng[s->r0 + k].lo;
	return 0;
}

/* inlines_libdw on the unit's tree: false where libdw must answer. */
static bool inlines_tree(struct pd_dwarf *w, uint64_t addr,
			 const char **names, size_t max, size_t *n)
{
	Dwarf_Die cu;
	uint32_t chain[SCOPE_DEPTH_MAX + 2];
	size_t nc = 0;

	if (!w->dw || !dwarf_addrdie(w->dw, addr, &cu))
		return true;
	struct sunit *u = unit_of(w, &cu);
	if (!u || u->libdw)
		return false;
	/* dwarf_getscopes: at each level the first DIE holding addr */
	uint32_t i = u->n ? 0 : NONE;
	while (i != NONE && nc < SCOPE_DEPTH_MAX + 2) {
		if (node_len(u, i, addr)) {
			chain[nc++] = i;
			i = u->nodes[i].child;
		} else {
			i = u->nodes[i].next;
		}
	}
	/* and for the innermost inlined instance, its abstract origin
	 * searched in the unit: found nowhere, it gives no scopes */
	for (size_t k = nc; k-- > 0;) {
		struct snode *s = &u->nodes[chain[k]];
		if (s->tag != DW_TAG_inlined_subroutine)
			continue;
		Dwarf_Attribute at;
		Dwarf_Die o;
		if (!dwarf_attr(&s->die, DW_AT_abstract_origin, &at) ||
		    !dwarf_formref_die(&at, &o))
			return true;
		if (dwarf_tag(&o) != DW_TAG_subprogram)
			return false;
		uintptr_t a = (uintptr_t)o.addr;
		if (!bsearch(&a, u->subs, u->nsubs, sizeof(*u->subs),
			     cmp_uptr))
			return true;
		break;
	}
	uint32_t f = NONE;
	for (size_t k = nc; k-- > 0 && f == NONE;)
		if (is_function_tag(u->nodes[chain[k]].tag))
			f = chain[k];
	if (f == NONE)
		return true;
	/* last_equal */
	uint64_t best = node_len(u, f, addr);
	for (uint32_t s = u->nodes[f].next; s != NONE; s = u->nodes[s].next) {
		uint64_t len;
		if (is_function_tag(u->nodes[s].tag) &&
		    (len = node_len(u, s, addr)) && len <= best) {
			f = s;
			best = len;
		}
	}
	/* an inlined instance's caller: the next function above it */
	while (f != NONE && *n < max) {
		const char *name = die_name(&u->nodes[f].die);
		names[(*n)++] = name ? name : "??";
		if (u->nodes[f].tag != DW_TAG_inlined_subroutine)
			break;
		do
			f = u->nodes[f].parent;
		while (f != NONE && !is_function_tag(u->nodes[f].tag));
	}
	return true;
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
	if (w->slow || !inlines_tree(w, addr, names, max, n)) {
		*n = 0;
		inlines_libdw(w, addr, names, max, n);
	}
	if (!*n) {
		const char *name = bsym_name(w, addr);
		if (name)
			names[(*n)++] = name;
	}
	return 0;
}
