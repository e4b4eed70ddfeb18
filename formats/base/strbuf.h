/*
 * strbuf.h - a growable string buffer, always NUL-terminated once anything
 * was added.  The caller owns the struct (zero-initialise it) and releases
 * it with sf_sbuf_free().  The functions fail only on allocation and then
 * return false with the buffer unchanged.
 */
#ifndef SF_STRBUF_H
#define SF_STRBUF_H

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

#endif
