/*
 * peerfix.h - internal: name clean-ups shared by the readers that follow
 * FlameGraph's and inferno's collapsers (perf, dtrace, sample).
 *
 * All functions append to a caller-owned growable buffer (struct sf_sbuf)
 * and never fail except on allocation (they return false then).
 */
#ifndef SF_PEERFIX_H
#define SF_PEERFIX_H

#include <stdbool.h>
#include <stddef.h>

struct sf_sbuf {
	char *s;
	size_t len, cap;
};

bool sf_sbuf_reserve(struct sf_sbuf *b, size_t more);
bool sf_sbuf_add(struct sf_sbuf *b, const char *s, size_t n);
static inline bool sf_sbuf_adds(struct sf_sbuf *b, const char *s)
{
	size_t n = 0;

	while (s[n])
		n++;
	return sf_sbuf_add(b, s, n);
}
void sf_sbuf_free(struct sf_sbuf *b);

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
