/* rustsym.c - inferno's repair of half-demangled Rust symbols, shared by
 * the perf, dtrace and macOS sample readers. */
#include "rustsym.h"
#include "sf.h"
#include "chars.h"

#include <stdlib.h>
#include <string.h>

/* The "$XX$" escapes of the legacy Rust mangling. */
static const struct {
	const char *esc, *plain;
} rust_escapes[] = {
	{ "$SP$", "@" }, { "$BP$", "*" }, { "$RF$", "&" }, { "$LT$", "<" },
	{ "$GT$", ">" }, { "$LP$", "(" }, { "$RP$", ")" }, { "$C$", "," },
	{ "$u7e$", "~" }, { "$u20$", " " }, { "$u27$", "'" },
	{ "$u3d$", "=" }, { "$u5b$", "[" }, { "$u5d$", "]" },
	{ "$u7b$", "{" }, { "$u7d$", "}" }, { "$u3b$", ";" },
	{ "$u2b$", "+" }, { "$u21$", "!" }, { "$u22$", "\"" },
};

bool sf_rust_hashed(const char *s, size_t n)
{
	const size_t hashlen = 17;

	if (n < hashlen || s[n - hashlen] != 'h')
		return false;
	for (size_t i = n - hashlen + 1; i < n; i++)
		if (!sf_is_hex(s[i]))
			return false;
	return true;
}

bool sf_fix_rust_symbol(struct sf_sbuf *out, const char *s, size_t n)
{
	const size_t hashlen = 17;

	if (!sf_rust_hashed(s, n))
		return sf_sbuf_add(out, s, n);
	const char *r = s, *end = s + n - hashlen;
	if (end - r >= 2 && end[-1] == ':' && end[-2] == ':')
		end -= 2;
	if (end - r >= 2 && r[0] == '_' && r[1] == '$')
		r++;
	while (r < end) {
		if (*r == '.') {
			if (r + 1 < end && r[1] == '.') {
				if (!sf_sbuf_add(out, "::", 2))
					return false;
				r += 2;
			} else {
				if (!sf_sbuf_add(out, ".", 1))
					return false;
				r++;
			}
		} else if (*r == '$') {
			size_t k, nesc = sizeof(rust_escapes) /
					 sizeof(rust_escapes[0]);
			for (k = 0; k < nesc; k++) {
				size_t el = strlen(rust_escapes[k].esc);
				if ((size_t)(end - r) >= el &&
				    !memcmp(r, rust_escapes[k].esc, el)) {
					if (!sf_sbuf_adds(out,
							  rust_escapes[k].plain))
						return false;
					r += el;
					break;
				}
			}
			if (k == nesc)  /* unknown escape: keep the rest */
				return sf_sbuf_add(out, r, (size_t)(end - r));
		} else {
			const char *q = r;
			while (q < end && *q != '$' && *q != '.')
				q++;
			if (!sf_sbuf_add(out, r, (size_t)(q - r)))
				return false;
			r = q;
		}
	}
	if (!sf_sbuf_reserve(out, 0))
		return false;
	out->s[out->len] = 0;
	return true;
}
