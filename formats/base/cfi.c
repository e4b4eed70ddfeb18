/* cfi.c - see cfi.h. */
#include "cfi.h"

#include <elfutils/libdw.h>
#include <stdlib.h>

/* The CFI row of pc (to be freed), NULL where no module or no CFI
 * covers it. */
static Dwarf_Frame *cfi_frame(Dwfl *dwfl, uint64_t pc)
{
	Dwfl_Module *mod = dwfl_addrmodule(dwfl, pc);
	Dwarf_CFI *cfi;
	Dwarf_Addr bias;

	if (!mod)
		return NULL;
	for (int i = 0; i < 2; i++) {
		Dwarf_Frame *fr;
		/* .debug_frame only where .eh_frame has no answer: it loads
		 * the module's debug file, all its sections inflated */
		cfi = i ? dwfl_module_dwarf_cfi(mod, &bias) :
			  dwfl_module_eh_cfi(mod, &bias);
		if (cfi && !dwarf_cfi_addrframe(cfi, pc - bias, &fr))
			return fr;
	}
	return NULL;
}

bool sf_cfi_outermost(Dwfl *dwfl, uint64_t pc)
{
	Dwarf_Frame *fr = cfi_frame(dwfl, pc);
	Dwarf_Op mem[3], *ops;
	size_t nops;

	if (!fr)
		return false;
	int ra = dwarf_frame_info(fr, NULL, NULL, NULL);
	/* libdw.h: *nops 0 with *ops == ops_mem is "undefined" */
	bool undef = ra >= 0 &&
		     !dwarf_frame_register(fr, ra, mem, &ops, &nops) &&
		     ops == mem && !nops;
	free(fr);
	return undef;
}

bool sf_cfi_covers(Dwfl *dwfl, uint64_t pc)
{
	Dwarf_Frame *fr = cfi_frame(dwfl, pc);

	free(fr);
	return fr != NULL;
}
