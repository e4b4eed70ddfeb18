/*
 * elfsym.c - perf's choice of function symbols (see elfsym.h).
 */
#include "elfsym.h"
#include "sf.h"

#include <ctype.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct sym {
	uint64_t start, end;
	uint32_t name;   /* offset into names */
	uint8_t bind;
	bool module;     /* kallsyms: a module's ("name\t[module]") */
};

struct seg {
	uint64_t off, vaddr, size;
};

struct sf_symtab {
	struct sym *s;
	size_t n, cap;
	char *names;
	size_t names_len, names_cap;
	struct seg *segs;        /* ELF: PT_LOAD segments; none for kallsyms */
	size_t nsegs;
	char *source;            /* ELF: the file of a .symtab, else NULL */
	bool kallsyms;
	bool absolute;           /* addresses are the process's (kallsyms,
				  * perf maps): no segments */
	uint64_t text;           /* kallsyms: the address of "_text" */
};

static int add_sym(struct sf_symtab *t, uint64_t start, uint64_t size,
		   const char *name, size_t nl, uint8_t bind, bool module)
{
	if (t->n == t->cap) {
		size_t nc = t->cap ? t->cap * 2 : 1024;
		struct sym *ns = sf_reallocarray(t->s, nc, sizeof(*ns));
		if (!ns)
			return -1;
		t->s = ns;
		t->cap = nc;
	}
	if (t->names_len + nl + 1 > t->names_cap) {
		size_t nc = t->names_cap ? t->names_cap * 2 : 16384;
		while (nc < t->names_len + nl + 1)
			nc *= 2;
		char *nn = realloc(t->names, nc);
		if (!nn)
			return -1;
		t->names = nn;
		t->names_cap = nc;
	}
	memcpy(t->names + t->names_len, name, nl);
	t->names[t->names_len + nl] = 0;
	t->s[t->n++] = (struct sym){ start, start + size,
				     (uint32_t)t->names_len, bind, module };
	t->names_len += nl + 1;
	return 0;
}

static int cmp_sym(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	/* a stable order for equal starts: qsort is not stable */
	return x->name < y->name ? -1 : x->name > y->name;
}

static size_t underscores(const char *s)
{
	size_t n = 0;

	while (s[n] == '_')
		n++;
	return n;
}

/* perf's choose_best_symbol: true if a is kept over b. */
static bool better(const struct sf_symtab *t, const struct sym *a,
		   const struct sym *b)
{
	bool az = a->end == a->start, bz = b->end == b->start;
	const char *an = t->names + a->name, *bn = t->names + b->name;

	if (az != bz)
		return !az;
	if ((a->bind == STB_WEAK) != (b->bind == STB_WEAK))
		return b->bind == STB_WEAK;
	if ((a->bind == STB_GLOBAL) != (b->bind == STB_GLOBAL))
		return a->bind == STB_GLOBAL;
	size_t ua = underscores(an), ub = underscores(bn);
	if (ua != ub)
		return ua < ub;
	size_t la = strlen(an), lb = strlen(bn);
	if (la != lb)
		return la > lb;
	return true;
}

/* Sort (symbols at one address stay in file order), extend zero-sized
 * symbols to the next, then drop duplicates: perf's symbols__fixup_end
 * and symbols__fixup_duplicate, in that order, so that of several
 * zero-sized symbols at one address the last, the only one extended,
 * wins. */
static void finish(struct sf_symtab *t)
{
	size_t w = 0;

	if (!t->n)
		return;
	/* kallsyms comes sorted: a check is cheaper than sorting */
	size_t k = 1;
	while (k < t->n && cmp_sym(&t->s[k - 1], &t->s[k]) <= 0)
		k++;
	if (k < t->n)
		qsort(t->s, t->n, sizeof(*t->s), cmp_sym);
	for (size_t i = 0; i + 1 < t->n; i++) {
		struct sym *p = &t->s[i], *c = &t->s[i + 1];
		if (p->end != p->start)
			continue;
		if (t->kallsyms && p->module != c->module)
			p->end = (p->end + 4096 + 4095) & ~(uint64_t)4095;
		else
			p->end = c->start;
	}
	struct sym *l = &t->s[t->n - 1];
	if (l->end == l->start)
		l->end = ((l->start + 4095) & ~(uint64_t)4095) + 4096;
	for (size_t i = 0; i < t->n; i++) {
		if (w && t->s[w - 1].start == t->s[i].start) {
			if (!better(t, &t->s[w - 1], &t->s[i]))
				t->s[w - 1] = t->s[i];
			continue;
		}
		t->s[w++] = t->s[i];
	}
	t->n = w;
}

