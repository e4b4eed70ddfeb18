/*
 * plt.c - "name@plt" for a pc inside a PLT entry (x86-64).  An entry is an
 * indirect jump through a GOT slot (after an optional endbr64 and bnd
 * prefix): "jmp *DISP(%rip)", in .plt (lazy binding, the first entry is
 * the resolver's), .plt.sec (IBT) or .plt.got (bound at load).  The slot's
 * relocation, in .rela.plt or .rela.dyn, names the symbol, as objdump
 * labels the entries; an IRELATIVE slot, the function at its addend.  A
 * static executable's .plt is a table of 8-byte IRELATIVE stubs.  An
 * address namer (docs/capture-sources.md), asked before the symbols: a
 * PLT entry has no symbol of its own.
 */
#include "capture_int.h"

#include <gelf.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* The entries of a section of `type` records, as libelf reads them (a
 * header's sh_entsize may lie: it neither sets the loop's length nor
 * skips records) */
static size_t n_records(Elf *elf, const Elf_Data *d, Elf_Type type)
{
	size_t es = gelf_fsize(elf, type, 1, EV_CURRENT);

	return d && es ? d->d_size / es : 0;
}

/* How a symbol at a resolver's address ranks as the entry's name: its
 * binding first (GLOBAL, WEAK, LOCAL), then the IFUNC (the function a
 * caller named) over a FUNC there (its resolver, where the two share
 * the address in a file's own .symtab) */
static int func_rank(const GElf_Sym *sym)
{
	return 2 * sfc__binding_rank(sym) +
	       (GELF_ST_TYPE(sym->st_info) == STT_GNU_IFUNC);
}

/* The function at `value` in the symbol table of type `type` (.dynsym,
 * .symtab): of the FUNC and IFUNC symbols with a name, the best by
 * func_rank, the first in the table among equals, as libdwfl names an
 * address where aliases start; NULL if none. */
static const char *func_at(Elf *elf, Elf64_Word type, GElf_Addr value)
{
	Elf_Scn *scn = NULL;
	const char *best = NULL;
	int rank = -1;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != type)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		size_t n = n_records(elf, d, ELF_T_SYM);
		for (size_t i = 1; i < n; i++) {
			GElf_Sym sym;
			if (!gelf_getsym(d, (int)i, &sym))
				break;
			if (sym.st_value != value ||
			    sym.st_shndx == SHN_UNDEF ||
			    (GELF_ST_TYPE(sym.st_info) != STT_FUNC &&
			     GELF_ST_TYPE(sym.st_info) != STT_GNU_IFUNC) ||
			    func_rank(&sym) <= rank)
				continue;
			const char *nm = elf_strptr(elf, sh.sh_link,
						    sym.st_name);
			if (nm && *nm) {
				best = nm;
				rank = func_rank(&sym);
			}
		}
		break;
	}
	return best;
}

/*
 * The name for the entry whose GOT slot is `slot`, in buf: its
 * relocation's symbol.  A slot filled by R_X86_64_IRELATIVE has no symbol
 * (objdump labels it "*ABS*+0xADDEND@plt"): its addend is the IFUNC
 * resolver's address, the function a caller named, so the entry is named
 * after the function there (memset@plt), or as objdump labels it where no
 * symbol is there.  NULL if no relocation fills the slot.
 */
