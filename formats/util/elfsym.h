/*
 * elfsym.h - the symbols of an ELF file or of /proc/kallsyms, chosen
 * and sized the way Linux perf (tools/perf/util/symbol-elf.c, symbol.c)
 * chooses them, so that a reader resolving addresses names frames as
 * `perf script` prints them.
 *
 * Why not libdwfl's dwfl_module_addrname (sampler-core uses it): perf has
 * its own rules, and its names are the reference the perf.data reader is
 * compared against:
 *   - the symbol file: the first of the candidates (debug files, build-id
 *     caches, the file itself) that has a .symtab, else the .dynsym of the
 *     first that opens; a file whose build-id differs from the recorded
 *     one is skipped;
 *   - functions (STT_FUNC, STT_GNU_IFUNC) and data objects (STT_OBJECT)
 *     with a name, defined in a loaded section, and assembler labels
 *     (STT_NOTYPE, not hidden) in a section whose name contains "text";
 *   - "name@plt" for each .rela.plt entry, placed in .plt.sec or .plt;
 *   - of several symbols at one address the one perf's choose_best_symbol
 *     keeps (sized, not weak, global, fewer leading '_', longer name);
 *   - a symbol of size 0 extends to the next symbol.
 * Names are not demangled (perf demangles C++ and Rust).
 *
 * Nothing here prints or exits; a file that cannot be read just yields no
 * table (the caller names its frames "[unknown]", as perf does).
 */
#ifndef SF_ELFSYM_H
#define SF_ELFSYM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sf_symtab;

/*
 * Load the symbols for an ELF file from the first usable of `paths`
 * (n of them, in perf's order of preference, see above).  `build_id`
 * (bid_len bytes, 0 for none) rejects files with another build-id.
 * Returns NULL when no candidate could be read, or out of memory.
 */
struct sf_symtab *sf_symtab_elf(const char *const *paths, size_t n,
				const unsigned char *build_id, size_t bid_len);

/*
 * Load /proc/kallsyms-format text from `path` (types T, W, D, B, any
 * case).  NULL when it cannot be read or holds only zero addresses (a
 * user without the right to see them).
 */
struct sf_symtab *sf_symtab_kallsyms(const char *path);

/*
 * Load a JIT symbol file /tmp/perf-PID.map ("START SIZE name" lines, hex
 * numbers), as perf does for anonymous executable memory.  NULL when it
 * cannot be read, or belongs to another user than root or this one (perf
 * ignores those).  Its addresses are the process's.
 */
struct sf_symtab *sf_symtab_perfmap(const char *path);

/*
 * The name of the symbol holding `addr`, or NULL.  For an ELF table `addr`
 * is a file offset (what perf's map_ip gives: ip - map start + pgoff),
 * translated through the program headers; for kallsyms and perf maps it
 * is the address.
 */
const char *sf_symtab_lookup(const struct sf_symtab *t, uint64_t addr);

void sf_symtab_free(struct sf_symtab *t);

/* For an ELF table: the file whose .symtab it holds (perf's "symsrc",
 * the file perf asks addr2line about), NULL when it holds a .dynsym. */
const char *sf_symtab_source(const struct sf_symtab *t);

/* For an ELF table: the address in the file's own terms (what addr2line
 * takes) of the file offset `off`, through the program headers; false
 * when no segment holds it. */
bool sf_symtab_vaddr(const struct sf_symtab *t, uint64_t off,
		     uint64_t *vaddr);

/* For a kallsyms table: the address of "_text" (0 if absent), to check a
 * copy against a recording. */
uint64_t sf_symtab_kernel_text(const struct sf_symtab *t);

/*
 * A C++ symbol (_Z...) as perf script prints it: libiberty's demangler
 * without DMGL_PARAMS, so no parameter list and no return type
 * ("va_gc::reserve<loop*, va_gc>").  Built on libstdc++'s
 * __cxa_demangle, loaded on first use (the programs do not link
 * libstdc++), whose full signature is cut back to that.  Returns a
 * malloc'ed string, or NULL when `sym` is not a mangled C++ name or
 * cannot be demangled.
 */
char *sf_demangle_perf(const char *sym);

/* The GNU build-id note of the ELF file `path` into out (at most 20
 * bytes); returns its length, 0 if it has none or cannot be read. */
size_t sf_elf_build_id(const char *path, unsigned char out[20]);

/* The GNU build-id note of the running kernel (/sys/kernel/notes) into
 * out (at most 20 bytes); returns its length, 0 if unknown. */
size_t sf_kernel_build_id(unsigned char out[20]);

#endif
