/*
 * gen_stacks.c - deterministic synthetic sample lines for the benchmarks:
 *
 *     gen_stacks SAMPLES FUNCTIONS MAXDEPTH SEED [DISTINCT [MINDEPTH]]
 *         > out.samples.tsv
 *
 * A fixed random call graph (each function has 6 callees, which may
 * include itself or its callers, so recursion and cycles occur).  DISTINCT
 * stacks (default 50000; 0 = every sample its own walk) are walks from one
 * of 8 roots, depth uniform in MINDEPTH..MAXDEPTH (MINDEPTH default 1), preferring a function's first
 * callees (weights 1/(i+1)^2), so stacks share prefixes.  Samples draw
 * from those stacks with a skew (index = DISTINCT * u^2: a few hot stacks,
 * a long tail), as real profiles repeat their stacks.  4 threads,
 * weight 1.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "splitmix.h"


int main(int argc, char **argv)
{
	if (argc < 5 || argc > 7) {
		fprintf(stderr, "usage: gen_stacks SAMPLES FUNCTIONS MAXDEPTH "
			"SEED [DISTINCT [MINDEPTH]]\n");
		return 2;
	}
	long distinct = argc >= 6 ? atol(argv[5]) : 50000;
	long mind = argc == 7 ? atol(argv[6]) : 1;
	long n = atol(argv[1]), nf = atol(argv[2]), maxd = atol(argv[3]);
	s = strtoull(argv[4], NULL, 10);
	enum { K = 6 };
	long *callee = malloc(sizeof(long) * (size_t)nf * K);
	/* cumulative weights of 1/(i+1)^2, scaled to 2^32 */
	uint64_t cum[K];
	double tot = 0, acc = 0;
	for (int i = 0; i < K; i++)
		tot += 1.0 / ((i + 1) * (i + 1));
	for (int i = 0; i < K; i++) {
		acc += 1.0 / ((i + 1) * (i + 1));
		cum[i] = (uint64_t)(acc / tot * 4294967296.0);
	}
	for (long f = 0; f < nf * K; f++)
		callee[f] = (long)(rnd() % (uint64_t)nf);
	long npool = distinct ? distinct : 1;
	char **pool = calloc((size_t)npool, sizeof(*pool));
	char buf[65536];
	for (long i = 0; i < n; i++) {
		long at = 0;
		if (distinct) {
			double u = (double)(rnd() >> 11) / 9007199254740992.0;
			at = (long)(distinct * u * u);
			if (pool[at]) {
				printf("%d\t1\t%s\n", (int)(rnd() % 4), pool[at]);
				continue;
			}
		}
		long d = mind + (long)(rnd() % (uint64_t)(maxd - mind + 1));
		long len = 0;
		long f = (long)(rnd() % 8);
		for (long j = 0; j < d && len < (long)sizeof(buf) - 32; j++) {
			len += snprintf(buf + len, sizeof(buf) - (size_t)len,
					j ? ";f%ld" : "f%ld", f);
			uint64_t r = rnd() & 0xffffffffu;
			int k = 0;
			while (k < K - 1 && r >= cum[k])
				k++;
			f = callee[f * K + k];
		}
		printf("%d\t1\t%s\n", (int)(rnd() % 4), buf);
		if (distinct) {
			pool[at] = malloc((size_t)len + 1);
			memcpy(pool[at], buf, (size_t)len + 1);
		}
	}
	for (long i = 0; i < npool; i++)
		free(pool[i]);
	free(pool);
	free(callee);
	return 0;
}
