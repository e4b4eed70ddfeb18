/* strbuf.c - a growable NUL-terminated string buffer. */
#include "strbuf.h"

#include <stdlib.h>
#include <string.h>

bool sf_sbuf_reserve(struct sf_sbuf *b, size_t more)
{
	if (b->len + more + 1 <= b->cap)
		return true;
	size_t ncap = b->cap ? b->cap : 256;
	while (ncap < b->len + more + 1)
		ncap *= 2;
	char *ns = realloc(b->s, ncap);
	if (!ns)
		return false;
	b->s = ns;
	b->cap = ncap;
	return true;
}

bool sf_sbuf_add(struct sf_sbuf *b, const char *s, size_t n)
{
	if (!sf_sbuf_reserve(b, n))
		return false;
	if (n)
		memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = 0;
	return true;
}

void sf_sbuf_free(struct sf_sbuf *b)
{
	free(b->s);
	memset(b, 0, sizeof(*b));
}
