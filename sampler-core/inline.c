/*
 * inline.c - inlined functions as frames of their own (the way pprof and
 * perf show them).  For an address whose module has DWARF, the scopes
 * holding it (libdw dwarf_getscopes) list the inlined subroutines from the
 * innermost out to the function the symbol names; each becomes a frame
 * marked inline (kind "inline", SF_FRAME_INLINE) above that function's.
 * Without DWARF nothing is added.
 */
#include "capture_int.h"
#include "source.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <stdlib.h>

int sfc__inline_names(Dwfl_Module *mod, uint64_t pc, const char **names,
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

int sfc__inline_frames(struct sfc_session *s, struct sf_ctx *ctx,
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
	int nn = sfc__inline_names(mod, pc, names, 64);
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

int sfc__push_addr(struct sfc_session *s, struct sf_ctx *ctx,
		   struct sf_profile *p, const sf_frame_id *fid, uint32_t addr,
		   sf_stack_id *st)
{
	int rc = sf_profile_stack_push(p, ctx, *st, fid[addr], st);

	if (rc || !s->inl || addr >= s->capinl)
		return rc;
	for (uint32_t k = 0; k < s->inl[addr].n && !rc; k++)
		rc = sf_profile_stack_push(p, ctx, *st,
					   s->inl_ids[s->inl[addr].off + k],
					   st);
	return rc;
}
