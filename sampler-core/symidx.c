/*
 * symidx.c - one sorted symbol index per ELF file, shared by every process
 * of the capture that maps the file, giving exactly the name and offset
 * libdwfl's dwfl_module_addrinfo gives.
 *
 * dwfl_module_addrinfo scans the whole symbol table for every address,
 * and each process has a Dwfl of its own, so a build that runs cc1
 * twenty times paid for cc1's 28,902 symbols twenty times per address.
 * Here the table is read once per file (the file named by its build id,
 * else by device, inode, size and mtime), its symbols sorted by address,
 * and an address finds its candidates by binary search.
 *
 * The answer must be libdwfl's own (elfutils libdwfl/dwfl_module_addrsym.c,
 * __libdwfl_addrsym with adjust_st_value false), whose choice depends on
 * the order it meets the symbols in:
 *
 * - it reads the globals first (from first_global), the locals only when
 *   no global with a size holds the address and no global without a size
 *   sits exactly at it;
 * - a symbol is a candidate when it has a non-empty name, is defined, is
 *   not STT_SECTION, STT_FILE or STT_TLS, and starts at or below the
 *   address;
 * - of the candidates with a size that hold the address, one replaces the
 *   one kept so far when it starts higher, or binds more strongly (GLOBAL
 *   over WEAK over LOCAL, anything else weakest), or starts at the same
 *   address with the same binding and is smaller: so order matters, and
 *   those few candidates are folded here in libdwfl's order;
 * - without such a candidate, a symbol without a size: the one met last
 *   among those at the highest start or end of any candidate met (the
 *   "min_label" every candidate raises), if it lies in the section of the
 *   address (libdwfl's find_section over the main file's allocated
 *   sections, reproduced below) or, for an absolute or common symbol or
 *   one in an unallocated section, sits at the address itself.
 *
 * A symbol's value moves with the module's load address except for
 * absolute and common symbols and symbols in unallocated sections, which
 * libdwfl leaves as they are: those few are kept apart, with their own
 * values, and compared with the process's address.  Where libdwfl would
 * resolve a value (function descriptors, ppc64), or the module is
 * relocatable, or an address has more than SCRATCH candidates holding
 * it, the index says so and the caller asks libdwfl.
 */
#include "capture_int.h"

#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* candidates with a size that hold one address, at most */
#define SCRATCH 64
/* symbols walked back over to find them, at most */
#define SCRATCH_STEPS 4096

struct ent {
	uint64_t value;         /* moving symbols: less the main file's bias */
	uint64_t size;
	uint32_t name;          /* offset into names */
	uint32_t pos;           /* its index in libdwfl's table */
	uint32_t sec;           /* moving, no size: its section (find_sec) */
	uint8_t bind;           /* binding, libdwfl's binding_value */
	uint8_t exact;          /* section index reserved (absolute, common,
				 * unallocated): same section only at its
				 * own address */
};

/* One of libdwfl's two passes: globals, then locals. */
struct pass {
	struct ent *e;          /* moving symbols, by value then pos */
	uint64_t *maxend;       /* maxend[i]: highest value + size of e[..i] */
	size_t n;
	struct ent *u;          /* fixed symbols (values as they are) */
	size_t nu;
};

struct sec {
	uint64_t start, end;    /* the main file's addresses */
	uint32_t ndx;
};

struct sfc_symidx {
	unsigned char id[64];   /* build id, or dev ino size mtime */
	size_t idlen;
	int syments, first_global;
	bool exact;             /* false: ask libdwfl for this file */
	bool locals;            /* libdwfl has a pass over locals */
	struct pass pass[2];
	struct sec *secs;       /* allocated sections, libdwfl's order */
	size_t nsecs;
	char *names;
	/* the file alone in a Dwfl of its own at its own addresses (bias
	 * 0), where its DWARF is read once for all processes (inline
	 * scopes, lines); dwarf_tried: made, or found not to work */
	Dwfl *dw;
	Dwfl_Module *dmod;
	bool dwarf_tried;
};

struct sfc_symidx_set {
	struct sfc_symidx **x;
	size_t n, cap;
};

