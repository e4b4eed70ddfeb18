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
 *
 * Two more kinds of target come from the same source (FUZZ_FORMAT):
 *
 *   "parallel"      every format that can be read on several threads
 *                   (sf_format.split) reads the input from a file once
 *                   with one job and once with two (SF_SPLIT_MIN=0, so
 *                   tiny inputs are cut): the outcome must be the same
 *                   -- the same error message, or the same warnings and
 *                   the same JSON bytes (sf_read_parallel's promise).
 *   "roundtrip-W"   the input is read as the detect target reads it,
 *                   then written with writer W; W's reader must read that
 *                   back, and from then on the round trip must be exact:
 *                   read -> write -> read -> write gives the bytes of the
 *                   write before.  The first round may lose what W writes
 *                   and its reader does not read back (docs/RELIABILITY.md
 *                   lists what); every later round must lose nothing.
 */
#include "format.h"
#include "load.h"
#include "profile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

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
	ctx->limits.max_records = 1u << 16;
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

/* What one read gave: the error message, or the warnings and the JSON. */
struct outcome {
	int rc;
	char msg[1024];
	char *text;           /* warnings: "kind count first" lines */
	size_t ntext;
	char *json;
	size_t njson;
};

static void outcome_free(struct outcome *o)
{
	free(o->text);
	free(o->json);
}

/* Read `path` with `fmt` on `jobs` threads into *o. */
static void read_jobs(const char *path, const struct sf_format *fmt,
		      unsigned jobs, bool aggregate, struct outcome *o)
{
	const struct sf_format *json = sf_format_by_name("json");
	struct sf_ctx ctx;
	struct sf_profile *p = NULL;
	struct sf_input *in;
	struct sf_load_options lo = { .from = fmt, .aggregate = aggregate };

	memset(o, 0, sizeof(*o));
	sf_ctx_init(&ctx);
	fuzz_limits(&ctx);
	ctx.jobs = jobs;
	if (sf_input_open(&in, &ctx, path))
		die("cannot open the input file", &ctx);
	o->rc = sf_load_inputs(&p, &ctx, &in, 1, &lo);
	sf_input_close(in);
	if (o->rc) {
		sf_error_format(&ctx.err, o->msg, sizeof(o->msg));
	} else {
		struct sf_output *w = write_mem(p, json, &ctx);
		if (w) {
			const char *d = sf_output_mem_data(w, &o->njson);
			if (!(o->json = malloc(o->njson + 1)))
				die("out of memory", NULL);
			memcpy(o->json, d, o->njson);
			sf_output_abort(w);
		}
	}
	FILE *f = open_memstream(&o->text, &o->ntext);
	if (!f)
		die("out of memory", NULL);
	for (size_t i = 0; i < ctx.nwarnings; i++)
		fprintf(f, "%s %llu %s\n", ctx.warnings[i].kind,
			(unsigned long long)ctx.warnings[i].count,
			ctx.warnings[i].first);
	fclose(f);
	sf_profile_free(p);
	sf_ctx_free(&ctx);
}

static void fuzz_parallel(const uint8_t *data, size_t size)
{
	const struct sf_format *const *t = sf_formats();
	char path[64];
	int fd = memfd_create("fuzz", MFD_CLOEXEC);

	if (fd < 0 || (size && write(fd, data, size) != (ssize_t)size))
		die("cannot write the input file", NULL);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	setenv("SF_SPLIT_MIN", "0", 1);
	for (size_t i = 0; t[i]; i++) {
		struct outcome a, b;
		if (!t[i]->split)
			continue;
		read_jobs(path, t[i], 1, size & 1, &a);
		read_jobs(path, t[i], 2, size & 1, &b);
		if (a.rc != b.rc || strcmp(a.msg, b.msg)) {
			fprintf(stderr, "-j1: %d %s\n-j2: %d %s\n", a.rc, a.msg,
				b.rc, b.msg);
			fuzz_format = t[i]->name;
			die("-j1 and -j2 fail differently", NULL);
		}
		if (a.ntext != b.ntext || memcmp(a.text, b.text, a.ntext)) {
			fprintf(stderr, "-j1:\n%s-j2:\n%s", a.text, b.text);
			fuzz_format = t[i]->name;
			die("-j1 and -j2 warn differently", NULL);
		}
		if (a.njson != b.njson ||
		    (a.njson && memcmp(a.json, b.json, a.njson))) {
			fuzz_format = t[i]->name;
			die("-j1 and -j2 read different profiles", NULL);
		}
		outcome_free(&a);
		outcome_free(&b);
	}
	close(fd);
}

/* Read `d` with w's reader (options `lo`) and write it with w: the
 * output, which the caller frees with sf_output_abort. */
static struct sf_output *reread(const char *d, size_t n,
				const struct sf_format *w,
				const struct sf_load_options *lo,
				struct sf_ctx *ctx)
{
	struct sf_profile *q = NULL;
	struct sf_input *in;
	struct sf_output *o;

	if (sf_input_mem(&in, ctx, d, n, "<written>"))
		die("setup", ctx);
	if (sf_load_inputs(&q, ctx, &in, 1, lo))
		die("the writer's output does not read back", ctx);
	sf_input_close(in);
	if (!(o = write_mem(q, w, ctx)))
		die("the profile read back cannot be written", ctx);
	sf_profile_free(q);
	return o;
}

static void fuzz_roundtrip(const uint8_t *data, size_t size,
			   const char *wname)
{
	const struct sf_format *w = sf_format_by_name(wname), *fmt = NULL;
	struct sf_ctx ctx;
	struct sf_profile *p = NULL;
	struct sf_input *in;
	struct sf_output *a, *b, *c;
	const char *da, *db, *dc;
	size_t na, nb, nc;

	if (!w || !w->write || !w->read)
		die("not a format that reads and writes", NULL);
	/* as sfconv loads for this writer */
	struct sf_load_options lo = { .aggregate = !w->needs_order,
				      .drop_zero = !w->needs_order };
	sf_ctx_init(&ctx);
	fuzz_limits(&ctx);
	if (sf_input_mem(&in, &ctx, data, size, "fuzz"))
		die("setup", &ctx);
	int rc = sf_format_detect(&fmt, in, &ctx, "fuzz");
	lo.from = fmt;
	if (!rc)
		rc = sf_load_inputs(&p, &ctx, &in, 1, &lo);
	sf_input_close(in);
	if (rc || !(a = write_mem(p, w, &ctx))) {
		/* fuzz_read's targets check that failures say what failed */
		sf_profile_free(p);
		sf_ctx_free(&ctx);
		return;
	}
	lo.from = w;
	da = sf_output_mem_data(a, &na);
	b = reread(da, na, w, &lo, &ctx);
	db = sf_output_mem_data(b, &nb);
	c = reread(db, nb, w, &lo, &ctx);
	dc = sf_output_mem_data(c, &nc);
	if (nb != nc || memcmp(db, dc, nb)) {
		fwrite(db, 1, nb < 2000 ? nb : 2000, stderr);
		fputs("\n---- read and written again:\n", stderr);
		fwrite(dc, 1, nc < 2000 ? nc : 2000, stderr);
		fputc('\n', stderr);
		die("read -> write -> read -> write changed the bytes", NULL);
	}
	sf_output_abort(a);
	sf_output_abort(b);
	sf_output_abort(c);
	sf_profile_free(p);
	sf_ctx_free(&ctx);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct sf_format *fmt = NULL;
	struct sf_ctx ctx;
	struct sf_profile *p = NULL;
	struct sf_input *in;
	int rc;

	if (!strcmp(fuzz_format, "parallel")) {
		fuzz_parallel(data, size);
		return 0;
	}
	if (!strncmp(fuzz_format, "roundtrip-", 10)) {
		fuzz_roundtrip(data, size, fuzz_format + 10);
		return 0;
	}
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
