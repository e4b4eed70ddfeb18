/* t_parallel.c - reading a file in parts on several threads gives the
 * model reading it whole gives (format.h, sf_read_parallel).
 *
 * Property check: generated collapsed and sample-lines inputs with the
 * awkward cases (records of every length so cuts fall everywhere, CRLF,
 * blank lines, a line longer than the cut finder's first window, a BOM,
 * a line starting with a BOM or with the gzip magic in the middle, an
 * empty stack, no final LF, fractional and huge weights, a bad line) are
 * read serially and in 2..8 parts, aggregated and not; the two models
 * must be equal table by table, bit for bit, or fail with the same
 * message (file:line). */
#include "unit.h"
#include "format.h"

#include <stdlib.h>
#include <unistd.h>

extern const struct sf_format sf_format_collapsed;
extern const struct sf_format sf_format_lines;

static bool same_str(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* Every table of the model, in order. */
/* Which check of same_model failed, with T_DEBUG set. */
static bool dbg(int k)
{
	if (getenv("T_DEBUG"))
		printf("# differ at check %d\n", k);
	return false;
}

static bool same_model(const struct sf_profile *p, const struct sf_profile *q)
{
	const struct sf_profile_data *a = &p->d, *b = &q->d;

	if (a->ntypes != b->ntypes || a->nframes != b->nframes ||
	    a->nstacks != b->nstacks || a->nthreads != b->nthreads ||
	    a->nsamples != b->nsamples || a->nlabel_sets != b->nlabel_sets ||
	    a->nadded != b->nadded || a->has_time != b->has_time ||
	    a->meta.default_type != b->meta.default_type ||
	    !!a->counts != !!b->counts) {
		return dbg(1);
	}
	for (size_t i = 0; i < a->ntypes; i++)
		if (!same_str(a->types[i].type, b->types[i].type) ||
		    !same_str(a->types[i].unit, b->types[i].unit))
			return dbg(2);
	for (size_t i = 0; i < a->nframes; i++) {
		const struct sf_frame *x = &a->frames[i], *y = &b->frames[i];
		if (!same_str(x->name, y->name) ||
		    !same_str(x->module, y->module) ||
		    !same_str(x->file, y->file) ||
		    !same_str(x->kind, y->kind) || x->line != y->line ||
		    x->address != y->address || x->flags != y->flags)
			return dbg(3);
	}
	if (memcmp(a->stacks, b->stacks, a->nstacks * sizeof(*a->stacks)))
		return dbg(4);
	for (size_t i = 0; i < a->nthreads; i++)
		if (a->threads[i].pid != b->threads[i].pid ||
		    a->threads[i].tid != b->threads[i].tid ||
		    !same_str(a->threads[i].name, b->threads[i].name))
			return dbg(5);
	for (size_t i = 0; i < a->nsamples; i++) {
		const struct sf_sample *x = &a->samples[i], *y = &b->samples[i];
		/* field by field: the struct has padding */
		if (x->stack != y->stack || x->thread != y->thread ||
		    x->labels != y->labels || x->time != y->time ||
		    sf_sample_count(p, i) != sf_sample_count(q, i))
			return dbg(6);
	}
	if (a->nsamples && memcmp(a->weights, b->weights,
				  a->nsamples * a->ntypes * sizeof(double)))
		return dbg(7);
	return true;
}

static const char *const names[] = {
	"main", "a", "b", "c d", "e;f", "<init>", "x\xc3\xa9", "[unknown]",
	"std::vector<int>::push_back", "", "tail ",
};

static void add_stack(FILE *f)
{
	unsigned depth = unit_rnd(6);

	for (unsigned d = 0; d < depth; d++)
		fprintf(f, "%s%s", d ? ";" : "",
			names[unit_rnd(sizeof(names) / sizeof(names[0]))]);
}

static void add_weight(FILE *f, bool frac, bool huge)
{
	if (huge && !unit_rnd(50))
		fprintf(f, "1152921504606846976");   /* 2^60 */
	else if (frac && !unit_rnd(20))
		fprintf(f, "0.1");
	else
		fprintf(f, "%u", 1 + unit_rnd(1000));
}

/* An input of `n` records; `fmt` 0 collapsed, 1 lines. */
static void gen(const char *path, int fmt, unsigned n, unsigned flags)
{
	FILE *f = fopen(path, "wb");
	bool crlf = flags & 1, frac = (flags & 6) == 2, huge = (flags & 6) == 6,
	     bad = (flags & 24) == 24, bom = flags & 16, nolf = flags & 32;
	unsigned badat = bad ? unit_rnd(n) : n;

	if (bom)
		fputs("\xef\xbb\xbf", f);
	for (unsigned i = 0; i < n; i++) {
		unsigned k = unit_rnd(40);
		if (k == 0) {
			fputs(crlf ? "\r\n" : "\n", f);   /* blank */
			continue;
		}
		if (k == 1 && i > 0 && fmt == 0)
			fputs("\xef\xbb\xbf", f);   /* a BOM inside: a name */
		if (k == 2 && i > 0 && fmt == 0)
			fputs("\x1f\x8b", f);
		if (i == badat) {
			fputs(fmt ? "no tabs here" : "nocount", f);
		} else if (fmt == 0) {
			if (k == 3) {
				for (int j = 0; j < 20000; j++)
					fputs(j ? ";long" : "long", f);
			} else {
				add_stack(f);
			}
			fputc(' ', f);
			add_weight(f, frac, huge);
		} else {
			unsigned t = unit_rnd(4);
			if (t == 1)
				fprintf(f, "%u", 10 + unit_rnd(3));
			else if (t == 2)
				fprintf(f, "%u:worker %u", 10 + unit_rnd(3), unit_rnd(2));
			else if (t == 3)
				fputs(":gc", f);
			fputc('\t', f);
			add_weight(f, frac, huge);
			fputc('\t', f);
			if (k == 3)
				for (int j = 0; j < 20000; j++)
					fputs(j ? ";long" : "long", f);
			else
				add_stack(f);
		}
		if (!(nolf && i == n - 1))
			fputs(crlf ? "\r\n" : "\n", f);
	}
	fclose(f);
}

/* Read `path` into a fresh profile: serially, or with `jobs` threads
 * (then *split says whether it was read in parts). */
static int load(const char *path, const struct sf_format *fmt,
		unsigned jobs, bool agg, struct sf_profile **out,
		char *msg, size_t msize, bool *split)
{
	struct sf_ctx ctx;
	struct sf_input *in;
	int rc;

	sf_ctx_init(&ctx);
	ctx.jobs = jobs;
	*out = NULL;
	if ((rc = sf_profile_new(out, &ctx)))
		goto done;
	sf_profile_set_aggregate(*out, agg);
	if ((rc = sf_input_open(&in, &ctx, path)))
		goto done;
	rc = jobs > 1 ? sf_read_parallel(*out, fmt, in, &ctx) : 1;
	if (split)
		*split = rc != 1;
	if (rc == 1)
		rc = fmt->read(*out, in, &ctx);
	sf_input_close(in);
done:
	sf_error_format(&ctx.err, msg, msize);
	sf_ctx_free(&ctx);
	return rc;
}

int main(void)
{
	char path[] = "/tmp/t_parallel.XXXXXX";
	int fd = mkstemp(path);
	const struct sf_format *fmts[] = { &sf_format_collapsed,
					   &sf_format_lines };
	unsigned cases = 0, equal = 0, splits = 0, errors = 0, errs_same = 0;

	if (fd < 0)
		return 1;
	close(fd);
	setenv("SF_SPLIT_MIN", "0", 1);
	for (int round = 0; round < 100; round++) {
		int fi = round & 1;
		unsigned flags = unit_rnd(64), n = 1 + unit_rnd(round < 10 ? 8 : 400);
		gen(path, fi, n, flags);
		for (int agg = 0; agg < 2; agg++) {
			struct sf_profile *s, *p;
			char ms[1024], mp[1024];
			bool split = false;
			int rs = load(path, fmts[fi], 1, agg, &s, ms, sizeof(ms),
				      NULL);
			int rp = load(path, fmts[fi], 2 + unit_rnd(7), agg, &p, mp,
				      sizeof(mp), &split);
			cases++;
			splits += split;
			if (rs || rp) {
				errors++;
				if (rs == rp && !strcmp(ms, mp))
					errs_same++;
				else
					printf("# round %d: serial %d '%s', "
					       "parallel %d '%s'\n", round, rs,
					       ms, rp, mp);
			} else if (same_model(s, p)) {
				equal++;
			} else {
				printf("# round %d (flags %u, n %u, agg %d): "
				       "models differ\n", round, flags, n, agg);
			}
			sf_profile_free(s);
			sf_profile_free(p);
		}
	}
	unlink(path);
	CHECK("parallel: same model as serial on every good input",
	      equal + errors == cases);
	CHECK("parallel: same error message (absolute line) as serial",
	      errs_same == errors);
	CHECK("parallel: the inputs were cut (not all read whole or serially)",
	      splits > cases / 3);
	CHECK("parallel: some inputs had errors to compare", errors > 3);
	printf("# %u cases, %u cut into parts, %u errors\n", cases, splits,
	       errors);
	return unit_failed;
}