int sfc__binding_rank(const GElf_Sym *sym)
{
	switch (GELF_ST_BIND(sym->st_info)) {
	case STB_GLOBAL:
		return 3;
	case STB_WEAK:
		return 2;
	case STB_LOCAL:
		return 1;
	default:
		return 0;
	}
}

/* libdwfl's compare_secrefs (derelocate.c) */
static int sec_cmp(const void *a, const void *b)
{
	const struct sec *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->end != y->end)
		return x->end < y->end ? -1 : 1;
	return x->ndx < y->ndx ? -1 : x->ndx > y->ndx;
}

static int ent_cmp(const void *a, const void *b)
{
	const struct ent *x = a, *y = b;

	if (x->value != y->value)
		return x->value < y->value ? -1 : 1;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/* libdwfl's find_section: the binary search over sections that may
 * overlap (.tbss), an end counted in unless the next section starts
 * there; SHN_UNDEF outside all of them.  Its addresses are the module's;
 * relative ones give the same answer as the search only compares. */
static uint32_t find_sec(const struct sfc_symidx *x, uint64_t addr)
{
	size_t l = 0, u = x->nsecs;

	while (l < u) {
		size_t i = (l + u) / 2;
		if (addr < x->secs[i].start)
			u = i;
		else if (addr > x->secs[i].end)
			l = i + 1;
		else {
			if (addr == x->secs[i].end && i + 1 < x->nsecs &&
			    addr == x->secs[i + 1].start)
				i++;
			return x->secs[i].ndx;
		}
	}
	return SHN_UNDEF;
}

static int read_secs(struct sfc_symidx *x, Elf *elf)
{
	Elf_Scn *scn = NULL;
	size_t cap = 0;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh))
			return -1;
		if (!(sh.sh_flags & SHF_ALLOC))
			continue;
		if (sf_grow(&x->secs, &cap, x->nsecs + 1, sizeof(*x->secs)))
			return -1;
		x->secs[x->nsecs++] = (struct sec){
			sh.sh_addr, sh.sh_addr + sh.sh_size,
			(uint32_t)elf_ndxscn(scn),
		};
	}
	if (x->nsecs)
		qsort(x->secs, x->nsecs, sizeof(*x->secs), sec_cmp);
	return 0;
}

/* The file's name for sharing: its build id, else what stat says of the
 * file libdwfl opened.  False when it has neither. */
static bool file_key(Dwfl_Module *mod, unsigned char *id, size_t *len)
{
	const unsigned char *bits;
	GElf_Addr vaddr;
	const char *path = NULL;
	struct stat st;
	int n = dwfl_module_build_id(mod, &bits, &vaddr);

	if (n > 0 && n <= 63) {
		id[0] = 'b';
		memcpy(id + 1, bits, (size_t)n);
		*len = (size_t)n + 1;
		return true;
	}
	dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, &path, NULL);
	if (!path || stat(path, &st))
		return false;
	int64_t f[4] = { (int64_t)st.st_dev, (int64_t)st.st_ino,
			 (int64_t)st.st_size,
			 (int64_t)st.st_mtim.tv_sec * 1000000000 +
				 st.st_mtim.tv_nsec };
	id[0] = 's';
	memcpy(id + 1, f, sizeof(f));
	*len = 1 + sizeof(f);
	return true;
}

static void pass_free(struct pass *p)
{
	free(p->e);
	free(p->maxend);
	free(p->u);
}

void sfc__symidx_free(struct sfc_symidx *x)
{
	if (!x)
		return;
	pass_free(&x->pass[0]);
	pass_free(&x->pass[1]);
	free(x->secs);
	free(x->names);
	if (x->dw)
		dwfl_end(x->dw);
	free(x);
}

/* Read mod's table into x; false when libdwfl's answers cannot be
 * reproduced exactly (x->exact stays false), -1 when out of memory. */
