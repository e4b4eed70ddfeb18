/*
 * fuzz_parallel.c - libFuzzer target: reading on several threads never
 * changes a result (sf_read_parallel).
 *
 * The input is put in a file (a memfd, read through /proc/self/fd) and
 * read with the format FUZZ_FORMAT (default "perf") on one job, then on 2
 * and 3 jobs with no minimum part size (SF_SPLIT_MIN=0), so even a small
 * input is cut after its blank lines.  Each read must give the same
 * lossless JSON, or fail with the same error (code, line, message);
 * anything else abort()s, which libFuzzer reports as a crash.  Inputs of
 * odd length are read into an aggregating profile, as sfconv reads for
 * outputs that need no sample order.
 *
 * Built by `make fuzz-build` as build/fuzz/fuzz_parallel; without libFuzzer
 * tests/unit/t_fuzz_parallel.c replays its seeds and the perf fixtures.
 */
#include "format.h"
#include "profile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#ifndef FUZZ_FORMAT
#define FUZZ_FORMAT "perf"
#endif

/* What one read gave: its JSON, or its error. */
struct result {
	struct sf_output *json;
	int rc;
	char err[1024];
};

static void die(const char *what)
{
	fprintf(stderr, "fuzz_parallel[%s]: %s\n", FUZZ_FORMAT, what);
	abort();
}

static void read_with(const char *path, unsigned jobs, bool aggregate,
		      struct result *r)
{
	const struct sf_format *fmt = sf_format_by_name(FUZZ_FORMAT);
	const struct sf_format *json = sf_format_by_name("json");
	struct sf_profile *p = NULL;
	struct sf_input *in = NULL;
	struct sf_ctx ctx;

	if (!fmt || !json)
		die("unknown format");
	sf_ctx_init(&ctx);
	ctx.jobs = jobs;
	ctx.limits.max_line = 8u << 20;
	ctx.limits.max_depth = 1u << 16;
	memset(r, 0, sizeof(*r));
	r->rc = sf_profile_new(&p, &ctx);
	if (!r->rc) {
		sf_profile_set_aggregate(p, aggregate);
		r->rc = sf_input_open(&in, &ctx, path);
	}
	if (!r->rc)
		r->rc = sf_read(p, fmt, in, &ctx);
	if (r->rc) {
		sf_error_format(&ctx.err, r->err, sizeof(r->err));
	} else if (sf_output_mem(&r->json, &ctx) ||
		   json->write(p, r->json, &ctx)) {
		die("the JSON writer failed");
	}
	if (in)
		sf_input_close(in);
	sf_profile_free(p);
	sf_ctx_free(&ctx);
}

static bool same(const struct result *a, const struct result *b)
{
	size_t na = 0, nb = 0;
	const char *da, *db;

	if (a->rc != b->rc || strcmp(a->err, b->err))
		return false;
	if (!a->json)
		return !b->json;
	da = sf_output_mem_data(a->json, &na);
	db = sf_output_mem_data(b->json, &nb);
	return na == nb && !memcmp(da, db, na);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct result one, par;
	char path[64];
	int fd = memfd_create("fuzz_parallel", 0);

	if (fd < 0)
		die("memfd_create failed");
	for (size_t off = 0; off < size;) {
		ssize_t w = write(fd, data + off, size - off);
		if (w <= 0)
			die("cannot write the input file");
		off += (size_t)w;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	setenv("SF_SPLIT_MIN", "0", 1);
	read_with(path, 1, size & 1, &one);
	for (unsigned j = 2; j <= 3; j++) {
		read_with(path, j, size & 1, &par);
		if (!same(&one, &par)) {
			fprintf(stderr, "-j1: %s\n-j%u: %s\n",
				one.rc ? one.err : "ok", j,
				par.rc ? par.err : "ok");
			die("-j1 and -jN differ");
		}
		if (par.json)
			sf_output_abort(par.json);
	}
	if (one.json)
		sf_output_abort(one.json);
	close(fd);
	return 0;
}
