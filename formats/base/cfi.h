/*
 * cfi.h - what the DWARF call frame information says about an address,
 * for the two unwinders of copied stacks: sfcapture's (sampler-core/
 * unwind.c) and the perf.data reader's (formats/perf/perfdata_unwind.c).
 */
#ifndef SF_CFI_H
#define SF_CFI_H

#include <elfutils/libdwfl.h>
#include <stdbool.h>
#include <stdint.h>

/* Does the CFI of the module holding pc (.eh_frame first, then
 * .debug_frame) mark pc's frame as the outermost one, its return address
 * rule "undefined" (_start, clone's child, a thread's start routine)?
 * false when no module or no CFI covers pc. */
bool sf_cfi_outermost(Dwfl *dwfl, uint64_t pc);

/* Does the CFI of pc's module (.eh_frame, else .debug_frame) cover pc?
 * false when no module covers it. */
bool sf_cfi_covers(Dwfl *dwfl, uint64_t pc);

#endif
