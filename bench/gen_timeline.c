/*
 * gen_timeline.c - a deterministic timeline document in sftools' native
 * JSON, the shape sfcapture writes: every sample kept in time order with
 * its thread and timestamp, frames with a name, a module and an address,
 * and (where sampling is fine-grained and stacks deep) nearly every
 * sample a stack of its own:
 *
 *     gen_timeline SAMPLES MINDEPTH MAXDEPTH SEED > timeline.json
 *
 * 8 threads take turns at random.  A sample's depth is uniform in
 * MINDEPTH..MAXDEPTH; it keeps a prefix of its thread's previous stack
 * (at least the 2 outermost frames, uniform up to half the depth, as
 * consecutive samples of one thread do) and the rest are frames drawn
 * uniformly from 50,000 functions, so its leaf node is new: each sample
 * is its own stack.  Weight 1, one sample type.  The layout is the
 * writer's (one element a line), so the reader's fast path applies.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "splitmix.h"

enum { NFUNC = 50000, NTHREAD = 8, MAXD = 1024 };


int main(int argc, char **argv)
{
	if (argc != 5) {
		fprintf(stderr, "usage: gen_timeline SAMPLES MINDEPTH MAXDEPTH "
			"SEED\n");
		return 2;
	}
	long n = atol(argv[1]), mind = atol(argv[2]), maxd = atol(argv[3]);
	s = strtoull(argv[4], NULL, 10);
	if (mind < 3 || maxd < mind || maxd > MAXD) {
		fprintf(stderr, "gen_timeline: need 3 <= MINDEPTH <= MAXDEPTH "
			"<= %d\n", MAXD);
		return 2;
	}
	static long node[NTHREAD][MAXD], depth[NTHREAD];
	long nnodes = 0;   /* nodes written so far (node ids start at 1) */

	printf("{\"format\":\"sftools-profile\",\"version\":1,\n"
	       "\"meta\":{\"source_format\":\"capture\","
	       "\"period_type\":{\"type\":\"cpu\",\"unit\":\"nanoseconds\"},"
	       "\"period\":1000000,\"start_time\":1700000000000000000,"
	       "\"default_sample_type\":0},\n"
	       "\"sample_types\":[{\"type\":\"samples\",\"unit\":\"count\"}],\n"
	       "\"threads\":[");
	for (int t = 0; t < NTHREAD; t++)
		printf("%s\n{\"pid\":4242,\"tid\":%d,\"name\":\"worker-%d\"}",
		       t ? "," : "", 4242 + t, t);
	printf("],\n\"frames\":[");
	/* frames 0 and 1 are _start and main; the rest functions of 16
	 * libraries */
	printf("\n{\"name\":\"_start\",\"module\":\"/usr/bin/app\","
	       "\"address\":\"0x401000\"}");
	printf(",\n{\"name\":\"main\",\"module\":\"/usr/bin/app\","
	       "\"address\":\"0x401200\"}");
	for (long f = 2; f < NFUNC; f++)
		printf(",\n{\"name\":\"lib%ld::fn_%ld\",\"module\":"
		       "\"/usr/lib/liba%ld.so\",\"address\":\"0x%llx\"}",
		       f % 16, f, f % 16,
		       0x7f0000000000ull + (unsigned long long)f * 0x40);
	printf("],\n\"stacks\":[");
	/* the stacks first (the writer's order), remembering each sample's
	 * leaf and thread for the samples section */
	long *leaf = malloc(sizeof(*leaf) * (size_t)n);
	unsigned char *thr = malloc((size_t)n);
	if (!leaf || !thr)
		return 1;
	for (long i = 0; i < n; i++) {
		int t = (int)(rnd() % NTHREAD);
		long d = mind + (long)(rnd() % (uint64_t)(maxd - mind + 1));
		long keep = 2 + (long)(rnd() % (uint64_t)(d / 2));
		if (keep > depth[t])
			keep = depth[t];   /* the thread's first sample: 0 */
		for (long k = keep; k < d; k++) {
			long parent = k ? node[t][k - 1] : 0;
			long f = k == 0 ? 0 : k == 1 ? 1 :
				 2 + (long)(rnd() % (NFUNC - 2));
			printf("%s\n[%ld,%ld]", nnodes ? "," : "", parent, f);
			node[t][k] = ++nnodes;
		}
		depth[t] = d;
		leaf[i] = node[t][d - 1];
		thr[i] = (unsigned char)t;
	}
	printf("],\n\"label_sets\":[],\n\"samples\":[");
	long long time = 0;
	for (long i = 0; i < n; i++) {
		time += 900000 + (long long)(rnd() % 200000);
		printf("%s\n[%ld,%d,%lld,0,1]", i ? "," : "", leaf[i], thr[i],
		       time);
	}
	printf("]}\n");
	free(leaf);
	free(thr);
	return 0;
}