bool sf_symtab_vaddr(const struct sf_symtab *t, uint64_t off,
		     uint64_t *vaddr)
{
	if (!t || t->absolute)
		return false;
	for (size_t i = 0; i < t->nsegs; i++)
		if (off >= t->segs[i].off &&
		    off - t->segs[i].off < t->segs[i].size) {
			*vaddr = off - t->segs[i].off + t->segs[i].vaddr;
			return true;
		}
	return false;
}

const char *sf_symtab_lookup(const struct sf_symtab *t, uint64_t addr)
{
	if (!t || !t->n || (!t->absolute && !sf_symtab_vaddr(t, addr, &addr)))
		return NULL;
	size_t lo = 0, hi = t->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->s[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	const struct sym *s = &t->s[lo - 1];
	if (addr >= s->end)
		return NULL;
	return t->names + s->name;
}

uint64_t sf_symtab_kernel_text(const struct sf_symtab *t)
{
	return t ? t->text : 0;
}

void sf_symtab_free(struct sf_symtab *t)
{
	if (!t)
		return;
	free(t->s);
	free(t->names);
	free(t->segs);
	free(t->source);
	free(t);
}

const char *sf_symtab_source(const struct sf_symtab *t)
{
	return t ? t->source : NULL;
}

/* ----- ELF ----- */

/* The GNU build-id of `elf` into out (at most 20 bytes); its length. */
static size_t elf_build_id(Elf *elf, unsigned char out[20])
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		if (!d)
			continue;
		size_t off = 0, noff, doff;
		GElf_Nhdr nh;
		while ((off = gelf_getnote(d, off, &nh, &noff, &doff)) > 0) {
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    !memcmp((char *)d->d_buf + noff, "GNU", 4)) {
				size_t n = nh.n_descsz < 20 ? nh.n_descsz : 20;
				memcpy(out, (char *)d->d_buf + doff, n);
				return n;
			}
		}
	}
	return 0;
}

size_t sf_elf_build_id(const char *path, unsigned char out[20])
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t n = 0;

	if (fd < 0)
		return 0;
	elf_version(EV_CURRENT);
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && elf_kind(elf) == ELF_K_ELF)
		n = elf_build_id(elf, out);
	if (elf)
		elf_end(elf);
	close(fd);
	return n;
}

static bool has_symtab(Elf *elf)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB)
			return true;
	return false;
}

static Elf_Scn *section_named(Elf *elf, size_t shstrndx, const char *name,
			      GElf_Shdr *out)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, out))
			continue;
		const char *n = elf_strptr(elf, shstrndx, out->sh_name);
		if (n && !strcmp(n, name))
			return scn;
	}
	return NULL;
}

