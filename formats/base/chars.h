/*
 * chars.h - character classes of the C locale, for parsers of text
 * formats.  <ctype.h>'s follow the program's locale (setlocale) and
 * want an unsigned char in an int; these are fixed sets, safe on any
 * char, and inline: parsers call them once per byte.
 */
#ifndef SF_CHARS_H
#define SF_CHARS_H

#include <stdbool.h>

/* A space or a tab: what separates fields on one line. */
static inline bool sf_is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* White space of C's isspace: blanks, line ends, form feed, vertical
 * tab. */
static inline bool sf_is_space(char c)
{
	return sf_is_blank(c) || c == '\r' || c == '\n' || c == '\f' ||
	       c == '\v';
}

/* A hexadecimal digit, either case. */
static inline bool sf_is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
	       (c >= 'A' && c <= 'F');
}

#endif