static int fill(struct sfc_symidx *x, Dwfl_Module *mod)
{
	Dwarf_Addr mbias;
	Elf *elf = dwfl_module_getelf(mod, &mbias);
	GElf_Ehdr eh;
	size_t cap[2][2] = { { 0, 0 }, { 0, 0 } }, ncap = 0, nlen = 0;

	if (!elf || !gelf_getehdr(elf, &eh) || eh.e_type == ET_REL)
		return 0;
	if (x->syments < 0) {
		/* no table: libdwfl names nothing */
		x->exact = true;
		return 0;
	}
	if (x->first_global < 0 || read_secs(x, elf))
		return 0;
	x->locals = x->first_global > 1;
	for (int i = 1; i < x->syments; i++) {
		GElf_Sym sym;
		GElf_Addr value;
		GElf_Word shndx;
		Elf *symelf;
		Dwarf_Addr sbias;
		const char *name = dwfl_module_getsym_info(
			mod, i, &sym, &value, &shndx, &symelf, &sbias);
		int t = GELF_ST_TYPE(sym.st_info);
		if (!name || !name[0] || sym.st_shndx == SHN_UNDEF ||
		    t == STT_SECTION || t == STT_FILE || t == STT_TLS)
			continue;
		/* libdwfl biases a value unless absolute, common or in an
		 * unallocated section (shndx -1) */
		bool moves = sym.st_shndx != SHN_ABS &&
			     sym.st_shndx != SHN_COMMON &&
			     shndx != (GElf_Word)-1;
		/* anything else (a resolved descriptor, a masked value) is
		 * libdwfl's to answer */
		if (value != sym.st_value + (moves ? sbias : 0))
			return 0;
		struct pass *p = &x->pass[i < x->first_global];
		size_t *n = moves ? &p->n : &p->nu;
		struct ent **arr = moves ? &p->e : &p->u;
		if (sf_grow(arr, &cap[i < x->first_global][!moves], *n + 1,
			    sizeof(**arr)))
			return -1;
		size_t len = strlen(name) + 1;
		if (sf_grow(&x->names, &ncap, nlen + len, 1) ||
		    nlen + len > UINT32_MAX)
			return -1;
		memcpy(x->names + nlen, name, len);
		struct ent *e = &(*arr)[(*n)++];
		*e = (struct ent){
			.value = moves ? value - mbias : value,
			.size = sym.st_size,
			.name = (uint32_t)nlen,
			.pos = (uint32_t)i,
			.bind = (uint8_t)sfc__binding_rank(&sym),
			.exact = shndx >= SHN_LORESERVE,
		};
		if (moves && !sym.st_size && !e->exact)
			e->sec = find_sec(x, e->value);
		nlen += len;
	}
	for (int k = 0; k < 2; k++) {
		struct pass *p = &x->pass[k];
		if (!p->n)
			continue;
		qsort(p->e, p->n, sizeof(*p->e), ent_cmp);
		if (!(p->maxend = sf_calloc(p->n, sizeof(*p->maxend))))
			return -1;
		uint64_t m = 0;
		for (size_t i = 0; i < p->n; i++) {
			uint64_t end = p->e[i].value + p->e[i].size;
			p->maxend[i] = m = end > m ? end : m;
		}
	}
	x->exact = true;
	return 0;
}

int sfc__symidx_get(struct sfc_symidx_set **setp, Dwfl_Module *mod,
		    struct sfc_symidx **out)
{
	struct sfc_symidx_set *set = *setp;
	unsigned char id[64];
	size_t len;

	*out = NULL;
	if (!file_key(mod, id, &len))
		return 0;
	int syments = dwfl_module_getsymtab(mod);
	int fg = syments < 0 ? -1 : dwfl_module_getsymtab_first_global(mod);
	/* the same build id with another table (a stripped copy and its
	 * original) is another index */
	for (size_t i = 0; set && i < set->n; i++) {
		struct sfc_symidx *x = set->x[i];
		if (x->idlen == len && !memcmp(x->id, id, len) &&
		    x->syments == syments && x->first_global == fg) {
			*out = x;
			return 0;
		}
	}
	if (!set && !(set = *setp = sf_calloc(1, sizeof(*set))))
		return -1;
	struct sfc_symidx *x = sf_calloc(1, sizeof(*x));
	if (!x || sf_grow(&set->x, &set->cap, set->n + 1, sizeof(*set->x))) {
		free(x);
		return -1;
	}
	memcpy(x->id, id, len);
	x->idlen = len;
	x->syments = syments;
	x->first_global = fg;
	if (fill(x, mod)) {
		sfc__symidx_free(x);
		return -1;
	}
	if (!x->exact) {
		/* keep only the verdict */
		pass_free(&x->pass[0]);
		pass_free(&x->pass[1]);
		memset(x->pass, 0, sizeof(x->pass));
	}
	set->x[set->n++] = x;
	*out = x;
	return 0;
}