static int load_syms(struct sf_symtab *t, Elf *elf, Elf_Scn *scn,
		     const GElf_Shdr *sh, size_t shstrndx)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t nsyms = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;
	size_t nsec = 0;

	if (!d || elf_getshdrnum(elf, &nsec))
		return 0;
	/* per section: does its name contain "text" (perf's
	 * elf_sec__is_text), is it loaded (SHF_ALLOC)? */
	bool *text = calloc(2 * (nsec ? nsec : 1), sizeof(bool));
	if (!text)
		return -1;
	bool *alloc = text + nsec;
	for (size_t i = 0; i < nsec; i++) {
		GElf_Shdr s;
		Elf_Scn *x = elf_getscn(elf, i);
		const char *n;
		if (!x || !gelf_getshdr(x, &s))
			continue;
		alloc[i] = (s.sh_flags & SHF_ALLOC) != 0;
		if ((n = elf_strptr(elf, shstrndx, s.sh_name)))
			text[i] = strstr(n, "text") != NULL;
	}
	for (size_t i = 0; i < nsyms; i++) {
		GElf_Sym s;
		if (!gelf_getsym(d, (int)i, &s))
			continue;
		int type = GELF_ST_TYPE(s.st_info);
		int vis = GELF_ST_VISIBILITY(s.st_other);
		/* perf's elf_sym__is_label: assembler labels count too,
		 * but only in text sections */
		bool label = type == STT_NOTYPE && s.st_shndx != SHN_ABS &&
			     vis != STV_HIDDEN && vis != STV_INTERNAL;
		/* perf's elf_sym__filter keeps data objects too (one
		 * table for both since perf 4.17): a "return address" read
		 * from a wrong slot may point into .rodata */
		if ((type != STT_FUNC && type != STT_GNU_IFUNC &&
		     type != STT_OBJECT && !label) ||
		    !s.st_name || s.st_shndx == SHN_UNDEF ||
		    s.st_shndx >= nsec || !alloc[s.st_shndx] ||
		    (label && !text[s.st_shndx]))
			continue;
		const char *name = elf_strptr(elf, sh->sh_link, s.st_name);
		if (!name || !*name)
			continue;
		if (add_sym(t, s.st_value, s.st_size, name, strlen(name),
			    GELF_ST_BIND(s.st_info), false)) {
			free(text);
			return -1;
		}
	}
	free(text);
	return 0;
}

/* "name@plt" for the .rela.plt entries (perf's
 * dso__synthesize_plt_symbols, x86-64 layout: a 16-byte header in .plt,
 * none in .plt.sec, 16-byte entries). */
static int load_plt(struct sf_symtab *t, Elf *elf, size_t shstrndx)
{
	GElf_Shdr rsh, psh, dsh;
	Elf_Scn *rel = section_named(elf, shstrndx, ".rela.plt", &rsh);
	Elf_Scn *plt = section_named(elf, shstrndx, ".plt.sec", &psh);
	uint64_t hdr = 0;

	if (!plt) {
		plt = section_named(elf, shstrndx, ".plt", &psh);
		hdr = 16;
	}
	if (!rel || !plt || rsh.sh_type != SHT_RELA)
		return 0;
	Elf_Scn *dyn = elf_getscn(elf, rsh.sh_link);
	if (!dyn || !gelf_getshdr(dyn, &dsh))
		return 0;
	Elf_Data *rd = elf_getdata(rel, NULL), *dd = elf_getdata(dyn, NULL);
	if (!rd || !dd || !rsh.sh_entsize)
		return 0;
	size_t n = rsh.sh_size / rsh.sh_entsize;
	char buf[512];
	for (size_t i = 0; i < n; i++) {
		GElf_Rela r;
		GElf_Sym s;
		if (!gelf_getrela(rd, (int)i, &r) ||
		    !gelf_getsym(dd, (int)GELF_R_SYM(r.r_info), &s))
			continue;
		const char *name = elf_strptr(elf, dsh.sh_link, s.st_name);
		if (!name)
			continue;
		/* perf demangles the name, then appends "@plt" */
		char *dem = sf_demangle_perf(name);
		int len = snprintf(buf, sizeof(buf), "%s@plt",
				   dem ? dem : name);
		free(dem);
		if (len < 0 || (size_t)len >= sizeof(buf))
			continue;
		if (add_sym(t, psh.sh_addr + hdr + i * 16, 16, buf,
			    (size_t)len, STB_GLOBAL, false))
			return -1;
	}
	return 0;
}

static int load_segs(struct sf_symtab *t, Elf *elf)
{
	size_t n;

	if (elf_getphdrnum(elf, &n))
		return 0;
	t->segs = calloc(n ? n : 1, sizeof(*t->segs));
	if (!t->segs)
		return -1;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		t->segs[t->nsegs++] = (struct seg){ ph.p_offset, ph.p_vaddr,
						    ph.p_filesz };
	}
	return 0;
}

struct cand {
	int fd;
	Elf *elf;
};

static void cand_close(struct cand *c)
{
	if (c->elf)
		elf_end(c->elf);
	if (c->fd >= 0)
		close(c->fd);
	c->elf = NULL;
	c->fd = -1;
}

