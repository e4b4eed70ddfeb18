/*
 * json_scan.c - what the native JSON reader checks of its input before
 * yajl parses it: newline counts for error lines, and the bounds on token
 * and document sizes (json.h).
 */
#include "json.h"

#include <string.h>

/* Newlines in b[0..n), eight bytes at a time: each byte of `acc` counts
 * the newlines seen in its lane (at most 255 rounds before it is summed). */
uint64_t sf_json__count_nl(const unsigned char *b, size_t n)
{
	const uint64_t ones = 0x0101010101010101ull, lf = ones * '\n';
	const uint64_t low7 = ones * 0x7f;
	uint64_t c = 0;
	size_t i = 0;

	while (i + 8 <= n) {
		uint64_t acc = 0;
		for (int k = 0; k < 255 && i + 8 <= n; k++, i += 8) {
			uint64_t w;
			memcpy(&w, b + i, 8);
			w ^= lf;
			/* high bit of a byte set iff the byte is not 0 */
			uint64_t t = ((w & low7) + low7) | w;
			acc += (~t >> 7) & ones;
		}
		c += (acc * ones) >> 56;
	}
	for (; i < n; i++)
		c += b[i] == '\n';
	return c;
}

static bool token_byte(unsigned char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
	       (c >= 'A' && c <= 'Z') || c == '-' || c == '+' || c == '.';
}

int sf_json__scan(struct jscan *j, const unsigned char *b, size_t n,
		  struct sf_input *in, struct sf_ctx *ctx, uint64_t line)
{
	uint64_t max = ctx->limits.max_name;
	size_t i = 0, lead = 0;

	j->total += n;
	if (j->total > ctx->limits.max_decompressed)
		return sf_error(ctx, SF_ELIMIT, sf_input_name(in), line,
				"JSON document larger than %llu bytes "
				"(--max-decompressed)",
				(unsigned long long)
				ctx->limits.max_decompressed);
	if (!j->in_str) {
		while (lead < n && token_byte(b[lead]))
			lead++;
		if (j->run + lead > max)
			return sf_error(ctx, SF_ELIMIT, sf_input_name(in),
					line, "JSON number or literal longer "
					"than %llu bytes (--max-name)",
					(unsigned long long)max);
		if (lead == n) {
			j->run += n;
			return 0;
		}
	}
	while (i < n) {
		if (!j->in_str) {
			const unsigned char *q = NULL;
			/* between a frame's strings the next quote is a
			 * few bytes on: two words before memchr's call,
			 * which cost more than the search there */
			if (n - i >= 16) {
				const unsigned char *w = b + i;
				uint64_t m = sf_json__eq8(sf_json__load8(w), '"');
				if (!m) {
					w += 8;
					m = sf_json__eq8(sf_json__load8(w), '"');
				}
				if (m)
					q = w + (__builtin_ctzll(m) >> 3);
			}
			if (!q && !(q = memchr(b + i, '"', n - i)))
				break;
			i = (size_t)(q - b) + 1;
			j->in_str = true;
			j->esc = false;
			j->slen = 0;
			continue;
		}
		size_t start = i;
		for (; i < n; i++) {
			if (j->esc) {
				j->esc = false;
				continue;
			}
			/* to the next quote, backslash or control byte
			 * eight bytes at a time: a timeline's frames
			 * section is 4 MB of strings, and a byte at a
			 * time was most of the scan (33 M instructions) */
			for (uint64_t m; n - i >= 8; i += 8)
				if ((m = sf_json__special8(b + i))) {
					i += (size_t)__builtin_ctzll(m) >> 3;
					break;
				}
			if (i >= n)
				break;
			if (b[i] == '\\')
				j->esc = true;
			else if (b[i] == '"')
				break;
		}
		if (j->slen + (i - start) > max) {
			size_t at = start + (size_t)(max - j->slen);
			return sf_error(ctx, SF_ELIMIT, sf_input_name(in),
					line + sf_json__count_nl(b, at),
					"JSON string longer than %llu bytes "
					"(--max-name)",
					(unsigned long long)max);
		}
		j->slen += i - start;
		if (i < n) {
			j->in_str = false;
			i++;
		}
	}
	j->run = 0;
	if (!j->in_str)
		for (size_t k = n; k > 0 && token_byte(b[k - 1]); k--)
			j->run++;
	if (j->run > max)
		return sf_error(ctx, SF_ELIMIT, sf_input_name(in),
				line + sf_json__count_nl(b, n),
				"JSON number or literal longer than %llu "
				"bytes (--max-name)",
				(unsigned long long)max);
	return 0;
}