void sfc__symidx_set_free(struct sfc_symidx_set *set)
{
	if (!set)
		return;
	for (size_t i = 0; i < set->n; i++)
		sfc__symidx_free(set->x[i]);
	free(set->x);
	free(set);
}

/* A candidate, its value as the module has it (bias added back). */
struct cand {
	const struct ent *e;
	uint64_t value;
};

/* the moving entries of e[0..n) at or below pc: how many.  An address
 * below the bias is below all of them (their values are relative). */
static size_t upto(const struct ent *e, size_t n, uint64_t pc, uint64_t bias)
{
	size_t l = 0, u = pc < bias ? 0 : n;
	uint64_t v = pc - bias;

	while (l < u) {
		size_t m = l + (u - l) / 2;
		if (e[m].value <= v)
			l = m + 1;
		else
			u = m;
	}
	return l;
}

static int cand_pos_cmp(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;

	return x->e->pos < y->e->pos ? -1 : x->e->pos > y->e->pos;
}

/* Pass p's symbols with a size that hold pc, folded in libdwfl's order
 * (try_sym_value); *best stays empty without one.  -1: too many. */
static int fold_sized(const struct pass *p, uint64_t pc, uint64_t bias,
		      struct cand *best)
{
	struct cand c[SCRATCH];
	size_t n = 0, steps = 0, k = upto(p->e, p->n, pc, bias);

	/* maxend says when no earlier symbol reaches pc; a long way back
	 * (a symbol spanning much of the file) is left to libdwfl */
	while (k-- > 0 && p->maxend[k] > pc - bias) {
		const struct ent *e = &p->e[k];
		if (++steps > SCRATCH_STEPS)
			return -1;
		if (!e->size || pc - bias - e->value >= e->size)
			continue;
		if (n == SCRATCH)
			return -1;
		c[n++] = (struct cand){ e, e->value + bias };
	}
	for (size_t i = 0; i < p->nu; i++) {
		const struct ent *e = &p->u[i];
		if (e->value > pc || !e->size || pc - e->value >= e->size)
			continue;
		if (n == SCRATCH)
			return -1;
		c[n++] = (struct cand){ e, e->value };
	}
	qsort(c, n, sizeof(*c), cand_pos_cmp);
	for (size_t i = 0; i < n; i++) {
		const struct ent *e = c[i].e, *b = best->e;
		if (!b || best->value < c[i].value || b->bind < e->bind ||
		    (best->value == c[i].value && b->size > e->size &&
		     b->bind <= e->bind))
			*best = c[i];
	}
	return 0;
}

/* The highest start or end of pass p's candidates for pc (min_label) */
static uint64_t min_label(const struct pass *p, uint64_t pc, uint64_t bias)
{
	size_t k = upto(p->e, p->n, pc, bias);
	uint64_t m = k ? p->maxend[k - 1] + bias : 0;

	for (size_t i = 0; i < p->nu; i++)
		if (p->u[i].value <= pc && p->u[i].value + p->u[i].size > m)
			m = p->u[i].value + p->u[i].size;
	return m;
}

/* Does pass p have a symbol without a size at pc itself? */
static bool sizeless_at(const struct pass *p, uint64_t pc, uint64_t bias)
{
	size_t k = upto(p->e, p->n, pc, bias);

	for (; k > 0 && p->e[k - 1].value == pc - bias; k--)
		if (!p->e[k - 1].size)
			return true;
	for (size_t i = 0; i < p->nu; i++)
		if (p->u[i].value == pc && !p->u[i].size)
			return true;
	return false;
}

