/*
 * name.c - the table of address namers (name.h), and each role called
 * over it.  Interning and emit reach the namers only through here, so a
 * new namer is its own file and one row of SFC_NAMERS.
 *
 * Symbolization runs once per unique address at the end: the rows are
 * asked in table order until one names the address.  Between the rows
 * that name code in no file (the JIT maps) and those that need the
 * address's module (PLT, symbols), the module step places it in its
 * module once; an address no row names is "[unknown] (module+0xOFFSET)",
 * or "[unknown] (0xPC)" outside every module.
 */
#include "capture_int.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SFC_NAM_ROW(name) &sfc_namer_##name,
const struct sfc_namer *const sfc__namers[SFC_NNAM] = {
	SFC_NAMERS(SFC_NAM_ROW)
};
#undef SFC_NAM_ROW

int sfc__name_poll(struct sfc_session *s, struct sf_ctx *ctx)
{
	for (size_t i = 0; i < SFC_NNAM; i++)
		if (sfc__namers[i]->poll && sfc__namers[i]->poll(s, ctx))
			return -1;
	return 0;
}

uint32_t sfc__name_tag(const struct sfc_session *s, uint64_t pc)
{
	uint32_t tag = 0;

	for (size_t i = 0; i < SFC_NNAM && !tag; i++)
		if (sfc__namers[i]->tag)
			tag = sfc__namers[i]->tag(s, pc);
	return tag;
}

void sfc__name_close(struct sfc_session *s)
{
	for (size_t i = 0; i < SFC_NNAM; i++)
		if (sfc__namers[i]->close)
			sfc__namers[i]->close(s);
}

int sfc__name_push(struct sfc_session *s, struct sf_ctx *ctx,
		   struct sf_profile *p, const sf_frame_id *fid, uint32_t addr,
		   sf_stack_id *st)
{
	int rc = sf_profile_stack_push(p, ctx, *st, fid[addr], st);

	for (size_t i = 0; i < SFC_NNAM && !rc; i++)
		if (sfc__namers[i]->push)
			rc = sfc__namers[i]->push(s, ctx, p, addr, st);
	return rc;
}

static const char *base_name(const char *path)
{
	const char *b = strrchr(path, '/');

	return b ? b + 1 : path;
}

/* The property "image:PATH" = "0xSTART 0xEND BUILD-ID" for each module a
 * frame names, once (the first image that mapped PATH wins after an
 * exec): what macOS sample lists under "Binary Images", and what a
 * symbol server needs to find the exact file again.  The build id is "?"
 * when the file has none. */
static int note_image(struct sf_profile *p, struct sf_ctx *ctx,
		      Dwfl_Module *mod, const char *path, Dwarf_Addr start,
		      Dwarf_Addr end)
{
	char key[4200], val[64 + 2 * 64 + 1];
	const unsigned char *bits = NULL;
	GElf_Addr vaddr;
	int n;

	if ((size_t)snprintf(key, sizeof(key), "image:%s", path) >=
	    sizeof(key) || sf_profile_prop(p, key))
		return 0;
	int len = snprintf(val, sizeof(val), "0x%" PRIx64 " 0x%" PRIx64 " ",
			   (uint64_t)start, (uint64_t)end);
	n = dwfl_module_build_id(mod, &bits, &vaddr);
	if (n <= 0 || n > 64)
		val[len++] = '?';
	for (int i = 0; n > 0 && n <= 64 && i < n; i++)
		len += snprintf(val + len, sizeof(val) - (size_t)len, "%02x",
				bits[i]);
	val[len] = 0;
	return sf_profile_set_prop(p, ctx, key, val);
}

/* The module step: a->mod's path, the address relative to its ELF file
 * and its image property into f, and the file's shared entry (symidx.c)
 * with where its DWARF is read; a->mod left NULL when pc lies outside
 * the module's range (the address is then in no module). */
static int place(struct sfc_session *s, struct sf_profile *p,
		 struct sf_ctx *ctx, struct sfc_naming *a, struct sf_frame *f)
{
	Dwarf_Addr start = 0, end = 0, bias = 0;
	const char *mname = NULL;

