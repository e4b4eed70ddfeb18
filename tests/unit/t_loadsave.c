/* sf_load and sf_save (load.h, save.h): inputs merged with their threads
 * apart, errors naming the input, the writer chosen by name, extension or
 * fallback, atomic output, and what a writer drops.  Expectations are
 * written by hand from the inputs below. */
#include "unit.h"
#include "load.h"
#include "save.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static char *slurp(const char *path)
{
	static char buf[4096];
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return NULL;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = 0;
	fclose(f);
	return buf;
}

int main(void)
{
	char dir[] = "/tmp/t_loadsave.XXXXXX", a[64], b[64], bad[64], out[96];
	struct sf_ctx ctx;
	struct sf_profile *p = NULL;
	struct sf_save s;
	char what[256];

	if (!mkdtemp(dir))
		return 1;
	snprintf(a, sizeof(a), "%s/a.samples.tsv", dir);
	snprintf(b, sizeof(b), "%s/b.samples.tsv", dir);
	snprintf(bad, sizeof(bad), "%s/bad.folded", dir);
	/* the same thread name and id in two inputs: two threads */
	put(a, "7:t\t2\tmain;f\n7:t\t1\tmain;g\n");
	put(b, "7:t\t4\tmain;f\n");
	put(bad, "main;f 1\nmain;g x\n");

	sf_ctx_init(&ctx);
	char *both[] = { a, b };
	struct sf_load_options lo = { .aggregate = true };
	CHECK("load-two-inputs", !sf_load(&p, &ctx, both, 2, &lo));
	if (p) {
		double sum = 0;
		for (size_t i = 0; i < p->d.nsamples; i++)
			sum += sf_weight(p, i, p->d.meta.default_type);
		CHECK("load-merges-weights", sum == 7);
		CHECK("load-keeps-inputs-threads-apart", p->d.nthreads == 2);
		CHECK("load-folds-when-asked", p->d.nsamples == 3);

		/* lines keep threads, collapsed does not */
		CHECK("pick-by-extension",
		      !sf_save_pick(&s, &ctx, "x.folded", NULL, "lines",
				    false) &&
		      !strcmp(s.format->name, "collapsed") && !s.gzip);
		unsigned lost = sf_save_losses(s.format, p);
		CHECK("losses-collapsed-threads", lost == SF_CAP_THREADS);
		sf_save_losses_text(what, sizeof(what), SF_CAP_THREADS |
				    SF_CAP_TIME | SF_CAP_LABELS);
		CHECK_STR("losses-text", "threads, timestamps, sample labels",
			  what);
		CHECK("losses-json-none",
		      sf_save_losses(sf_format_by_name("json"), p) == 0);

		/* a named output appears complete, through a temporary file */
		snprintf(out, sizeof(out), "%s/out.folded", dir);
		CHECK("save-collapsed",
		      !sf_save_pick(&s, &ctx, out, NULL, "lines", false) &&
		      !sf_save(&s, p, &ctx));
		CHECK_STR("save-collapsed-bytes", "main;f 6\nmain;g 1\n",
			  slurp(out));
		/* a directory that does not exist: an error, nothing left */
		snprintf(out, sizeof(out), "%s/no/such/dir/x.folded", dir);
		CHECK("save-error",
		      !sf_save_pick(&s, &ctx, out, NULL, "lines", false) &&
		      sf_save(&s, p, &ctx) == SF_EIO && ctx.err.msg[0]);
		sf_error_clear(&ctx);
		sf_profile_free(p);
		p = NULL;
	}

	CHECK("pick-gz", !sf_save_pick(&s, &ctx, "x.json.gz", NULL,
				       "collapsed", false) &&
		      !strcmp(s.format->name, "json") && s.gzip);
	CHECK("pick-to-wins", !sf_save_pick(&s, &ctx, "x.json", "lines",
					    "collapsed", false) &&
		      !strcmp(s.format->name, "lines"));
	CHECK("pick-fallback-stdout",
	      !sf_save_pick(&s, &ctx, "-", NULL, "difffolded", false) &&
	      !strcmp(s.format->name, "difffolded"));
	CHECK("pick-unknown-to",
	      sf_save_pick(&s, &ctx, NULL, "nope", "collapsed", false) ==
	      SF_EUSAGE && strstr(ctx.err.msg, "'nope'"));
	sf_error_clear(&ctx);
	CHECK("pick-read-only-to",
	      sf_save_pick(&s, &ctx, NULL, "perf", "collapsed", false) ==
	      SF_EUSAGE);
	sf_error_clear(&ctx);
	CHECK("pick-unknown-extension",
	      sf_save_pick(&s, &ctx, "x.unknownext", NULL, "collapsed",
			   false) == SF_EUSAGE);
	sf_error_clear(&ctx);
	CHECK("pick-device", !sf_save_pick(&s, &ctx, "/dev/null", NULL,
					   "lines", false) &&
		      !strcmp(s.format->name, "collapsed"));

	/* the second line of bad.folded is wrong: the error names it */
	char *one[] = { a, bad };
	CHECK("load-error", sf_load(&p, &ctx, one, 2, NULL) == SF_EINPUT &&
			    !p);
	CHECK_STR("load-error-source", bad, ctx.err.source);
	CHECK("load-error-line", ctx.err.line == 2);
	sf_error_clear(&ctx);
	char *missing[] = { "/nonexistent/x.folded" };
	CHECK("load-missing", sf_load(&p, &ctx, missing, 1, NULL) == SF_EIO);

	sf_ctx_free(&ctx);
	unlink(a);
	unlink(b);
	unlink(bad);
	snprintf(out, sizeof(out), "%s/out.folded", dir);
	unlink(out);
	rmdir(dir);
	return unit_failed;
}
