/* outnum.c - numbers written as text: integers without printf, and a
 * double as the shortest decimal that reads back as it (sf_format_num),
 * with a fast path for short decimals.  Only the public output calls of
 * io.h are used. */
#include "io.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

void sf_output_u64(struct sf_output *o, uint64_t v)
{
	char b[24];
	int i = 24;

	do {
		b[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	sf_output_write(o, b + i, (size_t)(24 - i));
}

void sf_output_i64(struct sf_output *o, int64_t v)
{
	if (v < 0) {
		sf_output_putc(o, '-');
		sf_output_u64(o, (uint64_t)0 - (uint64_t)v);
	} else {
		sf_output_u64(o, (uint64_t)v);
	}
}

int sf_format_num(char *buf, size_t size, double v)
{
	if (v == 0)
		return snprintf(buf, size, "0");
	if (isnan(v))
		return snprintf(buf, size, "nan");
	if (isinf(v))
		return snprintf(buf, size, v < 0 ? "-inf" : "inf");
	if (v == floor(v) && fabs(v) < 9.007199254740992e15)
		return snprintf(buf, size, "%lld", (long long)v);
	for (int prec = 1; prec <= 17; prec++) {
		int n = snprintf(buf, size, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			return n;
	}
	return snprintf(buf, size, "%.17g", v);
}

void sf_output_num(struct sf_output *o, double v)
{
	char b[40];

	if (v >= 0 && v < 1e15 && v == (double)(uint64_t)v) {
		sf_output_u64(o, (uint64_t)v);
		return;
	}
	if (v >= 1e-4 && v < 1e9) {
		/* short decimals (0.5, 12.25, 0.001): the fewest fraction
		 * digits k <= 6 whose decimal m / 10^k reads back as v.  Both
		 * m < 2^53 and 10^k are exact and the division is correctly
		 * rounded, so the test is exact; with at most 15 significant
		 * digits no other decimal of that length reads back as v, so
		 * this is the string sf_format_num's %g search finds (fixed
		 * notation: v has a fraction and v >= 1e-4). */
		static const double p10[] = { 1, 1e1, 1e2, 1e3, 1e4, 1e5,
					       1e6 };
		for (int k = 1; k <= 6; k++) {
			double m = nearbyint(v * p10[k]);
			if (m / p10[k] != v)
				continue;
			uint64_t u = (uint64_t)m, ip = u / (uint64_t)p10[k],
				 fp = u % (uint64_t)p10[k];
			char *e = b + sizeof(b), *q = e;
			for (int d = 0; d < k; d++, fp /= 10)
				*--q = (char)('0' + fp % 10);
			*--q = '.';
			do {
				*--q = (char)('0' + ip % 10);
				ip /= 10;
			} while (ip);
			sf_output_write(o, q, (size_t)(e - q));
			return;
		}
	}
	int n = sf_format_num(b, sizeof(b), v);
	sf_output_write(o, b, (size_t)n);
}
