/*
 * t_collapsed_order.c - property test of the collapsed writer's order.
 *
 * Random profiles with adversarial frame and thread names (one a proper
 * prefix of another, bytes below and above ';' and ' ', ';' and ':' that
 * write the same, LF/CR/TAB, UTF-8 and invalid bytes, "", frames equal in
 * name but not in module or line) are written as collapsed stacks, with and
 * without --thread-prefix.  The expected output is computed here from the
 * definition, independently of the writer: build each sample's line text
 * by hand, sort the texts with strcmp (byte order, what `LC_ALL=C sort`
 * and FlameGraph's `sort { $a cmp $b }` do), merge equal texts summing
 * their weights.
 */
#include "format.h"
#include "io.h"
#include "profile.h"
#include "unit.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

extern const struct sf_format sf_format_collapsed;

static const char *const fixed_names[] = {
	"", "a", "a-x", "a;x", "a:x", "a x", "a\tx", "a\nx", "a\rx", "a!",
	"a\x01", "a\x1f", "a<", "a~", "a\x7f", "a\xc3\xa9", "a\xff", "ab",
	"b", " ", ";", ":", "a;", "a:", "\x1f", "\xff", "\xe2\x82\xac", "a-",
	"a--", "a;b", "a:b", "-", "!",
};
#define NFIXED (sizeof(fixed_names) / sizeof(fixed_names[0]))

/* Names begin with a common part of 13 to 17 bytes when set: the writer
 * ranks names by their first 16 bytes and compares only names alike in
 * those whole (fmt_collapsed.c, struct rkey), so the names then differ
 * just before, at and after that boundary. */
static bool long_names;

/* A name from the fixed list, or 1-4 random characters from an alphabet
 * rich in bytes around ';' (0x3b) and ' ' (0x20). */
static void random_name(char *buf)
{
	static const char alpha[] = "a-;: \t!<\x01\x7f\xc3\xa9~\xff";

	if (long_names) {
		size_t n = 13 + unit_rnd(5);
		memcpy(buf, "0123456789abcdefg", n);
		buf += n;
	}
	if (unit_rnd(2)) {
		strcpy(buf, fixed_names[unit_rnd(NFIXED)]);
		return;
	}
	size_t n = 1 + unit_rnd(4);
	for (size_t i = 0; i < n; i++)
		buf[i] = alpha[unit_rnd(sizeof(alpha) - 1)];
	buf[n] = 0;
}

/* A growing string. */
struct str {
	char *s;
	size_t len, cap;
};

static void put_char(struct str *b, char c)
{
	if (b->len + 2 > b->cap) {
		b->cap = b->cap ? 2 * b->cap : 64;
		b->s = realloc(b->s, b->cap);
	}
	b->s[b->len++] = c;
	b->s[b->len] = 0;
}

/* The writer's documented escaping, restated here. */
static void put_sanitised(struct str *b, const char *name)
{
	for (; *name; name++)
		put_char(b, *name == ';' ? ':' :
			    (*name == '\n' || *name == '\r' ||
			     *name == '\t') ? ' ' : *name);
}

struct line {
	char *text;
	long long w;
};

static int line_cmp(const void *a, const void *b)
{
	/* strcmp compares as unsigned char (C11 7.24.4) */
	return strcmp(((const struct line *)a)->text,
		      ((const struct line *)b)->text);
}

