/*
 * t_limits.c - every struct sf_limits field is enforced by the library
 * itself (so every reader gets it), at exactly the documented boundary.
 */
#include "unit.h"
#include "format.h"

#include <stdlib.h>

static struct sf_ctx ctx;

static void reset(void)
{
	sf_ctx_free(&ctx);
	sf_ctx_init(&ctx);
}

static char *filled(size_t n, char c)
{
	char *s = malloc(n + 1);

	memset(s, c, n);
	s[n] = 0;
	return s;
}

static void test_name(void)
{
	struct sf_profile *p;
	struct sf_frame f;
	sf_frame_id id;
	char *ok = filled(100, 'a'), *over = filled(101, 'b');

	reset();
	ctx.limits.max_name = 100;
	sf_profile_new(&p, &ctx);
	sf_frame_init(&f);
	f.name = ok;
	CHECK("max-name-frame-at-limit", sf_profile_frame(p, &ctx, &f, &id) == 0);
	f.name = over;
	CHECK("max-name-frame-over", sf_profile_frame(p, &ctx, &f, &id) ==
	      SF_ELIMIT && strstr(ctx.err.msg, "--max-name"));
	reset();
	ctx.limits.max_name = 100;
	f.name = "x";
	f.module = over;
	CHECK("max-name-module-over", sf_profile_frame(p, &ctx, &f, &id) ==
	      SF_ELIMIT);
	reset();
	ctx.limits.max_name = 100;
	f.module = NULL;
	f.file = over;
	CHECK("max-name-file-over", sf_profile_frame(p, &ctx, &f, &id) ==
	      SF_ELIMIT);
	reset();
	ctx.limits.max_name = 100;
	CHECK("max-name-named-over",
	      sf_profile_frame_named(p, &ctx, over, 101, NULL, &id) ==
	      SF_ELIMIT);
	sf_profile_free(p);
	free(ok);
	free(over);
}

static void test_depth(void)
{
	struct sf_profile *p;
	sf_frame_id fr[11] = { 0 };
	sf_stack_id s;

	reset();
	ctx.limits.max_depth = 10;
	sf_profile_new(&p, &ctx);
	sf_profile_frame_named(p, &ctx, "f", 1, NULL, &fr[0]);
	CHECK("max-depth-at-limit",
	      sf_profile_stack(p, &ctx, fr, 10, false, &s) == 0 &&
	      p->d.stacks[s].depth == 10);
	CHECK("max-depth-push-over",
	      sf_profile_stack_push(p, &ctx, s, fr[0], &s) == SF_ELIMIT);
	reset();
	ctx.limits.max_depth = 10;
	CHECK("max-depth-stack-over",
	      sf_profile_stack(p, &ctx, fr, 11, true, &s) == SF_ELIMIT &&
	      strstr(ctx.err.msg, "--max-depth"));
	sf_profile_free(p);
}

static void test_line(void)
{
	struct sf_input *in;
	char *line;
	size_t len;
	const char *text = "abcd\nabcde\n";

	reset();
	ctx.limits.max_line = 4;
	sf_input_mem(&in, &ctx, text, strlen(text), "t");
	CHECK("max-line-at-limit", sf_input_line(in, &ctx, &line, &len) == 1 &&
	      len == 4);
	CHECK("max-line-over-in-buffer",
	      sf_input_line(in, &ctx, &line, &len) == SF_ELIMIT &&
	      ctx.err.line == 2);
	sf_input_close(in);
	/* the last line, without LF */
	reset();
	ctx.limits.max_line = 4;
	sf_input_mem(&in, &ctx, "abcde", 5, "t");
	CHECK("max-line-over-last-line",
	      sf_input_line(in, &ctx, &line, &len) == SF_ELIMIT);
	sf_input_close(in);
}

static void test_slurp(void)
{
	struct sf_input *in;
	char *d = NULL;
	size_t n;
	char *big = filled(5000, 'z');

	reset();
	ctx.limits.max_decompressed = 4999;
	sf_input_mem(&in, &ctx, big, 5000, "t");
	CHECK("max-decompressed-slurp",
	      sf_input_slurp(in, &ctx, 1u << 20, &d, &n) == SF_ELIMIT);
	sf_input_close(in);
	reset();
	ctx.limits.max_decompressed = 5000;
	sf_input_mem(&in, &ctx, big, 5000, "t");
	CHECK("max-decompressed-slurp-at-limit",
	      sf_input_slurp(in, &ctx, 1u << 20, &d, &n) == 0 && n == 5000);
	sf_input_close(in);
	free(d);
	free(big);
}

int main(void)
{
	sf_ctx_init(&ctx);
	test_name();
	test_depth();
	test_line();
	test_slurp();
	sf_ctx_free(&ctx);
	return unit_failed;
}