static bool cand_open(struct cand *c, const char *path,
		      const unsigned char *bid, size_t bid_len)
{
	c->fd = open(path, O_RDONLY | O_CLOEXEC);
	c->elf = NULL;
	if (c->fd < 0)
		return false;
	c->elf = elf_begin(c->fd, ELF_C_READ_MMAP, NULL);
	if (!c->elf || elf_kind(c->elf) != ELF_K_ELF) {
		cand_close(c);
		return false;
	}
	if (bid_len) {
		unsigned char b[20];
		size_t n = elf_build_id(c->elf, b);
		if (n != bid_len || memcmp(b, bid, n)) {
			cand_close(c);
			return false;
		}
	}
	return true;
}

struct sf_symtab *sf_symtab_elf(const char *const *paths, size_t n,
				const unsigned char *build_id, size_t bid_len)
{
	struct cand syms = { -1, NULL }, runtime = { -1, NULL };
	struct sf_symtab *t = NULL;
	size_t shstrndx;

	elf_version(EV_CURRENT);
	const char *syms_path = NULL;
	for (size_t i = 0; i < n && !syms.elf; i++) {
		struct cand c;
		if (!cand_open(&c, paths[i], build_id, bid_len))
			continue;
		if (has_symtab(c.elf)) {
			syms = c;
			syms_path = paths[i];
		} else if (!runtime.elf) {
			runtime = c;
		} else {
			cand_close(&c);
		}
	}
	struct cand *use = syms.elf ? &syms : &runtime;
	if (!use->elf || elf_getshdrstrndx(use->elf, &shstrndx))
		goto out;
	t = calloc(1, sizeof(*t));
	if (!t || (syms_path && !(t->source = strdup(syms_path)))) {
		free(t);
		t = NULL;
		goto out;
	}
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	int want = syms.elf ? SHT_SYMTAB : SHT_DYNSYM;
	int rc = 0;
	while (!rc && (scn = elf_nextscn(use->elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == (unsigned)want)
			rc = load_syms(t, use->elf, scn, &sh, shstrndx);
	/* the PLT and the segments come from the file that runs when there
	 * is one (a separate debug file's .plt is NOBITS) */
	struct cand *rt = runtime.elf ? &runtime : use;
	size_t rt_shstrndx = shstrndx;
	if (rt != use && elf_getshdrstrndx(rt->elf, &rt_shstrndx))
		rt = use;
	if (!rc)
		rc = load_plt(t, rt->elf, rt == use ? shstrndx : rt_shstrndx);
	if (!rc)
		rc = load_segs(t, rt->elf);
	if (rc) {
		sf_symtab_free(t);
		t = NULL;
		goto out;
	}
	finish(t);
out:
	cand_close(&syms);
	cand_close(&runtime);
	return t;
}

/* ----- kallsyms ----- */

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' :
	       c >= 'a' && c <= 'f' ? c - 'a' + 10 :
	       c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* One line "ADDR TYPE NAME[\t[MODULE]]" of kallsyms into t. */
static int kallsyms_line(struct sf_symtab *t, char *l, size_t n,
			 bool *nonzero)
{
	uint64_t a = 0;
	size_t i = 0;
	int d;

	while (i < n && (d = hexval(l[i])) >= 0) {
		a = a << 4 | (uint64_t)d;
		i++;
	}
	if (!i || i + 3 > n || l[i] != ' ' || l[i + 2] != ' ')
		return 0;
	char type = (char)toupper((unsigned char)l[i + 1]);
	if (type != 'T' && type != 'W' && type != 'D' && type != 'B')
		return 0;
	char *name = l + i + 3;
	size_t nl = n - i - 3;
	/* "name\t[module]": perf keeps the name; the module marks where
	 * the kernel's symbols end (finish()) */
	char *tab = memchr(name, '\t', nl);
	if (tab)
		nl = (size_t)(tab - name);
	if (a)
		*nonzero = true;
	if (nl == 5 && !memcmp(name, "_text", 5) && !t->text)
		t->text = a;
	return add_sym(t, a, 0, name, nl, STB_GLOBAL, tab != NULL);
}

struct sf_symtab *sf_symtab_kallsyms(const char *path)
{
	FILE *f = fopen(path, "re");
	struct sf_symtab *t;
	char buf[65536];
	size_t have = 0, got;
	bool nonzero = false;
	int rc = 0;

	if (!f)
		return NULL;
	t = calloc(1, sizeof(*t));
	if (!t) {
		fclose(f);
		return NULL;
	}
	t->kallsyms = true;
	t->absolute = true;
	/* whole lines out of 64 KiB reads (a line longer than that is
	 * dropped: no symbol name is) */
	while (!rc && (got = fread(buf + have, 1, sizeof(buf) - have, f)) > 0) {
		have += got;
		size_t start = 0;
		char *nl;
		while (!rc && (nl = memchr(buf + start, '\n', have - start))) {
			rc = kallsyms_line(t, buf + start,
					   (size_t)(nl - buf) - start, &nonzero);
			start = (size_t)(nl - buf) + 1;
		}
		if (!start && have == sizeof(buf))
			have = 0;
		memmove(buf, buf + start, have - start);
		have -= start;
	}
	if (!rc && have)
		rc = kallsyms_line(t, buf, have, &nonzero);
	fclose(f);
	if (rc || !nonzero) {
		sf_symtab_free(t);
		return NULL;
	}
	finish(t);
	return t;
}

struct sf_symtab *sf_symtab_perfmap(const char *path)
{
	struct stat sb;
	FILE *f = fopen(path, "re");
	struct sf_symtab *t;
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;

	if (!f)
		return NULL;
	if (fstat(fileno(f), &sb) || (sb.st_uid && sb.st_uid != geteuid()) ||
	    !(t = calloc(1, sizeof(*t)))) {
		fclose(f);
		return NULL;
	}
	t->absolute = true;
	while ((n = getline(&line, &cap, f)) > 0) {
		char *p = line, *e;
		unsigned long long start = strtoull(p, &e, 16);
		if (e == p || *e != ' ')
			continue;
		p = e + 1;
		unsigned long long size = strtoull(p, &e, 16);
		if (e == p || *e != ' ')
			continue;
		p = e + 1;
		size_t nl = strcspn(p, "\n");
		if (add_sym(t, start, size, p, nl, STB_GLOBAL, false)) {
			free(line);
			fclose(f);
			sf_symtab_free(t);
			return NULL;
		}
	}
	free(line);
	fclose(f);
	finish(t);
	return t;
}

size_t sf_kernel_build_id(unsigned char out[20])
{
	unsigned char buf[4096];
	int fd = open("/sys/kernel/notes", O_RDONLY | O_CLOEXEC);
	ssize_t n;
	size_t off = 0;

	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf));
	close(fd);
	if (n <= 0)
		return 0;
	while (off + 12 <= (size_t)n) {
		uint32_t namesz, descsz, type;
		memcpy(&namesz, buf + off, 4);
		memcpy(&descsz, buf + off + 4, 4);
		memcpy(&type, buf + off + 8, 4);
		size_t name_off = off + 12;
		size_t desc_off = name_off + ((namesz + 3u) & ~3u);
		size_t next = desc_off + ((descsz + 3u) & ~3u);
		if (next > (size_t)n || desc_off > (size_t)n)
			break;
		if (type == NT_GNU_BUILD_ID && namesz == 4 &&
		    !memcmp(buf + name_off, "GNU", 4)) {
			size_t k = descsz < 20 ? descsz : 20;
			memcpy(out, buf + desc_off, k);
			return k;
		}
		off = next;
	}
	return 0;
}