/* The expected collapsed output of `p` whose sample i weighs w[i]. */
static char *expected(const struct sf_profile *p, bool prefix,
		      const long long *w)
{
	size_t n = p->d.nsamples;
	struct line *l = calloc(n ? n : 1, sizeof(*l));
	struct str out = { 0 };
	sf_frame_id fr[64];

	for (size_t i = 0; i < n; i++) {
		const struct sf_sample *s = &p->d.samples[i];
		struct str t = { 0 };
		size_t depth = sf_profile_stack_frames(p, s->stack, fr);
		put_char(&t, 'x');   /* allocate, then empty */
		t.s[t.len = 0] = 0;
		if (prefix && s->thread != SF_NO_THREAD) {
			const struct sf_thread *th = &p->d.threads[s->thread];
			char lab[2048];
			if (th->name && th->tid != SF_NO_ID)
				snprintf(lab, sizeof(lab), "%s-%lld",
					 th->name, (long long)th->tid);
			else if (th->name)
				snprintf(lab, sizeof(lab), "%s", th->name);
			else if (th->tid != SF_NO_ID)
				snprintf(lab, sizeof(lab), "%lld",
					 (long long)th->tid);
			else
				lab[0] = 0;
			lab[511] = 0;   /* thread labels are cut at 511 bytes */
			put_sanitised(&t, lab);
			if (depth)
				put_char(&t, ';');
		}
		for (size_t k = 0; k < depth; k++) {
			if (k)
				put_char(&t, ';');
			put_sanitised(&t, p->d.frames[fr[k]].name);
		}
		l[i].text = t.s;
		l[i].w = w[i];
	}
	qsort(l, n, sizeof(*l), line_cmp);
	put_char(&out, 'x');
	out.s[out.len = 0] = 0;
	for (size_t i = 0; i < n; i++) {
		long long sum = l[i].w;
		while (i + 1 < n && !strcmp(l[i].text, l[i + 1].text))
			sum += l[++i].w;
		for (const char *c = l[i].text; *c; c++)
			put_char(&out, *c);
		char num[32];
		snprintf(num, sizeof(num), " %lld\n", sum);
		for (const char *c = num; *c; c++)
			put_char(&out, *c);
	}
	for (size_t i = 0; i < n; i++)
		free(l[i].text);
	free(l);
	return out.s;
}

/* What the writer makes of `p`, as a string (NULL if it failed). */
static char *written(const struct sf_profile *p, bool prefix)
{
	struct sf_ctx ctx;
	struct sf_output *o = NULL;
	char *r = NULL;
	size_t size;

	sf_ctx_init(&ctx);
	if (prefix)
		sf_ctx_set_opt(&ctx, "thread-prefix", "1");
	if (!sf_output_mem(&o, &ctx) &&
	    !sf_format_collapsed.write(p, o, &ctx) && !sf_output_failed(o)) {
		const char *d = sf_output_mem_data(o, &size);
		if (!memchr(d, 0, size) && (r = malloc(size + 1))) {
			memcpy(r, d, size);
			r[size] = 0;
		}
	}
	if (o)
		sf_output_abort(o);
	sf_ctx_free(&ctx);
	return r;
}

/* Show where two outputs part, for a failure message. */
static void show_diff(const char *want, const char *got)
{
	size_t i = 0;

	while (want[i] && want[i] == got[i])
		i++;
	size_t b = i > 40 ? i - 40 : 0;
	printf("  first difference at byte %zu\n  want: ", i);
	for (size_t k = b; want[k] && k < i + 40; k++)
		printf(want[k] >= 32 && want[k] < 127 ? "%c" : "\\x%02x",
		       (unsigned char)want[k]);
	printf("\n  got:  ");
	for (size_t k = b; got[k] && k < i + 40; k++)
		printf(got[k] >= 32 && got[k] < 127 ? "%c" : "\\x%02x",
		       (unsigned char)got[k]);
	printf("\n");
}

