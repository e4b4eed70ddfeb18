/*
 * count.c - a small program on the installed sftools library: load one
 * profile (any format sfconv reads, detected by content), then print its
 * total weight in the default sample type and the three leaf frames with
 * the most self weight (a frame is a name at a place: the same name in
 * two modules counts twice).
 *
 * Build against an installed library (libsftools is static, so ask
 * pkg-config for the libraries it needs):
 *
 *     cc -std=c11 count.c $(pkg-config --static --cflags --libs sftools)
 */
#include <load.h>
#include <profile.h>
#include <sf.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct leaf {
	const char *name;
	double self;
};

/* heaviest first, then by name, so the output is deterministic */
static int by_weight(const void *a, const void *b)
{
	const struct leaf *x = a, *y = b;

	if (x->self != y->self)
		return x->self > y->self ? -1 : 1;
	return strcmp(x->name, y->name);
}

int main(int argc, char **argv)
{
	struct sf_ctx ctx;
	struct sf_profile *p = NULL;
	struct leaf *leaves = NULL;
	char msg[1024];
	int rc;

	if (argc != 2) {
		fprintf(stderr, "usage: count PROFILE\n");
		return 64;
	}
	sf_ctx_init(&ctx);
	/* open, detect the format, read (sf_load merges several paths) */
	if ((rc = sf_load(&p, &ctx, argv + 1, 1, NULL)))
		goto out;

	const struct sf_profile_data *d = &p->d;
	uint32_t t = d->meta.default_type;
	double total = 0;
	if (!(leaves = calloc(d->nframes ? d->nframes : 1, sizeof(*leaves)))) {
		rc = sf_error_nomem(&ctx);
		goto out;
	}
	for (size_t f = 0; f < d->nframes; f++)
		leaves[f].name = d->frames[f].name;
	for (size_t i = 0; i < d->nsamples; i++) {
		double w = d->weights[i * d->ntypes + t];
		sf_stack_id s = d->samples[i].stack;
		total += w;
		if (s != SF_STACK_EMPTY)
			leaves[d->stacks[s].frame].self += w;
	}
	qsort(leaves, d->nframes, sizeof(*leaves), by_weight);
	printf("samples: %g\n", total);
	for (size_t f = 0; f < d->nframes && f < 3; f++)
		if (leaves[f].self > 0)
			printf("%g %s\n", leaves[f].self, leaves[f].name);
out:
	if (rc) {
		sf_error_format(&ctx.err, msg, sizeof(msg));
		fprintf(stderr, "count: %s\n", msg);
	}
	free(leaves);
	sf_profile_free(p);
	sf_ctx_free(&ctx);
	return rc ? 2 : 0;
}
