/*
 * utf16.c - UTF-16 with a BOM to UTF-8 (see utf16.h).
 */
#include "utf16.h"

#include <stdlib.h>
#include <string.h>

int sf_utf16_bom(const unsigned char *d, size_t n)
{
	if (n >= 2 && d[0] == 0xff && d[1] == 0xfe)
		return 1;
	if (n >= 2 && d[0] == 0xfe && d[1] == 0xff)
		return 2;
	return 0;
}

int sf_utf16_mark(const unsigned char *d, size_t n)
{
	int kind = sf_utf16_bom(d, n);

	if (n > SF_UTF16_LOOK)
		n = SF_UTF16_LOOK;
	for (size_t i = 2; kind && i + 1 < n; i += 2) {
		unsigned u = kind == 2 ? (unsigned)d[i] << 8 | d[i + 1] :
					 (unsigned)d[i + 1] << 8 | d[i];
		if (u == '\n' || u == '\t' || u == ' ' || u == ';')
			return kind;
	}
	return 0;
}

static size_t put(char *o, uint32_t cp)
{
	if (cp < 0x80) {
		o[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = (char)(0xc0 | (cp >> 6));
		o[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = (char)(0xe0 | (cp >> 12));
		o[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		o[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	o[0] = (char)(0xf0 | (cp >> 18));
	o[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	o[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	o[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

size_t sf_utf16_to_utf8(struct sf_utf16 *c, const unsigned char *in,
			size_t n, char *out, bool last, bool *odd)
{
	size_t o = 0;

	for (size_t i = 0; i < n; i++) {
		if (!c->have_byte) {
			c->byte = in[i];
			c->have_byte = 1;
			continue;
		}
		c->have_byte = 0;
		uint32_t u = c->be ? ((uint32_t)c->byte << 8 | in[i]) :
				     ((uint32_t)in[i] << 8 | c->byte);
		if (c->high) {
			if (u >= 0xdc00 && u <= 0xdfff) {
				o += put(out + o, 0x10000 +
					 ((c->high - 0xd800) << 10) +
					 (u - 0xdc00));
				c->high = 0;
				continue;
			}
			o += put(out + o, 0xfffd);
			c->high = 0;
		}
		if (u >= 0xd800 && u <= 0xdbff)
			c->high = u;
		else if (u >= 0xdc00 && u <= 0xdfff)
			o += put(out + o, 0xfffd);
		else
			o += put(out + o, u);
	}
	if (last) {
		if (c->high) {
			o += put(out + o, 0xfffd);
			c->high = 0;
		}
		if (odd)
			*odd = c->have_byte;
	}
	return o;
}

int sf_utf16_input(struct sf_input **out, char **buf, struct sf_input *in,
		   struct sf_ctx *ctx)
{
	const unsigned char *d;
	size_t got, len = 0, cap = 0;
	unsigned char chunk[1 << 16];
	struct sf_utf16 c = { 0 };
	char *text = NULL;
	bool odd = false;
	int rc, kind;

	*out = NULL;
	*buf = NULL;
	if ((rc = sf_input_peek(in, ctx, SF_UTF16_LOOK, &d, &got)))
		return rc;
	if (!(kind = sf_utf16_mark(d, got)))
		return 0;
	c.be = kind == 2;
	if ((rc = sf_input_read(in, ctx, chunk, 2, &got)) < 0)
		return rc;
	for (;;) {
		long n = sf_input_read_some(in, ctx, chunk, sizeof(chunk));
		if (n < 0) {
			free(text);
			return (int)n;
		}
		if (len + 2 * (size_t)n + 4 > cap) {
			size_t nc = (cap ? cap * 2 : 1 << 16) + 2 * (size_t)n + 4;
			char *q;
			if (nc > ctx->limits.max_decompressed + 8) {
				free(text);
				return sf_error(ctx, SF_ELIMIT,
						sf_input_name(in), 0,
						"UTF-16 text exceeds "
						"--max-decompressed");
			}
			if (!(q = realloc(text, nc))) {
				free(text);
				return sf_error_nomem(ctx);
			}
			text = q;
			cap = nc;
		}
		len += sf_utf16_to_utf8(&c, chunk, (size_t)n, text + len,
					n == 0, &odd);
		if (n == 0)
			break;
	}
	if (odd) {
		free(text);
		return sf_error(ctx, SF_EINPUT, sf_input_name(in), 0,
				"UTF-16 text ends in the middle of a "
				"character (odd number of bytes)");
	}
	if ((rc = sf_input_mem(out, ctx, text ? text : "", len,
			       sf_input_name(in)))) {
		free(text);
		return rc;
	}
	*buf = text;
	return 0;
}

size_t sf_utf16_probe(const unsigned char *d, size_t n, char *out,
		      size_t size)
{
	struct sf_utf16 c = { 0 };
	int kind = sf_utf16_mark(d, n);
	size_t take;

	if (!kind || size < 8)
		return 0;
	c.be = kind == 2;
	/* 2 * take + 4 <= size */
	take = (size - 4) / 2;
	if (take > n - 2)
		take = n - 2;
	take &= ~(size_t)1;
	return sf_utf16_to_utf8(&c, d + 2, take, out, false, NULL);
}
