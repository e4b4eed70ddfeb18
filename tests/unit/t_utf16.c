/* UTF-16 -> UTF-8 transcoding (formats/util/utf16.c).  Expected bytes are the
 * UTF-8 encodings from the Unicode tables, written by hand. */
#include "unit.h"
#include "utf16.h"

#include <stdlib.h>

static size_t conv(int be, const unsigned char *in, size_t n, size_t split,
		   char *out, bool *odd)
{
	struct sf_utf16 c = { 0 };
	size_t o;

	c.be = be;
	/* feed in two pieces: state must carry across the split */
	o = sf_utf16_to_utf8(&c, in, split, out, false, NULL);
	o += sf_utf16_to_utf8(&c, in + split, n - split, out + o, true, odd);
	return o;
}

int main(void)
{
	char out[64];
	bool odd = false;
	size_t n;

	/* "a;é 1\n" little-endian, split inside the 'é' code unit */
	static const unsigned char le[] = { 'a', 0, ';', 0, 0xe9, 0, ' ', 0,
					    '1', 0, '\n', 0 };
	n = conv(0, le, sizeof(le), 5, out, &odd);
	CHECK("utf16-le-bmp", n == 7 && !memcmp(out, "a;\xc3\xa9 1\n", 7) &&
			      !odd);

	/* U+1F600 as a surrogate pair, big-endian: D83D DE00 -> F0 9F 98 80,
	 * split between the two surrogates */
	static const unsigned char be[] = { 0xd8, 0x3d, 0xde, 0x00, 0x00, 'x' };
	n = conv(1, be, sizeof(be), 2, out, &odd);
	CHECK("utf16-be-surrogate-pair",
	      n == 5 && !memcmp(out, "\xf0\x9f\x98\x80x", 5));

	/* a lone high surrogate followed by 'x' -> U+FFFD (EF BF BD) 'x' */
	static const unsigned char lone[] = { 0x3d, 0xd8, 'x', 0 };
	n = conv(0, lone, sizeof(lone), 4, out, &odd);
	CHECK("utf16-lone-surrogate", n == 4 &&
	      !memcmp(out, "\xef\xbf\xbdx", 4));

	/* U+20AC (euro) big-endian: 20 AC -> E2 82 AC; then an odd byte */
	static const unsigned char euro[] = { 0x20, 0xac, 0x00 };
	n = conv(1, euro, sizeof(euro), 1, out, &odd);
	CHECK("utf16-3-byte", n == 3 && !memcmp(out, "\xe2\x82\xac", 3));
	CHECK("utf16-odd-byte-reported", odd);

	CHECK("utf16-bom-le", sf_utf16_bom((const unsigned char *)"\xff\xfe",
					   2) == 1);
	CHECK("utf16-bom-be", sf_utf16_bom((const unsigned char *)"\xfe\xff",
					   2) == 2);
	CHECK("utf16-bom-none", sf_utf16_bom((const unsigned char *)"\xef\xbb",
					     2) == 0);

	/* a mark is believed when a LF, TAB, space or ';' code unit follows
	 * it; FE FF as the first bytes of a name in 8-bit text is not */
	static const unsigned char be_text[] = { 0xfe, 0xff, 0, 'a', 0, ' ',
						 0, '1' };
	static const unsigned char le_text[] = { 0xff, 0xfe, ';', 0 };
	CHECK("utf16-mark-be", sf_utf16_mark(be_text, sizeof(be_text)) == 2);
	CHECK("utf16-mark-le", sf_utf16_mark(le_text, sizeof(le_text)) == 1);
	CHECK("utf16-mark-8bit-name",
	      sf_utf16_mark((const unsigned char *)"\xfe\xffx;b 3\n", 9) == 0);
	CHECK("utf16-mark-odd-unit",
	      sf_utf16_mark((const unsigned char *)"\xff\xfe ; 1\n", 7) == 0);

	/* the input layer: a BOM'd memory input becomes UTF-8 text */
	struct sf_ctx ctx;
	struct sf_input *in, *u;
	char *buf, *line;
	size_t len;
	static const unsigned char doc[] = { 0xff, 0xfe, 'a', 0, ' ', 0, '2',
					     0, '\r', 0, '\n', 0 };
	sf_ctx_init(&ctx);
	CHECK("utf16-input-open", !sf_input_mem(&in, &ctx, doc, sizeof(doc),
						"doc"));
	CHECK("utf16-input-transcode", !sf_utf16_input(&u, &buf, in, &ctx) &&
	      u != NULL);
	CHECK("utf16-input-line", u && sf_input_line(u, &ctx, &line, &len) == 1 &&
	      (len == 3 || len == 4) && !memcmp(line, "a 2", 3));
	sf_input_close(u);
	free(buf);
	sf_input_close(in);
	/* without a BOM the input is left alone */
	CHECK("utf16-input-plain", !sf_input_mem(&in, &ctx, "a 1\n", 4, "p") &&
	      !sf_utf16_input(&u, &buf, in, &ctx) && u == NULL);
	sf_input_close(in);
	sf_ctx_free(&ctx);
	return unit_failed;
}
