/*
 * inline.c - inlined functions as frames of their own (the way pprof and
 * perf show them).  For an address whose module has DWARF, the scopes
 * holding it (libdw dwarf_getscopes) list the inlined subroutines from the
 * innermost out to the function the symbol names; each becomes a frame
 * marked inline (kind "inline", SF_FRAME_INLINE) above that function's.
 * Without DWARF nothing is added.  An address namer
 * (docs/capture-sources.md) that names nothing itself: it adds frames
 * after the address's own, so it comes last.
 *
 * The DWARF is read where the module step says (a->dmod): the file
 * alone in a Dwfl of its own, shared by every process of the capture
 * (symidx.c), since libdwfl reads a debug file's DWARF whole and
 * decompressed, once per Dwfl (libc6-dbg's libc: a good part of a
 * second in every process of a build followed).
 */
#include "capture_int.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <stdlib.h>
#include <string.h>

/* The names of the inlined subroutines holding pc in mod (innermost
 * first, up to its function; "[inlined]" for one without a name), at
 * most max; how many (0 without DWARF). */
static int inline_names(Dwfl_Module *mod, uint64_t pc, const char **names,
			int max)
{
	Dwarf_Addr bias;
	Dwarf_Die *cu, *scopes = NULL;
	int n = 0;

	if (!mod || !(cu = dwfl_module_addrdie(mod, pc, &bias)))
		return 0;
	int ns = dwarf_getscopes(cu, pc - bias, &scopes);
	/* scopes[0] is the innermost; stop at the enclosing function */
	for (int i = 0; i < ns && n < max; i++) {
		int tag = dwarf_tag(&scopes[i]);
		if (tag == DW_TAG_subprogram)
			break;
		if (tag != DW_TAG_inlined_subroutine)
			continue;
		Dwarf_Attribute at;
		const char *name = dwarf_formstring(
			dwarf_attr_integrate(&scopes[i], DW_AT_name, &at));
		names[n++] = name ? name : "[inlined]";
	}
	free(scopes);
	return n;
}

/* The inlined subroutines holding pc (innermost ... up to its function,
 * `outer` its frame) as frames of their own, recorded for address index
 * `addr`; every address gets an entry (maybe empty). */
static int inline_frames(struct sfc_session *s, struct sf_ctx *ctx,
			 struct sf_profile *p, Dwfl_Module *mod, uint64_t pc,
			 const struct sf_frame *outer, uint32_t addr)
{
	const char *names[64];
	sf_frame_id ids[64];
	size_t n = 0;
	int rc = 0;

	/* one entry per address, zeroed: an address not looked up (the
	 * reserved [truncated]) has none */
	if (!s->inl) {
		if (!(s->inl = sf_calloc(s->naddrs, sizeof(*s->inl))))
			return sf_error_nomem(ctx);
		s->capinl = s->naddrs;
	}
	if (addr >= s->capinl)
		return 0;
	s->inl[addr].off = s->ninl_ids;
	s->inl[addr].n = 0;
	int nn = inline_names(mod, pc, names, 64);
	for (int i = 0; i < nn; i++) {
		struct sf_frame f;
		sf_frame_init(&f);
		f.name = names[i];
		f.module = outer->module;
		f.kind = "inline";
		f.flags = SF_FRAME_INLINE;
		if ((rc = sf_profile_frame(p, ctx, &f, &ids[n++])))
			break;
	}
	if (rc || !n)
		return rc;
	if (sf_grow(&s->inl_ids, &s->capinl_ids, s->ninl_ids + n,
		    sizeof(*s->inl_ids)))
		return sf_error_nomem(ctx);
	/* kept outermost first, the order they are pushed in */
	for (size_t i = n; i-- > 0;)
		s->inl_ids[s->ninl_ids++] = ids[i];
	s->inl[addr].n = (uint32_t)n;
	return 0;
}

static bool same_str(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* The source line of pc in mod: its file (NULL: none), line, column */
static const char *line_of(Dwfl_Module *mod, uint64_t pc, int *line,
			   int *col)
{
	Dwfl_Line *l = dwfl_module_getsrc(mod, pc);

	*line = *col = 0;
	return l ? dwfl_lineinfo(l, NULL, line, col, NULL, NULL) : NULL;
}

/* --verify-symbols: do the process's module at pc and the file's own
 * Dwfl at dpc give the same line and the same inlined functions? */
static void verify_dwarf(struct sfc_session *s, Dwfl_Module *mod, uint64_t pc,
			 Dwfl_Module *dmod, uint64_t dpc)
{
	const char *a[64], *b[64];
	int na = inline_names(mod, pc, a, 64);
	int nb = inline_names(dmod, dpc, b, 64);
	int la, ca, lb, cb;
	const char *fa = line_of(mod, pc, &la, &ca);
	const char *fb = line_of(dmod, dpc, &lb, &cb);
	bool same = na == nb && same_str(fa, fb) && la == lb && ca == cb;

	for (int i = 0; same && i < na; i++)
		same = !strcmp(a[i], b[i]);
	if (same)
		s->head->sym_verified++;
	else
		s->head->sym_mismatch++;
}

static int inline_after(struct sfc_session *s, struct sf_ctx *ctx,
			struct sf_profile *p, const struct sfc_naming *a,
			const struct sf_frame *f)
{
	if (s->o.verify_symbols && a->dmod && a->dmod != a->mod)
		verify_dwarf(s, a->mod, a->pc, a->dmod, a->dpc);
	return inline_frames(s, ctx, p, a->dmod, a->dpc, f, a->addr);
}

/* Push address addr's inlined frames onto *st (its own frame is there) */
static int inline_push(struct sfc_session *s, struct sf_ctx *ctx,
		       struct sf_profile *p, uint32_t addr, sf_stack_id *st)
{
	int rc = 0;

	if (!s->inl || addr >= s->capinl)
		return rc;
	for (uint32_t k = 0; k < s->inl[addr].n && !rc; k++)
		rc = sf_profile_stack_push(p, ctx, *st,
					   s->inl_ids[s->inl[addr].off + k],
					   st);
	return rc;
}

const struct sfc_namer sfc_namer_inlined = {
	.name = "inlined",
	.after = inline_after,
	.push = inline_push,
};