/* Of pass p's symbols without a size at m that count as in pc's
 * section, the last libdwfl meets; *best unchanged without one. */
static void last_sizeless(const struct sfc_symidx *x, const struct pass *p,
			  uint64_t pc, uint64_t bias, uint64_t m,
			  struct cand *best)
{
	const struct ent *found = NULL;
	uint64_t fv = 0;
	uint32_t pcsec = pc < bias ? SHN_UNDEF : find_sec(x, pc - bias);

	size_t k = upto(p->e, p->n, m, bias);
	for (; k > 0 && p->e[k - 1].value == m - bias; k--) {
		const struct ent *e = &p->e[k - 1];
		if (!e->size && (e->exact ? m == pc : e->sec == pcsec)) {
			found = e;
			fv = m;
			break;  /* the highest pos of its value */
		}
	}
	/* the fixed ones all have a reserved section index (exact) */
	for (size_t i = 0; i < p->nu && m == pc; i++) {
		const struct ent *e = &p->u[i];
		if (e->value == m && !e->size &&
		    (!found || e->pos > found->pos)) {
			found = e;
			fv = m;
		}
	}
	if (found)
		*best = (struct cand){ found, fv };
}

int sfc__symidx_find(const struct sfc_symidx *x, uint64_t bias, uint64_t pc,
		     const char **name, uint64_t *off)
{
	struct cand best = { NULL, 0 };

	*name = NULL;
	*off = 0;
	if (!x || !x->exact)
		return 0;
	if (x->syments < 0)
		return 1;
	if (fold_sized(&x->pass[0], pc, bias, &best))
		return 0;
	bool local = !best.e && x->locals && !sizeless_at(&x->pass[0], pc, bias);
	if (local && fold_sized(&x->pass[1], pc, bias, &best))
		return 0;
	if (!best.e) {
		uint64_t m = min_label(&x->pass[0], pc, bias);
		if (local) {
			uint64_t ml = min_label(&x->pass[1], pc, bias);
			m = ml > m ? ml : m;
		}
		/* the locals come after the globals: one of theirs is met
		 * last */
		if (local)
			last_sizeless(x, &x->pass[1], pc, bias, m, &best);
		if (!best.e)
			last_sizeless(x, &x->pass[0], pc, bias, m, &best);
	}
	if (best.e) {
		*name = x->names + best.e->name;
		*off = pc - best.value;
	}
	return 1;
}

/* The file mod maps, reported alone at its own addresses, if it is the
 * same file (same build id) */
static Dwfl_Module *file_module(const Dwfl_Callbacks *cbs, Dwfl_Module *mod,
				Dwfl **dw)
{
	const char *path = NULL;
	const unsigned char *a, *b;
	GElf_Addr va, vb;
	Dwarf_Addr bias;

	dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, &path, NULL);
	int na = dwfl_module_build_id(mod, &a, &va);
	if (!path || na <= 0 || !(*dw = dwfl_begin(cbs)))
		return NULL;
	dwfl_report_begin(*dw);
	/* base 0 and p_vaddr added: bias 0, the file's own addresses */
	Dwfl_Module *m = dwfl_report_elf(*dw, path, path, -1, 0, true);
	dwfl_report_end(*dw, NULL, NULL);
	if (!m || !dwfl_module_getelf(m, &bias) || bias ||
	    dwfl_module_build_id(m, &b, &vb) != na || memcmp(a, b, (size_t)na))
		return NULL;
	return m;
}

Dwfl_Module *sfc__symidx_dwarf(struct sfc_symidx *x, const Dwfl_Callbacks *cbs,
			       Dwfl_Module *mod, uint64_t bias, uint64_t *pc)
{
	if (!x)
		return mod;
	if (!x->dwarf_tried) {
		x->dwarf_tried = true;
		if (!(x->dmod = file_module(cbs, mod, &x->dw)) && x->dw) {
			dwfl_end(x->dw);
			x->dw = NULL;
		}
	}
	if (!x->dmod)
		return mod;
	*pc -= bias;
	return x->dmod;
}
