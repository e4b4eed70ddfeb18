/*
 * t_pprof.c - the pprof probe against every peer fixture (only the
 * pprof-proto files may score), and extreme values through the protobuf
 * encoder and decoder (64-bit addresses, negative values, large ids);
 * a field written in place (sf_pb_open, sf_pb_close) is the bytes of the
 * same sub-message made in a buffer of its own (sf_pb_put_msg), for
 * contents around every length a varint changes size at, nested, and
 * in a buffer that grows meanwhile.
 */
#include "format.h"
#include "protobuf.h"
#include "unit.h"

#include <stdlib.h>

extern const struct sf_format sf_format_pprof;

static void probe_peers(void)
{
	const char *shared = getenv("SHARED");
	char path[8192], line[4096];
	FILE *m;
	int pos_ok = 1, neg_ok = 1, npos = 0, nneg = 0;

	if (!shared) {
		printf("SKIP: pprof-probe-peers: SHARED not set\n");
		return;
	}
	snprintf(path, sizeof(path), "%s/fixtures/peers/MANIFEST.tsv", shared);
	if (!(m = fopen(path, "r"))) {
		printf("SKIP: pprof-probe-peers: no %s\n", path);
		return;
	}
	while (fgets(line, sizeof(line), m)) {
		char *tab = strchr(line, '\t'), *fmt, *end;
		if (!tab)
			continue;
		*tab = 0;
		fmt = tab + 1;
		if ((end = strchr(fmt, '\t')))
			*end = 0;
		snprintf(path, sizeof(path), "%s/fixtures/peers/%s", shared,
			 line);
		struct sf_ctx ctx;
		struct sf_input *in;
		const unsigned char *d;
		size_t got;
		sf_ctx_init(&ctx);
		if (sf_input_open(&in, &ctx, path)) {
			sf_ctx_free(&ctx);
			continue;
		}
		if (!sf_input_peek(in, &ctx, SF_PROBE_BYTES, &d, &got)) {
			int s = sf_format_pprof.probe(d, got);
			bool want = !strncmp(fmt, "pprof-proto", 11);
			if (want) {
				npos++;
				if (s <= 0) {
					pos_ok = 0;
					printf("# not recognised: %s\n", line);
				}
			} else {
				nneg++;
				if (s > 0) {
					neg_ok = 0;
					printf("# wrongly claimed (%d): %s (%s)\n",
					       s, line, fmt);
				}
			}
		}
		sf_input_close(in);
		sf_ctx_free(&ctx);
	}
	fclose(m);
	CHECK("pprof-probe-claims-pprof-files", pos_ok && npos > 0);
	CHECK("pprof-probe-rejects-other-formats", neg_ok && nneg > 0);
}

/* A profile with extreme values, written to memory (raw protobuf: memory
 * outputs are not compressed) and read back. */
