/*
 * rustsym.h - internal: the repair of Rust symbols that inferno's
 * collapsers apply, shared by the readers that follow them (perf, dtrace,
 * macOS sample).
 *
 * The functions append to a caller-owned string buffer (strbuf.h) and
 * never fail except on allocation (they return false then).
 */
#ifndef SF_RUSTSYM_H
#define SF_RUSTSYM_H

#include "strbuf.h"

#include <stdbool.h>
#include <stddef.h>


/*
 * inferno's repair of Rust symbols that a profiler demangled only halfway
 * ("_$LT$a..b$GT$::f::h0123456789abcdef" -> "<a::b>::f"): applies when the
 * name ends with a 17-character "h<16 hex>" hash, which is removed.  Appends
 * the repaired (or unchanged) name to `out`.
 */
bool sf_fix_rust_symbol(struct sf_sbuf *out, const char *s, size_t n);
/* Does the name end with the "h<16 hex>" hash sf_fix_rust_symbol removes? */
bool sf_rust_hashed(const char *s, size_t n);

#endif
