/* sf_diff_build and sf_diff_strip_hex, with hand-computed expectations. */
#include "unit.h"
#include "diff.h"

#include <stdlib.h>

/* A profile of one type (type, unit) with stacks given as "a;b" texts. */
static struct sf_profile *mk(struct sf_ctx *ctx, const char *type,
			     const char *unit, const char *const *stacks,
			     const double *w, size_t n)
{
	struct sf_profile *p;
	uint32_t t;

	if (sf_profile_new(&p, ctx) ||
	    sf_profile_sample_type(p, ctx, type, unit, &t))
		return NULL;
	for (size_t i = 0; i < n; i++) {
		sf_frame_id f[8];
		size_t k = 0;
		const char *s = stacks[i];
		while (*s) {
			const char *e = strchr(s, ';');
			size_t len = e ? (size_t)(e - s) : strlen(s);
			if (sf_profile_frame_named(p, ctx, s, len, NULL, &f[k++]))
				return NULL;
			s += len + (e ? 1 : 0);
		}
		sf_stack_id st;
		if (sf_profile_stack(p, ctx, f, k, false, &st) ||
		    sf_profile_add(p, ctx, st, SF_NO_THREAD, w[i]))
			return NULL;
	}
	return p;
}

/* Weights (base, new) of the sample whose leaf frame is `leaf`. */
static bool find(const struct sf_profile *p, const char *leaf, double *b,
		 double *n)
{
	uint32_t tb, tn;

	if (!sf_diff_types(p, &tb, &tn))
		return false;
	for (size_t i = 0; i < p->d.nsamples; i++) {
		const struct sf_stack_node *s = &p->d.stacks[p->d.samples[i].stack];
		if (!strcmp(p->d.frames[s->frame].name, leaf)) {
			*b = sf_weight(p, i, tb);
			*n = sf_weight(p, i, tn);
			return true;
		}
	}
	return false;
}

int main(void)
{
	struct sf_ctx ctx;
	sf_ctx_init(&ctx);
	const char *bs[] = { "main;a", "main;b", "main;a" };
	const double bw[] = { 100, 300, 100 };   /* total 500 */
	const char *ns[] = { "main;a", "main;c" };
	const double nw[] = { 400, 600 };        /* total 1000 */
	struct sf_profile *b = mk(&ctx, "cpu", "nanoseconds", bs, bw, 3);
	struct sf_profile *n = mk(&ctx, "wall", "nanoseconds", ns, nw, 2);
	struct sf_profile *d = NULL;
	double x, y;

	CHECK("diff-inputs", b && n);
	CHECK("diff-build", !sf_diff_build(&d, &ctx, b, n, NULL));
	CHECK("diff-types", d && d->d.ntypes == 2 &&
	      !strcmp(d->d.types[0].type, "base") &&
	      !strcmp(d->d.types[1].type, "new") &&
	      !strcmp(d->d.types[1].unit, "nanoseconds"));
	CHECK("diff-default-new", d && d->d.meta.default_type == 1);
	CHECK_STR("diff-prop", "1", d ? sf_profile_prop(d, "diff") : NULL);
	CHECK("diff-one-sample-per-stack", d && d->d.nsamples == 3);
	CHECK("diff-a", d && find(d, "a", &x, &y) && x == 200 && y == 400);
	CHECK("diff-b-removed", d && find(d, "b", &x, &y) && x == 300 && y == 0);
	CHECK("diff-c-added", d && find(d, "c", &x, &y) && x == 0 && y == 600);
	sf_profile_free(d);
	d = NULL;

	/* normalise: base x 1000/500 */
	struct sf_diff_options o = { .normalize = true };
	CHECK("diff-normalize-build", !sf_diff_build(&d, &ctx, b, n, &o));
	CHECK("diff-normalize-a", d && find(d, "a", &x, &y) && x == 400 && y == 400);
	CHECK("diff-normalize-b", d && find(d, "b", &x, &y) && x == 600 && y == 0);
	CHECK_STR("diff-normalize-prop", "1",
		  d ? sf_profile_prop(d, "diff.normalized") : NULL);
	sf_profile_free(d);
	d = NULL;

	/* units must agree */
	const char *ms[] = { "main" };
	const double mw[] = { 1 };
	struct sf_profile *m = mk(&ctx, "alloc_space", "bytes", ms, mw, 1);
	CHECK("diff-units-differ", m && sf_diff_build(&d, &ctx, b, m, NULL) ==
	      SF_EINPUT && strstr(ctx.err.msg, "units differ") && !d);
	sf_error_clear(&ctx);

	/* strip hex */
	size_t len;
	char *s = sf_diff_strip_hex("a0x1fz;0x;0xg;0XAB;0x0", 22, &len);
	CHECK_STR("diff-strip-hex", "a0x...z;0x;0xg;0XAB;0x...", s);
	CHECK("diff-strip-hex-len", s && len == strlen(s));
	free(s);

	sf_profile_free(b);
	sf_profile_free(n);
	sf_profile_free(m);
	sf_ctx_free(&ctx);
	return unit_failed;
}