/* ----- C++ names ----- */

typedef char *(*cxa_demangle_fn)(const char *, char *, size_t *, int *);
static cxa_demangle_fn cxa_demangle;
static pthread_once_t cxa_once = PTHREAD_ONCE_INIT;

static void cxa_load(void)
{
	void *h = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);

	if (h)
		*(void **)&cxa_demangle = dlsym(h, "__cxa_demangle");
}

static bool opens(char c)
{
	return c == '(' || c == '<' || c == '[';
}

static bool closes(char c)
{
	return c == ')' || c == '>' || c == ']';
}

/* Is s[i] the '<' or '>' of an operator name ("operator<",
 * "operator>>=", "operator->", "operator<=>"), not a bracket?  After the
 * operator's name a template's '<' may follow at once
 * ("operator>><char>"): the longest operator token decides. */
static bool in_operator(const char *s, size_t i)
{
	static const char *const ops[] = { "<=>", "<<=", ">>=", "->*", "<<",
					   ">>", "<=", ">=", "->", "<", ">" };
	size_t k = i;

	while (k && strchr("<>=-*", s[k - 1]))
		k--;
	if (k < 8 || memcmp(s + k - 8, "operator", 8))
		return false;
	for (size_t j = 0; j < sizeof(ops) / sizeof(*ops); j++) {
		size_t n = strlen(ops[j]);
		if (!strncmp(s + k, ops[j], n))
			return i < k + n;
	}
	return false;
}

