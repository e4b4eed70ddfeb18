/*
 * fuzz_read.c - one libFuzzer target per reader, and one for detection.
 *
 * Built once per format by `make fuzz` with -DFUZZ_FORMAT='"name"' (each
 * format that reads, from `sfconv --list-formats`) or
 * -DFUZZ_FORMAT='"detect"' (content detection, then the chosen reader).
 * Without FUZZ_FORMAT the format is the global `fuzz_format`, which the
 * plain replay driver (tests/unit/t_fuzz_replay.c) sets before feeding
 * each corpus file and crash reproducer to the same
 * LLVMFuzzerTestOneInput, so `make check` replays them without libFuzzer.
 *
 * Each input is read from memory through the programs' load stage
 * (sf_load_inputs: detection, the reader, error naming), into an
 * aggregating profile when its length is odd (as sfconv does for outputs
 * that need no sample order).
 * A read must succeed or fail with an error record (code and message
 * set); a success is then written with the format's own writer and with
 * the lossless JSON writer, and the JSON is read back and written again:
 * it must parse and give the same bytes.  Anything else is a bug and
 * abort()s, which libFuzzer reports as a crash.
 */
#include "format.h"
#include "load.h"
#include "profile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#ifdef FUZZ_FORMAT
static const char *fuzz_format = FUZZ_FORMAT;
#else
const char *fuzz_format = "detect";
#endif

/* Lower limits than the programs' so a tiny input cannot make one run
 * take seconds (a gzip bomb, a huge line); each is still enforced. */
static void fuzz_limits(struct sf_ctx *ctx)
{
	ctx->limits.max_decompressed = 32u << 20;
	ctx->limits.max_line = 8u << 20;
	ctx->limits.max_name = 64u << 10;
	ctx->limits.max_depth = 1u << 16;
}

static void die(const char *what, const struct sf_ctx *ctx)
{
	char buf[1024] = "";

	if (ctx)
		sf_error_format(&ctx->err, buf, sizeof(buf));
	fprintf(stderr, "fuzz_read[%s]: %s%s%s\n", fuzz_format, what,
		buf[0] ? ": " : "", buf);
	abort();
}

/* Write `p` with `fmt` into memory; returns the output (caller frees it
 * with sf_output_abort) or NULL when the writer refused cleanly. */
static struct sf_output *write_mem(const struct sf_profile *p,
				   const struct sf_format *fmt,
				   struct sf_ctx *ctx)
{
	struct sf_output *o;

	if (sf_output_mem(&o, ctx))
		die("cannot make a memory output", ctx);
	int rc = fmt->write(p, o, ctx);
	if (rc) {
		if (!ctx->err.code || !ctx->err.msg[0])
			die("writer failed without a message", NULL);
		sf_output_abort(o);
		sf_error_clear(ctx);
		return NULL;
	}
	if (sf_output_failed(o))
		die("memory output failed", NULL);
	return o;
}

static void check_json_round_trip(const struct sf_profile *p)
{
	const struct sf_format *json = sf_format_by_name("json");
	struct sf_ctx ctx;
	struct sf_output *a, *b;
	struct sf_profile *q;
	struct sf_input *in;
	const char *da, *db;
	size_t na, nb;

	if (!json || !json->write || !json->read)
		return;
	sf_ctx_init(&ctx);
	if (!(a = write_mem(p, json, &ctx))) {
		sf_ctx_free(&ctx);
		return;
	}
	da = sf_output_mem_data(a, &na);
	if (sf_profile_new(&q, &ctx) ||
	    sf_input_mem(&in, &ctx, da, na, "<json>"))
		die("setup", &ctx);
	if (sf_read(q, json, in, &ctx))
		die("the JSON writer's output does not read back", &ctx);
	sf_input_close(in);
	if (!(b = write_mem(q, json, &ctx)))
		die("re-read profile cannot be written", &ctx);
	db = sf_output_mem_data(b, &nb);
	if (na != nb || memcmp(da, db, na))
		die("JSON round trip is not byte-identical", NULL);
	sf_output_abort(a);
	sf_output_abort(b);
	sf_profile_free(q);
	sf_ctx_free(&ctx);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct sf_format *fmt = NULL;
	struct sf_ctx ctx;
	struct sf_profile *p = NULL;
	struct sf_input *in;
	int rc;

	sf_ctx_init(&ctx);
	fuzz_limits(&ctx);
	if (strcmp(fuzz_format, "detect") &&
	    !(fmt = sf_format_by_name(fuzz_format)))
		die("unknown format", NULL);
	/* the programs' load stage; sfconv folds samples when the output
	 * needs no order: cover that path too, on every other input length */
	struct sf_load_options lo = { .aggregate = size & 1 };
	rc = sf_input_mem(&in, &ctx, data, size, "fuzz");
	if (!rc) {
		/* detect here (as sf_load would) to know the writer below */
		if (!fmt)
			rc = sf_format_detect(&fmt, in, &ctx, "fuzz");
		lo.from = fmt;
		if (!rc)
			rc = sf_load_inputs(&p, &ctx, &in, 1, &lo);
		sf_input_close(in);
	}
	if (rc) {
		/* a failure must say what failed */
		if (rc >= 0 || !ctx.err.code || !ctx.err.msg[0])
			die("read failed without an error record", NULL);
	} else {
		if (ctx.err.code)
			die("read succeeded with an error set", &ctx);
		struct sf_output *o;
		if (fmt->write && (o = write_mem(p, fmt, &ctx)))
			sf_output_abort(o);
		check_json_round_trip(p);
	}
	sf_profile_free(p);
	sf_ctx_free(&ctx);
	return 0;
}
