/*
 * t_jitmap - the perf map (/tmp/perf-PID.map, sampler-core/jitmap.c) is
 * read as it grows: an address is named by the entry that held it when
 * it was sampled, not by an entry written later for the same range (a
 * JIT reuses freed code); a line still being written waits for its end;
 * an address no entry held when sampled takes the last entry written.
 * The map is this test's own (its pid, its user), written by hand;
 * sizes are hex, as in any perf map.
 */
#include "unit.h"
#include "capture_int.h"

#include <stdlib.h>
#include <unistd.h>

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "a");

	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/* a tick of the capture: what the map gained, then pc's entry */
static uint32_t sample(struct sfc_session *s, struct sf_ctx *ctx,
		       uint64_t pc)
{
	s->tickno++;
	CHECK("jitmap-poll", sfc__jit_poll(s, ctx) == 0);
	return sfc__jit_holder(s, pc);
}

int main(void)
{
	struct sf_ctx ctx;
	struct sfc_session *s = calloc(1, sizeof(*s));
	char path[64];

	sf_ctx_init(&ctx);
	if (!s)
		return 1;
	s->pid = getpid();
	s->uid = getuid();
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)s->pid);
	unlink(path);
	/* no map yet: nothing holds anything, and no warning */
	CHECK("jitmap-none", sample(s, &ctx, 0x1050) == 0);
	/* a process without a map is looked at again 16 ticks later */
	put(path, "1000 100 first\n");
	CHECK("jitmap-not-yet", sample(s, &ctx, 0x1050) == 0);
	s->tickno += 14;
	uint32_t a = sample(s, &ctx, 0x1050);
	CHECK("jitmap-first", a == 1);
	/* a second read in the same tick reads nothing new */
	put(path, "1000 100 second\n2000 10 other\n");
	CHECK("jitmap-once-per-tick", sfc__jit_poll(s, &ctx) == 0 &&
	      sfc__jit_holder(s, 0x1050) == 1);
	/* the range reused: the next tick's samples are the new entry's */
	uint32_t b = sample(s, &ctx, 0x1050);
	CHECK("jitmap-reused", b == 2);
	CHECK("jitmap-other", sfc__jit_holder(s, 0x200f) == 3 &&
	      sfc__jit_holder(s, 0x2010) == 0 &&
	      sfc__jit_holder(s, 0xfff) == 0);
	/* half a line is not an entry yet */
	put(path, "3000 10 par");
	CHECK("jitmap-partial", sample(s, &ctx, 0x3004) == 0);
	put(path, "tial\n4000 8 late\n");
	CHECK("jitmap-completed", sample(s, &ctx, 0x3004) == 4);
	/* an entry inside a larger, earlier one wins where it is */
	put(path, "1020 10 inner\n");
	CHECK("jitmap-inner", sample(s, &ctx, 0x1024) == 6 &&
	      sfc__jit_holder(s, 0x1050) == 2);
	/* written after the last tick: read at the end */
	put(path, "5000 10 after\n");

	struct sfc_jitmap *m = sfc__jit_load(s, &ctx);
	CHECK("jitmap-load", m != NULL && s->jit == NULL);
	CHECK_STR("jitmap-name-first", "first", sfc__jit_find(m, 0x1050, a));
	CHECK_STR("jitmap-name-reused", "second", sfc__jit_find(m, 0x1050, b));
	CHECK_STR("jitmap-name-partial", "partial",
		  sfc__jit_find(m, 0x3004, 4));
	/* not held when sampled: the last entry written for it */
	CHECK_STR("jitmap-name-last", "inner", sfc__jit_find(m, 0x1024, 0));
	CHECK_STR("jitmap-name-end", "after", sfc__jit_find(m, 0x5000, 0));
	CHECK("jitmap-name-none", sfc__jit_find(m, 0x6000, 0) == NULL);
	CHECK("jitmap-no-warning", ctx.nwarnings == 0);
	sfc__jit_free(m);
	unlink(path);
	free(s);
	sf_ctx_free(&ctx);
	return unit_failed;
}
