/*
 * inline.c - inlined functions as frames of their own (the way pprof and
 * perf show them).  For an address whose module has DWARF, the scopes
 * holding it (libdw dwarf_getscopes) list the inlined subroutines from the
 * innermost out to the function the symbol names; each becomes a frame
 * marked inline (kind "inline", SF_FRAME_INLINE) above that function's.
 * Without DWARF nothing is added.  An address namer
 * (docs/capture-sources.md) that names nothing itself: it adds frames
 * after the address's own, so it comes last.
 */
#include "capture_int.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <stdlib.h>

/* The inlined subroutines holding pc (innermost ... up to its function,
 * `outer` its frame) as frames of their own, recorded for address index
 * `addr`; every address gets an entry (maybe empty). */
static int inline_frames(struct sfc_session *s, struct sf_ctx *ctx,
			 struct sf_profile *p, Dwfl_Module *mod, uint64_t pc,
			 const struct sf_frame *outer, uint32_t addr)
{
	Dwarf_Addr bias;
	Dwarf_Die *cu, *scopes = NULL;
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
	if (!mod || !(cu = dwfl_module_addrdie(mod, pc, &bias)))
		return 0;
	int ns = dwarf_getscopes(cu, pc - bias, &scopes);
	/* scopes[0] is the innermost; stop at the enclosing function */
	for (int i = 0; i < ns && n < 64; i++) {
		int tag = dwarf_tag(&scopes[i]);
		if (tag == DW_TAG_subprogram)
			break;
		if (tag != DW_TAG_inlined_subroutine)
			continue;
		Dwarf_Attribute at;
		const char *name = dwarf_formstring(
			dwarf_attr_integrate(&scopes[i], DW_AT_name, &at));
		struct sf_frame f;
		sf_frame_init(&f);
		f.name = name ? name : "[inlined]";
		f.module = outer->module;
		f.kind = "inline";
		f.flags = SF_FRAME_INLINE;
		if ((rc = sf_profile_frame(p, ctx, &f, &ids[n++])))
			break;
	}
	free(scopes);
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

static int inline_after(struct sfc_session *s, struct sf_ctx *ctx,
			struct sf_profile *p, const struct sfc_naming *a,
			const struct sf_frame *f)
{
	return inline_frames(s, ctx, p, a->mod, a->pc, f, a->addr);
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