static const char *slot_name(Elf *elf, GElf_Addr slot, char *buf,
			     size_t size)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		/* the symbols, which an IRELATIVE slot does without */
		Elf_Scn *symscn = elf_getscn(elf, sh.sh_link);
		GElf_Shdr symsh;
		Elf_Data *sd = symscn && gelf_getshdr(symscn, &symsh) ?
			       elf_getdata(symscn, NULL) : NULL;
		size_t n = n_records(elf, d, ELF_T_RELA);
		for (size_t i = 0; i < n; i++) {
			GElf_Rela r;
			GElf_Sym sym;
			const char *nm = NULL;
			if (!gelf_getrela(d, (int)i, &r))
				break;
			if (r.r_offset != slot)
				continue;
			if (GELF_R_TYPE(r.r_info) == R_X86_64_IRELATIVE) {
				uint64_t at = (uint64_t)r.r_addend;
				nm = func_at(elf, SHT_DYNSYM, at);
				if (!nm)
					nm = func_at(elf, SHT_SYMTAB, at);
				if (nm)
					snprintf(buf, size, "%s@plt", nm);
				else if (at)
					snprintf(buf, size,
						 "*ABS*+0x%" PRIx64 "@plt", at);
				else
					snprintf(buf, size, "*ABS*@plt");
				return buf;
			}
			if (GELF_R_SYM(r.r_info) && sd &&
			    gelf_getsym(sd, (int)GELF_R_SYM(r.r_info), &sym))
				nm = elf_strptr(elf, symsh.sh_link, sym.st_name);
			if (!nm || !*nm)
				return NULL;
			snprintf(buf, size, "%s@plt", nm);
			return buf;
		}
	}
	return NULL;
}

/* Whether a PLT section without an entry size is a table of 8-byte
 * stubs, "jmp *DISP(%rip)" and a 2-byte nop each (a static executable's
 * IRELATIVE stubs, which the linker gives no sh_entsize): its first two
 * 8-byte places both begin with that jump.  A lazy .plt's first entry
 * (push, then jmp at byte 6) and a 16-byte .plt.sec entry (endbr64 first)
 * do not. */
static bool stub_table(const Elf_Data *d)
{
	const unsigned char *p = d->d_buf;

	return d->d_size >= 16 && p[0] == 0xff && p[1] == 0x25 &&
	       p[8] == 0xff && p[9] == 0x25;
}

const char *sfc__plt_name(Elf *elf, uint64_t addr, char *buf, size_t size)
{
#if defined(__x86_64__)
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	if (!elf || elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    addr < sh.sh_addr || addr >= sh.sh_addr + sh.sh_size)
			continue;
		const char *sn = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!sn || strncmp(sn, ".plt", 4) || (sn[4] && sn[4] != '.'))
			return NULL;
		Elf_Data *d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf)
			return NULL;
		uint64_t es = sh.sh_entsize ? sh.sh_entsize :
			      stub_table(d) ? 8 : 16;
		uint64_t at = sh.sh_addr + (addr - sh.sh_addr) / es * es;
		if (at - sh.sh_addr >= d->d_size)
			return NULL;
		const unsigned char *p =
			(const unsigned char *)d->d_buf + (at - sh.sh_addr);
		size_t avail = d->d_size - (at - sh.sh_addr), o = 0;
		if (avail >= 4 && !memcmp(p, "\xf3\x0f\x1e\xfa", 4))
			o = 4;                          /* endbr64 */
		if (o < avail && p[o] == 0xf2)          /* bnd */
			o++;
		if (o + 6 > avail || p[o] != 0xff || p[o + 1] != 0x25)
			return NULL;
		int32_t disp;
		memcpy(&disp, p + o + 2, 4);
		return slot_name(elf, at + o + 6 + (int64_t)disp, buf, size);
	}
#else
	(void)elf;
	(void)addr;
	(void)buf;
	(void)size;
#endif
	return NULL;
}

/* A name@plt is cut to 299 bytes */
#define PLT_NAME_MAX 300

static int plt_lookup(struct sfc_session *s, struct sf_ctx *ctx, void *state,
		      struct sfc_naming *a, struct sf_frame *f)
{
	const char *pn = a->elf ? sfc__plt_name(a->elf, a->rel, a->buf,
						PLT_NAME_MAX) : NULL;

	/* no offset: an entry is no function */
	if (pn)
		f->name = pn;
	return pn != NULL;
}

const struct sfc_namer sfc_namer_plt = {
	.name = "plt",
	.in_module = true,
	.lookup = plt_lookup,
};