/* Does the blank at s[i] end an operator's name ("operator new",
 * "operator<< <T>"), so that it separates no return type? */
static bool after_operator(const char *s, size_t i)
{
	size_t k = i;

	while (k && strchr("<>=!+-*/%^&|~,[]()", s[k - 1]))
		k--;
	return k >= 8 && !memcmp(s + k - 8, "operator", 8);
}

char *sf_demangle_perf(const char *sym)
{
	int status = 0;

	if (sym[0] != '_' || sym[1] != 'Z')
		return NULL;
	pthread_once(&cxa_once, cxa_load);
	if (!cxa_demangle)
		return NULL;
	char *d = cxa_demangle(sym, NULL, NULL, &status);
	if (status || !d) {
		free(d);
		return NULL;
	}
	/* special names ("non-virtual thunk to f()", "typeinfo for T"):
	 * libiberty prints the name inside with its parameters */
	static const char *const special[] = {
		"non-virtual thunk to ", "virtual thunk to ",
		"covariant return thunk to ", "transaction clone for ",
		"non-transaction clone for ", "typeinfo for ",
		"typeinfo name for ", "typeinfo fn for ", "vtable for ",
		"VTT for ", "construction vtable for ", "guard variable for ",
		"reference temporary #", "TLS init function for ",
		"TLS wrapper function for ", "hidden alias for ",
	};
	for (size_t i = 0; i < sizeof(special) / sizeof(*special); i++)
		if (!strncmp(d, special[i], strlen(special[i])))
			return d;
	size_t n = strlen(d);
	/* a function: "[ret ]name(params)[ cv-ref]"; find the parameter
	 * list, the last top-level "(...)" */
	size_t e = n;
	while (e && (d[e - 1] == ' ' || d[e - 1] == '&' ||
		     (e >= 5 && !memcmp(d + e - 5, "const", 5)) ||
		     (e >= 8 && !memcmp(d + e - 8, "volatile", 8)))) {
		if (d[e - 1] == ' ' || d[e - 1] == '&')
			e--;
		else if (!memcmp(d + e - 5, "const", 5))
			e -= 5;
		else
			e -= 8;
	}
	if (!e || d[e - 1] != ')')
		return d;   /* not a function (a vtable, a variable) */
	int depth = 0;
	size_t open = 0;
	bool found = false;
	for (size_t i = e; i-- > 0;) {
		char c = d[i];
		if ((c == '<' || c == '>') && in_operator(d, i))
			continue;
		if (closes(c)) {
			depth++;
		} else if (opens(c)) {
			if (--depth == 0 && c == '(') {
				open = i;
				found = true;
				break;
			}
		}
	}
	if (!found)
		return d;
	/* "operator()" is a name, its "()" no parameter list */
	d[open] = 0;
	/* the return type of a template function: before the last space
	 * at depth 0, unless that space belongs to an operator's name */
	depth = 0;
	size_t cut = 0;
	for (size_t i = 0; i < open; i++) {
		char c = d[i];
		if ((c == '<' || c == '>') && in_operator(d, i))
			continue;
		if (opens(c))
			depth++;
		else if (closes(c))
			depth--;
		else if (c == ' ' && depth == 0 && !after_operator(d, i))
			cut = i + 1;
	}
	if (cut)
		memmove(d, d + cut, strlen(d + cut) + 1);
	return d;
}