static void extremes(void)
{
	struct sf_ctx ctx;
	struct sf_profile *p, *q;
	struct sf_output *o;
	struct sf_input *in;
	struct sf_frame f;
	sf_frame_id fr[2];
	sf_stack_id st;
	uint32_t t0, t1;
	sf_thread_idx th;
	const char *data;
	size_t size;
	double w[2] = { -5, 9007199254740992.0 };   /* 2^53 */

	sf_ctx_init(&ctx);
	CHECK("pprof-extremes-build",
	      !sf_profile_new(&p, &ctx) &&
	      !sf_profile_sample_type(p, &ctx, "delta", "count", &t0) &&
	      !sf_profile_sample_type(p, &ctx, "big", "bytes", &t1));
	sf_frame_init(&f);
	f.name = "outer";
	f.address = UINT64_MAX - 1;
	f.line = UINT32_MAX;
	sf_profile_frame(p, &ctx, &f, &fr[0]);
	sf_frame_init(&f);
	f.name = "inner";
	f.file = "i.c";
	f.line = 1;
	f.flags = SF_FRAME_INLINE;
	sf_profile_frame(p, &ctx, &f, &fr[1]);
	sf_profile_stack(p, &ctx, fr, 2, false, &st);
	sf_profile_thread(p, &ctx, INT64_MAX, -2, "t", &th);
	sf_profile_add_sample(p, &ctx, st, th, 0, SF_NO_TIME, w);
	p->d.meta.default_type = 0;   /* not the last: default_sample_type */
	CHECK("pprof-extremes-write",
	      !sf_output_mem(&o, &ctx) &&
	      !sf_format_pprof.write(p, o, &ctx) && !sf_output_failed(o));
	data = sf_output_mem_data(o, &size);
	CHECK("pprof-extremes-read",
	      !sf_profile_new(&q, &ctx) &&
	      !sf_input_mem(&in, &ctx, data, size, "mem") &&
	      !sf_format_pprof.read(q, in, &ctx));
	CHECK("pprof-extremes-values",
	      q->d.nsamples == 1 && q->d.ntypes == 2 &&
	      sf_weight(q, 0, 0) == -5 &&
	      sf_weight(q, 0, 1) == 9007199254740992.0);
	CHECK("pprof-extremes-thread",
	      q->d.nthreads == 1 && q->d.threads[0].pid == INT64_MAX &&
	      q->d.threads[0].tid == -2 &&
	      !strcmp(q->d.threads[0].name, "t"));
	sf_frame_id back[2];
	size_t n = q->d.nsamples ?
		   sf_profile_stack_frames(q, q->d.samples[0].stack, back) : 0;
	CHECK("pprof-extremes-frames",
	      n == 2 && !strcmp(q->d.frames[back[0]].name, "outer") &&
	      q->d.frames[back[0]].address == UINT64_MAX - 1 &&
	      q->d.frames[back[0]].line == UINT32_MAX &&
	      !(q->d.frames[back[0]].flags & SF_FRAME_INLINE) &&
	      !strcmp(q->d.frames[back[1]].name, "inner") &&
	      (q->d.frames[back[1]].flags & SF_FRAME_INLINE) &&
	      /* lines of one location share its address */
	      q->d.frames[back[1]].address == UINT64_MAX - 1);
	CHECK("pprof-extremes-default-type", q->d.meta.default_type == 0);
	sf_input_close(in);
	sf_output_abort(o);
	sf_profile_free(p);
	sf_profile_free(q);
	sf_ctx_free(&ctx);
}

/* n bytes of content, a pattern of its own for each k */
static void content(struct sf_pb_buf *b, size_t n, int k)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)(i * 7 + (size_t)k);
		sf_pb_put_raw(b, &c, 1);
	}
}

static void in_place(void)
{
	static const size_t lens[] = { 0, 1, 126, 127, 128, 129, 300,
				       16383, 16384, 16385, 2097151,
				       2097152 };
	int bad = 0;

	for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		for (size_t j = 0; j < sizeof(lens) / sizeof(lens[0]) &&
				   lens[j] < 20000; j++) {
			struct sf_pb_buf a = { 0 }, b = { 0 }, sa = { 0 },
					 sb = { 0 };
			/* by buffers: outer (field 4) = n bytes, an inner
			 * message (field 5) of m bytes, n bytes */
			content(&a, 3, 0);
			content(&sa, lens[i], 1);
			content(&sb, lens[j], 2);
			sf_pb_put_msg(&sa, 5, &sb);
			content(&sa, lens[i], 3);
			sf_pb_put_msg(&a, 4, &sa);
			sf_pb_put_uint(&a, 6, 1);
			/* in place, in a buffer that starts empty */
			content(&b, 3, 0);
			size_t o = sf_pb_open(&b, 4);
			content(&b, lens[i], 1);
			size_t in = sf_pb_open(&b, 5);
			content(&b, lens[j], 2);
			sf_pb_close(&b, in);
			content(&b, lens[i], 3);
			sf_pb_close(&b, o);
			sf_pb_put_uint(&b, 6, 1);
			if (a.oom || b.oom || a.n != b.n ||
			    memcmp(a.d, b.d, a.n))
				bad++;
			free(a.d);
			free(b.d);
			free(sa.d);
			free(sb.d);
		}
	}
	CHECK("pb-open-close", bad == 0);
}

int main(void)
{
	probe_peers();
	extremes();
	in_place();
	return unit_failed;
}