/* One random profile; returns false (and says why) on a mismatch. */
static bool one_case(unsigned seed, bool *made)
{
	struct sf_ctx ctx;
	struct sf_profile *p = NULL;
	static const char *const modules[] = { NULL, "m1", "m2" };
	sf_frame_id frames[24];
	sf_thread_idx threads[6];
	size_t nframes = 2 + unit_rnd(22), nthreads = 1 + unit_rnd(6);
	size_t nsamples = unit_rnd(60);
	long long w[64];
	bool ok = true;

	sf_ctx_init(&ctx);
	*made = false;
	if (sf_profile_new(&p, &ctx))
		goto out;
	for (size_t i = 0; i < nframes; i++) {
		char name[32];
		struct sf_frame f;
		random_name(name);
		sf_frame_init(&f);
		f.name = name;
		f.module = modules[unit_rnd(3)];
		f.line = unit_rnd(3);
		if (sf_profile_frame(p, &ctx, &f, &frames[i]))
			goto out;
	}
	for (size_t i = 0; i < nthreads; i++) {
		char name[600];
		const char *nm = name;
		uint32_t k = unit_rnd(6);
		if (k == 0)
			nm = NULL;
		else if (k == 1) {
			/* longer than a label may be: the cut must match */
			memset(name, 'a', 520);
			name[520] = 0;
		} else
			random_name(name);
		int64_t tid = unit_rnd(3) ? (int64_t)unit_rnd(4) : SF_NO_ID;
		if (sf_profile_thread(p, &ctx, 1, tid, nm, &threads[i]))
			goto out;
	}
	/* one or two sample types: the default one is written */
	uint32_t t0, t1;
	bool two = unit_rnd(2);
	if (sf_profile_sample_type(p, &ctx, "samples", "count", &t0) ||
	    (two && sf_profile_sample_type(p, &ctx, "cpu", "nanoseconds",
					   &t1)))
		goto out;
	p->d.meta.default_type = two ? 1 : 0;
	for (size_t i = 0; i < nsamples; i++) {
		sf_frame_id st[6];
		size_t depth = unit_rnd(6);
		sf_stack_id s;
		for (size_t k = 0; k < depth; k++)
			st[k] = frames[unit_rnd((uint32_t)nframes)];
		sf_thread_idx th = unit_rnd(4) ? threads[unit_rnd((uint32_t)nthreads)] :
					    SF_NO_THREAD;
		double ws[2] = { unit_rnd(10), unit_rnd(10) };
		w[i] = (long long)ws[two ? 1 : 0];
		if (sf_profile_stack(p, &ctx, st, depth, false, &s) ||
		    sf_profile_add_sample(p, &ctx, s, th, 0, SF_NO_TIME, ws))
			goto out;
	}
	*made = true;
	for (int prefix = 0; prefix < 2; prefix++) {
		char *want = expected(p, prefix, w);
		char *got = written(p, prefix);
		if (!got || strcmp(want, got)) {
			printf("  seed %u, thread-prefix %d:\n", seed, prefix);
			if (got)
				show_diff(want, got);
			ok = false;
		}
		free(want);
		free(got);
	}
out:
	sf_profile_free(p);
	sf_ctx_free(&ctx);
	return ok;
}

int main(void)
{
	bool ok = true, made = true;
	unsigned seed;

	for (seed = 1; seed <= 3000 && ok && made; seed++) {
		unit_rng = 88172645463325252ull ^ ((uint64_t)seed * 0x9e3779b97f4a7c15ull);
		ok = one_case(seed, &made);
	}
	CHECK("collapsed-order-profiles-built", made);
	CHECK("collapsed-order-random-adversarial-names", ok);
	long_names = true;
	for (seed = 3001; seed <= 4000 && ok && made; seed++) {
		unit_rng = 88172645463325252ull ^ ((uint64_t)seed * 0x9e3779b97f4a7c15ull);
		ok = one_case(seed, &made);
	}
	long_names = false;
	CHECK("collapsed-order-long-names-profiles-built", made);
	CHECK("collapsed-order-random-names-alike-in-16-bytes", ok);

	/* the case of the issue, by hand: "a" < "a-x" < "a;b" */
	struct sf_ctx ctx;
	struct sf_profile *p = NULL;
	sf_frame_id a, ax, b;
	sf_stack_id s1, s2, s3;
	sf_ctx_init(&ctx);
	if (!sf_profile_new(&p, &ctx) &&
	    !sf_profile_frame_named(p, &ctx, "a", 1, NULL, &a) &&
	    !sf_profile_frame_named(p, &ctx, "a-x", 3, NULL, &ax) &&
	    !sf_profile_frame_named(p, &ctx, "b", 1, NULL, &b) &&
	    !sf_profile_stack(p, &ctx, (sf_frame_id[]){ a, b }, 2, false,
			      &s1) &&
	    !sf_profile_stack(p, &ctx, &ax, 1, false, &s2) &&
	    !sf_profile_stack(p, &ctx, &a, 1, false, &s3) &&
	    !sf_profile_add(p, &ctx, s1, SF_NO_THREAD, 1) &&
	    !sf_profile_add(p, &ctx, s2, SF_NO_THREAD, 2) &&
	    !sf_profile_add(p, &ctx, s3, SF_NO_THREAD, 3)) {
		char *got = written(p, false);
		CHECK_STR("collapsed-order-prefix-name", "a 3\na-x 2\na;b 1\n",
			  got);
		free(got);
	} else {
		CHECK("collapsed-order-prefix-name", 0);
	}
	sf_profile_free(p);
	sf_ctx_free(&ctx);
	return unit_failed;
}