	if (a->mod)
		mname = dwfl_module_info(a->mod, NULL, &start, &end, NULL,
					 NULL, NULL, NULL);
	if (a->mod && (a->pc < start || a->pc >= end))
		a->mod = NULL;
	if (!a->mod)
		return 0;
	a->rel = a->pc - start;
	if ((a->elf = dwfl_module_getelf(a->mod, &bias)))
		a->rel = a->pc - bias;
	a->bias = bias;
	a->dmod = a->mod;
	/* what depends only on the file is asked of the entry every
	 * process mapping it shares: the symbols row's index, the DWARF
	 * (lines, inlined scopes) read once in the file's own Dwfl */
	if (a->mod != a->filemod) {
		a->filemod = a->mod;
		if (sfc__symidx_get(&s->head->symidx, a->mod, &a->file))
			return sf_error_nomem(ctx);
	}
	if (a->elf)
		a->dmod = sfc__symidx_dwarf(a->file, &s->head->cbs, a->mod,
					    bias, &a->dpc);
	f->module = mname;
	f->address = a->rel;
	if (mname)
		return note_image(p, ctx, a->mod, mname, start, end);
	return 0;
}

/* Address i into f: the first row that names it, else "[unknown]" */
static int name_one(struct sfc_session *s, struct sf_ctx *ctx,
		    struct sf_profile *p, void *const *state, uint32_t i,
		    struct sfc_naming *a, struct sf_frame *f)
{
	bool placed = false;
	int rc;

	a->pc = s->addrs[i].pc;
	a->addr = i;
	a->tag = s->addrs[i].tag;
	a->mod = s->addrs[i].mod;
	a->elf = NULL;
	a->rel = 0;
	a->bias = 0;
	a->dmod = NULL;
	a->dpc = a->pc;
	a->own = NULL;
	/* an address of an image replaced by exec keeps only the module it
	 * had when sampled */
	if (!a->mod && s->dwfl && s->addrs[i].gen == s->gen)
		a->mod = dwfl_addrmodule(s->dwfl, a->pc);
	for (size_t k = 0; k < SFC_NNAM; k++) {
		const struct sfc_namer *nm = sfc__namers[k];
		if (!nm->lookup)
			continue;
		if (nm->in_module && !placed) {
			placed = true;
			if ((rc = place(s, p, ctx, a, f)))
				return rc;
		}
		if (nm->in_module && !a->mod)
			continue;
		if ((rc = nm->lookup(s, ctx, state[k], a, f)))
			return rc < 0 ? rc : 0;
	}
	if (!placed && (rc = place(s, p, ctx, a, f)))
		return rc;
	if (a->mod)
		snprintf(a->buf, sizeof(a->buf),
			 "[unknown] (%s+0x%" PRIx64 ")",
			 f->module ? base_name(f->module) : "?", a->rel);
	else {
		snprintf(a->buf, sizeof(a->buf), "[unknown] (0x%" PRIx64 ")",
			 a->pc);
		f->address = a->pc;
	}
	f->name = a->buf;
	return 0;
}

/* With --source-lines, the file and line of an address in a module */
static void source_line(struct sfc_session *s, const struct sfc_naming *a,
			struct sf_frame *f)
{
	if (!s->o.source_lines || !a->dmod)
		return;
	Dwfl_Line *l = dwfl_module_getsrc(a->dmod, a->dpc);
	int line = 0, col = 0;
	const char *file = l ? dwfl_lineinfo(l, NULL, &line, &col, NULL,
					     NULL) : NULL;
	if (file) {
		f->file = file;
		f->line = line > 0 ? (uint32_t)line : 0;
		f->column = col > 0 ? (uint32_t)col : 0;
	}
}

int sfc__symbolize(struct sfc_session *s, struct sf_ctx *ctx,
		   struct sf_profile *p, sf_frame_id *out)
{
	void *state[SFC_NNAM] = { 0 };
	struct sfc_naming a = { 0 };
	size_t began;
	int rc = 0;

	for (began = 0; began < SFC_NNAM; began++)
		if (sfc__namers[began]->begin &&
		    (rc = sfc__namers[began]->begin(s, ctx, &state[began])))
			break;
	for (size_t i = 0; i < s->naddrs && !rc; i++) {
		struct sf_frame f;
		sf_frame_init(&f);
		if (i == SFC_ADDR_TRUNCATED) {
			/* only when some stack uses it */
			out[i] = 0;
			if (!s->st.truncated)
				continue;
			f.name = "[truncated]";
			rc = sf_profile_frame(p, ctx, &f, &out[i]);
			continue;
		}
		if (!(rc = name_one(s, ctx, p, state, (uint32_t)i, &a, &f))) {
			source_line(s, &a, &f);
			rc = sf_profile_frame(p, ctx, &f, &out[i]);
		}
		for (size_t k = 0; k < SFC_NNAM && !rc; k++)
			if (sfc__namers[k]->after)
				rc = sfc__namers[k]->after(s, ctx, p, &a, &f);
		free(a.own);
	}
	for (size_t k = 0; k < began; k++)
		if (sfc__namers[k]->end)
			sfc__namers[k]->end(s, state[k]);
	return rc;
}
