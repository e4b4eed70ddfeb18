/* cfi.c - see cfi.h. */
#include "cfi.h"

#include <elfutils/libdw.h>
#include <stdlib.h>

bool sf_cfi_outermost(Dwfl *dwfl, uint64_t pc)
{
	Dwfl_Module *mod = dwfl_addrmodule(dwfl, pc);
	Dwarf_CFI *cfis[2];
	Dwarf_Addr bias[2];

	if (!mod)
		return false;
	cfis[0] = dwfl_module_eh_cfi(mod, &bias[0]);
	cfis[1] = dwfl_module_dwarf_cfi(mod, &bias[1]);
	for (int i = 0; i < 2; i++) {
		Dwarf_Frame *fr;
		Dwarf_Op mem[3], *ops;
		size_t nops;
		if (!cfis[i] || dwarf_cfi_addrframe(cfis[i], pc - bias[i], &fr))
			continue;
		int ra = dwarf_frame_info(fr, NULL, NULL, NULL);
		/* libdw.h: *nops 0 with *ops == ops_mem is "undefined" */
		bool undef = ra >= 0 &&
			     !dwarf_frame_register(fr, ra, mem, &ops, &nops) &&
			     ops == mem && !nops;
		free(fr);
		return undef;
	}
	return false;
}
